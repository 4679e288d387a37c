/* ctrl_test — ctrl's host commands and QP state machine (ctrl_tb.h drives it): every
 * answer, every configuration message and the QP state machine against an independent
 * transition table (IB vol. 1 10.3, Linux qp_state_table, RC); datapath events. */
#include "ctrl_tb.h"

/* The last message on output i is a QP message for row with this state change. */
static bool last_qp_cfg(unsigned i, nic_qp_t row, unsigned prev, unsigned state, bool valid) {
    if (tb.ncfg[i] == 0) return false;
    const nic_cfg_t *m = &tb.cfg[i][(tb.ncfg[i] - 1) % LOGN];
    return m->kind == NIC_CFG_QP && m->qp == row && m->prev_state == prev && m->attr.state == state && m->valid == valid;
}

static void test_lifecycle(void) {
    tb_begin("ctrl: QP lifecycle RESET-INIT-RTR-RTS-SQD-RTS-destroy, attributes and fan-out exact");
    tb_reset(1, 30);
    CHECK(create_cq(1, 0x21, 0x40000, 8) == 0 && create_cq(1, 0x22, 0x50000, 8) == 0, "create_cq");
    nic_cmd_resp_t r = create_qp(1, 0x1235, 0x21, 0x22);
    CHECK(r.status == 0, "create_qp %u/%u", r.status, r.bad_field);
    nic_qp_t row = 16 + 5;
    nic_qp_attr_t want = {0};
    want.qpn = 0x1235; want.pd = 7; want.sq_base = 0x10000 + 0x1235 * 0x1000; want.rq_base = 0x80000 + 0x1235 * 0x800;
    want.sq_log = 6; want.rq_log = 5; want.send_cq = 16 + 1; want.recv_cq = 16 + 2;
    for (unsigned i = O_REQ; i <= O_COMP; i++) {
        CHECK(tb.ncfg[i] == 1 && last_qp_cfg(i, row, 0, 0, true), "create cfg on output %u (%u msgs)", i, tb.ncfg[i]);
        CHECK(attr_eq(&tb.cfg[i][0].attr, &want) && tb.cfg[i][0].fn == 1, "create cfg attr on output %u", i);
    }
    CHECK(tb.ncfg[O_CQW] == 2 && tb.ncfg[O_RXD] == 0, "cqw %u rxd %u", tb.ncfg[O_CQW], tb.ncfg[O_RXD]);
    r = query(1, 0x1235);
    CHECK(r.status == 0 && attr_eq(&r.qp, &want), "query after create");

    CHECK(to_state(1, 0x1235, NIC_QPS_INIT, M_INIT) == 0, "RESET->INIT");
    want.state = want.cur_state = NIC_QPS_INIT; want.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ;
    want.port_num = 1;
    CHECK(last_qp_cfg(O_COMP, row, NIC_QPS_RESET, NIC_QPS_INIT, true), "INIT cfg");
    CHECK(to_state(1, 0x1235, NIC_QPS_RTR, M_RTR) == 0, "INIT->RTR");
    want.state = want.cur_state = NIC_QPS_RTR; want.max_dest_rd_atomic = 4; want.dst_mac = 0x02aabbccddeeull; want.dst_ip = 0x0a000002; want.udp_sport = 0xC123;
    want.pmtu = 3; want.dest_qpn = 0xabc; want.rq_psn = 0x123456; want.min_rnr_timer = 12;
    CHECK(to_state(1, 0x1235, NIC_QPS_RTS, M_RTS | NIC_QPA_BACKOFF) == 0, "RTR->RTS");
    want.state = want.cur_state = NIC_QPS_RTS; want.max_rd_atomic = 16; want.sq_psn = 0xfffff0; want.timeout = 14; want.retry_cnt = 7; want.rnr_retry = 6;
    want.backoff = 1; want.backoff_first = 3; want.backoff_cap = 9;
    r = query(1, 0x1235);
    CHECK(r.status == 0 && attr_eq(&r.qp, &want), "query in RTS");
    CHECK(attr_eq(&tb.cfg[O_REQ][(tb.ncfg[O_REQ] - 1) % LOGN].attr, &want), "RTS cfg carries every attribute");
    CHECK(to_state(1, 0x1235, NIC_QPS_SQD, 0) == 0, "RTS->SQD");
    nic_cmd_t c = modify(1, 0x1235, NIC_QPS_SQD, NIC_QPA_TIMEOUT);
    c.qp.timeout = 20;
    CHECK(run(c).status == 0, "SQD->SQD timeout");
    want.timeout = 20;
    c = modify(1, 0x1235, NIC_QPS_SQD, NIC_QPA_MAX_QP_RD_ATOMIC | NIC_QPA_MAX_DEST_RD_ATOMIC);
    c.qp.max_rd_atomic = 1; c.qp.max_dest_rd_atomic = 1;
    CHECK(run(c).status == 0, "SQD->SQD rd_atomic limits");
    want.max_rd_atomic = 1; want.max_dest_rd_atomic = 1;
    c = modify(1, 0x1235, NIC_QPS_RTS, NIC_QPA_CUR_STATE);
    c.qp.cur_state = NIC_QPS_SQD;
    CHECK(run(c).status == 0, "SQD->RTS with the right cur_state");
    r = query(1, 0x1235);
    CHECK(r.status == 0 && attr_eq(&r.qp, &want), "query after SQD round trip");
    unsigned before = total_cfg();
    r = run(c_op(NIC_CMD_DESTROY_QP, 1, 0x1235));
    CHECK(r.status == 0, "destroy");
    CHECK(total_cfg() == before + 3 && last_qp_cfg(O_RESP, row, NIC_QPS_RTS, NIC_QPS_RESET, false), "destroy cfg");
    CHECK(query(1, 0x1235).status == NIC_CMD_ENOENT, "query after destroy");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 1, 0x21)).status == 0 && run(c_op(NIC_CMD_DESTROY_CQ, 1, 0x22)).status == 0,
          "CQs free after the QP is gone");
    CHECK(tb.unstable == 0, "cfg output changed while waiting (%u)", tb.unstable);
    for (unsigned i = 0; i < N_OUT; i++) CHECK(!tb.was_offered[i], "output %u still offering", i);
    tb_end();
}

