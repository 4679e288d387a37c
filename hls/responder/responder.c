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

#define AETH_ACK 0x1F      /* ACK, unlimited credits (rxe's AETH_ACK_UNLIMITED) */
#define AETH_RNR 0x20      /* | 5-bit timer */
#define AETH_NAK_SEQ 0x60  /* PSN sequence error */
#define AETH_NAK_INV 0x61  /* invalid request */
#define AETH_NAK_ACC 0x62  /* remote access error */
#define AETH_NAK_OP 0x63   /* remote operational error */
#define PSN_MASK 0xFFFFFFu
#define RETH_LEN_MAX 0x80000000u /* IB 9.4.4: DMA length at most 2^31 */

/* enum ibv_mtu -> log2 bytes; out-of-range values are clamped (garbage must stay defined). */
HLS_INLINE unsigned mtu_shift(uint8_t pmtu) {
    unsigned p = pmtu < 1 ? 1 : (pmtu > 5 ? 5 : pmtu);
    return p + 7;
}

/* States in which an RC QP's receive side accepts requests (IB 10.3.1; rxe check). */
HLS_INLINE bool state_accepts(uint8_t s) {
    return s == NIC_QPS_RTR || s == NIC_QPS_RTS || s == NIC_QPS_SQD || s == NIC_QPS_SQE;
}

HLS_INLINE bool bit_of(uint64_t b, nic_qp_t q) { return ((b >> (unsigned)q) & 1) != 0; }

HLS_INLINE uint64_t bit_set(uint64_t b, nic_qp_t q, bool v) {
    uint64_t m = (uint64_t)1 << (unsigned)q;
    return v ? (b | m) : (b & ~m);
}

/* Round robin: the first set bit of b after `last`, else the first set bit (b != 0). A
 * mask and two priority encoders, no rotation. */
HLS_INLINE nic_qp_t pick_after(uint64_t b, nic_qp_t last) {
    uint64_t later = b & ~(((uint64_t)2 << (unsigned)last) - 1);
    uint64_t from = later != 0 ? later : b;
    return (nic_qp_t)__builtin_ctzll(from | ((uint64_t)1 << 63));
}

/* Address of RQ WQE rq_head in the ring of 2^rq_log 32-byte entries. */
HLS_INLINE uint64_t rq_wqe_addr(const rsp_qpc_t *c) {
    uint32_t mask = c->rq_log >= 16 ? 0xFFFFu : ((uint32_t)1 << c->rq_log) - 1;
    return c->rq_base + 32 * (uint64_t)(c->rq_head & mask);
}

/* Key, PD, range and access checks of IB 9.7.4.1.5 (rxe check_rkey) and of an lkey
 * (10.6.3.2); qp_acc is the QP's remote access, or acc itself for a local access. */
HLS_INLINE bool mr_allows(const rsp_mr_t *m, uint32_t pd, uint8_t qp_acc, uint64_t va,
                          uint32_t key, uint32_t len, uint8_t acc) {
    if (!m->valid || m->key != key || m->pd != pd) return false;
    if (!(m->access & acc) || !(qp_acc & acc)) return false;
    if (va < m->base) return false;
    uint64_t off = va - m->base;
    return off <= m->len && (uint64_t)len <= m->len - off;
}

/* A response packet to the peer of the QP in ctx, from the QP's function. */
HLS_INLINE roce_hdr_t base_desc(const responder_state *st, uint8_t opcode, hls_u24 psn) {
    roce_hdr_t d = {0};
    d.dst_mac = st->ctx.dst_mac;
    nic_fn_t fn = (nic_fn_t)((unsigned)st->row >> NIC_QP_SLOT_BITS);
    d.src_mac = st->fn_mac[fn];
    d.src_ip = st->fn_ip[fn];
    d.dst_ip = st->ctx.dst_ip;
    d.ttl = 64;
    d.udp_sport = st->ctx.udp_sport;
    d.opcode = opcode;
    d.pkey = 0xFFFF; /* default partition, as rxe */
    d.dest_qp = (hls_u24)st->ctx.dest_qpn;
    d.psn = psn;
    return d;
}

HLS_INLINE void queue_ack(responder_state *st, uint8_t syndrome, hls_u24 psn) {
    roce_hdr_t d = base_desc(st, ROCE_OP_ACKNOWLEDGE, psn);
    d.aeth_syndrome = syndrome;
    d.aeth_msn = (hls_u24)st->ctx.msn;
    st->txd = d;
    st->need_ack = true;
}

