/* clock_jump.c — the simulator's idle jump; clock_jump.h says what and why it is exact. */
#include "clock_jump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../hls/completer/completer.h" /* cmp_qpc_t: the completer's context row */

#define MAX_NICS 8

struct clock_jump {
    nic_tb_t *tb;
    unsigned size;             /* state bytes */
    uint8_t *mask;             /* bits of the state that are a register or a memory cell, but
                                  not the completer's clock */
    uint8_t *before[MAX_NICS], *after[MAX_NICS];
    unsigned now_off;          /* comp.st_now */
    unsigned level_off[NIC_FNS], epoch_off[NIC_FNS];
    unsigned qpc_off, qpc_elem, qpc_rows;
    unsigned period;
    clock_jump_stats_t st;
};

static const ifc_leaf *find_reg(const ifc_t *f, const char *name) {
    for (unsigned i = 0; i < f->n_regs; i++)
        if (!strcmp(f->regs[i].name, name)) return &f->regs[i];
    return NULL;
}

static void mask_bits(uint8_t *mask, unsigned offset, unsigned width) {
    for (unsigned b = 0; b < width; b++) mask[offset + b / 8] |= (uint8_t)(1u << (b % 8));
}

clock_jump_t *clock_jump_new(nic_tb_t *tb, char *err, size_t errlen) {
    const ifc_t *f = nic_tb_iface(tb);
    const ifc_leaf *now = find_reg(f, "comp.st_now");
    const ifc_mem *qpc = NULL;
    for (unsigned i = 0; i < f->n_mems; i++)
        if (!strcmp(f->mems[i].name, "comp.st_qpc")) qpc = &f->mems[i];
    bool has_skip = false;
    for (unsigned i = 0; i < f->n_in; i++) has_skip |= !strcmp(f->in[i].name, "comp_time_skip");
    if (!now || now->width != 64 || !qpc || qpc->elem_size != sizeof(cmp_qpc_t) || !has_skip) {
        snprintf(err, errlen, "clock jump: the model has no %s", !has_skip ? "comp_time_skip input"
                 : !now || now->width != 64 ? "64-bit comp.st_now register" : "comp.st_qpc table of cmp_qpc_t rows");
        return NULL;
    }
    if (nic_tb_config(tb)->backpressure_pct) {
        /* the harness draws its back-pressure from a PRNG every cycle: skipped cycles would
         * skip draws, and every later cycle would see other ready signals */
        snprintf(err, errlen, "clock jump: not with backpressure_pct %u (a draw per cycle)", nic_tb_config(tb)->backpressure_pct);
        return NULL;
    }
    clock_jump_t *j = calloc(1, sizeof *j);
    j->tb = tb;
    j->size = f->state_size;
    j->mask = calloc(1, f->state_size);
    for (unsigned i = 0; i < f->n_regs; i++) mask_bits(j->mask, f->regs[i].offset, f->regs[i].width);
    for (unsigned i = 0; i < f->n_mems; i++)
        for (unsigned c = 0; c <= f->mems[i].depth; c++) /* rdata, then the cells */
            mask_bits(j->mask, f->mems[i].offset + f->mems[i].elem_size * c, f->mems[i].width);
    memset(j->mask + now->offset, 0, 8);
    j->now_off = now->offset;
    for (unsigned fn = 0; fn < NIC_FNS; fn++) {
        char name[64];
        snprintf(name, sizeof name, "comp.st_level_%u", fn);
        const ifc_leaf *l = find_reg(f, name);
        snprintf(name, sizeof name, "comp.st_epoch_%u", fn);
        const ifc_leaf *e = find_reg(f, name);
        if (!l || !e) {
            snprintf(err, errlen, "clock jump: the model has no comp.st_level_%u / comp.st_epoch_%u", fn, fn);
            clock_jump_free(j);
            return NULL;
        }
        j->level_off[fn] = l->offset;
        j->epoch_off[fn] = e->offset;
    }
    j->qpc_off = qpc->offset;
    j->qpc_elem = qpc->elem_size;
    j->qpc_rows = qpc->depth;
    j->period = 2 * qpc->depth; /* the idle scan: one row per IDLE + CTX */
    unsigned nics = nic_tb_config(tb)->nics;
    for (unsigned n = 0; n < nics; n++) {
        j->before[n] = malloc(j->size);
        j->after[n] = malloc(j->size);
    }
    return j;
}

void clock_jump_free(clock_jump_t *j) {
    if (!j) return;
    for (unsigned n = 0; n < MAX_NICS; n++) {
        free(j->before[n]);
        free(j->after[n]);
    }
    free(j->mask);
    free(j);
}

unsigned clock_jump_period(const clock_jump_t *j) { return j->period; }
clock_jump_stats_t clock_jump_stats(const clock_jump_t *j) { return j->st; }

static bool same_state(const clock_jump_t *j, const uint8_t *a, const uint8_t *b) {
    for (unsigned i = 0; i < j->size; i++)
        if ((a[i] ^ b[i]) & j->mask[i]) return false;
    return true;
}