/* Independent copy of the allowed RC transitions (verbs.c qp_state_table). */
static bool allowed(unsigned cur, unsigned next) {
    if (next == NIC_QPS_RESET || next == NIC_QPS_ERR) return true;
    static const unsigned ok[][2] = {{0, 1}, {1, 1}, {1, 2}, {2, 3}, {3, 3}, {3, 4}, {4, 4}, {4, 3}, {5, 3}};
    for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (ok[i][0] == cur && ok[i][1] == next) return true;
    return false;
}
static uint32_t required(unsigned cur, unsigned next) {
    if (cur == 0 && next == 1) return M_INIT;
    if (cur == 1 && next == 2) return M_RTR;
    if (cur == 2 && next == 3) return M_RTS;
    return 0;
}
static bool reach(uint32_t qpn, unsigned s) {
    static const unsigned path[] = {NIC_QPS_INIT, NIC_QPS_RTR, NIC_QPS_RTS};
    if (create_qp(0, qpn, 1, 1).status != 0) return false;
    if (s == NIC_QPS_RESET) return true;
    if (s == NIC_QPS_ERR) return to_state(0, qpn, NIC_QPS_ERR, 0) == 0;
    for (unsigned i = 0; i < 3; i++) {
        unsigned prev = i == 0 ? 0 : path[i - 1];
        if (to_state(0, qpn, path[i], required(prev, path[i])) != 0) return false;
        if (path[i] == s) return true;
    }
    if (s == NIC_QPS_SQD) return to_state(0, qpn, NIC_QPS_SQD, 0) == 0;
    if (s == NIC_QPS_SQE) {   /* only the datapath puts a QP in SQE */
        tb.ev[0] = (nic_event_t){.kind = NIC_EV_SQ_ERR, .qp = (nic_qp_t)(qpn % 16), .detail = NIC_WC_REM_ACCESS_ERR};
        tb.ev_v[0] = true;
        idle(60);
        return query(0, qpn).qp.state == NIC_QPS_SQE;
    }
    return false;
}
static void test_state_table(void) {
    tb_begin("ctrl: every (current, target) state pair against the IB/Linux RC transition table");
    tb_reset(2, 50);
    CHECK(create_cq(0, 1, 0x1000, 4) == 0, "cq");
    unsigned n = 0;
    for (unsigned cur = 0; cur <= 6; cur++)
        for (unsigned next = 0; next <= 6; next++) {
            uint32_t qpn = 0x100 + (n++ % 16) * 0x10 + 2;   /* row 2 reused: destroy below */
            CHECK(reach(qpn, cur), "cannot reach state %u", cur);
            unsigned before = total_cfg();
            nic_cmd_resp_t r = run(modify(0, qpn, next, required(cur, next)));
            uint8_t want = allowed(cur, next) ? NIC_CMD_OK : NIC_CMD_ESTATE;
            CHECK(r.status == want, "%u->%u: status %u, want %u", cur, next, r.status, want);
            CHECK(want != NIC_CMD_ESTATE || r.bad_field == NIC_CMD_F_STATE, "%u->%u: field %u", cur, next, r.bad_field);
            CHECK(total_cfg() == before + (want == NIC_CMD_OK ? 3 : 0), "%u->%u: cfg count", cur, next);
            CHECK(query(0, qpn).qp.state == (want == NIC_CMD_OK ? next : cur), "%u->%u: state after", cur, next);
            CHECK(run(c_op(NIC_CMD_DESTROY_QP, 0, qpn)).status == 0, "destroy");
        }
    tb_end();
}

