/* nic_tb.c — whole-NIC testbench harness; nic_tb.h and docs/nic-testbench.md say what. */
#include "nic_tb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rtl-gen/wrap/iface_read.h"
#include "../lib/prng.h"
#include "step_threads.h"

#define MAX_NICS NIC_TB_MAX_NICS
#define MAX_STREAMS 64
#define MAX_DMA 8
#define QCAP 4096   /* items per test stream queue */
#define FRAME_MAX 9216
#define RXQ 256     /* frames waiting for a NIC's frame_in */

typedef struct {
    const char *name;
    bool is_input;        /* the model's input (test-fed) */
    int valid, ready;     /* leaf indices in the producer's / consumer's struct */
    unsigned base, size;  /* data bytes in the producer's struct */
} sport_t;

typedef struct { uint8_t *buf; size_t len; } frame_t;

typedef struct {
    nic_tb_mode_t mode;   /* C, RTL or lock-step: this NIC's model */
    uint8_t *in, *out, *out_rtl, *st;
    uint8_t *st_rtl;      /* lock-step register checks: the RTL's registers in the C layout */
    hls_edge_queue *edges; /* the C model's memory operations of a cycle (hls.h) */
    void *rtl;
    hostmem_t *mem;
    /* per stream: a ring of items */
    uint8_t *q[MAX_STREAMS];
    unsigned qh[MAX_STREAMS], qn[MAX_STREAMS];
    /* frames */
    frame_t rxq[RXQ];
    unsigned rxh, rxn;
    size_t rx_off;
    uint8_t tx_buf[FRAME_MAX];
    size_t tx_len;
    uint64_t frames_sent, frames_rcvd;
    uint64_t transfers;   /* top-level stream transfers (valid && ready at an edge), any stream */
    bool detached;        /* removed (nic_tb_detach): not stepped, its port silent */
    uint64_t dropped_detached; /* frames the wire delivered to it after it was removed */
    /* this NIC's first lock-step mismatch of the cycle; written where the NIC is stepped (any
     * thread), moved to nic_tb.mismatch after the cycle in NIC order */
    char mismatch[256];
    /* driver state */
    struct { uint64_t base; unsigned log; uint32_t ci; } cq[NIC_CQS];
    struct { uint64_t sq_base, rq_base; unsigned sq_log, rq_log; uint16_t sq_pi, rq_pi; } qp[NIC_QPS];
} nic_t;

struct nic_tb {
    nic_tb_model_t m;
    nic_tb_config_t c;
    ifc_t *ifc;
    sport_t s[MAX_STREAMS];
    unsigned ns;
    int frame_in, frame_out;           /* stream indices */
    int dma_req[MAX_DMA], dma_resp[MAX_DMA];
    unsigned ndma;
    nic_t nic[MAX_NICS];
    wire_t *w;
    prng_t rng;
    uint64_t bp_thresh;
    uint64_t cycle;
    char mismatch[256];
    step_threads_t *threads; /* NULL: one thread */
    int time_skip_leaf;      /* the completer's comp_time_skip input, or -1 (nic_tb_step_skip) */
    uint32_t time_skip;      /* driven on it during this step only */
    nic_tb_rx_tap_fn rx_tap; /* nic_tb_set_rx_tap */
    void *rx_tap_arg;
};

static void step_nic_model(void *arg, unsigned n);

/* ---- leaves and streams ---------------------------------------------------------------- */
static int find_leaf(const ifc_leaf *l, unsigned n, const char *name) {
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(l[i].name, name)) return (int)i;
    return -1;
}

static int find_stream(const nic_tb_t *tb, const char *name) {
    for (unsigned i = 0; i < tb->ns; i++)
        if (!strcmp(tb->s[i].name, name)) return (int)i;
    return -1;
}

/* A stream's data leaves lie in its struct type's layout (the composite keeps every block's
 * port struct whole), so the data is one byte range: from the lowest data leaf to the end of
 * the highest. */
static void stream_range(const ifc_t *f, const ifc_stream *s, unsigned *base, unsigned *size) {
    const ifc_leaf *l = s->is_input ? f->in : f->out;
    unsigned n = s->is_input ? f->n_in : f->n_out, lo = ~0u, hi = 0;
    for (unsigned i = 0; i < n; i++)
        if (ifc_is_stream_data(s, l[i].name)) {
            if (l[i].offset < lo) lo = l[i].offset;
            if (l[i].offset + l[i].size > hi) hi = l[i].offset + l[i].size;
        }
    *base = lo == ~0u ? 0 : lo;
    *size = lo == ~0u ? 0 : hi - lo;
}

static uint64_t get_leaf(const uint8_t *buf, const ifc_leaf *l) {
    uint64_t v = 0;
    memcpy(&v, buf + l->offset, l->size > 8 ? 8 : l->size);
    return l->width >= 64 ? v : v & ((1ull << l->width) - 1);
}

static void set_bool(uint8_t *buf, const ifc_leaf *l, bool v) { buf[l->offset] = v; }

/* ---- construction ------------------------------------------------------------------------ */
void nic_tb_config_default(nic_tb_config_t *c) {
    memset(c, 0, sizeof *c);
    c->nics = 2;
    wire_config_default(&c->wire);
    hostmem_config_default(&c->mem);
    c->seed = 1;
}

static const char *const mode_names[] = {"C model", "RTL", "lock-step", "per-NIC"};
const char *nic_tb_mode_name(nic_tb_mode_t mode) { return (unsigned)mode <= NIC_TB_PER_NIC ? mode_names[mode] : "?"; }

/* NIC n's model under config c: config.mode, or its own with NIC_TB_PER_NIC */
static nic_tb_mode_t mode_of(const nic_tb_config_t *c, unsigned n) {
    return c->mode == NIC_TB_PER_NIC ? c->nic_mode[n] : c->mode;
}

