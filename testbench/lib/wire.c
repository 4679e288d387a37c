/* wire.c — the cycle-driven Ethernet link / learning switch model (see wire.h). */
#include "wire.h"

#include "pcap.h"
#include "prng.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Impairment ids: each decision is drawn from its own generator, seeded from
 * (seed, impairment, send sequence, copy index), so it is a function of those alone. */
enum { IMP_LOSS = 1, IMP_DUP = 2, IMP_REORDER = 3, IMP_CORRUPT = 4 };

#define MAC_TABLE 1024u /* learning table entries (power of two); full -> no more learning */

typedef struct {
    uint64_t due, seq, sent_cycle;
    uint32_t len, src, flags, bits;
} copy_t;

struct wire {
    wire_config_t cfg;
    unsigned nports;
    bool is_switch;
    uint8_t *arena;    /* pool_frames * max_frame bytes */
    copy_t *copies;    /* pool_frames */
    uint32_t *free_stack;
    uint32_t nfree;
    uint32_t **heap;   /* per port: min-heap of copy indices by (due, seq, dup) */
    uint32_t *heap_n;
    uint64_t *tx_free, *eg_free, *last_send, *max_seq_out;
    bool *any_out;
    uint64_t mac_key[MAC_TABLE]; /* MAC + 1, 0 = empty */
    uint8_t mac_port[MAC_TABLE];
    uint64_t thr_loss, thr_dup, thr_reorder, thr_corrupt;
    wire_pause_t pause[WIRE_MAX_PAUSE];
    unsigned npause;
    pcap_writer_t *pc_sent, *pc_deliv;
    uint64_t seq;
    wire_stats_t st;
    char err[256];
};

static void set_err(wire_t *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
}

const char *wire_strerror(int code) {
    switch (code) {
    case WIRE_OK: return "ok";
    case WIRE_ERR_PORT: return "port out of range";
    case WIRE_ERR_SIZE: return "frame length 0 or larger than max_frame";
    case WIRE_ERR_POOL_FULL: return "frame pool full";
    case WIRE_ERR_TIME: return "time went backwards on this port";
    case WIRE_ERR_CAP: return "receive buffer too small";
    case WIRE_ERR_CONFIG: return "bad configuration";
    default: return "unknown error";
    }
}
const char *wire_last_error(const wire_t *w) { return w->err; }

void wire_config_default(wire_config_t *c) {
    memset(c, 0, sizeof *c);
    c->bytes_per_cycle = 64;
    c->pool_frames = 1024;
    c->max_frame = WIRE_MAX_FRAME;
    c->ns_per_cycle = 4;
}

static prng_t decision_rng(const wire_t *w, int imp, uint64_t seq, unsigned copy) {
    prng_t r;
    prng_seed_stream(&r, w->cfg.seed, ((seq * 256u + copy) << 3) | (uint64_t)imp);
    return r;
}

