/* mig_hal_tb.c — the firmware's HAL over a nic_tb NIC; mig_hal_tb.h says what each op is.
 *
 * Host DMA cost: the bytes move through hostmem's backdoor (the firmware's DMA engine is not
 * a port of the composed NIC), and the NICs step for what the host memory's port would take:
 * a read of n bytes read_latency + ceil(n / 64) cycles (first beat after the latency, then a
 * 64-byte beat per cycle), a posted write ceil(n / 64) cycles (one beat accepted per cycle).
 * A gratuitous ARP costs its context read plus one cycle per 64-byte beat of the frame. */
#include "mig_hal_tb.h"

#include <string.h>

static struct mig_hal_tb *hw_of(void *hw) { return hw; }

/* firmware (table, section) -> context-port section; 0 = none */
static const uint8_t sections[MIG_TABLES][MIG_SECTIONS_MAX] = {
    [MIG_TABLE_QP] = { NIC_CTX_CTRL_QP, NIC_CTX_REQ_QP, NIC_CTX_COMP_QP, NIC_CTX_RESP_QP, NIC_CTX_RESP_ATOM },
    [MIG_TABLE_CQ] = { NIC_CTX_CTRL_CQ, NIC_CTX_CQW_CQ },
    [MIG_TABLE_MR] = { NIC_CTX_CTRL_MR },
    [MIG_TABLE_FN] = { NIC_CTX_FN },
};
/* 128-bit words per row of each context-port section (nic_ctx.h) */
static unsigned port_words(unsigned sect) {
    switch (sect) {
    case NIC_CTX_CTRL_QP: return NIC_CTX_QP_WORDS;
    case NIC_CTX_CTRL_CQ: return NIC_CTX_CQ_WORDS;
    case NIC_CTX_CTRL_MR: return NIC_CTX_MR_WORDS;
    case NIC_CTX_REQ_QP: return NIC_CTX_REQ_QP_WORDS;
    case NIC_CTX_COMP_QP: return NIC_CTX_COMP_QP_WORDS;
    case NIC_CTX_RESP_QP: return NIC_CTX_RESP_QP_WORDS;
    case NIC_CTX_RESP_ATOM: return NIC_CTX_RESP_ATOM_WORDS;
    case NIC_CTX_CQW_CQ: return NIC_CTX_CQW_WORDS;
    case NIC_CTX_FN: return NIC_CTX_FN_WORDS;
    default: return 0;
    }
}

unsigned mig_hal_tb_section(unsigned table, unsigned section) {
    return table < MIG_TABLES && section < MIG_SECTIONS_MAX ? sections[table][section] : 0;
}

nic_cmd_t mig_ctx_word_cmd(bool write, unsigned fn, unsigned row, unsigned sect, unsigned k, const uint32_t *w4) {
    nic_cmd_t c = {.op = write ? NIC_CMD_CTX_WRITE : NIC_CMD_CTX_READ, .fn = (nic_fn_t)fn, .num = row,
                   .ctx_sect = (uint8_t)sect, .ctx_word = (uint8_t)k};
    if (write)
        for (unsigned i = 4; i-- > 0;) c.ctx_data = (c.ctx_data << 32) | w4[i];
    return c;
}

void mig_ctx_word_take(const nic_cmd_resp_t *r, uint32_t *w4) {
    for (unsigned i = 0; i < 4; i++) w4[i] = (uint32_t)(r->ctx_data >> (32 * i));
}

/* One command; its cycles are port cycles. MIG_OK, or MIG_E_HW with the refusal kept. */
static int command(struct mig_hal_tb *h, nic_cmd_t *c, nic_cmd_resp_t *r) {
    uint64_t t0 = nic_tb_now(h->tb);
    int st = nic_tb_cmd(h->tb, h->nic, c, r);
    h->port_cycles += nic_tb_now(h->tb) - t0;
    h->commands++;
    if (st == NIC_CMD_OK) return MIG_OK;
    h->last_op = c->op;
    h->last_status = st < 0 ? 0xff : (uint8_t)st; /* 0xff: no answer within nic_tb_cmd's bound */
    h->last_field = st < 0 ? 0 : r->bad_field;
    return MIG_E_HW;
}

