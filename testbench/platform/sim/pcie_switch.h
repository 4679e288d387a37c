// pcie_switch.h — a PCIe switch: port 0 upstream, the others downstream. Requests are routed
// by address, completions by requester id, to the downstream port whose subtree holds the
// target, else upstream: peer-to-peer traffic turns at the lowest common switch. With ACS
// redirect (P2P Request Redirect and P2P Completion Redirect together) whatever arrives on a
// downstream port goes upstream, so peer-to-peer traffic turns at the root complex.
//
// A TLP goes from its ingress port's receive buffer straight into the egress port's transmit
// buffer, as the ordering rules of the receive buffer let it: one ingress port's posted
// writes keep their order whichever ports they leave by (the PCI-to-PCI bridge picture of
// DESIGN.md section 7; a posted write waiting for a full egress buffer holds the later
// posted writes and the non-posted requests and completions behind it).
#pragma once
#include "node.h"

class pcie_switch : public fabric_node {
public:
    pcie_switch(sc_core::sc_module_name name, fabric_context &fab, uint16_t id, bool acs_redirect)
        : fabric_node(name, fab, id), acs_redirect_(acs_redirect) {}
    // below[i]: the node ids in the subtree of port i (port 0, upstream: empty).
    std::vector<std::vector<uint16_t>> below;

protected:
    bool can_accept(size_t port, const tlp &t) override;
    void accept(size_t port, tlp t) override;

private:
    size_t route(size_t ingress, const tlp &t) const;
    bool acs_redirect_;
};
