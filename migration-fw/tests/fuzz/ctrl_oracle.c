/* ctrl_oracle.c — see ctrl_oracle.h. Rows are read by nic_ctx.h's positions; a QP row as
 * ctrl's ctrl_qp_row_t. */
#include "ctrl_oracle.h"

#include <string.h>

#include "ctrl_rows.h"
#include "ctrl_rules.h"
#include "mig_record.h"
#include "nic_ctx.h"

typedef const uint32_t *words_t;

static uint64_t get(words_t w, unsigned bit, unsigned width) { return mig_words_get(w, bit, width); }

static words_t section(const struct stub_nic *n, unsigned t, unsigned s, unsigned fn, unsigned row)
{
    return n->rows[t][s][fn][row];
}

/* ctrl's QP row as ctrl's own type (its fields sit at nic_ctx.h's positions: ctrl_ctx.h
 * asserts it); false if a field is wider than nic_qp_attr_t keeps (row_attr would cut it) */
static bool qp_attr(words_t w, nic_qp_attr_t *a)
{
    ctrl_qp_row_t r;
    memcpy(&r, w, sizeof r);
    *a = row_attr(&r);
    return r.state <= 7 && r.pmtu <= 7 && r.qpn >> 24 == 0 && r.dest_qpn >> 24 == 0 && r.timeout <= 31 &&
           r.retry_cnt <= 7 && r.rnr_retry <= 7 && r.min_rnr_timer <= 31 && r.backoff <= 1 &&
           r.backoff_first <= 31 && r.backoff_cap <= 31 && r.sq_log <= 31 && r.rq_log <= 31;
}

/* one MODIFY_QP to `next` with `mask`, the values taken from want, as ctrl checks and applies it */
static bool modify(unsigned *cur, unsigned next, uint32_t mask, const nic_qp_attr_t *want, nic_qp_attr_t *have)
{
    nic_qp_attr_t a = *want;
    uint8_t field;
    a.state = next;
    if (check_modify(*cur, mask | NIC_QPA_STATE, &a, &field) != NIC_CMD_OK) return false;
    *have = apply_modify(*have, mask | NIC_QPA_STATE, &a);
    *cur = next;
    return true;
}

/* Could CREATE_QP and MODIFY_QPs have left these attributes? PORT is 0 until RESET -> INIT,
 * PMTU 0 until INIT -> RTR, so they say how far the QP has been: replay those steps with the
 * row's values (ctrl's checks), then every attribute must be what the steps set (the rest
 * as CREATE_QP left them) and the state one reachable from there. SQ_PSN / RQ_PSN are not
 * compared: a load sets them to the PSNs reached. */
static bool qp_reachable(const nic_qp_attr_t *want)
{
    nic_qp_attr_t have = { 0 };
    have.qpn = want->qpn, have.pd = want->pd, have.sq_base = want->sq_base, have.rq_base = want->rq_base;
    have.sq_log = want->sq_log, have.rq_log = want->rq_log;
    have.send_cq = want->send_cq, have.recv_cq = want->recv_cq;
    unsigned cur = NIC_QPS_RESET, steps = want->port_num == 0 ? 0 : want->pmtu == 0 ? 1 : 3;
    if (steps >= 1 && !modify(&cur, NIC_QPS_INIT, NIC_QPA_PKEY_INDEX | NIC_QPA_PORT | NIC_QPA_ACCESS, want, &have))
        return false;
    if (steps >= 3 && !modify(&cur, NIC_QPS_RTR, NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
                              NIC_QPA_MAX_DEST_RD_ATOMIC | NIC_QPA_MIN_RNR_TIMER, want, &have))
        return false;
    if (steps >= 3 && !modify(&cur, NIC_QPS_RTS, NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT |
                              NIC_QPA_RNR_RETRY | NIC_QPA_MAX_QP_RD_ATOMIC | NIC_QPA_BACKOFF, want, &have))
        return false;
    have.sq_psn = want->sq_psn, have.rq_psn = want->rq_psn;
    if (have.pmtu != want->pmtu || have.qpn != want->qpn ||
        have.dest_qpn != want->dest_qpn || have.dst_mac != want->dst_mac || have.dst_ip != want->dst_ip ||
        have.udp_sport != want->udp_sport || have.pd != want->pd || have.access != want->access ||
        have.timeout != want->timeout || have.retry_cnt != want->retry_cnt || have.rnr_retry != want->rnr_retry ||
        have.min_rnr_timer != want->min_rnr_timer || have.backoff != want->backoff ||
        have.backoff_first != want->backoff_first || have.backoff_cap != want->backoff_cap ||
        have.pkey_index != want->pkey_index || have.port_num != want->port_num ||
        have.max_rd_atomic != want->max_rd_atomic || have.max_dest_rd_atomic != want->max_dest_rd_atomic)
        return false;
    /* from RESET: RESET or ERR; from INIT: INIT too; from RTS: any (back through RESET) */
    unsigned s = want->state;
    if (steps == 0) return s == NIC_QPS_RESET || s == NIC_QPS_ERR;
    if (steps == 1) return s == NIC_QPS_RESET || s == NIC_QPS_INIT || s == NIC_QPS_ERR;
    return s <= NIC_QPS_ERR;
}

static bool cq_valid(const struct stub_nic *n, unsigned fn, unsigned slot)
{
    return slot < n->caps.rows[MIG_TABLE_CQ] && get(section(n, MIG_TABLE_CQ, MIG_SEC_CQ_CTRL, fn, slot), NIC_CTX_CQ_VALID, 8);
}

