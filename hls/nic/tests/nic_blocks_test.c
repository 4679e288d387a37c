/* nic_blocks_test — native cycle tests of rx_dispatch and tx_arb (docs/rx_dispatch.md,
 * docs/tx_arb.md). Prints one PASS/FAIL line per check; exit status 1 on any failure.
 *
 * rx_dispatch: packets of every RC opcode, built by roce_tx, some corrupted, some for no
 * configured function, some longer than 4096 bytes, go through roce_rx into rx_dispatch
 * with random input gaps and output back-pressure; each packet must come out on the
 * right port with its exact header, function and payload, the others must be dropped
 * and counted.
 * tx_arb: two sources offer tagged packets at random; the merged descriptor and payload
 * streams must carry the same packets in the same order, each packet's beats intact,
 * alternating while both wait, with the stream rule (a stalled beat does not change); and
 * against a requester that never stops sending 4096-byte packets, every responder packet
 * (ACK or READ response) waits at most one requester packet. */
#include "../../packet/roce_rx.c"
#include "../../packet/roce_tx.c"
#include "../rx_dispatch.c"
#include "../tx_arb.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static bool chance(int pct) { return (int)(rnd() % 100) < pct; }

/* ---------------------------------------------------------------- rx_dispatch */
#define NPKT 400
#define MAXPAY 5000
typedef struct {
    roce_hdr_t h;
    uint8_t pay[MAXPAY];
    uint8_t frame[MAXPAY + 128];
    size_t flen;
    int expect;  /* 0 responder, 1 completer, 2 bad, 3 addr, 4 len */
    int fn;
    int got;     /* times seen at an output */
} rpkt_t;
static rpkt_t P[NPKT];

static const uint64_t FN_MAC[2] = {0x02aabbcc0001ull, 0x02aabbcc0002ull};
static const uint32_t FN_IP[2] = {0x0a000001, 0x0a000002};

static size_t build_frame(const roce_hdr_t *h, const uint8_t *pay, uint8_t *f) {
    roce_tx_state st = {0};
    size_t n = 0, sent = 0, nb = ((size_t)h->payload_len + 63) / 64;
    for (int cyc = 0; cyc < 1000; cyc++) {
        roce_tx_in in = {0};
        roce_tx_out out = {0};
        in.desc.valid = true;
        in.desc.data = *h;
        if (sent < nb) {
            size_t b = h->payload_len - 64 * sent;
            b = b > 64 ? 64 : b;
            in.pay.valid = true;
            for (size_t i = 0; i < b; i++) in.pay.data.data |= (hls_u512)pay[64 * sent + i] << (8 * i);
            in.pay.data.bytes = (hls_uint(7))b;
            in.pay.data.last = sent + 1 == nb;
        }
        in.frame_ready = true;
        hls_edge_queue_bind(edges);
        roce_tx(&in, &out, &st);
        hls_clock_edge(edges);
        if (out.pay_ready && in.pay.valid) sent++;
        if (out.frame.valid) {
            for (unsigned i = 0; i < out.frame.data.bytes; i++)
                f[n++] = (uint8_t)(out.frame.data.data >> (8 * i));
            if (out.frame.data.last) return n;
        }
    }
    return 0;
}

static void make_packets(void) {
    static const uint8_t ops[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
                                  0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14};
    for (int i = 0; i < NPKT; i++) {
        rpkt_t *p = &P[i];
        roce_hdr_t *h = &p->h;
        memset(h, 0, sizeof *h);
        uint8_t op = ops[rnd() % sizeof ops];
        uint8_t ext = roce_ext(op);
        int kind = (int)(rnd() % 10); /* 0..5 good, 6 corrupt, 7 other address, 8 wrong MAC, 9 big */
        p->fn = (int)(rnd() % 2);
        h->dst_mac = FN_MAC[p->fn];
        h->src_mac = 0x02000000beefull;
        h->src_ip = 0x0a0000fe;
        h->dst_ip = FN_IP[p->fn];
        h->ttl = 64;
        h->dscp = (hls_uint(6))(rnd() & 63);
        h->ip_id = (uint16_t)rnd();
        h->udp_sport = (uint16_t)(0xc000 | rnd());
        h->opcode = op;
        h->se = rnd() & 1;
        h->pkey = 0xffff;
        h->dest_qp = (hls_u24)(rnd() & 0xffffff);
        h->ack_req = rnd() & 1;
        h->psn = (hls_u24)(rnd() & 0xffffff);
        if (ext & ROCE_EXT_RETH) { h->reth_va = rnd(); h->reth_rkey = (uint32_t)rnd(); h->reth_len = (uint32_t)rnd(); }
        if (ext & ROCE_EXT_AETH) { h->aeth_syndrome = (uint8_t)rnd(); h->aeth_msn = (hls_u24)(rnd() & 0xffffff); }
        if (ext & ROCE_EXT_ATOMIC) { h->atomic_va = rnd(); h->atomic_rkey = (uint32_t)rnd(); h->atomic_swap_add = rnd(); h->atomic_cmp = rnd(); }
        if (ext & ROCE_EXT_ATOMICACK) h->atomic_orig = rnd();
        if (ext & ROCE_EXT_IMM) h->imm = (uint32_t)rnd();
        unsigned len = 0;
        if (ext & ROCE_EXT_PAYLOAD) {
            static const unsigned lens[] = {0, 1, 3, 63, 64, 65, 256, 1000, 4095, 4096};
            len = chance(50) ? lens[rnd() % 10] : (unsigned)(rnd() % 1500);
            if (kind == 9) len = 4097 + (unsigned)(rnd() % 800);
        } else if (kind == 9) {
            kind = 0;
        }
        h->payload_len = (hls_uint(14))len;
        h->pad = (hls_uint(2))((4 - (len & 3)) & 3); /* what roce_rx reports */
        for (unsigned k = 0; k < len; k++) p->pay[k] = (uint8_t)rnd();
        if (kind == 7) h->dst_ip = 0x0a000063;
        if (kind == 8) h->dst_mac = FN_MAC[1 - p->fn];
        p->flen = build_frame(h, p->pay, p->frame);
        if (kind == 6) p->frame[p->flen - 1 - rnd() % 4] ^= 0x10; /* ICRC byte: BAD_ICRC */
        bool resp = op >= 0x0d && op <= 0x12;
        p->expect = kind == 6 ? 2 : kind == 9 ? 4 : (kind == 7 || kind == 8) ? 3 : resp ? 1 : 0;
    }
}