static void test_attr_errors(void) {
    tb_begin("ctrl: MODIFY_QP attribute errors name the field and change nothing");
    tb_reset(3, 40);
    CHECK(create_cq(0, 3, 0x2000, 4) == 0 && create_qp(0, 0x55, 3, 3).status == 0, "setup");
    nic_cmd_resp_t r = run(modify(0, 0x55, NIC_QPS_INIT, NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX));
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_PORT, "RESET->INIT without PORT: %u/%u", r.status, r.bad_field);
    CHECK(query(0, 0x55).qp.state == NIC_QPS_RESET, "still RESET");
    CHECK(to_state(0, 0x55, NIC_QPS_INIT, M_INIT) == 0, "init");
    struct { uint32_t mask; unsigned to; int tweak; uint8_t status, field; } cases[] = {
        {M_RTR & ~NIC_QPA_PATH_MTU, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_PATH_MTU},   /* required missing */
        {M_RTR & ~NIC_QPA_AV, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_AV},
        {M_RTR | NIC_QPA_SQ_PSN, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_SQ_PSN},         /* not allowed here */
        {M_RTR | NIC_QPA_TIMEOUT, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_TIMEOUT},
        {M_RTR | (1u << 14), 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_MASK},              /* ALT_PATH: unknown */
        {M_RTR | NIC_QPA_PORT, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_PORT},             /* not on INIT->RTR */
        {M_RTR | NIC_QPA_CUR_STATE, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_CUR_STATE},   /* not on INIT->RTR */
        {M_RTR & ~NIC_QPA_MIN_RNR_TIMER, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_MIN_RNR_TIMER},
        {M_RTR & ~NIC_QPA_MAX_DEST_RD_ATOMIC, 2, 0, NIC_CMD_EINVAL, NIC_CMD_F_MAX_DEST_RD_ATOMIC},
        {M_RTR, 2, 6, NIC_CMD_EINVAL, NIC_CMD_F_MAX_DEST_RD_ATOMIC},              /* 5 > 4 */
        {M_RTR | NIC_QPA_PKEY_INDEX, 2, 7, NIC_CMD_EINVAL, NIC_CMD_F_PKEY_INDEX}, /* index 1 */
        {M_RTR | NIC_QPA_PKEY_INDEX, 2, 8, NIC_CMD_EINVAL, NIC_CMD_F_PKEY_INDEX}, /* 256: not cut to 0 */
        {NIC_QPA_PORT, 1, 9, NIC_CMD_EINVAL, NIC_CMD_F_PORT},                     /* port 2 */
        {NIC_QPA_PORT, 1, 10, NIC_CMD_EINVAL, NIC_CMD_F_PORT},                    /* port 0 */
        {M_RTR, 2, 1, NIC_CMD_EINVAL, NIC_CMD_F_PATH_MTU},                        /* pmtu 6 */
        {M_RTR, 2, 2, NIC_CMD_EINVAL, NIC_CMD_F_PATH_MTU},                        /* pmtu 0 */
        {M_RTR, 2, 3, NIC_CMD_EINVAL, NIC_CMD_F_AV},                              /* multicast MAC */
        {M_RTR, 2, 4, NIC_CMD_EINVAL, NIC_CMD_F_AV},                              /* ip 0 */
        {M_RTR, 7, 0, NIC_CMD_EINVAL, NIC_CMD_F_STATE},                           /* no state 7 */
        {M_RTS, 3, 0, NIC_CMD_ESTATE, NIC_CMD_F_STATE},                           /* INIT->RTS */
        {NIC_QPA_ACCESS, 1, 5, NIC_CMD_EINVAL, NIC_CMD_F_ACCESS},                 /* access 0x10 */
    };
    nic_qp_attr_t before = query(0, 0x55).qp;
    unsigned cfg0 = total_cfg();
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nic_cmd_t c = modify(0, 0x55, cases[i].to, cases[i].mask);
        if (cases[i].tweak == 1) c.qp.pmtu = 6;
        if (cases[i].tweak == 2) c.qp.pmtu = 0;
        if (cases[i].tweak == 3) c.qp.dst_mac = 0x01005e000001ull;
        if (cases[i].tweak == 4) c.qp.dst_ip = 0;
        if (cases[i].tweak == 5) c.qp.access = 0x10;
        if (cases[i].tweak == 6) c.qp.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC + 1;
        if (cases[i].tweak == 7) c.qp.pkey_index = 1;
        if (cases[i].tweak == 8) c.qp.pkey_index = 256;
        if (cases[i].tweak == 9) c.qp.port_num = 2;
        if (cases[i].tweak == 10) c.qp.port_num = 0;
        r = run(c);
        CHECK(r.status == cases[i].status && r.bad_field == cases[i].field, "case %u: %u/%u want %u/%u", i, r.status,
              r.bad_field, cases[i].status, cases[i].field);
    }
    nic_qp_attr_t after = query(0, 0x55).qp;
    CHECK(attr_eq(&before, &after) && total_cfg() == cfg0, "a failed MODIFY changed the QP or sent cfg");
    CHECK(to_state(0, 0x55, NIC_QPS_RTR, M_RTR) == 0, "rtr");
    cfg0 = total_cfg();
    nic_cmd_t c = modify(0, 0x55, NIC_QPS_RTS, M_RTS);
    c.qp.max_rd_atomic = NIC_MAX_RD_ATOMIC + 1;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_MAX_RD_ATOMIC, "max_rd_atomic 17: %u/%u", r.status, r.bad_field);
    c = modify(0, 0x55, NIC_QPS_RTS, M_RTS | NIC_QPA_CUR_STATE);
    c.qp.cur_state = NIC_QPS_INIT;                                              /* the QP is in RTR */
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_CUR_STATE, "wrong cur_state: %u/%u", r.status, r.bad_field);
    CHECK(query(0, 0x55).qp.state == NIC_QPS_RTR && total_cfg() == cfg0, "failed RTR->RTS changed the QP");
    c.qp.cur_state = NIC_QPS_RTR;
    CHECK(run(c).status == 0, "rts with cur_state");
    c = modify(0, 0x55, NIC_QPS_SQD, 1u << 2);                                  /* EN_SQD_ASYNC_NOTIFY */
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_MASK, "sqd async notify: %u/%u", r.status, r.bad_field);
    c = modify(0, 0x55, NIC_QPS_SQD, 0);
    CHECK(run(c).status == 0, "sqd");
    c = modify(0, 0x55, NIC_QPS_SQD, NIC_QPA_BACKOFF);
    c.qp.backoff_first = 10; c.qp.backoff_cap = 9;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_BACKOFF, "backoff first > cap: %u/%u", r.status, r.bad_field);
    c = modify(0, 0x55, NIC_QPS_RTS, NIC_QPA_TIMEOUT);                          /* SQD->RTS: no TIMEOUT */
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_TIMEOUT, "SQD->RTS timeout: %u/%u", r.status, r.bad_field);
    c = modify(0, 0x55, 0, NIC_QPA_MIN_RNR_TIMER);                              /* no STATE bit: SQD->SQD */
    c.mask = NIC_QPA_MIN_RNR_TIMER; c.qp.min_rnr_timer = 31;
    CHECK(run(c).status == 0 && query(0, 0x55).qp.min_rnr_timer == 31 && query(0, 0x55).qp.state == NIC_QPS_SQD,
          "mask without STATE keeps the state");
    tb_end();
}

