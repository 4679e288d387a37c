// nic_firmware.h — the NIC's embedded controller on the platform: the migration firmware
// (nic_fw.h) in its own SystemC thread, its mailbox (NIC_BAR_FW_* in hls/include/nic_bar.h) in the PF's BAR, and
// its DMA of image blocks as MWr TLPs from the NIC's endpoint.
//   - a write of FW_GO wakes the thread, which runs the command to its end; each wait of the
//     firmware's HAL is a SystemC wait of whole NIC cycles, so the NIC clock keeps stepping;
//   - host_write: the block as 64-byte MWrs in the endpoint's outgoing queue, behind every
//     DMA write the NIC made before (so the CplD of FW_STATUS that says DONE cannot pass the
//     block: D2a), charged one cycle per 64 bytes, as a DMA port takes a beat a cycle;
//   - flush_writes (Suspend-Active's last step): the endpoint's flush read (nic_dma.h), one
//     zero-length MRd per peer BAR written, waited for a cycle at a time; test_skip_flush_read
//     (a test-only knob: a NIC without it) answers OK at once, to show what it is for;
//   - its answer to SUSPEND_ACTIVE starts the endpoint's link checker (set_quiet_from_answer:
//     what the datapath queued before the answer may still leave), a resume ends it; its
//     answer to SUSPEND_PASSIVE captures the endpoint's device memory;
//   - host_read is not carried (the destination's load runs in a nic_tb harness: nic_dest.h).
#pragma once
#include "nic_endpoint.h"
#include "nic_fw.h"
#include "nic_bar.h"

class nic_firmware : public sc_core::sc_module, public card_registers {
public:
    nic_firmware(sc_core::sc_module_name name, nic_endpoint &ep, nic_models_t *models, unsigned nic);
    ~nic_firmware() override;
    bool owns(uint64_t off) const override;
    void write(uint64_t off, uint64_t value) override;
    uint64_t read(uint64_t off) override;
    std::vector<std::string> errors;   // bad mailbox use: what and where
    uint64_t commands = 0, block_bytes = 0;
    bool test_skip_flush_read = false;
    uint64_t flush_reads = 0, flush_cycles = 0;   // zero-length MRds sent, NIC cycles waiting for them
    const nic_fw_t *fw() const { return fw_; }

private:
    void run();
    static void wait_cycles(void *ctx, uint32_t cycles);
    static int host_write(void *ctx, uint64_t addr, const uint8_t *buf, uint32_t len);
    static int flush_writes(void *ctx, unsigned fn);
    void watch_link(const mig_cmd &c, const mig_resp &r);
    nic_endpoint &ep_;
    nic_fw_t *fw_;
    uint8_t cmd_[NIC_BAR_FW_CMD_MAX] = {}, resp_[NIC_BAR_FW_RESP_MAX] = {};
    bool busy_ = false, done_ = false;
    sc_core::sc_event go_;
};
