/* verbs_cq.c — completion queues: the ring in process memory that cq_writer fills, polled by
 * owner bit; completion channels; ibv_req_notify_cq through the CQ doorbell's arm bits. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlsnic.h"

/* libibverbs' ibv_create_comp_channel asks the kernel for an fd; with no kernel behind the
 * device node the fd it stores is not usable. When a CQ is bound to a channel the driver
 * gives the channel a SOCK_SEQPACKET socket pair (channel->fd = one end, the event thread
 * sends on the other), once per channel: later CQs on the same channel share it. A socket,
 * not a pipe, because each event is one message (a read never tears one) and the provider can
 * take them out without blocking whatever mode the program put channel->fd in (MSG_DONTWAIT):
 * destroy_cq discards the CQ's unread events as the kernel does. Returns the sending end or -1. */
static int channel_wfd(struct hlsnic_context *ctx, struct ibv_comp_channel *ch) {
    int wfd = -1;
    pthread_mutex_lock(&ctx->chan_lock);
    for (int i = 0; i < ctx->nchans; i++)
        if (ctx->chans[i].ch == ch && ctx->chans[i].rfd == ch->fd) {
            wfd = ctx->chans[i].wfd;
            goto out;
        }
    if (ctx->nchans == ctx->chans_cap) {
        int cap = ctx->chans_cap ? 2 * ctx->chans_cap : 4;
        hlsnic_chan_t *n = realloc(ctx->chans, (size_t)cap * sizeof *n);
        if (!n) goto out;
        ctx->chans = n;
        ctx->chans_cap = cap;
    }
    int p[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p)) goto out;
    shutdown(p[0], SHUT_WR); /* the program's end only reads */
    shutdown(p[1], SHUT_RD);
    ctx->chans[ctx->nchans++] = (hlsnic_chan_t){.ch = ch, .rfd = p[0], .wfd = p[1]};
    ch->fd = p[0];
    wfd = p[1];
out:
    pthread_mutex_unlock(&ctx->chan_lock);
    return wfd;
}

/* the read end of the CQ's channel (chan_lock held) */
static int channel_rfd(struct hlsnic_cq *cq) {
    struct hlsnic_context *ctx = cq->ctx;
    for (int i = 0; i < ctx->nchans; i++)
        if (ctx->chans[i].wfd == cq->chan_wfd) return ctx->chans[i].rfd;
    return -1;
}

/* At context close: the write ends (the read ends belong to the channels, which
 * ibv_destroy_comp_channel closes). */
void hlsnic_close_channels(struct hlsnic_context *ctx) {
    for (int i = 0; i < ctx->nchans; i++) close(ctx->chans[i].wfd);
    free(ctx->chans);
    ctx->chans = NULL;
    ctx->nchans = ctx->chans_cap = 0;
}

struct ibv_cq *hlsnic_create_cq(struct ibv_context *c, int cqe, struct ibv_comp_channel *ch, int vec) {
    struct hlsnic_context *ctx = to_ctx(c);
    hlsnic_fn_t *f = ctx->f;
    int e = EINVAL;
    if (cqe < 1 || vec != 0) goto fail0; /* one completion vector */
    int log = hlsnic_ring_log((uint32_t)cqe, f->max_ring_log);
    if (log < 0) goto fail0;
    struct hlsnic_cq *cq = calloc(1, sizeof *cq);
    if (!cq) {
        e = ENOMEM;
        goto fail0;
    }
    cq->ctx = ctx;
    cq->log = (unsigned)log;
    cq->chan_wfd = -1;
    pthread_mutex_init(&cq->lock, NULL);
    if (ch && (cq->chan_wfd = channel_wfd(ctx, ch)) < 0) {
        e = EMFILE;
        goto fail1;
    }
    cq->ring_bytes = sizeof(nic_cqe_t) << log;
    if (cq->ring_bytes < 4096) cq->ring_bytes = 4096;
    cq->ring = hlsnic_dma_alloc(f, cq->ring_bytes, HYP_RAM_DEVICE_ONLY);
    if (!cq->ring) {
        e = ENOMEM;
        goto fail1;
    }
    /* A free row of the function's CQ table; the cqn carries a generation so a reused row
     * gets a new number. */
    pthread_mutex_lock(&f->tab_lock);
    unsigned s;
    for (s = 0; s < NIC_CQ_PER_FN && f->cq[s]; s++) {}
    if (s == NIC_CQ_PER_FN) {
        pthread_mutex_unlock(&f->tab_lock);
        e = ENOMEM;
        goto fail2;
    }
    uint32_t gen = ++f->cq_gen[s] & 0xfffff;
    if (!gen) gen = f->cq_gen[s] = 1;
    cq->slot = s;
    cq->cqn = gen << NIC_QP_SLOT_BITS | s;
    f->cq[s] = cq; /* reserved; events for it are ignored until it exists in the NIC */
    pthread_mutex_unlock(&f->tab_lock);
    nic_cmd_t cmd = {.op = NIC_CMD_CREATE_CQ, .num = cq->cqn, .base = (uintptr_t)cq->ring, .log = (hls_uint(5))log};
    if ((e = hlsnic_cmd(f, &cmd, NULL, "create_cq"))) {
        pthread_mutex_lock(&f->tab_lock);
        f->cq[s] = NULL;
        pthread_mutex_unlock(&f->tab_lock);
        goto fail2;
    }
    cq->vcq.cq.cqe = 1 << log;
    cq->vcq.cq.handle = cq->cqn;
    return &cq->vcq.cq;
fail2:
    hlsnic_dma_free(f, cq->ring, cq->ring_bytes);
fail1:
    pthread_mutex_destroy(&cq->lock);
    free(cq);
fail0:
    errno = e;
    return NULL;
}

