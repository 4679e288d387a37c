/* verbs_qp.c — RC queue pairs: rings in DMA-mapped driver memory, the NIC's QP row through
 * CREATE/MODIFY/QUERY/DESTROY_QP, and the driver's SQ/RQ slot accounting. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hlsnic.h"

static void free_rings(hlsnic_fn_t *f, struct hlsnic_qp *qp) {
    hlsnic_dma_free(f, qp->sq, qp->sq_bytes);
    hlsnic_dma_free(f, qp->rq, qp->rq_bytes);
    hlsnic_dma_free(f, qp->inl, qp->inl_bytes);
    free(qp->sq_signaled);
}

static size_t page_round(size_t n) { return (n + 4095) & ~(size_t)4095; }

struct ibv_qp *hlsnic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a) {
    struct hlsnic_context *ctx = to_ctx(pd->context);
    hlsnic_fn_t *f = ctx->f;
    int e = EINVAL;
    const char *why = NULL;
    if (a->qp_type != IBV_QPT_RC) {
        hlsnic_log(f, "create_qp: only RC QPs (qp_type %d)", a->qp_type);
        errno = ENOSYS; /* ibv_create_qp(3): transport type not supported */
        return NULL;
    }
    if (a->srq) why = "srq: shared receive queues are not supported";
    else if (!a->send_cq || !a->recv_cq) why = "send_cq/recv_cq: NULL";
    else if (a->send_cq->context != pd->context || a->recv_cq->context != pd->context) why = "send_cq/recv_cq: another context's CQ";
    else if (a->cap.max_send_sge > HLSNIC_MAX_SGE || a->cap.max_recv_sge > HLSNIC_MAX_SGE) why = "cap.max_send_sge/max_recv_sge: above 1";
    else if (a->cap.max_inline_data > HLSNIC_MAX_INLINE) why = "cap.max_inline_data: above 512";
    int sq_log = hlsnic_ring_log(a->cap.max_send_wr, f->max_ring_log);
    int rq_log = hlsnic_ring_log(a->cap.max_recv_wr, f->max_ring_log);
    if (!why && (sq_log < 0 || rq_log < 0)) why = "cap.max_send_wr/max_recv_wr: above the device's max_qp_wr";
    if (why) {
        if (f->debug) hlsnic_log(f, "create_qp: %s", why);
        errno = EINVAL;
        return NULL;
    }
    struct hlsnic_qp *qp = calloc(1, sizeof *qp);
    if (!qp) {
        errno = ENOMEM;
        return NULL;
    }
    qp->ctx = ctx;
    qp->pdn = to_pd(pd)->pdn;
    qp->scq = to_cq(a->send_cq);
    qp->rcq = to_cq(a->recv_cq);
    qp->sq_sig_all = a->sq_sig_all;
    qp->sq_log = (unsigned)sq_log;
    qp->rq_log = (unsigned)rq_log;
    pthread_mutex_init(&qp->sq_lock, NULL);
    pthread_mutex_init(&qp->rq_lock, NULL);
    e = ENOMEM;
    qp->sq_bytes = page_round(sizeof(nic_sq_wqe_t) << sq_log);
    qp->rq_bytes = page_round(sizeof(nic_rq_wqe_t) << rq_log);
    qp->inl_bytes = page_round((size_t)HLSNIC_MAX_INLINE << sq_log);
    qp->sq = hlsnic_dma_alloc(f, qp->sq_bytes, HYP_RAM_CPU);
    qp->rq = hlsnic_dma_alloc(f, qp->rq_bytes, HYP_RAM_CPU);
    qp->inl = hlsnic_dma_alloc(f, qp->inl_bytes, HYP_RAM_CPU);
    qp->sq_signaled = calloc((size_t)1 << sq_log, 1);
    if (!qp->sq || !qp->rq || !qp->inl || !qp->sq_signaled) goto fail_rings;

    /* The inline buffer is an MR of the QP's PD, so the NIC may check the WQE's lkey. */
    if ((e = hlsnic_mr_slot_alloc(f, &qp->inl_mr_slot, &qp->inl_key))) goto fail_rings;
    nic_cmd_t mc = {.op = NIC_CMD_REG_MR, .num = qp->inl_key, .base = (uintptr_t)qp->inl,
                    .len = qp->inl_bytes, .pd = qp->pdn, .access = 0};
    if ((e = hlsnic_cmd(f, &mc, NULL, "create_qp (inline MR)"))) goto fail_mrslot;

    pthread_mutex_lock(&f->tab_lock);
    unsigned s;
    for (s = 0; s < NIC_QP_PER_FN && f->qp[s]; s++) {}
    if (s == NIC_QP_PER_FN) {
        pthread_mutex_unlock(&f->tab_lock);
        e = ENOMEM; /* the function's 16 QPs are in use */
        goto fail_mr;
    }
    /* qpn = generation * 16 + row: never 0 or 1 (the special QPs), new after each reuse. */
    uint32_t gen = ++f->qp_gen[s] & 0xfffff;
    if (!gen) gen = f->qp_gen[s] = 1;
    qp->slot = s;
    qp->sh.qpn = gen << NIC_QP_SLOT_BITS | s;
    qp->sh.state = NIC_QPS_RESET;
    f->qp[s] = qp;
    pthread_mutex_unlock(&f->tab_lock);

    nic_cmd_t c = {.op = NIC_CMD_CREATE_QP, .num = qp->sh.qpn};
    c.qp.qpn = (hls_u24)qp->sh.qpn;
    c.qp.pd = qp->pdn;
    c.qp.sq_base = (uintptr_t)qp->sq;
    c.qp.rq_base = (uintptr_t)qp->rq;
    c.qp.sq_log = (hls_uint(5))sq_log;
    c.qp.rq_log = (hls_uint(5))rq_log;
    c.qp.send_cq = (nic_cq_t)(f->fn * NIC_CQ_PER_FN + qp->scq->slot);
    c.qp.recv_cq = (nic_cq_t)(f->fn * NIC_CQ_PER_FN + qp->rcq->slot);
    if ((e = hlsnic_cmd(f, &c, NULL, "create_qp"))) goto fail_slot;

    qp->cap.max_send_wr = 1u << sq_log;
    qp->cap.max_recv_wr = 1u << rq_log;
    qp->cap.max_send_sge = HLSNIC_MAX_SGE;
    qp->cap.max_recv_sge = HLSNIC_MAX_SGE;
    qp->cap.max_inline_data = HLSNIC_MAX_INLINE;
    a->cap = qp->cap; /* ibv_create_qp(3): the actual values */

    struct ibv_qp *q = &qp->vqp.qp;
    q->context = pd->context;
    q->qp_context = a->qp_context;
    q->pd = pd;
    q->send_cq = a->send_cq;
    q->recv_cq = a->recv_cq;
    q->srq = NULL;
    q->handle = qp->sh.qpn;
    q->qp_num = qp->sh.qpn;
    q->state = IBV_QPS_RESET;
    q->qp_type = IBV_QPT_RC;
    pthread_mutex_init(&q->mutex, NULL);
    pthread_cond_init(&q->cond, NULL);
    q->events_completed = 0;
    __atomic_add_fetch(&to_pd(pd)->users, 1, __ATOMIC_RELEASE);
    return q;

