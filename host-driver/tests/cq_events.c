/* cq_events.c — completion events and ibv_destroy_cq: an event the program never read must
 * not make destroy wait (issue 12 item 6), an event it read but did not acknowledge must.
 *
 * ibv_destroy_cq(3): destroy waits until every event the program *got* with ibv_get_cq_event
 * was acknowledged with ibv_ack_cq_events; ibv_destroy_qp(3) the same for asynchronous events
 * (checked here with SQ_DRAINED). The kernel counts an event as delivered only when
 * the program reads it, and discards a CQ's unread events when the CQ is destroyed, so rxe and
 * real NICs return. Every destroy here runs in a helper thread joined with a deadline: a hang
 * is a FAIL line and exit 1, never a stuck suite. Run under hlsnic-run, no peer needed: a send
 * with an lkey that names no MR completes locally with a Local Protection Error, which is a
 * completion like any other and fires an armed CQ's event.
 * Prints "PASS cq-events/NAME" or "FAIL cq-events/NAME: why"; exit 1 if any failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_PREFIX "cq-events/"
#include "check.h"

enum { BUF = 4096, DESTROY_SECS = 10 };


static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_comp_channel *ch;
static uint8_t buf[BUF];
static struct ibv_mr *mr;

/* ---- a destroy in a thread, joined with a deadline ---- */
typedef struct {
    struct ibv_cq *cq; /* this, or */
    struct ibv_qp *qp; /* this */
    int ret;
} destroy_job_t;
static void *destroy_main(void *arg) {
    destroy_job_t *j = arg;
    j->ret = j->cq ? ibv_destroy_cq(j->cq) : ibv_destroy_qp(j->qp);
    return NULL;
}
static bool joined_within(pthread_t t, double secs) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)secs;
    dl.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
    if (dl.tv_nsec >= 1000000000L) dl.tv_sec++, dl.tv_nsec -= 1000000000L;
    return pthread_timedjoin_np(t, NULL, &dl) == 0;
}

/* An RC QP on cq in RTS towards a peer that does not exist (nothing is sent: the WR fails
 * its local checks first). */
static struct ibv_qp *qp_rts(struct ibv_cq *cq) {
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp *qp = ibv_create_qp(pd, &ia);
    if (!qp) return NULL;
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) goto bad;
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = 0x99,
                             .max_dest_rd_atomic = 1, .min_rnr_timer = 12};
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
    a.ah_attr.grh.dgid.raw[12] = 10, a.ah_attr.grh.dgid.raw[15] = 99;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        goto bad;
    a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1};
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                  IBV_QP_MAX_QP_RD_ATOMIC))
        goto bad;
    return qp;
bad:
    ibv_destroy_qp(qp);
    return NULL;
}

/* Arm cq, complete one WR on qp (bad lkey: a local error completion), poll it, and wait until
 * its event is readable on the channel. One PASS or FAIL line named `name`. */
static bool one_event(struct ibv_cq *cq, struct ibv_qp *qp, const char *name) {
    if (ibv_req_notify_cq(cq, 0)) return check(false, name, "ibv_req_notify_cq failed");
    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey ^ 0x00abcd00};
    struct ibv_send_wr w = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                            .send_flags = IBV_SEND_SIGNALED}, *bad = NULL;
    if (ibv_post_send(qp, &w, &bad)) return check(false, name, "ibv_post_send failed");
    struct ibv_wc wc;
    int got = 0;
    for (int i = 0; i < 20000 && !got; i++) {
        got = ibv_poll_cq(cq, 1, &wc);
        if (!got) usleep(1000);
    }
    if (got != 1) return check(false, name, "no completion within 20 s");
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    return check(poll(&p, 1, 10000) == 1, name, "no completion event on the channel within 10 s");
}

/* The channel holds no event now (within 0.3 s). */
static bool channel_empty(void) {
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    return poll(&p, 1, 300) == 0;
}

