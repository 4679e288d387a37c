/* completer_test — drives the completer's C model cycle by cycle (docs/completer.md).
 *
 * Neighbour models: FIFOs for cfg / wqe_rec / rx_pkt + rx_pay (the producer holds each beat
 * until it moves), a byte-array host memory behind the DMA port, and consumers of req_ctl,
 * cqe and ev that log every message with its cycle. Each scenario checks every CQE, every
 * req_ctl message, every event and the whole memory image (every DMA-written byte, and that
 * nothing else was touched). The whole suite runs twice: ready always high, then every
 * output ready random (back-pressure), where the results must be the same.
 * Prints one PASS/FAIL line per scenario; exit status 1 if any failed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "completer.h"
#include "nic_ctx.h"
#include "prng.h"

#define MEM_BASE 0x10000000ull
#define MEM_SIZE (1u << 20)
#define QCAP 4096
#define LOGCAP 4096
#define ACK_SYN 0x1f /* ACK, credit count "unlimited" as rxe sends */

static completer_state st;
static uint64_t cycle;
static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static bool bp;              /* back-pressure on every output */
static bool ctl_block;       /* req_ctl_ready held low */
static prng_t rng;
static uint8_t mem[MEM_SIZE], exp_mem[MEM_SIZE];
static unsigned fails_here;
static char why[512];
static unsigned dma_writes, bad_dma;

#define QUEUE(T, name)          \
    static struct {             \
        T q[QCAP];              \
        unsigned h, t;          \
    } name
QUEUE(nic_cfg_t, q_cfg);
QUEUE(nic_wqe_rec_t, q_rec);
QUEUE(nic_rx_pkt_t, q_pkt);
QUEUE(nic_beat_t, q_pay);
#define Q_PUSH(name, v) ((name).q[(name).t++ % QCAP] = (v))
#define Q_EMPTY(name) ((name).h == (name).t)
#define Q_FRONT(name) ((name).q[(name).h % QCAP])

typedef struct { nic_req_ctl_t m; uint64_t cyc; } ctl_log_t;
typedef struct { nic_cqe_req_t m; uint64_t cyc; } cqe_log_t;
typedef struct { nic_event_t m; uint64_t cyc; } ev_log_t;
static ctl_log_t ctl_log[LOGCAP];
static cqe_log_t cqe_log[LOGCAP];
static ev_log_t ev_log[LOGCAP];
static unsigned n_ctl, n_cqe, n_ev, r_ctl, r_cqe, r_ev;

static void fail(const char *fmt, ...) {
    if (fails_here++) return; /* report the first problem of a scenario */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
}

/* ---- producer-rule checker: an offered, unaccepted beat must stay the same ---- */
static bool same_ctl(nic_req_ctl_t a, nic_req_ctl_t b) {
    return a.kind == b.kind && a.qp == b.qp && a.wqe_index == b.wqe_index && a.psn == b.psn &&
           a.psn_off == b.psn_off && a.acked == b.acked && a.acked_psn == b.acked_psn;
}
static bool same_cqe(nic_cqe_req_t a, nic_cqe_req_t b) {
    return a.cq == b.cq && a.cqe.wr_id == b.cqe.wr_id && a.cqe.byte_len == b.cqe.byte_len &&
           a.cqe.qpn == b.cqe.qpn && a.cqe.opcode == b.cqe.opcode &&
           a.cqe.status == b.cqe.status;
}
static bool same_ev(nic_event_t a, nic_event_t b) {
    return a.kind == b.kind && a.qp == b.qp && a.cq == b.cq && a.detail == b.detail;
}
static bool same_dma(nic_dma_req_t a, nic_dma_req_t b) {
    return a.write == b.write && a.addr == b.addr && a.len == b.len && a.data == b.data;
}

static struct {
    bool ctl, cqe, ev, dma;
    nic_req_ctl_t c;
    nic_cqe_req_t q;
    nic_event_t e;
    nic_dma_req_t d;
} held;

static void step(void) {
    completer_in in;
    completer_out out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    if ((in.cfg.valid = !Q_EMPTY(q_cfg))) in.cfg.data = Q_FRONT(q_cfg);
    if ((in.wqe_rec.valid = !Q_EMPTY(q_rec))) in.wqe_rec.data = Q_FRONT(q_rec);
    if ((in.rx_pkt.valid = !Q_EMPTY(q_pkt))) in.rx_pkt.data = Q_FRONT(q_pkt);
    if ((in.rx_pay.valid = !Q_EMPTY(q_pay))) in.rx_pay.data = Q_FRONT(q_pay);
    in.dma_req_ready = !bp || prng_next(&rng) & 1;
    in.req_ctl_ready = (!bp || prng_next(&rng) & 1) && !ctl_block;
    in.cqe_ready = !bp || prng_next(&rng) & 1;
    in.ev_ready = !bp || prng_next(&rng) & 1;
    hls_edge_queue_bind(edges);
    completer(&in, &out, &st);

    if (held.ctl && (!out.req_ctl.valid || !same_ctl(held.c, out.req_ctl.data)))
        fail("req_ctl withdrawn or changed while not accepted (cycle %llu)", (unsigned long long)cycle);
    if (held.cqe && (!out.cqe.valid || !same_cqe(held.q, out.cqe.data)))
        fail("cqe withdrawn or changed while not accepted (cycle %llu)", (unsigned long long)cycle);
    if (held.ev && (!out.ev.valid || !same_ev(held.e, out.ev.data)))
        fail("ev withdrawn or changed while not accepted (cycle %llu)", (unsigned long long)cycle);
    if (held.dma && (!out.dma_req.valid || !same_dma(held.d, out.dma_req.data)))
        fail("dma_req withdrawn or changed while not accepted (cycle %llu)", (unsigned long long)cycle);
    held.ctl = out.req_ctl.valid && !in.req_ctl_ready;
    held.c = out.req_ctl.data;
    held.cqe = out.cqe.valid && !in.cqe_ready;
    held.q = out.cqe.data;
    held.ev = out.ev.valid && !in.ev_ready;
    held.e = out.ev.data;
    held.dma = out.dma_req.valid && !in.dma_req_ready;
    held.d = out.dma_req.data;
    if (!out.dma_resp_ready) fail("dma_resp_ready low");

    if (in.cfg.valid && out.cfg_ready) q_cfg.h++;
    if (in.wqe_rec.valid && out.wqe_rec_ready) q_rec.h++;
    if (in.rx_pkt.valid && out.rx_pkt_ready) q_pkt.h++;
    if (in.rx_pay.valid && out.rx_pay_ready) q_pay.h++;
    if (out.req_ctl.valid && in.req_ctl_ready && n_ctl < LOGCAP)
        ctl_log[n_ctl++] = (ctl_log_t){out.req_ctl.data, cycle};
    if (out.cqe.valid && in.cqe_ready && n_cqe < LOGCAP)
        cqe_log[n_cqe++] = (cqe_log_t){out.cqe.data, cycle};
    if (out.ev.valid && in.ev_ready && n_ev < LOGCAP) ev_log[n_ev++] = (ev_log_t){out.ev.data, cycle};
    if (out.dma_req.valid && in.dma_req_ready) {
        nic_dma_req_t d = out.dma_req.data;
        unsigned len = (unsigned)d.len;
        dma_writes++;
        if (!d.write || len < 1 || len > 64 || d.addr < MEM_BASE || d.addr + len > MEM_BASE + MEM_SIZE) {
            bad_dma++;
            fail("bad DMA request write=%d addr=%#llx len=%u", d.write, (unsigned long long)d.addr, len);
        } else {
            for (unsigned i = 0; i < len; i++) mem[d.addr - MEM_BASE + i] = (uint8_t)(d.data >> (8 * i));
        }
    }
    hls_clock_edge(edges);
    cycle++;
}

static void run(unsigned n) {
    while (n--) step();
}

/* run up to an absolute cycle (nothing if it is already past) */
static void run_to(uint64_t t) {
    while (cycle < t) step();
}

/* ---- stimulus ---- */
static nic_qp_t row_of(unsigned fn, uint32_t qpn) {
    return (nic_qp_t)(fn * NIC_QP_PER_FN + qpn % NIC_QP_PER_FN);
}

typedef struct {
    unsigned fn;
    uint32_t qpn;
    unsigned pmtu, timeout, retry_cnt, rnr_retry, cq;
    bool backoff;
    unsigned bf, bc;
} qp_t;

static void cfg_qp(const qp_t *q, unsigned prev, unsigned state) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_QP;
    c.fn = (nic_fn_t)q->fn;
    c.qp = row_of(q->fn, q->qpn);
    c.prev_state = (hls_uint(3))prev;
    c.attr.state = (hls_uint(3))state;
    c.attr.qpn = (hls_u24)q->qpn;
    c.attr.pmtu = (hls_uint(3))q->pmtu;
    c.attr.timeout = (hls_uint(5))q->timeout;
    c.attr.retry_cnt = (hls_uint(3))q->retry_cnt;
    c.attr.rnr_retry = (hls_uint(3))q->rnr_retry;
    c.attr.backoff = q->backoff;
    c.attr.backoff_first = (hls_uint(5))q->bf;
    c.attr.backoff_cap = (hls_uint(5))q->bc;
    c.attr.send_cq = (nic_cq_t)q->cq;
    Q_PUSH(q_cfg, c);
}

static void bring_up(const qp_t *q) {
    cfg_qp(q, NIC_QPS_RESET, NIC_QPS_INIT);
    cfg_qp(q, NIC_QPS_INIT, NIC_QPS_RTR);
    cfg_qp(q, NIC_QPS_RTR, NIC_QPS_RTS);
    run(40);
}

/* a wqe_rec; status != 0: the requester rejected the WQE and did not send it */
static void rec_s(const qp_t *q, uint16_t idx, uint32_t first, uint32_t last, unsigned op,
                  bool sig, uint64_t wr_id, uint64_t addr, uint32_t len, bool flush,
                  unsigned status) {
    nic_wqe_rec_t r;
    memset(&r, 0, sizeof r);
    r.qp = row_of(q->fn, q->qpn);
    r.wqe_index = idx;
    r.first_psn = (hls_u24)first;
    r.last_psn = (hls_u24)last;
    r.wr_opcode = (uint8_t)op;
    r.signaled = sig;
    r.flush = flush;
    r.wr_id = wr_id;
    r.local_addr = addr;
    r.length = len;
    r.status = (uint8_t)status;
    Q_PUSH(q_rec, r);
}

static void rec(const qp_t *q, uint16_t idx, uint32_t first, uint32_t last, unsigned op,
                bool sig, uint64_t wr_id, uint64_t addr, uint32_t len, bool flush) {
    rec_s(q, idx, first, last, op, sig, wr_id, addr, len, flush, 0);
}

/* the requester's SQD marker (NIC_SQD_MARK_*) in the record stream */
static void sqd_mark(const qp_t *q, unsigned kind) {
    nic_wqe_rec_t r;
    memset(&r, 0, sizeof r);
    r.qp = row_of(q->fn, q->qpn);
    r.sqd_mark = (uint8_t)kind;
    Q_PUSH(q_rec, r);
}

static void resp(const qp_t *q, uint32_t qpn, unsigned opcode, uint32_t psn, unsigned syn,
                 uint64_t orig, const uint8_t *pay, unsigned len) {
    nic_rx_pkt_t p;
    memset(&p, 0, sizeof p);
    p.fn = (nic_fn_t)q->fn;
    p.hdr.opcode = (uint8_t)opcode;
    p.hdr.dest_qp = (hls_u24)qpn;
    p.hdr.psn = (hls_u24)psn;
    p.hdr.aeth_syndrome = (uint8_t)syn;
    p.hdr.atomic_orig = orig;
    p.hdr.payload_len = (hls_uint(14))len;
    Q_PUSH(q_pkt, p);
    for (unsigned off = 0; off < len; off += 64) {
        nic_beat_t b;
        memset(&b, 0, sizeof b);
        unsigned n = len - off < 64 ? len - off : 64;
        for (unsigned i = 0; i < n; i++) b.data |= (hls_u512)pay[off + i] << (8 * i);
        b.bytes = (hls_uint(7))n;
        b.last = off + 64 >= len;
        Q_PUSH(q_pay, b);
    }
}

static void ack(const qp_t *q, uint32_t psn, unsigned syn) {
    resp(q, q->qpn, ROCE_OP_ACKNOWLEDGE, psn, syn, 0, NULL, 0);
}