static bool hdr_eq(const roce_hdr_t *a, const roce_hdr_t *b) {
#define F(x) (a->x == b->x)
    return F(dst_mac) && F(src_mac) && F(src_ip) && F(dst_ip) && F(ttl) && F(dscp) && F(ecn) &&
           F(ip_id) && F(udp_sport) && F(opcode) && F(se) && F(migreq) && F(pad) && F(tver) &&
           F(pkey) && F(fecn) && F(becn) && F(dest_qp) && F(ack_req) && F(psn) && F(reth_va) &&
           F(reth_rkey) && F(reth_len) && F(aeth_syndrome) && F(aeth_msn) && F(atomic_va) &&
           F(atomic_rkey) && F(atomic_swap_add) && F(atomic_cmp) && F(atomic_orig) && F(imm) &&
           F(payload_len);
#undef F
}

/* One output port's receiver: takes a packet descriptor, then its beats. */
typedef struct {
    int cur;          /* packet index being received, -1 none */
    unsigned off;     /* payload bytes received */
    int next;         /* the next packet of this port in send order */
    char err[200];
} port_rx_t;

static int find_next(int from, int port) {
    for (int i = from; i < NPKT; i++)
        if (P[i].expect == port) return i;
    return NPKT;
}

static void port_take_pkt(port_rx_t *r, int port, const nic_rx_pkt_t *pk) {
    if (r->err[0]) return;
    if (r->cur >= 0) { snprintf(r->err, sizeof r->err, "packet before the payload of packet %d ended", r->cur); return; }
    int i = r->next;
    if (i >= NPKT) { snprintf(r->err, sizeof r->err, "unexpected extra packet on port %d", port); return; }
    if (!hdr_eq(&pk->hdr, &P[i].h) || pk->fn != P[i].fn) {
        snprintf(r->err, sizeof r->err, "packet %d: header or fn differs (opcode %u psn %u)", i,
                 (unsigned)pk->hdr.opcode, (unsigned)pk->hdr.psn);
        return;
    }
    P[i].got++;
    r->next = find_next(i + 1, port);
    if (P[i].h.payload_len) { r->cur = i; r->off = 0; }
}

static void port_take_beat(port_rx_t *r, const nic_beat_t *b) {
    if (r->err[0]) return;
    if (r->cur < 0) { snprintf(r->err, sizeof r->err, "payload beat without a packet"); return; }
    rpkt_t *p = &P[r->cur];
    unsigned left = p->h.payload_len - r->off, want = left > 64 ? 64 : left;
    if (b->bytes != want || b->last != (left <= 64)) {
        snprintf(r->err, sizeof r->err, "packet %d: beat bytes %u last %d, want %u %d", r->cur,
                 (unsigned)b->bytes, b->last, want, left <= 64);
        return;
    }
    for (unsigned k = 0; k < want; k++)
        if ((uint8_t)(b->data >> (8 * k)) != p->pay[r->off + k]) {
            snprintf(r->err, sizeof r->err, "packet %d: payload byte %u differs", r->cur, r->off + k);
            return;
        }
    r->off += want;
    if (b->last) r->cur = -1;
}

/* rx_dispatch keeps "queue full" and "ring full" as registers of their own (for timing);
 * each must equal what the pointers say, every cycle. Counts the cycles each was set. */