HLS_INLINE void queue_cqe(responder_state *st, uint64_t wr_id, uint32_t byte_len, uint8_t opcode,
                          uint8_t status, bool with_imm) {
    nic_cqe_req_t c = {0};
    c.cq = (nic_cq_t)st->ctx.recv_cq;
    c.cqe.wr_id = wr_id;
    c.cqe.byte_len = byte_len;
    c.cqe.imm = with_imm ? st->pkt.hdr.imm : 0;
    c.cqe.qpn = st->ctx.qpn & PSN_MASK;
    c.cqe.opcode = opcode;
    c.cqe.status = status;
    c.cqe.flags = with_imm ? NIC_CQE_WITH_IMM : 0;
    c.solicited = st->pkt.hdr.se; /* BTH SE of the message's last packet: CQ arm (nic_if.h) */
    st->cqe = c;
    st->need_cqe = true;
}

/* Fatal NAK (IB 9.7.5.2.4-6): NAK with the request's PSN, an open SEND's WQE completes in
 * error, the QP goes to ERR here at once (later packets are dropped) and ctrl is told. */
HLS_INLINE void fatal(responder_state *st, uint8_t syndrome, uint8_t wc_status) {
    bool ends_recv = st->ctx.open == RSP_OPEN_SEND; /* a receive WQE's error CQE reports it */
    if (ends_recv)
        queue_cqe(st, st->ctx.wqe_id, st->ctx.off, NIC_WC_RECV, wc_status, false);
    st->ctx.state = NIC_QPS_ERR;
    st->ctx.open = RSP_OPEN_NONE;
    st->rq.count = 0; /* READs not yet answered are answered no more */
    st->rq.started = 0;
    queue_ack(st, syndrome, st->pkt.hdr.psn);
    nic_event_t e = {0};
    e.kind = NIC_EV_QP_ERR;
    e.qp = st->row;
    e.cq = (nic_cq_t)st->ctx.recv_cq;
    e.detail = wc_status;
    e.in_cqe = ends_recv;
    st->ev = e;
    st->need_ev = true;
    st->discard = true;
}

/* Set up the next READ RESPONSE packet of the head READ in rq: up to one MTU of what is left
 * (IB 9.7.5.1.4); FIRST/ONLY unless the head's FIRST is already out. */
HLS_INLINE void start_rd_pkt(responder_state *st) {
    unsigned h = st->rq.head & (RSP_RD_SLOTS - 1);
    uint32_t mtu = (uint32_t)1 << mtu_shift(st->ctx.pmtu);
    uint32_t rem = st->rq.len[h];
    bool end = rem <= mtu;
    uint32_t n = end ? rem : mtu;
    uint8_t op = !st->rq.started ? (end ? ROCE_OP_READ_RESPONSE_ONLY : ROCE_OP_READ_RESPONSE_FIRST)
                                 : (end ? ROCE_OP_READ_RESPONSE_LAST : ROCE_OP_READ_RESPONSE_MIDDLE);
    roce_hdr_t d = base_desc(st, op, (hls_u24)st->rq.psn[h]);
    if (op != ROCE_OP_READ_RESPONSE_MIDDLE) { /* AETH on FIRST, LAST, ONLY */
        d.aeth_syndrome = AETH_ACK;
        d.aeth_msn = (hls_u24)st->rq.msn[h];
    }
    d.payload_len = (hls_uint(14))n;
    st->txd = d;
    st->rd_n = (uint16_t)n;
    st->tx_rem = (uint16_t)n;
    st->desc_done = false;
    st->phase = RSP_RD;
}

/* A turn of READ work for the QP in ctx/rq: reads are issued from the head's position on. */
HLS_INLINE void begin_rd_turn(responder_state *st) {
    unsigned h = st->rq.head & (RSP_RD_SLOTS - 1);
    st->iss_va = st->rq.va[h];
    st->iss_rem = st->rq.len[h];
    st->ahead = 0;
    st->iss_hold = false;
    start_rd_pkt(st);
}

/* The packet being sent is out: the head READ's position moves past it, and a READ whose
 * last packet it was leaves the queue. */