static void test_namespaces(void) {
    tb_begin("ctrl: rows, qpn ownership, CQ references and bad CREATE_QP arguments");
    tb_reset(4, 60);
    CHECK(create_cq(0, 4, 0x3000, 3) == 0 && create_cq(2, 4, 0x4000, 3) == 0, "cqs");
    CHECK(create_cq(0, 0x14, 0x3000, 3) == NIC_CMD_EEXIST, "cq row taken");
    CHECK(create_cq(0, 5, 0x3010, 3) == NIC_CMD_EINVAL && tb.resp.bad_field == NIC_CMD_F_BASE, "cq base");
    CHECK(create_cq(0, 5, 0x3000, 16) == NIC_CMD_EINVAL && tb.resp.bad_field == NIC_CMD_F_LOG, "cq log");
    CHECK(create_qp(0, 0x10, 4, 4).status == 0, "qp 0x10");
    nic_cmd_resp_t r = create_qp(0, 0x20, 4, 4);
    CHECK(r.status == NIC_CMD_EEXIST, "row 0 taken: %u", r.status);
    CHECK(run(modify(0, 0x20, 1, M_INIT)).status == NIC_CMD_ENOENT, "other qpn on the row");
    CHECK(create_qp(2, 0x10, 4, 4).status == 0, "same qpn in fn 2");
    r = create_qp(0, 0x11, 5, 4);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_SEND_CQ, "absent send cq %u/%u", r.status, r.bad_field);
    nic_cmd_t c = c_op(NIC_CMD_CREATE_QP, 0, 0x11);
    c.qp.send_cq = cqrow(0, 4); c.qp.recv_cq = cqrow(2, 4);                     /* fn 2's CQ */
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_RECV_CQ, "foreign recv cq %u/%u", r.status, r.bad_field);
    r = create_qp(0, 1, 4, 4);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_NUM, "qpn 1");
    c = c_op(NIC_CMD_CREATE_QP, 0, 0x12); c.qp.send_cq = cqrow(0, 4); c.qp.recv_cq = cqrow(0, 4); c.qp.sq_base = 0x1020;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_SQ, "sq alignment");
    CHECK(create_cq(0, 6, 0x5000, 3) == 0 && create_qp(0, 0x13, 4, 6).status == 0, "second qp");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 0, 4)).status == NIC_CMD_EBUSY, "cq 4 busy (2 QPs)");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 0, 0x24)).status == NIC_CMD_ENOENT, "other cqn on the row");
    CHECK(run(c_op(NIC_CMD_DESTROY_QP, 0, 0x10)).status == 0, "destroy qp 0x10");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 0, 4)).status == NIC_CMD_EBUSY, "cq 4 still used by 0x13");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 0, 6)).status == NIC_CMD_EBUSY, "cq 6 used by 0x13");
    CHECK(run(c_op(NIC_CMD_DESTROY_QP, 0, 0x13)).status == 0, "destroy qp 0x13");
    unsigned ncqw = tb.ncfg[O_CQW];
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 0, 4)).status == 0 && run(c_op(NIC_CMD_DESTROY_CQ, 0, 6)).status == 0, "cqs free");
    CHECK(tb.ncfg[O_CQW] == ncqw + 2, "cqw messages");
    const nic_cfg_t *m = &tb.cfg[O_CQW][ncqw % LOGN];
    CHECK(m->kind == NIC_CFG_CQ && m->cq == 4 && m->key == 4 && !m->valid && m->base == 0x3000 && m->log == 3,
          "destroy cq message");
    m = &tb.cfg[O_CQW][0];
    CHECK(m->kind == NIC_CFG_CQ && m->cq == 4 && m->key == 4 && m->valid && m->base == 0x3000 && m->log == 3 && m->fn == 0,
          "create cq message");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 2, 4)).status == NIC_CMD_EBUSY, "fn 2 cq still used");
    tb_end();
}

