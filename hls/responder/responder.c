/* responder — the RC responder of the NIC (docs/responder.md).
 *
 * Serves one thing at a time from IDLE: a cfg row, an RQ doorbell, a request packet, or one
 * unit of a QP's background work (one READ RESPONSE packet, one flushed RQ WQE). The QP's
 * rows (qpc, rdq) are read into registers (ctx, rq) in the first cycle, worked on, and
 * written back in the last cycle (write_back -> IDLE), so the next IDLE read of the same row
 * sees it (memories are read-first: the write lands at the edge, the read comes a cycle
 * later). Per cycle the FSM does at most one read of each table, one DMA request or one beat.
 * Because a READ response is per-packet work whose position is in the rdq row, the QPs'
 * responses interleave packet by packet and a quiesced QP stops at a packet boundary.
 *
 * Protocol: IBTA vol. 1 9.7.4 (responder) / 9.7.5 (ACK/NAK), as Linux rxe_resp.c does it:
 * PSN check, opcode sequence, MTU length rules, RNR, rkey/PD/range/access, then execute. */
#include "responder.h"
#include "nic_ctx.h"
#include "roce_psn.h"

/* The context words (nic_ctx.h) against this block's rows: the firmware's view and ours. */
_Static_assert(NIC_CTX_RESP_QP_WORDS * 128 == NIC_CTX_RSP_BITS, "RESP_QP words");
_Static_assert(NIC_CTX_RESP_ATOM_WORDS == RSP_ATOM_SLOTS, "one RESP_ATOM word per replay slot");
_Static_assert(RSP_OPEN_SEND == NIC_CTX_RSP_POS_SEND && RSP_OPEN_WRITE == NIC_CTX_RSP_POS_WRITE &&
                   RSP_OPEN_NONE == NIC_CTX_RSP_POS_NONE, "POS_CLASS values are RSP_OPEN_*");
_Static_assert(NIC_CTX_RSP_RD_PSN + 24 <= 128 && NIC_CTX_RSP_POS_DONE + 32 == NIC_CTX_RSP_BITS,
               "word 0: counters and flags; word 1: the position");
_Static_assert(sizeof(((rsp_qpc_t *)0)->addr) * 8 == 64 && sizeof(((rsp_qpc_t *)0)->len) * 8 == 32 &&
                   sizeof(((rsp_qpc_t *)0)->off) * 8 == 32 && sizeof(((rsp_qpc_t *)0)->rq_head) * 8 == 16,
               "POS_VA / POS_LEFT / POS_DONE / RQ_HEAD widths are the row's");
_Static_assert(RSP_ATOM_SLOTS == 4, "REPLAY_FILL encodes 4 slots in 3 bits");

#define AETH_ACK 0x1F      /* ACK, unlimited credits (rxe's AETH_ACK_UNLIMITED) */
#define AETH_RNR 0x20      /* | 5-bit timer */
#define AETH_NAK_SEQ 0x60  /* PSN sequence error */
#define AETH_NAK_INV 0x61  /* invalid request */
#define AETH_NAK_ACC 0x62  /* remote access error */
#define AETH_NAK_OP 0x63   /* remote operational error */
#define RETH_LEN_MAX 0x80000000u /* IB 9.4.4: DMA length at most 2^31 */

/* States in which an RC QP's receive side accepts requests (IB 10.3.1; rxe check). */
HLS_INLINE bool state_accepts(uint8_t s) {
    return s == NIC_QPS_RTR || s == NIC_QPS_RTS || s == NIC_QPS_SQD || s == NIC_QPS_SQE;
}

HLS_INLINE bool bit_of(uint64_t b, nic_qp_t q) { return ((b >> (unsigned)q) & 1) != 0; }

HLS_INLINE uint64_t bit_set(uint64_t b, nic_qp_t q, bool v) {
    uint64_t m = (uint64_t)1 << (unsigned)q;
    return v ? (b | m) : (b & ~m);
}

/* The number of the lowest set bit of a byte (0 for none): a function of its 8 bits, two LUT
 * levels. */
HLS_INLINE unsigned lowest_of_byte(unsigned x) {
    bool hi4 = (x & 0x0F) == 0;
    unsigned y = hi4 ? x >> 4 : x;
    bool hi2 = (y & 0x3) == 0;
    unsigned z = hi2 ? y >> 2 : y;
    return (hi4 ? 4u : 0u) | (hi2 ? 2u : 0u) | ((z & 1) == 0 ? 1u : 0u);
}

/* The number of the lowest set bit of b (b != 0) as a tree: the lowest byte with a bit set,
 * then the lowest bit of that byte, both lowest_of_byte, the byte's picked by an 8-way mux.
 * __builtin_ctzll is a priority chain of 64 muxes (rtl-gen), 13 levels deep. */
HLS_INLINE unsigned lowest_set(uint64_t b) {
    unsigned any = 0;
    uint8_t low[8];
    for (unsigned g = 0; g < 8; g++) {
        unsigned byte = (unsigned)(b >> (8 * g)) & 0xFF;
        any |= (byte != 0 ? 1u : 0u) << g;
        low[g] = (uint8_t)lowest_of_byte(byte);
    }
    unsigned g = lowest_of_byte(any);
    return 8 * g + low[g];
}

/* Round robin: the first set bit of b after `last`, else the first set bit (b != 0). The bits
 * after `last` by a compare per bit (a mask from a shift by `last` and a subtract was a
 * barrel shifter and a carry chain), the lowest set bit of both picked in parallel: IDLE's
 * pick runs into the rows' read address. */
HLS_INLINE nic_qp_t pick_after(uint64_t b, nic_qp_t last) {
    uint64_t later = 0;
    for (unsigned i = 0; i < 64; i++)
        later |= (i > (unsigned)last ? (uint64_t)1 : 0) << i;
    later &= b;
    return (nic_qp_t)(later != 0 ? lowest_set(later) : lowest_set(b));
}

/* Address of RQ WQE rq_head in the ring of 2^rq_log 32-byte entries. */
HLS_INLINE uint64_t rq_wqe_addr(const rsp_qpc_t *c) {
    uint32_t mask = c->rq_log >= 16 ? 0xFFFFu : ((uint32_t)1 << c->rq_log) - 1;
    uint16_t i = c->wqe_reload ? (uint16_t)(c->rq_head - 1) : c->rq_head; /* the open SEND's */
    return c->rq_base + 32 * (uint64_t)(i & mask);
}

/* A working copy of the job's QP rows (the ctx and rq registers). responder() reads the
 * registers once, at the start of the cycle (`now`); each state works on a copy of its own
 * taken from there and stores it back (keep). Read as st->ctx, or from one copy shared by
 * all states, a field one state stores would reach every state laid out after it through
 * that store's mux (docs/rtl-gen.md: the states exclude each other, synthesis cannot know
 * it): WQE_KEY's MR check ran on through WQE_RSP's buffer-length compare into BG's
 * decision. (One copy per state merged into one store at the end also cut that path, but
 * its wide merge renumbered a quarter of the Verilog on small source changes: rtl-diff.) */
typedef struct {
    rsp_qpc_t ctx;
    rsp_rdq_t rq;
} rsp_job_t;

/* The registers take the copy of the state served (rsp_job_t). */
HLS_INLINE void keep(responder_state *st, const rsp_job_t *w) {
    st->ctx = w->ctx;
    st->rq = w->rq;
}

/* A response packet to the peer of the QP in ctx, from the QP's function. */
HLS_INLINE roce_hdr_t base_desc(const responder_state *st, const rsp_job_t *j, uint8_t opcode, hls_u24 psn) {
    roce_hdr_t d = {0};
    d.dst_mac = j->ctx.dst_mac;
    nic_fn_t fn = (nic_fn_t)((unsigned)st->row >> NIC_QP_SLOT_BITS);
    d.src_mac = st->fn_mac[fn];
    d.src_ip = st->fn_ip[fn];
    d.dst_ip = j->ctx.dst_ip;
    d.ttl = 64;
    d.udp_sport = j->ctx.udp_sport;
    d.opcode = opcode;
    d.pkey = 0xFFFF; /* default partition, as rxe */
    d.dest_qp = (hls_u24)j->ctx.dest_qpn;
    d.psn = psn;
    return d;
}

HLS_INLINE void queue_ack(responder_state *st, rsp_job_t *j, uint8_t syndrome, hls_u24 psn) {
    roce_hdr_t d = base_desc(st, j, ROCE_OP_ACKNOWLEDGE, psn);
    d.aeth_syndrome = syndrome;
    d.aeth_msn = (hls_u24)j->ctx.msn;
    st->txd = d;
    st->need_ack = true;
}