HLS_INLINE void advance_rd(responder_state *st) {
    unsigned h = st->rq.head & (RSP_RD_SLOTS - 1);
    uint32_t rem = st->rq.len[h] - st->rd_n;
    st->rq.va[h] = st->rq.va[h] + st->rd_n;
    st->rq.len[h] = rem;
    st->rq.psn[h] = (st->rq.psn[h] + 1) & PSN_MASK;
    st->rq.started = 1;
    if (rem == 0) {
        st->rq.head = (uint8_t)((h + 1) & (RSP_RD_SLOTS - 1));
        st->rq.count = (uint8_t)(st->rq.count - 1);
        st->rq.started = 0;
    }
}

/* Put a READ into slot s of rq: answered from va/len with PSNs from psn on, AETH MSN msn. */
HLS_INLINE void put_read(responder_state *st, unsigned s, hls_u24 psn, uint32_t msn) {
    st->rq.va[s] = st->pkt.hdr.reth_va;
    st->rq.len[s] = st->pkt.hdr.reth_len;
    st->rq.psn[s] = (uint32_t)psn;
    st->rq.msn[s] = msn;
}

/* Row write-back at the end of a job (both rows, always: the job may have changed either),
 * and the QP's scheduling bits from what the rows now say. */
HLS_INLINE void write_back(responder_state *st) {
    hls_mem_write(&st->qpc, st->row, st->ctx);
    hls_mem_write(&st->rdq, st->row, st->rq);
    bool flush = st->rq.flush && st->ctx.rq_head != st->ctx.rq_tail;
    st->bg_work = bit_set(st->bg_work, st->row, st->rq.count != 0 || flush);
    st->quiesced_qps = bit_set(st->quiesced_qps, st->row, st->ctx.quiesced != 0);
    st->phase = RSP_IDLE;
}

/* A SEND packet's payload is accepted: advance epsn, complete the message on its last
 * packet (MSN, receive CQE), ACK if asked (coalescing: 9.7.5.1.1). */
HLS_INLINE void accept_send(responder_state *st, bool ends) {
    uint8_t op = st->pkt.hdr.opcode;
    st->ctx.epsn = (st->ctx.epsn + 1) & PSN_MASK;
    if (ends) {
        st->ctx.msn = (st->ctx.msn + 1) & PSN_MASK;
        st->ctx.open = RSP_OPEN_NONE;
        bool imm = op == ROCE_OP_SEND_LAST_IMM || op == ROCE_OP_SEND_ONLY_IMM;
        queue_cqe(st, st->ctx.wqe_id, st->ctx.off, NIC_WC_RECV, NIC_WC_SUCCESS, imm);
    } else {
        st->ctx.open = RSP_OPEN_SEND;
    }
    if (st->pkt.hdr.ack_req) queue_ack(st, AETH_ACK, st->pkt.hdr.psn);
    st->discard = false;
}

