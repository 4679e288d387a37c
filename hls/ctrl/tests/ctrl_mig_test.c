/* ctrl_mig_test — ctrl's migration commands (docs/migration.md, docs/ctrl.md "Migration"),
 * driven by ctrl_tb.h: every suspend transition and refusal, the pending suspend that answers
 * only after the right markers while still serving events and accepting no command, the
 * context port on ctrl's own tables (read, write, load into another function, destroy after),
 * forwarding to the owner block with a simulated answer, dirty bits and the throttle. */
#include "ctrl_tb.h"

static nic_cmd_t c_susp(unsigned fn, unsigned level) {
    nic_cmd_t c = c_op(NIC_CMD_SUSPEND_FN, fn, 0);
    c.level = (hls_uint(2))level;
    return c;
}
static nic_cmd_t c_ctx(bool wr, unsigned fn, unsigned sect, uint32_t num, unsigned word, hls_u128 d) {
    nic_cmd_t c = c_op(wr ? NIC_CMD_CTX_WRITE : NIC_CMD_CTX_READ, fn, num);
    c.ctx_sect = (uint8_t)sect; c.ctx_word = (uint8_t)word; c.ctx_data = d;
    return c;
}
/* Offer one event on source src and wait until ctrl took it. */
static bool raise_ev(unsigned src, nic_event_t e) {
    for (unsigned i = 0; i < 500 && tb.ev_v[src]; i++) step();
    tb.ev[src] = e; tb.ev_v[src] = true;
    for (unsigned i = 0; i < 500 && tb.ev_v[src]; i++) step();
    return !tb.ev_v[src];
}
static bool mark(unsigned src, unsigned fn, unsigned detail) {
    return raise_ev(src, (nic_event_t){.kind = NIC_EV_MIG_MARK, .fn = (nic_fn_t)fn, .detail = (uint8_t)detail});
}
/* Issue a command and step until it was accepted; its answer may still be pending. */
static void issue(nic_cmd_t c) {
    tb.cmd = c; tb.cmd_v = true;
    for (unsigned i = 0; i < 500 && tb.cmd_v; i++) step();
}
static bool answered(unsigned n0) { idle(60); return tb.nresp != n0; }
/* Every marker a stop (RUN -> ACTIVE) waits for, as the blocks send them (docs/migration.md
 * 2); no other transition waits for any. */
static void send_marks(unsigned fn, unsigned from) {
    if (from != NIC_SUSPEND_RUN) return;
    mark(SRC_TX, fn, NIC_MARK_SRC_REQ);
    mark(SRC_TX, fn, NIC_MARK_SRC_RESP);
    mark(SRC_COMP, fn, 0);
    mark(SRC_RESP, fn, 0);
    mark(SRC_CQW, fn, 0);
}
static nic_cmd_resp_t suspend(unsigned fn, unsigned level) {
    unsigned n0 = tb.nresp, from = tb.st.level[fn];
    issue(c_susp(fn, level));
    if (!answered(n0)) send_marks(fn, from);
    for (unsigned i = 0; i < 500 && tb.nresp == n0; i++) step();
    if (tb.nresp == n0) { nic_cmd_resp_t none = {0}; none.status = 0xEE; return none; }
    return tb.resp;
}
static bool to_level(unsigned fn, unsigned level) {   /* RUN -> ACTIVE -> PASSIVE and back */
    while (tb.st.level[fn] != level) {
        unsigned cur = tb.st.level[fn];
        unsigned next = cur < level ? cur + 1 : cur - 1;
        if (suspend(fn, next).status != NIC_CMD_OK) return false;
    }
    return true;
}