HLS_INLINE void queue_cqe(responder_state *st, rsp_job_t *j, uint64_t wr_id, uint32_t byte_len, uint8_t opcode,
                          uint8_t status, bool with_imm) {
    nic_cqe_req_t c = {0};
    c.cq = (nic_cq_t)j->ctx.recv_cq;
    c.cqe.wr_id = wr_id;
    c.cqe.byte_len = byte_len;
    c.cqe.imm = with_imm ? st->pkt.hdr.imm : 0;
    c.cqe.qpn = j->ctx.qpn & ROCE_PSN_MASK;
    c.cqe.opcode = opcode;
    c.cqe.status = status;
    c.cqe.flags = with_imm ? NIC_CQE_WITH_IMM : 0;
    c.solicited = st->pkt.hdr.se; /* BTH SE of the message's last packet: CQ arm (nic_if.h) */
    st->cqe = c;
    st->need_cqe = true;
}

/* Fatal NAK (IB 9.7.5.2.4-6): NAK with the request's PSN, an open SEND's WQE completes in
 * error, the QP goes to ERR here at once (later packets are dropped) and ctrl is told. */
HLS_INLINE void fatal(responder_state *st, rsp_job_t *j, uint8_t syndrome, uint8_t wc_status) {
    bool ends_recv = j->ctx.open == RSP_OPEN_SEND; /* a receive WQE's error CQE reports it */
    if (ends_recv)
        queue_cqe(st, j, j->ctx.wqe_id, j->ctx.off, NIC_WC_RECV, wc_status, false);
    j->ctx.state = NIC_QPS_ERR;
    j->ctx.open = RSP_OPEN_NONE;
    j->rq.count = 0; /* READs not yet answered are answered no more */
    j->rq.started = 0;
    queue_ack(st, j, syndrome, st->pkt.hdr.psn);
    nic_event_t e = {0};
    e.kind = NIC_EV_QP_ERR;
    e.qp = st->row;
    e.cq = (nic_cq_t)j->ctx.recv_cq;
    e.detail = wc_status;
    e.in_cqe = ends_recv;
    st->ev = e;
    st->need_ev = true;
    st->discard = true;
}

/* Set up the next READ RESPONSE packet of the head READ in rq: up to one MTU of what is left
 * (IB 9.7.5.1.4); FIRST/ONLY unless the head's FIRST is already out. end: it is the READ's
 * last (what is left <= MTU); next_end: so is the packet after it (left <= 2 MTU). Both are
 * compares on what was left a packet earlier, made before it is needed (rd_last,
 * rd_next_end), so the end of a packet does not wait for a subtract and a compare. */
HLS_INLINE void start_rd_pkt(responder_state *st, rsp_job_t *j, bool end, bool next_end) {
    unsigned h = j->rq.head & (RSP_RD_SLOTS - 1);
    uint32_t mtu = (uint32_t)mtu_mul(1, j->ctx.pmtu);
    uint32_t n = end ? j->rq.len[h] : mtu;
    uint8_t op = !j->rq.started ? (end ? ROCE_OP_READ_RESPONSE_ONLY : ROCE_OP_READ_RESPONSE_FIRST)
                                 : (end ? ROCE_OP_READ_RESPONSE_LAST : ROCE_OP_READ_RESPONSE_MIDDLE);
    roce_hdr_t d = base_desc(st, j, op, (hls_u24)j->rq.psn[h]);
    if (op != ROCE_OP_READ_RESPONSE_MIDDLE) { /* AETH on FIRST, LAST, ONLY */
        d.aeth_syndrome = AETH_ACK;
        d.aeth_msn = (hls_u24)j->rq.msn[h];
    }
    d.payload_len = (hls_uint(14))n;
    st->txd = d;
    st->rd_n = (uint16_t)n;
    st->rd_last = end;
    st->rd_next_end = next_end;
    st->tx_rem = (uint16_t)n;
    st->desc_done = false;
    st->phase = RSP_RD;
}

/* A turn of READ work for the QP in ctx/rq: reads are issued from the head's position on.
 * others: another QP has background work or a parked packet waits (rd_others). */
HLS_INLINE void begin_rd_turn(responder_state *st, rsp_job_t *j, bool others) {
    unsigned h = j->rq.head & (RSP_RD_SLOTS - 1);
    st->rd_others = others;
    st->iss_va = j->rq.va[h];
    st->iss_rem = j->rq.len[h];
    st->ahead = 0;
    st->iss_hold = false;
    start_rd_pkt(st, j, j->rq.len[h] <= mtu_mul(1, j->ctx.pmtu), j->rq.len[h] <= mtu_mul(2, j->ctx.pmtu));
}

/* The packet being sent is out: the head READ's position moves past it, and a READ whose
 * last packet it was (rd_last: nothing left after it) leaves the queue. */
HLS_INLINE void advance_rd(responder_state *st, rsp_job_t *j) {
    unsigned h = j->rq.head & (RSP_RD_SLOTS - 1);
    j->rq.va[h] = j->rq.va[h] + st->rd_n;
    j->rq.len[h] = j->rq.len[h] - st->rd_n;
    j->rq.psn[h] = psn_add(j->rq.psn[h], 1);
    j->rq.started = 1;
    if (st->rd_last) {
        j->rq.head = (uint8_t)((h + 1) & (RSP_RD_SLOTS - 1));
        j->rq.count = (uint8_t)(j->rq.count - 1);
        j->rq.started = 0;
    }
}

/* Put a READ into slot s of rq: answered from va/len with PSNs from psn on, AETH MSN msn;
 * fresh: a new READ (it moved EPSN), not a duplicate. */
HLS_INLINE void put_read(responder_state *st, rsp_job_t *j, unsigned s, hls_u24 psn, uint32_t msn, bool fresh) {
    uint8_t bit = (uint8_t)(1u << s);
    j->rq.fresh = fresh ? (uint8_t)(j->rq.fresh | bit) : (uint8_t)(j->rq.fresh & ~bit);
    j->rq.va[s] = st->pkt.hdr.reth_va;
    j->rq.len[s] = st->pkt.hdr.reth_len;
    j->rq.psn[s] = (uint32_t)psn;
    j->rq.msn[s] = msn;
}

/* Row write-back at the end of a job (both rows, always: the job may have changed either),
 * and the QP's scheduling bits from what the rows now say. */
HLS_INLINE void write_back(responder_state *st, rsp_job_t *j) {
    hls_mem_write(&st->qpc, st->row, j->ctx);
    hls_mem_write(&st->rdq, st->row, j->rq);
    bool flush = j->rq.flush && j->ctx.rq_head != j->ctx.rq_tail;
    st->bg_work = bit_set(st->bg_work, st->row, j->rq.count != 0 || flush);
    st->quiesced_qps = bit_set(st->quiesced_qps, st->row, j->ctx.quiesced != 0);
    st->dirty = bit_set(st->dirty, st->row, true); /* migration: the row must be saved again */
    st->phase = RSP_IDLE;
}

/* A SEND packet's payload is accepted: advance epsn, complete the message on its last
 * packet (MSN, receive CQE), ACK if asked (coalescing: 9.7.5.1.1). */
HLS_INLINE void accept_send(responder_state *st, rsp_job_t *j, bool ends) {
    uint8_t op = st->pkt.hdr.opcode;
    j->ctx.epsn = psn_add(j->ctx.epsn, 1);
    if (ends) {
        j->ctx.msn = (j->ctx.msn + 1) & ROCE_PSN_MASK;
        j->ctx.open = RSP_OPEN_NONE;
        bool imm = op == ROCE_OP_SEND_LAST_IMM || op == ROCE_OP_SEND_ONLY_IMM;
        queue_cqe(st, j, j->ctx.wqe_id, j->ctx.off, NIC_WC_RECV, NIC_WC_SUCCESS, imm);
    } else {
        j->ctx.open = RSP_OPEN_SEND;
    }
    if (st->pkt.hdr.ack_req) queue_ack(st, j, AETH_ACK, st->pkt.hdr.psn);
    st->discard = false;
}

/* A SEND MIDDLE/LAST of the open message: on into the buffer, or too long for it. */
HLS_INLINE void continue_send(responder_state *st, rsp_job_t *j, bool last) {
    uint32_t plen = (uint32_t)st->pkt.hdr.payload_len;
    if (j->ctx.off + plen > j->ctx.len) { /* longer than the receive buffer */
        fatal(st, j, AETH_NAK_INV, NIC_WC_LOC_LEN_ERR);
    } else {
        st->pay_addr = j->ctx.addr + j->ctx.off;
        j->ctx.off = j->ctx.off + plen;
        accept_send(st, j, last);
    }
}