static struct {
    bool ok;
    unsigned queue_full, ring_full;
    char why[160];
} full_flags = {.ok = true};

static void check_full_flags(const rx_dispatch_state *d, unsigned long long cyc) {
    const rxd_class_t *c[2] = {&d->req, &d->resp};
    for (unsigned k = 0; k < 2; k++) {
        bool q = (hls_uint(RXD_QUEUE_BITS + 1))(c[k]->qw - c[k]->qr) == RXD_QUEUE;
        bool r = (hls_uint(RXD_RING_BITS + 1))(c[k]->wp - c[k]->rp) == RXD_RING;
        full_flags.queue_full += q;
        full_flags.ring_full += r;
        if (full_flags.ok && (q != c[k]->queue_full || r != c[k]->ring_full)) {
            full_flags.ok = false;
            snprintf(full_flags.why, sizeof full_flags.why, "cycle %llu, %s: queue_full %d (pointers %d), ring_full %d (pointers %d)",
                     cyc, k ? "resp" : "req", c[k]->queue_full, q, c[k]->ring_full, r);
        }
    }
}

static void test_rx_dispatch(void) {
    make_packets();
    static roce_rx_state rx;
    static rx_dispatch_state d;
    memset(&rx, 0, sizeof rx);
    memset(&d, 0, sizeof d);
    port_rx_t pr[2] = {{.cur = -1, .next = find_next(0, 0)}, {.cur = -1, .next = find_next(0, 1)}};
    int cfg_sent = 0;
    int fi = 0;
    size_t fo = 0;
    bool stab_ok = true;
    rx_dispatch_out prev = {0};
    bool prev_stall[4] = {0};
    uint64_t cyc;
    for (cyc = 0; cyc < 2000000; cyc++) {
        roce_rx_in rin = {0};
        roce_rx_out rout = {0};
        /* frames, one beat per cycle with random gaps */
        if (fi < NPKT && cfg_sent == 3 && !chance(20)) {
            size_t b = P[fi].flen - fo > 64 ? 64 : P[fi].flen - fo;
            rin.frame.valid = true;
            for (size_t k = 0; k < b; k++) rin.frame.data.data |= (hls_u512)P[fi].frame[fo + k] << (8 * k);
            rin.frame.data.bytes = (hls_uint(7))b;
            rin.frame.data.last = fo + b == P[fi].flen;
        }
        /* roce_rx -> rx_dispatch directly (a FIFO would only add latency) */
        rx_dispatch_in din = {0};
        rx_dispatch_out dout = {0};
        /* ready of rx_dispatch depends on the offered data: evaluate roce_rx's outputs first
         * with the readies it needs; roce_rx's desc/pay valids come from registers */
        roce_rx_state rx_save = rx;
        roce_rx(&rin, &rout, &rx);
        rx = rx_save;
        din.rx_desc.valid = rout.desc.valid;
        din.rx_desc.data = rout.desc.data;
        din.rx_pay.valid = rout.pay.valid;
        din.rx_pay.data = rout.pay.data;
        if (cfg_sent < 3) { /* SET_FN for fn 0 and 1, and fn 3 set then removed */
            din.cfg.valid = true;
            din.cfg.data.kind = NIC_CFG_FN;
            din.cfg.data.fn = (nic_fn_t)(cfg_sent == 2 ? 3 : cfg_sent);
            din.cfg.data.valid = cfg_sent < 2;
            din.cfg.data.mac = cfg_sent < 2 ? FN_MAC[cfg_sent] : 0;
            din.cfg.data.ip = cfg_sent < 2 ? FN_IP[cfg_sent] : 0x0a000063;
        }
        din.req_pkt_ready = !chance(30);
        din.req_pay_ready = !chance(30);
        din.resp_pkt_ready = !chance(30);
        din.resp_pay_ready = !chance(30);
        hls_edge_queue_bind(edges); /* rx_dispatch and roce_rx share one clock: one queue */
        rx_dispatch(&din, &dout, &d);
        check_full_flags(&d, cyc);
        /* stream rule on our outputs: a beat offered and not taken stays unchanged */
        bool stall_now[4] = {dout.req_pkt.valid && !din.req_pkt_ready, dout.req_pay.valid && !din.req_pay_ready,
                             dout.resp_pkt.valid && !din.resp_pkt_ready, dout.resp_pay.valid && !din.resp_pay_ready};
        if (prev_stall[0] && (!dout.req_pkt.valid || !hdr_eq(&dout.req_pkt.data.hdr, &prev.req_pkt.data.hdr))) stab_ok = false;
        if (prev_stall[1] && (!dout.req_pay.valid || dout.req_pay.data.data != prev.req_pay.data.data)) stab_ok = false;
        if (prev_stall[2] && (!dout.resp_pkt.valid || !hdr_eq(&dout.resp_pkt.data.hdr, &prev.resp_pkt.data.hdr))) stab_ok = false;
        if (prev_stall[3] && (!dout.resp_pay.valid || dout.resp_pay.data.data != prev.resp_pay.data.data)) stab_ok = false;
        memcpy(prev_stall, stall_now, sizeof prev_stall);
        prev = dout;
        rin.desc_ready = dout.rx_desc_ready;
        rin.pay_ready = dout.rx_pay_ready;
        memset(&rout, 0, sizeof rout);
        roce_rx(&rin, &rout, &rx);
        hls_clock_edge(edges);
        if (din.cfg.valid && dout.cfg_ready) cfg_sent++;
        if (rin.frame.valid && rout.frame_ready) {
            fo += rin.frame.data.bytes;
            if (fo == P[fi].flen) { fi++; fo = 0; }
        }
        if (dout.req_pkt.valid && din.req_pkt_ready) port_take_pkt(&pr[0], 0, &dout.req_pkt.data);
        if (dout.req_pay.valid && din.req_pay_ready) port_take_beat(&pr[0], &dout.req_pay.data);
        if (dout.resp_pkt.valid && din.resp_pkt_ready) port_take_pkt(&pr[1], 1, &dout.resp_pkt.data);
        if (dout.resp_pay.valid && din.resp_pay_ready) port_take_beat(&pr[1], &dout.resp_pay.data);
        if (fi == NPKT && pr[0].next == NPKT && pr[1].next == NPKT && pr[0].cur < 0 && pr[1].cur < 0 &&
            d.req.phase == FWD_IDLE && d.resp.phase == FWD_IDLE && d.req.qw == d.req.qr && d.resp.qw == d.resp.qr &&
            !d.held_valid && !rout.desc.valid)
            break;
    }
    int n[5] = {0};
    for (int i = 0; i < NPKT; i++) n[P[i].expect]++;
    char why[300];
    snprintf(why, sizeof why, "%s / %s", pr[0].err[0] ? pr[0].err : "-", pr[1].err[0] ? pr[1].err : "-");
    check(!pr[0].err[0] && !pr[1].err[0], "rx_dispatch routes every packet with exact header, fn, payload", why);
    snprintf(why, sizeof why, "stopped at cycle %llu: frame %d, next req %d, next resp %d",
             (unsigned long long)cyc, fi, pr[0].next, pr[1].next);
    check(fi == NPKT && pr[0].next == NPKT && pr[1].next == NPKT, "rx_dispatch delivers all good packets", why);
    int dup = 0;
    for (int i = 0; i < NPKT; i++) dup += (P[i].expect >= 2) ? P[i].got : P[i].got != 1;
    check(dup == 0, "rx_dispatch forwards each good packet once and no dropped one", "a packet seen 0 or 2+ times");
    rx_dispatch_out o = {0};
    rx_dispatch_in z = {0};
    hls_edge_queue_bind(edges);
    rx_dispatch(&z, &o, &d);
    hls_clock_edge(edges);
    snprintf(why, sizeof why, "got req %u resp %u bad %u addr %u len %u, want %d %d %d %d %d", o.to_responder,
             o.to_completer, o.dropped_bad, o.dropped_addr, o.dropped_len, n[0], n[1], n[2], n[3], n[4]);
    check(o.to_responder == (unsigned)n[0] && o.to_completer == (unsigned)n[1] && o.dropped_bad == (unsigned)n[2] &&
              o.dropped_addr == (unsigned)n[3] && o.dropped_len == (unsigned)n[4] && n[2] && n[3] && n[4],
          "rx_dispatch counters", why);
    check(stab_ok, "rx_dispatch holds a stalled output beat unchanged", "a stalled beat changed or was withdrawn");
    check(d.req.wp == d.req.rp && d.resp.wp == d.resp.rp, "rx_dispatch rings empty at the end", "beats left in a ring");
}

