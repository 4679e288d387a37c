/* ctrl_rules.h — the RC QP state machine of IB vol. 1 10.3 / 11.2.4.2 as Linux enforces it
 * (qp_state_table / ib_modify_qp_is_ok in drivers/infiniband/core/verbs.c, RC column), plus
 * the value checks of MODIFY_QP. Differences from the kernel table (docs/ctrl.md): ALT_PATH,
 * PATH_MIG_STATE, EN_SQD_ASYNC_NOTIFY and QKEY are not NIC_QPA_* bits (rejected as unknown);
 * NIC_QPA_BACKOFF (hlsnic's) goes wherever TIMEOUT may. */
#ifndef CTRL_RULES_H
#define CTRL_RULES_H

#include "nic_if.h"

#define QPA_KNOWN                                                                                  \
    (NIC_QPA_STATE | NIC_QPA_CUR_STATE | NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT |      \
     NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |      \
     NIC_QPA_RQ_PSN | NIC_QPA_MAX_QP_RD_ATOMIC | NIC_QPA_MIN_RNR_TIMER | NIC_QPA_SQ_PSN |          \
     NIC_QPA_MAX_DEST_RD_ATOMIC | NIC_QPA_DEST_QPN | NIC_QPA_BACKOFF)

/* Is cur -> next allowed; which attributes it requires and which it accepts besides. */
HLS_INLINE bool qp_transition(unsigned cur, unsigned next, uint32_t *req, uint32_t *opt) {
    *req = 0;
    *opt = 0;
    if (next == NIC_QPS_RESET || next == NIC_QPS_ERR) return true; /* from any state */
    switch (cur * 8 + next) {
    case NIC_QPS_RESET * 8 + NIC_QPS_INIT:
        *req = NIC_QPA_PKEY_INDEX | NIC_QPA_PORT | NIC_QPA_ACCESS;
        return true;
    case NIC_QPS_INIT * 8 + NIC_QPS_INIT:
        *opt = NIC_QPA_PKEY_INDEX | NIC_QPA_PORT | NIC_QPA_ACCESS;
        return true;
    case NIC_QPS_INIT * 8 + NIC_QPS_RTR:
        *req = NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
               NIC_QPA_MAX_DEST_RD_ATOMIC | NIC_QPA_MIN_RNR_TIMER;
        *opt = NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX;
        return true;
    case NIC_QPS_RTR * 8 + NIC_QPS_RTS:
        *req = NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
               NIC_QPA_MAX_QP_RD_ATOMIC;
        *opt = NIC_QPA_CUR_STATE | NIC_QPA_ACCESS | NIC_QPA_MIN_RNR_TIMER | NIC_QPA_BACKOFF;
        return true;
    case NIC_QPS_RTS * 8 + NIC_QPS_RTS:
    case NIC_QPS_SQD * 8 + NIC_QPS_RTS:
        *opt = NIC_QPA_CUR_STATE | NIC_QPA_ACCESS | NIC_QPA_MIN_RNR_TIMER;
        return true;
    case NIC_QPS_RTS * 8 + NIC_QPS_SQD:
    case NIC_QPS_SQE * 8 + NIC_QPS_RTS:
        return true;
    case NIC_QPS_SQD * 8 + NIC_QPS_SQD:
        *opt = NIC_QPA_PORT | NIC_QPA_AV | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
               NIC_QPA_MAX_QP_RD_ATOMIC | NIC_QPA_MAX_DEST_RD_ATOMIC | NIC_QPA_ACCESS |
               NIC_QPA_PKEY_INDEX | NIC_QPA_MIN_RNR_TIMER | NIC_QPA_BACKOFF;
        return true;
    default:
        return false;
    }
}

/* The field code of the lowest attribute bit set in m (ibv_qp_attr_mask order). */
HLS_INLINE uint8_t attr_field(uint32_t m) {
    if (m & NIC_QPA_CUR_STATE) return NIC_CMD_F_CUR_STATE;
    if (m & NIC_QPA_ACCESS) return NIC_CMD_F_ACCESS;
    if (m & NIC_QPA_PKEY_INDEX) return NIC_CMD_F_PKEY_INDEX;
    if (m & NIC_QPA_PORT) return NIC_CMD_F_PORT;
    if (m & NIC_QPA_AV) return NIC_CMD_F_AV;
    if (m & NIC_QPA_PATH_MTU) return NIC_CMD_F_PATH_MTU;
    if (m & NIC_QPA_TIMEOUT) return NIC_CMD_F_TIMEOUT;
    if (m & NIC_QPA_RETRY_CNT) return NIC_CMD_F_RETRY_CNT;
    if (m & NIC_QPA_RNR_RETRY) return NIC_CMD_F_RNR_RETRY;
    if (m & NIC_QPA_RQ_PSN) return NIC_CMD_F_RQ_PSN;
    if (m & NIC_QPA_MAX_QP_RD_ATOMIC) return NIC_CMD_F_MAX_RD_ATOMIC;
    if (m & NIC_QPA_MIN_RNR_TIMER) return NIC_CMD_F_MIN_RNR_TIMER;
    if (m & NIC_QPA_SQ_PSN) return NIC_CMD_F_SQ_PSN;
    if (m & NIC_QPA_MAX_DEST_RD_ATOMIC) return NIC_CMD_F_MAX_DEST_RD_ATOMIC;
    if (m & NIC_QPA_DEST_QPN) return NIC_CMD_F_DEST_QPN;
    if (m & NIC_QPA_BACKOFF) return NIC_CMD_F_BACKOFF;
    return NIC_CMD_F_MASK;
}