int hlsnic_destroy_cq(struct ibv_cq *ibcq) {
    struct hlsnic_cq *cq = to_cq(ibcq);
    hlsnic_fn_t *f = cq->ctx->f;
    nic_cmd_t cmd = {.op = NIC_CMD_DESTROY_CQ, .num = cq->cqn};
    int e = hlsnic_cmd(f, &cmd, NULL, "destroy_cq");
    if (e) return e; /* EBUSY: QPs still use it */
    pthread_mutex_lock(&f->tab_lock);
    f->cq[cq->slot] = NULL;
    pthread_mutex_unlock(&f->tab_lock);
    /* ibv_destroy_cq(3): wait until every event the program read was acknowledged; events
     * it never read are discarded, not waited for (comp_reported and async_reported count
     * reads: hlsnic_cq_event, hlsnic_async_event). */
    struct hlsnic_context *ctx = cq->ctx;
    if (cq->chan_wfd >= 0) {
        pthread_mutex_lock(&ctx->chan_lock);
        int rfd = channel_rfd(cq);
        pthread_mutex_unlock(&ctx->chan_lock);
        hlsnic_events_discard(ctx, rfd, cq->chan_wfd, sizeof(struct ib_uverbs_comp_event_desc), (uintptr_t)ibcq);
    }
    hlsnic_events_discard(ctx, ctx->vctx.context.async_fd, ctx->async_wfd, sizeof(struct ib_uverbs_async_event_desc),
                          (uintptr_t)ibcq);
    pthread_mutex_lock(&ibcq->mutex);
    while (ibcq->comp_events_completed != cq->comp_reported || ibcq->async_events_completed != cq->async_reported)
        pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
    pthread_mutex_unlock(&ibcq->mutex);
    hlsnic_dma_free(f, cq->ring, cq->ring_bytes);
    pthread_mutex_destroy(&cq->lock);
    free(cq);
    return 0;
}

static void cq_doorbell(struct hlsnic_cq *cq, unsigned arm) {
    hlsnic_fn_t *f = cq->ctx->f;
    hlsnic_bar_write(f, NIC_BAR_CQ_DB, NIC_DB_VALUE(cq->cqn, cq->ci, arm));
}

int hlsnic_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc) {
    struct hlsnic_cq *cq = to_cq(ibcq);
    hlsnic_fn_t *f = cq->ctx->f;
    int got = 0;
    if (n < 0) return -1;
    /* A paused guest sees no completion: the ring is read inside the gate. */
    hyp_gate_enter(&f->gate);
    pthread_mutex_lock(&cq->lock);
    uint32_t mask = (1u << cq->log) - 1;
    while (got < n) {
        nic_cqe_t *e = (nic_cqe_t *)(cq->ring + sizeof(nic_cqe_t) * (cq->ci & mask));
        /* Owner bit = pass parity: set on even passes (nic_if.h). The acquire load pairs with
         * the device's release store of the CQE: the rest of it, and the data before it,
         * are visible once the owner byte is. */
        uint8_t owner = __atomic_load_n(&e->owner, __ATOMIC_ACQUIRE);
        uint8_t want = ((cq->ci >> cq->log) & 1) ? 0 : NIC_CQE_OWNER;
        if ((owner & NIC_CQE_OWNER) != want) break;
        nic_cqe_t cqe = *e;
        uint32_t src_qp = 0;
        pthread_mutex_lock(&f->tab_lock);
        struct hlsnic_qp *qp = f->qp[(cqe.qpn & 0xffffff) % NIC_QP_PER_FN];
        if (qp && qp->sh.qpn == (cqe.qpn & 0xffffff)) {
            src_qp = qp->sh.dest_qpn;
            hlsnic_qp_retire(qp, &cqe);
        }
        pthread_mutex_unlock(&f->tab_lock);
        hlsnic_map_cqe(&cqe, src_qp, &wc[got]);
        cq->ci++;
        got++;
    }
    if (got) cq_doorbell(cq, NIC_ARM_NONE); /* frees ring space for the device */
    pthread_mutex_unlock(&cq->lock);
    hyp_gate_exit(&f->gate);
    /* Nothing there: give the core to the device's clock thread (and the peer's) instead of
     * spinning; a busy-polling program on a 2-core machine otherwise starves the NICs. */
    if (!got) sched_yield();
    return got;
}

int hlsnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only) {
    struct hlsnic_cq *cq = to_cq(ibcq);
    if (cq->chan_wfd < 0) return EINVAL; /* no channel to deliver the event to */
    pthread_mutex_lock(&cq->lock);
    cq_doorbell(cq, solicited_only ? NIC_ARM_SOLICITED : NIC_ARM_NEXT);
    pthread_mutex_unlock(&cq->lock);
    return 0;
}

/* ibv_get_cq_event read one of this CQ's events: now it is delivered, and destroy_cq waits
 * for its ibv_ack_cq_events. (The arm itself is one-shot in the NIC: nothing to re-arm.) */
void hlsnic_cq_event(struct ibv_cq *ibcq) {
    pthread_mutex_lock(&ibcq->mutex);
    to_cq(ibcq)->comp_reported++;
    pthread_mutex_unlock(&ibcq->mutex);
}
