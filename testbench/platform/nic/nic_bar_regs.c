/* nic_bar_regs.c — the NIC's BAR0 registers over a nic_tb; nic_bar_regs.h says what. */
#include "nic_bar_regs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_bar.h"

#define ALL_ONES 0xffffffffffffffffull

typedef struct {
    uint8_t cmd[NIC_BAR_CMD_MAX], resp[NIC_BAR_RESP_MAX];
    bool busy, done;
    uint8_t status, bad_field;
} fn_regs_t;

struct nic_bar_regs {
    nic_tb_t *tb;
    unsigned nic;
    fn_regs_t fn[NIC_FNS];
    /* ctrl answers commands in the order it took them: whose answer comes next */
    uint8_t owner[NIC_FNS];
    unsigned owners;
    unsigned errors;
    char first_error[256];
};

nic_bar_regs_t *nic_bar_regs_new(nic_tb_t *tb, unsigned nic) {
    nic_bar_regs_t *r = calloc(1, sizeof *r);
    if (!r) abort();
    r->tb = tb;
    r->nic = nic;
    return r;
}

void nic_bar_regs_free(nic_bar_regs_t *r) { free(r); }
unsigned nic_bar_regs_errors(const nic_bar_regs_t *r) { return r->errors; }
const char *nic_bar_regs_error(const nic_bar_regs_t *r) { return r->errors ? r->first_error : NULL; }

static void error(nic_bar_regs_t *r, const char *fmt, ...) {
    if (r->errors++) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->first_error, sizeof r->first_error, fmt, ap);
    va_end(ap);
}

/* Answers ctrl gave since the last look go to the functions that asked, in order. */
static void collect(nic_bar_regs_t *r) {
    nic_cmd_resp_t a;
    while (r->owners && nic_tb_pop(r->tb, r->nic, "ctrl_cmd_resp", &a, sizeof a)) {
        fn_regs_t *f = &r->fn[r->owner[0]];
        memmove(r->owner, r->owner + 1, --r->owners);
        memset(f->resp, 0, sizeof f->resp);
        memcpy(f->resp, &a, sizeof a);
        f->status = a.status;
        f->bad_field = a.bad_field;
        f->busy = false;
        f->done = true;
    }
}

static void go(nic_bar_regs_t *r, unsigned fn) {
    fn_regs_t *f = &r->fn[fn];
    if (f->busy) {
        error(r, "fn %u: CMD_GO while the previous command is still busy: ignored", fn);
        return;
    }
    nic_cmd_t c;
    memcpy(&c, f->cmd, sizeof c);
    c.fn = (nic_fn_t)fn;
    if (r->owners == NIC_FNS || nic_tb_push(r->tb, r->nic, "ctrl_cmd", &c, sizeof c) < 0) {
        error(r, "fn %u: the NIC's command queue did not take the command", fn);
        return;
    }
    r->owner[r->owners++] = (uint8_t)fn;
    f->busy = true;
    f->done = false;
}

static void doorbell(nic_bar_regs_t *r, unsigned fn, uint32_t reg, uint64_t v) {
    static const char *const stream[3] = {"req_sq_db", "resp_rq_db", "cqw_cq_db"};
    nic_db_t db = {.fn = (nic_fn_t)fn, .num = (hls_u24)(v & 0xffffff), .index = (uint16_t)(v >> 32)};
    if ((v >> 56) & 3) {
        error(r, "fn %u: doorbell 0x%llx asks to arm the CQ: interrupts are not modelled here", fn,
              (unsigned long long)v);
        return;
    }
    if (nic_tb_push(r->tb, r->nic, stream[(reg - NIC_BAR_SQ_DB) / 8], &db, sizeof db) < 0)
        error(r, "fn %u: doorbell 0x%llx at 0x%x dropped: the NIC's queue is full", fn, (unsigned long long)v, reg);
}

static bool in_window(uint32_t reg, uint32_t base, uint32_t size) { return reg >= base && reg + 8 <= base + size; }

void nic_bar_regs_write(nic_bar_regs_t *r, uint64_t off, uint64_t v) {
    unsigned fn = (unsigned)(off / NIC_BAR_SIZE);
    uint32_t reg = (uint32_t)(off % NIC_BAR_SIZE);
    if (fn >= NIC_FNS || reg % 8) {
        error(r, "write of 0x%llx at offset 0x%llx: %s", (unsigned long long)v, (unsigned long long)off,
              fn >= NIC_FNS ? "beyond the last function's BAR" : "not 8-byte aligned");
        return;
    }
    fn_regs_t *f = &r->fn[fn];
    if (in_window(reg, NIC_BAR_CMD, NIC_BAR_CMD_MAX)) {
        for (unsigned i = 0; i < 8; i++) f->cmd[reg - NIC_BAR_CMD + i] = (uint8_t)(v >> (8 * i));
    } else if (reg == NIC_BAR_CMD_GO) {
        go(r, fn);
    } else if (reg == NIC_BAR_SQ_DB || reg == NIC_BAR_RQ_DB || reg == NIC_BAR_CQ_DB) {
        doorbell(r, fn, reg, v);
    } else {
        error(r, "fn %u: write of 0x%llx at BAR offset 0x%x: no writable register modelled there", fn,
              (unsigned long long)v, reg);
    }
}

static uint64_t bytes_le(const uint8_t *p) {
    uint64_t v = 0;
    for (unsigned i = 8; i-- > 0;) v = v << 8 | p[i];
    return v;
}

uint64_t nic_bar_regs_read(nic_bar_regs_t *r, uint64_t off) {
    unsigned fn = (unsigned)(off / NIC_BAR_SIZE);
    uint32_t reg = (uint32_t)(off % NIC_BAR_SIZE);
    if (fn >= NIC_FNS || reg % 8) {
        error(r, "read at offset 0x%llx: %s", (unsigned long long)off,
              fn >= NIC_FNS ? "beyond the last function's BAR" : "not 8-byte aligned");
        return ALL_ONES;
    }
    collect(r);
    const fn_regs_t *f = &r->fn[fn];
    switch (reg) {
    case NIC_BAR_ID: return NIC_BAR_MAGIC | (uint64_t)NIC_BAR_VERSION << 32;
    case NIC_BAR_FN: return fn;
    case NIC_BAR_CYCLES: return nic_tb_now(r->tb);
    case NIC_BAR_CMD_STATUS:
        return (f->busy ? NIC_CMD_STATUS_BUSY : 0) | (f->done ? NIC_CMD_STATUS_DONE : 0) | (uint64_t)f->status << 8 |
               (uint64_t)f->bad_field << 16;
    }
    if (in_window(reg, NIC_BAR_CMD, NIC_BAR_CMD_MAX)) return bytes_le(f->cmd + reg - NIC_BAR_CMD);
    if (in_window(reg, NIC_BAR_RESP, NIC_BAR_RESP_MAX)) return bytes_le(f->resp + reg - NIC_BAR_RESP);
    error(r, "fn %u: read at BAR offset 0x%x: no readable register modelled there", fn, reg);
    return ALL_ONES;
}