static wire_t *wire_create(const wire_config_t *c, unsigned nports, bool is_switch) {
    if (nports < 2 || nports > WIRE_MAX_PORTS) {
        fprintf(stderr, "wire: nports %u out of range 2..%u\n", nports, WIRE_MAX_PORTS);
        return NULL;
    }
    wire_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->cfg = *c;
    if (!w->cfg.pool_frames) w->cfg.pool_frames = 1024;
    if (!w->cfg.max_frame) w->cfg.max_frame = WIRE_MAX_FRAME;
    if (!w->cfg.ns_per_cycle) w->cfg.ns_per_cycle = 4;
    if (!w->cfg.reorder_max_cycles) w->cfg.reorder_max_cycles = 64;
    if (!w->cfg.corrupt_max_bits) w->cfg.corrupt_max_bits = 1;
    if (w->cfg.max_frame > WIRE_MAX_FRAME) {
        fprintf(stderr, "wire: max_frame %u > %u\n", w->cfg.max_frame, WIRE_MAX_FRAME);
        free(w);
        return NULL;
    }
    w->cfg.pcap_sent = w->cfg.pcap_delivered = NULL; /* paths are not kept */
    w->nports = nports;
    w->is_switch = is_switch;
    uint32_t P = w->cfg.pool_frames;
    w->arena = malloc((size_t)P * w->cfg.max_frame);
    w->copies = calloc(P, sizeof *w->copies);
    w->free_stack = malloc(P * sizeof *w->free_stack);
    w->heap = calloc(nports, sizeof *w->heap);
    w->heap_n = calloc(nports, sizeof *w->heap_n);
    w->tx_free = calloc(nports, sizeof(uint64_t));
    w->eg_free = calloc(nports, sizeof(uint64_t));
    w->last_send = calloc(nports, sizeof(uint64_t));
    w->max_seq_out = calloc(nports, sizeof(uint64_t));
    w->any_out = calloc(nports, sizeof(bool));
    bool ok = w->arena && w->copies && w->free_stack && w->heap && w->heap_n && w->tx_free &&
              w->eg_free && w->last_send && w->max_seq_out && w->any_out;
    for (unsigned p = 0; ok && p < nports; p++) ok = (w->heap[p] = malloc(P * sizeof(uint32_t))) != NULL;
    if (!ok) {
        fprintf(stderr, "wire: out of memory for a pool of %u frames of %u bytes\n", P, w->cfg.max_frame);
        wire_free(w);
        return NULL;
    }
    for (uint32_t i = 0; i < P; i++) w->free_stack[i] = P - 1 - i; /* slot 0 is used first */
    w->nfree = P;
    w->thr_loss = prng_threshold(c->p_loss);
    w->thr_dup = prng_threshold(c->p_dup);
    w->thr_reorder = prng_threshold(c->p_reorder);
    w->thr_corrupt = prng_threshold(c->p_corrupt);
    for (unsigned i = 0; i < WIRE_MAX_PAUSE; i++)
        if (c->pause[i].end > c->pause[i].start) {
            if (c->pause[i].mode != WIRE_PAUSE_DROP && c->pause[i].mode != WIRE_PAUSE_HOLD) {
                fprintf(stderr, "wire: pause[%u] has no mode (WIRE_PAUSE_DROP or WIRE_PAUSE_HOLD)\n", i);
                wire_free(w);
                return NULL;
            }
            w->pause[w->npause++] = c->pause[i];
        }
    if (c->pcap_sent && !(w->pc_sent = pcap_open(c->pcap_sent))) {
        fprintf(stderr, "wire: cannot open pcap %s\n", c->pcap_sent);
        wire_free(w);
        return NULL;
    }
    if (c->pcap_delivered && !(w->pc_deliv = pcap_open(c->pcap_delivered))) {
        fprintf(stderr, "wire: cannot open pcap %s\n", c->pcap_delivered);
        wire_free(w);
        return NULL;
    }
    return w;
}

wire_t *wire_new(const wire_config_t *c) { return wire_create(c, 2, false); }
wire_t *wire_switch_new(const wire_config_t *c, unsigned nports) { return wire_create(c, nports, true); }

void wire_free(wire_t *w) {
    if (!w) return;
    if (w->pc_sent) pcap_close(w->pc_sent);
    if (w->pc_deliv) pcap_close(w->pc_deliv);
    if (w->heap)
        for (unsigned p = 0; p < w->nports; p++) free(w->heap[p]);
    free(w->heap);
    free(w->heap_n);
    free(w->tx_free);
    free(w->eg_free);
    free(w->last_send);
    free(w->max_seq_out);
    free(w->any_out);
    free(w->arena);
    free(w->copies);
    free(w->free_stack);
    free(w);
}

/* ---- per-port min-heap ------------------------------------------------------------ */
static bool copy_before(const wire_t *w, uint32_t a, uint32_t b) {
    const copy_t *x = &w->copies[a], *y = &w->copies[b];
    if (x->due != y->due) return x->due < y->due;
    if (x->seq != y->seq) return x->seq < y->seq;
    return (x->flags & WIRE_F_DUP) < (y->flags & WIRE_F_DUP);
}
static void heap_down(wire_t *w, unsigned p, uint32_t i) {
    uint32_t *h = w->heap[p], n = w->heap_n[p];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && copy_before(w, h[l], h[m])) m = l;
        if (r < n && copy_before(w, h[r], h[m])) m = r;
        if (m == i) return;
        uint32_t t = h[i]; h[i] = h[m]; h[m] = t;
        i = m;
    }
}
static void heap_push(wire_t *w, unsigned p, uint32_t c) {
    uint32_t *h = w->heap[p], i = w->heap_n[p]++;
    h[i] = c;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!copy_before(w, h[i], h[parent])) break;
        uint32_t t = h[i]; h[i] = h[parent]; h[parent] = t;
        i = parent;
    }
}
static void heap_pop(wire_t *w, unsigned p) {
    uint32_t *h = w->heap[p];
    h[0] = h[--w->heap_n[p]];
    heap_down(w, p, 0);
}
static void slot_free(wire_t *w, uint32_t c) {
    w->free_stack[w->nfree++] = c;
    w->st.pool_in_use--;
}