fail_slot:
    pthread_mutex_lock(&f->tab_lock);
    f->qp[qp->slot] = NULL;
    pthread_mutex_unlock(&f->tab_lock);
fail_mr: {
    nic_cmd_t d = {.op = NIC_CMD_DEREG_MR, .num = qp->inl_key};
    hlsnic_cmd(f, &d, NULL, "create_qp (undo inline MR)");
}
fail_mrslot:
    hlsnic_mr_slot_free(f, qp->inl_mr_slot);
fail_rings:
    free_rings(f, qp);
    free(qp);
    errno = e;
    return NULL;
}

/* Back to RESET: the NIC cleared the QP's dynamic state (indexes restart at 0), so does the
 * driver; the rings are zeroed so that no stale WQE is read again. */
static void reset_rings(struct hlsnic_qp *qp) {
    pthread_mutex_lock(&qp->sq_lock);
    pthread_mutex_lock(&qp->rq_lock);
    qp->sq_pi = qp->sq_ci = qp->rq_pi = qp->rq_ci = 0;
    memset(qp->sq, 0, qp->sq_bytes);
    memset(qp->rq, 0, qp->rq_bytes);
    memset(qp->sq_signaled, 0, (size_t)1 << qp->sq_log);
    pthread_mutex_unlock(&qp->rq_lock);
    pthread_mutex_unlock(&qp->sq_lock);
}

