// nic_endpoint.h — a NIC as a PCIe endpoint of the platform (docs/pcie-platform.md section
// 10): one upstream port, a memory BAR at bar_base(id) whose first 4 x 64 KiB are the NIC's
// four BAR0s (function fn at fn * 64 KiB), and the NIC's DMA carried as TLPs (nic_dma.h).
//   - an MWr to the BAR is a register write per 8-byte word (posted: nothing answers);
//   - an MRd of the BAR is answered with CplDs of the registers' values;
//   - the NIC's DMA requests and the BAR's completions leave through one queue in the order
//     they were made, so a completion never passes a DMA write made before it (D2a starts
//     at the device).
// The NIC model itself is one of the NICs of a nic_clock (nic_clock.h): it steps them all
// and hands this endpoint its NIC's DMA ports.
#pragma once
#include "nic_dma.h"
#include "nic_models.h"
#include "node.h"

class nic_endpoint : public fabric_node {
public:
    nic_endpoint(sc_core::sc_module_name name, fabric_context &fab, uint16_t id, nic_models_t *models,
                 unsigned nic, unsigned dma_ports, nic_dma_limits lim = {});
    nic_dma &dma() { return dma_; }
    bool has_outgoing() const { return !out_.empty(); }
    std::vector<std::string> errors;   // bad input: what and where
    uint64_t mmio_writes = 0, mmio_reads = 0;

protected:
    bool can_accept(size_t port, const tlp &t) override;
    void accept(size_t port, tlp t) override;

private:
    void transmit();          // the outgoing queue into the port's transmit buffer
    void push(tlp t);
    nic_models_t *models_;
    unsigned nic_;
    std::deque<tlp> out_;
    sc_core::sc_event out_added_;
    nic_dma dma_;
};
