/* requester_ctx.h — the requester's per-QP send context and its packing into one memory word.
 *
 * One row per QP context index (nic_if.h). The row is kept packed in a 512-bit HLS_MEM word
 * (an explicit layout: no padding question for rtl-gen, and a fixed image for live
 * migration, which saves and restores the table as is). docs/requester.md lists the fields. */
#ifndef REQUESTER_CTX_H
#define REQUESTER_CTX_H

#include "nic_if.h"

typedef struct {
    /* attributes, from NIC_CFG_QP */
    hls_uint(3) state;     /* NIC_QPS_* */
    hls_uint(3) pmtu;      /* enum ibv_mtu */
    hls_u24 qpn;
    hls_u24 dest_qpn;
    uint64_t dst_mac;      /* low 48 bits */
    uint32_t dst_ip;
    uint16_t udp_sport;    /* 0: derived from qpn (docs/requester.md) */
    uint64_t sq_base;
    hls_uint(5) sq_log;
    /* dynamic send state; indices are absolute 16-bit SQ indices, as the doorbell's */
    uint16_t sq_tail;      /* producer index from the last doorbell */
    uint16_t sq_head;      /* WQE being sent, or the next one to start */
    uint16_t sq_hi;        /* every WQE before sq_hi has had its wqe_rec (started or flushed) */
    uint16_t una;          /* oldest unretired WQE (NIC_REQ_RETIRED) */
    hls_u24 next_psn;      /* PSN of the next request packet */
    hls_u24 una_psn;       /* first PSN of WQE una (NIC_REQ_RETIRED's psn): where a migrated
                              QP's outstanding WQEs start (docs/requester.md "Migration") */
    uint32_t offset;       /* bytes of WQE sq_head already sent */
    bool quiesced;         /* NIC_CFG_QUIESCE: no packet starts */
    bool flushing;         /* ERR/SQE/STOP: WQEs become flush records, nothing is sent */
    bool wqe_valid;        /* the WQE cache row holds WQE sq_head */
    /* initiator depth (IB 9.4.4, 11.2.4.2 max_rd_atomic): READ/atomic WQEs in flight */
    hls_uint(5) max_rd;    /* max_rd_atomic, 0..NIC_MAX_RD_ATOMIC */
    uint16_t rd_mask;      /* bit (i % NIC_OUTSTANDING): WQE i in [una, sq_hi) is READ/atomic */
    bool rd_wait;          /* WQE sq_head is a READ/atomic waiting for one to retire */
    bool own_flush;        /* flushing because of a WQE the requester rejected: the completer
                              still holds the WQEs before it, so flush records count against
                              NIC_OUTSTANDING until STOP (or ERR) empties its ring */
    /* ring rebuild after a migration load (docs/requester.md "Migration"): WQEs
     * [rb_idx, sq_hi) still owe the completer their records, the next one from rb_psn */
    bool rebuild;
    uint16_t rb_idx;
    hls_u24 rb_psn;
    /* a REWIND to a READ/atomic with later WQEs already sent re-issues only that request,
     * then returns here (docs/requester.md "Retry"): the position it came from */
    bool ret;
    uint16_t ret_head;
    uint32_t ret_offset;
    hls_u24 ret_psn;
    /* set by a ring rebuild whose WQE una is a READ/atomic: ret_head / ret_psn (ret clear)
     * hold the first sent SEND/WRITE behind it, where the resume probe goes (RQ_LOAD) */
    bool probe_at;
    /* a REISSUE of a READ/atomic came with the ACK that went past it (nic_req_ctl_t.acked):
     * the peer has every PSN up to rb_psn (unused while no ring rebuild runs). hold: when the
     * re-issued request is out and the position it leaves is at or before that PSN, held:
     * nothing is sent until a RETIRED moves past what the ACK covers (docs/requester.md
     * "Retry") */
    bool hold;
    bool held;
} req_ctx_t;

typedef hls_uint(512) req_row_t;