static void test_mr_fn(void) {
    tb_begin("ctrl: REG/DEREG_MR, SET_FN, NOP and unknown commands");
    tb_reset(5, 25);
    nic_cmd_t c = c_op(NIC_CMD_REG_MR, 3, 0x00001234);
    c.base = 0x7000000; c.len = 0x20000; c.pd = 9; c.access = NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE;
    CHECK(run(c).status == 0, "reg");
    const nic_cfg_t *m = &tb.cfg[O_RESP][0];
    CHECK(tb.ncfg[O_REQ] == 1 && !memcmp(&tb.cfg[O_REQ][0], m, sizeof *m), "reg message to the requester too");
    CHECK(tb.ncfg[O_RESP] == 1 && total_cfg() == 2 && m->kind == NIC_CFG_MR && m->mr == 3 * 64 + 0x12 &&
          m->key == 0x1234 && m->pd == 9 && m->base == 0x7000000 && m->len == 0x20000 && m->valid && m->fn == 3,
          "reg message");
    c.num = 0x00001299;                                   /* same row (key >> 8), other tag */
    CHECK(run(c).status == NIC_CMD_EEXIST, "row taken");
    CHECK(run(c_op(NIC_CMD_DEREG_MR, 3, 0x1299)).status == NIC_CMD_ENOENT, "dereg other key");
    CHECK(run(c_op(NIC_CMD_DEREG_MR, 2, 0x1234)).status == NIC_CMD_ENOENT, "dereg other fn");
    CHECK(run(c_op(NIC_CMD_DEREG_MR, 3, 0x1234)).status == 0, "dereg");
    CHECK(tb.ncfg[O_REQ] == 2 && !tb.cfg[O_REQ][1].valid && tb.cfg[O_REQ][1].key == 0x1234, "dereg message to the requester");
    CHECK(tb.ncfg[O_RESP] == 2 && !tb.cfg[O_RESP][1].valid && tb.cfg[O_RESP][1].key == 0x1234 &&
          tb.cfg[O_RESP][1].len == 0x20000, "dereg message");
    CHECK(run(c_op(NIC_CMD_DEREG_MR, 3, 0x1234)).status == NIC_CMD_ENOENT, "dereg twice");
    c.access = NIC_ACC_REMOTE_WRITE;
    nic_cmd_resp_t r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_ACCESS, "remote write without local write");
    c.access = NIC_ACC_REMOTE_READ; c.len = 0;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_LEN, "len 0");
    c.len = 0x100; c.base = ~0ull - 0x10;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_LEN, "wraps");
    unsigned n0 = total_cfg();
    c = c_op(NIC_CMD_SET_FN, 2, 0); c.mac = 0x02000000abcdull; c.ip = 0x0a000102;
    CHECK(run(c).status == 0, "set_fn");
    CHECK(total_cfg() == n0 + 3 && tb.ncfg[O_RXD] == 1 && tb.cfg[O_RXD][0].kind == NIC_CFG_FN &&
          tb.cfg[O_RXD][0].mac == 0x02000000abcdull && tb.cfg[O_RXD][0].ip == 0x0a000102 && tb.cfg[O_RXD][0].fn == 2 && tb.cfg[O_RXD][0].valid &&
          tb.ncfg[O_REQ] == 3 /* REG_MR, DEREG_MR, SET_FN */ && tb.ncfg[O_COMP] == 0, "set_fn fan-out");
    c.mac = 0x03000000abcdull;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_MAC, "multicast mac");
    c.mac = 0x02000000abcdull; c.ip = 0;
    r = run(c);
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_IP, "ip 0");
    CHECK(run(c_op(NIC_CMD_NOP, 0, 0)).status == 0, "nop");
    r = run(c_op(42, 0, 0));
    CHECK(r.status == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_OP, "unknown op");
    CHECK(total_cfg() == n0 + 3, "failed commands sent cfg");
    tb_end();
}