/* Requests and responses take separate paths: with the responder taking nothing, a
 * request with a full 4096-byte payload and one without, then READ responses of 4096 bytes
 * (more beats than a ring holds) and ACKs, every response comes out with its payload; the
 * requests follow, intact, once the responder takes again. rx_dispatch is fed directly. */
static void test_rx_paths_independent(void) {
    enum { NRESP = 24, NREQ = 2 };
    static rx_dispatch_state d;
    memset(&d, 0, sizeof d);
    roce_rx_desc_t desc[NREQ + NRESP];
    unsigned n = 0;
    for (unsigned i = 0; i < NREQ + NRESP; i++) {
        roce_rx_desc_t x = {0};
        bool resp = i >= NREQ;
        x.hdr.opcode = !resp ? ROCE_OP_SEND_ONLY : (i & 1) ? ROCE_OP_READ_RESPONSE_MIDDLE : ROCE_OP_ACKNOWLEDGE;
        x.hdr.payload_len = (hls_uint(14))(i == 0 || x.hdr.opcode == ROCE_OP_READ_RESPONSE_MIDDLE ? 4096 : 0);
        x.hdr.dst_mac = FN_MAC[0];
        x.hdr.dst_ip = FN_IP[0];
        x.hdr.psn = (hls_u24)i;
        desc[n++] = x;
    }
    unsigned di = 0, bi = 0;            /* next descriptor; next beat of descriptor di */
    unsigned got_beats[2] = {0}, got_pkts[2] = {0}, bad = 0, resp_done_at = 0;
    bool cfg_sent = false;
    for (unsigned cyc = 0; cyc < 20000; cyc++) {
        rx_dispatch_in in = {0};
        rx_dispatch_out out = {0};
        in.cfg.valid = !cfg_sent;
        in.cfg.data = (nic_cfg_t){.kind = NIC_CFG_FN, .fn = 0, .mac = FN_MAC[0], .ip = FN_IP[0], .valid = true};
        /* each frame's beats, then its descriptor (roce_rx's order) */
        unsigned nb = di < n ? ((unsigned)desc[di].hdr.payload_len + 63) / 64 : 0;
        in.rx_pay.valid = di < n && bi < nb;
        in.rx_pay.data.beat.data = ((hls_u512)di << 16) | bi;
        in.rx_pay.data.beat.bytes = 64;
        in.rx_pay.data.beat.last = bi + 1 == nb;
        in.rx_pay.data.resp = di < n && roce_op_is_response(desc[di].hdr.opcode);
        in.rx_desc.valid = di < n && bi == nb;
        if (di < n) in.rx_desc.data = desc[di];
        in.req_pkt_ready = in.req_pay_ready = resp_done_at != 0;   /* the responder takes nothing until then */
        in.resp_pkt_ready = in.resp_pay_ready = true;
        in.ev_ready = true;
        hls_edge_queue_bind(edges);
        rx_dispatch(&in, &out, &d);
        hls_clock_edge(edges);
        check_full_flags(&d, cyc);
        cfg_sent |= out.cfg_ready;
        if (in.rx_pay.valid && out.rx_pay_ready) bi++;
        if (in.rx_desc.valid && out.rx_desc_ready) di++, bi = 0;
        const HLS_STREAM(nic_rx_pkt_t) *pk[2] = {(void *)&out.req_pkt, (void *)&out.resp_pkt};
        const HLS_STREAM(nic_beat_t) *py[2] = {(void *)&out.req_pay, (void *)&out.resp_pay};
        bool pr[2] = {in.req_pkt_ready, in.resp_pkt_ready};
        for (unsigned p = 0; p < 2; p++) {
            if (pk[p]->valid && pr[p]) {
                unsigned want = p ? NREQ + got_pkts[1] : got_pkts[0];
                if ((unsigned)pk[p]->data.hdr.psn != want) bad++;
                got_pkts[p]++;
            }
            if (py[p]->valid && pr[p]) {
                unsigned tag = (unsigned)(py[p]->data.data >> 16);
                if (tag >= n || roce_op_is_response(desc[tag].hdr.opcode) != (p == 1)) bad++;
                got_beats[p]++;
            }
        }
        if (!resp_done_at && got_pkts[1] == NRESP && got_beats[1] == NRESP / 2 * 64) resp_done_at = cyc;
        if (got_pkts[0] == NREQ && got_beats[0] == 64) break;
    }
    char why[200];
    snprintf(why, sizeof why, "responses %u (of %u), their beats %u (of %u), %u out of order or on the wrong port",
             got_pkts[1], NRESP, got_beats[1], NRESP / 2 * 64, bad);
    check(resp_done_at != 0 && bad == 0, "rx_dispatch: every response passes requests the responder does not take", why);
    snprintf(why, sizeof why, "requests %u (of %u), beats %u (of 64)", got_pkts[0], NREQ, got_beats[0]);
    check(got_pkts[0] == NREQ && got_beats[0] == 64 && bad == 0, "rx_dispatch: the held requests follow, intact", why);
}