/* ---- switch learning -------------------------------------------------------------- */
static uint64_t mac_at(const uint8_t *f) {
    uint64_t m = 0;
    for (int i = 0; i < 6; i++) m = (m << 8) | f[i];
    return m;
}
static uint32_t mac_slot(uint64_t mac) {
    uint64_t h = mac;
    return (uint32_t)(splitmix64(&h) & (MAC_TABLE - 1));
}
static int mac_lookup(const wire_t *w, uint64_t mac) {
    for (uint32_t i = mac_slot(mac), k = 0; k < MAC_TABLE; k++, i = (i + 1) & (MAC_TABLE - 1)) {
        if (w->mac_key[i] == 0) return -1;
        if (w->mac_key[i] == mac + 1) return w->mac_port[i];
    }
    return -1;
}
static void mac_learn(wire_t *w, uint64_t mac, unsigned port) {
    for (uint32_t i = mac_slot(mac), k = 0; k < MAC_TABLE; k++, i = (i + 1) & (MAC_TABLE - 1)) {
        if (w->mac_key[i] == 0 || w->mac_key[i] == mac + 1) {
            w->mac_key[i] = mac + 1;
            w->mac_port[i] = (uint8_t)port;
            return;
        }
    }
}

/* ---- send ------------------------------------------------------------------------- */
static uint64_t ser_cycles(const wire_t *w, size_t len) {
    if (!w->cfg.bytes_per_cycle) return 0;
    uint64_t b = len + w->cfg.overhead_bytes;
    return (b + w->cfg.bytes_per_cycle - 1) / w->cfg.bytes_per_cycle;
}

