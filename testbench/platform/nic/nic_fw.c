/* nic_fw.c — the migration firmware of a platform NIC and its HAL; nic_fw.h says what.
 *
 * The section map and the words per row come from the migration testbench's HAL
 * (mig_hal_tb_section and its caps op, testbench/migration/mig_hal_tb.c), so the two HALs
 * describe the NIC's context port the same way; only how a command reaches ctrl and how
 * time passes differ. */
#include "nic_fw.h"

#include <stdlib.h>
#include <string.h>

#include "../../migration/mig_hal_tb.h"
#include "mig_fw.h"
#include "nic_bar_regs.h"

_Static_assert(NIC_FW_BLOCK_SIZE == MIG_BLOCK_SIZE && NIC_FW_IMG_FINAL == MIG_IMG_FINAL, "nic_fw.h out of date");

/* cycles a command may wait for ctrl's answer before the op fails (MIG_E_TIMEOUT) */
#define ANSWER_BOUND 1000000u

struct nic_fw {
    nic_bar_regs_t *regs;
    nic_fw_env_t env;
    struct mig_fw fw;
    struct mig_resp init_resp;
    int init_rc;
    bool suspend_pending;
    uint8_t pending_fn, pending_level;
    uint8_t level[NIC_FNS];
    uint64_t port_cycles, commands;
};

static nic_fw_t *fw_of(void *hw) { return hw; }

static void wait_cycles(nic_fw_t *f, uint32_t n) {
    f->env.wait_cycles(f->env.ctx, n);
    f->port_cycles += n;
}

/* Put c on ctrl's queue (waiting while the firmware's previous command is unanswered) and
 * wait for its answer. */
static int push(nic_fw_t *f, const nic_cmd_t *c) {
    for (uint32_t waited = 0; nic_bar_regs_fw_push(f->regs, c) < 0; waited++) {
        if (waited == ANSWER_BOUND) return MIG_E_TIMEOUT;
        wait_cycles(f, 1);
    }
    f->commands++;
    return MIG_OK;
}

static int settle_suspend(nic_fw_t *f);

static int command(nic_fw_t *f, const nic_cmd_t *c, nic_cmd_resp_t *r) {
    int rc = settle_suspend(f);
    if (rc == MIG_OK) rc = push(f, c);
    for (uint32_t waited = 0; rc == MIG_OK && !nic_bar_regs_fw_take(f->regs, r); waited++) {
        if (waited == ANSWER_BOUND) return MIG_E_TIMEOUT;
        wait_cycles(f, 1);
    }
    if (rc == MIG_OK && r->status != NIC_CMD_OK) rc = MIG_E_HW;
    return rc;
}

static int caps(void *hw, struct mig_caps *out) {
    (void)hw;
    struct mig_hal_tb shape;
    struct mig_hal h = mig_hal_tb(&shape, NULL, 0);   /* its caps op reads no NIC */
    return h.ops->caps(h.hw, out);
}

static int ctx_access(nic_fw_t *f, bool write, unsigned t, unsigned s, unsigned fn, unsigned row, uint32_t *w,
                      unsigned nwords) {
    unsigned sect = mig_hal_tb_section(t, s);
    if (!sect || nwords != f->fw.caps.words[t][s] || nwords % 4 || fn >= NIC_FNS) return MIG_E_ARG;
    int rc = MIG_OK;
    for (unsigned k = 0; rc == MIG_OK && k < nwords / 4; k++) {
        nic_cmd_t c = mig_ctx_word_cmd(write, fn, row, sect, k, &w[4 * k]);
        nic_cmd_resp_t r;
        rc = command(f, &c, &r);
        if (rc == MIG_OK && !write) mig_ctx_word_take(&r, &w[4 * k]);
    }
    return rc;
}

static int ctx_read(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, uint32_t *w, unsigned n) {
    return ctx_access(fw_of(hw), false, t, s, fn, row, w, n);
}
static int ctx_write(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, const uint32_t *w, unsigned n) {
    return ctx_access(fw_of(hw), true, t, s, fn, row, (uint32_t *)w, n);
}

/* ---- suspend: SUSPEND_FN on ctrl's queue; its answer is the end of the handshake ---------- */
static int take_suspend_answer(nic_fw_t *f, const nic_cmd_resp_t *r) {
    f->suspend_pending = false;
    if (r->status != NIC_CMD_OK) return MIG_E_HW;
    f->level[f->pending_fn] = f->pending_level;
    return MIG_OK;
}

