/* roce_loop_test — native C-model test of roce_tx and roce_rx (docs/packet-path.md).
 *
 *  1. A deterministic seeded set of packets: every RC opcode, payload lengths 0, 1..4,
 *     63, 64, 65, 256, 1024, 4096 where the opcode carries payload, random fields, plus
 *     random extra packets.
 *  2. roce_tx with random gaps on both inputs and random back-pressure; every frame is
 *     compared byte for byte with a plain byte-wise reference builder (below, written
 *     from the spec independently of the HLS-C helpers) and written to a pcap, with the
 *     "opcode psn" expectation file for testbench/judges/tshark-check.
 *  3. The pcap is read back and fed to roce_rx (gaps, back-pressure): every field and
 *     every payload byte must round-trip, status OK.
 *  4. Corrupted frames (bit flips, wrong EtherType/port, bad IPv4 checksum, truncation,
 *     bad opcode) mixed with good ones: each must get the right status and counter;
 *     changes to ICRC-masked fields (FECN/BECN, UDP checksum) must still be OK.
 *  5. Throughput of both blocks without back-pressure.
 *  Also writes bad_icrc.pcap (one flipped ICRC bit) for the judges' negative test.
 *
 * Harness per docs/hls-c.md: zero the out struct, call f(), then hls_clock_edge(). The
 * blocks' sources are included here (their in/out/state types live in the .c files). */
