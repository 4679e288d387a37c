// node.cc — ports, the receive loop, and wiring two nodes together.
#include "node.h"

using namespace sc_core;

pcie_port::pcie_port(const std::string &name, const link_params &in_p, const link_params &out_p,
                     const ordering_options &opt)
    : in(name + ".rx", credit_pool::uniform(in_p.header_credits, in_p.data_credits), opt),
      out(name + ".tx", credit_pool::uniform(out_p.header_credits, out_p.data_credits), opt) {}

fabric_node::fabric_node(sc_module_name name, fabric_context &fab, uint16_t id)
    : sc_module(name), id(id), fab_(fab) {}

pcie_port &fabric_node::add_port(const link_params &in, const link_params &out,
                                 const std::string &peer) {
    std::string pname = std::string(name()) + ".p" + std::to_string(ports.size());
    ports.push_back(std::make_unique<pcie_port>(pname, in, out, fab_.order));
    ports.back()->peer = peer;
    return *ports.back();
}

void fabric_node::before_end_of_elaboration() {
    for (size_t i = 0; i < ports.size(); i++)
        sc_spawn(sc_bind(&fabric_node::serve, this, i), (std::string("serve_p") + std::to_string(i)).c_str());
}

void fabric_node::serve(size_t port) {
    pcie_port &p = *ports[port];
    for (;;) {
        std::vector<tlp_queue::slot> ready;
        for (auto s : p.in.leavable())
            if (can_accept(port, p.in.peek(s)) && !fab_.held(p.in.peek(s), p.in.name())) ready.push_back(s);
        if (ready.empty()) {
            wait(fab_.changed);
            continue;
        }
        tlp t = p.in.take(ready[fab_.pick(ready.size())]);
        p.feeds_in->return_credits(t);
        fab_.poke();
        accept(port, std::move(t));
        wait(processing_ns_, SC_NS);
    }
}

void fabric_node::send(size_t port, tlp t) {
    pcie_port &p = *ports[port];
    while (!p.out.has_room(t)) wait(fab_.changed);
    fab_.log(&t, "queued in " + p.out.name());
    p.out.push(std::move(t));
    fab_.poke();
}

void connect(fabric_context &fab, fabric_node &a, fabric_node &b, const link_params &p,
             std::vector<std::unique_ptr<pcie_link>> &links) {
    pcie_port &pa = a.add_port(p, p, b.name());
    pcie_port &pb = b.add_port(p, p, a.name());
    std::string an = a.basename(), bn = b.basename();
    links.push_back(std::make_unique<pcie_link>((an + "_to_" + bn).c_str(), fab, pa.out, pb.in, p));
    pb.feeds_in = links.back().get();
    links.push_back(std::make_unique<pcie_link>((bn + "_to_" + an).c_str(), fab, pb.out, pa.in, p));
    pa.feeds_in = links.back().get();
}
