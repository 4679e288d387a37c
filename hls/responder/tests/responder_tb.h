/* responder_tb.h — the responder tests' harness: the C model driven cycle by cycle against
 * testbench hostmem, with a behavioural peer (hand-built request packets, random input gaps),
 * random back-pressure on every output, and exact checks: every response descriptor field and
 * payload byte, every CQE and event, every byte of host memory against a shadow copy.
 * One test program includes it once (responder_test.c, responder_mig_test.c).
 *
 * Expected answers come from the rules of IB vol. 1 9.7.4/9.7.5 as written here (expect_*
 * helpers), not from the block. */
#ifndef RESPONDER_TB_H
#define RESPONDER_TB_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostmem.h"
#include "prng.h"
#include "responder.h"
#include "tb_check.h"

/* ---- memory map ---------------------------------------------------------------------- */
#define RQ_BASE 0x10000ull    /* RQ rings: 0x1000 per QP row used */
#define MR_BASE 0x100000ull   /* the registered region */
#define MR_LEN 0x20000ull
#define BUF_BASE 0x200000ull  /* receive buffers */
#define BUF_LEN 0x10000ull
#define ATOM_VA (MR_BASE + 0x1F000)

static hostmem_t *mem;
static prng_t rng;
static uint8_t shadow_mr[MR_LEN], shadow_buf[BUF_LEN];
static responder_state st;
static uint64_t cycles;
static double p_ready = 0.7, p_offer = 0.7;

/* ---- queues into the block ----------------------------------------------------------- */
#define QMAX 8192
static nic_cfg_t cfgq[64];
static unsigned cfg_h, cfg_t;
static nic_db_t dbq[64];
static unsigned db_h, db_t;
static nic_rx_pkt_t pktq[QMAX];
static unsigned pkt_h, pkt_t;
static nic_beat_t beatq[QMAX];
static unsigned beat_h, beat_t;
static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static bool cfg_off, db_off, pkt_off, beat_off; /* a beat is offered: hold it */

/* ---- what came out ------------------------------------------------------------------- */
static roce_hdr_t descs[QMAX];
static unsigned ndesc;
static uint8_t paybytes[1 << 18];
static unsigned npay;
static unsigned pay_beats[QMAX]; /* beats per frame, in order */
static unsigned pay_bytes[QMAX];
static unsigned npayframes, cur_beats, cur_bytes;
static bool bad_beat;
static nic_cqe_req_t cqes[256];
static unsigned ncqe;
static nic_event_t evs[64];
static unsigned nev;
static bool unstable;
static uint64_t dma_reads; /* DMA read requests accepted */

/* ---- the QP under test --------------------------------------------------------------- */
#define FN 1
#define QPN 0x000123
#define ROW ((FN << NIC_QP_SLOT_BITS) | (QPN & 15))
#define DEST_QPN 0x000456
#define PD 7
#define RQ_LOG 3
#define RECV_CQ 5
#define MIN_RNR 12
#define KEY_OK 0x1234
#define KEY_BADPD 0x2201
#define KEY_RONLY 0x2302
#define KEY_SMALL 0x2403
#define KEY_BUF 0x2504 /* local MR over the receive buffers */
#define KEY_DEREG 0x2605 /* a deregistered MR: everything matches but valid */
#define FN_MAC 0x02000000aa01ull
#define FN_IP 0x0a000001u
#define PEER_MAC 0x02000000bb02ull
#define PEER_IP 0x0a000002u
#define SPORT 0xc123

static uint16_t rq_prod; /* host's RQ producer index */
static uint32_t model_msn;
static uint32_t model_epsn;

