/* verbs_errors.c — the provider's argument checks through libibverbs, on a real (simulated)
 * device with no wire: every bad call must fail with the errno the man pages document, and
 * leave the device usable. Run under host-driver/hlsnic-run. One PASS/FAIL line per check. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;
static void check(const char *name, int ok, const char *detail) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, detail); failed = 1; }
}
#define CHECK(name, cond) check(name, (cond), #cond)

int main(void) {
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list || n < 1) { printf("FAIL open device: no hlsnic device found\n"); return 1; }
    struct ibv_context *ctx = ibv_open_device(list[0]);
    if (!ctx) { printf("FAIL open device: %s\n", strerror(errno)); return 1; }
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    static char buf[8192] __attribute__((aligned(4096)));

    struct ibv_mr *mr = ibv_reg_mr_iova(pd, buf, sizeof buf, (uintptr_t)buf + 4096, IBV_ACCESS_LOCAL_WRITE);
    CHECK("reg_mr iova != addr is EINVAL", !mr && errno == EINVAL);
    mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_REMOTE_WRITE);
    CHECK("reg_mr REMOTE_WRITE without LOCAL_WRITE is EINVAL", !mr && errno == EINVAL);
    mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
    CHECK("reg_mr MW_BIND is EINVAL", !mr && errno == EINVAL);
    mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
    CHECK("reg_mr good", mr && mr->lkey == mr->rkey);

    struct ibv_cq *cq = ibv_create_cq(ctx, 0, NULL, NULL, 0);
    CHECK("create_cq cqe 0 is EINVAL", !cq && errno == EINVAL);
    cq = ibv_create_cq(ctx, 1 << 20, NULL, NULL, 0);
    CHECK("create_cq above max_cqe is EINVAL", !cq && errno == EINVAL);
    cq = ibv_create_cq(ctx, 16, NULL, NULL, 1);
    CHECK("create_cq comp_vector 1 is EINVAL", !cq && errno == EINVAL);
    cq = ibv_create_cq(ctx, 10, NULL, NULL, 0);
    CHECK("create_cq good, cqe rounded up", cq && cq->cqe == 16);
    CHECK("req_notify_cq without a channel is EINVAL", cq && ibv_req_notify_cq(cq, 0) == EINVAL);
    struct ibv_wc wc;
    CHECK("poll_cq of an empty CQ is 0", cq && ibv_poll_cq(cq, 1, &wc) == 0);

    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp_init_attr bad = ia;
    bad.qp_type = IBV_QPT_UD;
    CHECK("create_qp UD is ENOSYS", !ibv_create_qp(pd, &bad) && errno == ENOSYS);
    bad = ia;
    bad.cap.max_send_sge = 2;
    CHECK("create_qp max_send_sge 2 is EINVAL", !ibv_create_qp(pd, &bad) && errno == EINVAL);
    bad = ia;
    bad.cap.max_inline_data = 513;
    CHECK("create_qp max_inline_data 513 is EINVAL", !ibv_create_qp(pd, &bad) && errno == EINVAL);
    bad = ia;
    bad.send_cq = NULL;
    CHECK("create_qp without send_cq is EINVAL", !ibv_create_qp(pd, &bad) && errno == EINVAL);

    struct ibv_qp *qp[17];
    int made = 0;
    for (int i = 0; i < 17; i++) {
        qp[i] = ibv_create_qp(pd, &ia);
        if (qp[i]) made++;
        else if (i < 16) break;
    }
    CHECK("16 QPs per function, the 17th is ENOMEM", made == 16 && !qp[16] && errno == ENOMEM);
    CHECK("create_qp returns the real caps", made && ia.cap.max_send_wr == 8 && ia.cap.max_inline_data == 512);
    int distinct = 1;
    for (int i = 0; i < made; i++)
        for (int j = 0; j < i; j++) distinct &= qp[i]->qp_num != qp[j]->qp_num;
    CHECK("QP numbers distinct and not 0/1", distinct && qp[0]->qp_num > 1);
    CHECK("destroy_cq with QPs is EBUSY", ibv_destroy_cq(cq) == EBUSY);

    struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = 64, .lkey = mr ? mr->lkey : 0};
    struct ibv_send_wr swr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED}, *bad_s;
    struct ibv_recv_wr rwr = {.wr_id = 2, .sg_list = &sge, .num_sge = 1}, *bad_r;
    CHECK("post_send in RESET is EINVAL with bad_wr", ibv_post_send(qp[0], &swr, &bad_s) == EINVAL && bad_s == &swr);
    CHECK("post_recv in RESET is EINVAL", ibv_post_recv(qp[0], &rwr, &bad_r) == EINVAL && bad_r == &rwr);

    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
    CHECK("modify RESET->INIT without PORT is EINVAL (NIC)",
          ibv_modify_qp(qp[0], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS) == EINVAL);
    CHECK("modify RESET->RTS is EINVAL", ibv_modify_qp(qp[0], &(struct ibv_qp_attr){.qp_state = IBV_QPS_RTS}, IBV_QP_STATE) == EINVAL);
    CHECK("modify RESET->INIT good",
          ibv_modify_qp(qp[0], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0);
    struct ibv_qp_attr q;
    struct ibv_qp_init_attr qi;
    CHECK("query_qp shows INIT and the access flags",
          ibv_query_qp(qp[0], &q, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_CAP, &qi) == 0 && q.qp_state == IBV_QPS_INIT &&
              q.qp_access_flags == IBV_ACCESS_REMOTE_WRITE && qi.cap.max_inline_data == 512 && q.port_num == 1);
    CHECK("post_send in INIT is EINVAL", ibv_post_send(qp[0], &swr, &bad_s) == EINVAL);
    struct ibv_sge two[2] = {sge, sge};
    rwr.sg_list = two;
    rwr.num_sge = 2;
    CHECK("post_recv with 2 SGEs is EINVAL", ibv_post_recv(qp[0], &rwr, &bad_r) == EINVAL && bad_r == &rwr);
    rwr.sg_list = &sge;
    rwr.num_sge = 1;
    struct ibv_recv_wr chain[9];
    for (int i = 0; i < 9; i++) chain[i] = (struct ibv_recv_wr){.wr_id = 10 + i, .sg_list = &sge, .num_sge = 1, .next = i < 8 ? &chain[i + 1] : NULL};
    CHECK("post_recv 9 WRs on an 8-entry RQ: 8 posted, the 9th ENOMEM",
          ibv_post_recv(qp[0], chain, &bad_r) == ENOMEM && bad_r == &chain[8]);
    CHECK("modify to ERR", ibv_modify_qp(qp[0], &(struct ibv_qp_attr){.qp_state = IBV_QPS_ERR}, IBV_QP_STATE) == 0);
    /* In ERR the NIC flushes the 8 posted receives with WR_FLUSH_ERR (polled by owner bit). */
    int flushed = 0;
    for (int tries = 0; tries < 200000 && flushed < 8; tries++) {
        int k = ibv_poll_cq(cq, 1, &wc);
        if (k == 1 && wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == (uint64_t)(10 + flushed) && wc.qp_num == qp[0]->qp_num) flushed++;
        else if (k != 0) break;
    }
    CHECK("8 receives flushed in order with WR_FLUSH_ERR after ->ERR", flushed == 8);

    int destroyed = 1;
    for (int i = 0; i < made; i++) destroyed &= ibv_destroy_qp(qp[i]) == 0;
    CHECK("destroy 16 QPs", destroyed);
    CHECK("destroy_cq after its QPs", ibv_destroy_cq(cq) == 0);
    CHECK("dereg_mr", mr && ibv_dereg_mr(mr) == 0);
    struct ibv_mr *mrs[65];
    int nm = 0;
    for (int i = 0; i < 65; i++) {
        mrs[i] = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE);
        if (mrs[i]) nm++;
        else break;
    }
    CHECK("64 MRs per function, the 65th is ENOMEM", nm == 64 && errno == ENOMEM);
    for (int i = 0; i < nm; i++) ibv_dereg_mr(mrs[i]);
    ibv_dealloc_pd(pd);
    CHECK("close device", ibv_close_device(ctx) == 0);
    ibv_free_device_list(list);
    return failed;
}