/* Every NIC's mode is one of C, RTL, lock-step, and the model has what that mode needs. */
static bool modes_valid(const nic_tb_model_t *m, const nic_tb_config_t *c) {
    if ((unsigned)c->mode > NIC_TB_PER_NIC) { fprintf(stderr, "nic_tb: mode %d (C, RTL, lock-step or per-NIC)\n", (int)c->mode); return false; }
    for (unsigned n = 0; n < c->nics; n++) {
        nic_tb_mode_t k = mode_of(c, n);
        if ((unsigned)k > NIC_TB_LOCKSTEP) {
            fprintf(stderr, "nic_tb: NIC %u: nic_mode %d (C, RTL or lock-step)\n", n, (int)k);
            return false;
        }
        if (k != NIC_TB_C && !m->rtl_new) {
            fprintf(stderr, "nic_tb: NIC %u runs %s, but the model has no RTL (rtl_new)\n", n, mode_names[k]);
            return false;
        }
        if (k != NIC_TB_C && c->rtl_scramble_seed && !m->rtl_scramble) {
            fprintf(stderr, "nic_tb: NIC %u: rtl_scramble_seed without the model's rtl_scramble\n", n);
            return false;
        }
        if (k == NIC_TB_LOCKSTEP && c->regs_check_every && !m->rtl_read_regs) {
            fprintf(stderr, "nic_tb: NIC %u: regs_check_every without the model's rtl_read_regs\n", n);
            return false;
        }
    }
    return true;
}

nic_tb_t *nic_tb_new(const nic_tb_model_t *m, const nic_tb_config_t *c) {
    if (c->nics < 1 || c->nics > MAX_NICS) { fprintf(stderr, "nic_tb: %u NICs (1..%d)\n", c->nics, MAX_NICS); return NULL; }
    if (!modes_valid(m, c)) return NULL;
    if (c->threads > MAX_NICS) { fprintf(stderr, "nic_tb: %u threads (0..%d)\n", c->threads, MAX_NICS); return NULL; }
    ifc_t *f = ifc_read(m->iface);
    if (!f) return NULL;
    nic_tb_t *tb = calloc(1, sizeof *tb);
    tb->m = *m;
    tb->c = *c;
    tb->ifc = f;
    tb->frame_in = tb->frame_out = -1;
    tb->time_skip_leaf = find_leaf(f->in, f->n_in, "comp_time_skip");
    for (unsigned i = 0; i < f->n_streams && tb->ns < MAX_STREAMS; i++) {
        sport_t *s = &tb->s[tb->ns];
        s->name = f->streams[i].name;
        s->is_input = f->streams[i].is_input;
        s->valid = f->streams[i].valid;
        s->ready = f->streams[i].ready;
        stream_range(f, &f->streams[i], &s->base, &s->size);
        size_t nl = strlen(s->name);
        if (!strcmp(s->name, "rx_frame")) tb->frame_in = (int)tb->ns;
        else if (!strcmp(s->name, "tx_frame")) tb->frame_out = (int)tb->ns;
        else if (!s->is_input && nl > 8 && !strcmp(s->name + nl - 8, "_dma_req") && tb->ndma < MAX_DMA) {
            char resp[128];
            snprintf(resp, sizeof resp, "%.*s_dma_resp", (int)(nl - 8), s->name);
            for (unsigned k = 0; k < f->n_streams; k++)
                if (!strcmp(f->streams[k].name, resp)) {
                    tb->dma_req[tb->ndma] = (int)tb->ns;
                    tb->dma_resp[tb->ndma] = -1 - (int)k; /* resolved below */
                    tb->ndma++;
                }
        }
        tb->ns++;
    }
    for (unsigned d = 0; d < tb->ndma; d++) {
        const char *rn = f->streams[-1 - tb->dma_resp[d]].name;
        tb->dma_resp[d] = find_stream(tb, rn);
    }
    tb->c.mem.nports = tb->ndma ? tb->ndma : 1;
    prng_seed(&tb->rng, c->seed);
    tb->bp_thresh = prng_threshold(c->backpressure_pct / 100.0);
    for (unsigned n = 0; n < c->nics; n++) {
        nic_t *x = &tb->nic[n];
        x->mode = mode_of(c, n);
        x->in = calloc(1, f->in_size);
        x->out = calloc(1, f->out_size);
        x->out_rtl = calloc(1, f->out_size);
        if (x->mode == NIC_TB_LOCKSTEP && c->regs_check_every) x->st_rtl = calloc(1, f->state_size);
        x->st = aligned_alloc(64, (f->state_size + 63) / 64 * 64);
        memset(x->st, 0, f->state_size);
        x->mem = hostmem_new(&tb->c.mem);
        x->edges = hls_edge_queue_new();
        for (unsigned i = 0; i < tb->ns; i++) x->q[i] = calloc(QCAP, tb->s[i].size ? tb->s[i].size : 1);
        if (x->mode != NIC_TB_C) x->rtl = m->rtl_new();
        if (x->rtl && c->rtl_scramble_seed) m->rtl_scramble(x->rtl, c->rtl_scramble_seed * 0x9e3779b97f4a7c15ull + n);
    }
    tb->c.wire.tail_drop = true; /* see mac_may_start */
    tb->w = c->use_switch ? wire_switch_new(&tb->c.wire, c->nics < 2 ? 2 : c->nics) : wire_new(&tb->c.wire);
    if (c->threads > 1 && c->nics > 1 &&
        !(tb->threads = step_threads_new(c->threads < c->nics ? c->threads : c->nics, c->nics, step_nic_model, tb))) {
        nic_tb_free(tb);
        return NULL;
    }
    return tb;
}