HLS_INLINE void finish_atomic(responder_state *st, rsp_job_t *j) {
    const roce_hdr_t *h = &st->pkt.hdr;
    rsp_atom_t a = st->atom.hls_mem_rdata; /* this QP's row, read in IDLE, still held */
    unsigned slot = j->ctx.atom_next & (RSP_ATOM_SLOTS - 1);
    a.orig[slot] = st->at_orig;
    a.psn[slot] = h->psn;
    a.valid |= 1u << slot;
    hls_mem_write(&st->atom, st->row, a);
    j->ctx.atom_next = (uint8_t)((slot + 1) & (RSP_ATOM_SLOTS - 1));
    j->ctx.epsn = psn_add(j->ctx.epsn, 1);
    j->ctx.msn = (j->ctx.msn + 1) & ROCE_PSN_MASK;
    roce_hdr_t d = base_desc(st, j, ROCE_OP_ATOMIC_ACKNOWLEDGE, h->psn);
    d.aeth_syndrome = AETH_ACK;
    d.aeth_msn = (hls_u24)j->ctx.msn;
    d.atomic_orig = st->at_orig;
    st->txd = d;
    st->need_ack = true;
    st->phase = RSP_FIN;
}

/* The value an atomic leaves in memory (IB 9.4.5: 64-bit, host byte order in memory). */
HLS_INLINE uint64_t atomic_result(const roce_hdr_t *h, uint64_t orig) {
    if (h->opcode == ROCE_OP_FETCH_ADD) return orig + h->atomic_swap_add;
    return orig == h->atomic_cmp ? h->atomic_swap_add : orig;
}

/* The attribute copies of a QP row (NIC_CFG_QP, NIC_CFG_QP_ATTR). */
HLS_INLINE void take_attrs(rsp_qpc_t *c, rsp_rdq_t *r, const nic_qp_attr_t *a) {
    c->qpn = a->qpn;
    c->dest_qpn = a->dest_qpn;
    c->dst_mac = a->dst_mac;
    c->dst_ip = a->dst_ip;
    c->udp_sport = a->udp_sport;
    c->pd = a->pd;
    c->access = a->access;
    c->pmtu = a->pmtu;
    c->rq_base = a->rq_base;
    c->rq_log = a->rq_log;
    c->recv_cq = a->recv_cq;
    c->min_rnr = a->min_rnr_timer;
    r->limit = a->max_dest_rd_atomic > RSP_RD_SLOTS ? RSP_RD_SLOTS : a->max_dest_rd_atomic;
}

/* cfg for a QP row: copy the attributes, reset or start the dynamic part on the transitions
 * that define it, arm the flush on the way into ERR (IB 10.3.1: posted receive WRs complete
 * with flush error; the flush is background work, one WQE per turn, so it stops while the
 * QP is quiesced). */
HLS_INLINE void apply_cfg(responder_state *st, rsp_job_t *j) {
    rsp_qpc_t c = st->qpc.hls_mem_rdata;
    rsp_rdq_t r = st->rdq.hls_mem_rdata;
    const nic_cfg_t *g = &st->cfg;
    const nic_qp_attr_t *a = &g->attr;
    if (g->kind == NIC_CFG_QUIESCE) {
        c.quiesced = g->quiesce;
    } else if (g->kind == NIC_CFG_QP_ATTR) {
        /* loaded by the migration firmware: the attributes as ctrl's row has them, our live
         * state as our own section loaded it; no transition. A QP loaded in ERR flushes its
         * posted WQEs once the function runs (as ctrl's cfg into ERR arms it) */
        take_attrs(&c, &r, a);
        c.state = a->state;
        r.flush = a->state == NIC_QPS_ERR;
    } else {
        if (a->state == NIC_QPS_RESET || g->prev_state == NIC_QPS_RESET) {
            rsp_qpc_t z = {0};
            c = z;
            rsp_rdq_t zr = {0};
            r = zr;
            rsp_atom_t za = {0};
            hls_mem_write(&st->atom, st->row, za); /* a new QP replays nothing */
        }
        take_attrs(&c, &r, a);
        if (g->prev_state == NIC_QPS_INIT && a->state == NIC_QPS_RTR) {
            c.epsn = a->rq_psn;
            c.nak_pending = 0;
            c.open = RSP_OPEN_NONE;
        }
        if (a->state == NIC_QPS_ERR && g->prev_state != NIC_QPS_ERR) {
            r.flush = 1;
            r.count = 0; /* no more READ responses in ERR */
            r.started = 0;
            c.open = RSP_OPEN_NONE;
        }
        c.state = a->state;
    }
    j->ctx = c;
    j->rq = r;
    write_back(st, j);
}

/* The packet carries an rkey (9.7.4.1.5): a RETH (WRITE FIRST/ONLY/ONLY_IMM, READ) or an
 * AtomicETH. Only such a packet goes through the RKEY stage. */
HLS_INLINE bool carries_rkey(uint8_t op) { return roce_op_is_atomic(op) || (roce_ext(op) & ROCE_EXT_RETH); }

/* The access a packet with an rkey asks for (its rkey, va, length and right), taken in IDLE
 * from the packet it takes (pre), so that RKEY's check starts from registers: decoded from
 * the opcode in RKEY, it ran in front of mr_check's subtracts. */
HLS_INLINE void key_access(rsp_pre_t *pre, const roce_hdr_t *h) {
    bool is_atomic = roce_op_is_atomic(h->opcode);
    pre->key_rkey = is_atomic ? h->atomic_rkey : h->reth_rkey;
    pre->key_va = is_atomic ? h->atomic_va : h->reth_va;
    pre->key_len = is_atomic ? 8 : h->reth_len;
    pre->key_acc = roce_op_is_read(h->opcode) ? NIC_ACC_REMOTE_READ
                                              : (is_atomic ? NIC_ACC_REMOTE_ATOMIC : NIC_ACC_REMOTE_WRITE);
}

/* RKEY stage: the rkey check of the packet in pkt (its access taken in IDLE: p) against its
 * MR row and its QP row, both read in IDLE (valid, key, PD, range, and the access right in
 * both the MR and the QP). A stage of its own because mr_check (two 64-bit subtracts and a
 * compare on the MR block RAM's output) in front of CHECK's verdict and its execution made
 * CHECK the block's slowest path. A zero-length RDMA is not checked at all, the QP's access
 * flags included (rxe checks those first: docs/responder.md "Not implemented yet"). */
HLS_INLINE bool rkey_ok(const responder_state *st, const rsp_pre_t *p) {
    const rsp_qpc_t c = st->qpc.hls_mem_rdata;
    const nic_mr_row_t mr = st->mr.hls_mem_rdata;
    return p->key_len == 0 || ((c.access & p->key_acc) != 0 &&
                               mr_check(&mr, p->key_rkey, c.pd, p->key_va, p->key_len, p->key_acc));
}

/* READ arithmetic on the rows read in IDLE, made in RKEY (every READ goes through it) so
 * that CHECK only selects: CHECK with a packet count, an EPSN add and the queue's tail PSN
 * compare behind its verdict was the block's slowest path. rd_epsn: EPSN after a new READ
 * (one PSN per response packet); rd_behind: a duplicate READ at or past the end of the
 * READs queued (that round's next READ, queued behind them; rxe duplicate_request). */
HLS_INLINE void read_sums(responder_state *st) {
    const rsp_qpc_t c = st->qpc.hls_mem_rdata;
    const rsp_rdq_t r = st->rdq.hls_mem_rdata;
    const roce_hdr_t *h = &st->pkt.hdr;
    unsigned t = (r.head + r.count - 1) & (RSP_RD_SLOTS - 1);
    uint32_t tail_pkts = mtu_packets_of(r.len[t], c.pmtu);
    st->pre.rd_epsn = psn_add(c.epsn, mtu_packets_of(h->reth_len, c.pmtu));
    st->pre.rd_behind = r.count != 0 && psn_le(psn_add(r.psn[t], tail_pkts), h->psn);
}

/* A request packet whose rows have just been read (and, with an rkey, checked in RKEY): PSN
 * check, then (new requests) the validations in rxe's order, then what to execute. */
