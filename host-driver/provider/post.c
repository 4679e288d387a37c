/* post.c — ibv_post_send / ibv_post_recv: WQEs into the rings, then one doorbell with the
 * new producer index (nic_bar.h). */
#include <errno.h>
#include <string.h>

#include "hlsnic.h"

static void ring_db(struct hlsnic_qp *qp, uint32_t off, uint32_t pi) {
    hlsnic_fn_t *f = qp->ctx->f;
    /* The WQE stores must be visible before the device can read them: release fence before
     * the MMIO write (a write barrier before the doorbell on real hardware). */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    hlsnic_bar_write(f, off, NIC_DB_VALUE(qp->sh.qpn, pi, NIC_ARM_NONE));
}

/* A paused guest writes no WQE either (its vCPUs are stopped): the whole post is inside the
 * gate, so the migration's shadow check sees no ring change while the guest is paused. */
static int post_send(struct hlsnic_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
static int post_recv(struct hlsnic_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

int hlsnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad) {
    struct hlsnic_qp *qp = to_qp(ibqp);
    hyp_gate_enter(&qp->ctx->f->gate);
    int e = post_send(qp, wr, bad);
    hyp_gate_exit(&qp->ctx->f->gate);
    return e;
}

int hlsnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad) {
    struct hlsnic_qp *qp = to_qp(ibqp);
    hyp_gate_enter(&qp->ctx->f->gate);
    int e = post_recv(qp, wr, bad);
    hyp_gate_exit(&qp->ctx->f->gate);
    return e;
}

static int post_send(struct hlsnic_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad) {
    int e = 0;
    *bad = NULL;
    /* IB vol. 1 10.8.2 / rxe: no send WRs before RTS (RESET, INIT, RTR). In SQD they wait,
     * in SQE and ERR the NIC flushes them. */
    uint8_t st = qp->sh.state;
    if (st == NIC_QPS_RESET || st == NIC_QPS_INIT || st == NIC_QPS_RTR) {
        *bad = wr;
        return EINVAL;
    }
    pthread_mutex_lock(&qp->sq_lock);
    uint32_t start = qp->sq_pi, size = 1u << qp->sq_log, mask = size - 1;
    for (; wr; wr = wr->next) {
        nic_sq_wqe_t wqe;
        const char *why = NULL;
        if ((e = hlsnic_map_send_wr(wr, qp->sq_sig_all, qp->cap.max_inline_data, &wqe, &why))) {
            if (qp->ctx->f->debug) hlsnic_log(qp->ctx->f, "post_send qp 0x%x: %s", qp->sh.qpn, why);
            break;
        }
        if (qp->sq_pi - qp->sq_ci >= size) {
            e = ENOMEM; /* ibv_post_send(3): send queue full */
            break;
        }
        uint32_t slot = qp->sq_pi & mask;
        if (wr->send_flags & IBV_SEND_INLINE) {
            /* The data is copied now into the slot's part of the QP's DMA-mapped inline
             * buffer; the caller may reuse its buffer as soon as this returns. */
            uint8_t *dst = qp->inl + (size_t)slot * HLSNIC_MAX_INLINE;
            uint32_t at = 0;
            for (int i = 0; i < wr->num_sge; i++) {
                memcpy(dst + at, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
                at += wr->sg_list[i].length;
            }
            wqe.local_addr = (uintptr_t)dst;
            wqe.lkey = qp->inl_key;
        }
        memcpy(qp->sq + sizeof(nic_sq_wqe_t) * slot, &wqe, sizeof wqe);
        qp->sq_signaled[slot] = (wqe.flags & NIC_WQE_SIGNALED) != 0;
        qp->sq_pi++;
    }
    if (qp->sq_pi != start) ring_db(qp, NIC_BAR_SQ_DB, qp->sq_pi);
    pthread_mutex_unlock(&qp->sq_lock);
    if (e) *bad = wr;
    return e;
}

static int post_recv(struct hlsnic_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad) {
    int e = 0;
    *bad = NULL;
    if (qp->sh.state == NIC_QPS_RESET) { /* the NIC ignores RQ doorbells in RESET */
        *bad = wr;
        return EINVAL;
    }
    pthread_mutex_lock(&qp->rq_lock);
    uint32_t start = qp->rq_pi, size = 1u << qp->rq_log, mask = size - 1;
    for (; wr; wr = wr->next) {
        nic_rq_wqe_t wqe;
        const char *why = NULL;
        if ((e = hlsnic_map_recv_wr(wr, &wqe, &why))) {
            if (qp->ctx->f->debug) hlsnic_log(qp->ctx->f, "post_recv qp 0x%x: %s", qp->sh.qpn, why);
            break;
        }
        if (qp->rq_pi - qp->rq_ci >= size) {
            e = ENOMEM;
            break;
        }
        memcpy(qp->rq + sizeof(nic_rq_wqe_t) * (qp->rq_pi & mask), &wqe, sizeof wqe);
        qp->rq_pi++;
    }
    if (qp->rq_pi != start) ring_db(qp, NIC_BAR_RQ_DB, qp->rq_pi);
    pthread_mutex_unlock(&qp->rq_lock);
    if (e) *bad = wr;
    return e;
}
