// pcie_switch.cc — routing and forwarding, through the egress buffer or the per-pair ones.
#include "pcie_switch.h"
#include "address_map.h"
#include <algorithm>

using namespace sc_core;

size_t pcie_switch::route(size_t ingress, const tlp &t) const {
    uint16_t target = t.is_request() ? address_owner(t.addr) : t.requester;
    for (size_t p = 1; p < below.size(); p++)
        if (std::count(below[p].begin(), below[p].end(), target)) {
            if (acs_redirect_ && ingress != 0) return 0;   // peer-to-peer: up to the root
            return p;
        }
    return 0;
}

// The per-pair buffers hold what the egress port's transmit buffer holds: the link's credits.
void pcie_switch::before_end_of_elaboration() {
    fabric_node::before_end_of_elaboration();
    if (buffers_ != switch_buffers::per_port) return;
    size_t n = ports.size();
    for (size_t in = 0; in < n; in++)
        for (size_t out = 0; out < n; out++)
            pairs_.push_back(std::make_unique<tlp_queue>(std::string(name()) + ".p" + std::to_string(in) + "->p" +
                                                             std::to_string(out),
                                                         ports[out]->out.capacity(), fab_.order));
    for (size_t out = 0; out < n; out++)
        sc_spawn(sc_bind(&pcie_switch::drain_to, this, out), ("drain_p" + std::to_string(out)).c_str());
}

bool pcie_switch::can_accept(size_t port, const tlp &t) {
    size_t egress = route(port, t);
    return buffers_ == switch_buffers::per_port ? pair(port, egress).has_room(t) : ports[egress]->out.has_room(t);
}

void pcie_switch::accept(size_t port, tlp t) {
    size_t egress = route(port, t);
    fab_.log(&t, std::string(basename()) + " forwards p" + std::to_string(port) + " -> p" +
                     std::to_string(egress));
    if (buffers_ == switch_buffers::bridge) return send(egress, std::move(t));
    tlp_queue &q = pair(port, egress);
    fab_.log(&t, "queued in " + q.name());
    q.push(std::move(t));
    fab_.poke();
}

// Whatever the rules of its own buffer let leave, from any ingress, and the transmit buffer
// has room for: one picked at random, as the link picks among what may leave.
void pcie_switch::drain_to(size_t egress) {
    for (;;) {
        std::vector<std::pair<size_t, tlp_queue::slot>> ready;
        for (size_t in = 0; in < ports.size(); in++) {
            tlp_queue &q = pair(in, egress);
            for (auto s : q.leavable())
                if (!fab_.held(q.peek(s), q.name()) && ports[egress]->out.has_room(q.peek(s))) ready.push_back({in, s});
        }
        if (ready.empty()) {
            wait(fab_.changed);
            continue;
        }
        auto pick = ready[fab_.pick(ready.size())];
        send(egress, pair(pick.first, egress).take(pick.second));
    }
}

std::vector<std::string> pcie_switch::buffered() const {
    std::vector<std::string> out;
    for (auto &q : pairs_)
        if (!q->empty()) out.push_back(q->name() + " still holds " + std::to_string(q->size()) + " TLP(s)");
    return out;
}