static inline hls_u512 bytes_to_u512(const uint8_t *b, unsigned n) {
    hls_u512 v = 0;
    for (unsigned i = 0; i < n && i < 64; i++) v |= (hls_u512)b[i] << (8 * i);
    return v;
}
static inline void u512_to_bytes(hls_u512 v, uint8_t *b) {
    for (unsigned i = 0; i < 64; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static inline void cycle(void) {
    hostmem_port_out_t ho;
    hostmem_eval(mem, 0, &ho);
    responder_in in;
    memset(&in, 0, sizeof in);
    if (cfg_h != cfg_t && (cfg_off || prng_unit(&rng) < p_offer)) {
        cfg_off = true;
        in.cfg.valid = true;
        in.cfg.data = cfgq[cfg_h % 64];
    }
    if (db_h != db_t && (db_off || prng_unit(&rng) < p_offer)) {
        db_off = true;
        in.rq_db.valid = true;
        in.rq_db.data = dbq[db_h % 64];
    }
    if (pkt_h != pkt_t && (pkt_off || prng_unit(&rng) < p_offer)) {
        pkt_off = true;
        in.rx_pkt.valid = true;
        in.rx_pkt.data = pktq[pkt_h % QMAX];
    }
    if (beat_h != beat_t && (beat_off || prng_unit(&rng) < p_offer)) {
        beat_off = true;
        in.rx_pay.valid = true;
        in.rx_pay.data = beatq[beat_h % QMAX];
    }
    in.dma_req_ready = ho.req_ready;
    in.dma_resp.valid = ho.resp_valid;
    in.dma_resp.data.tag = ho.resp.tag;
    in.dma_resp.data.data = bytes_to_u512(ho.resp.data, 64);
    in.dma_resp.data.bytes = ho.resp.bytes;
    in.dma_resp.data.last = ho.resp.last;
    in.dma_resp.data.err = ho.resp.err;
    in.tx_desc_ready = prng_unit(&rng) < p_ready;
    in.tx_pay_ready = prng_unit(&rng) < p_ready;
    in.cqe_ready = prng_unit(&rng) < p_ready;
    in.ev_ready = prng_unit(&rng) < p_ready;

    responder_out out;
    memset(&out, 0, sizeof out);
    hls_edge_queue_bind(edges);
    responder(&in, &out, &st);
    hls_clock_edge(edges);

    /* stream rule on the outputs: a stalled beat stays valid and unchanged */
    static responder_out prev;
    static bool pv_desc, pv_pay, pv_cqe, pv_ev, pv_dma;
    if (pv_desc && (!out.tx_desc.valid || memcmp(&prev.tx_desc.data, &out.tx_desc.data, sizeof(roce_hdr_t))))
        unstable = true;
    if (pv_pay && (!out.tx_pay.valid || prev.tx_pay.data.data != out.tx_pay.data.data ||
                   prev.tx_pay.data.bytes != out.tx_pay.data.bytes))
        unstable = true;
    if (pv_cqe && (!out.cqe.valid || memcmp(&prev.cqe.data, &out.cqe.data, sizeof(nic_cqe_req_t))))
        unstable = true;
    if (pv_ev && (!out.ev.valid || memcmp(&prev.ev.data, &out.ev.data, sizeof(nic_event_t)))) unstable = true;
    if (pv_dma && (!out.dma_req.valid || prev.dma_req.data.addr != out.dma_req.data.addr ||
                   prev.dma_req.data.len != out.dma_req.data.len ||
                   prev.dma_req.data.write != out.dma_req.data.write ||
                   (out.dma_req.data.write && prev.dma_req.data.data != out.dma_req.data.data)))
        unstable = true;
    prev = out;
    pv_desc = out.tx_desc.valid && !in.tx_desc_ready;
    pv_pay = out.tx_pay.valid && !in.tx_pay_ready;
    pv_cqe = out.cqe.valid && !in.cqe_ready;
    pv_ev = out.ev.valid && !in.ev_ready;
    pv_dma = out.dma_req.valid && !in.dma_req_ready;

    hostmem_port_in_t hi;
    memset(&hi, 0, sizeof hi);
    hi.req_valid = out.dma_req.valid;
    hi.req.op = out.dma_req.data.write ? HOSTMEM_OP_WRITE : HOSTMEM_OP_READ;
    hi.req.tag = out.dma_req.data.tag;
    hi.req.addr = out.dma_req.data.addr;
    hi.req.len = (uint32_t)out.dma_req.data.len;
    u512_to_bytes(out.dma_req.data.data, hi.req.data);
    hi.resp_ready = out.dma_resp_ready;
    hostmem_edge(mem, 0, &hi);
    hostmem_tick(mem);

    if (in.cfg.valid && out.cfg_ready) cfg_h++, cfg_off = false;
    if (in.rq_db.valid && out.rq_db_ready) db_h++, db_off = false;
    if (in.rx_pkt.valid && out.rx_pkt_ready) pkt_h++, pkt_off = false;
    if (in.rx_pay.valid && out.rx_pay_ready) beat_h++, beat_off = false;
    if (out.tx_desc.valid && in.tx_desc_ready && ndesc < QMAX) descs[ndesc++] = out.tx_desc.data;
    if (out.tx_pay.valid && in.tx_pay_ready) {
        unsigned n = (unsigned)out.tx_pay.data.bytes;
        if (n == 0 || n > 64 || (n < 64 && !out.tx_pay.data.last)) bad_beat = true;
        uint8_t b[64];
        u512_to_bytes(out.tx_pay.data.data, b);
        if (npay + n <= sizeof paybytes) memcpy(paybytes + npay, b, n), npay += n;
        cur_beats++;
        cur_bytes += n;
        if (out.tx_pay.data.last && npayframes < QMAX) {
            pay_beats[npayframes] = cur_beats;
            pay_bytes[npayframes++] = cur_bytes;
            cur_beats = cur_bytes = 0;
        }
    }
    if (out.dma_req.valid && in.dma_req_ready && !out.dma_req.data.write) dma_reads++;
    if (out.cqe.valid && in.cqe_ready && ncqe < 256) cqes[ncqe++] = out.cqe.data;
    if (out.ev.valid && in.ev_ready && nev < 64) evs[nev++] = out.ev.data;
    cycles++;
}

static inline bool run_idle(void) {
    unsigned quiet = 0;
    for (unsigned i = 0; i < 400000; i++) {
        cycle();
        bool busy = cfg_h != cfg_t || db_h != db_t || pkt_h != pkt_t || beat_h != beat_t ||
                    st.phase != RSP_IDLE || !hostmem_idle(mem);
        quiet = busy ? 0 : quiet + 1;
        if (quiet > 8) return true;
    }
    return false;
}

/* ---- stimulus helpers ------------------------------------------------------------------- */
static inline void push_cfg(nic_cfg_t c) { cfgq[cfg_t++ % 64] = c; }

static uint8_t dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC; /* responder resources */
static inline nic_qp_attr_t qp_attr(uint8_t state, uint8_t pmtu, uint8_t access, uint32_t rq_psn) {
    nic_qp_attr_t a;
    memset(&a, 0, sizeof a);
    a.state = state;
    a.pmtu = pmtu;
    a.qpn = QPN;
    a.dest_qpn = DEST_QPN;
    a.rq_psn = rq_psn;
    a.dst_mac = PEER_MAC;
    a.dst_ip = PEER_IP;
    a.udp_sport = SPORT;
    a.pd = PD;
    a.access = access;
    a.min_rnr_timer = MIN_RNR;
    a.rq_base = RQ_BASE;
    a.rq_log = RQ_LOG;
    a.recv_cq = RECV_CQ;
    a.max_dest_rd_atomic = dest_rd_atomic;
    return a;
}

static inline void cfg_qp(uint8_t prev, uint8_t state, uint8_t pmtu, uint8_t access, uint32_t rq_psn) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_QP;
    c.fn = FN;
    c.qp = ROW;
    c.prev_state = prev;
    c.attr = qp_attr(state, pmtu, access, rq_psn);
    push_cfg(c);
}

static inline void cfg_mr_v(uint32_t key, uint32_t pd, uint64_t base, uint64_t len, uint8_t access,
                     bool valid) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_MR;
    c.fn = FN;
    c.mr = (nic_mr_t)((FN << NIC_MR_SLOT_BITS) | ((key >> 8) & 63));
    c.key = key;
    c.pd = pd;
    c.base = base;
    c.len = len;
    c.access = access;
    c.valid = valid;
    push_cfg(c);
}
static inline void cfg_mr(uint32_t key, uint32_t pd, uint64_t base, uint64_t len, uint8_t access) {
    cfg_mr_v(key, pd, base, len, access, true);
}

