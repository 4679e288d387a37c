// pcie_switch.cc — routing and forwarding.
#include "pcie_switch.h"
#include "address_map.h"
#include <algorithm>

size_t pcie_switch::route(size_t ingress, const tlp &t) const {
    uint16_t target = t.is_request() ? address_owner(t.addr) : t.requester;
    for (size_t p = 1; p < below.size(); p++)
        if (std::count(below[p].begin(), below[p].end(), target)) {
            if (acs_redirect_ && ingress != 0) return 0;   // peer-to-peer: up to the root
            return p;
        }
    return 0;
}

bool pcie_switch::can_accept(size_t port, const tlp &t) {
    return ports[route(port, t)]->out.has_room(t);
}

void pcie_switch::accept(size_t port, tlp t) {
    size_t egress = route(port, t);
    fab_.log(&t, std::string(basename()) + " forwards p" + std::to_string(port) + " -> p" +
                     std::to_string(egress));
    send(egress, std::move(t));
}
