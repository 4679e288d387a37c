/* ctrl_tb.h — the harness of ctrl's unit tests (ctrl_test.c, ctrl_mig_test.c): drives ctrl
 * cycle by cycle with a host issuing commands, five configuration consumers with random
 * (often slow) ready, six datapath event sources and an async sink, and records every
 * configuration message (exactly one copy per consumer, held stable while not taken). */
#ifndef CTRL_TB_H
#define CTRL_TB_H
#include <stdlib.h>
#include <string.h>

#include "../ctrl.c"
#include "prng.h"
#include "tb_check.h"

enum { O_REQ, O_RESP, O_COMP, O_CQW, O_RXD, N_OUT };
#define LOGN 64
typedef struct {
    ctrl_state st;
    prng_t r;
    unsigned ready_pct[N_OUT];
    nic_cmd_t cmd; bool cmd_v;
    nic_event_t ev[N_SRC]; bool ev_v[N_SRC];   /* SRC_*: comp, resp, cqw, rxd, tx, req */
    nic_cfg_t cfg[N_OUT][LOGN]; unsigned ncfg[N_OUT];
    nic_cfg_t offered[N_OUT]; bool was_offered[N_OUT];
    unsigned unstable;                          /* cycles a cfg output changed while waiting */
    nic_event_t async[LOGN]; unsigned nasync;
    nic_cmd_resp_t resp; unsigned nresp;
    uint64_t cycle;
} tb_t;
static tb_t tb;
static hls_edge_queue *edges; /* ctrl's memory edges (hls.h); outlives tb_reset */

static void tb_reset(uint64_t seed, unsigned ready_pct) {
    if (!edges) edges = hls_edge_queue_new();
    memset(&tb, 0, sizeof tb);
    prng_seed(&tb.r, seed);
    for (unsigned i = 0; i < N_OUT; i++) tb.ready_pct[i] = ready_pct;
}
static bool chance(unsigned pct) { return prng_below(&tb.r, 100) < pct; }

static void step(void) {
    ctrl_in in = {0};
    ctrl_out out = {0};
    in.cmd.valid = tb.cmd_v; in.cmd.data = tb.cmd;
    in.ev_comp.valid = tb.ev_v[0]; in.ev_comp.data = tb.ev[0];
    in.ev_resp.valid = tb.ev_v[1]; in.ev_resp.data = tb.ev[1];
    in.ev_cqw.valid = tb.ev_v[2]; in.ev_cqw.data = tb.ev[2];
    in.ev_rxd.valid = tb.ev_v[3]; in.ev_rxd.data = tb.ev[3];
    in.ev_tx.valid = tb.ev_v[4]; in.ev_tx.data = tb.ev[4];
    in.ev_req.valid = tb.ev_v[5]; in.ev_req.data = tb.ev[5];
    bool rdy[N_OUT];
    for (unsigned i = 0; i < N_OUT; i++) rdy[i] = chance(tb.ready_pct[i]);
    in.cfg_req_ready = rdy[O_REQ]; in.cfg_resp_ready = rdy[O_RESP]; in.cfg_comp_ready = rdy[O_COMP];
    in.cfg_cqw_ready = rdy[O_CQW]; in.cfg_rxd_ready = rdy[O_RXD];
    in.cmd_resp_ready = chance(70);
    in.async_ready = chance(70);
    hls_edge_queue_bind(edges);
    ctrl(&in, &out, &tb.st);
    hls_clock_edge(edges);
    if (in.cmd.valid && out.cmd_ready) tb.cmd_v = false;
    if (in.ev_comp.valid && out.ev_comp_ready) tb.ev_v[0] = false;
    if (in.ev_resp.valid && out.ev_resp_ready) tb.ev_v[1] = false;
    if (in.ev_cqw.valid && out.ev_cqw_ready) tb.ev_v[2] = false;
    if (in.ev_rxd.valid && out.ev_rxd_ready) tb.ev_v[3] = false;
    if (in.ev_tx.valid && out.ev_tx_ready) tb.ev_v[4] = false;
    if (in.ev_req.valid && out.ev_req_ready) tb.ev_v[5] = false;
    const HLS_STREAM(nic_cfg_t) *o[N_OUT] = {(void *)&out.cfg_req, (void *)&out.cfg_resp, (void *)&out.cfg_comp,
                                             (void *)&out.cfg_cqw, (void *)&out.cfg_rxd};
    for (unsigned i = 0; i < N_OUT; i++) {
        if (!o[i]->valid) { if (tb.was_offered[i]) tb.unstable++; tb.was_offered[i] = false; continue; }
        if (tb.was_offered[i] && memcmp(&tb.offered[i], &o[i]->data, sizeof(nic_cfg_t))) tb.unstable++;
        tb.offered[i] = o[i]->data;
        tb.was_offered[i] = !rdy[i];
        if (rdy[i]) tb.cfg[i][tb.ncfg[i]++ % LOGN] = o[i]->data;   /* ring: the last LOGN */
    }
    if (out.async.valid && in.async_ready && tb.nasync < LOGN) tb.async[tb.nasync++] = out.async.data;
    if (out.cmd_resp.valid && in.cmd_resp_ready) { tb.resp = out.cmd_resp.data; tb.nresp++; }
    tb.cycle++;
}
static void idle(unsigned n) { for (unsigned i = 0; i < n; i++) step(); }