void nic_tb_free(nic_tb_t *tb) {
    if (!tb) return;
    step_threads_free(tb->threads);
    for (unsigned n = 0; n < tb->c.nics; n++) {
        nic_t *x = &tb->nic[n];
        free(x->in); free(x->out); free(x->out_rtl); free(x->st); free(x->st_rtl);
        hls_edge_queue_free(x->edges);
        hostmem_free(x->mem);
        for (unsigned i = 0; i < tb->ns; i++) free(x->q[i]);
        for (unsigned k = 0; k < x->rxn; k++) free(x->rxq[(x->rxh + k) % RXQ].buf);
        if (x->rtl) tb->m.rtl_free(x->rtl);
    }
    wire_free(tb->w);
    ifc_free(tb->ifc);
    free(tb);
}

uint64_t nic_tb_now(const nic_tb_t *tb) { return tb->cycle; }
nic_tb_mode_t nic_tb_mode(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].mode; }
const nic_tb_config_t *nic_tb_config(const nic_tb_t *tb) { return &tb->c; }
hostmem_t *nic_tb_mem(nic_tb_t *tb, unsigned nic) { return tb->nic[nic].mem; }
wire_t *nic_tb_wire(nic_tb_t *tb) { return tb->w; }
const char *nic_tb_mismatch(const nic_tb_t *tb) { return tb->mismatch[0] ? tb->mismatch : NULL; }
bool nic_tb_has_stream(const nic_tb_t *tb, const char *name) { return find_stream(tb, name) >= 0; }
uint8_t *nic_tb_c_state(nic_tb_t *tb, unsigned nic) { return tb->nic[nic].st; }
uint64_t nic_tb_frames_sent(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].frames_sent; }
uint64_t nic_tb_frames_received(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].frames_rcvd; }
uint64_t nic_tb_transfers(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].transfers; }
unsigned nic_tb_rx_queued(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].rxn; }
bool nic_tb_rx_full(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].rxn == RXQ; }

uint64_t nic_tb_out(const nic_tb_t *tb, unsigned nic, const char *name) {
    int k = find_leaf(tb->ifc->out, tb->ifc->n_out, name);
    return k < 0 ? 0 : get_leaf(tb->nic[nic].out, &tb->ifc->out[k]);
}

/* ---- test streams ------------------------------------------------------------------------ */
int nic_tb_push(nic_tb_t *tb, unsigned nic, const char *name, const void *data, size_t size) {
    int i = find_stream(tb, name);
    if (i < 0 || !tb->s[i].is_input || size < tb->s[i].size) return -1;
    nic_t *x = &tb->nic[nic];
    if (x->qn[i] == QCAP) return -1;
    memcpy(x->q[i] + (size_t)((x->qh[i] + x->qn[i]) % QCAP) * tb->s[i].size, data, tb->s[i].size);
    x->qn[i]++;
    return 0;
}

int nic_tb_pop(nic_tb_t *tb, unsigned nic, const char *name, void *data, size_t size) {
    int i = find_stream(tb, name);
    nic_t *x = &tb->nic[nic];
    if (i < 0 || tb->s[i].is_input || !x->qn[i]) return 0;
    memset(data, 0, size);
    memcpy(data, x->q[i] + (size_t)x->qh[i] * tb->s[i].size, size < tb->s[i].size ? size : tb->s[i].size);
    x->qh[i] = (x->qh[i] + 1) % QCAP;
    x->qn[i]--;
    return 1;
}

unsigned nic_tb_pending(const nic_tb_t *tb, unsigned nic, const char *name) {
    int i = find_stream(tb, name);
    return i < 0 ? 0 : tb->nic[nic].qn[i];
}

void nic_tb_inject(nic_tb_t *tb, unsigned nic, const uint8_t *frame, size_t len) {
    nic_t *x = &tb->nic[nic];
    if (x->rxn == RXQ || !len) return; /* a full receive queue drops, as a MAC does */
    if (tb->rx_tap) tb->rx_tap(tb->rx_tap_arg, nic, frame, len, tb->cycle);
    frame_t *f = &x->rxq[(x->rxh + x->rxn++) % RXQ];
    f->buf = malloc(len);
    memcpy(f->buf, frame, len);
    f->len = len;
}

void nic_tb_set_rx_tap(nic_tb_t *tb, nic_tb_rx_tap_fn fn, void *arg) {
    tb->rx_tap = fn;
    tb->rx_tap_arg = arg;
}

/* ---- one cycle ----------------------------------------------------------------------------- */
static void beat_to_bytes(const nic_beat_t *b, uint8_t *p) {
    for (unsigned i = 0; i < 64; i++) p[i] = (uint8_t)(b->data >> (8 * i));
}
static hls_u512 bytes_to_u512(const uint8_t *p, unsigned n) {
    hls_u512 v = 0;
    for (unsigned i = n; i-- > 0;) v = (v << 8) | p[i];
    return v;
}

/* The MAC starts a frame only when its link can take it: at most MAC_TX_FIFO bytes waiting for
 * the transmitter (wire_tx_ready). The datapath emits a beat of 64 bytes a cycle, faster than
 * any link here; without this pacing the transmitter's queue grew without bound (round trips
 * of 300k cycles under 1 MiB messages, past any ACK timeout). Once a frame has started, its
 * beats are taken back to back, as a MAC's store-and-forward FIFO does. A receiver slower than
 * its link still fills the wire's pool: the wire then drops, as a switch with a full buffer
 * does (tail_drop, set in nic_tb_new), and the frame shows in the sent pcap only. */
#define MAC_TX_FIFO 9216u /* one jumbo frame */
static bool mac_may_start(const nic_tb_t *tb, const nic_t *x) {
    return wire_tx_ready(tb->w, (unsigned)(x - tb->nic), tb->cycle, MAC_TX_FIFO);
}

