/* completer — the requester side of RC reliability (IB vol. 1 9.7.5.2, 9.9; rxe_comp.c).
 *
 * in:  cfg      NIC_CFG_QP rows from ctrl (other kinds are consumed and ignored)
 *      wqe_rec  one record per started, rejected (status != 0) or flushed send WQE, in SQ order
 *               per QP; taken in every state (one buffered) so req_ctl back-pressure never
 *               holds it up
 *      rx_pkt   a good response packet's headers, then ceil(payload_len/64) beats on rx_pay
 *      dma_resp unused (writes are posted), ready tied high
 * out: dma_req  READ response payload and atomic original values into local_addr
 *      req_ctl  RETIRED / REWIND / STOP to the requester
 *      cqe      send completions for cq_writer
 *      ev       NIC_EV_QP_ERR and NIC_EV_SQ_DRAINED to ctrl
 *
 * One event at a time: IDLE takes a cfg, a response packet, a wqe_rec or (when none waits)
 * looks at one QP row for an expired timer, reads that row (CTX) and the ring slot of its
 * oldest WQE, and walks the FSM below, one memory read, one DMA write or one output message
 * per cycle; the row is written back in WB, one cycle before the next IDLE can read it
 * again, so no forwarding is needed. docs/completer.md has the full description. */
#include "completer.h"
#include "completer_mig.h"
#include "roce_psn.h"

enum { /* FSM */
    CP_IDLE = 0, CP_CTX, CP_DISPATCH, CP_EVAL, CP_RDATA, CP_ATOMIC, CP_COMPLETE, CP_RETIRED,
    CP_ACT, CP_REWIND, CP_ERRCQE, CP_EV, CP_STOP, CP_FLUSH, CP_RECFLUSH, CP_DRAIN, CP_WB,
    CP_HEAD, CP_SQD_EV, CP_CTX_EV, CP_MK_CTL, CP_MK_CQE, CP_MK_EV, CP_JUDGE,
};
enum { OP_CFG = 0, OP_PKT, OP_WREC, OP_TMO, OP_ATTR, OP_CTXQ };
enum { ACT_NONE = 0, ACT_RETRY, ACT_REWIND, ACT_RNR, ACT_FAIL, ACT_FORWARD };
/* verdict of the response packet on the oldest outstanding WQE */
enum { V_DONE = 0, V_RETIRE, V_RETRY, V_RNR, V_FATAL, V_RDATA, V_ATOMIC, V_PARTIAL };

/* IB vol. 1 table 9.7.5.2.8 (RNR NAK timer field) in 4 ns cycles. */
static const uint32_t rnr_cycles[32] = {
    163840000, 2500,    5000,     7500,     10000,    15000,    20000,    30000,
    40000,     60000,   80000,    120000,   160000,   240000,   320000,   480000,
    640000,    960000,  1280000,  1920000,  2560000,  3840000,  5120000,  7680000,
    10240000,  15360000, 20480000, 30720000, 40960000, 61440000, 81920000, 122880000,
};

/* NIC_WR_* -> NIC_WC_* opcode of its completion. */
static const uint8_t wc_of_wr[8] = {
    NIC_WC_SEND, NIC_WC_SEND, NIC_WC_RDMA_WRITE, NIC_WC_RDMA_WRITE,
    NIC_WC_RDMA_READ, NIC_WC_COMP_SWAP, NIC_WC_FETCH_ADD, NIC_WC_SEND,
};

HLS_INLINE bool timer_on(const cmp_qpc_t *c) { return c->backoff || c->timeout != 0; }

/* Local ACK timeout: 4.096 us * 2^exp = 1024 << exp cycles, as a table: a 32-entry constant
 * read is one LUT level per bit, where a 64-bit barrel shift is several (and LLVM merged it
 * with the other shifts of the block into one shifter behind a mux of their operands). */
#define ACK_TMO(n) ((uint64_t)1024 << (n))
static const uint64_t ack_timeout_cycles[32] = {
    ACK_TMO(0),  ACK_TMO(1),  ACK_TMO(2),  ACK_TMO(3),  ACK_TMO(4),  ACK_TMO(5),  ACK_TMO(6),  ACK_TMO(7),
    ACK_TMO(8),  ACK_TMO(9),  ACK_TMO(10), ACK_TMO(11), ACK_TMO(12), ACK_TMO(13), ACK_TMO(14), ACK_TMO(15),
    ACK_TMO(16), ACK_TMO(17), ACK_TMO(18), ACK_TMO(19), ACK_TMO(20), ACK_TMO(21), ACK_TMO(22), ACK_TMO(23),
    ACK_TMO(24), ACK_TMO(25), ACK_TMO(26), ACK_TMO(27), ACK_TMO(28), ACK_TMO(29), ACK_TMO(30), ACK_TMO(31),
};
#undef ACK_TMO

/* Backoff mode runs its own exponent. */
HLS_INLINE uint64_t timeout_cycles(const cmp_qpc_t *c) {
    return ack_timeout_cycles[(c->backoff ? c->cur_exp : c->timeout) & 31];
}

HLS_INLINE void restart_timer(cmp_qpc_t *c, uint64_t now) {
    c->armed = c->count != 0 && timer_on(c);
    c->deadline = now + timeout_cycles(c);
    c->rnr_wait = 0;
}

/* Forward progress: the retry counts are per message (IB 9.7.5.2.7) and backoff restarts. */
HLS_INLINE void reset_retries(cmp_qpc_t *c) {
    c->retries_left = c->retry_cnt & 7;
    c->rnr_left = c->rnr_retry & 7;
    c->cur_exp = c->backoff_first & 31;
    c->retrying = 0;
}

/* The row's copies of the QP attributes (NIC_CFG_QP, NIC_CFG_QP_ATTR; f: the latched cfg). */
HLS_INLINE cmp_qpc_t copy_attrs(cmp_qpc_t c, const cmp_qpc_t *f) {
    c.state = f->state;
    c.qpn = f->qpn;
    c.pmtu = f->pmtu;
    c.timeout = f->timeout;
    c.retry_cnt = f->retry_cnt;
    c.rnr_retry = f->rnr_retry;
    c.backoff = f->backoff;
    c.backoff_first = f->backoff_first;
    c.backoff_cap = f->backoff_cap;
    c.send_cq = f->send_cq;
    return c;
}