int hlsnic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask) {
    struct hlsnic_qp *qp = to_qp(ibqp);
    hlsnic_fn_t *f = qp->ctx->f;
    const char *why = NULL;
    nic_cmd_t c;
    hlsnic_qp_shadow_t sh = qp->sh;
    int e = hlsnic_map_modify_qp(attr, mask, &sh, f->active_mtu, hlsnic_resolve_mac, f, &c, &why);
    if (e) {
        if (f->debug || e == EHOSTUNREACH) hlsnic_log(f, "modify_qp 0x%x: %s", qp->sh.qpn, why);
        return e == EHOSTUNREACH ? EINVAL : e;
    }
    /* A QP with nothing outstanding is drained at once: the NIC's SQ_DRAINED can reach the
     * event thread before this command's answer, so the request for it is in place first. */
    pthread_mutex_lock(&f->tab_lock);
    uint8_t notify_was = qp->sh.en_sqd_async_notify;
    qp->sh.en_sqd_async_notify = sh.en_sqd_async_notify;
    pthread_mutex_unlock(&f->tab_lock);
    if ((e = hlsnic_cmd(f, &c, NULL, "modify_qp"))) {
        pthread_mutex_lock(&f->tab_lock);
        qp->sh.en_sqd_async_notify = notify_was;
        pthread_mutex_unlock(&f->tab_lock);
        return e;
    }
    int next = (mask & IBV_QP_STATE) ? (int)attr->qp_state : qp->sh.state;
    sh.state = (uint8_t)next;
    pthread_mutex_lock(&f->tab_lock);
    qp->sh = sh;
    pthread_mutex_unlock(&f->tab_lock);
    if (next == IBV_QPS_RESET) reset_rings(qp);
    return 0;
}

int hlsnic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init) {
    struct hlsnic_qp *qp = to_qp(ibqp);
    hlsnic_fn_t *f = qp->ctx->f;
    (void)mask; /* everything is returned; the mask only says what the caller looks at */
    nic_cmd_t c = {.op = NIC_CMD_QUERY_QP, .num = qp->sh.qpn};
    nic_cmd_resp_t r;
    int e = hlsnic_cmd(f, &c, &r, "query_qp");
    if (e) return e;
    const nic_qp_attr_t *n = &r.qp;
    memset(attr, 0, sizeof *attr);
    attr->qp_state = (enum ibv_qp_state)n->state;
    attr->cur_qp_state = attr->qp_state;
    attr->path_mtu = (enum ibv_mtu)(n->pmtu ? n->pmtu : IBV_MTU_256);
    attr->path_mig_state = IBV_MIG_MIGRATED;
    attr->qp_access_flags = hlsnic_unmap_access(n->access);
    attr->port_num = HLSNIC_PORT;
    attr->rq_psn = (uint32_t)n->rq_psn;
    attr->sq_psn = (uint32_t)n->sq_psn;
    attr->dest_qp_num = (uint32_t)n->dest_qpn;
    attr->timeout = (uint8_t)n->timeout;
    attr->retry_cnt = (uint8_t)n->retry_cnt;
    attr->rnr_retry = (uint8_t)n->rnr_retry;
    attr->min_rnr_timer = (uint8_t)n->min_rnr_timer;
    attr->max_rd_atomic = n->max_rd_atomic;
    attr->max_dest_rd_atomic = n->max_dest_rd_atomic;
    attr->pkey_index = n->pkey_index;
    attr->en_sqd_async_notify = qp->sh.en_sqd_async_notify;
    attr->sq_draining = 0;
    attr->cap = qp->cap;
    if (n->dst_ip) {
        attr->ah_attr.is_global = 1;
        hlsnic_ipv4_gid(n->dst_ip, &attr->ah_attr.grh.dgid);
        attr->ah_attr.grh.sgid_index = 0;
        attr->ah_attr.grh.hop_limit = qp->sh.hop_limit;
        attr->ah_attr.grh.traffic_class = qp->sh.traffic_class;
        attr->ah_attr.grh.flow_label = qp->sh.flow_label;
        attr->ah_attr.sl = qp->sh.sl;
        attr->ah_attr.port_num = HLSNIC_PORT;
    }
    pthread_mutex_lock(&f->tab_lock);
    qp->sh.state = (uint8_t)n->state; /* the NIC may have moved it (errors) */
    pthread_mutex_unlock(&f->tab_lock);
    if (init) {
        memset(init, 0, sizeof *init);
        init->qp_context = ibqp->qp_context;
        init->send_cq = ibqp->send_cq;
        init->recv_cq = ibqp->recv_cq;
        init->cap = qp->cap;
        init->qp_type = IBV_QPT_RC;
        init->sq_sig_all = qp->sq_sig_all;
    }
    return 0;
}