static int settle_suspend(nic_fw_t *f) {
    nic_cmd_resp_t r;
    for (uint32_t waited = 0; f->suspend_pending; waited++) {
        if (nic_bar_regs_fw_take(f->regs, &r)) return take_suspend_answer(f, &r);
        if (waited == ANSWER_BOUND) return MIG_E_TIMEOUT;
        wait_cycles(f, 1);
    }
    return MIG_OK;
}

static int suspend_request(void *hw, unsigned fn, enum mig_level level) {
    nic_fw_t *f = fw_of(hw);
    if (fn >= NIC_FNS || level > MIG_LEVEL_PASSIVE) return MIG_E_ARG;
    int rc = settle_suspend(f);
    nic_cmd_t c = {.op = NIC_CMD_SUSPEND_FN, .fn = (nic_fn_t)fn, .level = (hls_uint(2))level};
    if (rc == MIG_OK) rc = push(f, &c);
    if (rc != MIG_OK) return rc;
    f->suspend_pending = true;
    f->pending_fn = (uint8_t)fn;
    f->pending_level = (uint8_t)level;
    return MIG_OK;
}

/* one poll: the firmware charges its poll (spend), during which the NICs run */
static int suspend_status(void *hw, unsigned fn, enum mig_level *reached) {
    nic_fw_t *f = fw_of(hw);
    nic_cmd_resp_t r;
    int rc = MIG_OK;
    if (f->suspend_pending && nic_bar_regs_fw_take(f->regs, &r)) rc = take_suspend_answer(f, &r);
    *reached = (enum mig_level)f->level[fn % NIC_FNS];
    return rc;
}

static int throttle_set(void *hw, unsigned fn, uint32_t rate) {
    nic_cmd_t c = {.op = NIC_CMD_THROTTLE, .fn = (nic_fn_t)fn, .rate = rate};
    nic_cmd_resp_t r;
    return command(fw_of(hw), &c, &r);
}

static int host_write(void *hw, uint64_t a, const uint8_t *b, uint32_t len) {
    nic_fw_t *f = fw_of(hw);
    return f->env.host_write(f->env.ctx, a, b, len);
}

static int host_read(void *hw, uint64_t a, uint8_t *b, uint32_t len) {
    nic_fw_t *f = fw_of(hw);
    return f->env.host_read ? f->env.host_read(f->env.ctx, a, b, len) : MIG_E_NO_OP;
}

static void spend(void *hw, uint32_t cycles) { fw_of(hw)->env.wait_cycles(fw_of(hw)->env.ctx, cycles); }

static int flush_writes(void *hw, unsigned fn) {
    nic_fw_t *f = fw_of(hw);
    return f->env.flush_writes ? f->env.flush_writes(f->env.ctx, fn) : MIG_E_NO_OP;
}

static const struct mig_hal_ops platform_ops = {
    .caps = caps, .ctx_read = ctx_read, .ctx_write = ctx_write, .suspend_request = suspend_request,
    .suspend_status = suspend_status, .throttle_set = throttle_set, .host_read = host_read, .host_write = host_write, .spend = spend,
    .flush_writes = flush_writes,
};

nic_fw_t *nic_fw_new(nic_models_t *m, unsigned nic, const nic_fw_env_t *env) {
    nic_fw_t *f = calloc(1, sizeof *f);
    if (!f) abort();
    f->regs = nic_models_bar(m, nic);
    f->env = *env;
    struct mig_hal hal = {&platform_ops, f};
    f->init_rc = mig_fw_init(&f->fw, &hal, &f->init_resp);
    return f;
}

void nic_fw_free(nic_fw_t *f) { free(f); }

void nic_fw_command(nic_fw_t *f, const struct mig_cmd *c, struct mig_resp *r) {
    if (f->init_rc != MIG_OK) {
        *r = f->init_resp;
        return;
    }
    mig_fw_command(&f->fw, c, r);
}

uint64_t nic_fw_port_cycles(const nic_fw_t *f) { return f->port_cycles; }
uint64_t nic_fw_commands(const nic_fw_t *f) { return f->commands; }
