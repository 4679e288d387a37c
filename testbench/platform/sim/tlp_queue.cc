// tlp_queue.cc — the ordering table applied at a buffer.
#include "tlp_queue.h"
#include <cassert>

void tlp_queue::push(tlp t) {
    assert(room_.covers(t));
    room_.take(t);
    int c = t.cls();
    q_[c].push_back({std::move(t), arrivals_++});
}

bool tlp_queue::empty() const { return size() == 0; }

size_t tlp_queue::size() const {
    size_t n = 0;
    for (const auto &q : q_) n += q.size();
    return n;
}

bool tlp_queue::may_leave(const entry &e) const {
    for (const auto &q : q_)
        for (const entry &earlier : q) {
            if (earlier.arrival >= e.arrival) break;   // each queue is in arrival order
            if (may_pass(e.packet, earlier.packet, opt_).answer == passing::must_not) return false;
        }
    return true;
}

std::vector<tlp_queue::slot> tlp_queue::leavable() const {
    std::vector<slot> out;
    for (int c = 0; c < tlp_classes; c++)
        for (size_t i = 0; i < q_[c].size(); i++)
            if (may_leave(q_[c][i])) out.push_back({c, i});
    return out;
}

tlp tlp_queue::take(slot s) {
    auto &q = q_[s.cls];
    tlp t = std::move(q[s.index].packet);
    q.erase(q.begin() + long(s.index));
    room_.give(t);
    return t;
}