/* Bit positions in req_row_t: each field starts where the previous one ends. */
enum {
    RP_STATE = 0,
    RP_PMTU = RP_STATE + 3,
    RP_QPN = RP_PMTU + 3,
    RP_DEST_QPN = RP_QPN + 24,
    RP_DST_MAC = RP_DEST_QPN + 24,
    RP_DST_IP = RP_DST_MAC + 48,
    RP_SPORT = RP_DST_IP + 32,
    RP_SQ_BASE = RP_SPORT + 16,
    RP_SQ_LOG = RP_SQ_BASE + 64,
    RP_SQ_TAIL = RP_SQ_LOG + 5,
    RP_SQ_HEAD = RP_SQ_TAIL + 16,
    RP_SQ_HI = RP_SQ_HEAD + 16,
    RP_UNA = RP_SQ_HI + 16,
    RP_PSN = RP_UNA + 16,
    RP_UNA_PSN = RP_PSN + 24,
    RP_OFFSET = RP_UNA_PSN + 24,
    RP_QUIESCED = RP_OFFSET + 32,
    RP_FLUSHING = RP_QUIESCED + 1,
    RP_WQE_VALID = RP_FLUSHING + 1,
    RP_MAX_RD = RP_WQE_VALID + 1,
    RP_RD_MASK = RP_MAX_RD + 5,
    RP_RD_WAIT = RP_RD_MASK + 16,
    RP_OWN_FLUSH = RP_RD_WAIT + 1,
    RP_REBUILD = RP_OWN_FLUSH + 1,
    RP_RB_IDX = RP_REBUILD + 1,
    RP_RB_PSN = RP_RB_IDX + 16,
    RP_RET = RP_RB_PSN + 24,
    RP_RET_HEAD = RP_RET + 1,
    RP_RET_OFFSET = RP_RET_HEAD + 16,
    RP_RET_PSN = RP_RET_OFFSET + 32,
    RP_PROBE_AT = RP_RET_PSN + 24,
    RP_HOLD = RP_PROBE_AT + 1,
    RP_HELD = RP_HOLD + 1,
    RP_END = RP_HELD + 1,
};
_Static_assert(RP_END <= 512, "requester context row does not fit its word");

HLS_INLINE uint64_t rp_mask(unsigned width) {
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}
HLS_INLINE req_row_t rp_put(req_row_t w, unsigned lo, unsigned width, uint64_t v) {
    return w | ((req_row_t)(v & rp_mask(width)) << lo);
}
HLS_INLINE uint64_t rp_get(req_row_t w, unsigned lo, unsigned width) {
    return (uint64_t)(w >> lo) & rp_mask(width);
}

HLS_INLINE req_row_t ctx_pack(const req_ctx_t *c) {
    req_row_t w = 0;
    w = rp_put(w, RP_STATE, 3, c->state);
    w = rp_put(w, RP_PMTU, 3, c->pmtu);
    w = rp_put(w, RP_QPN, 24, c->qpn);
    w = rp_put(w, RP_DEST_QPN, 24, c->dest_qpn);
    w = rp_put(w, RP_DST_MAC, 48, c->dst_mac);
    w = rp_put(w, RP_DST_IP, 32, c->dst_ip);
    w = rp_put(w, RP_SPORT, 16, c->udp_sport);
    w = rp_put(w, RP_SQ_BASE, 64, c->sq_base);
    w = rp_put(w, RP_SQ_LOG, 5, c->sq_log);
    w = rp_put(w, RP_SQ_TAIL, 16, c->sq_tail);
    w = rp_put(w, RP_SQ_HEAD, 16, c->sq_head);
    w = rp_put(w, RP_SQ_HI, 16, c->sq_hi);
    w = rp_put(w, RP_UNA, 16, c->una);
    w = rp_put(w, RP_PSN, 24, c->next_psn);
    w = rp_put(w, RP_UNA_PSN, 24, c->una_psn);
    w = rp_put(w, RP_OFFSET, 32, c->offset);
    w = rp_put(w, RP_QUIESCED, 1, c->quiesced);
    w = rp_put(w, RP_FLUSHING, 1, c->flushing);
    w = rp_put(w, RP_WQE_VALID, 1, c->wqe_valid);
    w = rp_put(w, RP_MAX_RD, 5, c->max_rd);
    w = rp_put(w, RP_RD_MASK, 16, c->rd_mask);
    w = rp_put(w, RP_RD_WAIT, 1, c->rd_wait);
    w = rp_put(w, RP_OWN_FLUSH, 1, c->own_flush);
    w = rp_put(w, RP_REBUILD, 1, c->rebuild);
    w = rp_put(w, RP_RB_IDX, 16, c->rb_idx);
    w = rp_put(w, RP_RB_PSN, 24, c->rb_psn);
    w = rp_put(w, RP_RET, 1, c->ret);
    w = rp_put(w, RP_RET_HEAD, 16, c->ret_head);
    w = rp_put(w, RP_RET_OFFSET, 32, c->ret_offset);
    w = rp_put(w, RP_RET_PSN, 24, c->ret_psn);
    w = rp_put(w, RP_PROBE_AT, 1, c->probe_at);
    w = rp_put(w, RP_HOLD, 1, c->hold);
    w = rp_put(w, RP_HELD, 1, c->held);
    return w;
}