#include "../roce_rx.c"
#include "../roce_tx.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../testbench/lib/pcap.h"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int fails, checks;
#define CHECK(c, ...)                                        \
    do {                                                     \
        checks++;                                            \
        if (!(c)) {                                          \
            if (fails < 30) {                                \
                printf("FAIL: %s: ", #c);                    \
                printf(__VA_ARGS__);                         \
                printf("\n");                                \
            }                                                \
            fails++;                                         \
        }                                                    \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int chance(int pct) { return (int)(rnd() % 100) < pct; }

/* ---------------------------------------------------------------- packets */
#define MAX_PKTS 512
#define MAX_FRAME 16512 /* the largest payload roce_rx accepts (16383) and its headers */
typedef struct {
    roce_hdr_t h;
    uint8_t *pay;
} pkt_t;

static pkt_t pkts[MAX_PKTS];
static int npkts;

static const uint8_t rc_ops[] = {
    ROCE_OP_SEND_FIRST, ROCE_OP_SEND_MIDDLE, ROCE_OP_SEND_LAST, ROCE_OP_SEND_LAST_IMM,
    ROCE_OP_SEND_ONLY, ROCE_OP_SEND_ONLY_IMM, ROCE_OP_RDMA_WRITE_FIRST, ROCE_OP_RDMA_WRITE_MIDDLE,
    ROCE_OP_RDMA_WRITE_LAST, ROCE_OP_RDMA_WRITE_LAST_IMM, ROCE_OP_RDMA_WRITE_ONLY,
    ROCE_OP_RDMA_WRITE_ONLY_IMM, ROCE_OP_RDMA_READ_REQUEST, ROCE_OP_READ_RESPONSE_FIRST,
    ROCE_OP_READ_RESPONSE_MIDDLE, ROCE_OP_READ_RESPONSE_LAST, ROCE_OP_READ_RESPONSE_ONLY,
    ROCE_OP_ACKNOWLEDGE, ROCE_OP_ATOMIC_ACKNOWLEDGE, ROCE_OP_COMPARE_SWAP, ROCE_OP_FETCH_ADD};
#define N_OPS (int)(sizeof rc_ops)

static void add_pkt(uint8_t op, unsigned len) {
    pkt_t *p = &pkts[npkts++];
    roce_hdr_t *h = &p->h;
    memset(h, 0, sizeof *h);
    uint8_t ext = roce_ext(op);
    h->dst_mac = rnd() & 0xFFFFFFFFFFFFull;
    h->src_mac = rnd() & 0xFEFFFFFFFFFFull; /* unicast source (tshark warns otherwise) */
    h->src_ip = (uint32_t)rnd();
    h->dst_ip = (uint32_t)rnd();
    h->ttl = (uint8_t)(2 + rnd() % 254); /* tshark notes TTL 0/1 */
    h->dscp = (hls_uint(6))rnd();
    h->ecn = (hls_uint(2))rnd();
    h->ip_id = (uint16_t)rnd();
    h->udp_sport = (uint16_t)(0xC000 | rnd());
    h->opcode = op;
    h->se = rnd() & 1;
    h->migreq = rnd() & 1;
    h->tver = 0; /* tshark checks nothing here, but 0 is the only defined version */
    h->pkey = (uint16_t)rnd();
    h->fecn = rnd() & 1;
    h->becn = rnd() & 1;
    h->dest_qp = (hls_u24)rnd();
    h->ack_req = rnd() & 1;
    h->psn = (hls_u24)rnd();
    if (ext & ROCE_EXT_RETH) {
        h->reth_va = rnd();
        h->reth_rkey = (uint32_t)rnd();
        h->reth_len = (uint32_t)rnd();
    }
    if (ext & ROCE_EXT_AETH) {
        h->aeth_syndrome = (uint8_t)rnd();
        h->aeth_msn = (hls_u24)rnd();
    }
    if (ext & ROCE_EXT_ATOMIC) {
        h->atomic_va = rnd();
        h->atomic_rkey = (uint32_t)rnd();
        h->atomic_swap_add = rnd();
        h->atomic_cmp = rnd();
    }
    if (ext & ROCE_EXT_ATOMICACK) h->atomic_orig = rnd();
    if (ext & ROCE_EXT_IMM) h->imm = (uint32_t)rnd();
    if (!(ext & ROCE_EXT_PAYLOAD)) len = 0;
    h->payload_len = (hls_uint(14))len;
    h->pad = (hls_uint(2))((4 - (len & 3)) & 3); /* what RX must report */
    p->pay = malloc(len ? len : 1);
    for (unsigned i = 0; i < len; i++) p->pay[i] = (uint8_t)rnd();
}

/* ----------------------------------------------- reference frame builder */
static uint32_t ref_crc(const uint8_t *b, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ ((c & 1) ? 0xEDB88320u : 0);
    }
    return ~c;
}
static void be(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}
/* ICRC of a frame of `len` bytes (ICRC included), as the RoCEv2 annex defines it. */
static uint32_t ref_icrc(const uint8_t *f, size_t len) {
    static uint8_t ps[MAX_FRAME + 8];
    memset(ps, 0xFF, 8);
    memcpy(ps + 8, f + 14, len - 14 - 4);
    ps[8 + 1] = 0xFF;                  /* ToS */
    ps[8 + 8] = 0xFF;                  /* TTL */
    ps[8 + 10] = ps[8 + 11] = 0xFF;    /* IPv4 checksum */
    ps[8 + 26] = ps[8 + 27] = 0xFF;    /* UDP checksum */
    ps[8 + 32] = 0xFF;                 /* BTH byte 4 */
    return ref_crc(ps, 8 + len - 18);
}
static size_t ref_build(const pkt_t *p, uint8_t *f) {
    const roce_hdr_t *h = &p->h;
    unsigned len = (unsigned)h->payload_len, pad = (4 - (len & 3)) & 3;
    uint8_t ext = roce_ext(h->opcode);
    size_t o = 54;
    memset(f, 0, 128);
    be(f, h->dst_mac, 6);
    be(f + 6, h->src_mac, 6);
    be(f + 12, 0x0800, 2);
    uint8_t *x = f + o;
    if (ext & ROCE_EXT_RETH) be(x, h->reth_va, 8), be(x + 8, h->reth_rkey, 4), be(x + 12, h->reth_len, 4), x += 16;
    if (ext & ROCE_EXT_ATOMIC)
        be(x, h->atomic_va, 8), be(x + 8, h->atomic_rkey, 4), be(x + 12, h->atomic_swap_add, 8),
            be(x + 20, h->atomic_cmp, 8), x += 28;
    if (ext & ROCE_EXT_AETH) x[0] = h->aeth_syndrome, be(x + 1, h->aeth_msn, 3), x += 4;
    if (ext & ROCE_EXT_ATOMICACK) be(x, h->atomic_orig, 8), x += 8;
    if (ext & ROCE_EXT_IMM) be(x, h->imm, 4), x += 4;
    memcpy(x, p->pay, len);
    x += len;
    memset(x, 0, pad);
    x += pad;
    size_t total = (size_t)(x - f) + 4;
    uint8_t *ip = f + 14;
    ip[0] = 0x45;
    ip[1] = (uint8_t)(((unsigned)h->dscp << 2) | (unsigned)h->ecn); /* _BitInt: widen before shifting */
    be(ip + 2, total - 14, 2);
    be(ip + 4, h->ip_id, 2);
    be(ip + 6, 0x4000, 2);
    ip[8] = h->ttl;
    ip[9] = 17;
    ip[10] = ip[11] = 0;
    be(ip + 12, h->src_ip, 4);
    be(ip + 16, h->dst_ip, 4);
    uint32_t s = 0;
    for (int i = 0; i < 20; i += 2) s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    be(ip + 10, (~s) & 0xFFFF, 2);
    uint8_t *u = f + 34;
    be(u, h->udp_sport, 2);
    be(u + 2, 4791, 2);
    be(u + 4, total - 34, 2);
    be(u + 6, 0, 2);
    uint8_t *b = f + 42;
    b[0] = h->opcode;
    b[1] = (uint8_t)(h->se << 7 | h->migreq << 6 | pad << 4 | h->tver);
    be(b + 2, h->pkey, 2);
    b[4] = (uint8_t)(h->fecn << 7 | h->becn << 6);
    be(b + 5, h->dest_qp, 3);
    b[8] = (uint8_t)(h->ack_req << 7);
    be(b + 9, h->psn, 3);
    uint32_t icrc = ref_icrc(f, total);
    for (int i = 0; i < 4; i++) f[total - 4 + i] = (uint8_t)(icrc >> (8 * i));
    return total;
}

/* --------------------------------------------------------------- TX run */
typedef struct {
    uint8_t *b;
    size_t len;
    uint64_t t_ns;
} frame_t;
static frame_t frames[MAX_PKTS + 64];

/* Runs every packet through roce_tx; returns cycles used. Checks the stream rules. */
static uint64_t run_tx(int gaps, int bp, uint64_t *beats_out) {
    static roce_tx_state st;
    memset(&st, 0, sizeof st);
    int di = 0, pi = 0, fi = 0;      /* next desc, payload packet, frame being received */
    unsigned po = 0;                 /* payload offset in packet pi */
    bool d_offer = false, p_offer = false;
    roce_tx_out prev_out = {0};
    bool prev_stall = false;
    static uint8_t cur[MAX_FRAME];
    size_t cur_len = 0;
    uint64_t cyc = 0, beats = 0;
    while (fi < npkts && cyc < 10000000) {
        while (pi < npkts && pkts[pi].h.payload_len == 0) pi++;
        roce_tx_in in;
        memset(&in, 0, sizeof in);
        if (di < npkts && (d_offer || !gaps || !chance(30))) d_offer = true;
        if (d_offer) in.desc.valid = true, in.desc.data = pkts[di].h;
        if (pi < npkts && (p_offer || !gaps || !chance(30))) p_offer = true;
        if (p_offer) {
            unsigned L = (unsigned)pkts[pi].h.payload_len, n = L - po > 64 ? 64 : L - po;
            in.pay.valid = true;
            for (unsigned i = 0; i < n; i++) in.pay.data.data |= (hls_u512)pkts[pi].pay[po + i] << (8 * i);
            in.pay.data.bytes = (hls_uint(7))n;
            in.pay.data.last = po + n == L;
        }
        in.frame_ready = !bp || !chance(35);
        roce_tx_out out;
        memset(&out, 0, sizeof out);
        hls_edge_queue_bind(edges);
        roce_tx(&in, &out, &st);
        hls_clock_edge(edges);
        if (prev_stall)
            CHECK(out.frame.valid && out.frame.data.data == prev_out.frame.data.data &&
                      out.frame.data.bytes == prev_out.frame.data.bytes &&
                      out.frame.data.last == prev_out.frame.data.last,
                  "tx output changed while stalled, cycle %llu", (unsigned long long)cyc);
        prev_stall = out.frame.valid && !in.frame_ready;
        prev_out = out;
        if (in.desc.valid && out.desc_ready) di++, d_offer = false;
        if (in.pay.valid && out.pay_ready) {
            po += (unsigned)in.pay.data.bytes;
            p_offer = false;
            if (in.pay.data.last) pi++, po = 0;
        }
        if (out.frame.valid && in.frame_ready) {
            unsigned n = (unsigned)out.frame.data.bytes;
            CHECK(n >= 1 && n <= 64 && (out.frame.data.last || n == 64), "tx beat bytes %u", n);
            CHECK(keep_low(out.frame.data.data, n) == out.frame.data.data, "tx beat: bytes above %u not zero", n);
            for (unsigned i = 0; i < n && cur_len < MAX_FRAME; i++) cur[cur_len++] = (uint8_t)(out.frame.data.data >> (8 * i));
            beats++;
            if (out.frame.data.last) {
                frames[fi].b = malloc(cur_len);
                memcpy(frames[fi].b, cur, cur_len);
                frames[fi].len = cur_len;
                frames[fi].t_ns = cyc * 4;
                fi++;
                cur_len = 0;
            }
        }
        cyc++;
    }
    CHECK(fi == npkts, "tx produced %d of %d frames", fi, npkts);
    CHECK(st.frames_sent == (uint32_t)npkts, "tx frame counter %u", st.frames_sent);
    if (beats_out) *beats_out = beats;
    return cyc;
}

/* --------------------------------------------------------------- RX run */
typedef struct {
    roce_rx_desc_t d;
    uint8_t *pay;     /* the payload unit delivered for it (payload_len > 0) */
    size_t pay_len;
} rx_result_t;
static rx_result_t results[MAX_PKTS + 64];
static int nresults;

/* Feeds frames[0..n) to roce_rx; fills results[]; returns cycles. */
static uint64_t run_rx(frame_t *fr, int n, int gaps, int bp, uint64_t *beats_in, roce_rx_state *stp) {
    static roce_rx_state st;
    memset(&st, 0, sizeof st);
    int fi = 0;
    size_t fo = 0;
    bool offer = false;
    static uint8_t pay[MAX_FRAME];
    size_t pay_len = 0;
    static uint8_t *units[MAX_PKTS + 64];
    static size_t unit_len[MAX_PKTS + 64];
    static bool unit_resp[MAX_PKTS + 64]; /* the class tag every beat of the unit carried */
    bool tag = false, tag_mixed = false;
    int nunits = 0, used_units = 0;
    uint64_t cyc = 0, beats = 0;
    roce_rx_out prev_out = {0};
    bool prev_pstall = false, prev_dstall = false;
    nresults = 0;
    while (nresults < n && cyc < 10000000) {
        roce_rx_in in;
        memset(&in, 0, sizeof in);
        if (fi < n && (offer || !gaps || !chance(25))) offer = true;
        if (offer) {
            size_t k = fr[fi].len - fo > 64 ? 64 : fr[fi].len - fo;
            in.frame.valid = true;
            for (size_t i = 0; i < k; i++) in.frame.data.data |= (hls_u512)fr[fi].b[fo + i] << (8 * i);
            in.frame.data.bytes = (hls_uint(7))k;
            in.frame.data.last = fo + k == fr[fi].len;
        }
        in.pay_ready = !bp || !chance(30);
        in.desc_ready = !bp || !chance(30);
        roce_rx_out out;
        memset(&out, 0, sizeof out);
        hls_edge_queue_bind(edges);
        roce_rx(&in, &out, &st);
        hls_clock_edge(edges);
        if (prev_pstall)
            CHECK(out.pay.valid && out.pay.data.beat.data == prev_out.pay.data.beat.data &&
                      out.pay.data.beat.bytes == prev_out.pay.data.beat.bytes && out.pay.data.beat.last == prev_out.pay.data.beat.last,
                  "rx payload output changed while stalled, cycle %llu", (unsigned long long)cyc);
        if (prev_dstall)
            CHECK(out.desc.valid && memcmp(&out.desc.data, &prev_out.desc.data, sizeof out.desc.data) == 0,
                  "rx desc changed while stalled, cycle %llu", (unsigned long long)cyc);
        prev_pstall = out.pay.valid && !in.pay_ready;
        prev_dstall = out.desc.valid && !in.desc_ready;
        prev_out = out;
        if (in.frame.valid && out.frame_ready) {
            beats++;
            offer = false;
            fo += (size_t)in.frame.data.bytes;
            if (in.frame.data.last) fi++, fo = 0;
        }
        if (out.pay.valid && in.pay_ready) {
            unsigned k = (unsigned)out.pay.data.beat.bytes;
            CHECK(k >= 1 && k <= 64 && (out.pay.data.beat.last || k == 64), "rx payload beat bytes %u", k);
            CHECK(keep_low(out.pay.data.beat.data, k) == out.pay.data.beat.data, "rx payload: bytes above %u not zero", k);
            if (pay_len == 0) tag = out.pay.data.resp;
            tag_mixed |= out.pay.data.resp != tag;
            for (unsigned i = 0; i < k && pay_len < MAX_FRAME; i++) pay[pay_len++] = (uint8_t)(out.pay.data.beat.data >> (8 * i));
            if (out.pay.data.beat.last) {
                CHECK(!tag_mixed, "rx payload unit %d: beats with different class tags", nunits);
                tag_mixed = false;
                unit_resp[nunits] = tag;
                units[nunits] = malloc(pay_len ? pay_len : 1);
                memcpy(units[nunits], pay, pay_len);
                unit_len[nunits++] = pay_len;
                pay_len = 0;
            }
        }
        if (out.desc.valid && in.desc_ready) {
            rx_result_t *r = &results[nresults++];
            r->d = out.desc.data;
            r->pay = NULL;
            r->pay_len = 0;
            if (out.desc.data.hdr.payload_len != 0) {
                CHECK(used_units < nunits, "rx desc %d with payload but no payload unit before it", nresults - 1);
                if (used_units < nunits) {
                    CHECK(unit_resp[used_units] == roce_op_is_response(out.desc.data.hdr.opcode),
                          "rx desc %d (opcode 0x%02x): its payload tagged %s", nresults - 1, out.desc.data.hdr.opcode,
                          unit_resp[used_units] ? "response" : "request");
                    r->pay = units[used_units], r->pay_len = unit_len[used_units++];
                }
            }
        }
        cyc++;
    }
    CHECK(nresults == n, "rx produced %d of %d descriptors", nresults, n);
    CHECK(used_units == nunits && pay_len == 0, "rx payload units %d, used %d, partial %zu", nunits, used_units, pay_len);
    if (beats_in) *beats_in = beats;
    if (stp) *stp = st;
    return cyc;
}

static void check_hdr(const roce_hdr_t *g, const roce_hdr_t *e, int i) {
#define F(x) CHECK((uint64_t)g->x == (uint64_t)e->x, "frame %d field " #x ": got %llx want %llx", i, \
                   (unsigned long long)g->x, (unsigned long long)e->x)
    F(dst_mac); F(src_mac); F(src_ip); F(dst_ip); F(ttl); F(dscp); F(ecn); F(ip_id); F(udp_sport);
    F(opcode); F(se); F(migreq); F(pad); F(tver); F(pkey); F(fecn); F(becn); F(dest_qp); F(ack_req);
    F(psn); F(reth_va); F(reth_rkey); F(reth_len); F(aeth_syndrome); F(aeth_msn); F(atomic_va);
    F(atomic_rkey); F(atomic_swap_add); F(atomic_cmp); F(atomic_orig); F(imm); F(payload_len);
#undef F
}