/* ---------------------------------------------------------------- tx_arb */
#define APKT 300
typedef struct { roce_hdr_t h; unsigned sent_beats; bool desc_sent; } apkt_t;

static void test_tx_arb(void) {
    static apkt_t src[2][APKT];
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < APKT; i++) {
            memset(&src[s][i], 0, sizeof src[s][i]);
            roce_hdr_t *h = &src[s][i].h;
            h->opcode = s ? ROCE_OP_ACKNOWLEDGE : ROCE_OP_SEND_ONLY;
            h->psn = (hls_u24)i;
            h->dest_qp = (hls_u24)s;
            h->payload_len = (hls_uint(14))(chance(20) ? 0 : rnd() % 700);
        }
    int next[2] = {0, 0};     /* next packet each source offers */
    int out_desc = 0;         /* descriptors seen at the output */
    int pay_src = -1, pay_pkt = -1;
    unsigned pay_off = 0;
    int order[2 * APKT][2];   /* (source, packet) of each output descriptor */
    int porder = 0;           /* packets whose payload was seen, in order */
    int pord[2 * APKT][2];
    char err[200] = "";
    tx_arb_state st = {0};
    bool both_wait_alternate = true;
    int last_src = -1, both_cnt = 0;
    tx_arb_out prev = {0};
    bool prev_dstall = false, prev_pstall = false, stab_ok = true;
    bool held[2] = {false, false}; /* a source's payload beat offered and not yet taken stays */
    uint64_t cyc;
    for (cyc = 0; cyc < 500000 && (next[0] < APKT || next[1] < APKT || st.busy); cyc++) {
        tx_arb_in in = {0};
        tx_arb_out out = {0};
        bool offer_desc[2], offer_pay[2];
        for (int s = 0; s < 2; s++) {
            apkt_t *p = next[s] < APKT ? &src[s][next[s]] : NULL;
            offer_desc[s] = p && !p->desc_sent;
            unsigned nb = p ? ((unsigned)p->h.payload_len + 63) / 64 : 0;
            offer_pay[s] = p && p->sent_beats < nb && (held[s] || !chance(20));
            roce_hdr_t hd = p ? p->h : (roce_hdr_t){0};
            nic_beat_t b = {0};
            if (offer_pay[s]) {
                unsigned left = p->h.payload_len - 64 * p->sent_beats;
                b.data = ((hls_u512)(unsigned)s << 32) | ((hls_u512)(unsigned)next[s] << 8) | p->sent_beats;
                b.bytes = (hls_uint(7))(left > 64 ? 64 : left);
                b.last = left <= 64;
            }
            if (s == 0) { in.a_desc.valid = offer_desc[0]; in.a_desc.data = hd; in.a_pay.valid = offer_pay[0]; in.a_pay.data = b; }
            else { in.b_desc.valid = offer_desc[1]; in.b_desc.data = hd; in.b_pay.valid = offer_pay[1]; in.b_pay.data = b; }
        }
        in.tx_desc_ready = !chance(40);
        in.tx_pay_ready = !chance(30);
        bool was_idle = !st.busy;
        hls_edge_queue_bind(edges);
        tx_arb(&in, &out, &st);
        hls_clock_edge(edges);
        if (prev_dstall && (!out.tx_desc.valid || out.tx_desc.data.psn != prev.tx_desc.data.psn ||
                            out.tx_desc.data.dest_qp != prev.tx_desc.data.dest_qp)) stab_ok = false;
        if (prev_pstall && (!out.tx_pay.valid || out.tx_pay.data.data != prev.tx_pay.data.data)) stab_ok = false;
        prev_dstall = out.tx_desc.valid && !in.tx_desc_ready;
        prev_pstall = out.tx_pay.valid && !in.tx_pay_ready;
        prev = out;
        if (was_idle && offer_desc[0] && offer_desc[1]) {
            int w = st.grant_b;
            if (both_cnt++ && w == last_src) both_wait_alternate = false;
        }
        if (was_idle && (offer_desc[0] || offer_desc[1])) last_src = st.grant_b;
        /* the sources see their readies */
        bool dr[2] = {out.a_desc_ready, out.b_desc_ready}, prd[2] = {out.a_pay_ready, out.b_pay_ready};
        for (int s = 0; s < 2; s++) {
            held[s] = offer_pay[s] && !prd[s];
            if (offer_pay[s] && prd[s]) src[s][next[s]].sent_beats++;
            if (offer_desc[s] && dr[s]) src[s][next[s]].desc_sent = true;
            apkt_t *p = next[s] < APKT ? &src[s][next[s]] : NULL;
            if (p && p->desc_sent && p->sent_beats == ((unsigned)p->h.payload_len + 63) / 64) next[s]++;
        }
        /* the sink records what it got */
        if (out.tx_desc.valid && in.tx_desc_ready && out_desc < 2 * APKT) {
            order[out_desc][0] = (int)out.tx_desc.data.dest_qp;
            order[out_desc][1] = (int)out.tx_desc.data.psn;
            out_desc++;
        }
        if (out.tx_pay.valid && in.tx_pay_ready && !err[0]) {
            int s = (int)(uint32_t)(out.tx_pay.data.data >> 32), pk = (int)(uint32_t)((out.tx_pay.data.data >> 8) & 0xffffff);
            unsigned bi = (unsigned)(out.tx_pay.data.data & 0xff);
            if (pay_pkt < 0) {
                if (bi != 0) snprintf(err, sizeof err, "payload of src %d pkt %d starts at beat %u", s, pk, bi);
                pay_src = s; pay_pkt = pk; pay_off = 0;
                pord[porder][0] = s; pord[porder][1] = pk; porder++;
            } else if (s != pay_src || pk != pay_pkt || bi != pay_off) {
                snprintf(err, sizeof err, "beats interleaved: src %d pkt %d beat %u inside src %d pkt %d", s, pk, bi, pay_src, pay_pkt);
            }
            pay_off++;
            if (out.tx_pay.data.last) pay_pkt = -1;
        }
    }
    check(!err[0], "tx_arb keeps each packet's payload beats together", err);
    /* payload order must equal descriptor order, restricted to packets with payload */
    bool same = out_desc == 2 * APKT;
    int k = 0;
    for (int i = 0; same && i < out_desc; i++) {
        apkt_t *p = &src[order[i][0]][order[i][1]];
        if (!p->h.payload_len) continue;
        same = k < porder && pord[k][0] == order[i][0] && pord[k][1] == order[i][1];
        k++;
    }
    same = same && k == porder;
    char why[120];
    snprintf(why, sizeof why, "%d descriptors, %d payloads, cycle %llu", out_desc, porder, (unsigned long long)cyc);
    check(same, "tx_arb: descriptor order equals payload order, all packets out", why);
    bool inorder = true;
    int seen[2] = {0, 0};
    for (int i = 0; i < out_desc; i++) inorder &= order[i][1] == seen[order[i][0]]++;
    check(inorder, "tx_arb keeps each source's packets in order", "a source's packets reordered");
    snprintf(why, sizeof why, "%d contended grants", both_cnt);
    check(both_wait_alternate && both_cnt > 20, "tx_arb alternates when both sources wait", why);
    check(stab_ok, "tx_arb holds a stalled output beat unchanged", "a stalled beat changed");
    tx_arb_in z = {0};
    tx_arb_out o = {0};
    tx_arb(&z, &o, &st);   /* a packet counts one cycle after its descriptor passed */
    tx_arb(&z, &o, &st);
    snprintf(why, sizeof why, "sent_a %u sent_b %u", o.sent_a, o.sent_b);
    check(o.sent_a == APKT && o.sent_b == APKT, "tx_arb counters", why);
}