HLS_INLINE nic_cqe_req_t make_cqe(const cmp_qpc_t *c, const cmp_wrec_t *w, uint8_t status) {
    nic_cqe_req_t r = {0};
    r.cq = (nic_cq_t)c->send_cq;
    r.cqe.wr_id = w->wr_id;
    bool atomic = wr_is_atomic(w->opcode);
    r.cqe.byte_len = atomic ? 8 : w->length;
    r.cqe.qpn = c->qpn & 0xFFFFFF;
    r.cqe.opcode = wc_of_wr[w->opcode & 7];
    r.cqe.status = status;
    return r;
}

HLS_INLINE nic_req_ctl_t make_ctl(uint8_t kind, nic_qp_t qp, uint16_t idx, uint32_t psn) {
    nic_req_ctl_t r = {0};
    r.kind = kind;
    r.qp = qp;
    r.wqe_index = idx;
    r.psn = (hls_u24)psn;
    return r;
}

/* n MTUs in bytes, n << mtu_log(pmtu): a fixed shift by 8, then by 0..4 (three select bits,
 * two LUT levels), instead of a shift by mtu_log's 32-bit result behind its add. */
HLS_INLINE uint64_t mtus_bytes(uint32_t n, unsigned pmtu) {
    unsigned k = (mtu_log(pmtu) - 8) & 7;
    return ((uint64_t)n << 8) << k;
}

/* cmp_qpc_t.acked holds an ACK that says the peer has every request up to PSN `psn`. */
HLS_INLINE bool acked_covers(const cmp_qpc_t *c, uint32_t psn) {
    return (c->acked >> 31) != 0 && psn_le(psn, c->acked & 0xFFFFFF);
}

/* What the response packet (latched in st) means for the oldest outstanding WQE w. */
HLS_INLINE unsigned verdict(const cmp_event_t *e, const cmp_qpc_t *c, const cmp_wrec_t *w, uint8_t *status) {
    uint32_t p = (uint32_t)e->p_psn;
    uint8_t op = e->p_op;
    unsigned syn_type = (e->p_syn >> 5) & 3; /* 0 ACK, 1 RNR NAK, 2 reserved, 3 NAK */
    bool resp = wr_reads_back(w->opcode);
    bool before = psn_lt(w->last_psn, p);     /* the packet is for a later WQE */
    *status = NIC_WC_SUCCESS;
    /* an earlier ACK already covered this WQE (cmp_qpc_t.acked): a SEND/WRITE is done; a
     * READ/atomic lost its response, as if that ACK came now (9.7.5.1.4) */
    if (!resp && acked_covers(c, w->last_psn)) return V_RETIRE;
    if (resp && acked_covers(c, w->first_psn) && psn_lt(p, w->first_psn)) return V_RETRY;
    if (op == ROCE_OP_ACKNOWLEDGE && syn_type == 0) {
        /* coalesced ACK: everything up to p arrived; a READ/atomic at or before p whose
         * response we have not seen lost it (9.7.5.1.4), go back to it */
        /* an ACK inside a multi-packet SEND/WRITE (AckReq every 8 PSNs, 9.7.5.1.1) retires
         * nothing but shows the peer is receiving it: the ACK timer restarts (rxe
         * update_comp re-arms its retransmit timer on every in-sequence ACK) */
        if (!resp) return psn_le(w->last_psn, p) ? V_RETIRE : psn_le(w->first_psn, p) ? V_PARTIAL : V_DONE;
        return psn_le(w->first_psn, p) ? V_RETRY : V_DONE;
    }
    if (op == ROCE_OP_ACKNOWLEDGE && syn_type == 2) return V_DONE;
    /* every other response is in PSN order behind all earlier WQEs: they are implicitly
     * acknowledged, or, for READ/atomic, their responses were lost (rxe check_psn) */
    if (before) return resp ? V_RETRY : V_RETIRE;
    if (psn_lt(p, w->first_psn)) return V_DONE; /* stale: for an already retired WQE */
    if (op == ROCE_OP_ACKNOWLEDGE) {
        /* during an RNR wait the NAKs for packets the requester sent before it learnt of the
         * RNR (an RNR NAK per retried SEND, a sequence-error NAK for the packets behind it)
         * are echoes of the same condition: counting them burnt every retry in a burst and
         * cut the wait short (testbench/scenario rnr-wait); the resend after the wait
         * settles them (9.7.5.2.8) */
        if (c->rnr_wait) return V_DONE;
        if (syn_type == 1) return V_RNR;
        switch (e->p_syn & 0x1f) {
        case 0: return V_RETRY; /* PSN sequence error: resend the message containing p */
        case 1: *status = NIC_WC_REM_INV_REQ_ERR; return V_FATAL;
        case 2: *status = NIC_WC_REM_ACCESS_ERR; return V_FATAL;
        case 3: *status = NIC_WC_REM_OP_ERR; return V_FATAL;
        default: return V_DONE;
        }
    }
    if (op == ROCE_OP_ATOMIC_ACKNOWLEDGE)
        return wr_is_atomic(w->opcode) && p == w->first_psn
                   ? V_ATOMIC : V_DONE;
    /* READ RESPONSE: exactly the next PSN, opcode and length (9.7.5.1.3, rxe check_ack); a
     * request re-issued after partial data is answered FIRST/ONLY from where it resumed */
    uint32_t mtu = (uint32_t)mtus_bytes(1, c->pmtu);
    uint64_t done = mtus_bytes(c->head_done, c->pmtu);
    uint32_t rem = (uint64_t)w->length > done ? (uint32_t)(w->length - done) : 0;
    bool first = c->head_done == c->rd_start;
    bool last = p == w->last_psn;
    uint32_t len = e->p_len;
    bool ok_op = (op == ROCE_OP_READ_RESPONSE_FIRST && first && !last && len == mtu) ||
                 (op == ROCE_OP_READ_RESPONSE_MIDDLE && !first && !last && len == mtu) ||
                 (op == ROCE_OP_READ_RESPONSE_LAST && !first && last && len == rem) ||
                 (op == ROCE_OP_READ_RESPONSE_ONLY && first && last && len == rem);
    bool ok_psn = p == psn_add(w->first_psn, c->head_done);
    return w->opcode == NIC_WR_READ && ok_op && ok_psn ? V_RDATA : V_DONE;
}

/* PSNs of the oldest SEND/WRITE w that this ACK or NAK shows the responder has (IB 9.7.5.1:
 * an ACK for p acknowledges every PSN up to p, a sequence or RNR NAK for p every PSN before
 * p); a resend starts behind them. 0 for anything else (a READ/atomic counts its responses). */
