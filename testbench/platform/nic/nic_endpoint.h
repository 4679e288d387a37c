// nic_endpoint.h — a NIC as a PCIe endpoint of the platform (docs/pcie-platform.md section
// 10): one upstream port, a memory BAR at bar_base(id) whose first 4 x 64 KiB are the NIC's
// four BAR0s (function fn at fn * 64 KiB), and the NIC's DMA carried as TLPs (nic_dma.h).
//   - an MWr to the BAR is a register write per 8-byte word (posted: nothing answers);
//   - an MRd of the BAR is answered with CplDs of the registers' values;
//   - the NIC's DMA requests and the BAR's completions leave through one queue in the order
//     they were made, so a completion never passes a DMA write made before it (D2a starts
//     at the device).
//   - the BAR's upper half is on-card memory (as a NIC's device memory, ibv_alloc_dm): peers
//     write into it and read it (peer-to-peer into the NIC); it is captured when the NIC
//     answers Suspend-Passive, and a write arriving after that is lost (recorded).
// The NIC model itself is one of the NICs of a nic_clock (nic_clock.h): it steps them all
// and hands this endpoint its NIC's DMA ports.
#pragma once
#include "nic_dma.h"
#include "nic_models.h"
#include "node.h"
#include "root_complex.h"

// Registers of the BAR that are not the NIC's (nic_bar_regs.h) but another agent's on the
// card (the migration firmware's mailbox, nic_firmware.h): offsets within function 0's window.
struct card_registers {
    virtual ~card_registers() = default;
    virtual bool owns(uint64_t off) const = 0;
    virtual void write(uint64_t off, uint64_t value) = 0;
    virtual uint64_t read(uint64_t off) = 0;
};

class nic_endpoint : public fabric_node {
public:
    nic_endpoint(sc_core::sc_module_name name, fabric_context &fab, uint16_t id, nic_models_t *models,
                 unsigned nic, unsigned dma_ports, nic_dma_limits lim = {});
    nic_dma &dma() { return dma_; }
    static constexpr uint64_t device_memory_base = 0x80000, device_memory_size = 0x80000;   // BAR offsets
    const word_memory &device_memory() const { return device_memory_; }
    const word_memory &device_memory_image() const { return device_memory_image_; }
    bool device_memory_captured() const { return captured_; }
    void capture_device_memory();    // at the NIC's Suspend-Passive answer
    std::vector<std::string> losses; // writes into the device memory after its capture
    std::vector<tlp> lost;
    bool has_outgoing() const { return !out_.empty(); }
    std::vector<std::string> errors;   // bad input: what and where
    uint64_t mmio_writes = 0, mmio_reads = 0;
    card_registers *window = nullptr;      // nullptr: every register is the NIC's
    // A request another agent of the card makes (its requester id is the NIC's), behind
    // everything already in the outgoing queue.
    void send_request(tlp t);
    // Suspend-Active's flush read (nic_dma.h), from the card's firmware thread; poll
    // dma().flushing() for its end.
    size_t flush_peer_writes();
    // The link checker: from a function's Suspend-Active answer (`why` says which, and when)
    // until its resume, a TLP of the NIC's datapath leaving for the link is recorded in
    // sent_while_quiet. Per NIC: each NIC here runs one function.
    void set_quiet(bool on, const std::string &why = "");
    // The same, armed by the card itself at the very moment it answers (the firmware): the
    // datapath TLPs already in the outgoing queue then were made before the answer and are
    // not counted when they leave; one made after it is. (The host sees the answer only when
    // its status read's completion, queued behind them, comes back: set_quiet counts all.)
    void set_quiet_from_answer(const std::string &why);
    std::vector<std::string> sent_while_quiet;

protected:
    bool can_accept(size_t port, const tlp &t) override;
    void accept(size_t port, tlp t) override;

private:
    void transmit();          // the outgoing queue into the port's transmit buffer
    void push(tlp t);
    void register_write(uint64_t off, uint64_t value);
    uint64_t register_read(uint64_t off);
    void device_memory_access(const tlp &t, uint64_t off);
    word_memory device_memory_, device_memory_image_;   // keyed by BAR offset
    bool captured_ = false;
    nic_models_t *models_;
    unsigned nic_;
    std::deque<tlp> out_;
    bool quiet_ = false;
    size_t made_before_answer_ = 0;   // datapath TLPs queued before the firmware's answer, still queued
    std::string quiet_why_;
    sc_core::sc_event out_added_;
    nic_dma dma_;
};