static void drive_inputs(nic_tb_t *tb, nic_t *x, hostmem_port_out_t *mo) {
    const ifc_t *f = tb->ifc;
    memset(x->in, 0, f->in_size);
    if (tb->time_skip) memcpy(x->in + f->in[tb->time_skip_leaf].offset, &tb->time_skip, sizeof tb->time_skip);
    for (unsigned i = 0; i < tb->ns; i++) {
        const sport_t *s = &tb->s[i];
        if (s->is_input) {
            if (x->qn[i]) {
                set_bool(x->in, &f->in[s->valid], true);
                memcpy(x->in + s->base, x->q[i] + (size_t)x->qh[i] * s->size, s->size);
            }
        } else {
            bool ready = !prng_chance(&tb->rng, tb->bp_thresh);
            if ((int)i == tb->frame_out) ready = x->tx_len > 0 || mac_may_start(tb, x);
            for (unsigned d = 0; d < tb->ndma; d++) ready |= tb->dma_req[d] == (int)i;
            set_bool(x->in, &f->in[s->ready], ready && x->qn[i] < QCAP);
        }
    }
    if (tb->frame_in >= 0 && x->rxn) {
        const sport_t *s = &tb->s[tb->frame_in];
        const frame_t *fr = &x->rxq[x->rxh];
        size_t n = fr->len - x->rx_off > 64 ? 64 : fr->len - x->rx_off;
        nic_beat_t b = {.data = bytes_to_u512(fr->buf + x->rx_off, (unsigned)n),
                        .bytes = (hls_uint(7))n, .last = x->rx_off + n == fr->len};
        set_bool(x->in, &f->in[s->valid], true);
        memcpy(x->in + s->base, &b, s->size < sizeof b ? s->size : sizeof b);
    }
    for (unsigned d = 0; d < tb->ndma; d++) {
        if (tb->c.dma.eval) tb->c.dma.eval(tb->c.dma.ctx, (unsigned)(x - tb->nic), d, &mo[d]);
        else hostmem_eval(x->mem, d, &mo[d]);
        const sport_t *rq = &tb->s[tb->dma_req[d]], *rs = &tb->s[tb->dma_resp[d]];
        set_bool(x->in, &f->in[rq->ready], mo[d].req_ready);
        if (mo[d].resp_valid) {
            nic_dma_resp_t r = {.tag = mo[d].resp.tag, .data = bytes_to_u512(mo[d].resp.data, 64),
                                .bytes = (hls_uint(7))mo[d].resp.bytes, .last = mo[d].resp.last,
                                .err = mo[d].resp.err};
            set_bool(x->in, &f->in[rs->valid], true);
            memcpy(x->in + rs->base, &r, rs->size < sizeof r ? rs->size : sizeof r);
        }
    }
}

static void compare_outputs(nic_tb_t *tb, unsigned n) {
    const ifc_t *f = tb->ifc;
    nic_t *x = &tb->nic[n];
    if (tb->mismatch[0] || x->mismatch[0]) return;
    for (unsigned k = 0; k < f->n_out; k++) {
        const ifc_leaf *l = &f->out[k];
        for (unsigned b = 0; b < l->width; b++) {
            unsigned byte = l->offset + b / 8, bit = b % 8;
            if (((x->out[byte] ^ x->out_rtl[byte]) >> bit) & 1) {
                snprintf(x->mismatch, sizeof x->mismatch, "cycle %llu nic %u: out %s C=0x%llx RTL=0x%llx",
                         (unsigned long long)tb->cycle, n, l->name, (unsigned long long)get_leaf(x->out, l),
                         (unsigned long long)get_leaf(x->out_rtl, l));
                return;
            }
        }
    }
}

/* Lock-step register check (regs_check_every): every register leaf, every live FIFO entry and
 * every memory's read-data register of the C state against the RTL's, after this cycle's edge.
 * A divergence happened at one of the edges since the previous check. */
static bool bits_differ(const uint8_t *a, const uint8_t *b, unsigned offset, unsigned width) {
    for (unsigned i = 0; i < width; i++)
        if (((a[offset + i / 8] ^ b[offset + i / 8]) >> (i % 8)) & 1) return true;
    return false;
}
/* The first difference between C state c and the RTL's state r in the registers and FIFO
 * entries, as "register NAME C=0x.. RTL=0x.." or "FIFO NAME entry E byte B C=0x.. RTL=0x..",
 * into what; false when equal. Only defined storage is compared (the iface's noreset and fifo
 * lines): a register without reset while it is reset or its guard is 1 in the C state, a
 * FIFO entry while it is live (pushed and not yet popped). Elsewhere the RTL may hold
 * anything (a FIFO's entries start scrambled) while the C model holds zeros. */
static bool regs_differ(const ifc_t *f, const uint8_t *c, const uint8_t *r, char *what, size_t n) {
    for (unsigned k = 0; k < f->n_regs; k++)
        if (ifc_reg_defined(f, k, c) && bits_differ(c, r, f->regs[k].offset, f->regs[k].width)) {
            snprintf(what, n, "register %s C=0x%llx RTL=0x%llx", f->regs[k].name,
                     (unsigned long long)get_leaf(c, &f->regs[k]), (unsigned long long)get_leaf(r, &f->regs[k]));
            return true;
        }
    for (unsigned k = 0; k < f->n_fifos; k++) {
        const ifc_fifo *q = &f->fifos[k];
        for (unsigned e = 0; e < q->depth; e++) {
            unsigned off = q->offset + q->entry_size * e;
            if (!ifc_fifo_entry_live(f, q, c, e) || !bits_differ(c, r, off, q->width)) continue;
            unsigned b = 0;
            while (b + 1 < q->entry_size && c[off + b] == r[off + b]) b++;
            snprintf(what, n, "FIFO %s entry %u byte %u C=0x%02x RTL=0x%02x", q->name, e, b, c[off + b], r[off + b]);
            return true;
        }
    }
    return false;
}