/* A suspend still unanswered blocks the command queue's order: wait for it first. */
static int settle_suspend(struct mig_hal_tb *h);

static int caps(void *hw, struct mig_caps *out) {
    (void)hw;
    memset(out, 0, sizeof *out);
    out->fns = NIC_FNS;
    out->rows[MIG_TABLE_QP] = NIC_CTX_QP_SLOTS;
    out->rows[MIG_TABLE_CQ] = NIC_CTX_CQ_SLOTS;
    out->rows[MIG_TABLE_MR] = NIC_CTX_MR_SLOTS;
    out->rows[MIG_TABLE_FN] = NIC_CTX_FN_SLOTS;
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < MIG_SECTIONS_MAX; s++) out->words[t][s] = (uint8_t)(4 * port_words(sections[t][s]));
    return MIG_OK;
}

static int ctx_access(struct mig_hal_tb *h, bool write, unsigned t, unsigned s, unsigned fn, unsigned row,
                      uint32_t *w, unsigned nwords) {
    unsigned sect = mig_hal_tb_section(t, s);
    if (!sect || nwords != 4 * port_words(sect) || fn >= NIC_FNS) return MIG_E_ARG;
    if (h->unserved & (1u << sect)) return MIG_E_NO_OP;
    int rc = settle_suspend(h);
    for (unsigned k = 0; rc == MIG_OK && k < nwords / 4; k++) {
        nic_cmd_t c = mig_ctx_word_cmd(write, fn, row, sect, k, &w[4 * k]);
        nic_cmd_resp_t r;
        rc = command(h, &c, &r);
        h->ctx_writes += rc == MIG_OK && write;
        if (rc == MIG_OK && !write) mig_ctx_word_take(&r, &w[4 * k]);
    }
    return rc;
}

static int ctx_read(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, uint32_t *w, unsigned n) {
    return ctx_access(hw_of(hw), false, t, s, fn, row, w, n);
}
static int ctx_write(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, const uint32_t *w, unsigned n) {
    return ctx_access(hw_of(hw), true, t, s, fn, row, (uint32_t *)w, n);
}

/* ---- suspend: the request goes on ctrl's command queue; its answer is the handshake's end -- */
typedef struct { unsigned nic; } resp_wait_t;
static bool answered(nic_tb_t *tb, void *arg) { return nic_tb_pending(tb, ((resp_wait_t *)arg)->nic, "ctrl_cmd_resp") != 0; }

static int take_suspend_answer(struct mig_hal_tb *h) {
    nic_cmd_resp_t r;
    nic_tb_pop(h->tb, h->nic, "ctrl_cmd_resp", &r, sizeof r);
    h->suspend_pending = false;
    if (r.status == NIC_CMD_OK) { h->level[h->pending_fn] = h->pending_level; return MIG_OK; }
    h->last_op = NIC_CMD_SUSPEND_FN;
    h->last_status = r.status;
    h->last_field = r.bad_field;
    return MIG_E_HW;
}

static int settle_suspend(struct mig_hal_tb *h) {
    if (!h->suspend_pending) return MIG_OK;
    resp_wait_t w = {h->nic};
    uint64_t t0 = nic_tb_now(h->tb);
    bool ok = nic_tb_run_until(h->tb, answered, &w, 1000000);
    h->port_cycles += nic_tb_now(h->tb) - t0;
    return ok ? take_suspend_answer(h) : MIG_E_TIMEOUT;
}

static int suspend_request(void *hw, unsigned fn, enum mig_level level) {
    struct mig_hal_tb *h = hw_of(hw);
    if (fn >= NIC_FNS || level > MIG_LEVEL_PASSIVE) return MIG_E_ARG;
    int rc = settle_suspend(h);
    if (rc != MIG_OK) return rc;
    nic_cmd_t c = {.op = NIC_CMD_SUSPEND_FN, .fn = (nic_fn_t)fn, .level = (hls_uint(2))level};
    if (nic_tb_push(h->tb, h->nic, "ctrl_cmd", &c, sizeof c) < 0) return MIG_E_HW;
    h->commands++;
    h->suspend_pending = true;
    h->pending_fn = (uint8_t)fn;
    h->pending_level = (uint8_t)level;
    return MIG_OK;
}