/* ---- expectations ---- */
/* the next req_ctl; a REWIND resumes at psn, psn_off PSNs into WQE idx (0 for other kinds) */
static uint64_t expect_ctl_off(unsigned kind, const qp_t *q, uint16_t idx, uint32_t psn, uint32_t psn_off) {
    if (r_ctl >= n_ctl) {
        fail("missing req_ctl kind %u idx %u", kind, idx);
        return 0;
    }
    ctl_log_t *l = &ctl_log[r_ctl++];
    nic_req_ctl_t m = l->m;
    bool rewind = kind == NIC_REQ_REWIND || kind == NIC_REQ_REISSUE;
    /* only a REISSUE of a READ/atomic tells what the peer has (expect_acked) */
    if (m.kind != kind || m.qp != row_of(q->fn, q->qpn) || m.wqe_index != idx ||
        (rewind && (uint32_t)m.psn != psn) || (uint32_t)m.psn_off != (rewind ? psn_off : 0) ||
        (kind != NIC_REQ_REISSUE && m.acked))
        fail("req_ctl #%u: got kind %u qp %u idx %u psn %#x off %u, want kind %u qp %u idx %u psn %#x off %u",
             r_ctl - 1, m.kind, (unsigned)m.qp, m.wqe_index, (unsigned)m.psn, (unsigned)m.psn_off, kind,
             (unsigned)row_of(q->fn, q->qpn), idx, psn, rewind ? psn_off : 0);
    return l->cyc;
}

/* the req_ctl just expected is a READ/atomic's REISSUE telling the requester that the peer
 * has every PSN up to psn (an ACK went past the READ/atomic), or, psn < 0, tells nothing */
static void expect_acked(long psn) {
    if (r_ctl == 0) {
        fail("no req_ctl to look at");
        return;
    }
    nic_req_ctl_t m = ctl_log[r_ctl - 1].m;
    if (m.acked != (psn >= 0) || (psn >= 0 && (uint32_t)m.acked_psn != (uint32_t)psn))
        fail("req_ctl #%u: acked %d psn %#x, want %s %#lx", r_ctl - 1, m.acked, (unsigned)m.acked_psn,
             psn >= 0 ? "acked" : "nothing", psn < 0 ? 0 : psn);
}

/* the next req_ctl; a REWIND from the WQE's first PSN */
static uint64_t expect_ctl(unsigned kind, const qp_t *q, uint16_t idx, uint32_t psn) {
    return expect_ctl_off(kind, q, idx, psn, 0);
}

static uint64_t expect_cqe(const qp_t *q, uint64_t wr_id, unsigned opcode, unsigned status,
                           uint32_t byte_len) {
    if (r_cqe >= n_cqe) {
        fail("missing CQE wr_id %#llx status %u", (unsigned long long)wr_id, status);
        return 0;
    }
    cqe_log_t *l = &cqe_log[r_cqe++];
    nic_cqe_t c = l->m.cqe;
    if (l->m.cq != q->cq || c.wr_id != wr_id || c.opcode != opcode || c.status != status ||
        c.byte_len != byte_len || c.qpn != q->qpn || c.imm || c.flags)
        fail("CQE #%u: got cq %u wr_id %#llx op %u status %u len %u qpn %#x, want cq %u wr_id %#llx "
             "op %u status %u len %u qpn %#x",
             r_cqe - 1, (unsigned)l->m.cq, (unsigned long long)c.wr_id, c.opcode, c.status,
             c.byte_len, c.qpn, q->cq, (unsigned long long)wr_id, opcode, status, byte_len, q->qpn);
    return l->cyc;
}

static void expect_event(const qp_t *q, unsigned kind, unsigned detail) {
    if (r_ev >= n_ev) {
        fail("missing event kind %u", kind);
        return;
    }
    nic_event_t e = ev_log[r_ev++].m;
    if (e.kind != kind || e.qp != row_of(q->fn, q->qpn) || e.cq != q->cq || e.detail != detail)
        fail("event: got kind %u qp %u cq %u detail %u, want kind %u", e.kind, (unsigned)e.qp,
             (unsigned)e.cq, e.detail, kind);
}

static void expect_ev(const qp_t *q, unsigned detail) { expect_event(q, NIC_EV_QP_ERR, detail); }

static void expect_nothing_more(void) {
    if (r_ctl != n_ctl) fail("%u unexpected req_ctl (first kind %u idx %u)", n_ctl - r_ctl,
                             ctl_log[r_ctl].m.kind, ctl_log[r_ctl].m.wqe_index);
    if (r_cqe != n_cqe) fail("%u unexpected CQE (first wr_id %#llx status %u)", n_cqe - r_cqe,
                             (unsigned long long)cqe_log[r_cqe].m.cqe.wr_id, cqe_log[r_cqe].m.cqe.status);
    if (r_ev != n_ev) fail("%u unexpected events", n_ev - r_ev);
    if (!Q_EMPTY(q_pkt) || !Q_EMPTY(q_pay) || !Q_EMPTY(q_rec) || !Q_EMPTY(q_cfg))
        fail("inputs not consumed (pkt %u pay %u rec %u cfg %u)", q_pkt.t - q_pkt.h,
             q_pay.t - q_pay.h, q_rec.t - q_rec.h, q_cfg.t - q_cfg.h);
    if (memcmp(mem, exp_mem, MEM_SIZE)) {
        unsigned i = 0;
        while (mem[i] == exp_mem[i]) i++;
        fail("host memory differs at %#llx: %#x, want %#x", (unsigned long long)(MEM_BASE + i),
             mem[i], exp_mem[i]);
    }
}

static void expect_u32(const char *what, uint32_t got, uint32_t want) {
    if (got != want) fail("%s = %u, want %u", what, got, want);
}

/* a READ's data in its reply buffer: distinct bytes per (seed, offset) */
static void fill(uint8_t *p, unsigned len, unsigned seed) {
    for (unsigned i = 0; i < len; i++) p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* the responder's side of a READ: packets of mtu bytes, PSNs first.., opcodes by position */
static void read_responses(const qp_t *q, uint32_t first, uint8_t *data, unsigned len) {
    unsigned mtu = 128u << q->pmtu, n = len ? (len + mtu - 1) / mtu : 1;
    for (unsigned i = 0; i < n; i++) {
        unsigned op = n == 1 ? ROCE_OP_READ_RESPONSE_ONLY
                    : i == 0 ? ROCE_OP_READ_RESPONSE_FIRST
                    : i == n - 1 ? ROCE_OP_READ_RESPONSE_LAST : ROCE_OP_READ_RESPONSE_MIDDLE;
        unsigned plen = i == n - 1 ? len - i * mtu : mtu;
        resp(q, q->qpn, op, (first + i) & 0xFFFFFF, ACK_SYN, 0, data + i * mtu, plen);
    }
}

/* ---- scenarios ---- */
static qp_t qp_std(unsigned fn, uint32_t qpn, unsigned pmtu) {
    return (qp_t){.fn = fn, .qpn = qpn, .pmtu = pmtu, .timeout = 14, .retry_cnt = 7,
                  .rnr_retry = 7, .cq = (fn * 16 + 3) & 63};
}
#define A(off) (MEM_BASE + (off))

static void sc_coalesced_ack(void) {
    qp_t q = qp_std(0, 0x000101, 1);
    bring_up(&q);
    rec(&q, 0, 100, 100, NIC_WR_SEND, 1, 0xA0, 0, 10, 0);
    rec(&q, 1, 101, 103, NIC_WR_WRITE, 1, 0xA1, 0, 700, 0);
    rec(&q, 2, 104, 104, NIC_WR_SEND_IMM, 0, 0xA2, 0, 5, 0);
    rec(&q, 3, 105, 105, NIC_WR_WRITE_IMM, 1, 0xA3, 0, 0, 0);
    run(40);
    ack(&q, 104, ACK_SYN);
    run(60);
    expect_cqe(&q, 0xA0, NIC_WC_SEND, NIC_WC_SUCCESS, 10);
    expect_cqe(&q, 0xA1, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 700);
    expect_ctl(NIC_REQ_RETIRED, &q, 3, 0);
    ack(&q, 102, ACK_SYN); /* stale duplicate: dropped */
    ack(&q, 105, ACK_SYN);
    ack(&q, 105, ACK_SYN); /* duplicate after all retired: dropped */
    run(80);
    expect_cqe(&q, 0xA3, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 0);
    expect_ctl(NIC_REQ_RETIRED, &q, 4, 0);
    expect_u32("acks", st.acks, 2);
    expect_u32("dropped", st.dropped, 2);
    expect_u32("cqes", st.cqes, 3);
}

static void sc_ack_implies_lost_read(void) {
    qp_t q = qp_std(1, 0x000222, 1); /* 256-byte MTU */
    bring_up(&q);
    static uint8_t data[512];
    fill(data, 512, 1);
    rec(&q, 7, 106, 106, NIC_WR_SEND, 1, 0xB0, 0, 64, 0);
    rec(&q, 8, 107, 108, NIC_WR_READ, 1, 0xB1, A(0x1000), 512, 0);
    run(40);
    ack(&q, 107, ACK_SYN); /* the READ's responses never came */
    run(60);
    expect_cqe(&q, 0xB0, NIC_WC_SEND, NIC_WC_SUCCESS, 64);
    expect_ctl(NIC_REQ_RETIRED, &q, 8, 0);
    expect_ctl(NIC_REQ_REISSUE, &q, 8, 107); /* the peer has the SEND: the READ alone */
    expect_acked(107);                        /* ... and every PSN up to 107 */
    read_responses(&q, 107, data, 512);
    run(80);
    memcpy(exp_mem + 0x1000, data, 512);
    expect_cqe(&q, 0xB1, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 512);
    expect_ctl(NIC_REQ_RETIRED, &q, 9, 0);
    expect_u32("retries", st.retries, 1);
}

/* An ACK past a READ whose responses are missing asks for the READ again and is remembered
 * (cmp_qpc_t.acked): once the re-issued READ's responses complete it, the SEND/WRITE WQEs up
 * to the ACK's PSN retire at once, with no second ACK; those past it wait for theirs. After a
 * migration the source dropped the READ's responses and the resume probe's ACK is this one. */
static void sc_ack_past_read_kept(void) {
    qp_t q = qp_std(0, 0x000131, 1); /* 256-byte MTU */
    bring_up(&q);
    static uint8_t data[512];
    fill(data, 512, 7);
    rec(&q, 4, 0xFFFFFE, 0xFFFFFF, NIC_WR_READ, 1, 0xC0, A(0x2000), 512, 0);
    rec(&q, 5, 0, 0, NIC_WR_SEND, 1, 0xC1, 0, 30, 0);
    rec(&q, 6, 1, 2, NIC_WR_WRITE, 1, 0xC2, 0, 300, 0);
    rec(&q, 7, 3, 3, NIC_WR_SEND, 1, 0xC3, 0, 8, 0);
    run(40);
    ack(&q, 2, ACK_SYN); /* the peer has everything up to the WRITE: the READ's responses were lost */
    run(60);
    expect_ctl(NIC_REQ_REISSUE, &q, 4, 0xFFFFFE);
    expect_acked(2);
    read_responses(&q, 0xFFFFFE, data, 512);
    run(100);
    memcpy(exp_mem + 0x2000, data, 512);
    expect_cqe(&q, 0xC0, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 512);
    expect_cqe(&q, 0xC1, NIC_WC_SEND, NIC_WC_SUCCESS, 30);
    expect_cqe(&q, 0xC2, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 300);
    expect_ctl(NIC_REQ_RETIRED, &q, 7, 3);
    expect_nothing_more(); /* the last SEND waits for its own ACK */
    ack(&q, 3, ACK_SYN);
    run(60);
    expect_cqe(&q, 0xC3, NIC_WC_SEND, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &q, 8, 4);
    expect_u32("retries", st.retries, 1);

    /* two atomics and a SEND behind a READ, all answered before an ACK past them that the
     * READ's loss blocked: when the READ completes, each atomic in turn is asked for again at
     * once (the kept ACK implies its response was lost), not after a timeout each */
    qp_t r = qp_std(1, 0x000132, 1);
    bring_up(&r);
    rec(&r, 0, 10, 11, NIC_WR_READ, 1, 0xD0, A(0x2400), 512, 0);
    rec(&r, 1, 12, 12, NIC_WR_FAA, 1, 0xD1, A(0x2800), 8, 0);
    rec(&r, 2, 13, 13, NIC_WR_CAS, 1, 0xD2, A(0x2808), 8, 0);
    rec(&r, 3, 14, 14, NIC_WR_SEND, 1, 0xD3, 0, 1, 0);
    run(40);
    ack(&r, 14, ACK_SYN);
    run(60);
    expect_ctl(NIC_REQ_REISSUE, &r, 0, 10);
    read_responses(&r, 10, data, 512);
    run(100);
    memcpy(exp_mem + 0x2400, data, 512);
    expect_cqe(&r, 0xD0, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 512);
    expect_ctl(NIC_REQ_RETIRED, &r, 1, 12);
    expect_ctl(NIC_REQ_REISSUE, &r, 1, 12);
    resp(&r, r.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 12, ACK_SYN, 0x11, NULL, 0);
    run(100);
    uint64_t v = 0x11;
    memcpy(exp_mem + 0x2800, &v, 8);
    expect_cqe(&r, 0xD1, NIC_WC_FETCH_ADD, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &r, 2, 13);
    expect_ctl(NIC_REQ_REISSUE, &r, 2, 13);
    resp(&r, r.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 13, ACK_SYN, 0x22, NULL, 0);
    run(100);
    v = 0x22;
    memcpy(exp_mem + 0x2808, &v, 8);
    expect_cqe(&r, 0xD2, NIC_WC_COMP_SWAP, NIC_WC_SUCCESS, 8);
    expect_cqe(&r, 0xD3, NIC_WC_SEND, NIC_WC_SUCCESS, 1);
    expect_ctl(NIC_REQ_RETIRED, &r, 4, 15);
    expect_u32("timeouts", st.timeouts, 0);
}

/* A later ACK that ends inside the WRITE behind a READ whose re-issue is under way is kept
 * (acked); once the READ completes, the WRITE's resend after the timeout starts behind it,
 * not at the WRITE's first packet. A sequence NAK past a READ is not kept: the peer lacks
 * what follows, so the retry must be a go-back-N round, not a REISSUE that skips it (lossy
 * migration seed 85: the NAKed FAA was never resent). */
static void sc_kept_ack_inside_write(void) {
    qp_t q = qp_std(0, 0x001818, 1);
    q.timeout = 1; /* 2048 cycles */
    bring_up(&q);
    static uint8_t data[512];
    fill(data, 512, 9);
    rec(&q, 0, 200, 201, NIC_WR_READ, 1, 0x1800, A(0x3000), 512, 0);
    rec(&q, 1, 202, 209, NIC_WR_WRITE, 1, 0x1801, 0, 8 * 256, 0);
    run(40);
    ack(&q, 203, ACK_SYN); /* the READ's responses were lost */
    run(60);
    expect_ctl(NIC_REQ_REISSUE, &q, 0, 200);
    ack(&q, 205, ACK_SYN); /* the peer has up to 205 of the WRITE */
    run(60);
    expect_nothing_more(); /* the re-issue is under way */
    read_responses(&q, 200, data, 512);
    run(100);
    memcpy(exp_mem + 0x3000, data, 512);
    expect_cqe(&q, 0x1800, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 512);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 202);
    run(2048 + 300);
    expect_ctl_off(NIC_REQ_REWIND, &q, 1, 206, 4);
    ack(&q, 209, ACK_SYN);
    run(80);
    expect_cqe(&q, 0x1801, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 8 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 210);
    expect_u32("timeouts", st.timeouts, 1);

    /* an atomic ACK for a later CAS (the resume probe's answer) says the peer has the FAA
     * before it too: the FAA, whose response was lost, is asked for alone, then the CAS
     * (answered before the FAA completed, so dropped) alone, not a go-back-N round each */
    qp_t r = qp_std(1, 0x001819, 1);
    bring_up(&r);
    rec(&r, 0, 300, 300, NIC_WR_FAA, 1, 0x1810, A(0x3400), 8, 0);
    rec(&r, 1, 301, 301, NIC_WR_CAS, 1, 0x1811, A(0x3408), 8, 0);
    run(40);
    resp(&r, r.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 301, ACK_SYN, 0x44, NULL, 0);
    run(60);
    expect_ctl(NIC_REQ_REISSUE, &r, 0, 300);
    resp(&r, r.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 300, ACK_SYN, 0x33, NULL, 0);
    run(100);
    uint64_t v = 0x33;
    memcpy(exp_mem + 0x3400, &v, 8);
    expect_cqe(&r, 0x1810, NIC_WC_FETCH_ADD, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &r, 1, 301);
    expect_ctl(NIC_REQ_REISSUE, &r, 1, 301);
    resp(&r, r.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 301, ACK_SYN, 0x44, NULL, 0);
    run(100);
    v = 0x44;
    memcpy(exp_mem + 0x3408, &v, 8);
    expect_cqe(&r, 0x1811, NIC_WC_COMP_SWAP, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &r, 2, 302);

    /* a READ's second response lost, then a sequence NAK for the FAA behind it: the peer has
     * the READ request (the NAK names the PSN after it), so the READ alone is asked again
     * from its missing response; once it completes, the NAKed FAA goes again at once, not
     * after a timeout (and not skipped: kept at the NAK's PSN it was, lossy seed 85) */
    qp_t n = qp_std(2, 0x00181A, 1);
    bring_up(&n);
    static uint8_t d2[512];
    fill(d2, 512, 11);
    rec(&n, 0, 400, 401, NIC_WR_READ, 1, 0x1820, A(0x3800), 512, 0);
    rec(&n, 1, 402, 402, NIC_WR_FAA, 1, 0x1821, A(0x3810), 8, 0);
    run(40);
    resp(&n, n.qpn, ROCE_OP_READ_RESPONSE_FIRST, 400, ACK_SYN, 0, d2, 256);
    ack(&n, 402, 0x60);
    run(100);
    expect_ctl_off(NIC_REQ_REISSUE, &n, 0, 401, 1);
    resp(&n, n.qpn, ROCE_OP_READ_RESPONSE_ONLY, 401, ACK_SYN, 0, d2 + 256, 256);
    run(100);
    memcpy(exp_mem + 0x3800, d2, 512);
    expect_cqe(&n, 0x1820, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 512);
    expect_ctl(NIC_REQ_RETIRED, &n, 1, 402);
    expect_ctl(NIC_REQ_REWIND, &n, 1, 402); /* within 100 cycles: no timeout (exponent 14) */
    resp(&n, n.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 402, ACK_SYN, 0x55, NULL, 0);
    run(100);
    uint64_t w = 0x55;
    memcpy(exp_mem + 0x3810, &w, 8);
    expect_cqe(&n, 0x1821, NIC_WC_FETCH_ADD, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &n, 2, 403);
    expect_u32("timeouts after the NAK", st.timeouts, 1);

    /* the same with WRITEs between: the peer has them (the NAK is past them), they retire
     * when the READ completes, and the resend starts inside the WRITE the NAK names */
    qp_t m = qp_std(3, 0x00181B, 1);
    bring_up(&m);
    fill(d2, 512, 12);
    rec(&m, 0, 500, 501, NIC_WR_READ, 1, 0x1830, A(0x3A00), 512, 0);
    rec(&m, 1, 502, 503, NIC_WR_WRITE, 0, 0x1831, 0, 512, 0);
    rec(&m, 2, 504, 507, NIC_WR_WRITE, 1, 0x1832, 0, 4 * 256, 0);
    run(40);
    ack(&m, 506, 0x60);               /* the READ's responses lost; 506 lost too */
    run(100);
    expect_ctl(NIC_REQ_REISSUE, &m, 0, 500);
    read_responses(&m, 500, d2, 512);
    run(150);
    memcpy(exp_mem + 0x3A00, d2, 512);
    expect_cqe(&m, 0x1830, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 512);
    expect_ctl(NIC_REQ_RETIRED, &m, 2, 504);
    expect_ctl_off(NIC_REQ_REWIND, &m, 2, 506, 2);
    ack(&m, 507, ACK_SYN);
    run(80);
    expect_cqe(&m, 0x1832, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 4 * 256);
    expect_ctl(NIC_REQ_RETIRED, &m, 3, 508);
}