HLS_INLINE uint32_t peer_has(const cmp_event_t *e, const cmp_qpc_t *c, const cmp_wrec_t *w) {
    uint32_t p = (uint32_t)e->p_psn;
    unsigned syn_type = (e->p_syn >> 5) & 3; /* 0 ACK, 1 RNR NAK, 3 NAK */
    bool seq_nak = syn_type == 3 && (e->p_syn & 0x1f) == 0;
    bool tells = e->p_op == ROCE_OP_ACKNOWLEDGE && (syn_type <= 1 || seq_nak);
    bool inside = psn_le(w->first_psn, p) && psn_le(p, w->last_psn);
    if (wr_reads_back(w->opcode)) return 0;
    /* a kept ACK (acked) that ends inside w: it came while an earlier READ/atomic was the
     * oldest, and tells what the peer has of w too */
    uint32_t a = c->acked & 0xFFFFFF;
    bool kept_inside = (c->acked >> 31) != 0 && psn_le(w->first_psn, a) && psn_lt(a, w->last_psn);
    uint32_t from_kept = kept_inside ? psn_sub(a, w->first_psn) + 1u : 0u;
    uint32_t from_pkt = tells && inside ? psn_sub(p, w->first_psn) + (syn_type == 0 ? 1u : 0u) : 0u;
    return from_pkt > from_kept ? from_pkt : from_kept;
}

/* The packet is a NAK PSN sequence error. */
HLS_INLINE bool seq_nak(const cmp_event_t *e) { return e->p_op == ROCE_OP_ACKNOWLEDGE && e->p_syn == 0x60; }

/* The last PSN the peer has by the latched packet (registers only); psn_sub(p, 1) written
 * out: inlined under the ?: it left LLVM two more basic blocks, so more muxes, than this */
HLS_INLINE uint32_t acked_psn(const cmp_event_t *e) {
    uint32_t p = (uint32_t)e->p_psn;
    return seq_nak(e) ? (p - 1) & ROCE_PSN_MASK : p;
}

/* The packet is kept in cmp_qpc_t.acked (as acked_value): a coalesced ACK at or past the
 * first PSN of the oldest WQE w, a READ/atomic still owed its response, is kept (the later
 * of two). So is a
 * READ response or atomic ACK for a later WQE: the peer has every request up to it too (the
 * resume probe's answer is often one; without it the timeout after the re-issue went back
 * over every WQE behind the READ: 1 MiB migration seed 1). So is a sequence NAK for p past
 * w, as what it implies: the peer has every request up to p - 1 (keeping p itself made the
 * retry skip the NAKed FAA: lossy migration seed 85). ACKED_NAK marks it: the peer lacks p
 * and drops everything after it, so when the WQE holding p is the oldest, the resend from
 * p starts at once (CP_EVAL) instead of after a timeout; the READ alone is re-issued first
 * instead of a go-back-N round over every WQE between (lossy migration seed 149). */
HLS_INLINE bool acked_keeps(const cmp_event_t *e, const cmp_qpc_t *c, const cmp_wrec_t *w) {
    uint32_t p = (uint32_t)e->p_psn;
    bool ack = e->p_op == ROCE_OP_ACKNOWLEDGE && ((e->p_syn >> 5) & 3) == 0;
    bool nak = seq_nak(e);
    bool later_resp = roce_op_is_response(e->p_op) && e->p_op != ROCE_OP_ACKNOWLEDGE && psn_lt(w->last_psn, p);
    uint32_t q = acked_psn(e);
    /* an ACK already kept past q stays: the later of the two */
    bool keep = (ack || later_resp || nak) && wr_reads_back(w->opcode) && psn_le(w->first_psn, q) &&
                !acked_covers(c, q + 1);
    return keep;
}

/* The value kept: the PSN, bit 31 (kept), ACKED_NAK for a sequence NAK (registers only). */
HLS_INLINE uint32_t acked_value(const cmp_event_t *e) {
    return acked_psn(e) | 0x80000000u | (seq_nak(e) ? ACKED_NAK : 0u);
}

/* A kept NAK's PSN (acked & 0xFFFFFF, + 1) lies in WQE w: the resend starts there. */
HLS_INLINE bool nak_inside(uint32_t acked, const cmp_wrec_t *w) {
    uint32_t a1 = psn_add(acked & ROCE_PSN_MASK, 1);
    return (acked & ACKED_NAK) != 0 && psn_le(w->first_psn, a1) && psn_le(a1, w->last_psn);
}

/* The judge stage: everything EVAL needs to know about the head WQE h and the latched
 * packet, from registers (e, the row c) and the ring's output alone. Its own cycle (DISPATCH
 * for the first head of a packet, JUDGE after each retirement), so EVAL's actions start from
 * registers instead of running on behind the verdict's PSN compares; e, c and h do not change
 * between the two cycles (JUDGE writes only e.j, and the ring is not read again). */
HLS_INLINE cmp_judge_t judge(const cmp_event_t *e, const cmp_qpc_t *c, const cmp_wrec_t *h) {
    cmp_judge_t j = {0};
    uint8_t status = 0;
    bool any = c->count != 0;
    bool judged = any && h->status == NIC_WC_SUCCESS && e->op == OP_PKT; /* a sent WQE, a packet */
    j.v = judged ? verdict(e, c, h, &status) : V_DONE;
    j.status = status;
    bool kept = judged && acked_keeps(e, c, h);
    j.acked = kept ? acked_value(e) : c->acked; /* cmp_qpc_t.acked after the packet */
    /* what the responder has of the head: a resend starts behind it. Only a SEND/WRITE head
     * has any, and the packet changes `acked` only on a READ/atomic head, so the row's
     * `acked` is the one after the packet here: peer_has need not wait for acked_keeps */
    j.has = judged ? peer_has(e, c, h) : 0;
    /* a kept NAK whose PSN lies in this WQE: resend from it now (acked_keeps). Both cases
     * (the packet kept or not) are compared at once and the keep decision picks one, so the
     * compares do not wait for it either */
    bool here_new = nak_inside(acked_value(e), h);
    bool here_old = nak_inside(c->acked, h);
    j.nak_here = any && (kept ? here_new : here_old);
    return j;
}

/* Leave the event: drain what is left of the packet's payload, then write the row back. */
HLS_INLINE void finish(completer_state *st, uint16_t beats_left) { st->phase = beats_left ? CP_DRAIN : CP_WB; }