/* A requester that saturates the link with 4096-byte packets (64 beats each, always offered)
 * must not starve the responder: each responder packet is granted within one requester
 * packet (64 beats) plus the grant cycle, and the requester keeps going in between. */
static void test_tx_arb_no_starvation(void) {
    tx_arb_state st = {0};
    unsigned a_beats_left = 0, b_beats_left = 0; /* beats of the packet whose descriptor went out */
    bool b_waiting = false, b_desc_out = false;
    unsigned b_len = 0, wait = 0, max_wait = 0, b_sent = 0, a_sent = 0;
    for (unsigned cyc = 0; cyc < 200000; cyc++) {
        if (!b_waiting && b_beats_left == 0 && chance(2)) { /* an ACK, or a READ response of 1 KiB */
            b_waiting = true; b_desc_out = false; wait = 0;
            b_len = chance(50) ? 0 : 1024;
        }
        tx_arb_in in = {0};
        tx_arb_out out = {0};
        in.a_desc.valid = a_beats_left == 0;   /* the next 4096-byte packet is always there */
        in.a_desc.data.opcode = ROCE_OP_RDMA_WRITE_MIDDLE;
        in.a_desc.data.payload_len = 4096;
        in.a_pay.valid = true;                 /* and so are its beats */
        in.a_pay.data.bytes = 64;
        in.a_pay.data.last = a_beats_left == 1;
        in.b_desc.valid = b_waiting && !b_desc_out;
        in.b_desc.data.opcode = b_len ? ROCE_OP_READ_RESPONSE_ONLY : ROCE_OP_ACKNOWLEDGE;
        in.b_desc.data.payload_len = (hls_uint(14))b_len;
        in.b_pay.valid = b_beats_left != 0;
        in.b_pay.data.bytes = 64;
        in.b_pay.data.last = b_beats_left == 1;
        in.tx_desc_ready = true;
        in.tx_pay_ready = true;
        hls_edge_queue_bind(edges);
        tx_arb(&in, &out, &st);
        hls_clock_edge(edges);
        if (out.a_desc_ready) { a_beats_left = 64; a_sent++; }
        bool b_beat = in.b_pay.valid && out.b_pay_ready;  /* before the descriptor updates the count */
        if (out.a_pay_ready && a_beats_left) a_beats_left--;
        if (out.b_desc_ready) {
            b_desc_out = true; b_beats_left = (b_len + 63) / 64; b_sent++;
            if (wait > max_wait) max_wait = wait;
        }
        if (b_beat) b_beats_left--;
        if (b_waiting && b_desc_out && b_beats_left == 0) b_waiting = false;
        if (b_waiting && !b_desc_out) wait++;
    }
    char why[160];
    snprintf(why, sizeof why, "longest wait %u cycles (bound 65), responder packets %u, requester packets %u", max_wait,
             b_sent, a_sent);
    char name[160];
    snprintf(name, sizeof name, "tx_arb: a responder packet waits at most one requester packet (longest %u cycles)",
             max_wait);
    check(max_wait <= 65 && b_sent > 500 && a_sent > 1000, name, why);
}

