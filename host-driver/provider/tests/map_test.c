/* map_test.c — unit tests of provider/map.c: verbs attributes and work requests to the NIC's
 * commands and WQEs, CQEs to work completions, address parsing. One PASS/FAIL line per
 * named check; exit status 1 when any failed. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "map.h"

static int failed;
static const char *cur;
static int cur_bad;
static char cur_why[256];

static void begin(const char *name) { cur = name; cur_bad = 0; }
static void end(void) {
    if (cur_bad) { printf("FAIL %s: %s\n", cur, cur_why); failed = 1; }
    else printf("PASS %s\n", cur);
}
#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond) && !cur_bad) {                                                       \
            cur_bad = 1;                                                                 \
            snprintf(cur_why, sizeof cur_why, "line %d: %s", __LINE__, #cond);           \
        }                                                                                \
    } while (0)

static int resolve_default(void *arg, uint32_t ip, uint64_t *mac) {
    (void)arg;
    *mac = hlsnic_mac_of_ip(ip);
    return 0;
}
static int resolve_none(void *arg, uint32_t ip, uint64_t *mac) {
    (void)arg; (void)ip; (void)mac;
    return ENOENT;
}

static hlsnic_qp_shadow_t shadow(int state) {
    hlsnic_qp_shadow_t s;
    memset(&s, 0, sizeof s);
    s.state = (uint8_t)state;
    s.qpn = 0x11;
    return s;
}

/* What ibv_rc_pingpong / perftest pass on each transition. */
static int to_init(hlsnic_qp_shadow_t *s, int drop, nic_cmd_t *c, const char **why) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
    int m = (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) & ~drop;
    return hlsnic_map_modify_qp(&a, m, s, IBV_MTU_1024, resolve_default, NULL, c, why);
}
static struct ibv_qp_attr rtr_attr(void) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = 0x12,
                            .rq_psn = 0x123456, .max_dest_rd_atomic = 1, .min_rnr_timer = 12};
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.hop_limit = 1;
    a.ah_attr.grh.sgid_index = 0;
    hlsnic_ipv4_gid(0x0a000002, &a.ah_attr.grh.dgid);
    return a;
}
#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
                  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | \
                  IBV_QP_MAX_QP_RD_ATOMIC)