/* The oldest WQE left the ring; read the next one (its data is in rdata next cycle). */
HLS_INLINE void pop_head(completer_state *st, cmp_qpc_t *c, nic_qp_t qp, const cmp_wrec_t *w) {
    c->head = (c->head + 1) & (NIC_OUTSTANDING - 1);
    c->count = c->count - 1;
    c->head_done = 0;
    c->rd_start = 0;
    /* an ACK up to or before this WQE has nothing left to cover; a kept NAK's stays while the
     * next WQE holds the NAKed PSN */
    uint32_t a = c->acked & 0xFFFFFF;
    bool nak_next = (c->acked & ACKED_NAK) != 0 && a == w->last_psn;
    if (c->count == 0 || (psn_le(a, w->last_psn) && !nak_next)) c->acked = 0;
    st->e.next_idx = w->wqe_index + 1;
    st->e.next_psn = psn_add(w->last_psn, 1); /* WQEs' PSNs are contiguous in SQ order */
    hls_mem_read(&st->ring, ((uint32_t)qp << NIC_OUTSTANDING_BITS) | c->head);
}

HLS_INLINE void start_event(completer_state *st, unsigned op, nic_qp_t qp) {
    st->e.op = op;
    st->e.qp = qp;
    st->e.act = ACT_NONE;
    st->e.progress = 0;
    st->e.partial = 0;
    st->e.advanced = 0;
    st->e.retired = 0;
    st->e.beats_left = 0;
    st->e.wr_off = 0;
    hls_mem_read(&st->qpc, qp);
    st->phase = CP_CTX;
}