HLS_INLINE void check_packet(responder_state *st, rsp_job_t *j, const rsp_pre_t *pre) {
    const rsp_qpc_t c = st->qpc.hls_mem_rdata;
    const rsp_atom_t at = st->atom.hls_mem_rdata;
    const rsp_rdq_t r = st->rdq.hls_mem_rdata;
    const roce_hdr_t *h = &st->pkt.hdr;
    uint8_t op = h->opcode;
    uint8_t ext = roce_ext(op);
    uint32_t plen = (uint32_t)h->payload_len;
    j->ctx = c;
    j->rq = r;
    st->discard = true;
    st->pay_rem = (uint16_t)plen;
    st->phase = plen ? RSP_PAY : RSP_FIN;

    bool is_send = roce_op_is_send(op);
    bool is_write = roce_op_is_write(op);
    bool is_read = roce_op_is_read(op);
    bool is_atomic = roce_op_is_atomic(op);
    bool first = roce_op_is_first(op);
    bool middle = roce_op_is_middle(op);
    bool only = roce_op_is_only(op);
    bool last = roce_op_is_last(op);
    bool need_wqe = op == ROCE_OP_SEND_FIRST || op == ROCE_OP_SEND_ONLY ||
                    op == ROCE_OP_SEND_ONLY_IMM || op == ROCE_OP_RDMA_WRITE_LAST_IMM ||
                    op == ROCE_OP_RDMA_WRITE_ONLY_IMM;

    bool for_us = c.qpn == h->dest_qp && state_accepts(c.state) && !c.quiesced &&
                  (is_send || is_write || is_read || is_atomic) &&
                  ((ext & ROCE_EXT_PAYLOAD) || plen == 0);
    if (st->pkt.gated) {
        /* a request the closed gate dropped (rx_dispatch): nothing is executed or answered,
         * but the QP now owes the peer its resume NAK, even if this was the peer's first
         * request; nak_pending says so (resume_nak) and travels in the image */
        st->phase = RSP_IDLE;
        if (for_us && !c.nak_pending) {
            /* the row written from a copy of its own: through j, the write data would be
             * the value after every store the other verdicts below make to j (a READ's EPSN
             * add ran into the qpc write port; rsp_job_t says why) */
            rsp_job_t g = {c, r};
            g.ctx.nak_pending = 1;
            write_back(st, &g);
            j->ctx.nak_pending = 1;
        }
        return;
    }
    /* 9.7.4.1.2: serial arithmetic; exactly 2^23 behind EPSN is still a duplicate */
    uint32_t dpsn = psn_sub(h->psn, c.epsn);
    bool duplicate = psn_lt(h->psn, c.epsn);
    bool future = dpsn != 0 && !duplicate;

    bool key_ok = pre->key_ok; /* the RKEY stage's verdict (rkey_ok) */
    bool reth_ok = !(ext & ROCE_EXT_RETH) || h->reth_len <= RETH_LEN_MAX;

    /* READs still being answered: responses go out in PSN order (IB 9.5), so anything but a
     * new or duplicate READ waits (parked, its payload not taken) until they are out */
    bool rd_busy = r.count != 0;
    bool park = false;
    /* the function is stopping: a packet that passed rx_dispatch's gate before it closed is
     * executed like any other (its READ response waits for RUN), but one parked behind READ
     * responses, which wait for RUN, is dropped (the resume NAK asks the peer for it again) */
    bool susp = st->level[st->pkt.fn] != NIC_SUSPEND_RUN;

    if (!for_us) {
        st->dropped = st->dropped + 1;
    } else if (duplicate && is_read) {
        /* 9.7.5.1.3 (rxe duplicate_request): the requester retries from its first missing
         * response and answers are sent from the retried PSN, FIRST/ONLY first. A retry at
         * or before the queued READ work starts a new go-back-N round and replaces it; a
         * retry behind all of it is that round's next READ and queues behind (replacing
         * there cut each round's answer to the packets sent before the next retried READ
         * arrived: two packets of a 1 MiB READ per round, testbench/migration seed 9) */
        bool behind = pre->rd_behind;
        if (!key_ok || !reth_ok || (behind && r.count >= RSP_RD_SLOTS)) {
            st->dropped = st->dropped + 1; /* no room: the requester's next round asks again */
        } else if (behind) {
            put_read(st, j, (r.head + r.count) & (RSP_RD_SLOTS - 1), h->psn, c.msn, false);
            j->rq.count = (uint8_t)(r.count + 1);
        } else {
            j->rq.count = 1;
            j->rq.started = 0;
            put_read(st, j, r.head & (RSP_RD_SLOTS - 1), h->psn, c.msn, false);
        }
    } else if (rd_busy && !(is_read && dpsn == 0)) {
        park = true;
    } else if (future) {
        if (c.nak_pending) {
            st->dropped = st->dropped + 1; /* NAKed once already (9.7.5.1.2) */
        } else {
            j->ctx.nak_pending = 1;
            queue_ack(st, j, AETH_NAK_SEQ, (hls_u24)c.epsn);
        }
    } else if (duplicate) {
        if (is_atomic) { /* answer from the replay cache, never execute twice */
            bool hit = false;
            uint64_t orig = 0;
            for (unsigned i = 0; i < RSP_ATOM_SLOTS; i++)
                if (((at.valid >> i) & 1) && at.psn[i] == h->psn) {
                    hit = true;
                    orig = at.orig[i];
                }
            if (hit) {
                roce_hdr_t d = base_desc(st, j, ROCE_OP_ATOMIC_ACKNOWLEDGE, h->psn);
                d.aeth_syndrome = AETH_ACK;
                d.aeth_msn = (hls_u24)c.msn;
                d.atomic_orig = orig;
                st->txd = d;
                st->need_ack = true;
            } else {
                st->dropped = st->dropped + 1;
            }
        } else { /* SEND/WRITE: not again; ACK the last good PSN (C9-105) */
            queue_ack(st, j, AETH_ACK, (hls_u24)psn_sub(c.epsn, 1));
        }
    } else {
        j->ctx.nak_pending = 0; /* the expected PSN arrived: a new gap may be NAKed again */
        uint32_t mtu = (uint32_t)mtu_mul(1, c.pmtu);
        uint8_t want_open = (first || only || is_read || is_atomic)
                                ? RSP_OPEN_NONE
                                : (is_send ? RSP_OPEN_SEND : RSP_OPEN_WRITE);
        /* 9.7.4.1.3 opcode sequence; 9.7.4.1.6 packet lengths against the MTU */
        bool len_ok = only ? plen <= mtu
                           : ((first || middle) ? plen == mtu
                                                : (last ? (plen != 0 && plen <= mtu) : true));
        uint32_t wrem = (first || only) ? h->reth_len : c.len;
        bool wlen_ok = !is_write || ((last || only) ? plen == wrem : plen <= wrem);
        if (c.open != want_open || !len_ok || !reth_ok) {
            fatal(st, j, AETH_NAK_INV, NIC_WC_REM_INV_REQ_ERR);
        } else if ((is_read || is_atomic) && r.count >= r.limit) {
            /* more READ/atomic requests than max_dest_rd_atomic (rxe check_resource):
             * the peer broke the limit it was given */
            fatal(st, j, AETH_NAK_INV, NIC_WC_REM_INV_REQ_ERR);
        } else if (need_wqe && c.rq_head == c.rq_tail) { /* 9.7.5.2.8 RNR, epsn stays */
            queue_ack(st, j, (uint8_t)(AETH_RNR | (c.min_rnr & 0x1F)), h->psn);
        } else if (!key_ok && rd_busy) {
            park = true; /* the access NAK goes out after the earlier READs' responses */
        } else if (!key_ok) {
            fatal(st, j, AETH_NAK_ACC, NIC_WC_REM_ACCESS_ERR);
        } else if ((is_atomic && (h->atomic_va & 7)) || !wlen_ok) {
            fatal(st, j, AETH_NAK_INV, NIC_WC_REM_INV_REQ_ERR);
        } else if (is_send) {
            if (need_wqe) {
                st->wqe_for_send = true;
                st->phase = RSP_WQE_REQ;
            } else if (c.wqe_reload) { /* loaded mid-message: fetch its WQE again first */
                st->wqe_for_send = true;
                st->phase = RSP_WQE_REQ;
            } else {
                continue_send(st, j, last);
            }
        } else if (is_write) {
            if (first || only) j->ctx.addr = h->reth_va;
            j->ctx.off = ((first || only) ? 0 : c.off) + plen; /* = RETH length at the end */
            st->pay_addr = j->ctx.addr;
            j->ctx.addr = j->ctx.addr + plen;
            j->ctx.len = wrem - plen;
            j->ctx.epsn = psn_add(c.epsn, 1);
            j->ctx.open = (last || only) ? RSP_OPEN_NONE : RSP_OPEN_WRITE;
            if (last || only) j->ctx.msn = (c.msn + 1) & ROCE_PSN_MASK;
            if (h->ack_req) queue_ack(st, j, AETH_ACK, h->psn);
            st->discard = false;
            if (need_wqe) {
                st->wqe_for_send = false;
                st->phase = RSP_WQE_REQ;
            }
        } else if (is_read) {
            j->ctx.epsn = pre->rd_epsn;
            j->ctx.msn = (c.msn + 1) & ROCE_PSN_MASK;
            /* queued behind the READs not yet answered; IDLE schedules its packets */
            put_read(st, j, (r.head + r.count) & (RSP_RD_SLOTS - 1), h->psn, j->ctx.msn, true);
            j->rq.count = (uint8_t)(r.count + 1);
        } else {
            st->phase = RSP_AT_REQ;
        }
    }
    if (park && susp) { /* its QP's READs wait for resume: drop it, never block rx_pkt */
        st->dropped = st->dropped + 1;
    } else if (park) { /* nothing of this packet happened: the rows stay as they are */
        st->parked = true;
        st->phase = RSP_IDLE;
    }
}