static inline void cfg_quiesce(bool q) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_QUIESCE;
    c.fn = FN;
    c.qp = ROW;
    c.quiesce = q;
    push_cfg(c);
}

#define ACC_ALL (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)

/* Fresh QP: RESET -> INIT -> RTR (epsn = psn) -> RTS; RQ emptied (host index back to 0). */
static inline void bring_up(uint8_t pmtu, uint8_t access, uint32_t psn) {
    cfg_qp(NIC_QPS_ERR, NIC_QPS_RESET, pmtu, access, psn);
    cfg_qp(NIC_QPS_RESET, NIC_QPS_INIT, pmtu, access, psn);
    cfg_qp(NIC_QPS_INIT, NIC_QPS_RTR, pmtu, access, psn);
    cfg_qp(NIC_QPS_RTR, NIC_QPS_RTS, pmtu, access, psn);
    rq_prod = 0;
    model_msn = 0;
    model_epsn = psn;
}

static uint32_t post_lkey = KEY_BUF;
static inline void post_recv(uint64_t wr_id, uint64_t addr, uint32_t len) {
    nic_rq_wqe_t w = {wr_id, addr, len, post_lkey, 0};
    hostmem_write(mem, RQ_BASE + 32 * (rq_prod & ((1u << RQ_LOG) - 1)), &w, sizeof w);
    rq_prod++;
    nic_db_t d = {.fn = FN, .num = QPN, .index = rq_prod};
    dbq[db_t++ % 64] = d;
    /* the host rings before the peer sends: the doorbell is in before later packets */
    for (unsigned i = 0; i < 100000 && db_h != db_t; i++) cycle();
}