int wire_send(wire_t *w, unsigned port, const uint8_t *frame, size_t len, uint64_t now) {
    if (port >= w->nports) {
        set_err(w, "wire_send: port %u out of range (wire has %u ports)", port, w->nports);
        return WIRE_ERR_PORT;
    }
    if (len == 0 || len > w->cfg.max_frame) {
        set_err(w, "wire_send: frame of %zu bytes on port %u (allowed 1..%u)", len, port, w->cfg.max_frame);
        return WIRE_ERR_SIZE;
    }
    if (now < w->last_send[port]) {
        set_err(w, "wire_send: port %u sends at cycle %llu after a send at cycle %llu", port,
                (unsigned long long)now, (unsigned long long)w->last_send[port]);
        return WIRE_ERR_TIME;
    }
    /* destinations */
    uint64_t dests = 0;
    bool flood = false, filtered = false;
    if (!w->is_switch) {
        dests = 1ull << (1 - port);
    } else {
        int q = (len >= 6 && !(frame[0] & 1)) ? mac_lookup(w, mac_at(frame)) : -1;
        if (q < 0) {
            flood = true;
            for (unsigned p = 0; p < w->nports; p++)
                if (p != port) dests |= 1ull << p;
        } else if ((unsigned)q == port) {
            filtered = true;
        } else {
            dests = 1ull << q;
        }
    }
    uint64_t seq = w->seq;
    prng_t r = decision_rng(w, IMP_LOSS, seq, 0);
    bool lost = prng_chance(&r, w->thr_loss);
    r = decision_rng(w, IMP_DUP, seq, 0);
    bool dup = prng_chance(&r, w->thr_dup);
    unsigned ncopies = (lost || filtered) ? 0 : (unsigned)__builtin_popcountll(dests) * (dup ? 2u : 1u);
    bool overflow = ncopies > w->nfree && w->cfg.tail_drop;
    if (overflow) {
        w->st.buffer_dropped++;
        ncopies = 0;
    }
    if (ncopies > w->nfree) {
        w->st.pool_full++;
        set_err(w,
                "wire_send: frame pool full: %u of %u slots in flight, this frame needs %u "
                "(port %u, cycle %llu); drain with wire_recv or raise wire_config_t.pool_frames",
                w->cfg.pool_frames - w->nfree, w->cfg.pool_frames, ncopies, port, (unsigned long long)now);
        return WIRE_ERR_POOL_FULL;
    }
    /* accepted */
    w->seq++;
    w->last_send[port] = now;
    w->st.sent++;
    w->st.sent_bytes += len;
    if (w->pc_sent) pcap_write(w->pc_sent, frame, len, now * w->cfg.ns_per_cycle);
    if (w->is_switch && len >= 12) mac_learn(w, mac_at(frame + 6), port);
    uint64_t ser = ser_cycles(w, len);
    uint64_t start = now > w->tx_free[port] ? now : w->tx_free[port];
    uint64_t done = start + ser;
    w->tx_free[port] = done;
    if (filtered) {
        w->st.switch_filtered++;
        return WIRE_OK;
    }
    if (flood) w->st.switch_flooded++;
    if (lost || overflow) {
        w->st.lost += lost;
        return WIRE_OK;
    }
    if (dup) w->st.duplicated += (uint64_t)__builtin_popcountll(dests);
    for (unsigned q = 0; q < w->nports; q++) {
        if (!(dests & (1ull << q))) continue;
        uint64_t arrive = done + w->cfg.latency_cycles;
        if (w->is_switch) { /* store-and-forward: egress port q serialises again */
            uint64_t es = arrive > w->eg_free[q] ? arrive : w->eg_free[q];
            arrive = es + ser;
            w->eg_free[q] = arrive;
        }
        for (unsigned d = 0; d < (dup ? 2u : 1u); d++) {
            unsigned k = 2 * q + d;
            uint32_t c = w->free_stack[--w->nfree];
            if (++w->st.pool_in_use > w->st.pool_high_water) w->st.pool_high_water = w->st.pool_in_use;
            copy_t *cp = &w->copies[c];
            uint8_t *data = w->arena + (size_t)c * w->cfg.max_frame;
            memcpy(data, frame, len);
            cp->seq = seq;
            cp->sent_cycle = now;
            cp->len = (uint32_t)len;
            cp->src = port;
            cp->flags = (d ? WIRE_F_DUP : 0) | (flood ? WIRE_F_FLOOD : 0);
            cp->bits = 0;
            cp->due = arrive + (d ? w->cfg.dup_delay_cycles : 0);
            r = decision_rng(w, IMP_REORDER, seq, k);
            if (prng_chance(&r, w->thr_reorder)) {
                cp->due += prng_range(&r, 1, w->cfg.reorder_max_cycles);
                cp->flags |= WIRE_F_REORDER;
                w->st.reordered++;
            }
            r = decision_rng(w, IMP_CORRUPT, seq, k);
            if (prng_chance(&r, w->thr_corrupt)) {
                uint64_t nbits = 8ull * len;
                uint32_t n = (uint32_t)prng_range(&r, 1, w->cfg.corrupt_max_bits);
                if (n > nbits) n = (uint32_t)nbits;
                uint64_t pos[64];
                if (n > 64) n = 64;
                for (uint32_t i = 0; i < n; i++) {
                    uint64_t b;
                    bool again;
                    do { /* distinct positions */
                        b = prng_below(&r, nbits);
                        again = false;
                        for (uint32_t j = 0; j < i; j++) again |= pos[j] == b;
                    } while (again);
                    pos[i] = b;
                    data[b >> 3] ^= (uint8_t)(1u << (b & 7));
                }
                cp->bits = n;
                cp->flags |= WIRE_F_CORRUPT;
                w->st.corrupted++;
                w->st.bits_flipped += n;
            }
            heap_push(w, q, c);
        }
    }
    return WIRE_OK;
}