static void test_suspend_transitions(void) {
    tb_begin("ctrl: SUSPEND_FN, every (level, target) pair: RUN-ACTIVE-PASSIVE-ACTIVE-RUN only; the blocks hear "
             "the stop (PASSIVE) and RUN, nothing between ACTIVE and PASSIVE");
    tb_reset(11, 40);
    static const bool ok[3][3] = {{0, 1, 0}, {1, 0, 1}, {0, 1, 0}};
    for (unsigned cur = 0; cur < 3; cur++)
        for (unsigned next = 0; next < 4; next++) {
            CHECK(to_level(2, cur), "cannot reach level %u", cur);
            unsigned before[N_OUT];
            for (unsigned i = 0; i < N_OUT; i++) before[i] = tb.ncfg[i];
            nic_cmd_resp_t r = suspend(2, next);
            bool good = next < 3 && ok[cur][next];
            uint8_t want = next == 3 ? NIC_CMD_EINVAL : good ? NIC_CMD_OK : NIC_CMD_ESTATE;
            CHECK(r.status == want, "%u->%u: status %u want %u", cur, next, r.status, want);
            CHECK(good || r.bad_field == NIC_CMD_F_LEVEL, "%u->%u: field %u", cur, next, r.bad_field);
            CHECK(tb.st.level[2] == (good ? next : cur), "%u->%u: level after %u", cur, next, (unsigned)tb.st.level[2]);
            bool told = good && (cur == NIC_SUSPEND_RUN || next == NIC_SUSPEND_RUN);
            unsigned heard = next == NIC_SUSPEND_RUN ? NIC_SUSPEND_RUN : NIC_SUSPEND_PASSIVE;
            for (unsigned i = 0; i < N_OUT; i++) {
                const nic_cfg_t *m = &tb.cfg[i][(tb.ncfg[i] - 1) % LOGN];
                CHECK(tb.ncfg[i] == before[i] + told, "%u->%u: output %u got %u messages", cur, next, i, tb.ncfg[i] - before[i]);
                CHECK(!told || (m->kind == NIC_CFG_SUSPEND && m->fn == 2 && m->level == heard), "%u->%u: message on %u",
                      cur, next, i);
            }
            CHECK(tb.st.level[0] == 0 && tb.st.level[1] == 0 && tb.st.level[3] == 0, "other functions touched");
        }
    CHECK(tb.nasync == 0, "a marker reached the host's async stream");
    CHECK(tb.unstable == 0, "cfg unstable");
    tb_end();
}