static void compare_regs(nic_tb_t *tb, unsigned n) {
    const ifc_t *f = tb->ifc;
    nic_t *x = &tb->nic[n];
    if (tb->mismatch[0] || x->mismatch[0]) return;
    tb->m.rtl_read_regs(x->rtl, x->st_rtl);
    char what[160];
    bool differ = regs_differ(f, x->st, x->st_rtl, what, sizeof what);
    for (unsigned k = 0; k < f->n_mems && !differ; k++)
        if (bits_differ(x->st, x->st_rtl, f->mems[k].offset, f->mems[k].width)) {
            ifc_leaf l = {.offset = f->mems[k].offset, .width = f->mems[k].width, .size = f->mems[k].elem_size};
            snprintf(what, sizeof what, "register %s C=0x%llx RTL=0x%llx", f->mems[k].name,
                     (unsigned long long)get_leaf(x->st, &l), (unsigned long long)get_leaf(x->st_rtl, &l));
            differ = true;
        }
    if (differ)
        snprintf(x->mismatch, sizeof x->mismatch,
                 "cycle %llu nic %u: %s (written at an edge of cycles %llu..%llu)",
                 (unsigned long long)tb->cycle, n, what,
                 (unsigned long long)(tb->cycle + 1 > tb->c.regs_check_every ? tb->cycle + 1 - tb->c.regs_check_every : 0),
                 (unsigned long long)tb->cycle);
}

void *nic_tb_rtl(nic_tb_t *tb, unsigned nic) { return nic < tb->c.nics ? tb->nic[nic].rtl : NULL; }

bool nic_tb_compare_state(nic_tb_t *tb) {
    const ifc_t *f = tb->ifc;
    if (tb->mismatch[0]) return false; /* the first mismatch is kept */
    unsigned lockstep = 0;
    for (unsigned n = 0; n < tb->c.nics; n++) lockstep += tb->nic[n].mode == NIC_TB_LOCKSTEP;
    if (!lockstep || !tb->m.rtl_read_state) {
        snprintf(tb->mismatch, sizeof tb->mismatch, "nic_tb_compare_state: needs a NIC in lock-step mode and rtl_read_state");
        return false;
    }
    uint8_t *rs = calloc(1, f->state_size);
    for (unsigned n = 0; n < tb->c.nics && !tb->mismatch[0]; n++) {
        nic_t *x = &tb->nic[n];
        if (x->mode != NIC_TB_LOCKSTEP) continue;
        memset(rs, 0, f->state_size);
        tb->m.rtl_read_state(x->rtl, rs);
        char what[160];
        if (regs_differ(f, x->st, rs, what, sizeof what))
            snprintf(tb->mismatch, sizeof tb->mismatch, "cycle %llu nic %u: %s", (unsigned long long)tb->cycle, n, what);
        for (unsigned k = 0; k < f->n_mems && !tb->mismatch[0]; k++) {
            const ifc_mem *mm = &f->mems[k];
            /* rdata, then cell i at offset + elem_size * (1 + i); width bits of each */
            for (unsigned i = 0; i <= mm->depth && !tb->mismatch[0]; i++) {
                unsigned off = mm->offset + mm->elem_size * i;
                if (!bits_differ(x->st, rs, off, mm->width)) continue;
                unsigned b = 0;
                while (b < mm->elem_size && x->st[off + b] == rs[off + b]) b++;
                if (i == 0)
                    snprintf(tb->mismatch, sizeof tb->mismatch, "cycle %llu nic %u: memory %s rdata byte %u C=0x%02x RTL=0x%02x",
                             (unsigned long long)tb->cycle, n, mm->name, b, x->st[off + b], rs[off + b]);
                else
                    snprintf(tb->mismatch, sizeof tb->mismatch, "cycle %llu nic %u: memory %s cell %u byte %u C=0x%02x RTL=0x%02x",
                             (unsigned long long)tb->cycle, n, mm->name, i - 1, b, x->st[off + b], rs[off + b]);
            }
        }
    }
    free(rs);
    return !tb->mismatch[0];
}