static inline roce_hdr_t req(uint8_t op, uint32_t psn, bool ackreq) {
    roce_hdr_t h;
    memset(&h, 0, sizeof h);
    h.opcode = op;
    h.dest_qp = QPN;
    h.psn = psn & 0xFFFFFF;
    h.ack_req = ackreq;
    h.dst_mac = FN_MAC;
    h.src_mac = PEER_MAC;
    h.pkey = 0xFFFF;
    return h;
}

static inline void push_pkt(roce_hdr_t h, const uint8_t *pay) {
    nic_rx_pkt_t p;
    memset(&p, 0, sizeof p);
    p.hdr = h;
    p.fn = FN;
    pktq[pkt_t++ % QMAX] = p;
    unsigned len = (unsigned)h.payload_len;
    for (unsigned off = 0; off < len; off += 64) {
        unsigned n = len - off < 64 ? len - off : 64;
        nic_beat_t b;
        memset(&b, 0, sizeof b);
        b.data = bytes_to_u512(pay + off, n);
        b.bytes = (hls_uint(7))n;
        b.last = off + n == len;
        beatq[beat_t++ % QMAX] = b;
    }
}

/* ---- memory model ------------------------------------------------------------------------ */
static inline uint8_t *shadow_at(uint64_t a) {
    if (a >= MR_BASE && a < MR_BASE + MR_LEN) return &shadow_mr[a - MR_BASE];
    if (a >= BUF_BASE && a < BUF_BASE + BUF_LEN) return &shadow_buf[a - BUF_BASE];
    return NULL;
}
static inline void model_write(uint64_t a, const uint8_t *d, unsigned n) {
    for (unsigned i = 0; i < n; i++) *shadow_at(a + i) = d[i];
    if (n) hostmem_guard_target(mem, a, n);
}
/* Every byte of both regions equals the model (so nothing outside a target changed). */
static inline void check_memory(void) {
    hostmem_flush(mem);
    static uint8_t got[MR_LEN];
    hostmem_read(mem, MR_BASE, got, MR_LEN);
    for (uint64_t i = 0; i < MR_LEN; i++)
        if (got[i] != shadow_mr[i]) {
            CHECK(0, "MR byte 0x%llx is %02x, model %02x", (unsigned long long)(MR_BASE + i), got[i],
                  shadow_mr[i]);
            break;
        }
    hostmem_read(mem, BUF_BASE, got, BUF_LEN);
    for (uint64_t i = 0; i < BUF_LEN; i++)
        if (got[i] != shadow_buf[i]) {
            CHECK(0, "buffer byte 0x%llx is %02x, model %02x", (unsigned long long)(BUF_BASE + i),
                  got[i], shadow_buf[i]);
            break;
        }
}

/* ---- expected outputs --------------------------------------------------------------------- */
static roce_hdr_t exp_desc[QMAX];
static const uint8_t *exp_pay[QMAX];
static unsigned nexp;
static nic_cqe_req_t exp_cqe[256];
static unsigned nexp_cqe;
static unsigned exp_ev; /* NIC_EV_QP_ERR events expected */
static uint8_t exp_ev_detail;

