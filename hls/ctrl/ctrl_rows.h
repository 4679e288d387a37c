/* ctrl_rows.h — ctrl's context tables: one HLS_MEM word type per table (docs/ctrl.md).
 * A memory word must be a struct without padding, so the QP row re-lays nic_qp_attr_t out
 * with byte-sized fields and explicit reserved bytes; the _Static_asserts catch padding. */
#ifndef CTRL_ROWS_H
#define CTRL_ROWS_H

#include "nic_if.h"

typedef struct {
    uint64_t dst_mac, sq_base, rq_base;
    uint32_t qpn, dest_qpn, sq_psn, rq_psn, dst_ip, pd;
    uint16_t udp_sport;
    uint8_t state, pmtu, access, timeout, retry_cnt, rnr_retry, min_rnr_timer;
    uint8_t backoff, backoff_first, backoff_cap, sq_log, rq_log, send_cq, recv_cq;
    uint8_t valid;             /* the row holds a QP */
    uint8_t quiesce;           /* QUIESCE_QP stopped it */
    uint16_t pkey_index;
    uint8_t port_num, max_rd_atomic, max_dest_rd_atomic;
    uint8_t rsvd;
} ctrl_qp_row_t;
_Static_assert(sizeof(ctrl_qp_row_t) == 72, "ctrl_qp_row_t must have no padding");

typedef struct {
    uint64_t base;
    uint32_t cqn;
    uint8_t refs;              /* QP references: a QP counts once as send and once as recv CQ */
    uint8_t log;
    uint8_t valid;
    uint8_t rsvd;
} ctrl_cq_row_t;
_Static_assert(sizeof(ctrl_cq_row_t) == 16, "ctrl_cq_row_t must have no padding");

/* the MR table's row is nic_mr_row_t (roce_mr.h), shared with the requester's and the
 * responder's copies */

HLS_INLINE nic_qp_attr_t row_attr(const ctrl_qp_row_t *r) {
    nic_qp_attr_t a;
    a.state = (hls_uint(3))r->state;
    a.pmtu = (hls_uint(3))r->pmtu;
    a.qpn = (hls_u24)r->qpn;
    a.dest_qpn = (hls_u24)r->dest_qpn;
    a.sq_psn = (hls_u24)r->sq_psn;
    a.rq_psn = (hls_u24)r->rq_psn;
    a.dst_mac = r->dst_mac;
    a.dst_ip = r->dst_ip;
    a.udp_sport = r->udp_sport;
    a.pd = r->pd;
    a.access = r->access;
    a.timeout = (hls_uint(5))r->timeout;
    a.retry_cnt = (hls_uint(3))r->retry_cnt;
    a.rnr_retry = (hls_uint(3))r->rnr_retry;
    a.min_rnr_timer = (hls_uint(5))r->min_rnr_timer;
    a.backoff = r->backoff & 1;
    a.backoff_first = (hls_uint(5))r->backoff_first;
    a.backoff_cap = (hls_uint(5))r->backoff_cap;
    a.sq_base = r->sq_base;
    a.rq_base = r->rq_base;
    a.sq_log = (hls_uint(5))r->sq_log;
    a.rq_log = (hls_uint(5))r->rq_log;
    a.send_cq = (nic_cq_t)r->send_cq;
    a.recv_cq = (nic_cq_t)r->recv_cq;
    a.pkey_index = r->pkey_index;
    a.port_num = r->port_num;
    a.max_rd_atomic = r->max_rd_atomic;
    a.max_dest_rd_atomic = r->max_dest_rd_atomic;
    a.cur_state = (hls_uint(3))r->state; /* QUERY_QP: ibv_query_qp's cur_qp_state */
    return a;
}

HLS_INLINE ctrl_qp_row_t attr_row(const nic_qp_attr_t *a, bool valid, bool quiesce) {
    ctrl_qp_row_t r = {0};
    r.state = (uint8_t)a->state;
    r.pmtu = (uint8_t)a->pmtu;
    r.qpn = (uint32_t)a->qpn;
    r.dest_qpn = (uint32_t)a->dest_qpn;
    r.sq_psn = (uint32_t)a->sq_psn;
    r.rq_psn = (uint32_t)a->rq_psn;
    r.dst_mac = a->dst_mac;
    r.dst_ip = a->dst_ip;
    r.udp_sport = a->udp_sport;
    r.pd = a->pd;
    r.access = a->access;
    r.timeout = (uint8_t)a->timeout;
    r.retry_cnt = (uint8_t)a->retry_cnt;
    r.rnr_retry = (uint8_t)a->rnr_retry;
    r.min_rnr_timer = (uint8_t)a->min_rnr_timer;
    r.backoff = a->backoff;
    r.backoff_first = (uint8_t)a->backoff_first;
    r.backoff_cap = (uint8_t)a->backoff_cap;
    r.sq_base = a->sq_base;
    r.rq_base = a->rq_base;
    r.sq_log = (uint8_t)a->sq_log;
    r.rq_log = (uint8_t)a->rq_log;
    r.send_cq = (uint8_t)a->send_cq;
    r.recv_cq = (uint8_t)a->recv_cq;
    r.pkey_index = a->pkey_index;
    r.port_num = a->port_num;
    r.max_rd_atomic = a->max_rd_atomic;
    r.max_dest_rd_atomic = a->max_dest_rd_atomic;
    r.valid = valid;
    r.quiesce = quiesce;
    return r;
}

#endif /* CTRL_ROWS_H */