/* A unicast Ethernet address that fits 48 bits (the I/G bit is bit 40: first byte, bit 0). */
HLS_INLINE bool mac_ok(uint64_t mac) { return mac != 0 && (mac >> 48) == 0 && ((mac >> 40) & 1) == 0; }

/* MODIFY_QP from state cur: NIC_CMD_OK, or the error and *field. */
HLS_INLINE uint8_t check_modify(unsigned cur, uint32_t mask, const nic_qp_attr_t *a, uint8_t *field) {
    unsigned next = (mask & NIC_QPA_STATE) ? (unsigned)a->state : cur;
    uint32_t req = 0, opt = 0;
    uint32_t attrs = mask & ~(uint32_t)NIC_QPA_STATE;
    *field = NIC_CMD_F_NONE;
    if (mask & ~(uint32_t)QPA_KNOWN) { *field = NIC_CMD_F_MASK; return NIC_CMD_EINVAL; }
    if (next > NIC_QPS_ERR) { *field = NIC_CMD_F_STATE; return NIC_CMD_EINVAL; }
    if (!qp_transition(cur, next, &req, &opt)) { *field = NIC_CMD_F_STATE; return NIC_CMD_ESTATE; }
    if (req & ~attrs) { *field = attr_field(req & ~attrs); return NIC_CMD_EINVAL; }
    if (attrs & ~(req | opt)) { *field = attr_field(attrs & ~(req | opt)); return NIC_CMD_EINVAL; }
    /* value checks, in mask bit order so the lowest wrong attribute is named */
    if ((mask & NIC_QPA_CUR_STATE) && a->cur_state != cur) *field = NIC_CMD_F_CUR_STATE;
    else if ((mask & NIC_QPA_ACCESS) && (a->access & ~0xFu)) *field = NIC_CMD_F_ACCESS;
    else if ((mask & NIC_QPA_PKEY_INDEX) && a->pkey_index != 0) *field = NIC_CMD_F_PKEY_INDEX;
    else if ((mask & NIC_QPA_PORT) && a->port_num != 1) *field = NIC_CMD_F_PORT;
    else if ((mask & NIC_QPA_AV) && (!mac_ok(a->dst_mac) || a->dst_ip == 0)) *field = NIC_CMD_F_AV;
    else if ((mask & NIC_QPA_PATH_MTU) && (a->pmtu < 1 || a->pmtu > 5)) *field = NIC_CMD_F_PATH_MTU;
    else if ((mask & NIC_QPA_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > NIC_MAX_RD_ATOMIC)
        *field = NIC_CMD_F_MAX_RD_ATOMIC;
    else if ((mask & NIC_QPA_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > NIC_MAX_DEST_RD_ATOMIC)
        *field = NIC_CMD_F_MAX_DEST_RD_ATOMIC;
    else if ((mask & NIC_QPA_BACKOFF) && a->backoff && (a->backoff_first == 0 || a->backoff_first > a->backoff_cap))
        *field = NIC_CMD_F_BACKOFF;
    return *field == NIC_CMD_F_NONE ? NIC_CMD_OK : NIC_CMD_EINVAL;
}

/* The row's attributes after a MODIFY_QP that check_modify accepted. */
HLS_INLINE nic_qp_attr_t apply_modify(nic_qp_attr_t q, uint32_t mask, const nic_qp_attr_t *a) {
    if (mask & NIC_QPA_STATE) q.state = a->state;
    if (mask & NIC_QPA_ACCESS) q.access = a->access;
    if (mask & NIC_QPA_AV) { q.dst_mac = a->dst_mac; q.dst_ip = a->dst_ip; q.udp_sport = a->udp_sport; }
    if (mask & NIC_QPA_PATH_MTU) q.pmtu = a->pmtu;
    if (mask & NIC_QPA_TIMEOUT) q.timeout = a->timeout;
    if (mask & NIC_QPA_RETRY_CNT) q.retry_cnt = a->retry_cnt;
    if (mask & NIC_QPA_RNR_RETRY) q.rnr_retry = a->rnr_retry;
    if (mask & NIC_QPA_RQ_PSN) q.rq_psn = a->rq_psn;
    if (mask & NIC_QPA_MIN_RNR_TIMER) q.min_rnr_timer = a->min_rnr_timer;
    if (mask & NIC_QPA_SQ_PSN) q.sq_psn = a->sq_psn;
    if (mask & NIC_QPA_DEST_QPN) q.dest_qpn = a->dest_qpn;
    if (mask & NIC_QPA_PKEY_INDEX) q.pkey_index = a->pkey_index;
    if (mask & NIC_QPA_PORT) q.port_num = a->port_num;
    if (mask & NIC_QPA_MAX_QP_RD_ATOMIC) q.max_rd_atomic = a->max_rd_atomic;
    if (mask & NIC_QPA_MAX_DEST_RD_ATOMIC) q.max_dest_rd_atomic = a->max_dest_rd_atomic;
    if (mask & NIC_QPA_BACKOFF) {
        q.backoff = a->backoff;
        q.backoff_first = a->backoff_first;
        q.backoff_cap = a->backoff_cap;
    }
    return q;
}

#endif /* CTRL_RULES_H */