/* multi-packet READs at 1024 (PSN wrap), 4096 and 256 (misaligned, 1-packet) MTUs; a second
 * READ follows each to show the progress is per WQE; a duplicate and an out-of-order response
 * must be dropped without touching memory */
static void sc_read_mtus(void) {
    static const struct { unsigned pmtu, len, first, off; } t[] = {
        {3, 3000, 0xFFFFFF, 0x2000}, {5, 10000, 0x123456, 0x10003}, {1, 100, 0x7FFFFE, 0x30005},
        {2, 0, 0x10, 0x31000}, {4, 2048, 0xFFFFFE, 0x40001},
    };
    for (unsigned k = 0; k < sizeof t / sizeof t[0]; k++) {
        qp_t q = qp_std(2, 0x0300 + k, t[k].pmtu);
        bring_up(&q);
        static uint8_t d1[10000], d2[10000], junk[4096];
        fill(d1, t[k].len, 10 + k);
        fill(d2, t[k].len, 20 + k);
        fill(junk, 4096, 99);
        unsigned mtu = 128u << t[k].pmtu, n = t[k].len ? (t[k].len + mtu - 1) / mtu : 1;
        uint32_t f1 = t[k].first, l1 = (f1 + n - 1) & 0xFFFFFF, f2 = (l1 + 1) & 0xFFFFFF;
        rec(&q, 0xFFFF, f1, l1, NIC_WR_READ, 1, 0xC0 + k, A(t[k].off), t[k].len, 0);
        rec(&q, 0, f2, (f2 + n - 1) & 0xFFFFFF, NIC_WR_READ, 1, 0xD0 + k, A(t[k].off + 0x8000),
            t[k].len, 0);
        run(40);
        if (n > 1) {
            /* out of order: the second packet first -> dropped */
            resp(&q, q.qpn, n == 2 ? ROCE_OP_READ_RESPONSE_LAST : ROCE_OP_READ_RESPONSE_MIDDLE,
                 (f1 + 1) & 0xFFFFFF, ACK_SYN, 0, junk, n == 2 ? t[k].len - mtu : mtu);
        }
        read_responses(&q, f1, d1, t[k].len);
        read_responses(&q, f2, d2, t[k].len);
        /* a duplicate of the first READ's first packet, now stale: dropped */
        resp(&q, q.qpn, n == 1 ? ROCE_OP_READ_RESPONSE_ONLY : ROCE_OP_READ_RESPONSE_FIRST, f1,
             ACK_SYN, 0, junk, n == 1 ? t[k].len : mtu);
        run(600 + 4 * t[k].len / 64);
        memcpy(exp_mem + t[k].off, d1, t[k].len);
        memcpy(exp_mem + t[k].off + 0x8000, d2, t[k].len);
        expect_cqe(&q, 0xC0 + k, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, t[k].len);
        expect_ctl(NIC_REQ_RETIRED, &q, 0, 0);
        expect_cqe(&q, 0xD0 + k, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, t[k].len);
        expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
        expect_nothing_more();
    }
}