/* ---- receive ---------------------------------------------------------------------- */
int wire_recv_ex(wire_t *w, unsigned port, uint8_t *buf, size_t cap, size_t *len, uint64_t now,
                 wire_rx_info_t *info) {
    if (port >= w->nports) {
        set_err(w, "wire_recv: port %u out of range (wire has %u ports)", port, w->nports);
        return WIRE_ERR_PORT;
    }
    while (w->heap_n[port]) {
        uint32_t c = w->heap[port][0];
        copy_t *cp = &w->copies[c];
        if (cp->due > now) return 0;
        /* pause windows: drop, or move the due cycle to the window's end */
        bool dropped = false, moved = false;
        for (unsigned iter = 0; iter <= w->npause && !dropped; iter++) {
            bool changed = false;
            for (unsigned i = 0; i < w->npause; i++) {
                const wire_pause_t *pw = &w->pause[i];
                if (pw->port_mask && !(pw->port_mask & (1ull << port))) continue;
                if (cp->due < pw->start || cp->due >= pw->end) continue;
                if (pw->mode == WIRE_PAUSE_DROP) {
                    dropped = true;
                    break;
                }
                cp->due = pw->end;
                changed = moved = true;
            }
            if (!changed) break;
        }
        if (dropped) {
            heap_pop(w, port);
            slot_free(w, c);
            w->st.pause_dropped++;
            continue;
        }
        if (moved) {
            if (!(cp->flags & WIRE_F_HELD)) w->st.pause_held++;
            cp->flags |= WIRE_F_HELD;
            heap_down(w, port, 0);
            continue;
        }
        *len = cp->len;
        if (cp->len > cap) {
            set_err(w, "wire_recv: frame of %u bytes does not fit a %zu-byte buffer (port %u)", cp->len, cap, port);
            return WIRE_ERR_CAP;
        }
        memcpy(buf, w->arena + (size_t)c * w->cfg.max_frame, cp->len);
        if (info) {
            info->seq = cp->seq;
            info->src_port = cp->src;
            info->flags = cp->flags;
            info->bits_flipped = cp->bits;
            info->sent_cycle = cp->sent_cycle;
            info->due_cycle = cp->due;
        }
        if (w->any_out[port] && cp->seq < w->max_seq_out[port]) w->st.out_of_order++;
        if (!w->any_out[port] || cp->seq > w->max_seq_out[port]) w->max_seq_out[port] = cp->seq;
        w->any_out[port] = true;
        w->st.delivered++;
        w->st.delivered_bytes += cp->len;
        if (w->pc_deliv) pcap_write(w->pc_deliv, buf, cp->len, cp->due * w->cfg.ns_per_cycle);
        heap_pop(w, port);
        slot_free(w, c);
        return 1;
    }
    return 0;
}

int wire_recv(wire_t *w, unsigned port, uint8_t *buf, size_t cap, size_t *len, uint64_t now) {
    return wire_recv_ex(w, port, buf, cap, len, now, NULL);
}

int wire_pause(wire_t *w, uint64_t start, uint64_t end, wire_pause_mode_t mode, uint64_t port_mask) {
    if (end <= start || (mode != WIRE_PAUSE_DROP && mode != WIRE_PAUSE_HOLD)) {
        set_err(w, "wire_pause: empty window [%llu, %llu) or bad mode %d", (unsigned long long)start,
                (unsigned long long)end, (int)mode);
        return WIRE_ERR_CONFIG;
    }
    if (w->npause >= WIRE_MAX_PAUSE) {
        set_err(w, "wire_pause: already %u windows (WIRE_MAX_PAUSE)", WIRE_MAX_PAUSE);
        return WIRE_ERR_CONFIG;
    }
    w->pause[w->npause++] = (wire_pause_t){start, end, mode, port_mask};
    return WIRE_OK;
}

uint64_t wire_next_due(const wire_t *w, unsigned port) {
    if (port >= w->nports || !w->heap_n[port]) return UINT64_MAX;
    return w->copies[w->heap[port][0]].due;
}
uint64_t wire_tx_free(const wire_t *w, unsigned port) { return port < w->nports ? w->tx_free[port] : 0; }
unsigned wire_in_flight(const wire_t *w) { return w->cfg.pool_frames - w->nfree; }
unsigned wire_pool_free(const wire_t *w) { return w->nfree; }
bool wire_tx_ready(const wire_t *w, unsigned port, uint64_t now, uint32_t fifo_bytes) {
    if (port >= w->nports) return false;
    uint64_t backlog = w->tx_free[port] > now ? w->tx_free[port] - now : 0;
    return backlog * w->cfg.bytes_per_cycle <= fifo_bytes;
}
const wire_stats_t *wire_stats(const wire_t *w) { return &w->st; }
unsigned wire_nports(const wire_t *w) { return w->nports; }