static void test_suspend_wait(void) {
    tb_begin("ctrl: a pending suspend answers after exactly its markers, serves events, takes no command");
    tb_reset(12, 60);
    CHECK(create_cq(2, 1, 0x1000, 4) == 0 && create_qp(2, 0x27, 1, 1).status == 0 && bring_to_rts(2, 0x27), "setup");
    unsigned n0 = tb.nresp;
    issue(c_susp(2, NIC_SUSPEND_ACTIVE));
    CHECK(!answered(n0), "ACTIVE answered before any marker");
    /* an ordinary event while waiting is served and forwarded */
    CHECK(raise_ev(SRC_COMP, (nic_event_t){.kind = NIC_EV_QP_ERR, .qp = 2 * 16 + 7, .detail = NIC_WC_RETRY_EXC_ERR}),
          "event not taken while a suspend waits");
    idle(30);
    CHECK(tb.nasync == 1 && tb.async[0].kind == NIC_EV_QP_ERR, "event not forwarded while waiting");
    CHECK(tb.st.level[2] == NIC_SUSPEND_ACTIVE, "level");
    /* no command while waiting */
    tb.cmd = c_op(NIC_CMD_NOP, 0, 0); tb.cmd_v = true;
    idle(80);
    CHECK(tb.cmd_v && tb.nresp == n0, "a command was accepted while a suspend waits");
    /* the whole graph's markers: completer, responder, cq_writer and both transmit markers;
     * markers that do not count: another function, the same source twice, rx_dispatch's
     * stream (which carries none) */
    mark(SRC_TX, 1, NIC_MARK_SRC_REQ);
    unsigned srcs[] = {SRC_TX, SRC_TX, SRC_TX, SRC_COMP, SRC_RESP, SRC_RXD};
    unsigned det[] = {NIC_MARK_SRC_REQ, NIC_MARK_SRC_REQ, NIC_MARK_SRC_RESP, 0, 0, 0};
    for (unsigned k = 0; k < 6; k++) mark(srcs[k], 2, det[k]);
    CHECK(!answered(n0), "ACTIVE answered without cq_writer's marker");
    mark(SRC_CQW, 2, 0);
    for (unsigned i = 0; i < 100 && tb.nresp == n0; i++) step();
    CHECK(tb.nresp == n0 + 1 && tb.resp.status == NIC_CMD_OK, "ACTIVE not answered after all five markers");
    idle(40);
    CHECK(!tb.cmd_v && tb.nresp == n0 + 2, "the waiting NOP was not served after the answer");
    CHECK(tb.nasync == 1, "markers reached the async stream (%u events)", tb.nasync);

    /* PASSIVE and back, and resuming, wait for nothing: the function is already stopped */
    n0 = tb.nresp;
    issue(c_susp(2, NIC_SUSPEND_PASSIVE));
    CHECK(answered(n0) && tb.resp.status == NIC_CMD_OK, "ACTIVE->PASSIVE waited");
    n0 = tb.nresp;
    issue(c_susp(2, NIC_SUSPEND_ACTIVE));
    CHECK(answered(n0) && tb.resp.status == NIC_CMD_OK, "PASSIVE->ACTIVE waited");
    n0 = tb.nresp;
    issue(c_susp(2, NIC_SUSPEND_RUN));
    CHECK(answered(n0) && tb.resp.status == NIC_CMD_OK, "ACTIVE->RUN waited");
    /* a marker with nothing pending is dropped, not forwarded */
    mark(SRC_TX, 2, NIC_MARK_SRC_REQ);
    idle(20);
    CHECK(tb.nasync == 1, "stray marker forwarded");
    tb_end();
}

static hls_u128 ctx_read(unsigned fn, unsigned sect, uint32_t num, unsigned w, uint8_t *status) {
    nic_cmd_resp_t r = run(c_ctx(false, fn, sect, num, w, 0));
    *status = r.status;
    return r.ctx_data;
}
static uint64_t bits(const hls_u128 *img, unsigned bit, unsigned width) {   /* field of an image */
    hls_u128 wd = img[bit / 128];
    uint64_t v = (uint64_t)(wd >> (bit % 128));
    return width >= 64 ? v : v & ((1ull << width) - 1);
}