static inline roce_hdr_t resp_base(uint8_t op, uint32_t psn) {
    roce_hdr_t d;
    memset(&d, 0, sizeof d);
    d.dst_mac = PEER_MAC;
    d.src_mac = FN_MAC;
    d.src_ip = FN_IP;
    d.dst_ip = PEER_IP;
    d.ttl = 64;
    d.udp_sport = SPORT;
    d.opcode = op;
    d.pkey = 0xFFFF;
    d.dest_qp = DEST_QPN;
    d.psn = psn & 0xFFFFFF;
    return d;
}
static inline void expect_ack(uint32_t psn, uint8_t syndrome, uint32_t msn) {
    roce_hdr_t d = resp_base(ROCE_OP_ACKNOWLEDGE, psn);
    d.aeth_syndrome = syndrome;
    d.aeth_msn = msn & 0xFFFFFF;
    exp_pay[nexp] = NULL;
    exp_desc[nexp++] = d;
}
static inline void expect_atomic_ack(uint32_t psn, uint32_t msn, uint64_t orig) {
    roce_hdr_t d = resp_base(ROCE_OP_ATOMIC_ACKNOWLEDGE, psn);
    d.aeth_syndrome = 0x1F;
    d.aeth_msn = msn & 0xFFFFFF;
    d.atomic_orig = orig;
    exp_pay[nexp] = NULL;
    exp_desc[nexp++] = d;
}
/* READ responses (IB 9.7.5.1.4): ceil(len/mtu) packets (one for len 0), PSN psn+i, AETH
 * with the message's MSN on FIRST/LAST/ONLY; payload from the model of memory. */
static inline void expect_read(uint64_t va, uint32_t len, uint32_t psn, uint32_t mtu, uint32_t msn) {
    uint32_t n = len == 0 ? 1 : (len + mtu - 1) / mtu;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t bytes = len - i * mtu < mtu ? len - i * mtu : mtu;
        uint8_t op = n == 1 ? ROCE_OP_READ_RESPONSE_ONLY
                     : i == 0 ? ROCE_OP_READ_RESPONSE_FIRST
                     : i == n - 1 ? ROCE_OP_READ_RESPONSE_LAST
                                  : ROCE_OP_READ_RESPONSE_MIDDLE;
        roce_hdr_t d = resp_base(op, psn + i);
        if (op != ROCE_OP_READ_RESPONSE_MIDDLE) d.aeth_syndrome = 0x1F, d.aeth_msn = msn & 0xFFFFFF;
        d.payload_len = (hls_uint(14))bytes;
        exp_pay[nexp] = shadow_at(va + (uint64_t)i * mtu);
        exp_desc[nexp++] = d;
    }
}
static inline void expect_cqe(uint64_t wr_id, uint32_t len, uint8_t opcode, uint8_t status, bool imm,
                       uint32_t immv) {
    nic_cqe_req_t c;
    memset(&c, 0, sizeof c);
    c.cq = RECV_CQ;
    c.cqe.wr_id = wr_id;
    c.cqe.byte_len = len;
    c.cqe.imm = imm ? immv : 0;
    c.cqe.qpn = QPN;
    c.cqe.opcode = opcode;
    c.cqe.status = status;
    c.cqe.flags = imm ? NIC_CQE_WITH_IMM : 0;
    exp_cqe[nexp_cqe++] = c;
}

#define F(field) (unsigned long long)(field)
static inline void check_desc_eq(unsigned i, const roce_hdr_t *g, const roce_hdr_t *e) {
#define DF(f) CHECK(F(g->f) == F(e->f), "response %u: " #f " is 0x%llx, expected 0x%llx", i, F(g->f), F(e->f))
    DF(opcode); DF(psn); DF(aeth_syndrome); DF(aeth_msn); DF(atomic_orig); DF(payload_len);
    DF(dst_mac); DF(src_mac); DF(src_ip); DF(dst_ip); DF(ttl); DF(udp_sport); DF(pkey); DF(dest_qp);
    DF(ack_req); DF(se); DF(migreq); DF(tver); DF(fecn); DF(becn); DF(dscp); DF(ecn);
    DF(ip_id); DF(pad); DF(reth_va); DF(reth_rkey); DF(reth_len); DF(atomic_va); DF(atomic_rkey);
    DF(atomic_swap_add); DF(atomic_cmp); DF(imm);
#undef DF
}