int main(void) {
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n < 1 || !(ctx = ibv_open_device(list[0]))) {
        printf("FAIL cq-events/open: no device (%s)\n", strerror(errno));
        return 1;
    }
    pd = ibv_alloc_pd(ctx);
    ch = ibv_create_comp_channel(ctx);
    mr = pd ? ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE) : NULL;
    if (!pd || !ch || !mr) {
        printf("FAIL cq-events/setup: PD, channel or MR: %s\n", strerror(errno));
        return 1;
    }

    /* 1. The reproduction: an event generated and never read. A second CQ on the same
     * channel also has an event waiting; it must survive the first CQ's destroy. */
    struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, ch, 0), *other = ibv_create_cq(ctx, 16, NULL, ch, 0);
    struct ibv_qp *qp = cq ? qp_rts(cq) : NULL, *qp2 = other ? qp_rts(other) : NULL;
    if (!check(cq && other && qp && qp2, "setup", "CQs and QPs in RTS: %s", strerror(errno))) return 1;
    if (!one_event(cq, qp, "unread-event") || !one_event(other, qp2, "unread-event-other-cq")) return 1;
    check(ibv_destroy_qp(qp) == 0, "destroy-qp", "ibv_destroy_qp failed");
    destroy_job_t j = {.cq = cq, .ret = -1};
    pthread_t t;
    pthread_create(&t, NULL, destroy_main, &j);
    if (!check(joined_within(t, DESTROY_SECS), "destroy-cq-with-unread-event",
               "ibv_destroy_cq still waiting after %d s for an event the program never read", DESTROY_SECS)) {
        fflush(stdout);
        _exit(1); /* the thread is stuck inside the provider: nothing else can be trusted */
    }
    check(j.ret == 0, "destroy-cq-with-unread-event-returns-0", "returned %d", j.ret);
    /* the destroyed CQ's event is gone, the other CQ's is still there and names that CQ */
    struct ibv_cq *ev_cq = NULL;
    void *ev_ctx;
    struct pollfd p = {.fd = ch->fd, .events = POLLIN};
    bool got = poll(&p, 1, 2000) == 1 && ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0;
    check(got && ev_cq == other, "other-cq-event-kept", "%s", got ? "the event read names another CQ" : "no event left");
    if (got) ibv_ack_cq_events(ev_cq, 1);
    check(channel_empty(), "destroyed-cq-event-discarded", "an event is still on the channel after the destroy");

    /* 2. An event read but not acknowledged: destroy must wait for the ack (ibv_destroy_cq(3)),
     * so the fix cannot be "never wait". */
    if (!one_event(other, qp2, "read-event")) return 1;
    got = ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0 && ev_cq == other;
    check(got, "read-event-names-cq", "ibv_get_cq_event did not return the CQ's event");
    check(ibv_destroy_qp(qp2) == 0, "destroy-qp-2", "ibv_destroy_qp failed");
    j = (destroy_job_t){.cq = other, .ret = -1};
    pthread_create(&t, NULL, destroy_main, &j);
    bool early = joined_within(t, 1.0);
    check(!early, "destroy-waits-for-ack", "ibv_destroy_cq returned %d with a read event not yet acknowledged", j.ret);
    if (!early) {
        ibv_ack_cq_events(other, 1);
        if (!check(joined_within(t, DESTROY_SECS), "destroy-after-ack", "still waiting %d s after the ack", DESTROY_SECS)) {
            fflush(stdout);
            _exit(1);
        }
        check(j.ret == 0, "destroy-after-ack-returns-0", "returned %d", j.ret);
    }

    /* 3. The same for an asynchronous event (ibv_destroy_qp(3)): SQ_DRAINED, asked for on
     * RTS -> SQD, raised by the NIC with nothing outstanding. Never read: destroy returns and
     * the event is gone; read and not acknowledged: destroy waits for the ack. */
    struct ibv_cq *cq3 = ibv_create_cq(ctx, 16, NULL, NULL, 0);
    for (int round = 0; round < 2 && cq3; round++) {
        const char *tag = round ? "async-read" : "async-unread";
        char n[96];
        struct ibv_qp *q = qp_rts(cq3);
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1};
        struct pollfd pa = {.fd = ctx->async_fd, .events = POLLIN};
        bool ev_ok = q && !ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY) && poll(&pa, 1, 10000) == 1;
        snprintf(n, sizeof n, "%s-sq-drained-event", tag);
        if (!check(ev_ok, n, "no SQ_DRAINED event on the async fd within 10 s after RTS -> SQD")) break;
        struct ibv_async_event ae;
        if (round) {
            bool got_ae = ibv_get_async_event(ctx, &ae) == 0 && ae.event_type == IBV_EVENT_SQ_DRAINED && ae.element.qp == q;
            snprintf(n, sizeof n, "%s-event-names-qp", tag);
            check(got_ae, n, "the async event read is not this QP's SQ_DRAINED");
        }
        j = (destroy_job_t){.qp = q, .ret = -1};
        pthread_create(&t, NULL, destroy_main, &j);
        if (!round) {
            if (!check(joined_within(t, DESTROY_SECS), "destroy-qp-with-unread-async-event",
                       "ibv_destroy_qp still waiting after %d s for an event the program never read", DESTROY_SECS)) {
                fflush(stdout);
                _exit(1);
            }
            check(j.ret == 0 && poll(&pa, 1, 300) == 0, "unread-async-event-discarded", "destroy returned %d; %s", j.ret,
                  j.ret ? "" : "an event is still on the async fd");
        } else {
            bool early = joined_within(t, 1.0);
            check(!early, "destroy-qp-waits-for-async-ack", "ibv_destroy_qp returned %d with a read event not yet acknowledged", j.ret);
            if (!early) {
                ibv_ack_async_event(&ae);
                if (!check(joined_within(t, DESTROY_SECS), "destroy-qp-after-async-ack", "still waiting %d s after the ack", DESTROY_SECS)) {
                    fflush(stdout);
                    _exit(1);
                }
                check(j.ret == 0, "destroy-qp-after-async-ack-returns-0", "returned %d", j.ret);
            }
        }
    }
    if (cq3) check(ibv_destroy_cq(cq3) == 0, "destroy-cq-3", "ibv_destroy_cq failed");

    check(ibv_destroy_comp_channel(ch) == 0, "destroy-channel", "%s", strerror(errno));
    ibv_dereg_mr(mr);
    ibv_dealloc_pd(pd);
    ibv_close_device(ctx);
    ibv_free_device_list(list);
    return check_failures ? 1 : 0;
}
