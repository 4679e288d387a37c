// pcie_switch.h — a PCIe switch: port 0 upstream, the others downstream. Requests are routed
// by address, completions by requester id, to the downstream port whose subtree holds the
// target, else upstream: peer-to-peer traffic turns at the lowest common switch. With ACS
// redirect (P2P Request Redirect and P2P Completion Redirect together) whatever arrives on a
// downstream port goes upstream, so peer-to-peer traffic turns at the root complex.
//
// Two readings of "a switch keeps order" (DESIGN.md section 7), both legal:
//   bridge: a TLP goes from its ingress port's receive buffer straight into the egress port's
//     transmit buffer, as the ordering rules of the receive buffer let it: one ingress port's
//     posted writes keep their order whichever ports they leave by (the PCI-to-PCI bridge
//     picture; a posted write waiting for a full egress buffer holds the later posted writes
//     and the non-posted requests and completions behind it).
//   per_port: a buffer per (ingress, egress) pair, as a crossbar with virtual output queues.
//     The ingress port sorts its TLPs into them as the rules allow; each egress port takes
//     from any of its buffers, at random, as the rules of each buffer allow. Order holds per
//     (ingress, egress) pair only: a posted write waiting for egress A does not hold a
//     completion of the same ingress port bound for egress B (the spin model's
//     PER_PORT_SWITCH, docs/pcie-platform.md section 3).
#pragma once
#include "node.h"

enum class switch_buffers { bridge, per_port };

class pcie_switch : public fabric_node {
public:
    pcie_switch(sc_core::sc_module_name name, fabric_context &fab, uint16_t id, bool acs_redirect,
                switch_buffers buffers = switch_buffers::bridge)
        : fabric_node(name, fab, id), acs_redirect_(acs_redirect), buffers_(buffers) {}
    // below[i]: the node ids in the subtree of port i (port 0, upstream: empty).
    std::vector<std::vector<uint16_t>> below;
    // The per-pair buffers that still hold TLPs (at the end of a run: a deadlock), named.
    std::vector<std::string> buffered() const;

protected:
    bool can_accept(size_t port, const tlp &t) override;
    void accept(size_t port, tlp t) override;
    void before_end_of_elaboration() override;

private:
    size_t route(size_t ingress, const tlp &t) const;
    tlp_queue &pair(size_t ingress, size_t egress) { return *pairs_[ingress * ports.size() + egress]; }
    void drain_to(size_t egress);   // per_port: the egress port's thread
    bool acs_redirect_;
    switch_buffers buffers_;
    std::vector<std::unique_ptr<tlp_queue>> pairs_;   // [ingress * ports + egress], per_port only
};