static nic_cmd_resp_t run(nic_cmd_t c) {
    unsigned n0 = tb.nresp;
    tb.cmd = c; tb.cmd_v = true;
    for (unsigned i = 0; i < 2000 && tb.nresp == n0; i++) step();
    if (tb.nresp == n0) { nic_cmd_resp_t none = {0}; none.status = 0xEE; return none; }
    return tb.resp;
}
static unsigned total_cfg(void) { unsigned n = 0; for (unsigned i = 0; i < N_OUT; i++) n += tb.ncfg[i]; return n; }

/* ---- command builders ---- */
static nic_cmd_t c_op(uint8_t op, unsigned fn, uint32_t num) {
    nic_cmd_t c; memset(&c, 0, sizeof c); c.op = op; c.fn = (nic_fn_t)fn; c.num = num; return c;
}
static uint8_t create_cq(unsigned fn, uint32_t cqn, uint64_t base, unsigned log) {
    nic_cmd_t c = c_op(NIC_CMD_CREATE_CQ, fn, cqn); c.base = base; c.log = (hls_uint(5))log;
    return run(c).status;
}
static nic_cq_t cqrow(unsigned fn, uint32_t cqn) { return (nic_cq_t)(fn * 16 + cqn % 16); }
static nic_cmd_resp_t create_qp(unsigned fn, uint32_t qpn, uint32_t scqn, uint32_t rcqn) {
    nic_cmd_t c = c_op(NIC_CMD_CREATE_QP, fn, qpn);
    c.qp.pd = 7; c.qp.sq_base = 0x10000 + qpn * 0x1000; c.qp.rq_base = 0x80000 + qpn * 0x800;
    c.qp.sq_log = 6; c.qp.rq_log = 5; c.qp.send_cq = cqrow(fn, scqn); c.qp.recv_cq = cqrow(fn, rcqn);
    return run(c);
}
/* The attributes each transition needs, with fixed values the tests check for. */
static nic_cmd_t modify(unsigned fn, uint32_t qpn, unsigned to, uint32_t mask) {
    nic_cmd_t c = c_op(NIC_CMD_MODIFY_QP, fn, qpn);
    c.mask = mask | NIC_QPA_STATE;
    c.qp.state = (hls_uint(3))to; c.qp.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ;
    c.qp.dst_mac = 0x02aabbccddeeull; c.qp.dst_ip = 0x0a000002; c.qp.udp_sport = 0xC123;
    c.qp.pmtu = 3; c.qp.dest_qpn = 0x000abc; c.qp.rq_psn = 0x123456; c.qp.sq_psn = 0xfffff0;
    c.qp.timeout = 14; c.qp.retry_cnt = 7; c.qp.rnr_retry = 6; c.qp.min_rnr_timer = 12;
    c.qp.backoff = 1; c.qp.backoff_first = 3; c.qp.backoff_cap = 9;
    c.qp.pkey_index = 0; c.qp.port_num = 1; c.qp.max_rd_atomic = 16; c.qp.max_dest_rd_atomic = 4;
    return c;
}
/* The RC required attributes of kernel verbs.c qp_state_table, written out again here. */
#define M_INIT (NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT)
#define M_RTR (NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN | NIC_QPA_MAX_DEST_RD_ATOMIC | \
               NIC_QPA_MIN_RNR_TIMER)
#define M_RTS (NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY | NIC_QPA_MAX_QP_RD_ATOMIC)
static uint8_t to_state(unsigned fn, uint32_t qpn, unsigned to, uint32_t mask) { return run(modify(fn, qpn, to, mask)).status; }
static bool bring_to_rts(unsigned fn, uint32_t qpn) {
    return to_state(fn, qpn, NIC_QPS_INIT, M_INIT) == 0 && to_state(fn, qpn, NIC_QPS_RTR, M_RTR) == 0 &&
           to_state(fn, qpn, NIC_QPS_RTS, M_RTS) == 0;
}
static nic_cmd_resp_t query(unsigned fn, uint32_t qpn) { return run(c_op(NIC_CMD_QUERY_QP, fn, qpn)); }
static bool attr_eq(const nic_qp_attr_t *a, const nic_qp_attr_t *b) {
    return a->state == b->state && a->pmtu == b->pmtu && a->qpn == b->qpn && a->dest_qpn == b->dest_qpn &&
           a->sq_psn == b->sq_psn && a->rq_psn == b->rq_psn && a->dst_mac == b->dst_mac && a->dst_ip == b->dst_ip &&
           a->udp_sport == b->udp_sport && a->pd == b->pd && a->access == b->access && a->timeout == b->timeout &&
           a->retry_cnt == b->retry_cnt && a->rnr_retry == b->rnr_retry && a->min_rnr_timer == b->min_rnr_timer &&
           a->backoff == b->backoff && a->backoff_first == b->backoff_first && a->backoff_cap == b->backoff_cap &&
           a->sq_base == b->sq_base && a->rq_base == b->rq_base && a->sq_log == b->sq_log && a->rq_log == b->rq_log &&
           a->send_cq == b->send_cq && a->recv_cq == b->recv_cq && a->pkey_index == b->pkey_index &&
           a->port_num == b->port_num && a->max_rd_atomic == b->max_rd_atomic &&
           a->max_dest_rd_atomic == b->max_dest_rd_atomic && a->cur_state == b->cur_state;
}

#endif /* CTRL_TB_H */
