// nic_clock.cc — the NICs' clock thread.
#include "nic_clock.h"

using namespace sc_core;

nic_clock::nic_clock(sc_module_name name, fabric_context &fab, const char *iface, const char *mode, unsigned nics)
    : sc_module(name), fab_(fab), endpoints_(nics, nullptr) {
    nic_models_dma_t dma = {this, eval, edge, nullptr};   // no per-cycle work at the edge
    models_ = nic_models_new(iface, mode, nics, &dma);
    SC_HAS_PROCESS(nic_clock);
    SC_THREAD(run);
}

nic_clock::~nic_clock() { nic_models_free(models_); }
unsigned nic_clock::dma_ports() const { return models_ ? nic_models_dma_ports(models_) : 0; }
uint64_t nic_clock::cycles() const { return models_ ? nic_models_cycles(models_) : 0; }

void nic_clock::run() {
    while (models_ && !stopped_) {
        nic_models_step(models_);
        for (nic_endpoint *ep : endpoints_)   // wake the fabric only for TLPs to send
            if (ep && ep->has_outgoing()) fab_.poke();
        wait(period_ns, SC_NS);
    }
}

void nic_clock::eval(void *ctx, unsigned nic, unsigned port, hostmem_port_out_t *out) {
    static_cast<nic_clock *>(ctx)->endpoints_.at(nic)->dma().eval(port, out);
}
void nic_clock::edge(void *ctx, unsigned nic, unsigned port, const hostmem_port_in_t *in) {
    static_cast<nic_clock *>(ctx)->endpoints_.at(nic)->dma().edge(port, in);
}
