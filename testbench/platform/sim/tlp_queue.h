// tlp_queue.h — one buffer of TLPs (a link transmitter's, a switch port's or a device's
// receive buffer): separate posted / non-posted / completion queues, a capacity in credits,
// and the ordering table applied to every departure. A TLP may leave when, for every TLP
// that entered before it and is still here (in any of the three queues), the table does not
// say "must not pass". Which of the TLPs allowed to leave actually goes is the caller's
// choice: the platform picks at random (seeded), to reach every order the rules allow.
#pragma once
#include "credits.h"
#include "ordering.h"
#include <deque>
#include <string>
#include <vector>

class tlp_queue {
public:
    struct slot { int cls; size_t index; };

    tlp_queue(std::string name, credit_pool capacity, const ordering_options &opt)
        : name_(std::move(name)), room_(capacity), capacity_(capacity), opt_(opt) {}

    const std::string &name() const { return name_; }
    const credit_pool &capacity() const { return capacity_; }
    bool has_room(const tlp &t) const { return room_.covers(t); }
    void push(tlp t);                       // the caller checked has_room
    bool empty() const;
    size_t size() const;

    std::vector<slot> leavable() const;     // every TLP the ordering rules let leave now
    const tlp &peek(slot s) const { return q_[s.cls][s.index].packet; }
    tlp take(slot s);

private:
    struct entry { tlp packet; uint64_t arrival; };
    bool may_leave(const entry &e) const;

    std::string name_;
    credit_pool room_, capacity_;
    const ordering_options &opt_;
    std::deque<entry> q_[tlp_classes];
    uint64_t arrivals_ = 0;
};