/* One poll: the answer has come or not; the firmware's poll cost (spend) lets the NICs run. */
static int suspend_status(void *hw, unsigned fn, enum mig_level *reached) {
    struct mig_hal_tb *h = hw_of(hw);
    int rc = MIG_OK;
    if (h->suspend_pending && nic_tb_pending(h->tb, h->nic, "ctrl_cmd_resp")) rc = take_suspend_answer(h);
    *reached = (enum mig_level)h->level[fn % NIC_FNS];
    return rc;
}

/* ---- dirty bits: NIC_CTX_DIRTY of every section of the table, ORed --------------------------- */
static int dirty_read(struct mig_hal_tb *h, unsigned fn, unsigned t, uint64_t *bits) {
    *bits = 0;
    for (unsigned s = 0; s < MIG_SECTIONS_MAX; s++) {
        unsigned sect = sections[t][s];
        if (!sect || (h->unserved & (1u << sect)) || sect == NIC_CTX_RESP_ATOM) continue; /* ATOM: RESP_QP's bits */
        int rc = settle_suspend(h);
        nic_cmd_t c = {.op = NIC_CMD_CTX_READ, .fn = (nic_fn_t)fn, .num = sect, .ctx_sect = NIC_CTX_DIRTY};
        nic_cmd_resp_t r;
        if (rc == MIG_OK) rc = command(h, &c, &r);
        if (rc != MIG_OK) return rc;
        *bits |= (uint64_t)r.ctx_data;
    }
    return MIG_OK;
}

/* The hardware's dirty bits are always on: turning tracking on clears them (PreCopy-Start). */
static int dirty_track(void *hw, unsigned fn, bool on) {
    uint64_t discard;
    for (unsigned t = 0; on && t < MIG_TABLE_FN; t++) {
        int rc = dirty_read(hw_of(hw), fn, t, &discard);
        if (rc != MIG_OK) return rc;
    }
    return MIG_OK;
}

static int dirty_read_clear(void *hw, unsigned fn, unsigned t, uint32_t *bitmap, unsigned nwords) {
    if (t >= MIG_TABLE_FN || nwords < 2) return MIG_E_ARG;
    uint64_t bits;
    int rc = dirty_read(hw_of(hw), fn, t, &bits);
    if (rc != MIG_OK) return rc;
    memset(bitmap, 0, nwords * 4);
    bitmap[0] = (uint32_t)bits;
    bitmap[1] = (uint32_t)(bits >> 32);
    return MIG_OK;
}

static int throttle_set(void *hw, unsigned fn, uint32_t rate) {
    struct mig_hal_tb *h = hw_of(hw);
    int rc = settle_suspend(h);
    nic_cmd_t c = {.op = NIC_CMD_THROTTLE, .fn = (nic_fn_t)fn, .rate = rate};
    nic_cmd_resp_t r;
    return rc == MIG_OK ? command(h, &c, &r) : rc;
}

/* The NIC has no per-function counters at its ports: these are the NIC's (exact when the
 * function is the only one on it, as in the migration scenarios). */
static int counter_read(void *hw, unsigned fn, enum mig_counter c, uint64_t *v) {
    struct mig_hal_tb *h = hw_of(hw);
    (void)fn;
    switch (c) {
    case MIG_COUNTER_HOST_WRITE_BYTES: *v = hostmem_stats(nic_tb_mem(h->tb, h->nic))->write_bytes; return MIG_OK;
    case MIG_COUNTER_PACKETS_OUT: *v = nic_tb_frames_sent(h->tb, h->nic); return MIG_OK;
    case MIG_COUNTER_PACKETS_IN: *v = nic_tb_frames_received(h->tb, h->nic); return MIG_OK;
    default: return MIG_E_ARG;
    }
}

static void step(struct mig_hal_tb *h, uint64_t cycles) {
    nic_tb_run(h->tb, cycles);
    h->port_cycles += cycles;
}