static void test_ctx_ctrl(void) {
    tb_begin("ctrl: context port on ctrl's QP/CQ/MR rows: layout of nic_ctx.h, refusals, load into another function");
    tb_reset(13, 50);
    CHECK(create_cq(1, 0x33, 0x40000, 6) == 0 && create_cq(1, 0x34, 0x50000, 7) == 0, "cqs");
    CHECK(create_qp(1, 0x1239, 0x33, 0x34).status == 0 && bring_to_rts(1, 0x1239), "qp");
    nic_cmd_t mr = c_op(NIC_CMD_REG_MR, 1, 0x0000277a);
    mr.base = 0x7000000; mr.len = 0x20000; mr.pd = 9; mr.access = NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE;
    CHECK(run(mr).status == 0, "mr");
    nic_qp_attr_t src = query(1, 0x1239).qp;
    uint8_t st = 0;
    hls_u128 qpw[5], cqw[2][1], mrw[2];
    for (unsigned w = 0; w < 5; w++) { qpw[w] = ctx_read(1, NIC_CTX_CTRL_QP, 9, w, &st); CHECK(st == 0, "qp word %u", w); }
    cqw[0][0] = ctx_read(1, NIC_CTX_CTRL_CQ, 3, 0, &st);
    cqw[1][0] = ctx_read(1, NIC_CTX_CTRL_CQ, 4, 0, &st);
    for (unsigned w = 0; w < 2; w++) mrw[w] = ctx_read(1, NIC_CTX_CTRL_MR, 0x27, w, &st);
    CHECK(bits(qpw, NIC_CTX_QP_QPN, 32) == 0x1239 && bits(qpw, NIC_CTX_QP_STATE, 8) == NIC_QPS_RTS &&
          bits(qpw, NIC_CTX_QP_SEND_CQ, 8) == 3 && bits(qpw, NIC_CTX_QP_RECV_CQ, 8) == 4 &&
          bits(qpw, NIC_CTX_QP_VALID, 8) == 1 && bits(qpw, NIC_CTX_QP_DST_MAC, 64) == src.dst_mac &&
          bits(qpw, NIC_CTX_QP_SQ_PSN, 32) == src.sq_psn && bits(qpw, NIC_CTX_QP_MAX_DEST_RD_ATOMIC, 8) == 4 &&
          bits(qpw, NIC_CTX_QP_TIMEOUT, 8) == src.timeout && bits(qpw, NIC_CTX_QP_BITS, 64) == 0,
          "QP word layout (CQs as slots)");
    CHECK(bits(cqw[0], NIC_CTX_CQ_CQN, 32) == 0x33 && bits(cqw[0], NIC_CTX_CQ_BASE, 64) == 0x40000 &&
          bits(cqw[0], NIC_CTX_CQ_REFS, 8) == 1 && bits(cqw[0], NIC_CTX_CQ_LOG, 8) == 6 &&
          bits(cqw[0], NIC_CTX_CQ_VALID, 8) == 1, "CQ word layout");
    CHECK(bits(mrw, NIC_CTX_MR_KEY, 32) == 0x277a && bits(mrw, NIC_CTX_MR_PD, 32) == 9 &&
          bits(mrw, NIC_CTX_MR_BASE, 64) == 0x7000000 && bits(mrw, NIC_CTX_MR_LEN, 64) == 0x20000 &&
          bits(mrw, NIC_CTX_MR_ACCESS, 8) == 3 && bits(mrw, NIC_CTX_MR_VALID, 8) == 1, "MR word layout");

    /* refusals: argument errors first, then the level */
    struct { bool wr; unsigned sect, num, word; uint8_t status, field; } bad[] = {
        {0, 0, 0, 0, NIC_CMD_EINVAL, NIC_CMD_F_SECT}, {0, 11, 0, 0, NIC_CMD_EINVAL, NIC_CMD_F_SECT},
        {0, NIC_CTX_REQ_QP, 0, NIC_CTX_REQ_QP_WORDS, NIC_CMD_EINVAL, NIC_CMD_F_WORD}, {1, NIC_CTX_DIRTY, NIC_CTX_CTRL_QP, 0, NIC_CMD_EINVAL, NIC_CMD_F_SECT},
        {0, NIC_CTX_CTRL_QP, 0, 5, NIC_CMD_EINVAL, NIC_CMD_F_WORD}, {0, NIC_CTX_CTRL_CQ, 0, 1, NIC_CMD_EINVAL, NIC_CMD_F_WORD},
        {0, NIC_CTX_CTRL_MR, 0, 2, NIC_CMD_EINVAL, NIC_CMD_F_WORD}, {0, NIC_CTX_CQW_CQ, 0, 2, NIC_CMD_EINVAL, NIC_CMD_F_WORD},
        {0, NIC_CTX_CTRL_QP, 16, 0, NIC_CMD_EINVAL, NIC_CMD_F_NUM}, {0, NIC_CTX_CTRL_CQ, 16, 0, NIC_CMD_EINVAL, NIC_CMD_F_NUM},
        {0, NIC_CTX_CTRL_MR, 64, 0, NIC_CMD_EINVAL, NIC_CMD_F_NUM}, {0, NIC_CTX_FN, 1, 0, NIC_CMD_EINVAL, NIC_CMD_F_NUM},
        {0, NIC_CTX_DIRTY, NIC_CTX_FN, 0, NIC_CMD_EINVAL, NIC_CMD_F_NUM}, {0, NIC_CTX_DIRTY, 0, 0, NIC_CMD_EINVAL, NIC_CMD_F_NUM},
        {1, NIC_CTX_CTRL_QP, 9, 0, NIC_CMD_ESTATE, NIC_CMD_F_LEVEL}, {1, NIC_CTX_CTRL_MR, 0x27, 1, NIC_CMD_ESTATE, NIC_CMD_F_LEVEL},
    };
    unsigned n0 = total_cfg();
    for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        nic_cmd_resp_t r = run(c_ctx(bad[k].wr, 1, bad[k].sect, bad[k].num, bad[k].word, 0));
        CHECK(r.status == bad[k].status && r.bad_field == bad[k].field, "case %u: %u/%u want %u/%u", k, r.status, r.bad_field,
              bad[k].status, bad[k].field);
    }
    CHECK(to_level(1, NIC_SUSPEND_ACTIVE), "fn 1 ACTIVE");
    nic_cmd_resp_t r = run(c_ctx(true, 1, NIC_CTX_CTRL_CQ, 3, 0, cqw[0][0]));
    CHECK(r.status == NIC_CMD_ESTATE && r.bad_field == NIC_CMD_F_LEVEL, "write while ACTIVE");
    CHECK(total_cfg() == n0 + 5, "refused context commands sent messages");

    /* load the image into function 3 (PASSIVE) at the same slots: CQ and MR rows send no
     * message; the QP's last word sends one NIC_CFG_QP_ATTR to each QP block (their copies
     * of the attributes), nothing else */
    CHECK(to_level(3, NIC_SUSPEND_PASSIVE), "fn 3 PASSIVE");
    n0 = total_cfg();
    CHECK(run(c_ctx(true, 3, NIC_CTX_CTRL_CQ, 3, 0, cqw[0][0])).status == 0 &&
          run(c_ctx(true, 3, NIC_CTX_CTRL_CQ, 4, 0, cqw[1][0])).status == 0, "load CQs");
    for (unsigned w = 0; w < 4; w++) CHECK(run(c_ctx(true, 3, NIC_CTX_CTRL_QP, 9, w, qpw[w])).status == 0, "load QP word %u", w);
    CHECK(total_cfg() == n0, "CTRL_* writes before the QP row's last word sent %u messages", total_cfg() - n0);
    unsigned q0[N_OUT];
    for (unsigned i = 0; i < N_OUT; i++) q0[i] = tb.ncfg[i];
    CHECK(run(c_ctx(true, 3, NIC_CTX_CTRL_QP, 9, 4, qpw[4])).status == 0, "load QP word 4");
    nic_qp_attr_t want = src;
    want.send_cq = 3 * 16 + 3; want.recv_cq = 3 * 16 + 4;
    for (unsigned i = 0; i < N_OUT; i++) {
        bool qp_block = i == O_REQ || i == O_RESP || i == O_COMP;
        const nic_cfg_t *m = &tb.cfg[i][(tb.ncfg[i] - 1) % LOGN];
        nic_qp_attr_t ma = m->attr;
        ma.cur_state = want.cur_state;
        CHECK(tb.ncfg[i] == q0[i] + qp_block, "output %u got %u messages for the QP row", i, tb.ncfg[i] - q0[i]);
        if (qp_block)
            CHECK(m->kind == NIC_CFG_QP_ATTR && m->fn == 3 && m->qp == 3 * 16 + 9 && m->valid && attr_eq(&ma, &want),
                  "output %u: QP_ATTR message (kind %u qp %u)", i, m->kind, (unsigned)m->qp);
    }
    /* the MR row's last word sends NIC_CFG_MR (as REG_MR would) to the requester and the
     * responder, which keep copies of the MR table; word 0 sends nothing */
    n0 = total_cfg();
    CHECK(run(c_ctx(true, 3, NIC_CTX_CTRL_MR, 0x27, 0, mrw[0])).status == 0, "load MR word 0");
    CHECK(total_cfg() == n0, "MR word 0 sent %u messages", total_cfg() - n0);
    for (unsigned i = 0; i < N_OUT; i++) q0[i] = tb.ncfg[i];
    CHECK(run(c_ctx(true, 3, NIC_CTX_CTRL_MR, 0x27, 1, mrw[1])).status == 0, "load MR word 1");
    for (unsigned i = 0; i < N_OUT; i++) {
        bool mr_block = i == O_REQ || i == O_RESP;
        const nic_cfg_t *m = &tb.cfg[i][(tb.ncfg[i] - 1) % LOGN];
        CHECK(tb.ncfg[i] == q0[i] + mr_block, "output %u got %u messages for the MR row", i, tb.ncfg[i] - q0[i]);
        if (mr_block)
            CHECK(m->kind == NIC_CFG_MR && m->mr == 3 * 64 + 0x27 && m->key == 0x277a && m->pd == 9 &&
                  m->base == 0x7000000 && m->len == 0x20000 && m->access == 3 && m->valid,
                  "output %u: MR message (kind %u mr %u key %#x)", i, m->kind, (unsigned)m->mr, m->key);
    }
    nic_qp_attr_t got = query(3, 0x1239).qp;
    CHECK(attr_eq(&got, &want), "loaded QP differs (send_cq %u recv_cq %u)", (unsigned)got.send_cq, (unsigned)got.recv_cq);
    hls_u128 again = ctx_read(3, NIC_CTX_CTRL_QP, 9, 3, &st);
    CHECK(again == qpw[3], "read back word 3 of the loaded row");
    /* the loaded function lives on with the ordinary commands: references were right */
    CHECK(to_level(3, NIC_SUSPEND_RUN), "fn 3 RUN");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 3, 0x33)).status == NIC_CMD_EBUSY, "CQ in use must be busy");
    CHECK(run(c_op(NIC_CMD_DESTROY_QP, 3, 0x1239)).status == 0, "destroy loaded QP");
    CHECK(run(c_op(NIC_CMD_DESTROY_CQ, 3, 0x33)).status == 0 && run(c_op(NIC_CMD_DESTROY_CQ, 3, 0x34)).status == 0,
          "destroy loaded CQs");
    CHECK(run(c_op(NIC_CMD_DEREG_MR, 3, 0x277a)).status == 0, "dereg loaded MR");
    CHECK(query(1, 0x1239).qp.state == NIC_QPS_RTS, "the source function is untouched");
    CHECK(tb.nasync == 0, "async");
    tb_end();
}