static void take_outputs(nic_tb_t *tb, unsigned n) {
    const ifc_t *f = tb->ifc;
    nic_t *x = &tb->nic[n];
    for (unsigned i = 0; i < tb->ns; i++) {
        const sport_t *s = &tb->s[i];
        if (s->is_input) {
            bool fire = x->in[f->in[s->valid].offset] && (x->out[f->out[s->ready].offset] & 1);
            /* a DMA response stream is fed by the host memory, not by a test queue: its
             * queue must not count down (it used to wrap to 2^32 - 1 items, and from then on
             * every cycle offered a zero beat as valid: found by testbench/scenario) */
            bool dma_resp = false;
            for (unsigned d = 0; d < tb->ndma; d++) dma_resp |= tb->dma_resp[d] == (int)i;
            if (dma_resp) { x->transfers += fire; continue; }
            x->transfers += fire;
            if (fire && (int)i != tb->frame_in) { x->qh[i] = (x->qh[i] + 1) % QCAP; x->qn[i]--; }
            if (fire && (int)i == tb->frame_in) {
                frame_t *fr = &x->rxq[x->rxh];
                x->rx_off += fr->len - x->rx_off > 64 ? 64 : fr->len - x->rx_off;
                if (x->rx_off == fr->len) {
                    free(fr->buf);
                    x->rxh = (x->rxh + 1) % RXQ;
                    x->rxn--;
                    x->rx_off = 0;
                    x->frames_rcvd++;
                }
            }
            continue;
        }
        bool fire = (x->out[f->out[s->valid].offset] & 1) && x->in[f->in[s->ready].offset];
        if (!fire) continue;
        x->transfers++;
        if ((int)i == tb->frame_out) {
            nic_beat_t b;
            memcpy(&b, x->out + s->base, sizeof b);
            uint8_t p[64];
            beat_to_bytes(&b, p);
            unsigned nb = b.bytes > 64 ? 64 : (unsigned)b.bytes;
            if (x->tx_len + nb <= FRAME_MAX) memcpy(x->tx_buf + x->tx_len, p, nb);
            x->tx_len += nb;
            if (b.last) {
                /* with tail_drop a full pool is a visible drop: any refusal is a testbench bug */
                if (x->tx_len <= FRAME_MAX && wire_send(tb->w, n, x->tx_buf, x->tx_len, tb->cycle) != WIRE_OK) {
                    fprintf(stderr, "nic_tb: NIC %u's frame of %zu bytes refused by the wire: %s\n", n, x->tx_len,
                            wire_last_error(tb->w));
                    abort();
                }
                x->frames_sent++;
                x->tx_len = 0;
            }
            continue;
        }
        bool is_dma = false;
        for (unsigned d = 0; d < tb->ndma; d++) is_dma |= tb->dma_req[d] == (int)i;
        if (is_dma) continue; /* the host memory takes it in hostmem_edge */
        memcpy(x->q[i] + (size_t)((x->qh[i] + x->qn[i]) % QCAP) * s->size, x->out + s->base, s->size);
        x->qn[i]++;
    }
    for (unsigned d = 0; d < tb->ndma; d++) {
        const sport_t *rq = &tb->s[tb->dma_req[d]], *rs = &tb->s[tb->dma_resp[d]];
        hostmem_port_in_t mi = {0};
        mi.req_valid = x->out[f->out[rq->valid].offset] & 1;
        mi.resp_ready = x->out[f->out[rs->ready].offset] & 1;
        if (mi.req_valid) {
            nic_dma_req_t r;
            memcpy(&r, x->out + rq->base, sizeof r);
            mi.req.op = r.write ? HOSTMEM_OP_WRITE : HOSTMEM_OP_READ;
            mi.req.tag = r.tag;
            mi.req.addr = r.addr;
            mi.req.len = (uint32_t)r.len;
            for (unsigned b = 0; b < 64; b++) mi.req.data[b] = (uint8_t)(r.data >> (8 * b));
        }
        if (tb->c.dma.edge) tb->c.dma.edge(tb->c.dma.ctx, n, d, &mi);
        else hostmem_edge(x->mem, d, &mi);
    }
}

/* One cycle of NIC n's model(s), from its in-struct to its out-struct and next state. It
 * touches only NIC n's buffers, models and edge queue, so NICs may run on different threads
 * (step_threads): the wire, the PRNG and the test queues are used before and after it. */
static void step_nic_model(void *arg, unsigned n) {
    nic_tb_t *tb = arg;
    nic_t *x = &tb->nic[n];
    if (x->detached) return;
    if (x->mode != NIC_TB_RTL) {
        memset(x->out, 0, tb->ifc->out_size);
        hls_edge_queue_bind(x->edges);
        tb->m.c_step(x->in, x->out, x->st);
        hls_clock_edge(x->edges);
    }
    if (x->mode != NIC_TB_C) {
        tb->m.rtl_eval(x->rtl, x->in, x->mode == NIC_TB_RTL ? x->out : x->out_rtl);
        tb->m.rtl_edge(x->rtl);
        if (x->mode == NIC_TB_LOCKSTEP) compare_outputs(tb, n);
        if (x->mode == NIC_TB_LOCKSTEP && tb->c.regs_check_every && (tb->cycle + 1) % tb->c.regs_check_every == 0)
            compare_regs(tb, n);
    }
}

/* Inputs of every NIC, then every model, then every NIC's outputs: the same result as NIC by
 * NIC, since a NIC's inputs depend on no other NIC's outputs of the same cycle (frames reach
 * the wire in take_outputs and leave it after the loop below) and the PRNG is drawn in
 * drive_inputs only, in NIC order either way. */
void nic_tb_step(nic_tb_t *tb) {
    for (unsigned n = 0; n < tb->c.nics; n++) {
        hostmem_port_out_t mo[MAX_DMA];
        if (!tb->nic[n].detached) drive_inputs(tb, &tb->nic[n], mo);
    }
    if (tb->threads) step_threads_run(tb->threads);
    else for (unsigned n = 0; n < tb->c.nics; n++) step_nic_model(tb, n);
    for (unsigned n = 0; n < tb->c.nics && !tb->mismatch[0]; n++)
        if (tb->nic[n].mismatch[0]) memcpy(tb->mismatch, tb->nic[n].mismatch, sizeof tb->mismatch);
    for (unsigned n = 0; n < tb->c.nics; n++)
        if (!tb->nic[n].detached) take_outputs(tb, n);
    for (unsigned n = 0; n < tb->c.nics; n++) {
        nic_t *x = &tb->nic[n];
        uint8_t buf[FRAME_MAX]; /* not static: harnesses of several threads (testbench/device) */
        size_t len;
        if (x->detached) {
            while (wire_recv(tb->w, n, buf, sizeof buf, &len, tb->cycle) == 1) x->dropped_detached++;
            continue;
        }
        if (tb->c.dma.tick) tb->c.dma.tick(tb->c.dma.ctx, n);
        else hostmem_tick(x->mem);
        while (x->rxn < RXQ && wire_recv(tb->w, n, buf, sizeof buf, &len, tb->cycle) == 1)
            nic_tb_inject(tb, n, buf, len);
    }
    tb->cycle++;
}