int hlsnic_destroy_qp(struct ibv_qp *ibqp) {
    struct hlsnic_qp *qp = to_qp(ibqp);
    hlsnic_fn_t *f = qp->ctx->f;
    nic_cmd_t c = {.op = NIC_CMD_DESTROY_QP, .num = qp->sh.qpn};
    int e = hlsnic_cmd(f, &c, NULL, "destroy_qp");
    if (e) return e;
    pthread_mutex_lock(&f->tab_lock);
    f->qp[qp->slot] = NULL;
    pthread_mutex_unlock(&f->tab_lock);
    nic_cmd_t d = {.op = NIC_CMD_DEREG_MR, .num = qp->inl_key};
    if (hlsnic_cmd(f, &d, NULL, "destroy_qp (inline MR)") == 0) hlsnic_mr_slot_free(f, qp->inl_mr_slot);
    /* ibv_destroy_qp(3): wait until every async event the program read was acknowledged;
     * the ones it never read are discarded (async_reported counts reads: hlsnic_async_event). */
    hlsnic_events_discard(qp->ctx, qp->ctx->vctx.context.async_fd, qp->ctx->async_wfd,
                          sizeof(struct ib_uverbs_async_event_desc), (uintptr_t)ibqp);
    pthread_mutex_lock(&ibqp->mutex);
    while (ibqp->events_completed != qp->async_reported) pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
    pthread_mutex_unlock(&ibqp->mutex);
    free_rings(f, qp);
    __atomic_sub_fetch(&to_pd(ibqp->pd)->users, 1, __ATOMIC_RELEASE);
    free(qp);
    return 0;
}

/* One CQE of this QP was polled: free the SQ or RQ slots it retires. RC completes in order:
 * a successful send CQE belongs to the oldest outstanding signaled WQE (the unsignaled ones
 * before it completed silently); an error or flush CQE is produced for every WQE, signaled
 * or not (IB vol. 1 10.7.3.1), so it retires the oldest outstanding one. */
void hlsnic_qp_retire(struct hlsnic_qp *qp, const nic_cqe_t *cqe) {
    if (cqe->opcode & 0x80) { /* NIC_WC_RECV* */
        pthread_mutex_lock(&qp->rq_lock);
        if (qp->rq_ci != qp->rq_pi) qp->rq_ci++;
        pthread_mutex_unlock(&qp->rq_lock);
        return;
    }
    pthread_mutex_lock(&qp->sq_lock);
    uint32_t mask = (1u << qp->sq_log) - 1;
    if (cqe->status != NIC_WC_SUCCESS) {
        if (qp->sq_ci != qp->sq_pi) qp->sq_ci++;
    } else {
        while (qp->sq_ci != qp->sq_pi) {
            int sig = qp->sq_signaled[qp->sq_ci & mask];
            qp->sq_ci++;
            if (sig) break;
        }
    }
    pthread_mutex_unlock(&qp->sq_lock);
}