/* ---------------------------------------------------------- corruptions */
typedef struct {
    const char *what;
    int status;
} corruption_t;

static frame_t mk(const frame_t *src, size_t len) {
    frame_t f = {malloc(len + 64), len, 0};
    memset(f.b, 0, len + 64);
    memcpy(f.b, src->b, src->len < len ? src->len : len);
    return f;
}
static void fix_ipcsum(uint8_t *f) {
    f[24] = f[25] = 0;
    uint32_t s = 0;
    for (int i = 14; i < 34; i += 2) s += (uint32_t)(f[i] << 8 | f[i + 1]);
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    f[24] = (uint8_t)(~s >> 8);
    f[25] = (uint8_t)~s;
}
static void fix_icrc(uint8_t *f, size_t len) {
    uint32_t c = ref_icrc(f, len);
    for (int i = 0; i < 4; i++) f[len - 4 + i] = (uint8_t)(c >> (8 * i));
}

int main(int argc, char **argv) {
    edges = hls_edge_queue_new();
    const char *outdir = argc > 1 ? argv[1] : ".";
    char path[512];

    /* 1. packets */
    static const unsigned lens[] = {0, 1, 2, 3, 4, 63, 64, 65, 256, 1024, 4096};
    for (int o = 0; o < N_OPS; o++) {
        if (roce_ext(rc_ops[o]) & ROCE_EXT_PAYLOAD)
            for (unsigned l = 0; l < sizeof lens / sizeof lens[0]; l++) add_pkt(rc_ops[o], lens[l]);
        else
            for (int r = 0; r < 3; r++) add_pkt(rc_ops[o], 0);
    }
    for (int r = 0; r < 60; r++) add_pkt(rc_ops[rnd() % N_OPS], (unsigned)(rnd() % 1500));
    int ngood = npkts;

    /* 2. TX with gaps and back-pressure, byte-exact against the reference */
    uint64_t beats = 0;
    run_tx(1, 1, &beats);
    static uint8_t ref[MAX_FRAME];
    int tx_ok = 0;
    for (int i = 0; i < npkts; i++) {
        size_t rl = ref_build(&pkts[i], ref);
        int ok = frames[i].len == rl && memcmp(frames[i].b, ref, rl) == 0;
        CHECK(ok, "tx frame %d (opcode 0x%02x, len %u) differs from the reference (len %zu vs %zu)", i,
              pkts[i].h.opcode, (unsigned)pkts[i].h.payload_len, frames[i].len, rl);
        if (!ok && fails < 3)
            for (size_t k = 0; k < rl && k < frames[i].len; k++)
                if (frames[i].b[k] != ref[k]) printf("  byte %zu: tx %02x ref %02x\n", k, frames[i].b[k], ref[k]);
        tx_ok += ok;
    }
    printf("%s tx: %d/%d frames byte-exact vs reference (gaps + back-pressure)\n",
           tx_ok == npkts ? "PASS" : "FAIL", tx_ok, npkts);

    /* pcap + expectations for the judges */
    snprintf(path, sizeof path, "%s/roce_tx.pcap", outdir);
    pcap_writer_t *w = pcap_open(path);
    snprintf(path, sizeof path, "%s/roce_tx.expect", outdir);
    FILE *ex = fopen(path, "w");
    CHECK(w && ex, "cannot write pcap/expect in %s", outdir);
    for (int i = 0; w && ex && i < npkts; i++) {
        CHECK(pcap_write(w, frames[i].b, frames[i].len, frames[i].t_ns) == 0, "pcap_write");
        fprintf(ex, "%u %u\n", pkts[i].h.opcode, (unsigned)pkts[i].h.psn);
    }
    if (w) pcap_close(w);
    if (ex) fclose(ex);
    /* a copy with one flipped ICRC bit in frame 5: the judges must reject it */
    snprintf(path, sizeof path, "%s/bad_icrc.pcap", outdir);
    w = pcap_open(path);
    for (int i = 0; w && i < 8; i++) {
        frame_t f = mk(&frames[i], frames[i].len);
        if (i == 5) f.b[f.len - 2] ^= 0x10;
        pcap_write(w, f.b, f.len, f.t_ns);
        free(f.b);
    }
    if (w) pcap_close(w);

    /* 3. read the pcap back, RX with gaps and back-pressure */
    static frame_t rdf[MAX_PKTS];
    snprintf(path, sizeof path, "%s/roce_tx.pcap", outdir);
    pcap_reader_t *r = pcap_open_read(path);
    int nr = 0;
    static uint8_t buf[MAX_FRAME];
    size_t len;
    uint64_t t;
    while (r && nr < MAX_PKTS && pcap_next(r, buf, sizeof buf, &len, &t) == 1) {
        rdf[nr].b = malloc(len);
        memcpy(rdf[nr].b, buf, len);
        rdf[nr].len = len;
        rdf[nr].t_ns = t;
        CHECK(len == frames[nr].len && memcmp(buf, frames[nr].b, len) == 0 && t == frames[nr].t_ns,
              "pcap read back frame %d", nr);
        nr++;
    }
    pcap_close_read(r);
    CHECK(nr == npkts, "pcap holds %d frames, want %d", nr, npkts);
    roce_rx_state rst;
    run_rx(rdf, nr, 1, 1, NULL, &rst);
    int rx_ok = 0;
    for (int i = 0; i < nresults && i < npkts; i++) {
        int f0 = fails;
        CHECK(results[i].d.status == ROCE_RX_OK, "rx frame %d status %u", i, (unsigned)results[i].d.status);
        check_hdr(&results[i].d.hdr, &pkts[i].h, i);
        unsigned L = (unsigned)pkts[i].h.payload_len;
        CHECK(results[i].pay_len == L && (L == 0 || memcmp(results[i].pay, pkts[i].pay, L) == 0),
              "rx frame %d payload (%zu bytes, want %u)", i, results[i].pay_len, L);
        rx_ok += fails == f0;
    }
    CHECK(rst.cnt[ROCE_RX_OK] == (uint32_t)npkts, "rx ok counter %u", rst.cnt[ROCE_RX_OK]);
    printf("%s rx: %d/%d frames round-trip (every field, every payload byte, status OK)\n",
           rx_ok == npkts ? "PASS" : "FAIL", rx_ok, npkts);

    /* 4. corrupted frames mixed with good ones */
    static frame_t mix[MAX_PKTS];
    static int want[MAX_PKTS];
    static const char *what[MAX_PKTS];
    static int src_of[MAX_PKTS];
    static int want_plen[MAX_PKTS]; /* the descriptor's payload_len and the bytes sent, or -1 */
    for (int i = 0; i < MAX_PKTS; i++) want_plen[i] = -1;
    int nm = 0;
    uint32_t want_cnt[8] = {0};
    for (int i = 0; i < ngood && nm < MAX_PKTS - 1; i++) {
        const frame_t *g = &frames[i];
        unsigned L = (unsigned)pkts[i].h.payload_len;
        int kind = i % 13;
        frame_t f = mk(g, g->len);
        int st = ROCE_RX_OK;
        const char *wh = "good";
        switch (kind) {
        case 1: f.b[g->len - 1 - rnd() % 4] ^= (uint8_t)(1u << (rnd() % 8)); st = ROCE_RX_BAD_ICRC; wh = "ICRC bit flip"; break;
        case 2: if (L) { f.b[g->len - 5 - (L ? rnd() % L : 0)] ^= (uint8_t)(1u << (rnd() % 8)); st = ROCE_RX_BAD_ICRC; wh = "payload bit flip"; } break;
        case 3: f.b[44] ^= 0x01; st = ROCE_RX_BAD_ICRC; wh = "pkey bit flip"; break;
        case 4: f.b[37] ^= 0x01; st = ROCE_RX_NOT_ROCE; wh = "UDP dport 4790"; break;
        case 5: f.b[12] = 0x86; f.b[13] = 0xDD; st = ROCE_RX_NOT_ROCE; wh = "EtherType IPv6"; break;
        case 6: f.b[25] ^= 0x40; st = ROCE_RX_BAD_IP_CSUM; wh = "IPv4 checksum"; break;
        case 7: f.b[22] ^= 0x08; st = ROCE_RX_BAD_IP_CSUM; wh = "TTL changed, checksum not"; break;
        case 8: f.len = g->len - 1 - rnd() % (g->len - 20 > 100 ? 100 : g->len - 20); st = ROCE_RX_TRUNCATED; wh = "truncated"; break;
        case 9: f.b[46] ^= 0xC0; f.b[40] = 0x12; f.b[41] = 0x34; wh = "FECN/BECN + UDP csum (masked)"; break;
        case 10: f.b[22] ^= 0x08; f.b[15] ^= 0x03; fix_ipcsum(f.b); wh = "TTL/ECN + fixed csum (masked)"; break;
        case 11: f.b[42] = 0x15; fix_icrc(f.b, f.len); st = ROCE_RX_BAD_OPCODE; wh = "opcode 0x15"; break;
        case 12: f.len = g->len + 7; wh = "7 bytes Ethernet padding"; break;
        default: break;
        }
        mix[nm] = f; want[nm] = st; what[nm] = wh; src_of[nm] = i; nm++;
        want_cnt[st]++;
    }
    { /* an ARP request: 42 bytes */
        frame_t f = {calloc(1, 128), 42, 0};
        memset(f.b, 0xFF, 6);
        f.b[12] = 0x08; f.b[13] = 0x06;
        mix[nm] = f; want[nm] = ROCE_RX_NOT_ROCE; what[nm] = "ARP"; src_of[nm] = -1; nm++;
        want_cnt[ROCE_RX_NOT_ROCE]++;
    }
    /* the length rules (status TRUNCATED), each with the payload it must (not) deliver: a
     * SEND_ONLY and an ACK with their IPv4/UDP lengths rewritten and the IPv4 checksum fixed */
    int send_i = -1, ack_i = -1;
    for (int i = 0; i < ngood; i++) {
        if (send_i < 0 && pkts[i].h.opcode == ROCE_OP_SEND_ONLY && pkts[i].h.payload_len > 64) send_i = i;
        if (ack_i < 0 && pkts[i].h.opcode == ROCE_OP_ACKNOWLEDGE) ack_i = i;
    }
    CHECK(send_i >= 0 && ack_i >= 0, "no SEND_ONLY with payload or ACK among the test packets");
    for (int k = 0; k < 5 && send_i >= 0 && ack_i >= 0; k++) {
        const frame_t *g = &frames[k == 2 ? ack_i : send_i];
        frame_t f = mk(g, g->len + (k == 2 ? 4 : 0));
        unsigned ip_len = (unsigned)(f.b[16] << 8 | f.b[17]);
        unsigned min_ip = ip_len - (unsigned)pkts[k == 2 ? ack_i : send_i].h.payload_len; /* headers, pad, ICRC */
        unsigned udp_len = 0;
        int plen = 0;
        const char *wh = "";
        switch (k) {
        case 0: udp_len = ip_len - 20 + 1; wh = "UDP length != IPv4 length - 20"; break;
        case 1: ip_len = min_ip - 1; wh = "IPv4 length below the headers"; break;
        case 2: ip_len += 4; wh = "payload on an opcode without payload (ACK)"; break;
        case 3: ip_len = min_ip + 16384; wh = "payload of 16384 bytes"; break;
        case 4: ip_len = min_ip + 16383; plen = 16383; wh = "payload of 16383 bytes, frame cut short"; break;
        }
        if (k != 0) udp_len = ip_len - 20;
        f.b[16] = (uint8_t)(ip_len >> 8), f.b[17] = (uint8_t)ip_len;
        f.b[38] = (uint8_t)(udp_len >> 8), f.b[39] = (uint8_t)udp_len;
        fix_ipcsum(f.b);
        mix[nm] = f; want[nm] = ROCE_RX_TRUNCATED; what[nm] = wh; src_of[nm] = -1; want_plen[nm] = plen; nm++;
        want_cnt[ROCE_RX_TRUNCATED]++;
    }
    /* the foreign frames also make a pcap the judges must reject */
    snprintf(path, sizeof path, "%s/notroce.pcap", outdir);
    w = pcap_open(path);
    for (int i = 0; w && i < nm; i++)
        if (want[i] == ROCE_RX_NOT_ROCE) pcap_write(w, mix[i].b, mix[i].len, 0);
    if (w) pcap_close(w);
    run_rx(mix, nm, 1, 1, NULL, &rst);
    int mix_ok = 0;
    for (int i = 0; i < nresults && i < nm; i++) {
        int f0 = fails;
        CHECK(results[i].d.status == want[i], "mix frame %d (%s): status %u want %d", i, what[i],
              (unsigned)results[i].d.status, want[i]);
        if (want_plen[i] >= 0)
            CHECK(results[i].d.hdr.payload_len == (unsigned)want_plen[i] && results[i].pay_len == (size_t)want_plen[i],
                  "mix frame %d (%s): payload_len %u, %zu bytes sent, want %d", i, what[i],
                  (unsigned)results[i].d.hdr.payload_len, results[i].pay_len, want_plen[i]);
        if (want[i] == ROCE_RX_OK) {
            int s = src_of[i];
            roce_hdr_t e = pkts[s].h;
            if (!strcmp(what[i], "FECN/BECN + UDP csum (masked)")) e.fecn = !e.fecn, e.becn = !e.becn;
            if (!strcmp(what[i], "TTL/ECN + fixed csum (masked)")) e.ttl ^= 0x08, e.ecn ^= 3;
            check_hdr(&results[i].d.hdr, &e, i);
            unsigned L = (unsigned)e.payload_len;
            CHECK(results[i].pay_len == L && (L == 0 || memcmp(results[i].pay, pkts[s].pay, L) == 0),
                  "mix frame %d payload", i);
        }
        mix_ok += fails == f0;
    }
    for (int s = 0; s < 6; s++)
        CHECK(rst.cnt[s] == want_cnt[s], "counter[%d] = %u, want %u", s, rst.cnt[s], want_cnt[s]);
    printf("%s rx errors: %d/%d frames with the right status; counters ok=%u not_roce=%u truncated=%u "
           "bad_ip_csum=%u bad_opcode=%u bad_icrc=%u\n",
           mix_ok == nm ? "PASS" : "FAIL", mix_ok, nm, rst.cnt[0], rst.cnt[1], rst.cnt[2], rst.cnt[3],
           rst.cnt[4], rst.cnt[5]);

    /* 5. throughput, no gaps, no back-pressure */
    uint64_t fbeats = 0;
    for (int i = 0; i < npkts; i++) fbeats += (frames[i].len + 63) / 64;
    uint64_t tcyc = run_tx(0, 0, &beats);
    uint64_t rbeats = 0;
    uint64_t rcyc = run_rx(frames, npkts, 0, 0, &rbeats, NULL);
    printf("INFO throughput: tx %llu frame beats in %llu cycles = %.3f beats/cycle; "
           "rx %llu frame beats in %llu cycles = %.3f beats/cycle (%d frames, mean %.1f beats)\n",
           (unsigned long long)beats, (unsigned long long)tcyc, (double)beats / tcyc,
           (unsigned long long)rbeats, (unsigned long long)rcyc, (double)rbeats / rcyc, npkts,
           (double)fbeats / npkts);
    /* long frames only: the 4096-byte packets */
    {
        int keep = 0;
        for (int i = 0; i < npkts; i++)
            if (pkts[i].h.payload_len == 4096) pkts[keep++] = pkts[i];
        npkts = keep;
        uint64_t c = run_tx(0, 0, &beats);
        uint64_t rb = 0;
        uint64_t rc = run_rx(frames, npkts, 0, 0, &rb, NULL);
        printf("INFO throughput 4096-byte payloads: tx %.3f beats/cycle, rx %.3f beats/cycle (%d frames)\n",
               (double)beats / c, (double)rb / rc, npkts);
    }

    printf("%s roce_loop_test: %d checks, %d failures\n", fails ? "FAIL" : "PASS", checks, fails);
    return fails ? 1 : 0;
}