static void sc_atomic(void) {
    qp_t q = qp_std(3, 0x00040A, 3);
    bring_up(&q);
    rec(&q, 0, 50, 50, NIC_WR_CAS, 1, 0xE0, A(0x50000), 8, 0);
    rec(&q, 1, 51, 51, NIC_WR_FAA, 0, 0xE1, A(0x50008), 8, 0);
    rec(&q, 2, 52, 52, NIC_WR_FAA, 1, 0xE2, A(0x50010), 8, 0);
    run(40);
    resp(&q, q.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 50, ACK_SYN, 0x1122334455667788ull, NULL, 0);
    resp(&q, q.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 51, ACK_SYN, 0xCAFEF00Dull, NULL, 0);
    resp(&q, q.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 51, ACK_SYN, 0xDEAD, NULL, 0); /* duplicate */
    resp(&q, q.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 52, ACK_SYN, 0xFFFFFFFFFFFFFFFFull, NULL, 0);
    run(120);
    uint64_t v[3] = {0x1122334455667788ull, 0xCAFEF00Dull, 0xFFFFFFFFFFFFFFFFull};
    memcpy(exp_mem + 0x50000, v, 24); /* little-endian host */
    expect_cqe(&q, 0xE0, NIC_WC_COMP_SWAP, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
    expect_cqe(&q, 0xE2, NIC_WC_FETCH_ADD, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &q, 3, 0);
}

static void sc_nak_seq(void) {
    qp_t q = qp_std(0, 0x000505, 1);
    bring_up(&q);
    rec(&q, 10, 200, 200, NIC_WR_SEND, 1, 0xF0, 0, 1, 0);
    rec(&q, 11, 201, 204, NIC_WR_WRITE, 1, 0xF1, 0, 1000, 0);
    rec(&q, 12, 205, 205, NIC_WR_SEND, 1, 0xF2, 0, 2, 0);
    run(40);
    ack(&q, 202, 0x60); /* PSN sequence error at 202: 200 arrived, 201 did */
    run(60);
    expect_cqe(&q, 0xF0, NIC_WC_SEND, NIC_WC_SUCCESS, 1);
    expect_ctl(NIC_REQ_RETIRED, &q, 11, 0);
    /* 9.7.5.2.1: resend from the PSN the NAK names, the WRITE's second packet */
    expect_ctl_off(NIC_REQ_REWIND, &q, 11, 202, 1);
    ack(&q, 205, ACK_SYN);
    run(60);
    expect_cqe(&q, 0xF1, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 1000);
    expect_cqe(&q, 0xF2, NIC_WC_SEND, NIC_WC_SUCCESS, 2);
    expect_ctl(NIC_REQ_RETIRED, &q, 13, 0);
    expect_u32("naks", st.naks, 1);
    expect_u32("retries", st.retries, 1);
}

/* fatal NAKs: the WQE at the PSN fails, the QP stops, the rest and later WQEs are flushed */
static void sc_nak_fatal(void) {
    static const unsigned syn[3] = {0x61, 0x62, 0x63};
    static const unsigned status[3] = {NIC_WC_REM_INV_REQ_ERR, NIC_WC_REM_ACCESS_ERR,
                                       NIC_WC_REM_OP_ERR};
    for (unsigned k = 0; k < 3; k++) {
        qp_t q = qp_std(1, 0x000600 + k, 2);
        bring_up(&q);
        rec(&q, 0, 300, 300, NIC_WR_SEND, 1, 0x100, 0, 1, 0);
        rec(&q, 1, 301, 302, NIC_WR_WRITE, 0, 0x101, 0, 1000, 0);
        rec(&q, 2, 303, 303, NIC_WR_READ, 0, 0x102, A(0x60000), 8, 0);
        run(60);
        ack(&q, 302, syn[k]);
        run(80);
        expect_cqe(&q, 0x100, NIC_WC_SEND, NIC_WC_SUCCESS, 1);
        expect_cqe(&q, 0x101, NIC_WC_RDMA_WRITE, status[k], 1000); /* unsignaled: errors show */
        expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
        expect_ev(&q, status[k]);
        expect_ctl(NIC_REQ_STOP, &q, 2, 0);
        expect_cqe(&q, 0x102, NIC_WC_RDMA_READ, NIC_WC_WR_FLUSH_ERR, 8);
        /* after STOP the requester flushes what it had not started (flush=1); a record that
         * still arrives unflushed finds the QP in ERR and is flushed too */
        rec(&q, 3, 304, 304, NIC_WR_SEND, 1, 0x103, 0, 3, 1);
        rec(&q, 4, 305, 305, NIC_WR_WRITE, 0, 0x104, 0, 9, 0);
        ack(&q, 303, ACK_SYN); /* ghost for a failed QP: dropped */
        run(80);
        expect_cqe(&q, 0x103, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 3);
        expect_cqe(&q, 0x104, NIC_WC_RDMA_WRITE, NIC_WC_WR_FLUSH_ERR, 9);
        expect_u32("naks", st.naks, k + 1);
        expect_u32("dropped", st.dropped, k + 1);
        expect_nothing_more();
    }
}

/* detection latency bound of a timer: the idle scan visits one row every 2 cycles (64 rows),
 * then dispatch + act + the message: 128 + a few; with back-pressure the message waits */
static unsigned lat(void) { return bp ? 250 : 140; }

static void expect_within(const char *what, uint64_t t, uint64_t lo, uint64_t hi) {
    if (t < lo || t > hi)
        fail("%s at cycle %llu, outside [%llu, %llu]", what, (unsigned long long)t,
             (unsigned long long)lo, (unsigned long long)hi);
}

/* the REWIND a local ACK timeout of `cycles` armed at cycle t sends, on time */
static uint64_t expect_timeout_rewind(const char *what, const qp_t *q, uint64_t t, uint64_t cycles,
                                      uint16_t idx, uint32_t psn, uint32_t psn_off) {
    run_to(t + cycles + lat() + 10);
    uint64_t r = expect_ctl_off(NIC_REQ_REWIND, q, idx, psn, psn_off);
    expect_within(what, r, t + cycles, t + cycles + lat());
    return r;
}

static void sc_rnr(void) {
    /* finite: rnr_retry 2 -> two waits and resends, the third RNR NAK fails the WQE */
    qp_t q = qp_std(0, 0x000707, 3);
    q.rnr_retry = 2;
    bring_up(&q);
    rec(&q, 0, 400, 400, NIC_WR_SEND, 1, 0x200, 0, 50, 0);
    rec(&q, 1, 401, 401, NIC_WR_SEND, 1, 0x201, 0, 51, 0);
    run(40);
    static const unsigned code[2] = {1, 3}, wait[2] = {2500, 7500}; /* 0.01 ms, 0.03 ms */
    for (unsigned i = 0; i < 2; i++) {
        uint64_t t = cycle;
        ack(&q, 400, 0x20 | code[i]);
        run(wait[i] - 10);
        if (n_ctl != r_ctl) fail("resent before the RNR timer ran out");
        run(10 + lat());
        expect_within("RNR resend", expect_ctl(NIC_REQ_REWIND, &q, 0, 400), t + wait[i],
                      t + wait[i] + lat());
    }
    ack(&q, 400, 0x21);
    run(80);
    expect_cqe(&q, 0x200, NIC_WC_SEND, NIC_WC_RNR_RETRY_EXC_ERR, 50);
    expect_ev(&q, NIC_WC_RNR_RETRY_EXC_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 1, 0);
    expect_cqe(&q, 0x201, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 51);
    expect_u32("naks", st.naks, 3);
    expect_nothing_more();

    /* infinite: rnr_retry 7 never runs out; then the ACK completes it */
    qp_t r = qp_std(1, 0x000808, 3);
    bring_up(&r);
    rec(&r, 5, 0xFFFFFF, 0xFFFFFF, NIC_WR_SEND, 1, 0x210, 0, 7, 0);
    run(40);
    for (unsigned i = 0; i < 10; i++) {
        uint64_t t = cycle;
        ack(&r, 0xFFFFFF, 0x21);
        run(2500 + lat());
        expect_within("RNR resend", expect_ctl(NIC_REQ_REWIND, &r, 5, 0xFFFFFF), t + 2500,
                      t + 2500 + lat());
    }
    ack(&r, 0xFFFFFF, ACK_SYN);
    run(60);
    expect_cqe(&r, 0x210, NIC_WC_SEND, NIC_WC_SUCCESS, 7);
    expect_ctl(NIC_REQ_RETIRED, &r, 6, 0);
    expect_u32("naks", st.naks, 13);
}

/* local ACK timeout with no answer at all: retry_cnt resends, then RETRY_EXC_ERR. The k-th
 * interval is 1024 << timeout cycles, or 1024 << min(first + k, cap) in backoff mode. */
static void timeout_exhaust(qp_t q, const char *mode) {
    bring_up(&q);
    uint64_t t0 = cycle, lo = t0, hi = t0 + 4; /* the record is taken within a scan step */
    rec(&q, 3, 500, 502, NIC_WR_WRITE, 0, 0x300, 0, 3000, 0);
    rec(&q, 4, 503, 503, NIC_WR_SEND, 1, 0x301, 0, 1, 0);
    uint64_t prev = t0, total_lo = t0, total_hi = t0;
    for (unsigned k = 0; k <= q.retry_cnt; k++) {
        unsigned e = q.backoff ? (q.bf + k < q.bc ? q.bf + k : q.bc) : q.timeout;
        uint64_t d = 1024ull << e;
        total_lo += d;
        total_hi += d + lat();
        run_to(prev + d + lat() + 10);
        char what[64];
        if (k < q.retry_cnt) {
            snprintf(what, sizeof what, "%s resend %u", mode, k + 1);
            uint64_t t = expect_ctl(NIC_REQ_REWIND, &q, 3, 500);
            expect_within(what, t, lo + d, hi + d + lat());
            prev = lo = hi = t;
        } else {
            snprintf(what, sizeof what, "%s RETRY_EXC_ERR CQE", mode);
            uint64_t t = expect_cqe(&q, 0x300, NIC_WC_RDMA_WRITE, NIC_WC_RETRY_EXC_ERR, 3000);
            expect_within(what, t, lo + d, hi + d + lat());
            expect_within(what, t, total_lo, total_hi);
        }
    }
    expect_ev(&q, NIC_WC_RETRY_EXC_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 4, 0);
    expect_cqe(&q, 0x301, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 1);
    expect_u32("timeouts", st.timeouts, q.retry_cnt + 1);
    expect_u32("retries", st.retries, q.retry_cnt);
}

static void sc_timeout_fixed(void) {
    qp_t q = qp_std(2, 0x000909, 3);
    q.timeout = 1; /* 8.192 us = 2048 cycles */
    q.retry_cnt = 3;
    timeout_exhaust(q, "fixed");
}

static void sc_timeout_backoff(void) {
    qp_t q = qp_std(3, 0x000A0A, 3);
    q.timeout = 1; /* ignored in backoff mode */
    q.backoff = 1;
    q.bf = 2;
    q.bc = 4;
    q.retry_cnt = 4; /* 4096, 8192, 16384, 16384 (cap), 16384 */
    timeout_exhaust(q, "backoff");
}

/* timeout 0 = infinite: nothing fires however long the peer is silent */
static void sc_timeout_infinite(void) {
    qp_t q = qp_std(0, 0x000B0B, 3);
    q.timeout = 0;
    q.retry_cnt = 0;
    bring_up(&q);
    rec(&q, 0, 10, 10, NIC_WR_SEND, 1, 0x400, 0, 1, 0);
    run(200000);
    if (n_ctl != r_ctl) fail("a QP with timeout 0 timed out");
    ack(&q, 10, ACK_SYN);
    run(40);
    expect_cqe(&q, 0x400, NIC_WC_SEND, NIC_WC_SUCCESS, 1);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
}

/* DA3: a peer paused for 40000 cycles (160 us) is waited out in backoff mode (4096 + 8192 +
 * 16384 < 40000 < + 32768) and the same pause kills a fixed-timeout QP with the same
 * retry_cnt; after progress the backoff starts again from backoff_first */
static void sc_backoff_pause(void) {
    qp_t q = qp_std(1, 0x000C0C, 3);
    q.backoff = 1;
    q.bf = 2;
    q.bc = 5;
    q.retry_cnt = 3;
    qp_t f = qp_std(2, 0x000D0D, 3);
    f.timeout = 2;
    f.retry_cnt = 3;
    bring_up(&q);
    bring_up(&f);
    uint64_t t0 = cycle;
    rec(&q, 0, 600, 600, NIC_WR_SEND, 1, 0x500, 0, 4, 0);
    rec(&f, 0, 700, 700, NIC_WR_SEND, 1, 0x600, 0, 4, 0);
    run_to(t0 + 40000);
    ack(&q, 600, ACK_SYN);
    ack(&f, 700, ACK_SYN); /* too late: f failed at about 4 * 4096 */
    run(100);
    /* f: 3 resends then the error; q: 3 resends, then the ACK (interleaved in time) */
    unsigned q_rew = 0, f_rew = 0;
    uint64_t q_t[3] = {0};
    bool q_done = false, f_err = false, f_stop = false;
    for (unsigned i = r_ctl; i < n_ctl; i++) {
        nic_req_ctl_t m = ctl_log[i].m;
        if (m.qp == row_of(q.fn, q.qpn) && m.kind == NIC_REQ_REWIND && q_rew < 3) q_t[q_rew++] = ctl_log[i].cyc;
        else if (m.qp == row_of(q.fn, q.qpn) && m.kind == NIC_REQ_RETIRED && m.wqe_index == 1) q_done = true;
        else if (m.qp == row_of(f.fn, f.qpn) && m.kind == NIC_REQ_REWIND) f_rew++;
        else if (m.qp == row_of(f.fn, f.qpn) && m.kind == NIC_REQ_STOP) f_stop = true;
        else fail("unexpected req_ctl kind %u qp %u", m.kind, (unsigned)m.qp);
    }
    r_ctl = n_ctl;
    expect_within("backoff resend 1", q_t[0], t0 + 4096, t0 + 4096 + lat() + 4);
    expect_within("backoff resend 2", q_t[1], q_t[0] + 8192, q_t[0] + 8192 + lat());
    expect_within("backoff resend 3", q_t[2], q_t[1] + 16384, q_t[1] + 16384 + lat());
    if (q_rew != 3 || !q_done) fail("backoff QP: %u resends, done %d", q_rew, q_done);
    if (f_rew != 3 || !f_stop) fail("fixed QP: %u resends, stop %d", f_rew, f_stop);
    for (unsigned i = r_cqe; i < n_cqe; i++) {
        nic_cqe_t c = cqe_log[i].m.cqe;
        if (c.wr_id == 0x500 && c.status == NIC_WC_SUCCESS) continue;
        if (c.wr_id == 0x600 && c.status == NIC_WC_RETRY_EXC_ERR) { f_err = true; continue; }
        fail("unexpected CQE wr_id %#llx status %u", (unsigned long long)c.wr_id, c.status);
    }
    if (!f_err || n_cqe - r_cqe != 2) fail("CQEs: fixed QP error %d, %u CQEs", f_err, n_cqe - r_cqe);
    r_cqe = n_cqe;
    expect_ev(&f, NIC_WC_RETRY_EXC_ERR);
    /* progress reset the exponent: the next message times out after 4096 again */
    uint64_t t1 = cycle;
    rec(&q, 1, 601, 601, NIC_WR_SEND, 1, 0x501, 0, 4, 0);
    run(4096 + lat() + 10);
    expect_within("backoff after progress", expect_ctl(NIC_REQ_REWIND, &q, 1, 601), t1 + 4096,
                  t1 + 4096 + lat() + 4);
    ack(&q, 601, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x501, NIC_WC_SEND, NIC_WC_SUCCESS, 4);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
    expect_u32("dropped", st.dropped, 1); /* f's late ACK */
}

/* ctrl moves the QP to ERR: everything outstanding is flushed, later records too; RESET
 * clears the row, so its responses are ghosts; a new life starts from an empty ring */
static void sc_cfg_flush_reset(void) {
    qp_t q = qp_std(2, 0x000E0E, 3);
    bring_up(&q);
    rec(&q, 20, 800, 801, NIC_WR_WRITE, 1, 0x700, 0, 2000, 0);
    rec(&q, 21, 802, 802, NIC_WR_SEND, 0, 0x701, 0, 3, 0);
    rec(&q, 22, 803, 803, NIC_WR_READ, 1, 0x702, A(0x70000), 16, 0);
    run(40);
    cfg_qp(&q, NIC_QPS_RTS, NIC_QPS_ERR);
    rec(&q, 23, 804, 804, NIC_WR_SEND, 1, 0x703, 0, 1, 1);
    run(60);
    expect_cqe(&q, 0x700, NIC_WC_RDMA_WRITE, NIC_WC_WR_FLUSH_ERR, 2000);
    expect_cqe(&q, 0x701, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 3);
    expect_cqe(&q, 0x702, NIC_WC_RDMA_READ, NIC_WC_WR_FLUSH_ERR, 16);
    expect_cqe(&q, 0x703, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 1);
    cfg_qp(&q, NIC_QPS_ERR, NIC_QPS_RESET);
    run(20);
    ack(&q, 801, ACK_SYN);
    run(40);
    expect_u32("dropped", st.dropped, 1);
    bring_up(&q);
    rec(&q, 0, 5, 5, NIC_WR_SEND, 1, 0x710, 0, 8, 0);
    run(20);
    ack(&q, 5, ACK_SYN);
    run(40);
    expect_cqe(&q, 0x710, NIC_WC_SEND, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
}

/* SQ drain (IB 10.3.1): the SQD marker behind two outstanding WQEs raises SQ_DRAINED once,
 * only when the last of them is retired; a marker with nothing outstanding raises it as soon
 * as the completer also has the SQD cfg (marker first, cfg later); leaving SQD before the
 * drain ends cancels it. */
static void sc_sqd_drain(void) {
    qp_t q = qp_std(3, 0x000333, 3);
    bring_up(&q);
    rec(&q, 0, 10, 10, NIC_WR_SEND, 1, 0x900, 0, 10, 0);
    rec(&q, 1, 11, 12, NIC_WR_WRITE, 1, 0x901, 0, 1500, 0);
    sqd_mark(&q, NIC_SQD_MARK_ENTER);
    cfg_qp(&q, NIC_QPS_RTS, NIC_QPS_SQD);
    run(60);
    if (n_ev != r_ev) fail("SQ_DRAINED with two WQEs outstanding");
    ack(&q, 10, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x900, NIC_WC_SEND, NIC_WC_SUCCESS, 10);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    if (n_ev != r_ev) fail("SQ_DRAINED with one WQE outstanding");
    ack(&q, 12, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x901, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 1500);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
    expect_event(&q, NIC_EV_SQ_DRAINED, 0);
    ack(&q, 12, ACK_SYN); /* a duplicate ACK afterwards raises nothing */
    run(60);
    cfg_qp(&q, NIC_QPS_SQD, NIC_QPS_RTS);
    sqd_mark(&q, NIC_SQD_MARK_LEAVE);
    run(40);
    /* nothing outstanding; the marker overtakes the cfg */
    sqd_mark(&q, NIC_SQD_MARK_ENTER);
    run(40);
    if (n_ev != r_ev) fail("SQ_DRAINED before the completer had SQD");
    cfg_qp(&q, NIC_QPS_RTS, NIC_QPS_SQD);
    run(40);
    expect_event(&q, NIC_EV_SQ_DRAINED, 0);
    cfg_qp(&q, NIC_QPS_SQD, NIC_QPS_RTS);
    sqd_mark(&q, NIC_SQD_MARK_LEAVE);
    /* SQD left before the drain ended: no event */
    rec(&q, 2, 13, 13, NIC_WR_SEND, 0, 0x902, 0, 1, 0);
    sqd_mark(&q, NIC_SQD_MARK_ENTER);
    cfg_qp(&q, NIC_QPS_RTS, NIC_QPS_SQD);
    run(40);
    cfg_qp(&q, NIC_QPS_SQD, NIC_QPS_RTS);
    sqd_mark(&q, NIC_SQD_MARK_LEAVE);
    run(40);
    ack(&q, 13, ACK_SYN);
    run(60);
    expect_ctl(NIC_REQ_RETIRED, &q, 3, 0);
    expect_u32("dropped", st.dropped, 1);
}

/* ghosts: a READ response for a QP with nothing outstanding, and one for another qpn of the
 * same row, are dropped with their payload drained and nothing written */
static void sc_ghosts(void) {
    qp_t q = qp_std(3, 0x000F0F, 2);
    bring_up(&q);
    static uint8_t d[700], junk[700];
    fill(d, 700, 5);
    fill(junk, 700, 6);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_ONLY, 900, ACK_SYN, 0, junk, 300);
    rec(&q, 0, 900, 901, NIC_WR_READ, 1, 0x800, A(0x80000), 700, 0);
    run(40);
    resp(&q, q.qpn + 0x10, ROCE_OP_READ_RESPONSE_FIRST, 900, ACK_SYN, 0, junk, 512);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_FIRST, 900, ACK_SYN, 0, junk, 500); /* FIRST < MTU */
    read_responses(&q, 900, d, 700);
    run(200);
    memcpy(exp_mem + 0x80000, d, 700);
    expect_cqe(&q, 0x800, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 700);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    expect_u32("dropped", st.dropped, 3);
    expect_u32("acks", st.acks, 2);
}