HLS_INLINE void finish_atomic(responder_state *st) {
    const roce_hdr_t *h = &st->pkt.hdr;
    rsp_atom_t a = st->atom.hls_mem_rdata; /* this QP's row, read in IDLE, still held */
    unsigned slot = st->ctx.atom_next & (RSP_ATOM_SLOTS - 1);
    a.orig[slot] = st->at_orig;
    a.psn[slot] = h->psn;
    a.valid |= 1u << slot;
    hls_mem_write(&st->atom, st->row, a);
    st->ctx.atom_next = (uint8_t)((slot + 1) & (RSP_ATOM_SLOTS - 1));
    st->ctx.epsn = (st->ctx.epsn + 1) & PSN_MASK;
    st->ctx.msn = (st->ctx.msn + 1) & PSN_MASK;
    roce_hdr_t d = base_desc(st, ROCE_OP_ATOMIC_ACKNOWLEDGE, h->psn);
    d.aeth_syndrome = AETH_ACK;
    d.aeth_msn = (hls_u24)st->ctx.msn;
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

/* cfg for a QP row: copy the attributes, reset or start the dynamic part on the transitions
 * that define it, arm the flush on the way into ERR (IB 10.3.1: posted receive WRs complete
 * with flush error; the flush is background work, one WQE per turn, so it stops while the
 * QP is quiesced). */
HLS_INLINE void apply_cfg(responder_state *st) {
    rsp_qpc_t c = st->qpc.hls_mem_rdata;
    rsp_rdq_t r = st->rdq.hls_mem_rdata;
    const nic_cfg_t *g = &st->cfg;
    const nic_qp_attr_t *a = &g->attr;
    if (g->kind == NIC_CFG_QUIESCE) {
        c.quiesced = g->quiesce;
    } else {
        if (a->state == NIC_QPS_RESET || g->prev_state == NIC_QPS_RESET) {
            rsp_qpc_t z = {0};
            c = z;
            rsp_rdq_t zr = {0};
            r = zr;
            rsp_atom_t za = {0};
            hls_mem_write(&st->atom, st->row, za); /* a new QP replays nothing */
        }
        c.qpn = a->qpn;
        c.dest_qpn = a->dest_qpn;
        c.dst_mac = a->dst_mac;
        c.dst_ip = a->dst_ip;
        c.udp_sport = a->udp_sport;
        c.pd = a->pd;
        c.access = a->access;
        c.pmtu = a->pmtu;
        c.rq_base = a->rq_base;
        c.rq_log = a->rq_log;
        c.recv_cq = a->recv_cq;
        c.min_rnr = a->min_rnr_timer;
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
        r.limit = a->max_dest_rd_atomic > RSP_RD_SLOTS ? RSP_RD_SLOTS : a->max_dest_rd_atomic;
    }
    st->ctx = c;
    st->rq = r;
    write_back(st);
}

/* A request packet whose row, MR row and replay row have just been read: PSN check, then
 * (new requests) the validations in rxe's order, then what to execute. */
HLS_INLINE void check_packet(responder_state *st) {
    const rsp_qpc_t c = st->qpc.hls_mem_rdata;
    const rsp_mr_t mr = st->mr.hls_mem_rdata;
    const rsp_atom_t at = st->atom.hls_mem_rdata;
    const rsp_rdq_t r = st->rdq.hls_mem_rdata;
    const roce_hdr_t *h = &st->pkt.hdr;
    uint8_t op = h->opcode;
    uint8_t ext = roce_ext(op);
    uint32_t plen = (uint32_t)h->payload_len;
    st->ctx = c;
    st->rq = r;
    st->discard = true;
    st->pay_rem = (uint16_t)plen;
    st->phase = plen ? RSP_PAY : RSP_FIN;

    bool is_send = op <= ROCE_OP_SEND_ONLY_IMM;
    bool is_write = op >= ROCE_OP_RDMA_WRITE_FIRST && op <= ROCE_OP_RDMA_WRITE_ONLY_IMM;
    bool is_read = op == ROCE_OP_RDMA_READ_REQUEST;
    bool is_atomic = op == ROCE_OP_COMPARE_SWAP || op == ROCE_OP_FETCH_ADD;
    bool first = op == ROCE_OP_SEND_FIRST || op == ROCE_OP_RDMA_WRITE_FIRST;
    bool middle = op == ROCE_OP_SEND_MIDDLE || op == ROCE_OP_RDMA_WRITE_MIDDLE;
    bool only = op == ROCE_OP_SEND_ONLY || op == ROCE_OP_SEND_ONLY_IMM ||
                op == ROCE_OP_RDMA_WRITE_ONLY || op == ROCE_OP_RDMA_WRITE_ONLY_IMM;
    bool last = !first && !middle && !only && (is_send || is_write);
    bool need_wqe = op == ROCE_OP_SEND_FIRST || op == ROCE_OP_SEND_ONLY ||
                    op == ROCE_OP_SEND_ONLY_IMM || op == ROCE_OP_RDMA_WRITE_LAST_IMM ||
                    op == ROCE_OP_RDMA_WRITE_ONLY_IMM;

    bool for_us = c.qpn == h->dest_qp && state_accepts(c.state) && !c.quiesced &&
                  (is_send || is_write || is_read || is_atomic) &&
                  ((ext & ROCE_EXT_PAYLOAD) || plen == 0);
    hls_u24 dpsn = h->psn - (hls_u24)c.epsn;
    bool future = dpsn != 0 && dpsn < 0x800000; /* 9.7.4.1.2: serial arithmetic */
    bool duplicate = dpsn >= 0x800000;

    uint64_t va = is_atomic ? h->atomic_va : h->reth_va;
    uint32_t rkey = is_atomic ? h->atomic_rkey : h->reth_rkey;
    uint32_t rlen = is_atomic ? 8 : h->reth_len;
    uint8_t acc = is_read ? NIC_ACC_REMOTE_READ
                          : (is_atomic ? NIC_ACC_REMOTE_ATOMIC : NIC_ACC_REMOTE_WRITE);
    bool has_key = is_atomic || (ext & ROCE_EXT_RETH);
    bool key_ok = !has_key || rlen == 0 || mr_allows(&mr, c.pd, c.access, va, rkey, rlen, acc);
    bool reth_ok = !(ext & ROCE_EXT_RETH) || h->reth_len <= RETH_LEN_MAX;

    /* READs still being answered: responses go out in PSN order (IB 9.5), so anything but a
     * new or duplicate READ waits (parked, its payload not taken) until they are out */
    bool rd_busy = r.count != 0;
    bool park = false;

    if (!for_us) {
        st->dropped = st->dropped + 1;
    } else if (duplicate && is_read) {
        /* 9.7.5.1.3 (rxe duplicate_request): the requester retries from its first missing
         * response; the retry replaces whatever READ work is queued (go-back-N resends the
         * later READs too) and is answered from its PSN, FIRST/ONLY first */
        if (key_ok && reth_ok) {
            st->rq.count = 1;
            st->rq.started = 0;
            put_read(st, r.head & (RSP_RD_SLOTS - 1), h->psn, c.msn);
        } else {
            st->dropped = st->dropped + 1;
        }
    } else if (rd_busy && !(is_read && dpsn == 0)) {
        park = true;
    } else if (future) {
        if (c.nak_pending) {
            st->dropped = st->dropped + 1; /* NAKed once already (9.7.5.1.2) */
        } else {
            st->ctx.nak_pending = 1;
            queue_ack(st, AETH_NAK_SEQ, (hls_u24)c.epsn);
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
                roce_hdr_t d = base_desc(st, ROCE_OP_ATOMIC_ACKNOWLEDGE, h->psn);
                d.aeth_syndrome = AETH_ACK;
                d.aeth_msn = (hls_u24)c.msn;
                d.atomic_orig = orig;
                st->txd = d;
                st->need_ack = true;
            } else {
                st->dropped = st->dropped + 1;
            }
        } else { /* SEND/WRITE: not again; ACK the last good PSN (C9-105) */
            queue_ack(st, AETH_ACK, (hls_u24)(c.epsn - 1));
        }
    } else {
        st->ctx.nak_pending = 0; /* the expected PSN arrived: a new gap may be NAKed again */
        uint32_t mtu = (uint32_t)1 << mtu_shift(c.pmtu);
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
            fatal(st, AETH_NAK_INV, NIC_WC_REM_INV_REQ_ERR);
        } else if ((is_read || is_atomic) && r.count >= r.limit) {
            /* more READ/atomic requests than max_dest_rd_atomic (rxe check_resource):
             * the peer broke the limit it was given */
            fatal(st, AETH_NAK_INV, NIC_WC_REM_INV_REQ_ERR);
        } else if (need_wqe && c.rq_head == c.rq_tail) { /* 9.7.5.2.8 RNR, epsn stays */
            queue_ack(st, (uint8_t)(AETH_RNR | (c.min_rnr & 0x1F)), h->psn);
        } else if (!key_ok && rd_busy) {
            park = true; /* the access NAK goes out after the earlier READs' responses */
        } else if (!key_ok) {
            fatal(st, AETH_NAK_ACC, NIC_WC_REM_ACCESS_ERR);
        } else if ((is_atomic && (va & 7)) || !wlen_ok) {
            fatal(st, AETH_NAK_INV, NIC_WC_REM_INV_REQ_ERR);
        } else if (is_send) {
            if (need_wqe) {
                st->wqe_for_send = true;
                st->phase = RSP_WQE_REQ;
            } else if (c.off + plen > c.len) { /* longer than the receive buffer */
                fatal(st, AETH_NAK_INV, NIC_WC_LOC_LEN_ERR);
            } else {
                st->pay_addr = c.addr + c.off;
                st->ctx.off = c.off + plen;
                accept_send(st, last);
            }
        } else if (is_write) {
            if (first || only) {
                st->ctx.addr = h->reth_va;
                st->ctx.off = h->reth_len;
            }
            st->pay_addr = st->ctx.addr;
            st->ctx.addr = st->ctx.addr + plen;
            st->ctx.len = wrem - plen;
            st->ctx.epsn = (c.epsn + 1) & PSN_MASK;
            st->ctx.open = (last || only) ? RSP_OPEN_NONE : RSP_OPEN_WRITE;
            if (last || only) st->ctx.msn = (c.msn + 1) & PSN_MASK;
            if (h->ack_req) queue_ack(st, AETH_ACK, h->psn);
            st->discard = false;
            if (need_wqe) {
                st->wqe_for_send = false;
                st->phase = RSP_WQE_REQ;
            }
        } else if (is_read) {
            unsigned sh = mtu_shift(c.pmtu);
            uint32_t npkt = h->reth_len == 0 ? 1 : (h->reth_len + mtu - 1) >> sh;
            st->ctx.epsn = (c.epsn + npkt) & PSN_MASK;
            st->ctx.msn = (c.msn + 1) & PSN_MASK;
            /* queued behind the READs not yet answered; IDLE schedules its packets */
            put_read(st, (r.head + r.count) & (RSP_RD_SLOTS - 1), h->psn, st->ctx.msn);
            st->rq.count = (uint8_t)(r.count + 1);
        } else {
            st->phase = RSP_AT_REQ;
        }
    }
    if (park) { /* nothing of this packet happened: the rows stay as they are */
        st->parked = true;
        st->phase = RSP_IDLE;
    }
}