static const char *check_qps(const struct stub_nic *n, unsigned fn, unsigned *row, unsigned refs[])
{
    for (unsigned q = 0; q < n->caps.rows[MIG_TABLE_QP]; q++) {
        words_t w = section(n, MIG_TABLE_QP, MIG_SEC_QP_CTRL, fn, q);
        words_t req = section(n, MIG_TABLE_QP, MIG_SEC_QP_REQ, fn, q);
        nic_qp_attr_t a;
        *row = q;
        if (!get(w, NIC_CTX_QP_VALID, 8)) continue;
        if (!qp_attr(w, &a)) return "QP: a field wider than ctrl keeps";
        /* CREATE_QP (ctrl.c): qpn 2..2^24-1, rings aligned and at most 2^15, CQs of this function */
        if (a.qpn < 2 || a.qpn % n->caps.rows[MIG_TABLE_QP] != q) return "QP: qpn";
        if ((a.sq_base & 63) || a.sq_log > 15 || (a.rq_base & 31) || a.rq_log > 15) return "QP: rings";
        if (!cq_valid(n, fn, a.send_cq) || !cq_valid(n, fn, a.recv_cq)) return "QP: a CQ that is not there";
        refs[a.send_cq]++, refs[a.recv_cq]++;
        if (!qp_reachable(&a)) return "QP: attributes no MODIFY_QP sequence gives";
        /* the requester's place: SQ_HEAD within una .. sq_hi, at una with nothing outstanding */
        uint16_t una = (uint16_t)get(req, NIC_CTX_REQ_UNA, 16), hi = (uint16_t)get(req, NIC_CTX_REQ_SQ_HI, 16);
        uint16_t head = (uint16_t)get(req, NIC_CTX_REQ_SQ_HEAD, 16);
        if ((uint16_t)(head - una) > (uint16_t)(hi - una) || (uint16_t)(hi - una) > 16) return "QP: send position";
    }
    return 0;
}

static const char *check_cqs(const struct stub_nic *n, unsigned fn, unsigned *row, const unsigned refs[])
{
    for (unsigned c = 0; c < n->caps.rows[MIG_TABLE_CQ]; c++) {
        words_t w = section(n, MIG_TABLE_CQ, MIG_SEC_CQ_CTRL, fn, c), cqw = section(n, MIG_TABLE_CQ, MIG_SEC_CQ_CQW, fn, c);
        *row = c;
        if (!get(w, NIC_CTX_CQ_VALID, 8)) {
            if (refs[c]) return "CQ: named by a QP, not valid";
            continue;
        }
        /* CREATE_CQ (ctrl.c): cqn < 2^24, base 32-byte aligned, log <= 15; refs counts QPs */
        uint64_t cqn = get(w, NIC_CTX_CQ_CQN, 32), base = get(w, NIC_CTX_CQ_BASE, 64), log = get(w, NIC_CTX_CQ_LOG, 8);
        if (cqn >> 24 || cqn % n->caps.rows[MIG_TABLE_CQ] != c) return "CQ: cqn";
        if ((base & 31) || log > 15) return "CQ: base or log";
        if (get(w, NIC_CTX_CQ_REFS, 8) != refs[c]) return "CQ: refs is not the QPs naming it";
        /* cq_writer's copy of the configuration is ctrl's */
        if (!get(cqw, NIC_CTX_CQW_VALID, 8) || get(cqw, NIC_CTX_CQW_CQN, 32) != cqn ||
            get(cqw, NIC_CTX_CQW_BASE, 64) != base || get(cqw, NIC_CTX_CQW_LOG, 8) != log)
            return "CQ: cq_writer's copy differs";
    }
    return 0;
}

static const char *check_mrs(const struct stub_nic *n, unsigned fn, unsigned *row)
{
    for (unsigned m = 0; m < n->caps.rows[MIG_TABLE_MR]; m++) {
        words_t w = section(n, MIG_TABLE_MR, MIG_SEC_MR_CTRL, fn, m);
        *row = m;
        if (!get(w, NIC_CTX_MR_VALID, 8)) continue;
        /* REG_MR (ctrl.c): NIC_ACC_* only, remote write / atomic need local write; len != 0,
         * base + len does not wrap */
        uint64_t access = get(w, NIC_CTX_MR_ACCESS, 8), base = get(w, NIC_CTX_MR_BASE, 64), len = get(w, NIC_CTX_MR_LEN, 64);
        if ((access & ~0xFull) ||
            ((access & (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_ATOMIC)) && !(access & NIC_ACC_LOCAL_WRITE)))
            return "MR: access";
        if (len == 0 || base + len < base) return "MR: len";
        if ((get(w, NIC_CTX_MR_KEY, 32) >> 8) % n->caps.rows[MIG_TABLE_MR] != m) return "MR: key";
    }
    return 0;
}

const char *ctrl_oracle_fn(const struct stub_nic *n, unsigned fn, unsigned *row)
{
    unsigned refs[MIG_MAX_ROWS] = { 0 };
    const char *why = check_qps(n, fn, row, refs);
    if (!why) why = check_cqs(n, fn, row, refs);
    if (!why) why = check_mrs(n, fn, row);
    if (why) return why;
    /* SET_FN (ctrl.c): a unicast MAC and an IP, with VALID; before it, nothing */
    words_t w = section(n, MIG_TABLE_FN, MIG_SEC_FN_RXD, fn, 0);
    uint64_t mac = get(w, NIC_CTX_FN_MAC, 48), ip = get(w, NIC_CTX_FN_IP, 32);
    *row = 0;
    if (get(w, NIC_CTX_FN_VALID, 1) ? !mac_ok(mac) || ip == 0 : mac != 0 || ip != 0) return "FN: address";
    return 0;
}
