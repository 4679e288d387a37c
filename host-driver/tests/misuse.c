/* misuse.c — wrong uses of the verbs API on the simulated NIC get the documented errors, not crashes.
 *
 * Run under hlsnic-run (host-driver/tests/verbs-run, group "misuse"); no peer is needed: the QPs
 * point at a peer that does not exist, which is itself one of the cases (retry exhaustion).
 * What "documented" means, case by case: the libibverbs man pages (ibv_reg_mr(3),
 * ibv_create_qp(3), ibv_modify_qp(3), ibv_post_send(3), ibv_post_recv(3), ibv_dealloc_pd(3)...),
 * IB Architecture Spec vol. 1 (QP state machine 10.3, 11.4 work request errors, table 91 of
 * required/optional modify attributes, 10.8.3 completion statuses) and what Linux' RDMA core
 * returns for the same call on a kernel provider (EINVAL, EBUSY, ENOMEM).
 * Prints "PASS misuse/NAME" or "FAIL misuse/NAME: why" per check; exit 1 if any failed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHECK_PREFIX "misuse/"
#include "check.h"

/* a call that must fail with errno `want` (pointer-returning verbs set errno) */
#define EXPECT_NULL_ERRNO(name, call, want)                                                             \
    do {                                                                                                \
        errno = 0;                                                                                      \
        void *p_ = (void *)(call);                                                                      \
        int e_ = errno;                                                                                 \
        check(!p_ && e_ == (want), name, "returned %p errno %d (%s), want NULL errno %d (%s)", p_, e_,  \
              strerror(e_), want, strerror(want));                                                      \
    } while (0)
/* a call that returns an errno value (0 on success) */
#define EXPECT_RET(name, call, want)                                                                    \
    do {                                                                                                \
        int r_ = (call);                                                                                \
        check(r_ == (want), name, "returned %d (%s), want %d (%s)", r_, r_ > 0 ? strerror(r_) : "",     \
              want, (want) ? strerror(want) : "success");                                               \
    } while (0)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_device_attr dev_attr;
static union ibv_gid gid0;
static uint8_t *buf;
static struct ibv_mr *mr;
enum { BUF = 1 << 16 };

static struct ibv_qp *make_qp(uint32_t send_wr, uint32_t recv_wr) {
    struct ibv_qp_init_attr a = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                 .cap = {.max_send_wr = send_wr, .max_recv_wr = recv_wr,
                                         .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = 64}};
    return ibv_create_qp(pd, &a);
}
static int qp_state(struct ibv_qp *qp) {
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) return -1;
    return a.qp_state;
}
static int to_init(struct ibv_qp *qp) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}
/* RTR towards a peer that does not exist (10.0.0.99, QPN 0x99) */
static int to_rtr(struct ibv_qp *qp) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = 0x99,
                            .rq_psn = 0, .max_dest_rd_atomic = 1, .min_rnr_timer = 12};
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.grh.sgid_index = 0;
    memset(a.ah_attr.grh.dgid.raw, 0, 16);
    a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
    a.ah_attr.grh.dgid.raw[12] = 10, a.ah_attr.grh.dgid.raw[15] = 99;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}
/* RTS with the shortest timeout and no retries: a send to nobody fails fast */
static int to_rts(struct ibv_qp *qp) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTS, .timeout = 1, .retry_cnt = 0, .rnr_retry = 0,
                            .sq_psn = 0, .max_rd_atomic = 1};
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}
static struct ibv_send_wr send_wr(uint64_t id, uint32_t len) {
    static struct ibv_sge sge;
    sge = (struct ibv_sge){.addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey};
    return (struct ibv_send_wr){.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
                                .send_flags = IBV_SEND_SIGNALED};
}
/* poll until n completions arrive or `secs` pass; returns how many */
static int poll_n(struct ibv_wc *wc, int n, double secs) {
    int got = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (got < n) {
        int r = ibv_poll_cq(cq, n - got, wc + got);
        if (r < 0) return -1;
        got += r;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 > secs) break;
        if (!r) usleep(1000);
    }
    return got;
}