/* Run to idle, then compare every output with the expectations and memory with the model. */
static inline void settle(void) {
    CHECK(run_idle(), "block did not go idle (phase %u)", (unsigned)st.phase);
    CHECK(!unstable, "an output beat changed or vanished while stalled");
    CHECK(!bad_beat, "a payload beat with a bad byte count");
    CHECK(ndesc == nexp, "%u responses, expected %u", ndesc, nexp);
    unsigned pf = 0, poff = 0;
    for (unsigned i = 0; i < ndesc && i < nexp; i++) {
        check_desc_eq(i, &descs[i], &exp_desc[i]);
        unsigned len = (unsigned)exp_desc[i].payload_len;
        if (len == 0) continue;
        CHECK(pf < npayframes, "response %u: payload missing", i);
        if (pf >= npayframes) break;
        CHECK(pay_bytes[pf] == len && pay_beats[pf] == (len + 63) / 64,
              "response %u: %u payload bytes in %u beats, expected %u", i, pay_bytes[pf],
              pay_beats[pf], len);
        CHECK(memcmp(paybytes + poff, exp_pay[i], len) == 0, "response %u: payload bytes differ", i);
        poff += pay_bytes[pf++];
    }
    CHECK(pf == npayframes && cur_beats == 0, "%u payload frames, %u used", npayframes, pf);
    CHECK(ncqe == nexp_cqe, "%u CQEs, expected %u", ncqe, nexp_cqe);
    for (unsigned i = 0; i < ncqe && i < nexp_cqe; i++) {
        const nic_cqe_t *g = &cqes[i].cqe, *e = &exp_cqe[i].cqe;
        CHECK(cqes[i].cq == exp_cqe[i].cq && g->wr_id == e->wr_id && g->byte_len == e->byte_len &&
                  g->imm == e->imm && g->qpn == e->qpn && g->opcode == e->opcode &&
                  g->status == e->status && g->flags == e->flags,
              "CQE %u: cq %u wr_id %llx len %u imm %x qpn %x op %u status %u flags %u; expected "
              "cq %u wr_id %llx len %u imm %x op %u status %u flags %u",
              i, (unsigned)cqes[i].cq, F(g->wr_id), g->byte_len, g->imm, g->qpn, g->opcode,
              g->status, g->flags, (unsigned)exp_cqe[i].cq, F(e->wr_id), e->byte_len, e->imm,
              e->opcode, e->status, e->flags);
    }
    CHECK(nev == exp_ev, "%u events, expected %u", nev, exp_ev);
    for (unsigned i = 0; i < nev; i++)
        CHECK(evs[i].kind == NIC_EV_QP_ERR && evs[i].qp == ROW && evs[i].cq == RECV_CQ &&
                  evs[i].detail == exp_ev_detail,
              "event %u: kind %u qp %u cq %u detail %u", i, evs[i].kind, (unsigned)evs[i].qp,
              (unsigned)evs[i].cq, evs[i].detail);
    check_memory();
    CHECK(hostmem_guard_check(mem, NULL, 0) == 0, "guard bytes changed: %s",
          hostmem_guard_first(mem) ? hostmem_guard_first(mem) : "(by backdoor?)");
    CHECK(hostmem_error(mem) == NULL, "hostmem: %s", hostmem_error(mem));
    ndesc = npay = npayframes = cur_beats = cur_bytes = ncqe = nev = 0;
    nexp = nexp_cqe = exp_ev = 0;
}

/* The QP's epsn/msn as the block keeps them (after idle the row is in the table). */
static inline rsp_qpc_t row(void) { return st.qpc.hls_mem_cell[ROW]; }

/* Go to ERR through ctrl (cfg), expecting FLUSH_ERR CQEs for WQEs still posted, then up. */
static inline void reset_qp(uint8_t pmtu, uint8_t access, uint32_t psn) {
    rsp_qpc_t r = row();
    for (uint16_t i = r.rq_head; i != r.rq_tail; i++) {
        nic_rq_wqe_t w;
        hostmem_read(mem, RQ_BASE + 32 * (i & ((1u << RQ_LOG) - 1)), &w, sizeof w);
        expect_cqe(w.wr_id, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR, false, 0);
    }
    cfg_qp(r.state == NIC_QPS_ERR ? NIC_QPS_RTS : r.state, NIC_QPS_ERR, pmtu, access, psn);
    settle();
    bring_up(pmtu, access, psn);
    settle();
}