/* The RQ WQE fetched for this packet: SEND_FIRST/ONLY opens the buffer (after its lkey
 * check, next cycle); WRITE_*_IMM makes its completion. */
HLS_INLINE void take_wqe(responder_state *st, const nic_dma_resp_t *r) {
    uint32_t plen = (uint32_t)st->pkt.hdr.payload_len;
    st->phase = plen ? RSP_PAY : RSP_FIN;
    if (r->err) {
        fatal(st, AETH_NAK_OP, NIC_WC_LOC_QP_OP_ERR);
        return;
    }
    uint64_t wr_id = (uint64_t)r->data;
    st->ctx.rq_head = st->ctx.rq_head + 1;
    if (st->wqe_for_send) {
        uint32_t lkey = (uint32_t)(r->data >> 160);
        st->ctx.wqe_id = wr_id;
        st->ctx.addr = (uint64_t)(r->data >> 64);
        st->ctx.len = (uint32_t)(r->data >> 128);
        st->ctx.off = 0;
        st->ctx.open = RSP_OPEN_SEND;
        st->wqe_lkey = lkey;
        hls_mem_read(&st->mr, ((unsigned)st->pkt.fn << NIC_MR_SLOT_BITS) |
                                  ((lkey >> 8) & (NIC_MR_PER_FN - 1)));
        st->phase = RSP_WQE_KEY;
    } else {
        queue_cqe(st, wr_id, st->ctx.off, NIC_WC_RECV_RDMA_WITH_IMM, NIC_WC_SUCCESS, true);
    }
}

