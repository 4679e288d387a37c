// nic_firmware.cc — the firmware's thread, mailbox and DMA; nic_firmware.h says what.
#include "nic_firmware.h"
#include "nic_clock.h"
#include "mig_err.h"
#include "nic_bar.h"
#include <cstdio>
#include <cstring>

using namespace sc_core;

nic_firmware::nic_firmware(sc_module_name name, nic_endpoint &ep, nic_models_t *models, unsigned nic)
    : sc_module(name), ep_(ep) {
    static_assert(sizeof(mig_cmd) <= NIC_BAR_FW_CMD_MAX && sizeof(mig_resp) <= NIC_BAR_FW_RESP_MAX, "mailbox too small");
    nic_fw_env_t env = {this, wait_cycles, host_write, nullptr, flush_writes};
    fw_ = nic_fw_new(models, nic, &env);
    SC_HAS_PROCESS(nic_firmware);
    SC_THREAD(run);
}

nic_firmware::~nic_firmware() { nic_fw_free(fw_); }

static std::string to_hex(uint64_t v) {
    char b[24];
    snprintf(b, sizeof b, "%llx", (unsigned long long)v);
    return b;
}

static bool inside(uint64_t off, uint64_t base, uint64_t size) { return off >= base && off + 8 <= base + size; }

bool nic_firmware::owns(uint64_t off) const {
    return inside(off, NIC_BAR_FW_CMD, NIC_BAR_FW_CMD_MAX) || off == NIC_BAR_FW_GO || off == NIC_BAR_FW_STATUS ||
           inside(off, NIC_BAR_FW_RESP, NIC_BAR_FW_RESP_MAX);
}

void nic_firmware::write(uint64_t off, uint64_t v) {
    if (inside(off, NIC_BAR_FW_CMD, NIC_BAR_FW_CMD_MAX)) {
        memcpy(cmd_ + (off - NIC_BAR_FW_CMD), &v, 8);
    } else if (off == NIC_BAR_FW_GO) {
        if (busy_) {
            errors.push_back(std::string(basename()) + ": FW_GO while the previous command is still busy: ignored");
            return;
        }
        busy_ = true;
        done_ = false;
        go_.notify(SC_ZERO_TIME);
    } else {
        errors.push_back(std::string(basename()) + ": write at mailbox offset 0x" + to_hex(off) + ": read-only");
    }
}

uint64_t nic_firmware::read(uint64_t off) {
    uint64_t v = 0;
    if (off == NIC_BAR_FW_STATUS) return (busy_ ? NIC_FW_STATUS_BUSY : 0) | (done_ ? NIC_FW_STATUS_DONE : 0);
    if (inside(off, NIC_BAR_FW_CMD, NIC_BAR_FW_CMD_MAX)) memcpy(&v, cmd_ + (off - NIC_BAR_FW_CMD), 8);
    else if (inside(off, NIC_BAR_FW_RESP, NIC_BAR_FW_RESP_MAX)) memcpy(&v, resp_ + (off - NIC_BAR_FW_RESP), 8);
    else errors.push_back(std::string(basename()) + ": read at mailbox offset 0x" + to_hex(off) + ": write-only");
    return v;
}

void nic_firmware::run() {
    for (;;) {
        wait(go_);
        mig_cmd c;
        mig_resp r;
        memcpy(&c, cmd_, sizeof c);
        nic_fw_command(fw_, &c, &r);
        watch_link(c, r);
        memset(resp_, 0, sizeof resp_);
        memcpy(resp_, &r, sizeof r);
        commands++;
        busy_ = false;
        done_ = true;
    }
}

void nic_firmware::watch_link(const mig_cmd &c, const mig_resp &r) {
    if (r.status != MIG_OK) return;
    if (c.opcode == MIG_CMD_SUSPEND_ACTIVE)
        ep_.set_quiet_from_answer(std::string(basename()) + "'s Suspend-Active answer for fn " + std::to_string(c.fn) +
                                  " at " + std::to_string(uint64_t(sc_time_stamp().to_seconds() * 1e9)) + " ns");
    else if (c.opcode == MIG_CMD_SUSPEND_PASSIVE)
        ep_.capture_device_memory();
    else if (c.opcode == MIG_CMD_RESUME_ACTIVE)
        ep_.set_quiet(false);
}

void nic_firmware::wait_cycles(void *, uint32_t cycles) {
    if (cycles) sc_core::wait(cycles * nic_clock::period_ns, SC_NS);
}

int nic_firmware::host_write(void *ctx, uint64_t addr, const uint8_t *buf, uint32_t len) {
    auto *self = static_cast<nic_firmware *>(ctx);
    if (addr % 8 || len % 8) return MIG_E_ARG;   // the firmware writes whole 512-byte blocks
    for (uint32_t done = 0; done < len;) {
        uint32_t n = std::min<uint32_t>(64 - uint32_t((addr + done) % 64), len - done);
        tlp t;
        t.kind = tlp_kind::mem_write;
        t.addr = addr + done;
        t.data.resize(n / 8);
        memcpy(t.data.data(), buf + done, n);
        t.note = "firmware: image block";
        self->ep_.send_request(std::move(t));
        done += n;
    }
    self->block_bytes += len;
    wait_cycles(ctx, (len + 63) / 64);
    return MIG_OK;
}

// A bound, not a timing: 100 000 cycles are 400 us, far beyond any round trip here.
int nic_firmware::flush_writes(void *ctx, unsigned) {
    auto *self = static_cast<nic_firmware *>(ctx);
    if (self->test_skip_flush_read) return MIG_OK;
    self->flush_reads += self->ep_.flush_peer_writes();
    for (uint32_t c = 0; c < 100000; c++) {
        if (!self->ep_.dma().flushing()) return MIG_OK;
        wait_cycles(ctx, 1);
        self->flush_cycles++;
    }
    self->errors.push_back(std::string(self->basename()) + ": a flush read not answered after 100000 cycles");
    return MIG_E_TIMEOUT;
}
