// node.h — anything with PCIe ports: the root complex, a switch, an endpoint. A port is a
// receive buffer (filled by the link from the peer, credits handed back as it drains) and a
// transmit buffer (drained by the link to the peer). Each port has a thread that takes TLPs
// from its receive buffer as the ordering rules allow and as the node can take them now
// (can_accept: room for forwarding, or for the completion a read will need), one per
// processing time.
#pragma once
#include "link.h"
#include <memory>
#include <vector>

struct pcie_port {
    pcie_port(const std::string &name, const link_params &in, const link_params &out,
              const ordering_options &opt);
    tlp_queue in, out;
    pcie_link *feeds_in = nullptr;   // the peer's link into `in`: takes the credits back
    std::string peer;                // the node at the other end, for traces
};

class fabric_node : public sc_core::sc_module {
public:
    fabric_node(sc_core::sc_module_name name, fabric_context &fab, uint16_t id);
    const uint16_t id;
    std::vector<std::unique_ptr<pcie_port>> ports;
    pcie_port &add_port(const link_params &in, const link_params &out, const std::string &peer);
    void set_processing_ns(double ns) { processing_ns_ = ns; }

protected:
    virtual bool can_accept(size_t port, const tlp &t) = 0;
    virtual void accept(size_t port, tlp t) = 0;
    // Put t in port's transmit buffer, waiting for room (thread context only).
    void send(size_t port, tlp t);
    void before_end_of_elaboration() override;   // spawns the receive threads
    fabric_context &fab_;
    double processing_ns_ = 4;   // per TLP taken from a receive buffer

private:
    void serve(size_t port);
};

// One physical link between a and b: a port on each and a pcie_link each way.
void connect(fabric_context &fab, fabric_node &a, fabric_node &b, const link_params &p,
             std::vector<std::unique_ptr<pcie_link>> &links);