static void test_ctx_forward(void) {
    tb_begin("ctrl: context commands for other blocks go to the owner; its NIC_EV_CTX is the answer");
    tb_reset(14, 50);
    struct { unsigned sect, num, out, src; } f[] = {
        {NIC_CTX_CQW_CQ, 5, O_CQW, SRC_CQW}, {NIC_CTX_FN, 0, O_RXD, SRC_RXD}, {NIC_CTX_COMP_QP, 7, O_COMP, SRC_COMP},
        {NIC_CTX_RESP_QP, 15, O_RESP, SRC_RESP}, {NIC_CTX_RESP_ATOM, 2, O_RESP, SRC_RESP},
        {NIC_CTX_DIRTY, NIC_CTX_CQW_CQ, O_CQW, SRC_CQW}, {NIC_CTX_REQ_QP, 4, O_REQ, SRC_REQ},
        {NIC_CTX_DIRTY, NIC_CTX_REQ_QP, O_REQ, SRC_REQ},
    };
    for (unsigned k = 0; k < sizeof f / sizeof f[0]; k++) {
        unsigned n0 = tb.nresp, c0 = total_cfg(), o0 = tb.ncfg[f[k].out], a0 = tb.nasync;
        issue(c_ctx(false, 2, f[k].sect, f[k].num, 1 % ctx_words(f[k].sect), 0));
        CHECK(!answered(n0), "case %u answered before the owner", k);
        const nic_cfg_t *m = &tb.cfg[f[k].out][o0 % LOGN];
        CHECK(total_cfg() == c0 + 1 && tb.ncfg[f[k].out] == o0 + 1 && m->kind == NIC_CFG_CTX && m->fn == 2 &&
              m->ctx_sect == f[k].sect && !m->ctx_write && m->ctx_word == 1 % ctx_words(f[k].sect),
              "case %u: message to the owner", k);
        CHECK(f[k].sect == NIC_CTX_DIRTY ? m->key == f[k].num
              : (m->qp == 2 * 16 + f[k].num && m->cq == 2 * 16 + f[k].num), "case %u: row %u", k, (unsigned)m->qp);
        /* served while waiting: an ordinary event; ignored: an answer from another block */
        raise_ev(SRC_CQW, (nic_event_t){.kind = NIC_EV_CQ_COMP, .cq = 9});
        unsigned other = f[k].src == SRC_COMP ? SRC_RESP : SRC_COMP;
        raise_ev(other, (nic_event_t){.kind = NIC_EV_CTX, .fn = 2, .data = 1});
        raise_ev(f[k].src, (nic_event_t){.kind = NIC_EV_CTX, .fn = 1, .data = 2});   /* another function */
        CHECK(!answered(n0), "case %u answered by a wrong NIC_EV_CTX", k);
        hls_u128 d = ((hls_u128)0xfeedull << 100) | (k + 0x55);
        raise_ev(f[k].src, (nic_event_t){.kind = NIC_EV_CTX, .fn = 2, .data = d});
        for (unsigned i = 0; i < 100 && tb.nresp == n0; i++) step();
        CHECK(tb.nresp == n0 + 1 && tb.resp.status == 0 && tb.resp.ctx_data == d, "case %u: answer", k);
        CHECK(tb.nasync == a0 + 1 && tb.async[a0].kind == NIC_EV_CQ_COMP, "case %u: async %u", k, tb.nasync - a0);
    }
    /* a forwarded write carries the data; only while PASSIVE */
    CHECK(to_level(2, NIC_SUSPEND_PASSIVE), "passive");
    unsigned o0 = tb.ncfg[O_COMP], n0 = tb.nresp;
    hls_u128 d = (hls_u128)0x7 << 64 | 0x1234;
    issue(c_ctx(true, 2, NIC_CTX_COMP_QP, 7, 0, d));
    CHECK(!answered(n0), "write answered before the owner");
    const nic_cfg_t *m = &tb.cfg[O_COMP][o0 % LOGN];
    CHECK(tb.ncfg[O_COMP] == o0 + 1 && m->ctx_write && m->ctx_data == d, "write message");
    raise_ev(SRC_COMP, (nic_event_t){.kind = NIC_EV_CTX, .fn = 2, .data = d});
    for (unsigned i = 0; i < 100 && tb.nresp == n0; i++) step();
    CHECK(tb.nresp == n0 + 1 && tb.resp.status == 0 && tb.resp.ctx_data == d, "write answer");
    /* a write of the function's addresses is SET_FN's message to rx_dispatch, the requester
     * and the responder (their copies are the source of every frame), answered by ctrl */
    unsigned q0[N_OUT];
    for (unsigned i = 0; i < N_OUT; i++) q0[i] = tb.ncfg[i];
    n0 = tb.nresp;
    d = (hls_u128)1 << NIC_CTX_FN_VALID | (hls_u128)0x0a000102 << NIC_CTX_FN_IP | 0x02000000abcdull;
    issue(c_ctx(true, 2, NIC_CTX_FN, 0, 0, d));
    for (unsigned i = 0; i < 100 && tb.nresp == n0; i++) step();
    CHECK(tb.nresp == n0 + 1 && tb.resp.status == 0 && tb.resp.ctx_data == d, "FN write answered by ctrl");
    for (unsigned i = 0; i < N_OUT; i++) {
        bool fn_block = i == O_REQ || i == O_RESP || i == O_RXD;
        const nic_cfg_t *f = &tb.cfg[i][(tb.ncfg[i] - 1) % LOGN];
        CHECK(tb.ncfg[i] == q0[i] + fn_block, "output %u got %u messages for the FN write", i, tb.ncfg[i] - q0[i]);
        if (fn_block)
            CHECK(f->kind == NIC_CFG_FN && f->fn == 2 && f->mac == 0x02000000abcdull && f->ip == 0x0a000102 && f->valid,
                  "output %u: FN message (kind %u mac %llx ip %x)", i, f->kind, (unsigned long long)f->mac, f->ip);
    }
    tb_end();
}