/* a WQE the requester rejected (status != 0) with nothing outstanding: it completes at once
 * with its status (unsignaled: errors always show), the QP fails (event, STOP), the flush
 * records after it complete with WR_FLUSH_ERR; no timer is armed for it */
static void sc_status_alone(void) {
    qp_t q = qp_std(0, 0x001111, 3);
    q.timeout = 1; /* 2048 cycles: would fire during the run below if armed */
    bring_up(&q);
    rec_s(&q, 5, 40, 40, NIC_WR_CAS, 0, 0x1100, A(0x1000), 4, 0, NIC_WC_LOC_QP_OP_ERR);
    rec(&q, 6, 0, 0, NIC_WR_SEND, 1, 0x1101, 0, 3, 1);
    rec(&q, 7, 0, 0, NIC_WR_WRITE, 0, 0x1102, 0, 9, 1);
    run(10000);
    expect_cqe(&q, 0x1100, NIC_WC_COMP_SWAP, NIC_WC_LOC_QP_OP_ERR, 8);
    expect_ev(&q, NIC_WC_LOC_QP_OP_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 6, 0);
    expect_cqe(&q, 0x1101, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 3);
    expect_cqe(&q, 0x1102, NIC_WC_RDMA_WRITE, NIC_WC_WR_FLUSH_ERR, 9);
    expect_u32("timeouts", st.timeouts, 0);
    ack(&q, 40, ACK_SYN); /* ghost for a failed QP */
    run(40);
    expect_u32("dropped", st.dropped, 1);
}

/* a rejected WQE behind two outstanding WRITEs: it waits for them (no CQE, no timer of its
 * own), the flush records behind it wait too; a partial ACK retires the first WRITE, the
 * second ACK the other, then in the same event the rejected WQE fails the QP. CQE order
 * write, write, error, flushes. */
static void sc_status_behind_acked(void) {
    qp_t q = qp_std(1, 0x001212, 3);
    bring_up(&q);
    rec(&q, 0, 10, 11, NIC_WR_WRITE, 1, 0x1200, 0, 1500, 0);
    rec(&q, 1, 12, 12, NIC_WR_WRITE, 1, 0x1201, 0, 100, 0);
    rec_s(&q, 2, 13, 13, 9, 0, 0x1202, 0, 7, 0, NIC_WC_LOC_QP_OP_ERR); /* bad opcode */
    rec(&q, 3, 0, 0, NIC_WR_SEND, 1, 0x1203, 0, 1, 1);
    rec(&q, 4, 0, 0, NIC_WR_READ, 0, 0x1204, A(0x2000), 64, 1);
    run(200);
    if (n_cqe != r_cqe || n_ctl != r_ctl || n_ev != r_ev) fail("completed before the ACKs");
    ack(&q, 11, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x1200, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 1500);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    if (n_cqe != r_cqe || n_ev != r_ev) fail("the rejected WQE completed too early");
    ack(&q, 12, ACK_SYN);
    run(80);
    expect_cqe(&q, 0x1201, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 100);
    expect_cqe(&q, 0x1202, NIC_WC_SEND, NIC_WC_LOC_QP_OP_ERR, 7);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
    expect_ev(&q, NIC_WC_LOC_QP_OP_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 3, 0);
    expect_cqe(&q, 0x1203, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 1);
    expect_cqe(&q, 0x1204, NIC_WC_RDMA_READ, NIC_WC_WR_FLUSH_ERR, 64);
    rec(&q, 5, 0, 0, NIC_WR_SEND, 0, 0x1205, 0, 2, 1); /* later flush: QP in ERR */
    run(40);
    expect_cqe(&q, 0x1205, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 2);
    expect_u32("acks", st.acks, 2);
    expect_u32("timeouts", st.timeouts, 0);
}

/* the same behind a READ: the READ's last response completes it, the rejected WQE follows
 * in the same event */
static void sc_status_behind_read(void) {
    qp_t q = qp_std(0, 0x001515, 1); /* 256-byte MTU */
    bring_up(&q);
    static uint8_t d[300];
    fill(d, 300, 15);
    rec(&q, 8, 30, 31, NIC_WR_READ, 0, 0x1500, A(0x5000), 300, 0);
    rec_s(&q, 9, 32, 32, NIC_WR_SEND, 1, 0x1501, 0, 2, 0, NIC_WC_LOC_QP_OP_ERR);
    rec(&q, 10, 0, 0, NIC_WR_SEND, 1, 0x1502, 0, 4, 1);
    run(40);
    read_responses(&q, 30, d, 300);
    run(120);
    memcpy(exp_mem + 0x5000, d, 300);
    expect_cqe(&q, 0x1501, NIC_WC_SEND, NIC_WC_LOC_QP_OP_ERR, 2); /* the READ is unsignaled */
    expect_ctl(NIC_REQ_RETIRED, &q, 9, 0);
    expect_ev(&q, NIC_WC_LOC_QP_OP_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 10, 0);
    expect_cqe(&q, 0x1502, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 4);
}

/* a rejected WQE behind a WRITE that is never acknowledged (the requester, flushing, ignores
 * the REWINDs): the WRITE fails with RETRY_EXC_ERR, the QP fails on that error, and the
 * rejected WQE and the flush record are flushed after it, in SQ order */
static void sc_status_behind_timeout(void) {
    qp_t q = qp_std(2, 0x001313, 3);
    q.timeout = 1; /* 2048 cycles */
    q.retry_cnt = 2;
    bring_up(&q);
    rec(&q, 3, 500, 502, NIC_WR_WRITE, 0, 0x1300, 0, 3000, 0);
    rec_s(&q, 4, 503, 503, NIC_WR_FAA, 1, 0x1301, A(0x3000), 8, 0, NIC_WC_LOC_QP_OP_ERR);
    rec(&q, 5, 0, 0, NIC_WR_SEND, 1, 0x1302, 0, 11, 1);
    run(3 * (2048 + lat()) + 100);
    expect_ctl(NIC_REQ_REWIND, &q, 3, 500);
    expect_ctl(NIC_REQ_REWIND, &q, 3, 500);
    expect_cqe(&q, 0x1300, NIC_WC_RDMA_WRITE, NIC_WC_RETRY_EXC_ERR, 3000);
    expect_ev(&q, NIC_WC_RETRY_EXC_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 4, 0);
    expect_cqe(&q, 0x1301, NIC_WC_FETCH_ADD, NIC_WC_WR_FLUSH_ERR, 8);
    expect_cqe(&q, 0x1302, NIC_WC_SEND, NIC_WC_WR_FLUSH_ERR, 11);
    expect_u32("timeouts", st.timeouts, 3);
}

/* deadlock guard: with req_ctl blocked (the requester takes req_ctl only between packets),
 * the completer still takes a wqe_rec, so a requester waiting to hand over a record can
 * finish and come back for req_ctl */
