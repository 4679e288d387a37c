// nic_clock.h — the clock of the platform's NICs: steps every NIC model (and the Ethernet wire
// between them) once per cycle, 4 ns (250 MHz), and hands each NIC's DMA ports to its
// endpoint (nic_endpoint.h). It runs until stop().
#pragma once
#include "nic_endpoint.h"

class nic_clock : public sc_core::sc_module {
public:
    // mode "c" or "rtl" (nic_models.h); NULL models() after a failure (message on stderr)
    nic_clock(sc_core::sc_module_name name, fabric_context &fab, const char *iface, const char *mode, unsigned nics);
    ~nic_clock() override;
    nic_models_t *models() { return models_; }
    unsigned dma_ports() const;
    void attach(unsigned nic, nic_endpoint *ep) { endpoints_.at(nic) = ep; }
    void stop() { stopped_ = true; }
    uint64_t cycles() const;
    static constexpr double period_ns = 4;

private:
    void run();
    static void eval(void *ctx, unsigned nic, unsigned port, hostmem_port_out_t *out);
    static void edge(void *ctx, unsigned nic, unsigned port, const hostmem_port_in_t *in);
    fabric_context &fab_;
    nic_models_t *models_ = nullptr;
    std::vector<nic_endpoint *> endpoints_;
    bool stopped_ = false;
};