static void test_modify(void) {
    nic_cmd_t c;
    const char *why = NULL;
    hlsnic_qp_shadow_t s = shadow(IBV_QPS_RESET);

    begin("modify RESET->INIT maps state, access, pkey index, port");
    EXPECT(to_init(&s, 0, &c, &why) == 0);
    EXPECT(c.op == NIC_CMD_MODIFY_QP && c.num == 0x11);
    EXPECT(c.mask == (NIC_QPA_STATE | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT | NIC_QPA_ACCESS));
    EXPECT(c.qp.state == NIC_QPS_INIT && c.qp.port_num == 1 && c.qp.pkey_index == 0);
    EXPECT(c.qp.access == (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ));
    /* a missing PORT is the NIC's to refuse (ctrl's transition table): passed as asked */
    EXPECT(to_init(&s, IBV_QP_PORT, &c, &why) == 0 && c.mask == (NIC_QPA_STATE | NIC_QPA_PKEY_INDEX | NIC_QPA_ACCESS));
    end();

    begin("modify refusals by the driver: QKEY, ALT_PATH, CAP, RATE_LIMIT, state 7, cur_state 9, MW_BIND access");
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    int m0 = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    why = NULL;
    EXPECT(hlsnic_map_modify_qp(&a, m0 | IBV_QP_QKEY, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    EXPECT(why && strstr(why, "IBV_QP_QKEY"));
    EXPECT(hlsnic_map_modify_qp(&a, m0 | IBV_QP_ALT_PATH, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    EXPECT(hlsnic_map_modify_qp(&a, m0 | IBV_QP_CAP, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    EXPECT(hlsnic_map_modify_qp(&a, m0 | IBV_QP_RATE_LIMIT, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    a.qp_state = (enum ibv_qp_state)7;
    EXPECT(hlsnic_map_modify_qp(&a, IBV_QP_STATE, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    a.qp_state = IBV_QPS_ERR;
    a.cur_qp_state = (enum ibv_qp_state)9;
    EXPECT(hlsnic_map_modify_qp(&a, IBV_QP_STATE | IBV_QP_CUR_STATE, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    a.cur_qp_state = IBV_QPS_RESET;
    EXPECT(hlsnic_map_modify_qp(&a, IBV_QP_STATE | IBV_QP_CUR_STATE, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == (NIC_QPA_STATE | NIC_QPA_CUR_STATE) && c.qp.cur_state == NIC_QPS_RESET);
    a.qp_access_flags = IBV_ACCESS_MW_BIND;
    hlsnic_qp_shadow_t si = shadow(IBV_QPS_INIT);
    a.qp_state = IBV_QPS_INIT;
    EXPECT(hlsnic_map_modify_qp(&a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, &si, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    end();

    begin("modify: EN_SQD_ASYNC_NOTIFY only RTS->SQD, PATH_MIG_STATE only MIGRATED where allowed");
    hlsnic_qp_shadow_t sr = shadow(IBV_QPS_RTS);
    struct ibv_qp_attr e = {.qp_state = IBV_QPS_ERR, .en_sqd_async_notify = 1, .path_mig_state = IBV_MIG_MIGRATED};
    EXPECT(hlsnic_map_modify_qp(&e, IBV_QP_STATE, &sr, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == NIC_QPA_STATE && c.qp.state == NIC_QPS_ERR);
    EXPECT(hlsnic_map_modify_qp(&e, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY, &sr, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    EXPECT(hlsnic_map_modify_qp(&e, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, &sr, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    e.qp_state = IBV_QPS_RTS;
    EXPECT(hlsnic_map_modify_qp(&e, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, &sr, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == NIC_QPA_STATE); /* dropped: the NIC has no alternate path */
    e.path_mig_state = IBV_MIG_ARMED;
    EXPECT(hlsnic_map_modify_qp(&e, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, &sr, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    struct ibv_qp_attr d = {.qp_state = IBV_QPS_SQD, .en_sqd_async_notify = 1};
    EXPECT(hlsnic_map_modify_qp(&d, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY, &sr, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == NIC_QPA_STATE && c.qp.state == NIC_QPS_SQD && sr.en_sqd_async_notify == 1);
    end();

    begin("modify INIT->RTR: AV to IP/MAC/UDP port, PSN, MTU, dest QPN, rd_atomic passed");
    s = shadow(IBV_QPS_INIT);
    struct ibv_qp_attr r = rtr_attr();
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == (NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
                      NIC_QPA_MIN_RNR_TIMER | NIC_QPA_MAX_DEST_RD_ATOMIC));
    EXPECT(c.qp.state == NIC_QPS_RTR);
    EXPECT(c.qp.dst_ip == 0x0a000002);
    EXPECT(c.qp.dst_mac == 0x02000a000002ull);
    EXPECT(c.qp.pmtu == IBV_MTU_1024);
    EXPECT(c.qp.dest_qpn == 0x12 && c.qp.rq_psn == 0x123456 && c.qp.min_rnr_timer == 12);
    EXPECT(c.qp.max_dest_rd_atomic == 1);
    /* rdma_calc_flow_label(0x11, 0x12) = 0x132 -> 0xc000 | 0x132 */
    EXPECT(c.qp.udp_sport == 0xc132);
    EXPECT(s.dest_qpn == 0x12 && s.hop_limit == 1);
    end();

    begin("modify INIT->RTR refusals: no GRH, sgid_index 1, IPv6 GID, MTU above port, no neighbour");
    s = shadow(IBV_QPS_INIT);
    r = rtr_attr();
    r.ah_attr.is_global = 0;
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    r = rtr_attr();
    r.ah_attr.grh.sgid_index = 1;
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    r = rtr_attr();
    r.ah_attr.grh.dgid.raw[0] = 0xfe;
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    r = rtr_attr();
    r.path_mtu = IBV_MTU_4096;
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_4096, resolve_default, NULL, &c, &why) == 0);
    s = shadow(IBV_QPS_INIT);
    r = rtr_attr();
    EXPECT(hlsnic_map_modify_qp(&r, RTR_MASK, &s, IBV_MTU_1024, resolve_none, NULL, &c, &why) == EHOSTUNREACH);
    EXPECT(s.dest_qpn == 0); /* a refused modify changes nothing */
    end();

    begin("modify RTR->RTS maps timeout/retry/psn/max_rd_atomic; range checks");
    s = shadow(IBV_QPS_RTR);
    struct ibv_qp_attr t = {.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
                            .sq_psn = 0xabcdef, .max_rd_atomic = 16};
    EXPECT(hlsnic_map_modify_qp(&t, RTS_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == (NIC_QPA_STATE | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY | NIC_QPA_SQ_PSN |
                      NIC_QPA_MAX_QP_RD_ATOMIC));
    EXPECT(c.qp.timeout == 14 && c.qp.retry_cnt == 7 && c.qp.rnr_retry == 7 && c.qp.sq_psn == 0xabcdef);
    EXPECT(c.qp.max_rd_atomic == 16);
    t.retry_cnt = 8;
    EXPECT(hlsnic_map_modify_qp(&t, RTS_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    t.retry_cnt = 7;
    t.sq_psn = 0x1000000;
    EXPECT(hlsnic_map_modify_qp(&t, RTS_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    t.sq_psn = 1;
    t.timeout = 32;
    EXPECT(hlsnic_map_modify_qp(&t, RTS_MASK, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == EINVAL);
    end();

    begin("modify RTS->RTS without STATE keeps the state");
    s = shadow(IBV_QPS_RTS);
    struct ibv_qp_attr m = {.min_rnr_timer = 3};
    EXPECT(hlsnic_map_modify_qp(&m, IBV_QP_MIN_RNR_TIMER, &s, IBV_MTU_1024, resolve_default, NULL, &c, &why) == 0);
    EXPECT(c.mask == NIC_QPA_MIN_RNR_TIMER && c.qp.state == NIC_QPS_RTS && c.qp.min_rnr_timer == 3);
    end();
}

static void test_access(void) {
    uint8_t a;
    const char *why;
    begin("mr access flags: valid sets, LOCAL_WRITE rule, unsupported flags, optional range ignored");
    EXPECT(hlsnic_map_mr_access(0, &a, &why) == 0 && a == 0);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                    IBV_ACCESS_REMOTE_ATOMIC, &a, &why) == 0 && a == 0xf);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_REMOTE_READ, &a, &why) == 0 && a == NIC_ACC_REMOTE_READ);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_REMOTE_WRITE, &a, &why) == EINVAL);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_REMOTE_ATOMIC, &a, &why) == EINVAL);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND, &a, &why) == EINVAL);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_ZERO_BASED, &a, &why) == EINVAL);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_ON_DEMAND, &a, &why) == EINVAL);
    EXPECT(hlsnic_map_mr_access(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING, &a, &why) == 0 && a == 1);
    EXPECT(hlsnic_map_mr_access(1 << 15, &a, &why) == EINVAL);
    end();
}

static void test_send_wr(void) {
    nic_sq_wqe_t w;
    const char *why;
    uint64_t buf = 0;
    struct ibv_sge sge = {.addr = (uintptr_t)&buf, .length = 8, .lkey = 0x1234};
    struct ibv_send_wr wr;

    begin("send wr: SEND_WITH_IMM, imm network order -> host order, flags");
    memset(&wr, 0, sizeof wr);
    wr.wr_id = 77;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
    wr.imm_data = htonl(0x01020304);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0);
    EXPECT(w.wr_id == 77 && w.opcode == NIC_WR_SEND_IMM && w.imm == 0x01020304);
    EXPECT(w.flags == (NIC_WQE_SIGNALED | NIC_WQE_SOLICITED));
    EXPECT(w.local_addr == (uintptr_t)&buf && w.length == 8 && w.lkey == 0x1234);
    end();

    begin("send wr: WRITE/READ remote address and key; unsignaled unless sq_sig_all");
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = 0;
    wr.wr.rdma.remote_addr = 0x1000;
    wr.wr.rdma.rkey = 0x4200;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0);
    EXPECT(w.opcode == NIC_WR_WRITE && w.remote_addr == 0x1000 && w.rkey == 0x4200 && w.flags == 0 && w.imm == 0);
    EXPECT(hlsnic_map_send_wr(&wr, 1, 512, &w, &why) == 0 && w.flags == NIC_WQE_SIGNALED);
    wr.opcode = IBV_WR_RDMA_READ;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0 && w.opcode == NIC_WR_READ && w.rkey == 0x4200);
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.imm_data = htonl(5);
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0 && w.opcode == NIC_WR_WRITE_IMM && w.imm == 5);
    end();

    begin("send wr: atomics CAS compare/swap and FAA add, 8-byte buffer required");
    wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    wr.wr.atomic.remote_addr = 0x2000;
    wr.wr.atomic.rkey = 0x99;
    wr.wr.atomic.compare_add = 11;
    wr.wr.atomic.swap = 22;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0);
    EXPECT(w.opcode == NIC_WR_CAS && w.remote_addr == 0x2000 && w.rkey == 0x99 && w.compare == 11 && w.swap_add == 22);
    wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0 && w.opcode == NIC_WR_FAA && w.swap_add == 11);
    sge.length = 4;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    sge.length = 8;
    end();

    begin("send wr refusals: 2 SGEs, unsupported opcodes, FENCE, inline too long, inline READ");
    struct ibv_sge two[2] = {sge, sge};
    wr.opcode = IBV_WR_SEND;
    wr.sg_list = two;
    wr.num_sge = 2;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_LOCAL_INV;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    wr.opcode = IBV_WR_SEND_WITH_INV;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    wr.opcode = IBV_WR_BIND_MW;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_FENCE;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    wr.send_flags = IBV_SEND_INLINE;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 4, &w, &why) == EINVAL);
    EXPECT(hlsnic_map_send_wr(&wr, 0, 8, &w, &why) == 0 && w.length == 8 && w.local_addr == 0);
    wr.opcode = IBV_WR_RDMA_READ;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == EINVAL);
    end();

    begin("send wr: zero-length SEND with no SGE");
    memset(&wr, 0, sizeof wr);
    wr.opcode = IBV_WR_SEND;
    EXPECT(hlsnic_map_send_wr(&wr, 0, 512, &w, &why) == 0 && w.length == 0 && w.local_addr == 0);
    end();

    begin("recv wr: one SGE maps, two is EINVAL");
    nic_rq_wqe_t rw;
    struct ibv_recv_wr rr = {.wr_id = 9, .sg_list = &sge, .num_sge = 1};
    EXPECT(hlsnic_map_recv_wr(&rr, &rw, &why) == 0 && rw.wr_id == 9 && rw.addr == sge.addr && rw.length == 8 && rw.lkey == 0x1234);
    rr.sg_list = two;
    rr.num_sge = 2;
    EXPECT(hlsnic_map_recv_wr(&rr, &rw, &why) == EINVAL);
    end();
}

static void test_cqe(void) {
    begin("cqe -> wc: status, opcode, imm in network order, qp numbers");
    nic_cqe_t c = {.wr_id = 5, .byte_len = 100, .imm = 0xa1b2c3d4, .qpn = 0x1000011, .opcode = NIC_WC_RECV_RDMA_WITH_IMM,
                   .status = NIC_WC_SUCCESS, .flags = NIC_CQE_WITH_IMM, .owner = NIC_CQE_OWNER};
    struct ibv_wc wc;
    hlsnic_map_cqe(&c, 0x12, &wc);
    EXPECT(wc.wr_id == 5 && wc.byte_len == 100 && wc.status == IBV_WC_SUCCESS);
    EXPECT(wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM));
    EXPECT(wc.imm_data == htonl(0xa1b2c3d4));
    EXPECT(wc.qp_num == 0x11 && wc.src_qp == 0x12);
    c.flags = 0;
    c.status = NIC_WC_RETRY_EXC_ERR;
    c.opcode = NIC_WC_RDMA_READ;
    hlsnic_map_cqe(&c, 0, &wc);
    EXPECT(wc.status == IBV_WC_RETRY_EXC_ERR && !(wc.wc_flags & IBV_WC_WITH_IMM) && wc.imm_data == 0);
    EXPECT(NIC_WC_REM_ACCESS_ERR == IBV_WC_REM_ACCESS_ERR && NIC_WC_RNR_RETRY_EXC_ERR == IBV_WC_RNR_RETRY_EXC_ERR &&
           NIC_WC_FETCH_ADD == IBV_WC_FETCH_ADD && NIC_WC_RECV == IBV_WC_RECV);
    end();
}

static void test_misc(void) {
    begin("ring sizes: power of two holding the request, bounded by the device");
    EXPECT(hlsnic_ring_log(0, 15) == 0 && hlsnic_ring_log(1, 15) == 0 && hlsnic_ring_log(2, 15) == 1);
    EXPECT(hlsnic_ring_log(3, 15) == 2 && hlsnic_ring_log(128, 15) == 7 && hlsnic_ring_log(129, 15) == 8);
    EXPECT(hlsnic_ring_log(32768, 15) == 15 && hlsnic_ring_log(32769, 15) == -1);
    end();

    begin("MAC parsing: unicast six hex bytes only");
    uint64_t m;
    EXPECT(hlsnic_parse_mac("02:00:0a:00:00:01", &m) == 0 && m == 0x02000a000001ull);
    EXPECT(hlsnic_parse_mac("52:54:00:AB:cd:EF", &m) == 0 && m == 0x525400abcdefull);
    EXPECT(hlsnic_parse_mac("01:00:5e:00:00:01", &m) == EINVAL);
    EXPECT(hlsnic_parse_mac("00:00:00:00:00:00", &m) == EINVAL);
    EXPECT(hlsnic_parse_mac("02:00:0a:00:00", &m) == EINVAL);
    EXPECT(hlsnic_parse_mac("02:00:0a:00:00:01x", &m) == EINVAL);
    EXPECT(hlsnic_mac_of_ip(0x0a000001) == 0x02000a000001ull);
    end();

    begin("neighbour list: lookup, not listed, malformed");
    const char *why = NULL;
    EXPECT(hlsnic_neigh_lookup("10.0.0.2=52:54:00:12:34:56,10.0.0.3=02:00:0a:00:00:03", 0x0a000003, &m, &why) == 0 &&
           m == 0x02000a000003ull);
    EXPECT(hlsnic_neigh_lookup("10.0.0.2=52:54:00:12:34:56", 0x0a000002, &m, &why) == 0 && m == 0x525400123456ull);
    EXPECT(hlsnic_neigh_lookup("10.0.0.2=52:54:00:12:34:56", 0x0a000009, &m, &why) == ENOENT);
    EXPECT(hlsnic_neigh_lookup(NULL, 0x0a000009, &m, &why) == ENOENT);
    why = NULL;
    EXPECT(hlsnic_neigh_lookup("10.0.0.2", 0x0a000002, &m, &why) == EINVAL && why);
    EXPECT(hlsnic_neigh_lookup("10.0.0=52:54:00:12:34:56", 1, &m, &why) == EINVAL);
    EXPECT(hlsnic_neigh_lookup("10.0.0.2=52:54:00:12:34", 1, &m, &why) == EINVAL);
    end();

    begin("GID text: IPv4-mapped accepted, link-local refused");
    uint32_t ip;
    EXPECT(hlsnic_gid_text_ipv4("0000:0000:0000:0000:0000:ffff:0a00:0001\n", &ip) == 0 && ip == 0x0a000001);
    EXPECT(hlsnic_gid_text_ipv4("fe80:0000:0000:0000:5054:00ff:fe12:3456", &ip) == EINVAL);
    EXPECT(hlsnic_gid_text_ipv4("0000:0000:0000:0000:0000:ffff:0a00:01", &ip) == EINVAL);
    union ibv_gid g;
    hlsnic_ipv4_gid(0xc0a80102, &g);
    EXPECT(hlsnic_gid_ipv4(&g, &ip) == 0 && ip == 0xc0a80102 && g.raw[10] == 0xff && g.raw[0] == 0);
    end();

    begin("UDP source port: flow label and QP-number hash, always 0xC000..0xFFFF");
    EXPECT(hlsnic_udp_sport(0, 0x11, 0x12) == 0xc132);
    EXPECT(hlsnic_udp_sport(0x12345, 1, 2) == (0xc000 | ((0x12345 & 0x3fff) ^ ((0x12345 & 0xfc000) >> 14))));
    int in_range = 1;
    for (uint32_t q = 1; q < 5000; q += 7) in_range &= hlsnic_udp_sport(0, q, q * 3 + 1) >= 0xc000;
    EXPECT(in_range);
    end();

    begin("device status -> errno");
    EXPECT(hlsnic_cmd_errno(NIC_CMD_OK) == 0 && hlsnic_cmd_errno(NIC_CMD_EINVAL) == EINVAL);
    EXPECT(hlsnic_cmd_errno(NIC_CMD_ESTATE) == EINVAL && hlsnic_cmd_errno(NIC_CMD_EBUSY) == EBUSY);
    EXPECT(hlsnic_cmd_errno(NIC_CMD_ENOENT) == EINVAL && hlsnic_cmd_errno(99) == EIO);
    end();
}

int main(void) {
    test_modify();
    test_access();
    test_send_wr();
    test_cqe();
    test_misc();
    return failed;
}