/* The receive buffer must lie in an MR of the QP's PD with LOCAL_WRITE (rxe copy_data: a bad
 * lkey is a malformed WQE, class A: NAK remote operational error); then the SEND's length
 * against the buffer. */
HLS_INLINE void open_send(responder_state *st) {
    const rsp_mr_t mr = st->mr.hls_mem_rdata;
    uint32_t plen = (uint32_t)st->pkt.hdr.payload_len;
    bool buf_ok = st->ctx.len == 0 || mr_allows(&mr, st->ctx.pd, NIC_ACC_LOCAL_WRITE, st->ctx.addr,
                                                st->wqe_lkey, st->ctx.len, NIC_ACC_LOCAL_WRITE);
    st->phase = plen ? RSP_PAY : RSP_FIN;
    if (!buf_ok) {
        fatal(st, AETH_NAK_OP, NIC_WC_LOC_PROT_ERR);
    } else if (plen > st->ctx.len) {
        fatal(st, AETH_NAK_INV, NIC_WC_LOC_LEN_ERR);
    } else {
        st->pay_addr = st->ctx.addr;
        st->ctx.off = plen;
        accept_send(st, st->pkt.hdr.opcode != ROCE_OP_SEND_FIRST);
    }
}

HLS_TOP void responder(const responder_in *in, responder_out *out, responder_state *st) {
    out->acks_sent = st->acks_sent;
    out->naks_sent = st->naks_sent;
    out->dropped = st->dropped;

    /* background work that may run: QPs with READ responses or a flush, not quiesced */
    uint64_t eligible = st->bg_work & ~st->quiesced_qps;
    nic_qp_t park_row = (nic_qp_t)(((unsigned)st->pkt.fn << NIC_QP_SLOT_BITS) |
                                   ((unsigned)st->pkt.hdr.dest_qp & (NIC_QP_PER_FN - 1)));
    /* a parked packet is retried once its QP has no READ left to answer, or is quiesced
     * (then it is dropped, as every request of a quiesced QP) */
    bool park_retry = st->parked && (!bit_of(st->bg_work, park_row) || bit_of(st->quiesced_qps, park_row));

    switch (st->phase) {
    case RSP_IDLE: { /* cfg first, then doorbells, then packets and background work in turn */
        bool pkt_turn = eligible == 0 || st->last_bg;
        bool take_pkt = !in->cfg.valid && !in->rq_db.valid && pkt_turn &&
                        (park_retry || (!st->parked && in->rx_pkt.valid));
        out->cfg_ready = true;
        out->rq_db_ready = !in->cfg.valid;
        out->rx_pkt_ready = !in->cfg.valid && !in->rq_db.valid && pkt_turn && !st->parked;
        if (in->cfg.valid) {
            const nic_cfg_t *g = &in->cfg.data;
            st->cfg = *g;
            if (g->kind == NIC_CFG_QP || g->kind == NIC_CFG_QUIESCE) {
                st->row = g->qp;
                hls_mem_read(&st->qpc, g->qp);
                hls_mem_read(&st->rdq, g->qp);
                st->phase = RSP_CFG;
            } else if (g->kind == NIC_CFG_MR) {
                rsp_mr_t m = {0};
                m.base = g->base;
                m.len = g->len;
                m.key = g->key;
                m.pd = g->pd;
                m.access = g->access;
                m.valid = g->valid;
                hls_mem_write(&st->mr, g->mr, m);
            } else if (g->kind == NIC_CFG_FN) {
                st->fn_mac[g->fn] = g->mac & 0xFFFFFFFFFFFFull;
                st->fn_ip[g->fn] = g->ip;
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
        } else if (take_pkt) {
            nic_rx_pkt_t p = st->parked ? st->pkt : in->rx_pkt.data;
            bool atomic = p.hdr.opcode == ROCE_OP_COMPARE_SWAP || p.hdr.opcode == ROCE_OP_FETCH_ADD;
            uint32_t rkey = atomic ? p.hdr.atomic_rkey : p.hdr.reth_rkey;
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
            hls_mem_read(&st->mr, ((unsigned)p.fn << NIC_MR_SLOT_BITS) |
                                      ((rkey >> 8) & (NIC_MR_PER_FN - 1)));
            hls_mem_read(&st->atom, st->row);
            st->phase = RSP_CHECK;
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

    case RSP_CFG:
        apply_cfg(st);
        break;

    case RSP_DB: { /* in ERR the new WQEs are flushed as background work */
        rsp_qpc_t c = st->qpc.hls_mem_rdata;
        bool match = c.qpn == st->db_num && c.state != NIC_QPS_RESET;
        if (match) c.rq_tail = st->db_index;
        st->ctx = c;
        st->rq = st->rdq.hls_mem_rdata;
        write_back(st);
        break;
    }

    case RSP_CHECK:
        check_packet(st);
        break;

    case RSP_BG: { /* one unit of the QP's background work: a flushed WQE or a READ packet */
        st->ctx = st->qpc.hls_mem_rdata;
        st->rq = st->rdq.hls_mem_rdata;
        st->need_cqe = false;
        st->need_ack = false;
        st->need_ev = false;
        if (st->rq.flush && st->ctx.rq_head != st->ctx.rq_tail) st->phase = RSP_FL_REQ;
        else if (st->rq.count != 0) begin_rd_turn(st);
        else write_back(st); /* nothing left: the QP leaves bg_work */
        break;
    }

    case RSP_WQE_REQ:
    case RSP_FL_REQ:
        out->dma_req.valid = true;
        out->dma_req.data.tag = RSP_TAG_WQE;
        out->dma_req.data.addr = rq_wqe_addr(&st->ctx);
        out->dma_req.data.len = sizeof(nic_rq_wqe_t);
        if (in->dma_req_ready) st->phase = st->phase == RSP_FL_REQ ? RSP_FL_RSP : RSP_WQE_RSP;
        break;

    case RSP_WQE_RSP:
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) take_wqe(st, &in->dma_resp.data);
        break;

    case RSP_WQE_KEY:
        open_send(st);
        break;

    case RSP_FL_RSP:
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) {
            queue_cqe(st, (uint64_t)in->dma_resp.data.data, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR,
                      false);
            st->ctx.rq_head = st->ctx.rq_head + 1;
            st->phase = RSP_FIN;
        }
        break;

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
        /* desc and payload move independently: roce_tx takes the desc only after the
         * payload, a FIFO takes it first; the packet is done when both have moved.
         * DMA reads are issued per response packet, in order, up to RSP_RD_AHEAD packets
         * ahead; the oldest outstanding read is the packet being sent. The read of a later
         * packet starts that packet, so it is issued only while nothing else waits: then
         * the turn ends at a packet boundary with no read outstanding. */
        bool others = in->cfg.valid || in->rq_db.valid || (in->rx_pkt.valid && !st->parked) ||
                      (st->parked && park_row != st->row) || (eligible & ~bit_set(0, st->row, true)) != 0;
        uint32_t mtu = (uint32_t)1 << mtu_shift(st->ctx.pmtu);
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
        out->tx_desc.data = st->txd;
        bool streaming = st->ahead != 0 && st->tx_rem != 0;
        uint16_t n = st->tx_rem < 64 ? st->tx_rem : 64;
        out->dma_resp_ready = streaming && in->tx_pay_ready;
        out->tx_pay.valid = streaming && in->dma_resp.valid;
        out->tx_pay.data.data = in->dma_resp.data.data;
        out->tx_pay.data.bytes = (hls_uint(7))n;
        out->tx_pay.data.last = st->tx_rem <= 64;

        uint16_t tx_rem = st->tx_rem;
        if (streaming && in->dma_resp.valid && in->tx_pay_ready) tx_rem = (uint16_t)(tx_rem - n);
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
        if (desc_done && tx_rem == 0 && !st->iss_hold) {
            if (st->rd_n != 0) ahead = (uint8_t)(ahead - 1);
            advance_rd(st);
            if (ahead != 0) start_rd_pkt(st); /* its read is out: it is started, send it */
            else write_back(st);              /* a boundary: the position is in the row */
        }
        st->ahead = ahead;
        break;
    }

    case RSP_AT_REQ:
        out->dma_req.valid = true;
        out->dma_req.data.tag = RSP_TAG_ATOMIC;
        out->dma_req.data.addr = st->pkt.hdr.atomic_va;
        out->dma_req.data.len = 8;
        if (in->dma_req_ready) st->phase = RSP_AT_RSP;
        break;

    case RSP_AT_RSP:
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) {
            uint64_t orig = (uint64_t)in->dma_resp.data.data;
            st->at_orig = orig;
            if (in->dma_resp.data.err) {
                st->phase = RSP_FIN;
                fatal(st, AETH_NAK_OP, NIC_WC_LOC_QP_OP_ERR);
            } else if (atomic_result(&st->pkt.hdr, orig) == orig) {
                finish_atomic(st); /* failed compare (or add 0): memory is left alone */
            } else {
                st->phase = RSP_AT_WR;
            }
        }
        break;

    case RSP_AT_WR:
        out->dma_req.valid = true;
        out->dma_req.data.write = true;
        out->dma_req.data.tag = RSP_TAG_ATOMIC;
        out->dma_req.data.addr = st->pkt.hdr.atomic_va;
        out->dma_req.data.len = 8;
        out->dma_req.data.data = atomic_result(&st->pkt.hdr, st->at_orig);
        if (in->dma_req_ready) finish_atomic(st);
        break;

    case RSP_FIN: /* CQE after the data writes, then the ACK/NAK, then the event */
        if (st->need_cqe) {
            out->cqe.valid = true;
            out->cqe.data = st->cqe;
            if (in->cqe_ready) st->need_cqe = false;
        } else if (st->need_ack) {
            out->tx_desc.valid = true;
            out->tx_desc.data = st->txd;
            if (in->tx_desc_ready) {
                st->need_ack = false;
                if (st->txd.opcode == ROCE_OP_ATOMIC_ACKNOWLEDGE || st->txd.aeth_syndrome == AETH_ACK)
                    st->acks_sent = st->acks_sent + 1;
                else
                    st->naks_sent = st->naks_sent + 1;
            }
        } else if (st->need_ev) {
            out->ev.valid = true;
            out->ev.data = st->ev;
            if (in->ev_ready) st->need_ev = false;
        } else {
            write_back(st);
        }
        break;

    default:
        st->phase = RSP_IDLE;
        break;
    }
}