static uint64_t get_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The earliest deadline of a timer that can fire (CTX's `expired` but for the comparison
 * with now: the function at RUN, armed, RTS/SQD, something outstanding), UINT64_MAX if none.
 * A row armed before its function last entered RUN (epoch differs) is re-armed when the scan
 * reads it, from `now`: answer 0 (do not jump) — one period of ticking re-arms it. */
static uint64_t earliest_deadline(const clock_jump_t *j, const uint8_t *st) {
    uint64_t d = UINT64_MAX;
    for (unsigned r = 0; r < j->qpc_rows; r++) {
        cmp_qpc_t c;
        memcpy(&c, st + j->qpc_off + j->qpc_elem * (1 + r), sizeof c);
        unsigned fn = (r >> NIC_QP_SLOT_BITS) % NIC_FNS;
        if ((st[j->level_off[fn]] & 3) != NIC_SUSPEND_RUN) continue; /* frozen */
        if (c.epoch != st[j->epoch_off[fn]]) return 0;
        bool live = c.state == NIC_QPS_RTS || c.state == NIC_QPS_SQD;
        if (c.armed && live && c.count != 0 && c.deadline < d) d = c.deadline;
    }
    return d;
}

static bool all_quiet(const nic_tb_t *tb, unsigned nics) {
    for (unsigned n = 0; n < nics; n++)
        if (!nic_tb_quiet(tb, n)) return false;
    return true;
}

/* The largest s a skip step at harness cycle c may skip, with the NICs' states in st[]:
 * every skipped value must lie before what it could meet (s <= deadline - 1 - now for the
 * completer's clock, s <= due - 1 - c for a frame on the wire) and within `room`. *bounded
 * tells whether anything finite limited it. */
static uint64_t room_at(const clock_jump_t *j, uint8_t *const *st, uint64_t c, uint64_t room, bool *bounded) {
    nic_tb_t *tb = j->tb;
    for (unsigned n = 0; n < nic_tb_config(tb)->nics; n++) {
        if (!nic_tb_attached(tb, n)) continue;
        uint64_t now = get_u64(st[n] + j->now_off), d = earliest_deadline(j, st[n]);
        *bounded |= d != UINT64_MAX;
        if (d != UINT64_MAX) room = d > now ? (d - 1 - now < room ? d - 1 - now : room) : 0;
    }
    wire_t *w = nic_tb_wire(tb);
    for (unsigned p = 0; p < wire_nports(w); p++) {
        uint64_t due = wire_next_due(w, p);
        *bounded |= due != UINT64_MAX;
        if (due != UINT64_MAX) room = due > c ? (due - 1 - c < room ? due - 1 - c : room) : 0;
    }
    return room;
}

uint64_t clock_jump_try(clock_jump_t *j, uint64_t limit, bool (*tick)(void *ctx), void *ctx) {
    nic_tb_t *tb = j->tb;
    unsigned nics = nic_tb_config(tb)->nics;
    if (!all_quiet(tb, nics) || limit <= j->period + 1) return 0;
    uint64_t moved[MAX_NICS];
    for (unsigned n = 0; n < nics; n++) {
        moved[n] = nic_tb_transfers(tb, n);
        if (nic_tb_attached(tb, n) && !nic_tb_read_state(tb, n, j->before[n])) return 0;
    }
    uint64_t c0 = nic_tb_now(tb);
    /* worth a period of checking only if a jump of more than a period could follow it */
    bool bounded = limit != UINT64_MAX;
    uint64_t room = room_at(j, j->before, c0, limit - j->period - 1, &bounded);
    if (!bounded || room < 3 * (uint64_t)j->period) return 0;
    j->st.tries++;
    for (unsigned i = 0; i < j->period; i++)
        if (!tick(ctx)) return 0;
    /* one period later: quiet, nothing moved, every bit but `now` where it was */
    bool periodic = nic_tb_now(tb) == c0 + j->period && all_quiet(tb, nics);
    for (unsigned n = 0; n < nics && periodic; n++)
        periodic = !nic_tb_attached(tb, n) ||
                   (moved[n] == nic_tb_transfers(tb, n) && nic_tb_read_state(tb, n, j->after[n]) &&
                    same_state(j, j->before[n], j->after[n]));
    if (!periodic) {
        j->st.aperiodic++;
        return 0;
    }
    /* the skip step ticks at (cycle c, completer clock now) and skips c+1..c+s */
    bounded = limit != UINT64_MAX;
    room = room_at(j, j->after, nic_tb_now(tb), limit - j->period - 1, &bounded);
    if (!bounded) return 0; /* nothing to wait for: no finite place to jump to */
    /* one skip step per at most 2^32 - 1 cycles; each step also ticks one cycle */
    uint64_t skipped = 0, chunk_max = (UINT32_MAX / j->period) * j->period;
    while (room >= j->period) {
        uint64_t s = room / j->period * j->period;
        if (s > chunk_max) s = chunk_max;
        nic_tb_step_skip(tb, (uint32_t)s);
        skipped += s;
        room = room - s >= 1 ? room - s - 1 : 0;
    }
    if (skipped) {
        j->st.jumps++;
        j->st.skipped += skipped;
    }
    return skipped;
}