/* The RQ WQE fetched for this packet: SEND_FIRST/ONLY opens the buffer (after its lkey
 * check, next cycle); WRITE_*_IMM makes its completion. */
HLS_INLINE void take_wqe(responder_state *st, rsp_job_t *j, const nic_dma_resp_t *r) {
    uint32_t plen = (uint32_t)st->pkt.hdr.payload_len;
    st->phase = plen ? RSP_PAY : RSP_FIN;
    if (r->err) {
        fatal(st, j, AETH_NAK_OP, NIC_WC_LOC_QP_OP_ERR);
        return;
    }
    uint64_t wr_id = (uint64_t)r->data;
    if (j->ctx.wqe_reload) { /* the open SEND's WQE again: its lkey was checked at FIRST */
        j->ctx.wqe_reload = 0;
        j->ctx.wqe_id = wr_id;
        j->ctx.addr = (uint64_t)(r->data >> 64);
        j->ctx.len = (uint32_t)(r->data >> 128);
        continue_send(st, j, st->pkt.hdr.opcode != ROCE_OP_SEND_MIDDLE);
        return;
    }
    j->ctx.rq_head = j->ctx.rq_head + 1;
    if (st->wqe_for_send) {
        uint32_t lkey = (uint32_t)(r->data >> 160);
        j->ctx.wqe_id = wr_id;
        j->ctx.addr = (uint64_t)(r->data >> 64);
        j->ctx.len = (uint32_t)(r->data >> 128);
        j->ctx.off = 0;
        j->ctx.open = RSP_OPEN_SEND;
        st->wqe_lkey = lkey;
        hls_mem_read(&st->mr, nic_mr_of_key(st->pkt.fn, lkey));
        st->phase = RSP_WQE_KEY;
    } else {
        queue_cqe(st, j, wr_id, j->ctx.off, NIC_WC_RECV_RDMA_WITH_IMM, NIC_WC_SUCCESS, true);
    }
}

/* WQE_KEY: the receive buffer must lie in an MR of the QP's PD with LOCAL_WRITE (rxe
 * copy_data: a bad lkey is a malformed WQE, class A). On the MR block RAM's output, so the
 * verdict is registered (key_ok) and applied in WQE_OPEN: checked and applied in one cycle,
 * mr_check ran on through open_send's verdict into the FSM register. */
HLS_INLINE bool buffer_ok(const responder_state *st, const rsp_job_t *j) {
    const nic_mr_row_t mr = st->mr.hls_mem_rdata;
    return mr_check(&mr, st->wqe_lkey, j->ctx.pd, j->ctx.addr, j->ctx.len, NIC_ACC_LOCAL_WRITE);
}

/* WQE_OPEN: a bad buffer NAKs remote operational error; then the SEND's length against the
 * buffer. */
HLS_INLINE void open_send(responder_state *st, rsp_job_t *j, bool buf_ok) {
    uint32_t plen = (uint32_t)st->pkt.hdr.payload_len;
    st->phase = plen ? RSP_PAY : RSP_FIN;
    if (!buf_ok) {
        fatal(st, j, AETH_NAK_OP, NIC_WC_LOC_PROT_ERR);
    } else if (plen > j->ctx.len) {
        fatal(st, j, AETH_NAK_INV, NIC_WC_LOC_LEN_ERR);
    } else {
        st->pay_addr = j->ctx.addr;
        j->ctx.off = plen;
        accept_send(st, j, st->pkt.hdr.opcode != ROCE_OP_SEND_FIRST);
    }
}

/* ---- live migration (docs/responder.md "Migration") ------------------------------------ */

/* QP rows of suspended functions: they get no background turn. */
HLS_INLINE uint64_t suspended_rows(const responder_state *st) {
    uint64_t m = 0;
    for (unsigned f = 0; f < NIC_FNS; f++)
        if (st->level[f] != NIC_SUSPEND_RUN) m |= (uint64_t)0xFFFF << (NIC_QP_PER_FN * f);
    return m;
}

/* Replay cache fill (nic_ctx.h REPLAY_FILL): slots fill 0, 1, 2, 3, 0, ... so the valid bits
 * are a prefix until all are valid, and (valid, next) fits in 3 bits. */
HLS_INLINE unsigned replay_fill(const rsp_qpc_t *c, const rsp_atom_t *a) {
    return (a->valid & 0xF) == 0xF ? 4 + (c->atom_next & 3u) : (c->atom_next & 3u);
}

/* The QP's NIC_CTX_RESP_QP image (nic_ctx.h) leaves out the READs queued behind the one being
 * answered (they were never acknowledged: the requester asks again). When they are new READs,
 * EPSN and MSN read as before them, so the destination takes them as new; nothing else was
 * accepted after them (a SEND/WRITE waits while READs are queued). When they are duplicates
 * of a go-back-N round, EPSN and MSN stay: the QP may have accepted more messages since (a
 * WRITE open behind them), and those must not run twice. The READ being answered is kept
 * when its next PSN follows from EPSN and its bytes left, as the image stores it. Made in
 * CTX_SUM, a cycle before CTX answers (pre): the packet count, PSN add and compare in front
 * of the answer word made CTX the block's slowest path. */
HLS_INLINE void resp_qp_sums(responder_state *st) {
    const rsp_qpc_t c = st->qpc.hls_mem_rdata;
    const rsp_rdq_t r = st->rdq.hls_mem_rdata;
    unsigned h = r.head & (RSP_RD_SLOTS - 1);
    bool behind = r.count > 1 && ((r.fresh >> ((h + 1) & (RSP_RD_SLOTS - 1))) & 1);
    uint32_t epsn = behind ? r.psn[(h + 1) & (RSP_RD_SLOTS - 1)] : c.epsn;
    uint32_t pkts = mtu_packets_of(r.len[h], c.pmtu);
    st->pre.img_epsn = epsn;
    st->pre.img_msn = (c.msn - (behind ? (uint32_t)r.count - 1 : 0)) & ROCE_PSN_MASK;
    st->pre.img_read = r.count != 0 && c.open == RSP_OPEN_NONE && psn_add(r.psn[h], pkts) == epsn;
}

/* Word w of the QP's NIC_CTX_RESP_QP image from the rows and CTX_SUM's results (p). */
HLS_INLINE hls_u128 resp_qp_word(const rsp_qpc_t *c, const rsp_rdq_t *r, const rsp_atom_t *a,
                                 const rsp_pre_t *p, unsigned w) {
    unsigned h = r->head & (RSP_RD_SLOTS - 1);
    uint32_t epsn = p->img_epsn;
    uint32_t msn = p->img_msn;
    uint32_t left = r->len[h];
    bool read_kept = p->img_read;
    unsigned cls = c->open != RSP_OPEN_NONE ? c->open : (read_kept ? NIC_CTX_RSP_POS_READ : 0u);
    if (w == 0) {
        hls_u128 d = (hls_u128)(epsn & ROCE_PSN_MASK);
        d |= (hls_u128)msn << NIC_CTX_RSP_MSN;
        d |= (hls_u128)c->rq_head << NIC_CTX_RSP_RQ_HEAD;
        d |= (hls_u128)c->rq_tail << NIC_CTX_RSP_RQ_TAIL;
        d |= (hls_u128)cls << NIC_CTX_RSP_POS_CLASS;
        d |= (hls_u128)(c->nak_pending & 1u) << NIC_CTX_RSP_NAK_PENDING;
        d |= (hls_u128)(read_kept && r->started) << NIC_CTX_RSP_RD_STARTED;
        d |= (hls_u128)replay_fill(c, a) << NIC_CTX_RSP_REPLAY_FILL;
        if (read_kept) d |= (hls_u128)(r->psn[h] & ROCE_PSN_MASK) << NIC_CTX_RSP_RD_PSN;
        return d;
    }
    if (w != 1 || cls == RSP_OPEN_NONE) return 0;
    uint64_t va = read_kept ? r->va[h] : c->addr;
    uint32_t n = read_kept ? left : c->len;
    uint32_t done = read_kept ? 0 : c->off;
    return (hls_u128)va | (hls_u128)n << (NIC_CTX_RSP_POS_LEFT - 128) |
           (hls_u128)done << (NIC_CTX_RSP_POS_DONE - 128);
}

/* Load word w of a NIC_CTX_RESP_QP image into the rows (function PASSIVE: nothing runs). The
 * two words can come in either order: word 1 fills both the open message's and READ slot
 * 0's position, word 0 says which of them is live. */