HLS_TOP void completer(const completer_in *in, completer_out *out, completer_state *st) {
    const cmp_wrec_t h = st->ring.hls_mem_rdata; /* oldest WQE of the event's row, once read */
    /* the working row as registered at this edge. Every state reads this copy and writes
     * st->c: read through st->c after the switch's other states, it would be the end of
     * their predicated stores' mux chain, and their logic (EVAL's verdict on the ring's
     * output, say) would run on into this state's (docs/completer.md "Timing") */
    const cmp_qpc_t c_reg = st->c;
    const cmp_event_t e = st->e; /* the event as registered at this edge, read as c_reg is */
    /* the judge stage's logic, once for the two states that register it (DISPATCH, JUDGE) */
    const cmp_judge_t judgement = judge(&e, &c_reg, &h);
    const uint64_t now = st->now;
    const unsigned phase = st->phase;
    out->dma_resp_ready = 1;
    out->acks = st->acks;
    out->naks = st->naks;
    out->timeouts = st->timeouts;
    out->retries = st->retries;
    out->cqes = st->cqes;
    out->dropped = st->dropped;

    /* throttle: a response packet starts only if its payload is in its function's bucket
     * (waiting, not dropping: the peer's responder slows down by back-pressure); each bucket
     * gains rate / 1024 bytes per cycle up to CMP_THR_CAP */
    const nic_fn_t pkt_fn = in->rx_pkt.data.fn;
    const uint32_t pkt_cost = (uint32_t)in->rx_pkt.data.hdr.payload_len << 10;
    const bool budget_ok = st->thr_rate[pkt_fn] == 0 || st->thr_tokens[pkt_fn] >= pkt_cost;
    bool pkt_taken = false;

    switch (st->phase) {
    case CP_IDLE: {
        /* priority: configuration, then responses and new WQEs alternating with the timer
         * scan (scan_turn), so a busy block still looks at every timer; idle, it scans */
        bool rec_avail = st->rb_valid || in->wqe_rec.valid; /* the buffered one is older */
        bool pkt_avail = in->rx_pkt.valid && (in->rx_pkt.data.mig_mark || budget_ok);
        bool scan_now = !(pkt_avail || rec_avail) || st->scan_turn;
        unsigned passive = 0;
        for (unsigned f = 0; f < NIC_FNS; f++) passive |= (st->level[f] == NIC_SUSPEND_PASSIVE ? 1u : 0u) << f;
        unsigned mk_due = passive & st->mk_rx & st->mk_req & ~(unsigned)st->mk_sent;
        if (in->cfg.valid) {
            const nic_cfg_t *g = &in->cfg.data;
            out->cfg_ready = 1;
            cmp_qpc_t f = {0};
            f.state = g->attr.state;
            f.qpn = (uint32_t)g->attr.qpn;
            f.pmtu = g->attr.pmtu;
            f.timeout = g->attr.timeout;
            f.retry_cnt = g->attr.retry_cnt;
            f.rnr_retry = g->attr.rnr_retry;
            f.backoff = g->attr.backoff;
            f.backoff_first = g->attr.backoff_first;
            f.backoff_cap = g->attr.backoff_cap;
            f.send_cq = g->attr.send_cq;
            st->cf = f;
            st->ctx_fn = g->fn;
            st->ctx_wr = g->ctx_write;
            st->ctx_word = g->ctx_word;
            st->ctx_data = g->ctx_data;
            hls_uint(NIC_FNS) bit = (hls_uint(NIC_FNS))(1u << (unsigned)g->fn);
            if (g->kind == NIC_CFG_QP) start_event(st, OP_CFG, g->qp);
            if (g->kind == NIC_CFG_QP_ATTR) start_event(st, OP_ATTR, g->qp);
            if (g->kind == NIC_CFG_CTX && g->ctx_sect == NIC_CTX_COMP_QP) start_event(st, OP_CTXQ, g->qp);
            if (g->kind == NIC_CFG_CTX && g->ctx_sect == NIC_CTX_DIRTY) {
                /* read and clear the function's 16 qpc rows' bits */
                unsigned sh = NIC_QP_PER_FN * (unsigned)g->fn;
                st->ctx_ans = (hls_u128)((st->dirty >> sh) & 0xFFFF);
                st->dirty = st->dirty & ~((uint64_t)0xFFFF << sh);
                st->ctx_wr = 0;
                st->phase = CP_CTX_EV;
            }
            if (g->kind == NIC_CFG_SUSPEND) {
                /* entering RUN starts a new epoch: every timer armed before it is re-armed
                 * in full when its row is next looked at, so no deadline crosses the
                 * suspension (docs/migration.md 3) */
                if (g->level == NIC_SUSPEND_RUN && st->level[g->fn] != NIC_SUSPEND_RUN)
                    st->epoch[g->fn] = st->epoch[g->fn] + 1;
                if (g->level != NIC_SUSPEND_PASSIVE) {
                    st->mk_rx = (hls_uint(NIC_FNS))(st->mk_rx & ~bit);
                    st->mk_req = (hls_uint(NIC_FNS))(st->mk_req & ~bit);
                    st->mk_sent = (hls_uint(NIC_FNS))(st->mk_sent & ~bit);
                }
                st->level[g->fn] = g->level;
            }
            if (g->kind == NIC_CFG_THROTTLE) st->thr_rate[g->fn] = g->rate > CMP_THR_CAP ? CMP_THR_CAP : g->rate;
        } else if (mk_due != 0) {
            /* PASSIVE, both input markers in: nothing of the function can arrive any more */
            unsigned m = mk_due;
            st->mk_fn = (nic_fn_t)(m & 1 ? 0 : m & 2 ? 1 : m & 4 ? 2 : 3);
            st->phase = CP_MK_CTL;
        } else if (scan_now) {
            start_event(st, OP_TMO, st->scan);
            st->scan = st->scan + 1;
        } else if (rec_avail) {
            /* records before packets: the requester hands over a WQE's record before its
             * first packet, so a response may never overtake the record it answers (a
             * mid-SEND ACK was dropped as "nothing outstanding" while its record waited:
             * found by testbench/scenario mixed) */
            const nic_wqe_rec_t w = st->rb_valid ? st->rb : in->wqe_rec.data;
            out->wqe_rec_ready = !st->rb_valid;
            st->rb_valid = 0;
            cmp_wrec_t x = {0};
            x.wr_id = w.wr_id;
            x.local_addr = w.local_addr;
            x.length = w.length;
            x.first_psn = (uint32_t)w.first_psn;
            x.last_psn = (uint32_t)w.last_psn;
            x.wqe_index = w.wqe_index;
            x.opcode = w.wr_opcode;
            x.signaled = w.signaled;
            x.status = w.flush ? (uint8_t)NIC_WC_WR_FLUSH_ERR : w.status;
            st->rec = x;
            st->rec_flush = w.flush;
            st->rec_mark = w.sqd_mark;
            nic_fn_t wfn = (nic_fn_t)((unsigned)w.qp >> NIC_QP_SLOT_BITS);
            if (w.sqd_mark == NIC_MIG_MARK) st->mk_req = st->mk_req | (hls_uint(NIC_FNS))(1u << (unsigned)wfn);
            else start_event(st, OP_WREC, w.qp);
        } else if (in->rx_pkt.valid && in->rx_pkt.data.mig_mark) {
            out->rx_pkt_ready = 1;          /* rx_dispatch's marker: no packet, no beats */
            st->mk_rx = st->mk_rx | (hls_uint(NIC_FNS))(1u << (unsigned)in->rx_pkt.data.fn);
        } else if (pkt_avail) {
            const roce_hdr_t *r = &in->rx_pkt.data.hdr;
            out->rx_pkt_ready = 1;
            pkt_taken = true;
            st->e.p_op = r->opcode;
            st->e.p_psn = r->psn;
            st->e.p_qpn = r->dest_qp;
            st->e.p_syn = r->aeth_syndrome;
            st->e.p_orig = r->atomic_orig;
            st->e.p_len = r->payload_len;
            nic_qp_t qp = (nic_qp_t)(((unsigned)in->rx_pkt.data.fn << NIC_QP_SLOT_BITS) |
                                     ((unsigned)r->dest_qp & (NIC_QP_PER_FN - 1)));
            start_event(st, OP_PKT, qp);
            st->e.beats_left = (uint16_t)(((unsigned)r->payload_len + 63) >> 6);
        }
        if (!in->cfg.valid) st->scan_turn = !scan_now;
        break;
    }
    case CP_CTX: {
        cmp_qpc_t c = st->qpc.hls_mem_rdata;
        unsigned fn = (unsigned)e.qp >> NIC_QP_SLOT_BITS;
        bool run = st->level[fn] == NIC_SUSPEND_RUN;
        /* a timer armed before the function last entered RUN starts again in full: the
         * time suspended never counts (DA3, docs/migration.md 3); suspended, it is frozen */
        bool stale = run && c.epoch != st->epoch[fn];
        if (stale) {
            c.deadline = now + timeout_cycles(&c);
            c.epoch = st->epoch[fn];
        }
        st->c = c;
        hls_mem_read(&st->ring, ((uint32_t)e.qp << NIC_OUTSTANDING_BITS) |
                                    (c.head & (NIC_OUTSTANDING - 1)));
        bool live = c.state == NIC_QPS_RTS || c.state == NIC_QPS_SQD;
        /* a re-armed timer lies a full timeout (>= 1024 cycles) ahead, so it has not
         * expired: compared with the deadline as read, not behind the re-arming add */
        bool expired = run && c.armed && live && c.count != 0 && !stale &&
                       now >= st->qpc.hls_mem_rdata.deadline;
        st->phase = e.op == OP_TMO && !expired ? (stale ? CP_WB : CP_IDLE) : CP_DISPATCH;
        break;
    }
    case CP_DISPATCH: {
        cmp_qpc_t c = c_reg;
        bool live = c.state == NIC_QPS_RTS || c.state == NIC_QPS_SQD;
        switch (e.op) {
        case OP_CFG: {
            /* ->RESET clears the row; otherwise the attributes are copied and a new message
             * count starts; ->ERR flushes what is outstanding (9.9.2) */
            cmp_qpc_t f = st->cf;
            if (f.state == NIC_QPS_RESET) {
                c = (cmp_qpc_t){0};
            } else {
                c = copy_attrs(c, &f);
                reset_retries(&c);
            }
            st->c = c;
            st->phase = f.state == NIC_QPS_ERR ? CP_FLUSH : CP_WB;
            break;
        }
        case OP_ATTR: {
            /* a migrated QP's attributes (NIC_CFG_QP_ATTR): copies only, live state kept */
            st->c = copy_attrs(c, &st->cf);
            st->phase = CP_WB;
            break;
        }
        case OP_CTXQ:
            /* NIC_CTX_COMP_QP: one word; a write answers with the word written */
            st->ctx_ans = st->ctx_wr ? st->ctx_data : comp_ctx_word(&c);
            if (st->ctx_wr) st->c = comp_ctx_load(c, st->ctx_data);
            st->phase = CP_CTX_EV;
            break;
        case OP_WREC: {
            if (st->rec_mark) { /* SQD marker: every WQE of this QP is ahead of it (nic_if.h) */
                c.sqd_wait = st->rec_mark == NIC_SQD_MARK_ENTER;
                st->c = c;
                st->phase = CP_WB; /* which raises the event now if nothing is outstanding */
                break;
            }
            /* a flush record waits in the ring behind outstanding WQEs (CQEs in SQ order);
             * with nothing ahead of it, or no room, it completes at once */
            bool room = live && c.count < NIC_OUTSTANDING;
            if (c.state == NIC_QPS_ERR || (st->rec_flush && !(room && c.count != 0))) {
                st->phase = CP_RECFLUSH;
            } else if (room) {
                uint32_t slot = (c.head + c.count) & (NIC_OUTSTANDING - 1);
                hls_mem_write(&st->ring, ((uint32_t)e.qp << NIC_OUTSTANDING_BITS) | slot,
                              st->rec);
                st->phase = CP_WB;
                if (c.count == 0) {
                    c.count = 1;
                    if (!c.keep_head) { /* a loaded row keeps its head's retry state */
                        c.head_done = 0;
                        c.rd_start = 0;
                        reset_retries(&c);
                    }
                    c.keep_head = 0;
                    if (st->rec.status == NIC_WC_SUCCESS) {
                        restart_timer(&c, now); /* the timer runs while anything is outstanding */
                    } else {
                        /* not sent: it is the oldest, it fails now and never waits */
                        c.armed = 0;
                        c.rnr_wait = 0;
                        st->phase = CP_HEAD;
                    }
                } else {
                    c.count = c.count + 1;
                }
                st->c = c;
            } else {
                st->phase = CP_WB; /* no QP to hold it: the requester broke the contract */
            }
            break;
        }
        case OP_TMO:
            if (c.rnr_wait) {
                st->e.act = ACT_REWIND; /* RNR wait over: resend, the RNR retry was counted */
            } else {
                st->timeouts = st->timeouts + 1;
                st->e.act = ACT_RETRY;
            }
            st->phase = CP_ACT;
            break;
        default: /* OP_PKT */
            if (!live || c.count == 0 || c.qpn != (uint32_t)e.p_qpn) {
                st->dropped = st->dropped + 1;
                finish(st, e.beats_left);
            } else {
                st->e.j = judgement; /* c is c_reg here */
                st->phase = CP_EVAL;
            }
            break;
        }
        break;
    }
    case CP_EVAL: {
        /* one verdict per cycle on the oldest WQE; retiring loops on the next one. A WQE the
         * requester did not send (status != 0) completes as soon as it is the oldest: a flush
         * record with WR_FLUSH_ERR, a rejected WQE with its status and then the QP fails. */
        cmp_qpc_t c = c_reg;
        bool any = c.count != 0;
        unsigned v = e.j.v;
        /* a duplicated or delayed response after a resend started is an echo of the loss
         * that is already being repaired: one resend per loss, not one per echo (with
         * duplication on the wire every retry was burnt at once: testbench/scenario faults).
         * Progress earlier in this event (a READ just completed) ends the repair: the next
         * WQE's own loss is a new one */
        bool echo = v == V_RETRY && c.retrying && !e.progress;
        if (echo) v = V_DONE;
        c.acked = e.j.acked;
        st->e.act_status = e.j.status;
        if (any && h.status == NIC_WC_WR_FLUSH_ERR) {
            out->cqe.valid = 1;
            out->cqe.data = make_cqe(&c, &h, NIC_WC_WR_FLUSH_ERR);
            if (in->cqe_ready) {
                st->cqes = st->cqes + 1;
                st->e.retired = 1;
                pop_head(st, &c, e.qp, &h);
                st->phase = CP_JUDGE;
            }
        } else if (any && h.status != NIC_WC_SUCCESS) {
            st->e.act_status = h.status;
            st->e.act = ACT_FAIL;
            st->phase = CP_RETIRED;
        } else if (v == V_RETIRE) {
            out->cqe.valid = h.signaled;
            out->cqe.data = make_cqe(&c, &h, NIC_WC_SUCCESS);
            if (!h.signaled || in->cqe_ready) {
                if (h.signaled) st->cqes = st->cqes + 1;
                st->e.progress = 1;
                st->e.retired = 1;
                pop_head(st, &c, e.qp, &h);
                st->phase = CP_JUDGE;
            }
        } else if (v == V_RDATA) {
            st->e.progress = 1;
            st->phase = e.beats_left ? CP_RDATA : CP_COMPLETE;
        } else if (v == V_ATOMIC) {
            st->e.progress = 1;
            st->phase = CP_ATOMIC;
        } else {
            uint32_t has = e.j.has;
            bool advanced = has > c.head_done;
            st->e.advanced = advanced;
            if (has > c.head_done) c.head_done = has;
            st->e.partial = v == V_PARTIAL;
            bool nak_here = e.j.nak_here;
            if (nak_here) c.acked = 0;
            /* a second sequence NAK past the start of the resend under way (the packet the
             * first one named came late, another was lost: lossy migration seed 173) is not
             * an echo: the resend may start at its PSN instead. No retry is counted, and the
             * requester moves there only if it has not passed it (REISSUE of a SEND/WRITE),
             * so a round that has gone past is never sent back */
            bool forward = echo && seq_nak(&e) && advanced;
            st->e.act = v == V_RETRY || nak_here ? ACT_RETRY : forward ? ACT_FORWARD : v == V_RNR ? ACT_RNR
                      : v == V_FATAL ? ACT_FAIL : ACT_NONE;
            st->phase = CP_RETIRED;
        }
        st->c = c;
        break;
    }
    case CP_RDATA: {
        /* payload beat -> one DMA write at local_addr + head_done * mtu + 64 i */
        uint32_t left = (uint32_t)e.p_len - e.wr_off;
        nic_dma_req_t d = {0};
        d.write = 1;
        d.addr = h.local_addr + mtus_bytes(c_reg.head_done, c_reg.pmtu) + e.wr_off;
        d.len = left > 64 ? 64 : left;
        d.data = in->rx_pay.data.data;
        out->dma_req.valid = in->rx_pay.valid;
        out->dma_req.data = d;
        out->rx_pay_ready = in->dma_req_ready;
        if (hls_fire(in->rx_pay.valid, in->dma_req_ready)) {
            uint16_t beats_left = e.beats_left - 1;
            st->e.wr_off = e.wr_off + 64;
            st->e.beats_left = beats_left;
            if (beats_left == 0) st->phase = CP_COMPLETE;
        }
        break;
    }
    case CP_ATOMIC: {
        /* AtomicAckETH original remote data, little-endian as the host reads a uint64_t */
        nic_dma_req_t d = {0};
        d.write = 1;
        d.addr = h.local_addr;
        d.len = 8;
        d.data = e.p_orig;
        out->dma_req.valid = 1;
        out->dma_req.data = d;
        if (in->dma_req_ready) st->phase = CP_COMPLETE;
        break;
    }
    case CP_COMPLETE: {
        /* a READ response that is not the last moves head_done; the last one, or an atomic ACK,
         * completes the WQE (after its data write: same DMA port, so ordered before the CQE) */
        cmp_qpc_t c = c_reg;
        bool whole = e.p_op != ROCE_OP_READ_RESPONSE_FIRST &&
                     e.p_op != ROCE_OP_READ_RESPONSE_MIDDLE;
        if (!whole) {
            c.head_done = c.head_done + 1;
            st->phase = CP_RETIRED;
        } else {
            out->cqe.valid = h.signaled;
            out->cqe.data = make_cqe(&c, &h, NIC_WC_SUCCESS);
            if (!h.signaled || in->cqe_ready) {
                if (h.signaled) st->cqes = st->cqes + 1;
                st->e.retired = 1;
                pop_head(st, &c, e.qp, &h);
                st->phase = CP_JUDGE; /* the next WQE may be one that was not sent */
            }
        }
        st->c = c;
        break;
    }
    case CP_RETIRED:
        /* tell the requester which slots are free before any REWIND / STOP */
        out->req_ctl.valid = e.retired;
        out->req_ctl.data = make_ctl(NIC_REQ_RETIRED, e.qp, e.next_idx, e.next_psn);
        if (!e.retired || in->req_ctl_ready) st->phase = CP_ACT;
        break;
    case CP_ACT: {
        cmp_qpc_t c = c_reg;
        if (e.progress) {
            reset_retries(&c);
            restart_timer(&c, now);
        } else if (e.partial && !c.rnr_wait) {
            /* an ACK inside the message that moves it forward resets the retry counts as a
             * retired message does (rxe check_ack resets them on every in-sequence ACK):
             * a 1 MiB message on a lossy wire is not one retry per lost packet from failing */
            if (e.advanced) reset_retries(&c);
            restart_timer(&c, now);
        }
        bool counted = e.progress || e.partial || e.act != ACT_NONE;
        if (e.op == OP_PKT) {
            bool nak = e.p_op == ROCE_OP_ACKNOWLEDGE && ((e.p_syn >> 5) & 3) != 0;
            if (counted && nak) st->naks = st->naks + 1;
            if (counted && !nak) st->acks = st->acks + 1;
            if (!counted) st->dropped = st->dropped + 1;
        }
        switch (e.act) {
        case ACT_RETRY: /* 9.7.5.2.2: one retry of the message, bounded by retry_cnt */
            if (c.retries_left == 0) {
                st->e.act_status = NIC_WC_RETRY_EXC_ERR;
                st->phase = CP_ERRCQE;
            } else {
                c.retries_left = c.retries_left - 1;
                /* a resend is under way, whether a timeout or a packet started it: until
                 * progress, only the timer starts another (rxe started_retry). The ACK
                 * that answers a timeout resend's first packets also says the lost
                 * READ/atomic response is missing; counting it burnt two retries per
                 * loss (testbench/scenario faults seed 74) */
                c.retrying = 1;
                st->phase = CP_REWIND;
            }
            break;
        case ACT_REWIND:
        case ACT_FORWARD:
            st->phase = CP_REWIND;
            break;
        case ACT_RNR: /* 9.7.5.2.8: wait the peer's RNR timer, then resend; 7 = infinite */
            if (c.rnr_left == 0) {
                st->e.act_status = NIC_WC_RNR_RETRY_EXC_ERR;
                st->phase = CP_ERRCQE;
            } else {
                if (c.rnr_retry != 7) c.rnr_left = c.rnr_left - 1;
                c.armed = 1;
                c.rnr_wait = 1;
                c.deadline = now + rnr_cycles[e.p_syn & 31];
                finish(st, e.beats_left);
            }
            break;
        case ACT_FAIL:
            st->phase = CP_ERRCQE;
            break;
        default:
            finish(st, e.beats_left);
            break;
        }
        st->c = c;
        break;
    }
    case CP_REWIND: {
        /* resend from the first PSN of the oldest WQE the responder does not have (IB
         * 9.7.5.2, rxe req_retry): mid-message behind what it acknowledged or a NAK named, a
         * READ from its first missing response, whose request then asks for the rest only.
         * Backoff mode doubles the next timeout up to the cap (DA3). */
        /* a READ/atomic an ACK went past (acked): the peer has the requests after it, so
         * only this one is sent again (REISSUE); otherwise (a sequence or RNR NAK, a timeout
         * with no such ACK) the peer may lack them: go-back-N (REWIND) */
        bool alone = wr_reads_back(h.opcode) && acked_covers(&c_reg, h.first_psn);
        out->req_ctl.valid = 1;
        bool reissue = alone || e.act == ACT_FORWARD;
        out->req_ctl.data = make_ctl(reissue ? NIC_REQ_REISSUE : NIC_REQ_REWIND, e.qp, h.wqe_index,
                                     h.first_psn + c_reg.head_done);
        out->req_ctl.data.psn_off = (hls_u24)c_reg.head_done;
        /* what that ACK says the peer has: the requester, its re-issue out, holds until the
         * WQEs it covers retire instead of going back to send them (lossy migration seed 65) */
        out->req_ctl.data.acked = alone;
        out->req_ctl.data.acked_psn = (hls_u24)(c_reg.acked & 0xFFFFFF);
        if (in->req_ctl_ready) {
            cmp_qpc_t c = c_reg;
            if (e.act == ACT_RETRY && c.backoff && c.cur_exp < c.backoff_cap)
                c.cur_exp = c.cur_exp + 1;
            c.rd_start = c.head_done; /* the re-issued READ's first response comes there */
            restart_timer(&c, now);
            st->c = c;
            if (e.act != ACT_FORWARD) st->retries = st->retries + 1;
            finish(st, e.beats_left);
        }
        break;
    }
    case CP_ERRCQE:
        /* an error completion is always reported, signaled or not (10.7.3.1) */
        out->cqe.valid = 1;
        out->cqe.data = make_cqe(&c_reg, &h, e.act_status);
        if (in->cqe_ready) {
            cmp_qpc_t c = c_reg;
            st->cqes = st->cqes + 1;
            pop_head(st, &c, e.qp, &h);
            st->c = c;
            st->phase = CP_EV;
        }
        break;
    case CP_EV:
        out->ev.valid = 1;
        out->ev.data.kind = NIC_EV_QP_ERR;
        out->ev.data.qp = e.qp;
        out->ev.data.cq = (nic_cq_t)c_reg.send_cq;
        out->ev.data.detail = e.act_status;
        out->ev.data.in_cqe = 1; /* the CQE just written reports it */
        if (in->ev_ready) st->phase = CP_STOP;
        break;
    case CP_STOP:
        out->req_ctl.valid = 1;
        out->req_ctl.data = make_ctl(NIC_REQ_STOP, e.qp, e.next_idx, 0);
        if (in->req_ctl_ready) st->phase = CP_FLUSH;
        break;
    case CP_FLUSH:
        /* the QP is in error: every outstanding WQE completes with WR_FLUSH_ERR */
        if (c_reg.count == 0) {
            cmp_qpc_t c = c_reg;
            c.state = NIC_QPS_ERR;
            c.armed = 0;
            c.rnr_wait = 0;
            st->c = c;
            finish(st, e.beats_left);
        } else {
            out->cqe.valid = 1;
            out->cqe.data = make_cqe(&c_reg, &h, NIC_WC_WR_FLUSH_ERR);
            if (in->cqe_ready) {
                cmp_qpc_t c = c_reg;
                st->cqes = st->cqes + 1;
                pop_head(st, &c, e.qp, &h);
                st->c = c;
            }
        }
        break;
    case CP_RECFLUSH:
        out->cqe.valid = 1;
        out->cqe.data = make_cqe(&c_reg, &st->rec, NIC_WC_WR_FLUSH_ERR);
        if (in->cqe_ready) {
            st->cqes = st->cqes + 1;
            st->phase = CP_WB;
        }
        break;
    case CP_DRAIN:
        /* payload of a packet that writes nothing: consume and drop its beats */
        out->rx_pay_ready = 1;
        if (in->rx_pay.valid) {
            uint16_t beats_left = e.beats_left - 1;
            st->e.beats_left = beats_left;
            if (beats_left == 0) st->phase = CP_WB;
        }
        break;
    case CP_HEAD:
        /* the record written in DISPATCH is the oldest: read it back for JUDGE */
        hls_mem_read(&st->ring, ((uint32_t)e.qp << NIC_OUTSTANDING_BITS) |
                                    (c_reg.head & (NIC_OUTSTANDING - 1)));
        st->phase = CP_JUDGE;
        break;
    case CP_JUDGE:
        /* the next head WQE is on the ring's output: judge it, EVAL acts next cycle */
        st->e.j = judgement;
        st->phase = CP_EVAL;
        break;
    case CP_SQD_EV:
        out->ev.valid = 1;
        out->ev.data.kind = NIC_EV_SQ_DRAINED;
        out->ev.data.qp = e.qp;
        out->ev.data.cq = (nic_cq_t)c_reg.send_cq;
        if (in->ev_ready) {
            cmp_qpc_t c = c_reg;
            c.sqd_wait = 0;
            st->c = c;
            st->phase = CP_WB;
        }
        break;
    case CP_CTX_EV:
        out->ev.valid = 1;
        out->ev.data.kind = NIC_EV_CTX;
        out->ev.data.fn = st->ctx_fn;
        out->ev.data.data = st->ctx_ans;
        if (in->ev_ready) st->phase = st->ctx_wr ? CP_WB : CP_IDLE;
        break;
    case CP_MK_CTL:
        /* the function's markers, each behind the last item of the function on its output */
        out->req_ctl.valid = 1;
        out->req_ctl.data = make_ctl(NIC_REQ_MIG_MARK, (nic_qp_t)((unsigned)st->mk_fn << NIC_QP_SLOT_BITS), 0, 0);
        if (in->req_ctl_ready) st->phase = CP_MK_CQE;
        break;
    case CP_MK_CQE:
        out->cqe.valid = 1;
        out->cqe.data.cq = (nic_cq_t)((unsigned)st->mk_fn << NIC_QP_SLOT_BITS);
        out->cqe.data.mig_mark = 1;
        if (in->cqe_ready) st->phase = CP_MK_EV;
        break;
    case CP_MK_EV:
        out->ev.valid = 1;
        out->ev.data.kind = NIC_EV_MIG_MARK;
        out->ev.data.fn = st->mk_fn;
        if (in->ev_ready) {
            st->mk_sent = st->mk_sent | (hls_uint(NIC_FNS))(1u << (unsigned)st->mk_fn);
            st->phase = CP_IDLE;
        }
        break;
    default: /* CP_WB */
        /* every event ends here, so a drain that has just finished is seen here: the SQD
         * marker with nothing outstanding, the last retirement behind it, or (the cfg and
         * the marker race) the SQD cfg after the marker */
        if (c_reg.sqd_wait && c_reg.count == 0 && c_reg.state == NIC_QPS_SQD) {
            st->phase = CP_SQD_EV;
            break;
        }
        hls_mem_write(&st->qpc, e.qp, c_reg);
        st->dirty = st->dirty | ((uint64_t)1 << (unsigned)e.qp);
        st->phase = CP_IDLE;
        break;
    }

    /* wqe_rec is never held up by an event in progress (e.g. one waiting for req_ctl_ready):
     * one record is buffered and handled at the next IDLE (docs/completer.md, deadlock) */
    if (phase != CP_IDLE && !st->rb_valid) {
        out->wqe_rec_ready = 1;
        if (in->wqe_rec.valid) {
            st->rb = in->wqe_rec.data;
            st->rb_valid = 1;
        }
    }

    for (unsigned f = 0; f < NIC_FNS; f++) {
        uint32_t t = st->thr_tokens[f] + st->thr_rate[f];
        if (t > CMP_THR_CAP) t = CMP_THR_CAP;
        if (pkt_taken && pkt_fn == f && st->thr_rate[f] != 0) t = t - pkt_cost; /* it was in the bucket */
        st->thr_tokens[f] = st->thr_rate[f] == 0 ? 0 : t;
    }
    /* the simulator's idle jump skips time_skip cycles; it checks first that nothing but
     * `now` changes over a scan period, so a bucket still filling holds it back */
    st->now = now + 1 + in->time_skip;
}