bool nic_tb_step_skip(nic_tb_t *tb, uint32_t skip) {
    if (skip && tb->time_skip_leaf < 0) return false;
    tb->time_skip = skip;
    nic_tb_step(tb);
    tb->time_skip = 0;
    tb->cycle += skip;
    for (unsigned n = 0; n < tb->c.nics; n++)
        if (!tb->nic[n].detached) hostmem_advance(tb->nic[n].mem, skip);
    return true;
}

bool nic_tb_quiet(const nic_tb_t *tb, unsigned nic) {
    const nic_t *x = &tb->nic[nic];
    if (x->detached) return true;
    for (unsigned i = 0; i < tb->ns; i++)
        if (tb->s[i].is_input && x->qn[i]) return false;
    return !x->rxn && !x->tx_len && hostmem_idle(x->mem);
}

bool nic_tb_read_state(const nic_tb_t *tb, unsigned nic, void *state) {
    const nic_t *x = &tb->nic[nic];
    if (x->mode != NIC_TB_RTL) memcpy(state, x->st, tb->ifc->state_size);
    else if (tb->m.rtl_read_state) {
        memset(state, 0, tb->ifc->state_size);
        tb->m.rtl_read_state(x->rtl, state);
    } else return false;
    return true;
}

const ifc_t *nic_tb_iface(const nic_tb_t *tb) { return tb->ifc; }

void nic_tb_run(nic_tb_t *tb, uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; i++) nic_tb_step(tb);
}

bool nic_tb_run_until(nic_tb_t *tb, bool (*cond)(nic_tb_t *, void *), void *arg, uint64_t max) {
    for (uint64_t i = 0; i < max; i++) {
        if (cond(tb, arg)) return true;
        nic_tb_step(tb);
    }
    return cond(tb, arg);
}

/* ---- frames from the firmware, migration --------------------------------------------------- */
int nic_tb_send_frame(nic_tb_t *tb, unsigned nic, const uint8_t *frame, size_t len) {
    if (tb->nic[nic].detached) return WIRE_ERR_PORT;
    /* the firmware's frames (announces) wait for room rather than meet the tail drop: the
     * caller retries, as the firmware's MAC would hold the frame */
    if (wire_pool_free(tb->w) < 2 * wire_nports(tb->w)) return WIRE_ERR_POOL_FULL;
    int r = wire_send(tb->w, nic, frame, len, tb->cycle);
    if (r == WIRE_OK) tb->nic[nic].frames_sent++;
    return r;
}

void nic_tb_detach(nic_tb_t *tb, unsigned nic) {
    nic_t *x = &tb->nic[nic];
    x->detached = true;
    x->tx_len = 0; /* a frame half sent never reaches the wire */
}
bool nic_tb_attached(const nic_tb_t *tb, unsigned nic) { return !tb->nic[nic].detached; }
uint64_t nic_tb_frames_dropped_detached(const nic_tb_t *tb, unsigned nic) { return tb->nic[nic].dropped_detached; }

int nic_tb_move_host(nic_tb_t *tb, unsigned from, unsigned to, nic_fn_t fn) {
    nic_t *a = &tb->nic[from], *b = &tb->nic[to];
    if (hostmem_copy_all(b->mem, a->mem)) return -1;
    for (unsigned k = 0; k < NIC_CQ_PER_FN; k++) b->cq[fn * NIC_CQ_PER_FN + k] = a->cq[fn * NIC_CQ_PER_FN + k];
    for (unsigned k = 0; k < NIC_QP_PER_FN; k++) b->qp[fn * NIC_QP_PER_FN + k] = a->qp[fn * NIC_QP_PER_FN + k];
    return 0;
}

/* ---- driver -------------------------------------------------------------------------------- */
typedef struct { unsigned nic; } cmd_wait_t;
static bool cmd_answered(nic_tb_t *tb, void *arg) {
    return nic_tb_pending(tb, ((cmd_wait_t *)arg)->nic, "ctrl_cmd_resp") != 0;
}

int nic_tb_cmd(nic_tb_t *tb, unsigned nic, const nic_cmd_t *cmd, nic_cmd_resp_t *resp) {
    if (nic_tb_push(tb, nic, "ctrl_cmd", cmd, sizeof *cmd) < 0) return -1;
    cmd_wait_t w = {nic};
    if (!nic_tb_run_until(tb, cmd_answered, &w, 100000)) return -1;
    nic_cmd_resp_t r;
    nic_tb_pop(tb, nic, "ctrl_cmd_resp", &r, sizeof r);
    if (resp) *resp = r;
    return r.status;
}

static int qp_row(nic_fn_t fn, uint32_t qpn) { return (int)(fn * NIC_QP_PER_FN + qpn % NIC_QP_PER_FN); }
static int cq_row(nic_fn_t fn, uint32_t cqn) { return (int)(fn * NIC_CQ_PER_FN + cqn % NIC_CQ_PER_FN); }

int nic_tb_set_fn(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint64_t mac, uint32_t ip) {
    nic_cmd_t c = {.op = NIC_CMD_SET_FN, .fn = fn, .mac = mac, .ip = ip};
    return nic_tb_cmd(tb, nic, &c, NULL);
}

int nic_tb_create_cq(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t cqn, uint64_t base, unsigned log) {
    nic_cmd_t c = {.op = NIC_CMD_CREATE_CQ, .fn = fn, .num = cqn, .base = base, .log = (hls_uint(5))log};
    int r = nic_tb_cmd(tb, nic, &c, NULL);
    if (r == NIC_CMD_OK) {
        nic_t *x = &tb->nic[nic];
        x->cq[cq_row(fn, cqn)].base = base;
        x->cq[cq_row(fn, cqn)].log = log;
        x->cq[cq_row(fn, cqn)].ci = 0;
        hostmem_fill(x->mem, base, 0, (size_t)32 << log); /* owner bits 0: nothing valid */
    }
    return r;
}