static void test_events(void) {
    tb_begin("ctrl: datapath events: ERR/SQE transitions, forwarding, priority over commands");
    tb_reset(6, 35);
    CHECK(create_cq(0, 0, 0x1000, 4) == 0, "cq");
    CHECK(create_qp(0, 0x42, 0, 0).status == 0 && bring_to_rts(0, 0x42), "qp 0x42 rts");
    CHECK(create_qp(0, 0x43, 0, 0).status == 0 && bring_to_rts(0, 0x43), "qp 0x43 rts");
    CHECK(create_qp(0, 0x44, 0, 0).status == 0, "qp 0x44 reset");
    /* an event and a command arrive together: the event wins, the command then sees ERR */
    unsigned c0 = tb.ncfg[O_REQ];
    tb.ev[1] = (nic_event_t){.kind = NIC_EV_QP_ERR, .qp = 2, .detail = NIC_WC_RETRY_EXC_ERR};
    tb.ev_v[1] = true;
    nic_cmd_resp_t r = run(modify(0, 0x42, NIC_QPS_RTS, NIC_QPA_ACCESS));
    CHECK(r.status == NIC_CMD_ESTATE, "MODIFY after the error: %u", r.status);
    CHECK(tb.ncfg[O_REQ] == c0 + 1 && last_qp_cfg(O_REQ, 2, NIC_QPS_RTS, NIC_QPS_ERR, true), "ERR cfg");
    idle(20);
    CHECK(tb.nasync == 1 && tb.async[0].kind == NIC_EV_QP_ERR && tb.async[0].qp == 2 &&
          tb.async[0].detail == NIC_WC_RETRY_EXC_ERR, "async forward");
    CHECK(query(0, 0x42).qp.state == NIC_QPS_ERR, "row in ERR");
    /* SQ error: RTS -> SQE; then the host recovers with SQE -> RTS */
    tb.ev[0] = (nic_event_t){.kind = NIC_EV_SQ_ERR, .qp = 3, .detail = NIC_WC_REM_ACCESS_ERR};
    tb.ev_v[0] = true;
    idle(40);
    CHECK(query(0, 0x43).qp.state == NIC_QPS_SQE && last_qp_cfg(O_COMP, 3, NIC_QPS_RTS, NIC_QPS_SQE, true), "SQE");
    CHECK(to_state(0, 0x43, NIC_QPS_RTS, 0) == 0, "SQE->RTS");
    /* QP_ERR on a RESET QP: no state change, no cfg, still reported */
    unsigned n0 = total_cfg(), a0 = tb.nasync;
    tb.ev[0] = (nic_event_t){.kind = NIC_EV_QP_ERR, .qp = 4};
    tb.ev_v[0] = true;
    idle(40);
    CHECK(total_cfg() == n0 && tb.nasync == a0 + 1 && query(0, 0x44).qp.state == NIC_QPS_RESET, "QP_ERR in RESET");
    /* a QP that no longer exists: dropped */
    tb.ev[0] = (nic_event_t){.kind = NIC_EV_QP_ERR, .qp = 9};
    tb.ev_v[0] = true;
    idle(40);
    CHECK(tb.nasync == a0 + 1 && total_cfg() == n0, "event of a destroyed QP not dropped");
    /* six sources at once: served round-robin from the source after the last one served */
    a0 = tb.nasync;
    unsigned first = tb.st.ev_rr;
    for (unsigned k = 0; k < N_SRC; k++) {
        tb.ev[k] = (nic_event_t){.kind = k < 2 ? NIC_EV_SQ_DRAINED : NIC_EV_CQ_ERR, .qp = 3, .detail = (uint8_t)k};
        tb.ev_v[k] = true;
    }
    idle(100);
    CHECK(tb.nasync == a0 + N_SRC && total_cfg() == n0, "six events forwarded: %u", tb.nasync - a0);
    for (unsigned k = 0; k < N_SRC; k++)
        CHECK(tb.async[a0 + k].detail == (first + k) % N_SRC, "event %u from source %u, want %u", k,
              tb.async[a0 + k].detail, (first + k) % N_SRC);
    /* a CQ completion event (cq_writer, armed CQ): forwarded unchanged, no QP looked at */
    a0 = tb.nasync;
    tb.ev[2] = (nic_event_t){.kind = NIC_EV_CQ_COMP, .qp = 0, .cq = 37, .detail = 0};
    tb.ev_v[2] = true;
    idle(40);
    CHECK(tb.nasync == a0 + 1 && tb.async[a0].kind == NIC_EV_CQ_COMP && tb.async[a0].cq == 37 && total_cfg() == n0,
          "CQ_COMP forwarded");
    /* an unknown kind is dropped */
    tb.ev[2] = (nic_event_t){.kind = 77, .cq = 1};
    tb.ev_v[2] = true;
    idle(40);
    CHECK(tb.nasync == a0 + 1 && !tb.ev_v[2], "unknown event kind dropped");
    /* QUIESCE */
    n0 = total_cfg();
    nic_cmd_t c = c_op(NIC_CMD_QUIESCE_QP, 0, 0x43); c.quiesce = true;
    CHECK(run(c).status == 0, "quiesce");
    const nic_cfg_t *m = &tb.cfg[O_RESP][(tb.ncfg[O_RESP] - 1) % LOGN];
    CHECK(total_cfg() == n0 + 3 && m->kind == NIC_CFG_QUIESCE && m->quiesce && m->qp == 3 && m->attr.qpn == 0x43,
          "quiesce cfg");
    CHECK(run(c_op(NIC_CMD_QUIESCE_QP, 0, 0x53)).status == NIC_CMD_ENOENT, "quiesce absent");
    CHECK(tb.unstable == 0, "cfg unstable");
    tb_end();
}