/* The request class filled up: 20 requests without payload while the responder takes
 * nothing (the queue of 16 full, the rest wait), then four of 4096 bytes taken a beat every
 * fourth cycle (the ring of 128 beats full). Every request comes out once, in order, with
 * its own beats: what the full flags hold back is only delayed. */
static void test_rx_full(void) {
    enum { NSMALL = 20, NBIG = 4, N = NSMALL + NBIG };
    static rx_dispatch_state d;
    memset(&d, 0, sizeof d);
    roce_rx_desc_t desc[N];
    for (unsigned i = 0; i < N; i++) {
        roce_rx_desc_t x = {0};
        x.hdr.opcode = ROCE_OP_SEND_ONLY;
        x.hdr.payload_len = (hls_uint(14))(i < NSMALL ? 0 : 4096);
        x.hdr.dst_mac = FN_MAC[0];
        x.hdr.dst_ip = FN_IP[0];
        x.hdr.psn = (hls_u24)i;
        desc[i] = x;
    }
    unsigned di = 0, bi = 0, got_pkts = 0, got_beats = 0, bad = 0;
    unsigned queue_full_at = 0, ring_full_at = 0;
    bool cfg_sent = false;
    for (unsigned cyc = 0; cyc < 20000 && got_pkts + got_beats < N + NBIG * 64; cyc++) {
        rx_dispatch_in in = {0};
        rx_dispatch_out out = {0};
        in.cfg.valid = !cfg_sent;
        in.cfg.data = (nic_cfg_t){.kind = NIC_CFG_FN, .fn = 0, .mac = FN_MAC[0], .ip = FN_IP[0], .valid = true};
        /* frames once the function is set (a packet before it is dropped, not addressed) */
        unsigned nb = di < N ? ((unsigned)desc[di].hdr.payload_len + 63) / 64 : 0;
        in.rx_pay.valid = cfg_sent && di < N && bi < nb;
        in.rx_pay.data.beat.data = ((hls_u512)di << 16) | bi;
        in.rx_pay.data.beat.bytes = 64;
        in.rx_pay.data.beat.last = bi + 1 == nb;
        in.rx_desc.valid = cfg_sent && di < N && bi == nb;
        if (di < N) in.rx_desc.data = desc[di];
        in.req_pkt_ready = cyc >= 500;
        in.req_pay_ready = cyc >= 500 && cyc % 4 == 0;
        in.ev_ready = true;
        hls_edge_queue_bind(edges);
        rx_dispatch(&in, &out, &d);
        hls_clock_edge(edges);
        check_full_flags(&d, cyc);
        if (!queue_full_at && d.req.queue_full) queue_full_at = cyc;
        if (!ring_full_at && d.req.ring_full) ring_full_at = cyc;
        cfg_sent |= out.cfg_ready;
        if (in.rx_pay.valid && out.rx_pay_ready) bi++;
        if (in.rx_desc.valid && out.rx_desc_ready) di++, bi = 0;
        if (out.req_pkt.valid && in.req_pkt_ready) {
            if ((unsigned)out.req_pkt.data.hdr.psn != got_pkts) bad++;
            got_pkts++;
        }
        if (out.req_pay.valid && in.req_pay_ready) {
            unsigned tag = (unsigned)(out.req_pay.data.data >> 16), beat = (unsigned)(out.req_pay.data.data & 0xFFFF);
            if (tag != NSMALL + got_beats / 64 || beat != got_beats % 64) bad++;
            got_beats++;
        }
    }
    char why[200];
    snprintf(why, sizeof why, "queue full at cycle %u, ring full at %u; requests %u (of %u), beats %u (of %u), %u out of order",
             queue_full_at, ring_full_at, got_pkts, N, got_beats, NBIG * 64, bad);
    check(queue_full_at && ring_full_at && got_pkts == N && got_beats == NBIG * 64 && bad == 0,
          "rx_dispatch: a full request queue and a full ring only delay: every request once, in order, its beats intact", why);
}

int main(int argc, char **argv) {
    edges = hls_edge_queue_new();
    if (argc > 1) rs = strtoull(argv[1], NULL, 0);
    printf("seed 0x%llx\n", (unsigned long long)rs);
    test_rx_dispatch();
    test_rx_paths_independent();
    test_rx_full();
    {
        char why[200];
        snprintf(why, sizeof why, "%s (queue full %u cycles, ring full %u)", full_flags.ok ? "never seen full" : full_flags.why,
                 full_flags.queue_full, full_flags.ring_full);
        check(full_flags.ok && full_flags.queue_full && full_flags.ring_full,
              "rx_dispatch: queue_full and ring_full registers equal the pointers' fill every cycle (each seen set)", why);
    }
    test_tx_arb();
    test_tx_arb_no_starvation();
    return failures ? 1 : 0;
}