static void sc_wqe_rec_while_req_ctl_blocked(void) {
    qp_t q = qp_std(3, 0x001414, 3);
    bring_up(&q);
    rec(&q, 0, 20, 20, NIC_WR_SEND, 1, 0x1400, 0, 5, 0);
    run(40);
    ctl_block = true;
    ack(&q, 20, ACK_SYN);
    run(40); /* CQE sent, RETIRED waiting */
    rec(&q, 1, 21, 21, NIC_WR_SEND, 1, 0x1401, 0, 6, 0);
    run(40);
    if (!Q_EMPTY(q_rec)) fail("wqe_rec not taken while req_ctl is blocked");
    ctl_block = false;
    run(40);
    expect_cqe(&q, 0x1400, NIC_WC_SEND, NIC_WC_SUCCESS, 5);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    ack(&q, 21, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x1401, NIC_WC_SEND, NIC_WC_SUCCESS, 6);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
}

/* ---- regressions found by testbench/scenario (docs/scenarios.md) ---- */

/* A response and the record it answers reach the completer in the same cycle (the ACK of a
 * one-packet SEND can come back before the record is taken): the record goes first, the
 * ACK is not dropped as "nothing outstanding" (found by scenario mixed). */
static void sc_ack_with_its_record(void) {
    qp_t q = qp_std(2, 0x001515, 1);
    bring_up(&q);
    ack(&q, 30, ACK_SYN);                       /* queued first, both valid together */
    rec(&q, 0, 30, 30, NIC_WR_SEND, 1, 0x1500, 0, 9, 0);
    run(60);
    expect_cqe(&q, 0x1500, NIC_WC_SEND, NIC_WC_SUCCESS, 9);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    expect_u32("acks", st.acks, 1);
    expect_u32("dropped", st.dropped, 0);
}

/* An ACK inside a multi-packet WRITE (AckReq every 8th PSN) retires nothing, counts as an
 * ACK (not dropped) and restarts the ACK timer: the resend comes one timeout after it, and
 * starts behind the acknowledged PSN (9.7.5.2.2: the oldest unacknowledged one). */
static void sc_mid_message_ack(void) {
    qp_t q = qp_std(0, 0x001616, 1);
    q.timeout = 1;                              /* 2048 cycles */
    bring_up(&q);
    rec(&q, 0, 100, 111, NIC_WR_WRITE, 1, 0x1600, 0, 12 * 256, 0);
    run(1000);
    uint64_t t = cycle;
    ack(&q, 107, ACK_SYN);
    run(200);
    expect_u32("acks", st.acks, 1);
    expect_u32("dropped", st.dropped, 0);
    if (n_ctl != r_ctl || n_cqe != r_cqe) fail("a mid-message ACK retired or resent something");
    expect_timeout_rewind("resend after the mid-message ACK", &q, t, 2048, 0, 108, 8);
    ack(&q, 111, ACK_SYN);
    run(80);
    expect_cqe(&q, 0x1600, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 12 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    expect_u32("timeouts", st.timeouts, 1);
}

/* An ACK inside the message that moves it forward resets the retry count, as retiring a
 * message does (rxe check_ack): with retry_cnt 1, a timeout, progress, and a second timeout
 * is a second resend, not RETRY_EXC_ERR (a 1 MiB message on a lossy wire needs this). */
static void sc_mid_message_progress(void) {
    qp_t q = qp_std(0, 0x001717, 1);
    q.timeout = 1;                              /* 2048 cycles */
    q.retry_cnt = 1;
    bring_up(&q);
    rec(&q, 0, 100, 111, NIC_WR_WRITE, 1, 0x1700, 0, 12 * 256, 0);
    run(40);
    uint64_t t = cycle;
    ack(&q, 103, ACK_SYN);
    expect_timeout_rewind("first resend", &q, t, 2048, 0, 104, 4);
    t = cycle;
    ack(&q, 107, ACK_SYN);
    expect_timeout_rewind("second resend after progress", &q, t, 2048, 0, 108, 8);
    ack(&q, 111, ACK_SYN);
    run(80);
    expect_cqe(&q, 0x1700, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 12 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    expect_u32("timeouts", st.timeouts, 2);
    expect_u32("retries", st.retries, 2);
}

/* NAKs for the packets sent before the requester learnt of the RNR (the responder's
 * sequence-error NAK for 401, a duplicated RNR NAK) are echoes: one RNR retry for the burst (rnr_retry 1 survives it), one resend after the wait (scenario
 * rnr-wait). */
static void sc_rnr_echoes(void) {
    qp_t q = qp_std(1, 0x001717, 2);
    q.rnr_retry = 1;
    bring_up(&q);
    rec(&q, 0, 400, 400, NIC_WR_SEND, 1, 0x1700, 0, 10, 0);
    rec(&q, 1, 401, 401, NIC_WR_SEND, 1, 0x1701, 0, 11, 0);
    rec(&q, 2, 402, 402, NIC_WR_SEND, 1, 0x1702, 0, 12, 0);
    run(40);
    uint64_t t = cycle;
    ack(&q, 400, 0x21);                         /* RNR, 2500 cycles */
    ack(&q, 400, 0x60);                         /* 401 arrived out of sequence */
    ack(&q, 400, 0x21);                         /* the wire duplicated the RNR NAK */
    run(2500 + lat());
    expect_within("RNR resend", expect_ctl(NIC_REQ_REWIND, &q, 0, 400), t + 2500, t + 2500 + lat());
    ack(&q, 402, ACK_SYN);
    run(80);
    expect_cqe(&q, 0x1700, NIC_WC_SEND, NIC_WC_SUCCESS, 10);
    expect_cqe(&q, 0x1701, NIC_WC_SEND, NIC_WC_SUCCESS, 11);
    expect_cqe(&q, 0x1702, NIC_WC_SEND, NIC_WC_SUCCESS, 12);
    expect_ctl(NIC_REQ_RETIRED, &q, 3, 0);
    expect_u32("naks", st.naks, 1);
    expect_u32("retries", st.retries, 1);
}

/* A duplicated NAK (sequence error) starts one resend, not two (scenario faults). */
static void sc_duplicate_nak(void) {
    qp_t q = qp_std(3, 0x001818, 1);
    bring_up(&q);
    rec(&q, 0, 200, 200, NIC_WR_SEND, 1, 0x1800, 0, 1, 0);
    rec(&q, 1, 201, 201, NIC_WR_SEND, 1, 0x1801, 0, 2, 0);
    run(40);
    ack(&q, 200, 0x60);
    ack(&q, 200, 0x60);                         /* the wire duplicated it */
    run(80);
    expect_ctl(NIC_REQ_REWIND, &q, 0, 200);
    expect_u32("retries", st.retries, 1);
    ack(&q, 201, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x1800, NIC_WC_SEND, NIC_WC_SUCCESS, 1);
    expect_cqe(&q, 0x1801, NIC_WC_SEND, NIC_WC_SUCCESS, 2);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
}

/* A second sequence NAK past the start of a resend under way (lossy migration seed 173: the
 * packet the first NAK named came late, the next was lost) moves the start forward with a
 * REISSUE of the WRITE, which the requester takes only if it has not passed that PSN; an
 * echo of the first NAK, or a NAK behind the new start, moves nothing; no retry counted. */
static void sc_second_nak_forward(void) {
    qp_t q = qp_std(2, 0x001D1D, 1);
    bring_up(&q);
    rec(&q, 0, 100, 109, NIC_WR_WRITE, 1, 0x1D00, 0, 10 * 256, 0);
    run(40);
    ack(&q, 103, 0x60);                         /* 103 missing: resend from it */
    run(60);
    expect_ctl_off(NIC_REQ_REWIND, &q, 0, 103, 3);
    ack(&q, 103, 0x60);                         /* an echo */
    run(60);
    if (n_ctl != r_ctl) fail("an echo of the NAK moved the resend");
    ack(&q, 105, 0x60);                         /* 103, 104 came late; 105 missing */
    run(60);
    expect_ctl_off(NIC_REQ_REISSUE, &q, 0, 105, 5);
    expect_acked(-1);                         /* a SEND/WRITE's forward move */
    ack(&q, 104, 0x60);                         /* behind the new start */
    run(60);
    if (n_ctl != r_ctl) fail("a NAK behind the resend's start moved it");
    expect_u32("retries", st.retries, 1);
    ack(&q, 109, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x1D00, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 10 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
}

/* After a timeout resend, the ACK answering the resent SEND behind a lost atomic response
 * (which implies that loss) starts no second resend: one retry per loss, the next is the
 * timer's (rxe started_retry). Counting it burnt two retries per loss (faults seed 74). */
static void sc_timeout_then_implied_loss(void) {
    qp_t q = qp_std(0, 0x001919, 3);
    q.timeout = 1;                              /* 2048 cycles */
    q.retry_cnt = 2;
    bring_up(&q);
    rec(&q, 0, 50, 50, NIC_WR_CAS, 1, 0x1900, A(0x70000), 8, 0);
    rec(&q, 1, 51, 51, NIC_WR_SEND, 1, 0x1901, 0, 3, 0);
    uint64_t t = cycle;
    run_to(t + 2048 + lat() + 10);
    uint64_t r1 = expect_ctl(NIC_REQ_REWIND, &q, 0, 50);
    ack(&q, 51, ACK_SYN);                       /* the CAS response was lost again */
    run(200);
    if (n_ctl != r_ctl) fail("an implied loss after a timeout resend started another resend");
    run_to(r1 + 2048 + lat() + 10);
    /* the ACK for 51 was kept: the peer has the SEND, the CAS goes alone */
    expect_within("second timeout resend", expect_ctl(NIC_REQ_REISSUE, &q, 0, 50), r1 + 2048,
                  r1 + 2048 + lat());
    resp(&q, q.qpn, ROCE_OP_ATOMIC_ACKNOWLEDGE, 50, ACK_SYN, 0x0102030405060708ull, NULL, 0);
    ack(&q, 51, ACK_SYN);
    run(100);
    uint64_t v = 0x0102030405060708ull;
    memcpy(exp_mem + 0x70000, &v, 8);
    expect_cqe(&q, 0x1900, NIC_WC_COMP_SWAP, NIC_WC_SUCCESS, 8);
    /* the first ACK for 51 was kept (cmp_qpc_t.acked): the SEND retires with the CAS */
    expect_cqe(&q, 0x1901, NIC_WC_SEND, NIC_WC_SUCCESS, 3);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
    expect_u32("timeouts", st.timeouts, 2);
    expect_u32("retries", st.retries, 2);
}

/* Where a resend starts inside a SEND/WRITE (IB 9.7.5.2): an ACK that retires one WRITE and
 * lands inside the next one, a sequence NAK further in, a stale ACK that must not move the
 * point back, then a timeout: each REWIND names the oldest PSN the responder lacks, across
 * the PSN wrap. */
static void sc_resume_point(void) {
    qp_t q = qp_std(1, 0x001A1A, 1);
    q.timeout = 1;                              /* 2048 cycles */
    bring_up(&q);
    rec(&q, 4, 0xFFFFFD, 0xFFFFFE, NIC_WR_WRITE, 1, 0x1A00, 0, 300, 0);
    rec(&q, 5, 0xFFFFFF, 8, NIC_WR_SEND, 1, 0x1A01, 0, 10 * 256, 0);
    run(40);
    ack(&q, 2, ACK_SYN);                        /* WRITE done, SEND acknowledged to PSN 2 */
    run(60);
    expect_cqe(&q, 0x1A00, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 300);
    expect_ctl(NIC_REQ_RETIRED, &q, 5, 0);
    ack(&q, 6, 0x60);                           /* 6 lost: resend from 6 */
    run(60);
    expect_ctl_off(NIC_REQ_REWIND, &q, 5, 6, 7);
    ack(&q, 4, ACK_SYN);                        /* late: the point stays at 6 */
    expect_timeout_rewind("timeout resend", &q, cycle, 2048, 5, 6, 7);
    ack(&q, 8, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x1A01, NIC_WC_SEND, NIC_WC_SUCCESS, 10 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 6, 0);
    expect_u32("retries", st.retries, 2);
}

/* A READ whose responses stop part-way times out and resumes at the first missing response
 * PSN (rxe req_retry); the re-issued request's responses start with FIRST (or ONLY for the
 * last packet) there, a late MIDDLE of the first request at that PSN is refused, and the data
 * lands at local_addr + what had arrived. */
static void sc_read_resume(void) {
    qp_t q = qp_std(2, 0x001B1B, 1);
    q.timeout = 1;
    bring_up(&q);
    static uint8_t d1[5 * 256], d2[3 * 256], junk[256];
    fill(d1, sizeof d1 - 100, 51);
    fill(d2, sizeof d2 - 7, 52);
    fill(junk, sizeof junk, 53);
    uint32_t n1 = sizeof d1 - 100, n2 = sizeof d2 - 7;
    rec(&q, 0, 0xFFFFFE, 2, NIC_WR_READ, 1, 0x1B00, A(0x71003), n1, 0);  /* 5 responses */
    rec(&q, 1, 3, 5, NIC_WR_READ, 1, 0x1B01, A(0x72000), n2, 0);         /* 3 responses */
    run(40);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_FIRST, 0xFFFFFE, ACK_SYN, 0, d1, 256);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_MIDDLE, 0xFFFFFF, ACK_SYN, 0, d1 + 256, 256);
    uint64_t t = cycle;
    run_to(t + 2048 + lat() + 10);
    expect_within("READ resend", expect_ctl_off(NIC_REQ_REWIND, &q, 0, 0, 2), t, t + 2048 + lat() + 10);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_MIDDLE, 0, ACK_SYN, 0, junk, 256); /* the old request's */
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_FIRST, 0, ACK_SYN, 0, d1 + 512, 256);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_MIDDLE, 1, ACK_SYN, 0, d1 + 768, 256);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_LAST, 2, ACK_SYN, 0, d1 + 1024, n1 - 1024);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_FIRST, 3, ACK_SYN, 0, d2, 256);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_MIDDLE, 4, ACK_SYN, 0, d2 + 256, 256);
    run(400);
    memcpy(exp_mem + 0x71003, d1, n1);
    memcpy(exp_mem + 0x72000, d2, 512);
    expect_cqe(&q, 0x1B00, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, n1);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    t = cycle;
    run_to(t + 2048 + lat() + 10);             /* the second READ's last response is lost */
    expect_within("second READ resend", expect_ctl_off(NIC_REQ_REWIND, &q, 1, 5, 2), t, t + 2048 + lat() + 10);
    resp(&q, q.qpn, ROCE_OP_READ_RESPONSE_ONLY, 5, ACK_SYN, 0, d2 + 512, n2 - 512);
    run(200);
    memcpy(exp_mem + 0x72000, d2, n2);
    expect_cqe(&q, 0x1B01, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, n2);
    expect_ctl(NIC_REQ_RETIRED, &q, 2, 0);
    expect_u32("dropped", st.dropped, 1);
}