HLS_INLINE void load_resp_qp_word(rsp_qpc_t *c, rsp_rdq_t *r, rsp_atom_t *a, unsigned w, hls_u128 d) {
    if (w == 0) {
        unsigned cls = (unsigned)(d >> NIC_CTX_RSP_POS_CLASS) & 3;
        unsigned fill = (unsigned)(d >> NIC_CTX_RSP_REPLAY_FILL) & 7;
        c->epsn = (uint32_t)d & ROCE_PSN_MASK;
        c->msn = (uint32_t)(d >> NIC_CTX_RSP_MSN) & ROCE_PSN_MASK;
        c->rq_head = (uint16_t)(d >> NIC_CTX_RSP_RQ_HEAD);
        c->rq_tail = (uint16_t)(d >> NIC_CTX_RSP_RQ_TAIL);
        c->nak_pending = (uint8_t)((d >> NIC_CTX_RSP_NAK_PENDING) & 1);
        c->open = (uint8_t)(cls == NIC_CTX_RSP_POS_READ ? RSP_OPEN_NONE : cls);
        c->wqe_reload = cls == NIC_CTX_RSP_POS_SEND;
        c->atom_next = (uint8_t)(fill & 3);
        a->valid = fill >= 4 ? 0xFu : ((1u << fill) - 1);
        r->head = 0;
        r->count = cls == NIC_CTX_RSP_POS_READ;
        r->started = (uint8_t)((d >> NIC_CTX_RSP_RD_STARTED) & 1);
        r->psn[0] = (uint32_t)(d >> NIC_CTX_RSP_RD_PSN) & ROCE_PSN_MASK;
        r->msn[0] = c->msn; /* the READ's AETH MSN: it was the last message accepted */
    } else if (w == 1) {
        uint64_t va = (uint64_t)d;
        uint32_t n = (uint32_t)(d >> (NIC_CTX_RSP_POS_LEFT - 128));
        c->addr = va;
        c->len = n;
        c->off = (uint32_t)(d >> (NIC_CTX_RSP_POS_DONE - 128));
        r->va[0] = va;
        r->len[0] = n;
    }
}

/* A context-port job on the rows read in IDLE: answer the word (a RESP_QP word from CTX_SUM's
 * results p), or write it and answer it. */
HLS_INLINE void serve_ctx(responder_state *st, rsp_job_t *j, const rsp_pre_t *p) {
    rsp_qpc_t c = st->qpc.hls_mem_rdata;
    rsp_rdq_t r = st->rdq.hls_mem_rdata;
    rsp_atom_t a = st->atom.hls_mem_rdata;
    const nic_cfg_t *g = &st->cfg;
    unsigned w = g->ctx_word;
    unsigned slot = w & (RSP_ATOM_SLOTS - 1);
    bool qp_sect = g->ctx_sect == NIC_CTX_RESP_QP;
    hls_u128 d = qp_sect ? resp_qp_word(&c, &r, &a, p, w)
                         : ((hls_u128)a.orig[slot] |
                            (hls_u128)(a.psn[slot] & ROCE_PSN_MASK) << NIC_CTX_RSP_ATOM_PSN);
    st->phase = RSP_EMIT;
    if (g->ctx_write) {
        d = g->ctx_data;
        if (qp_sect) {
            load_resp_qp_word(&c, &r, &a, w, d);
        } else {
            a.orig[slot] = (uint64_t)d;
            a.psn[slot] = (uint32_t)(d >> NIC_CTX_RSP_ATOM_PSN) & ROCE_PSN_MASK;
        }
        hls_mem_write(&st->atom, st->row, a);
        j->ctx = c;
        j->rq = r;
        write_back(st, j); /* bg_work follows the loaded row: RUN schedules it */
        st->phase = RSP_EMIT;
    }
    nic_event_t e = {0};
    e.kind = NIC_EV_CTX;
    e.fn = g->fn;
    e.data = d;
    st->ev = e;
    st->need_ev = true;
}

/* The first background turn of a QP after its function resumed, once its READ responses
 * are out: a QP that takes requests NAKs its expected PSN (PSN sequence error, IB 9.7.5.1.2).
 * The peer resends from there at once (9.7.5.2.1) instead of after its ACK timeout, and the
 * NAK acknowledges everything before it; a peer with nothing outstanding ignores it. As any
 * sequence NAK, later requests are dropped quietly until the expected PSN comes. Only a QP
 * whose peer has sent it a request (a message done, one open, or a NAK pending, which a
 * request the closed gate dropped also sets): a peer that never sent one may be in RTR,
 * where a response is dropped as a bad header (rxe_recv.c check_type_state), and has
 * nothing to resend. */
HLS_INLINE void resume_nak(responder_state *st, rsp_job_t *j) {
    bool peer_sent = j->ctx.msn != 0 || j->ctx.open != RSP_OPEN_NONE || j->ctx.nak_pending != 0;
    st->resume_nak = bit_set(st->resume_nak, st->row, false);
    if (state_accepts(j->ctx.state) && peer_sent) {
        j->ctx.nak_pending = 1;
        queue_ack(st, j, AETH_NAK_SEQ, (hls_u24)j->ctx.epsn);
        st->phase = RSP_FIN;
    } else {
        st->phase = RSP_IDLE;
    }
}

/* The migration marker of function fn on tx_desc: no packet; roce_tx reports it to ctrl. */
HLS_INLINE roce_hdr_t marker_desc(nic_fn_t fn) {
    roce_hdr_t d = {0};
    d.mig_mark = NIC_MARK_SRC_RESP;
    d.mig_fn = (uint8_t)fn;
    return d;
}