/* Consumers that almost never take: every message still reaches each one exactly once. */
static void test_slow_consumers(void) {
    tb_begin("ctrl: a slow configuration consumer loses nothing and stalls the answer");
    tb_reset(7, 100);
    tb.ready_pct[O_COMP] = 3;
    CHECK(create_cq(1, 1, 0x1000, 2) == 0, "cq");
    for (uint32_t q = 2; q < 10; q++) CHECK(create_qp(1, q, 1, 1).status == 0 && bring_to_rts(1, q), "qp %u", q);
    CHECK(tb.ncfg[O_REQ] == 32 && tb.ncfg[O_RESP] == 32 && tb.ncfg[O_COMP] == 32, "counts %u %u %u", tb.ncfg[O_REQ],
          tb.ncfg[O_RESP], tb.ncfg[O_COMP]);
    CHECK(memcmp(tb.cfg[O_REQ], tb.cfg[O_COMP], 32 * sizeof(nic_cfg_t)) == 0, "same messages, same order");
    CHECK(tb.unstable == 0, "cfg unstable");
    tb_end();
}

int main(void) {
    test_lifecycle();
    test_state_table();
    test_attr_errors();
    test_namespaces();
    test_mr_fn();
    test_events();
    test_slow_consumers();
    return tb_exit();
}