static void test_dirty_throttle(void) {
    tb_begin("ctrl: dirty bits of ctrl's rows (set by every write, read-and-clear per function); THROTTLE fan-out");
    tb_reset(15, 50);
    uint8_t st = 0;
    CHECK(ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_QP, 0, &st) == 0 && st == 0, "clean at reset");
    CHECK(create_cq(1, 3, 0x1000, 4) == 0 && create_cq(2, 3, 0x1000, 4) == 0, "cqs");
    CHECK(create_qp(1, 0x25, 3, 3).status == 0, "qp");
    nic_cmd_t mr = c_op(NIC_CMD_REG_MR, 1, 0x3f00); mr.base = 0x1000; mr.len = 64; mr.access = 1;
    CHECK(run(mr).status == 0, "mr");
    CHECK(ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_QP, 0, &st) == 1u << 5, "QP slot 5 dirty");
    CHECK(ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_CQ, 0, &st) == 1u << 3, "CQ slot 3 dirty (create, then refs)");
    CHECK(ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_MR, 0, &st) == (hls_u128)1 << 0x3f, "MR slot 63 dirty");
    CHECK(ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_QP, 0, &st) == 0 && ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_CQ, 0, &st) == 0 &&
          ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_MR, 0, &st) == 0, "cleared by the read");
    CHECK(ctx_read(2, NIC_CTX_DIRTY, NIC_CTX_CTRL_CQ, 0, &st) == 1u << 3, "function 2's own bit, kept by 1's read");
    CHECK(to_state(1, 0x25, NIC_QPS_INIT, M_INIT) == 0, "modify");
    CHECK(ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_QP, 0, &st) == 1u << 5, "modify dirties the row again");
    CHECK(query(1, 0x25).status == 0 && ctx_read(1, NIC_CTX_DIRTY, NIC_CTX_CTRL_QP, 0, &st) == 0, "a read is not a write");
    unsigned before[N_OUT];
    for (unsigned i = 0; i < N_OUT; i++) before[i] = tb.ncfg[i];
    nic_cmd_t t = c_op(NIC_CMD_THROTTLE, 1, 0); t.rate = 123456;
    CHECK(run(t).status == 0, "throttle");
    for (unsigned i = 0; i < N_OUT; i++) {
        bool to = i == O_RESP || i == O_COMP;
        const nic_cfg_t *m = &tb.cfg[i][(tb.ncfg[i] - 1) % LOGN];
        CHECK(tb.ncfg[i] == before[i] + to && (!to || (m->kind == NIC_CFG_THROTTLE && m->fn == 1 && m->rate == 123456)),
              "throttle on output %u", i);
    }
    tb_end();
}

int main(void) {
    test_suspend_transitions();
    test_suspend_wait();
    test_ctx_ctrl();
    test_ctx_forward();
    test_dirty_throttle();
    return tb_exit();
}