HLS_INLINE req_ctx_t ctx_unpack(req_row_t w) {
    req_ctx_t c;
    c.state = (hls_uint(3))rp_get(w, RP_STATE, 3);
    c.pmtu = (hls_uint(3))rp_get(w, RP_PMTU, 3);
    c.qpn = (hls_u24)rp_get(w, RP_QPN, 24);
    c.dest_qpn = (hls_u24)rp_get(w, RP_DEST_QPN, 24);
    c.dst_mac = rp_get(w, RP_DST_MAC, 48);
    c.dst_ip = (uint32_t)rp_get(w, RP_DST_IP, 32);
    c.udp_sport = (uint16_t)rp_get(w, RP_SPORT, 16);
    c.sq_base = rp_get(w, RP_SQ_BASE, 64);
    c.sq_log = (hls_uint(5))rp_get(w, RP_SQ_LOG, 5);
    c.sq_tail = (uint16_t)rp_get(w, RP_SQ_TAIL, 16);
    c.sq_head = (uint16_t)rp_get(w, RP_SQ_HEAD, 16);
    c.sq_hi = (uint16_t)rp_get(w, RP_SQ_HI, 16);
    c.una = (uint16_t)rp_get(w, RP_UNA, 16);
    c.next_psn = (hls_u24)rp_get(w, RP_PSN, 24);
    c.una_psn = (hls_u24)rp_get(w, RP_UNA_PSN, 24);
    c.offset = (uint32_t)rp_get(w, RP_OFFSET, 32);
    c.quiesced = rp_get(w, RP_QUIESCED, 1) != 0;
    c.flushing = rp_get(w, RP_FLUSHING, 1) != 0;
    c.wqe_valid = rp_get(w, RP_WQE_VALID, 1) != 0;
    c.max_rd = (hls_uint(5))rp_get(w, RP_MAX_RD, 5);
    c.rd_mask = (uint16_t)rp_get(w, RP_RD_MASK, 16);
    c.rd_wait = rp_get(w, RP_RD_WAIT, 1) != 0;
    c.own_flush = rp_get(w, RP_OWN_FLUSH, 1) != 0;
    c.rebuild = rp_get(w, RP_REBUILD, 1) != 0;
    c.rb_idx = (uint16_t)rp_get(w, RP_RB_IDX, 16);
    c.rb_psn = (hls_u24)rp_get(w, RP_RB_PSN, 24);
    c.ret = rp_get(w, RP_RET, 1) != 0;
    c.ret_head = (uint16_t)rp_get(w, RP_RET_HEAD, 16);
    c.ret_offset = (uint32_t)rp_get(w, RP_RET_OFFSET, 32);
    c.ret_psn = (hls_u24)rp_get(w, RP_RET_PSN, 24);
    c.probe_at = rp_get(w, RP_PROBE_AT, 1) != 0;
    c.hold = rp_get(w, RP_HOLD, 1) != 0;
    c.held = rp_get(w, RP_HELD, 1) != 0;
    return c;
}

#endif /* REQUESTER_CTX_H */