/* An RNR NAK names the packet that needed a receive WQE: for a WRITE with immediate that is
 * its LAST packet (the data before it was accepted), so the resend after the RNR wait is
 * that packet only. */
static void sc_rnr_mid_message(void) {
    qp_t q = qp_std(3, 0x001C1C, 1);
    bring_up(&q);
    rec(&q, 9, 600, 603, NIC_WR_WRITE_IMM, 1, 0x1C00, 0, 4 * 256, 0);
    run(40);
    uint64_t t = cycle;
    ack(&q, 603, 0x21);                         /* RNR, 2500 cycles */
    run(2500 + lat());
    expect_within("RNR resend", expect_ctl_off(NIC_REQ_REWIND, &q, 9, 603, 3), t + 2500, t + 2500 + lat());
    ack(&q, 603, ACK_SYN);
    run(60);
    expect_cqe(&q, 0x1C00, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 4 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 10, 0);
}

/* random but well-formed traffic on every input for 300000 cycles, under the sanitizers:
 * no undefined behaviour, every output beat held until taken, every DMA write inside the
 * buffers the records name (so inside the test memory) */
static void sc_random(void) {
    prng_t r;
    prng_seed(&r, 7 + bp);
    for (unsigned n = 0; n < 300000; n++) {
        uint64_t x = prng_next(&r);
        unsigned qp = (x >> 8) & 7, fn = qp & 3; /* a few rows so that things collide */
        uint32_t qpn = 0x1000 + (qp & 4 ? 0x11 : 0x01) + (fn & 1);
        qp_t q = {.fn = fn, .qpn = qpn, .pmtu = (x >> 12) % 6, .timeout = (x >> 16) % 4,
                  .retry_cnt = (x >> 20) & 7, .rnr_retry = (x >> 23) & 7, .cq = (x >> 26) & 63,
                  .backoff = (x >> 32) & 1, .bf = (x >> 33) % 3, .bc = (x >> 35) % 4};
        uint32_t psn = 0xFFFFF0 + ((x >> 40) & 31);
        if ((x & 255) < 2 && q_cfg.t - q_cfg.h < 4)
            cfg_qp(&q, (x >> 44) & 7, (x >> 47) & 7 ? NIC_QPS_RTS : (x >> 50) % 7);
        if ((x & 255) >= 200 && (x & 255) < 230 && q_rec.t - q_rec.h < 8)
            rec_s(&q, (uint16_t)(x >> 49), psn, psn + ((x >> 52) & 3), (x >> 54) % 7,
                  (x >> 57) & 1, x, MEM_BASE + ((x >> 36) & 0x3FFFF), (uint32_t)((x >> 4) % 9000),
                  (x >> 58) % 16 == 0, (x >> 58) % 16 == 1 ? NIC_WC_LOC_QP_OP_ERR : 0);
        if ((x & 255) >= 100 && (x & 255) < 125 && q_pkt.t - q_pkt.h < 4) {
            static uint8_t junk[4096];
            unsigned op = ROCE_OP_READ_RESPONSE_FIRST + (x >> 56) % 6;
            unsigned len = op <= ROCE_OP_READ_RESPONSE_ONLY ? (unsigned)((x >> 4) % 4097) : 0;
            unsigned syn = ((x >> 53) & 1 ? 0 : (unsigned)(x >> 45) & 0x60) | (unsigned)((x >> 1) & 3);
            resp(&q, (x >> 61) ? qpn : qpn + 16, op, psn, syn, x, junk, len);
        }
        step();
    }
    run(1000);
    if (bad_dma) fail("%u DMA writes outside the buffers", bad_dma);
    r_ctl = n_ctl;
    r_cqe = n_cqe;
    r_ev = n_ev;
    memcpy(exp_mem, mem, MEM_SIZE);
    Q_EMPTY(q_pkt) ? (void)0 : fail("random traffic left packets unconsumed");
    q_cfg.h = q_cfg.t;
    q_rec.h = q_rec.t;
    q_pkt.h = q_pkt.t;
    q_pay.h = q_pay.t;
}

static void reset_all(void) {
    memset(&st, 0, sizeof st);
    memset(&q_cfg, 0, sizeof q_cfg);
    memset(&q_rec, 0, sizeof q_rec);
    memset(&q_pkt, 0, sizeof q_pkt);
    memset(&q_pay, 0, sizeof q_pay);
    memset(&held, 0, sizeof held);
    ctl_block = false;
    n_ctl = n_cqe = n_ev = r_ctl = r_cqe = r_ev = 0;
    memset(mem, 0xEE, MEM_SIZE);
    memset(exp_mem, 0xEE, MEM_SIZE);
    fails_here = 0;
    bad_dma = 0;
}


/* ---- migration (docs/completer.md "Migration") ---- */
static void cfg_suspend(unsigned fn, unsigned level) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_SUSPEND; c.fn = (nic_fn_t)fn; c.level = (hls_uint(2))level;
    Q_PUSH(q_cfg, c);
}
static void cfg_ctx(const qp_t *q, bool wr, unsigned sect, hls_u128 d) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_CTX; c.fn = (nic_fn_t)q->fn; c.qp = row_of(q->fn, q->qpn); c.ctx_write = wr;
    c.ctx_sect = (uint8_t)sect; c.ctx_data = d;
    if (sect == NIC_CTX_DIRTY) c.key = NIC_CTX_COMP_QP;
    Q_PUSH(q_cfg, c);
}
/* A context read or write through cfg; its NIC_EV_CTX answer. */
static hls_u128 ctx_cmd(const qp_t *q, bool wr, unsigned sect, hls_u128 d) {
    cfg_ctx(q, wr, sect, d);
    run(60);
    if (r_ev >= n_ev || ev_log[r_ev].m.kind != NIC_EV_CTX || ev_log[r_ev].m.fn != (nic_fn_t)q->fn) {
        fail("no NIC_EV_CTX answer (%u events)", n_ev - r_ev);
        return 0;
    }
    return ev_log[r_ev++].m.data;
}
static void mig_marks_in(unsigned fn) {
    nic_rx_pkt_t p;
    memset(&p, 0, sizeof p);
    p.fn = (nic_fn_t)fn; p.mig_mark = 1;
    Q_PUSH(q_pkt, p);
    nic_wqe_rec_t r;
    memset(&r, 0, sizeof r);
    r.qp = (nic_qp_t)(fn << NIC_QP_SLOT_BITS); r.sqd_mark = NIC_MIG_MARK;
    Q_PUSH(q_rec, r);
}

/* Stopped (PASSIVE, from Suspend-Active on): a response that passed the gate before
 * rx_dispatch's marker is still processed (CQE, RETIRED with the next WQE's first PSN); the
 * timer of the WQE still outstanding is frozen far past its deadline (no timeout, no retry
 * used up) and re-armed in full at RUN. */
static void sc_mig_timer(void) {
    qp_t q = qp_std(1, 0x002525, 1);
    q.timeout = 2;                              /* 4096 cycles */
    bring_up(&q);
    rec(&q, 4, 50, 50, NIC_WR_SEND, 1, 0x2500, 0, 100, 0);
    rec(&q, 5, 51, 52, NIC_WR_WRITE, 1, 0x2501, 0, 300, 0);
    run(100);
    cfg_suspend(1, NIC_SUSPEND_PASSIVE);
    run(20);
    ack(&q, 50, ACK_SYN);
    run(100);
    expect_cqe(&q, 0x2500, NIC_WC_SEND, NIC_WC_SUCCESS, 100);
    expect_ctl(NIC_REQ_RETIRED, &q, 5, 0);
    if (ctl_log[r_ctl - 1].m.psn != 51) fail("RETIRED psn %u, want 51 (WQE 5's first)", (unsigned)ctl_log[r_ctl - 1].m.psn);
    run(60000);                                 /* 15 timeouts' worth */
    expect_u32("timeouts while suspended", st.timeouts, 0);
    if (n_ctl != r_ctl) fail("req_ctl while suspended");
    cfg_suspend(1, NIC_SUSPEND_RUN);
    run(2);
    uint64_t t = cycle;
    expect_timeout_rewind("timeout re-armed at RUN", &q, t, 4096, 5, 51, 0);
    expect_u32("timeouts", st.timeouts, 1);
    ack(&q, 52, ACK_SYN);
    run(100);
    expect_cqe(&q, 0x2501, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 300);
    expect_ctl(NIC_REQ_RETIRED, &q, 6, 0);
}

/* PASSIVE: the markers wait for both inputs' markers, follow the last response of the
 * function, leave in order req_ctl, cqe, ev; another function is not held up. */
static void sc_mig_passive(void) {
    qp_t q = qp_std(2, 0x002626, 1), o = qp_std(3, 0x002727, 1);
    bring_up(&q);
    bring_up(&o);
    rec(&q, 0, 10, 10, NIC_WR_SEND, 1, 0x2600, 0, 8, 0);
    rec(&o, 0, 20, 20, NIC_WR_SEND, 1, 0x2700, 0, 8, 0);
    rec(&o, 1, 21, 21, NIC_WR_SEND, 1, 0x2701, 0, 8, 0);
    cfg_suspend(2, NIC_SUSPEND_PASSIVE);
    run(200);
    ack(&q, 10, ACK_SYN);                       /* passed the gate before it closed */
    nic_rx_pkt_t p;
    memset(&p, 0, sizeof p);
    p.fn = 2; p.mig_mark = 1;
    Q_PUSH(q_pkt, p);
    run(200);
    if (n_ctl - r_ctl != 1 || n_ev != r_ev) fail("markers before the requester's");
    ack(&o, 20, ACK_SYN);
    run(100);
    nic_wqe_rec_t r;
    memset(&r, 0, sizeof r);
    r.qp = 2 << NIC_QP_SLOT_BITS; r.sqd_mark = NIC_MIG_MARK;
    Q_PUSH(q_rec, r);
    run(200);
    expect_cqe(&q, 0x2600, NIC_WC_SEND, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &q, 1, 0);
    expect_cqe(&o, 0x2700, NIC_WC_SEND, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &o, 1, 0);
    if (r_ctl >= n_ctl || r_cqe >= n_cqe || r_ev >= n_ev) { fail("markers missing"); return; }
    ctl_log_t mc = ctl_log[r_ctl++];
    cqe_log_t mq = cqe_log[r_cqe++];
    ev_log_t me = ev_log[r_ev++];
    if (mc.m.kind != NIC_REQ_MIG_MARK || mc.m.qp != 2 << NIC_QP_SLOT_BITS) fail("req_ctl marker kind %u qp %u", mc.m.kind, (unsigned)mc.m.qp);
    if (!mq.m.mig_mark || mq.m.cq != 2 << NIC_QP_SLOT_BITS) fail("cqe marker");
    if (me.m.kind != NIC_EV_MIG_MARK || me.m.fn != 2) fail("ev marker kind %u fn %u", me.m.kind, (unsigned)me.m.fn);
    if (!(mc.cyc <= mq.cyc && mq.cyc <= me.cyc)) fail("markers out of order");
    run(500);
    if (n_ctl != r_ctl || n_cqe != r_cqe || n_ev != r_ev) fail("a second set of markers");
    ack(&o, 21, ACK_SYN);                       /* the other function goes on */
    run(100);
    expect_cqe(&o, 0x2701, NIC_WC_SEND, NIC_WC_SUCCESS, 8);
    expect_ctl(NIC_REQ_RETIRED, &o, 2, 0);
    cfg_suspend(2, NIC_SUSPEND_RUN);
    run(40);
}