HLS_TOP void responder(const responder_in *in, responder_out *out, responder_state *st) {
    out->acks_sent = st->acks_sent;
    out->naks_sent = st->naks_sent;
    out->dropped = st->dropped;
    const rsp_job_t now = {st->ctx, st->rq}; /* the rows as registered at this edge (rsp_job_t) */
    /* the held output words as registered at this edge, for the states that offer them (EMIT,
     * RD, FIN). Read as st->txd there, the word one state stores (IDLE's marker, RD's next
     * packet) reached the output port through that store's mux, for the reason of rsp_job_t */
    const roce_hdr_t txd_now = st->txd;
    const nic_cqe_req_t cqe_now = st->cqe;
    const nic_event_t ev_now = st->ev;
    const rsp_pre_t pre = st->pre; /* RKEY's, WQE_KEY's, CTX_SUM's results: the same reason */
    const bool rd_others_now = st->rd_others; /* BG's, for RD */

    /* background work that may run: QPs with READ responses or a flush, not quiesced, of a
     * function that is not suspended (RUN reschedules whatever the rows hold) */
    uint64_t susp_rows = suspended_rows(st);
    uint64_t eligible = (st->bg_work | st->resume_nak) & ~st->quiesced_qps & ~susp_rows;
    nic_qp_t park_row = (nic_qp_t)(((unsigned)st->pkt.fn << NIC_QP_SLOT_BITS) |
                                   ((unsigned)st->pkt.hdr.dest_qp & (NIC_QP_PER_FN - 1)));
    /* a parked packet is retried once its QP has no READ left to answer, or is quiesced
     * (then it is dropped, as every request of a quiesced QP) */
    bool park_retry = st->parked && (!bit_of(st->bg_work, park_row) || bit_of(st->quiesced_qps, park_row) ||
                                     bit_of(susp_rows, park_row));

    /* throttle (NIC_CFG_THROTTLE): the next request may start only if its payload is in its
     * function's bucket; each bucket gains rate / 1024 bytes per cycle up to RSP_THR_CAP */
    nic_rx_pkt_t next_pkt = st->parked ? st->pkt : in->rx_pkt.data;
    uint32_t next_cost = (uint32_t)next_pkt.hdr.payload_len << 10;
    bool budget_ok = st->rate[next_pkt.fn] == 0 || st->tokens[next_pkt.fn] >= next_cost;
    bool pkt_taken = false;

    switch (st->phase) {
    case RSP_IDLE: { /* cfg first, then doorbells, then packets and background work in turn */
        bool pkt_turn = eligible == 0 || st->last_bg;
        bool take_pkt = !in->cfg.valid && !in->rq_db.valid && pkt_turn && budget_ok &&
                        (park_retry || (!st->parked && in->rx_pkt.valid));
        out->cfg_ready = true;
        out->rq_db_ready = !in->cfg.valid;
        out->rx_pkt_ready = !in->cfg.valid && !in->rq_db.valid && pkt_turn && !st->parked && budget_ok;
        if (in->cfg.valid) {
            const nic_cfg_t *g = &in->cfg.data;
            st->cfg = *g;
            if (g->kind == NIC_CFG_QP || g->kind == NIC_CFG_QUIESCE) {
                st->row = g->qp;
                hls_mem_read(&st->qpc, g->qp);
                hls_mem_read(&st->rdq, g->qp);
                st->phase = RSP_CFG;
            } else if (g->kind == NIC_CFG_MR) {
                hls_mem_write(&st->mr, g->mr, nic_cfg_mr_row(g));
            } else if (g->kind == NIC_CFG_FN) {
                st->fn_mac[g->fn] = g->mac & 0xFFFFFFFFFFFFull;
                st->fn_ip[g->fn] = g->ip;
            } else if (g->kind == NIC_CFG_QP_ATTR) {
                st->row = g->qp;
                hls_mem_read(&st->qpc, g->qp);
                hls_mem_read(&st->rdq, g->qp);
                st->phase = RSP_CFG;
            } else if (g->kind == NIC_CFG_SUSPEND) {
                /* IDLE: no packet of ours is in hand. Stopping, the markers wait for
                 * rx_dispatch's. RUN again: every QP of fn NAKs its expected PSN once
                 * (resume_nak), so the peer resends what the closed gate dropped at once */
                uint64_t rows = (uint64_t)0xFFFF << (NIC_QP_PER_FN * (unsigned)g->fn);
                bool resume = g->level == NIC_SUSPEND_RUN && st->level[g->fn] != NIC_SUSPEND_RUN;
                st->resume_nak = resume ? st->resume_nak | rows : st->resume_nak & ~rows;
                st->level[g->fn] = (uint8_t)g->level;
            } else if (g->kind == NIC_CFG_THROTTLE) {
                st->rate[g->fn] = g->rate > RSP_THR_CAP ? RSP_THR_CAP : g->rate;
            } else if (g->kind == NIC_CFG_CTX && g->ctx_sect == NIC_CTX_DIRTY) {
                /* read and clear the function's 16 rows' bits (this job writes no row) */
                unsigned sh = NIC_QP_PER_FN * (unsigned)g->fn;
                nic_event_t e = {0};
                e.kind = NIC_EV_CTX;
                e.fn = g->fn;
                e.data = (hls_u128)((st->dirty >> sh) & 0xFFFF);
                st->dirty = st->dirty & ~((uint64_t)0xFFFF << sh);
                st->ev = e;
                st->need_ev = true;
                st->need_ack = false;
                st->need_cqe = false;
                st->phase = RSP_EMIT;
            } else if (g->kind == NIC_CFG_CTX) { /* RESP_QP, RESP_ATOM: row = absolute QP row */
                st->row = g->qp;
                st->need_ack = false;
                st->need_cqe = false;
                hls_mem_read(&st->qpc, g->qp);
                hls_mem_read(&st->rdq, g->qp);
                hls_mem_read(&st->atom, g->qp);
                /* a RESP_QP read sums first (CTX_SUM); a write answers what it wrote */
                st->phase = g->ctx_sect == NIC_CTX_RESP_QP && !g->ctx_write ? RSP_CTX_SUM : RSP_CTX;
            }
        } else if (in->rq_db.valid) {
            const nic_db_t *d = &in->rq_db.data;
            st->row = (nic_qp_t)(((unsigned)d->fn << NIC_QP_SLOT_BITS) |
                                 ((unsigned)d->num & (NIC_QP_PER_FN - 1)));
            st->db_num = d->num;
            st->db_index = d->index;
            hls_mem_read(&st->qpc, st->row);
            hls_mem_read(&st->rdq, st->row);
            st->phase = RSP_DB;
        } else if (take_pkt && next_pkt.mig_mark) {
            /* rx_dispatch's marker: every packet of fn it passed is done. Ours follow on every
             * output; from here nothing of fn changes until it leaves PASSIVE */
            nic_fn_t f = next_pkt.fn;
            nic_cqe_req_t mc = {0};
            mc.mig_mark = true;
            mc.cq = (nic_cq_t)((unsigned)f << NIC_QP_SLOT_BITS);
            nic_event_t me = {0};
            me.kind = NIC_EV_MIG_MARK;
            me.fn = f;
            st->txd = marker_desc(f);
            st->cqe = mc;
            st->ev = me;
            st->need_ack = true;
            st->need_cqe = true;
            st->need_ev = true;
            st->last_bg = false;
            st->phase = RSP_EMIT;
        } else if (take_pkt) {
            nic_rx_pkt_t p = next_pkt;
            pkt_taken = true;
            bool keyed = carries_rkey(p.hdr.opcode);
            st->pkt = p;
            st->parked = false;
            st->last_bg = false;
            st->row = (nic_qp_t)(((unsigned)p.fn << NIC_QP_SLOT_BITS) |
                                 ((unsigned)p.hdr.dest_qp & (NIC_QP_PER_FN - 1)));
            st->need_cqe = false;
            st->need_ack = false;
            st->need_ev = false;
            hls_mem_read(&st->qpc, st->row);
            hls_mem_read(&st->rdq, st->row);
            rsp_pre_t k = pre;
            key_access(&k, &p.hdr);
            k.key_ok = true; /* no rkey: nothing to check, straight to CHECK */
            st->pre = k;
            hls_mem_read(&st->mr, nic_mr_of_key(p.fn, k.key_rkey));
            hls_mem_read(&st->atom, st->row);
            st->phase = keyed ? RSP_RKEY : RSP_CHECK;
        } else if (eligible != 0) {
            nic_qp_t q = pick_after(eligible, st->rr_last);
            st->row = q;
            st->rr_last = q;
            st->last_bg = true;
            hls_mem_read(&st->qpc, q);
            hls_mem_read(&st->rdq, q);
            st->phase = RSP_BG;
        }
        break;
    }

    case RSP_CFG: {
        rsp_job_t w = now, *j = &w;
        apply_cfg(st, j);
        keep(st, &w);
        break;
    }

    case RSP_CTX_SUM: /* the rows read in IDLE are held: CTX reads them next cycle */
        resp_qp_sums(st);
        st->phase = RSP_CTX;
        break;

    case RSP_CTX: {
        rsp_job_t w = now, *j = &w;
        serve_ctx(st, j, &pre);
        keep(st, &w);
        break;
    }

    case RSP_EMIT: { /* markers / a context answer: the three streams move independently */
        out->tx_desc.valid = st->need_ack;
        out->tx_desc.data = txd_now;
        out->cqe.valid = st->need_cqe;
        out->cqe.data = cqe_now;
        out->ev.valid = st->need_ev;
        out->ev.data = ev_now;
        bool ack = st->need_ack && !in->tx_desc_ready;
        bool cqe = st->need_cqe && !in->cqe_ready;
        bool ev = st->need_ev && !in->ev_ready;
        st->need_ack = ack;
        st->need_cqe = cqe;
        st->need_ev = ev;
        if (!ack && !cqe && !ev) st->phase = RSP_IDLE;
        break;
    }

    case RSP_DB: { /* in ERR the new WQEs are flushed as background work */
        rsp_job_t w = now, *j = &w;
        rsp_qpc_t c = st->qpc.hls_mem_rdata;
        bool match = c.qpn == st->db_num && c.state != NIC_QPS_RESET;
        if (match) c.rq_tail = st->db_index;
        j->ctx = c;
        j->rq = st->rdq.hls_mem_rdata;
        write_back(st, j);
        keep(st, &w);
        break;
    }

    case RSP_RKEY: /* the rows read in IDLE are held: CHECK reads them next cycle */
        st->pre.key_ok = rkey_ok(st, &pre);
        read_sums(st);
        st->phase = RSP_CHECK;
        break;

    case RSP_CHECK: {
        rsp_job_t w = now, *j = &w;
        check_packet(st, j, &pre);
        keep(st, &w);
        break;
    }

    case RSP_BG: { /* one unit of the QP's background work: a flushed WQE or a READ packet */
        rsp_job_t w = now, *j = &w;
        bool rd_others = (st->parked && park_row != st->row) || (eligible & ~bit_set(0, st->row, true)) != 0;
        j->ctx = st->qpc.hls_mem_rdata;
        j->rq = st->rdq.hls_mem_rdata;
        st->need_cqe = false;
        st->need_ack = false;
        st->need_ev = false;
        if (j->rq.flush && j->ctx.rq_head != j->ctx.rq_tail) st->phase = RSP_FL_REQ;
        else if (j->rq.count != 0) begin_rd_turn(st, j, rd_others);
        else if (bit_of(st->resume_nak, st->row)) resume_nak(st, j);
        else write_back(st, j); /* nothing left: the QP leaves bg_work */
        keep(st, &w);
        break;
    }

    case RSP_WQE_REQ:
    case RSP_FL_REQ:
        out->dma_req.valid = true;
        out->dma_req.data.tag = RSP_TAG_WQE;
        out->dma_req.data.addr = rq_wqe_addr(&now.ctx);
        out->dma_req.data.len = sizeof(nic_rq_wqe_t);
        if (in->dma_req_ready) st->phase = st->phase == RSP_FL_REQ ? RSP_FL_RSP : RSP_WQE_RSP;
        break;

    case RSP_WQE_RSP: {
        rsp_job_t w = now, *j = &w;
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) take_wqe(st, j, &in->dma_resp.data);
        keep(st, &w);
        break;
    }

    case RSP_WQE_KEY:
        st->pre.key_ok = buffer_ok(st, &now);
        st->phase = RSP_WQE_OPEN;
        break;

    case RSP_WQE_OPEN: {
        rsp_job_t w = now, *j = &w;
        open_send(st, j, pre.key_ok);
        keep(st, &w);
        break;
    }

    case RSP_FL_RSP: {
        rsp_job_t w = now, *j = &w;
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) {
            queue_cqe(st, j, (uint64_t)in->dma_resp.data.data, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR,
                      false);
            j->ctx.rq_head = j->ctx.rq_head + 1;
            st->phase = RSP_FIN;
        }
        keep(st, &w);
        break;
    }

    case RSP_PAY: {
        if (st->pay_rem == 0) {
            st->phase = RSP_FIN;
            break;
        }
        uint16_t n = st->pay_rem < 64 ? st->pay_rem : 64;
        bool fire;
        if (st->discard) {
            out->rx_pay_ready = true;
            fire = in->rx_pay.valid;
        } else {
            out->rx_pay_ready = in->dma_req_ready;
            out->dma_req.valid = in->rx_pay.valid;
            out->dma_req.data.write = true;
            out->dma_req.data.addr = st->pay_addr;
            out->dma_req.data.len = (hls_uint(13))n;
            out->dma_req.data.data = in->rx_pay.data.data;
            fire = in->rx_pay.valid && in->dma_req_ready;
        }
        if (fire) {
            st->pay_addr = st->pay_addr + 64;
            st->pay_rem = (uint16_t)(st->pay_rem - n);
            if (st->pay_rem == 0) st->phase = RSP_FIN;
        }
        break;
    }

    case RSP_RD: {
        rsp_job_t w = now, *j = &w;
        /* desc and payload move independently: roce_tx takes the desc only after the
         * payload, a FIFO takes it first; the packet is done when both have moved.
         * DMA reads are issued per response packet, in order, up to RSP_RD_AHEAD packets
         * ahead; the oldest outstanding read is the packet being sent. The read of a later
         * packet starts that packet, so it is issued only while nothing else waits: then
         * the turn ends at a packet boundary with no read outstanding. */
        bool others = in->cfg.valid || in->rq_db.valid || (in->rx_pkt.valid && !st->parked) || rd_others_now;
        uint32_t mtu = (uint32_t)mtu_mul(1, j->ctx.pmtu);
        uint32_t iss_n = st->iss_rem < mtu ? st->iss_rem : mtu;
        bool can_issue = st->iss_rem != 0 && st->ahead < RSP_RD_AHEAD &&
                         (st->ahead == 0 || st->iss_hold || !others);
        out->dma_req.valid = can_issue;
        out->dma_req.data.tag = RSP_TAG_READ;
        out->dma_req.data.addr = st->iss_va;
        out->dma_req.data.len = (hls_uint(13))iss_n;
        bool issued = can_issue && in->dma_req_ready;
        st->iss_hold = can_issue && !in->dma_req_ready;

        out->tx_desc.valid = !st->desc_done;
        out->tx_desc.data = txd_now;
        bool streaming = st->ahead != 0 && st->tx_rem != 0;
        uint16_t n = st->tx_rem < 64 ? st->tx_rem : 64;
        out->dma_resp_ready = streaming && in->tx_pay_ready;
        out->tx_pay.valid = streaming && in->dma_resp.valid;
        out->tx_pay.data.data = in->dma_resp.data.data;
        out->tx_pay.data.bytes = (hls_uint(7))n;
        out->tx_pay.data.last = st->tx_rem <= 64;

        uint16_t tx_rem = st->tx_rem;
        bool beat = streaming && in->dma_resp.valid && in->tx_pay_ready;
        if (beat) tx_rem = (uint16_t)(tx_rem - n);
        bool pay_done = st->tx_rem == 0 || (beat && st->tx_rem <= 64); /* tx_rem == 0, no subtract */
        bool desc_done = st->desc_done || in->tx_desc_ready;
        uint8_t ahead = (uint8_t)(st->ahead + (issued ? 1 : 0));
        if (issued) {
            st->iss_va = st->iss_va + iss_n;
            st->iss_rem = st->iss_rem - iss_n;
        }
        st->tx_rem = tx_rem;
        st->desc_done = desc_done;
        /* a read offered and not yet taken must stay offered: the packet it starts is
         * already chosen, so this one ends only once that read has gone */
        if (desc_done && pay_done && !st->iss_hold) {
            /* what is left of the READ at this packet's start, for the packet after next */
            bool third_end = now.rq.len[now.rq.head & (RSP_RD_SLOTS - 1)] <= mtu_mul(3, j->ctx.pmtu);
            /* ahead after this end != 0, decided without the add and the subtract */
            bool more = issued ? !(st->ahead == 0 && st->rd_n != 0) : st->ahead != (st->rd_n != 0);
            if (st->rd_n != 0) ahead = (uint8_t)(ahead - 1);
            advance_rd(st, j);
            /* its read is out: it is started, send it. A read is issued ahead only for the
             * READ being answered, so this is its next packet, never the next READ's first */
            if (more) start_rd_pkt(st, j, st->rd_next_end, third_end);
            else write_back(st, j);              /* a boundary: the position is in the row */
        }
        st->ahead = ahead;
        keep(st, &w);
        break;
    }

    case RSP_AT_REQ:
        out->dma_req.valid = true;
        out->dma_req.data.tag = RSP_TAG_ATOMIC;
        out->dma_req.data.addr = st->pkt.hdr.atomic_va;
        out->dma_req.data.len = 8;
        if (in->dma_req_ready) st->phase = RSP_AT_RSP;
        break;

    case RSP_AT_RSP: {
        rsp_job_t w = now, *j = &w;
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) {
            uint64_t orig = (uint64_t)in->dma_resp.data.data;
            st->at_orig = orig;
            if (in->dma_resp.data.err) {
                st->phase = RSP_FIN;
                fatal(st, j, AETH_NAK_OP, NIC_WC_LOC_QP_OP_ERR);
            } else if (atomic_result(&st->pkt.hdr, orig) == orig) {
                finish_atomic(st, j); /* failed compare (or add 0): memory is left alone */
            } else {
                st->phase = RSP_AT_WR;
            }
        }
        keep(st, &w);
        break;
    }

    case RSP_AT_WR: {
        rsp_job_t w = now, *j = &w;
        out->dma_req.valid = true;
        out->dma_req.data.write = true;
        out->dma_req.data.tag = RSP_TAG_ATOMIC;
        out->dma_req.data.addr = st->pkt.hdr.atomic_va;
        out->dma_req.data.len = 8;
        out->dma_req.data.data = atomic_result(&st->pkt.hdr, st->at_orig);
        if (in->dma_req_ready) finish_atomic(st, j);
        keep(st, &w);
        break;
    }

    case RSP_FIN: { /* CQE after the data writes, then the ACK/NAK, then the event */
        rsp_job_t w = now, *j = &w;
        if (st->need_cqe) {
            out->cqe.valid = true;
            out->cqe.data = cqe_now;
            if (in->cqe_ready) st->need_cqe = false;
        } else if (st->need_ack) {
            out->tx_desc.valid = true;
            out->tx_desc.data = txd_now;
            if (in->tx_desc_ready) {
                st->need_ack = false;
                if (txd_now.opcode == ROCE_OP_ATOMIC_ACKNOWLEDGE || txd_now.aeth_syndrome == AETH_ACK)
                    st->acks_sent = st->acks_sent + 1;
                else
                    st->naks_sent = st->naks_sent + 1;
            }
        } else if (st->need_ev) {
            out->ev.valid = true;
            out->ev.data = ev_now;
            if (in->ev_ready) st->need_ev = false;
        } else {
            write_back(st, j);
        }
        keep(st, &w);
        break;
    }

    default:
        st->phase = RSP_IDLE;
        break;
    }

    for (unsigned f = 0; f < NIC_FNS; f++) {
        uint32_t t = st->tokens[f] + st->rate[f];
        if (t > RSP_THR_CAP) t = RSP_THR_CAP;
        if (pkt_taken && next_pkt.fn == f && st->rate[f] != 0) t = t - next_cost; /* had it */
        st->tokens[f] = st->rate[f] == 0 ? 0 : t;
    }
}