static inline void fill_random(uint8_t *b, unsigned n) { prng_fill(&rng, b, n); }


#define READ_VA (MR_BASE + 0x8000) /* t_read's random bytes, 64 KiB + 64 */

static inline roce_hdr_t read_req(uint32_t psn, uint64_t va, uint32_t len) {
    roce_hdr_t h = req(ROCE_OP_RDMA_READ_REQUEST, psn, true);
    h.reth_va = va;
    h.reth_rkey = KEY_OK;
    h.reth_len = len;
    return h;
}

static inline void run_until_descs(unsigned n) {
    for (unsigned i = 0; i < 200000 && ndesc < n; i++) cycle();
}

/* Responses of a READ cut after its first k packets (the rest replaced or never sent). */
static inline void expect_read_prefix(uint64_t va, uint32_t len, uint32_t psn, uint32_t mtu, uint32_t msn,
                               unsigned k) {
    unsigned base = nexp;
    expect_read(va, len, psn, mtu, msn);
    if (base + k < nexp) nexp = base + k;
}

/* Function FN's addresses and the MRs, as ctrl's messages set them. */
static inline void tb_setup_fn_mrs(void) {
    nic_cfg_t fnc;
    memset(&fnc, 0, sizeof fnc);
    fnc.kind = NIC_CFG_FN;
    fnc.fn = FN;
    fnc.mac = FN_MAC;
    fnc.ip = FN_IP;
    push_cfg(fnc);
    cfg_mr(KEY_OK, PD, MR_BASE, MR_LEN, ACC_ALL | NIC_ACC_LOCAL_WRITE);
    cfg_mr(KEY_BADPD, PD + 1, MR_BASE, MR_LEN, ACC_ALL);
    cfg_mr(KEY_RONLY, PD, MR_BASE, MR_LEN, NIC_ACC_REMOTE_READ);
    cfg_mr(KEY_SMALL, PD, MR_BASE + 0x100, 0x100, ACC_ALL);
    cfg_mr(KEY_BUF, PD, BUF_BASE, BUF_LEN, NIC_ACC_LOCAL_WRITE);
    cfg_mr(KEY_DEREG, PD, MR_BASE, MR_LEN, ACC_ALL);
    cfg_mr_v(KEY_DEREG, PD, MR_BASE, MR_LEN, ACC_ALL, false);
}

/* Host memory (read latency 7, posted-write queue of 2), guard patterns as the model's
 * start, then function FN's addresses, the MRs and QP ROW up to RTS. */
static inline void tb_setup(int argc, char **argv) {
    edges = hls_edge_queue_new();
    hostmem_config_t hc;
    hostmem_config_default(&hc);
    hc.read_latency = 7;
    hc.write_latency = 5;
    hc.write_queue = 2;     /* posted writes back-pressure the DMA port */
    hc.max_outstanding = 2;
    mem = hostmem_new(&hc);
    prng_seed(&rng, argc > 1 ? strtoull(argv[1], NULL, 0) : 0x7e5b0d); /* timing seed */
    /* guard pattern over both regions; the model starts from it */
    hostmem_guard_fill(mem, MR_BASE, MR_LEN, 11);
    hostmem_guard_fill(mem, BUF_BASE, BUF_LEN, 12);
    for (uint64_t i = 0; i < MR_LEN; i++) shadow_mr[i] = hostmem_guard_byte(11, MR_BASE + i);
    for (uint64_t i = 0; i < BUF_LEN; i++) shadow_buf[i] = hostmem_guard_byte(12, BUF_BASE + i);

    tb_begin("setup: function, MRs, QP RESET->INIT->RTR->RTS");
    tb_setup_fn_mrs();
    bring_up(1, ACC_ALL, 0);
    settle();
    CHECK(row().state == NIC_QPS_RTS && row().qpn == QPN, "row state %u qpn %x", row().state, row().qpn);
    tb_end();
}

#endif /* RESPONDER_TB_H */