int nic_tb_create_qp(nic_tb_t *tb, unsigned nic, nic_fn_t fn, const nic_tb_qp_t *q) {
    nic_cmd_t c = {.op = NIC_CMD_CREATE_QP, .fn = fn, .num = q->qpn};
    c.qp.qpn = (hls_u24)q->qpn;
    c.qp.sq_base = q->sq_base;
    c.qp.rq_base = q->rq_base;
    c.qp.sq_log = (hls_uint(5))q->sq_log;
    c.qp.rq_log = (hls_uint(5))q->rq_log;
    c.qp.send_cq = (nic_cq_t)cq_row(fn, q->send_cqn);
    c.qp.recv_cq = (nic_cq_t)cq_row(fn, q->recv_cqn);
    c.qp.pd = q->pd;
    c.qp.access = q->access;
    int r = nic_tb_cmd(tb, nic, &c, NULL);
    if (r == NIC_CMD_OK) {
        nic_t *x = &tb->nic[nic];
        int row = qp_row(fn, q->qpn);
        x->qp[row].sq_base = q->sq_base;
        x->qp[row].rq_base = q->rq_base;
        x->qp[row].sq_log = q->sq_log;
        x->qp[row].rq_log = q->rq_log;
        x->qp[row].sq_pi = x->qp[row].rq_pi = 0;
    }
    return r;
}

int nic_tb_modify_qp_rts(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t qpn, uint32_t dest_qpn,
                         uint64_t dst_mac, uint32_t dst_ip, uint32_t sq_psn, uint32_t rq_psn,
                         unsigned pmtu) {
    nic_cmd_t c = {.op = NIC_CMD_MODIFY_QP, .fn = fn, .num = qpn};
    c.mask = NIC_QPA_STATE | NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT;
    c.qp.state = NIC_QPS_INIT;
    c.qp.pkey_index = 0;
    c.qp.port_num = 1;
    c.qp.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
    int r = nic_tb_cmd(tb, nic, &c, NULL);
    if (r) return r;
    c.mask = NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
             NIC_QPA_MIN_RNR_TIMER | NIC_QPA_MAX_DEST_RD_ATOMIC;
    c.qp.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    c.qp.state = NIC_QPS_RTR;
    c.qp.dst_mac = dst_mac;
    c.qp.dst_ip = dst_ip;
    c.qp.udp_sport = (uint16_t)(0xc000 | (qpn & 0x3fff));
    c.qp.pmtu = (hls_uint(3))pmtu;
    c.qp.dest_qpn = (hls_u24)dest_qpn;
    c.qp.rq_psn = (hls_u24)rq_psn;
    c.qp.min_rnr_timer = 12;
    if ((r = nic_tb_cmd(tb, nic, &c, NULL))) return r;
    c.mask = NIC_QPA_STATE | NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
             NIC_QPA_MAX_QP_RD_ATOMIC;
    c.qp.max_rd_atomic = NIC_MAX_DEST_RD_ATOMIC; /* the peer's responder resources */
    c.qp.state = NIC_QPS_RTS;
    c.qp.sq_psn = (hls_u24)sq_psn;
    c.qp.timeout = tb->c.qp_timeout ? tb->c.qp_timeout : 14;
    c.qp.retry_cnt = 7;
    c.qp.rnr_retry = 7;
    return nic_tb_cmd(tb, nic, &c, NULL);
}

int nic_tb_reg_mr(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t key, uint64_t base, uint64_t len,
                  uint32_t pd, uint8_t access) {
    nic_cmd_t c = {.op = NIC_CMD_REG_MR, .fn = fn, .num = key, .base = base, .len = len, .pd = pd,
                   .access = access};
    return nic_tb_cmd(tb, nic, &c, NULL);
}

static int ring(nic_tb_t *tb, unsigned nic, const char *db, nic_fn_t fn, uint32_t num, uint16_t idx) {
    nic_db_t d = {.fn = fn, .num = (hls_u24)num, .index = idx};
    return nic_tb_push(tb, nic, db, &d, sizeof d);
}

int nic_tb_post_send(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t qpn, const nic_sq_wqe_t *wqe) {
    nic_t *x = &tb->nic[nic];
    int row = qp_row(fn, qpn);
    uint16_t i = x->qp[row].sq_pi++;
    hostmem_write(x->mem, x->qp[row].sq_base + 64u * (i & ((1u << x->qp[row].sq_log) - 1)), wqe, sizeof *wqe);
    return ring(tb, nic, "req_sq_db", fn, qpn, x->qp[row].sq_pi);
}

int nic_tb_post_recv(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t qpn, const nic_rq_wqe_t *wqe) {
    nic_t *x = &tb->nic[nic];
    int row = qp_row(fn, qpn);
    uint16_t i = x->qp[row].rq_pi++;
    hostmem_write(x->mem, x->qp[row].rq_base + 32u * (i & ((1u << x->qp[row].rq_log) - 1)), wqe, sizeof *wqe);
    return ring(tb, nic, "resp_rq_db", fn, qpn, x->qp[row].rq_pi);
}

int nic_tb_poll_cq(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t cqn, nic_cqe_t *cqe) {
    nic_t *x = &tb->nic[nic];
    int row = cq_row(fn, cqn);
    uint32_t ci = x->cq[row].ci, mask = (1u << x->cq[row].log) - 1;
    nic_cqe_t e;
    hostmem_read(x->mem, x->cq[row].base + 32u * (ci & mask), &e, sizeof e);
    bool pass_owner = !((ci >> x->cq[row].log) & 1); /* 1 on the first pass, 0 on the second, ... */
    if (!!(e.owner & NIC_CQE_OWNER) != pass_owner) return 0;
    *cqe = e;
    x->cq[row].ci = ci + 1;
    ring(tb, nic, "cqw_cq_db", fn, cqn, (uint16_t)(ci + 1));
    return 1;
}