int main(void) {
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!check(list && n >= 1, "device-list", "ibv_get_device_list found %d devices (errno %s)", n, strerror(errno)))
        return 1;
    ctx = ibv_open_device(list[0]);
    if (!check(ctx != NULL, "open", "ibv_open_device(%s): %s", ibv_get_device_name(list[0]), strerror(errno)))
        return 1;
    check(!ibv_query_device(ctx, &dev_attr) && dev_attr.max_sge >= 1 && dev_attr.max_qp_wr > 0 && dev_attr.max_cqe > 0,
          "query-device", "max_sge %d max_qp_wr %d max_cqe %d", dev_attr.max_sge, dev_attr.max_qp_wr, dev_attr.max_cqe);
    struct ibv_port_attr pa;
    check(!ibv_query_port(ctx, 1, &pa) && pa.state == IBV_PORT_ACTIVE && pa.link_layer == IBV_LINK_LAYER_ETHERNET,
          "query-port", "state %d link_layer %d", pa.state, pa.link_layer);
    check(ibv_query_port(ctx, 2, &pa) != 0, "query-port-2", "port 2 of a one-port NIC was answered");
    check(!ibv_query_gid(ctx, 1, 0, &gid0) && gid0.raw[10] == 0xff && gid0.raw[11] == 0xff, "query-gid-0",
          "GID 0 is not IPv4-mapped");
    union ibv_gid g;
    check(ibv_query_gid(ctx, 1, 1, &g) != 0, "query-gid-1", "GID index 1 answered (the table has one entry)");

    pd = ibv_alloc_pd(ctx);
    if (!check(pd != NULL, "alloc-pd", "%s", strerror(errno))) return 1;
    buf = aligned_alloc(4096, BUF);
    memset(buf, 0, BUF);

    /* ---- memory registration: access flags (ibv_reg_mr(3): REMOTE_WRITE / REMOTE_ATOMIC need
     * LOCAL_WRITE), unknown bits */
    EXPECT_NULL_ERRNO("reg-mr-remote-write-without-local-write", ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_REMOTE_WRITE), EINVAL);
    EXPECT_NULL_ERRNO("reg-mr-remote-atomic-without-local-write", ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_REMOTE_ATOMIC), EINVAL);
    EXPECT_NULL_ERRNO("reg-mr-mw-bind-unsupported", ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND), EINVAL);
    mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (!check(mr != NULL, "reg-mr", "%s", strerror(errno))) return 1;

    /* ---- CQ and QP sizes beyond the device's limits (ibv_create_cq(3), ibv_create_qp(3)) */
    EXPECT_NULL_ERRNO("create-cq-too-big", ibv_create_cq(ctx, dev_attr.max_cqe + 1, NULL, NULL, 0), EINVAL);
    cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
    if (!check(cq != NULL, "create-cq", "%s", strerror(errno))) return 1;
    {
        struct ibv_qp_init_attr a = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                     .cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = dev_attr.max_sge + 1,
                                             .max_recv_sge = 1}};
        EXPECT_NULL_ERRNO("create-qp-too-many-send-sge", ibv_create_qp(pd, &a), EINVAL);
        a.cap.max_send_sge = 1, a.cap.max_recv_sge = dev_attr.max_sge + 1;
        EXPECT_NULL_ERRNO("create-qp-too-many-recv-sge", ibv_create_qp(pd, &a), EINVAL);
        a.cap.max_recv_sge = 1, a.cap.max_send_wr = dev_attr.max_qp_wr + 1;
        EXPECT_NULL_ERRNO("create-qp-too-many-wr", ibv_create_qp(pd, &a), EINVAL);
        a.cap.max_send_wr = 8, a.send_cq = NULL;
        EXPECT_NULL_ERRNO("create-qp-without-send-cq", ibv_create_qp(pd, &a), EINVAL);
        a.send_cq = cq, a.qp_type = IBV_QPT_UD;
        errno = 0;
        struct ibv_qp *ud = ibv_create_qp(pd, &a);
        check(!ud && (errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS), "create-qp-ud-unsupported",
              "a UD QP on an RC-only NIC: %p errno %s", (void *)ud, strerror(errno));
        if (ud) ibv_destroy_qp(ud);
    }

    /* ---- the QP state machine (IB vol. 1 10.3.1, ibv_modify_qp(3)) */
    struct ibv_qp *qp = make_qp(16, 16);
    if (!check(qp != NULL, "create-qp", "%s", strerror(errno))) return 1;
    check(qp_state(qp) == IBV_QPS_RESET, "new-qp-is-reset", "state %d", qp_state(qp));
    struct ibv_send_wr swr = send_wr(1, 64), *bad = NULL;
    EXPECT_RET("post-send-in-reset", ibv_post_send(qp, &swr, &bad), EINVAL);
    check(bad == &swr, "post-send-in-reset-bad-wr", "bad_wr %p, want the WR %p", (void *)bad, (void *)&swr);
    struct ibv_sge rsge = {.addr = (uintptr_t)buf, .length = 4096, .lkey = mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 2, .sg_list = &rsge, .num_sge = 1}, *rbad = NULL;
    EXPECT_RET("post-recv-in-reset", ibv_post_recv(qp, &rwr, &rbad), EINVAL);
    {
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};
        EXPECT_RET("modify-reset-to-rtr", ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
        a.qp_state = IBV_QPS_INIT;
        EXPECT_RET("modify-init-missing-attrs", ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
        a.qp_state = (enum ibv_qp_state)42;
        EXPECT_RET("modify-bogus-state", ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
        check(qp_state(qp) == IBV_QPS_RESET, "failed-modify-keeps-state", "state %d after refused modifies", qp_state(qp));
    }
    EXPECT_RET("modify-to-init", to_init(qp), 0);
    rbad = NULL;
    EXPECT_RET("post-recv-in-init", ibv_post_recv(qp, &rwr, &rbad), 0);
    bad = NULL;
    EXPECT_RET("post-send-in-init", ibv_post_send(qp, &swr, &bad), EINVAL);
    {
        struct ibv_sge two[2] = {rsge, rsge};
        struct ibv_recv_wr r2 = {.wr_id = 3, .sg_list = two, .num_sge = dev_attr.max_sge + 1};
        rbad = NULL;
        EXPECT_RET("post-recv-too-many-sge", ibv_post_recv(qp, &r2, &rbad), EINVAL);
        check(rbad == &r2, "post-recv-too-many-sge-bad-wr", "bad_wr %p, want %p", (void *)rbad, (void *)&r2);
    }
    {
        struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};
        EXPECT_RET("modify-rtr-without-av", ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
        check(qp_state(qp) == IBV_QPS_INIT, "failed-rtr-keeps-init", "state %d", qp_state(qp));
    }
    EXPECT_RET("modify-to-rtr", to_rtr(qp), 0);
    bad = NULL;
    EXPECT_RET("post-send-in-rtr", ibv_post_send(qp, &swr, &bad), EINVAL);
    EXPECT_RET("modify-to-rts", to_rts(qp), 0);
    check(qp_state(qp) == IBV_QPS_RTS, "qp-is-rts", "state %d", qp_state(qp));

    /* ---- bad work requests (ibv_post_send(3): EINVAL for an invalid WR, ENOMEM for a full SQ) */
    {
        struct ibv_sge two[2] = {{.addr = (uintptr_t)buf, .length = 8, .lkey = mr->lkey},
                                 {.addr = (uintptr_t)buf + 8, .length = 8, .lkey = mr->lkey}};
        struct ibv_send_wr w = {.wr_id = 10, .sg_list = two, .num_sge = dev_attr.max_sge + 1, .opcode = IBV_WR_SEND};
        bad = NULL;
        EXPECT_RET("post-send-too-many-sge", ibv_post_send(qp, &w, &bad), EINVAL);
        check(bad == &w, "post-send-too-many-sge-bad-wr", "bad_wr %p, want %p", (void *)bad, (void *)&w);
        struct ibv_qp_attr qa;
        struct ibv_qp_init_attr qia;
        ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia);
        w = send_wr(11, qia.cap.max_inline_data + 1);
        w.send_flags |= IBV_SEND_INLINE;
        bad = NULL;
        EXPECT_RET("post-send-inline-too-long", ibv_post_send(qp, &w, &bad), EINVAL);
        w = send_wr(12, 16);
        w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        w.wr.atomic.remote_addr = 0x1000, w.wr.atomic.rkey = 1, w.wr.atomic.compare_add = 1;
        bad = NULL;
        EXPECT_RET("post-atomic-length-not-8", ibv_post_send(qp, &w, &bad), EINVAL);
        w = send_wr(13, 16);
        w.opcode = (enum ibv_wr_opcode)99;
        bad = NULL;
        EXPECT_RET("post-send-bogus-opcode", ibv_post_send(qp, &w, &bad), EINVAL);
    }
    /* the refused WRs left nothing behind: no completion appears for them */
    {
        struct ibv_wc wc[4];
        int got = poll_n(wc, 4, 0.2);
        check(got == 0, "refused-wrs-complete-nothing", "%d completions appeared (first wr_id %llu)", got,
              got > 0 ? (unsigned long long)wc[0].wr_id : 0ull);
    }
    /* a chain longer than the SQ: the excess is refused with ENOMEM at the first WR that does not
     * fit, the earlier ones are posted; sent to a peer that does not exist, the first fails with
     * RETRY_EXC_ERR (retry_cnt 0), the QP goes to ERR and the rest flush (IB vol. 1 10.8.3). */
    {
        struct ibv_qp_attr qa;
        struct ibv_qp_init_attr qia;
        ibv_query_qp(qp, &qa, IBV_QP_CAP, &qia);
        uint32_t depth = qia.cap.max_send_wr, total = depth + 1;
        struct ibv_send_wr *w = calloc(total, sizeof *w);
        struct ibv_sge *s = calloc(total, sizeof *s);
        for (uint32_t i = 0; i < total; i++) {
            s[i] = (struct ibv_sge){.addr = (uintptr_t)buf + 64 * i, .length = 64, .lkey = mr->lkey};
            w[i] = (struct ibv_send_wr){.wr_id = 100 + i, .sg_list = &s[i], .num_sge = 1, .opcode = IBV_WR_SEND,
                                        .send_flags = IBV_SEND_SIGNALED, .next = i + 1 < total ? &w[i + 1] : NULL};
        }
        bad = NULL;
        EXPECT_RET("post-send-sq-overflow", ibv_post_send(qp, w, &bad), ENOMEM);
        check(bad == &w[depth], "post-send-sq-overflow-bad-wr", "bad_wr is WR %ld, want %u (the first that does not fit)",
              bad ? (long)(bad - w) : -1L, depth);
        struct ibv_wc *wc = calloc(depth + 2, sizeof *wc);
        /* + the receive posted in INIT, flushed when the QP enters ERR */
        int got = poll_n(wc, (int)depth + 1, 30.0);
        int retry = 0, flush = 0, other = 0, recv_flush = 0;
        for (int i = 0; i < got; i++) {
            if (wc[i].opcode & IBV_WC_RECV) recv_flush += wc[i].status == IBV_WC_WR_FLUSH_ERR;
            else if (wc[i].status == IBV_WC_RETRY_EXC_ERR && wc[i].wr_id == 100) retry++;
            else if (wc[i].status == IBV_WC_WR_FLUSH_ERR) flush++;
            else other++;
        }
        check(got == (int)depth + 1 && retry == 1 && flush == (int)depth - 1 && recv_flush == 1 && !other,
              "retry-exhausted-then-flush",
              "%d completions in 30 s (want %u): %d RETRY_EXC_ERR on the first, %d flushed sends (want %u), "
              "%d flushed receives (want 1), %d other (first status %s)", got, depth + 1, retry, flush, depth - 1,
              recv_flush, other, got > 0 ? ibv_wc_status_str(wc[0].status) : "-");
        check(qp_state(qp) == IBV_QPS_ERR, "qp-in-err-after-error", "state %d", qp_state(qp));
        /* posting to a QP in ERR is allowed and completes with a flush error (IB vol. 1 10.3.1) */
        struct ibv_send_wr e = send_wr(500, 8);
        bad = NULL;
        EXPECT_RET("post-send-in-err", ibv_post_send(qp, &e, &bad), 0);
        got = poll_n(wc, 1, 10.0);
        check(got == 1 && wc[0].wr_id == 500 && wc[0].status == IBV_WC_WR_FLUSH_ERR, "post-send-in-err-flushes",
              "%d completions, status %s", got, got ? ibv_wc_status_str(wc[0].status) : "-");
        free(wc);
        free(w);
        free(s);
    }

    struct ibv_qp *q2_keep = NULL, *q3_keep = NULL;
    /* a send whose buffer runs past the end of its MR (a bad length): the same Local
     * Protection Error */
    {
        struct ibv_qp *q3 = make_qp(4, 4);
        if (q3 && !to_init(q3) && !to_rtr(q3) && !to_rts(q3)) {
            struct ibv_send_wr w = send_wr(700, 64);
            w.sg_list->addr = (uintptr_t)buf + BUF - 32; /* 32 bytes inside, 32 beyond */
            bad = NULL;
            int r = ibv_post_send(q3, &w, &bad);
            struct ibv_wc wc;
            int got = r ? 0 : poll_n(&wc, 1, 20.0);
            check(r == 0 && got == 1 && wc.status == IBV_WC_LOC_PROT_ERR, "send-beyond-mr-loc-prot-err",
                  "post returned %d; %d completion(s), status %s", r, got, got ? ibv_wc_status_str(wc.status) : "-");
            q3_keep = q3;
        } else {
            check(false, "send-beyond-mr-loc-prot-err", "could not bring a QP to RTS: %s", strerror(errno));
        }
    }
    /* a send whose lkey names no MR: completes with a Local Protection Error (IB vol. 1 10.8.3,
     * "the locally posted WR's buffers are not valid"), as rxe and mlx5 report it; not an
     * immediate error of ibv_post_send, and nothing may go on the wire */
    {
        struct ibv_qp *q2 = make_qp(4, 4);
        if (q2 && !to_init(q2) && !to_rtr(q2) && !to_rts(q2)) {
            struct ibv_send_wr w = send_wr(600, 64);
            w.sg_list->lkey = mr->lkey ^ 0x00abcd00;
            bad = NULL;
            int r = ibv_post_send(q2, &w, &bad);
            struct ibv_wc wc;
            int got = r ? 0 : poll_n(&wc, 1, 20.0);
            check(r == 0 && got == 1 && wc.status == IBV_WC_LOC_PROT_ERR, "send-bad-lkey-loc-prot-err",
                  "post returned %d; %d completion(s), status %s", r, got, got ? ibv_wc_status_str(wc.status) : "-");
            q2_keep = q2; /* destroyed after the async-event check below */
        } else {
            check(false, "send-bad-lkey-loc-prot-err", "could not bring a second QP to RTS: %s", strerror(errno));
        }
    }

    /* Errors a completion already reported raise no asynchronous event (IB vol. 1 11.6.3: the
     * affiliated "catastrophic" events are for errors that cannot be reported through a CQ;
     * mlx5 and rxe behave so). Any event found is acknowledged, or ibv_destroy_qp would wait
     * for it forever (ibv_destroy_qp(3)). */
    {
        int fl = fcntl(ctx->async_fd, F_GETFL);
        fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
        struct ibv_async_event ev;
        int nev = 0;
        char names[256] = "";
        /* events come from the provider's event thread: collect until 0.5 s pass without one */
        struct pollfd pfd = {.fd = ctx->async_fd, .events = POLLIN};
        while (nev < 16 && poll(&pfd, 1, 500) == 1 && ibv_get_async_event(ctx, &ev) == 0) {
            nev++;
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", ibv_event_type_str(ev.event_type));
            ibv_ack_async_event(&ev);
        }
        fcntl(ctx->async_fd, F_SETFL, fl);
        check(nev == 0, "no-async-event-for-completion-errors", "%d async event(s): %s", nev, names);
    }

    /* ---- destroying objects still in use (ibv_dealloc_pd(3), ibv_destroy_cq(3): EBUSY) */
    if (q2_keep) EXPECT_RET("destroy-qp-after-error", ibv_destroy_qp(q2_keep), 0);
    if (q3_keep) EXPECT_RET("destroy-qp-after-length-error", ibv_destroy_qp(q3_keep), 0);
    /* (if one of these succeeds the object is gone while still referenced: nothing after it
     * is meaningful, so the test stops there) */
    int r = ibv_dealloc_pd(pd);
    if (!check(r == EBUSY, "dealloc-pd-in-use", "returned %d (%s), want EBUSY: the PD still has an MR and a QP", r,
               r ? strerror(r) : "success") && r == 0)
        return 1;
    r = ibv_destroy_cq(cq);
    if (!check(r == EBUSY, "destroy-cq-in-use", "returned %d (%s), want EBUSY: a QP still uses the CQ", r,
               r ? strerror(r) : "success") && r == 0)
        return 1;
    EXPECT_RET("destroy-qp", ibv_destroy_qp(qp), 0);
    EXPECT_RET("dereg-mr", ibv_dereg_mr(mr), 0);

    /* ---- after all that, a fresh MR and QP still work through every state */
    mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
    qp = make_qp(4, 4);
    check(mr && qp && !to_init(qp) && !to_rtr(qp) && !to_rts(qp) && qp_state(qp) == IBV_QPS_RTS, "still-works",
          "a fresh QP could not reach RTS: %s", strerror(errno));
    if (qp) ibv_destroy_qp(qp);
    if (mr) ibv_dereg_mr(mr);
    EXPECT_RET("destroy-cq", ibv_destroy_cq(cq), 0);
    EXPECT_RET("dealloc-pd", ibv_dealloc_pd(pd), 0);
    EXPECT_RET("close-device", ibv_close_device(ctx), 0);
    ibv_free_device_list(list);
    free(buf);
    return check_failures ? 1 : 0;
}