/* Function fn suspended to PASSIVE, its markers in and counted as read. */
static void mig_suspend_passive(unsigned fn) {
    cfg_suspend(fn, NIC_SUSPEND_PASSIVE);
    mig_marks_in(fn);
    run(200);
    r_ctl++; r_cqe++; r_ev++;                   /* the markers (sc_mig_passive checks them) */
}
/* A fresh block (all state zero), q's function PASSIVE, q loaded with QP_ATTR and word w. */
static void mig_fresh_load(qp_t *q, hls_u128 w) {
    memset(&st, 0, sizeof st);
    cfg_suspend(q->fn, NIC_SUSPEND_PASSIVE);
    cfg_qp(q, NIC_QPS_RTS, NIC_QPS_RTS);
    q_cfg.q[(q_cfg.t - 1) % QCAP].kind = NIC_CFG_QP_ATTR;
    if (ctx_cmd(q, true, NIC_CTX_COMP_QP, w) != w) fail("write answer");
}

/* A QP of fn 1 at RTS with a 2048-cycle ACK timeout and 3 retries. */
static qp_t mig_source_qp(uint32_t qpn) {
    qp_t q = qp_std(1, qpn, 1);
    q.timeout = 1;
    q.retry_cnt = 3;
    bring_up(&q);
    return q;
}
/* The source of a migration: WQE 7, a WRITE of PSNs 200..211 (its record just queued), gets
 * an ACK of 204 (head_done 5) and a timeout (one retry used); then fn 1 is PASSIVE. */
static void mig_source_write_half_acked(qp_t *q) {
    run(100);
    uint64_t t = cycle;
    ack(q, 204, ACK_SYN);
    run(100);
    expect_timeout_rewind("source timeout", q, t, 2048, 7, 205, 5);
    mig_suspend_passive(1);
}

/* Save the retry state of a QP in the middle of a WRITE (an ACK inside it, a timeout used a
 * retry), load it into a fresh block (QP_ATTR, context write), rebuild its ring with the
 * records: the resend resumes where the source would have (first + head_done) with the
 * retries left the source had; dirty bits follow the writes. */
static void sc_mig_ctx(void) {
    qp_t q = mig_source_qp(0x002828);
    rec(&q, 7, 200, 211, NIC_WR_WRITE, 1, 0x2800, 0, 12 * 256, 0);
    mig_source_write_half_acked(&q);
    uint64_t t;
    hls_u128 d = ctx_cmd(&q, false, NIC_CTX_DIRTY, 0);
    if (d != (hls_u128)1 << (0x2828 % 16)) fail("dirty bits %#llx", (unsigned long long)d);
    if (ctx_cmd(&q, false, NIC_CTX_DIRTY, 0) != 0) fail("dirty bits not cleared by the read");
    hls_u128 w = ctx_cmd(&q, false, NIC_CTX_COMP_QP, 0);
    if ((uint32_t)(w >> NIC_CTX_COMP_HEAD_DONE) != 5 || (uint8_t)(w >> NIC_CTX_COMP_RETRIES_LEFT) != 2 ||
        (uint8_t)(w >> NIC_CTX_COMP_ARMED) != 1)
        fail("saved word: head_done %u retries_left %u armed %u", (uint32_t)(w >> NIC_CTX_COMP_HEAD_DONE),
             (uint8_t)(w >> NIC_CTX_COMP_RETRIES_LEFT), (uint8_t)(w >> NIC_CTX_COMP_ARMED));
    mig_fresh_load(&q, w);
    if (ctx_cmd(&q, false, NIC_CTX_COMP_QP, 0) != w) fail("read back");
    if (ctx_cmd(&q, false, NIC_CTX_DIRTY, 0) != (hls_u128)1 << (0x2828 % 16)) fail("dirty after the load");
    cfg_suspend(1, NIC_SUSPEND_RUN);
    rec(&q, 7, 200, 211, NIC_WR_WRITE, 1, 0x2800, 0, 12 * 256, 0);   /* the rebuilt ring */
    run(20);
    t = expect_timeout_rewind("resend from the loaded position", &q, cycle, 2048, 7, 205, 5);
    t = expect_timeout_rewind("the last retry", &q, t, 2048, 7, 205, 5);
    run_to(t + 2048 + 2 * lat());
    expect_cqe(&q, 0x2800, NIC_WC_RDMA_WRITE, NIC_WC_RETRY_EXC_ERR, 12 * 256);
    expect_ev(&q, NIC_WC_RETRY_EXC_ERR);
    expect_ctl(NIC_REQ_STOP, &q, 8, 0);
}

/* The requester's rebuild of a loaded QP's ring (docs/requester.md "Migration"): three
 * records arrive into the empty loaded ring. The first (a WRITE with 5 of 12 PSNs acked and
 * one timeout used) keeps the loaded state: its resend starts at first + 5; the READ and the
 * SEND behind it are taken as new: the READ's resend asks from its first PSN, all three
 * complete in SQ order. */
static void sc_mig_rebuild(void) {
    qp_t q = mig_source_qp(0x002929);
    rec(&q, 7, 200, 211, NIC_WR_WRITE, 1, 0x2900, 0, 12 * 256, 0);
    rec(&q, 8, 212, 216, NIC_WR_READ, 1, 0x2901, A(0x73000), 5 * 256, 0);
    rec(&q, 9, 217, 217, NIC_WR_SEND, 1, 0x2902, 0, 100, 0);
    mig_source_write_half_acked(&q);
    uint64_t t;
    hls_u128 w = ctx_cmd(&q, false, NIC_CTX_COMP_QP, 0);
    mig_fresh_load(&q, w);
    cfg_suspend(1, NIC_SUSPEND_RUN);
    /* the rebuilt ring, as the requester sends it after RUN */
    rec(&q, 7, 200, 211, NIC_WR_WRITE, 1, 0x2900, 0, 12 * 256, 0);
    rec(&q, 8, 212, 216, NIC_WR_READ, 1, 0x2901, A(0x73000), 5 * 256, 0);
    rec(&q, 9, 217, 217, NIC_WR_SEND, 1, 0x2902, 0, 100, 0);
    run(20);
    t = expect_timeout_rewind("resend from the loaded position", &q, cycle, 2048, 7, 205, 5);
    t = cycle;
    ack(&q, 211, ACK_SYN);                      /* the WRITE is done */
    run_to(t + 2048 + lat() + 100);             /* the READ's timer runs from that ACK */
    expect_cqe(&q, 0x2900, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, 12 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 8, 0);
    expect_ctl_off(NIC_REQ_REWIND, &q, 8, 212, 0); /* from its first PSN: not the loaded state */
    static uint8_t d[5 * 256];
    fill(d, sizeof d, 54);
    read_responses(&q, 212, d, sizeof d);
    ack(&q, 217, ACK_SYN);
    run(400);
    memcpy(exp_mem + 0x73000, d, sizeof d);
    expect_cqe(&q, 0x2901, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 5 * 256);
    expect_ctl(NIC_REQ_RETIRED, &q, 9, 0);
    expect_cqe(&q, 0x2902, NIC_WC_SEND, NIC_WC_SUCCESS, 100);
    expect_ctl(NIC_REQ_RETIRED, &q, 10, 0);
}

/* NIC_CFG_THROTTLE (DA9): a 64 KiB READ's responses (64 x 1 KiB) all offered at once are
 * written at the function's rate (4096 bytes per 1024 cycles: about 16k cycles from an empty
 * bucket), and at the port's speed again once the rate is 0 (off); every byte lands. */
static void cfg_throttle(unsigned fn, uint32_t rate) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_THROTTLE;
    c.fn = (nic_fn_t)fn;
    c.rate = rate;
    Q_PUSH(q_cfg, c);
}
static void sc_throttle(void) {
    static uint8_t d[65536];
    qp_t q = qp_std(1, 0x0450, 3);
    bring_up(&q);
    uint64_t took[2];
    for (unsigned k = 0; k < 2; k++) {
        uint32_t first = 0x100 + 64 * k;
        fill(d, sizeof d, 70 + k);
        cfg_throttle(q.fn, k == 0 ? 4096 : 0);
        run(4);
        rec(&q, (uint16_t)k, first, first + 63, NIC_WR_READ, 1, 0xE0 + k, A(0x20000 + 0x10000 * k), sizeof d, 0);
        run(4);
        uint64_t t0 = cycle;
        read_responses(&q, first, d, sizeof d);
        run(k == 0 ? 20000 : 4000);
        memcpy(exp_mem + 0x20000 + 0x10000 * k, d, sizeof d);
        took[k] = expect_cqe(&q, 0xE0 + k, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, sizeof d) - t0;
        expect_ctl(NIC_REQ_RETIRED, &q, (uint16_t)(k + 1), 0);
    }
    printf("     (64 KiB of READ responses written in %llu cycles at rate 4096, %llu unthrottled)\n",
           (unsigned long long)took[0], (unsigned long long)took[1]);
    if (took[0] < 15360 || took[0] > 18000)
        fail("throttled READ took %llu cycles, want about 16384 (4 bytes per cycle)", (unsigned long long)took[0]);
    if (took[1] > 4000) fail("unthrottled READ took %llu cycles", (unsigned long long)took[1]);
}

int main(void) {
    edges = hls_edge_queue_new();
    static const struct { const char *name; void (*fn)(void); } sc[] = {
        {"coalesced_ack", sc_coalesced_ack},
        {"ack_implies_lost_read", sc_ack_implies_lost_read},
        {"ack_past_read_kept", sc_ack_past_read_kept},
        {"kept_ack_inside_write", sc_kept_ack_inside_write},
        {"read_responses_mtus_psn_wrap", sc_read_mtus},
        {"atomic_ack", sc_atomic},
        {"nak_psn_sequence_error", sc_nak_seq},
        {"nak_inv_req_access_op_fail_and_flush", sc_nak_fatal},
        {"rnr_finite_and_infinite", sc_rnr},
        {"timeout_exhaustion_fixed", sc_timeout_fixed},
        {"timeout_exhaustion_backoff", sc_timeout_backoff},
        {"timeout_infinite", sc_timeout_infinite},
        {"backoff_survives_pause", sc_backoff_pause},
        {"cfg_err_flush_and_reset", sc_cfg_flush_reset},
        {"ghost_responses", sc_ghosts},
        {"sqd_drain_event", sc_sqd_drain},
        {"status_wqe_alone", sc_status_alone},
        {"status_wqe_behind_acked_writes", sc_status_behind_acked},
        {"status_wqe_behind_read", sc_status_behind_read},
        {"status_wqe_behind_write_retry_exc", sc_status_behind_timeout},
        {"wqe_rec_while_req_ctl_blocked", sc_wqe_rec_while_req_ctl_blocked},
        {"ack_with_its_record_same_cycle", sc_ack_with_its_record},
        {"mid_message_ack_restarts_timer", sc_mid_message_ack},
        {"mid_message_progress_resets_retries", sc_mid_message_progress},
        {"rnr_nak_echoes_one_retry", sc_rnr_echoes},
        {"duplicate_nak_one_resend", sc_duplicate_nak},
        {"second_nak_moves_resend_forward", sc_second_nak_forward},
        {"timeout_resend_then_implied_loss", sc_timeout_then_implied_loss},
        {"resend_point_ack_nak_timeout", sc_resume_point},
        {"read_resumes_at_first_missing_response", sc_read_resume},
        {"rnr_nak_mid_message", sc_rnr_mid_message},
        {"random_traffic", sc_random},
        {"migration_active_timer_frozen_rearmed", sc_mig_timer},
        {"migration_passive_markers", sc_mig_passive},
        {"migration_context_save_load", sc_mig_ctx},
        {"migration_ring_rebuild", sc_mig_rebuild},
        {"throttle_read_data", sc_throttle},
    };
    unsigned failed = 0, total = 0;
    for (int pass = 0; pass < 2; pass++) {
        bp = pass;
        prng_seed(&rng, 42);
        for (unsigned i = 0; i < sizeof sc / sizeof sc[0]; i++) {
            reset_all();
            sc[i].fn();
            expect_nothing_more();
            total++;
            if (fails_here) {
                failed++;
                printf("FAIL %s%s: %s\n", sc[i].name, bp ? " (back-pressure)" : "", why);
            } else {
                printf("PASS %s%s\n", sc[i].name, bp ? " (back-pressure)" : "");
            }
        }
    }
    printf("completer_test: %u of %u scenarios passed (%u DMA writes checked)\n",
           total - failed, total, dma_writes);
    return failed ? 1 : 0;
}