static int host_read(void *hw, uint64_t a, uint8_t *b, uint32_t len) {
    struct mig_hal_tb *h = hw_of(hw);
    uint32_t lat = nic_tb_config(h->tb)->mem.read_latency;
    hostmem_read(nic_tb_mem(h->tb, h->nic), a, b, len);
    step(h, (lat ? lat : 1) + (len + 63) / 64);
    return MIG_OK;
}

static int host_write(void *hw, uint64_t a, const uint8_t *b, uint32_t len) {
    struct mig_hal_tb *h = hw_of(hw);
    if (hostmem_write(nic_tb_mem(h->tb, h->nic), a, b, len)) return MIG_E_HW;
    step(h, (len + 63) / 64);
    return MIG_OK;
}

size_t mig_garp_frame(uint8_t *f, uint64_t mac, uint32_t ip) {
    memset(f, 0, 42);
    memset(f, 0xff, 6);                                     /* to everyone */
    for (int i = 0; i < 6; i++) f[6 + i] = (uint8_t)(mac >> (40 - 8 * i));
    f[12] = 0x08, f[13] = 0x06;                             /* ARP */
    f[15] = 1;                                              /* Ethernet */
    f[16] = 0x08, f[17] = 0x00;                             /* IPv4 */
    f[18] = 6, f[19] = 4, f[21] = 1;                        /* request */
    memcpy(f + 22, f + 6, 6);                               /* sender MAC */
    for (int i = 0; i < 4; i++) f[28 + i] = f[38 + i] = (uint8_t)(ip >> (24 - 8 * i)); /* sender = target IP */
    return 42;                                              /* target MAC stays 0 */
}

static int announce(void *hw, unsigned fn) {
    struct mig_hal_tb *h = hw_of(hw);
    uint32_t w[4 * NIC_CTX_FN_WORDS];
    int rc = ctx_access(h, false, MIG_TABLE_FN, MIG_SEC_FN_RXD, fn, 0, w, 4 * NIC_CTX_FN_WORDS);
    if (rc != MIG_OK) return rc;
    uint64_t mac = ((uint64_t)w[NIC_CTX_FN_MAC / 32 + 1] << 32 | w[NIC_CTX_FN_MAC / 32]) & 0xffffffffffffull;
    uint32_t ip = w[NIC_CTX_FN_IP / 32];
    uint8_t frame[64];
    size_t len = mig_garp_frame(frame, mac, ip);
    /* a wire full of the peers' frames takes the announce once a slot frees, as a port's
     * transmit queue would: the wait is charged (bounded: a pool that never drains fails) */
    int sent = nic_tb_send_frame(h->tb, h->nic, frame, len);
    for (unsigned waited = 0; sent == WIRE_ERR_POOL_FULL && waited < MIG_HAL_TB_ANNOUNCE_WAIT; waited++) {
        step(h, 1);
        sent = nic_tb_send_frame(h->tb, h->nic, frame, len);
    }
    if (sent != WIRE_OK) return MIG_E_HW;
    h->announces++;
    step(h, (len + 63) / 64);
    return MIG_OK;
}

static void spend(void *hw, uint32_t cycles) {
    struct mig_hal_tb *h = hw_of(hw);
    nic_tb_run(h->tb, cycles);
    h->fw_cycles += cycles;
}

/* The flush read: nic_tb's host memory applies a write beat the cycle it is accepted, so no
 * posted write can be in flight; what is left of a zero-length read is its round trip. */
static int flush_writes(void *hw, unsigned fn) {
    struct mig_hal_tb *h = hw_of(hw);
    uint32_t lat = nic_tb_config(h->tb)->mem.read_latency;
    (void)fn;
    h->flushes++;
    step(h, lat ? lat : 1);
    return MIG_OK;
}

static const struct mig_hal_ops tb_ops = {
    caps, ctx_read, ctx_write, suspend_request, suspend_status, dirty_track, dirty_read_clear,
    throttle_set, counter_read, host_read, host_write, announce, spend, flush_writes,
};

struct mig_hal mig_hal_tb(struct mig_hal_tb *h, nic_tb_t *tb, unsigned nic) {
    memset(h, 0, sizeof *h);
    h->tb = tb;
    h->nic = nic;
    return (struct mig_hal){&tb_ops, h};
}
