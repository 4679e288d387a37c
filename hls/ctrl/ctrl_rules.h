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
    switch ((cur & 7u) << 3 | (next & 7u)) {   /* states are 3 bits: a concatenation, not an add */
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

/* The field code of the lowest attribute bit set in m (ibv_qp_attr_mask order is bit order):
 * the bit isolated (m & -m), then each code ORed in under its one bit, so the answer is a
 * few LUTs wide instead of a chain of 16 tests. NIC_CMD_F_MASK when m has no attribute bit. */
#define ATTR_CODE(bit, f) (((lowest & (bit)) != 0) ? (unsigned)(f) : 0u)
HLS_INLINE uint8_t attr_field(uint32_t m) {
    uint32_t named = m & (QPA_KNOWN & ~(uint32_t)NIC_QPA_STATE);   /* bits with a field code */
    uint32_t lowest = named & (0u - named);
    unsigned f = ATTR_CODE(NIC_QPA_CUR_STATE, NIC_CMD_F_CUR_STATE) | ATTR_CODE(NIC_QPA_ACCESS, NIC_CMD_F_ACCESS) |
                 ATTR_CODE(NIC_QPA_PKEY_INDEX, NIC_CMD_F_PKEY_INDEX) | ATTR_CODE(NIC_QPA_PORT, NIC_CMD_F_PORT) |
                 ATTR_CODE(NIC_QPA_AV, NIC_CMD_F_AV) | ATTR_CODE(NIC_QPA_PATH_MTU, NIC_CMD_F_PATH_MTU) |
                 ATTR_CODE(NIC_QPA_TIMEOUT, NIC_CMD_F_TIMEOUT) | ATTR_CODE(NIC_QPA_RETRY_CNT, NIC_CMD_F_RETRY_CNT) |
                 ATTR_CODE(NIC_QPA_RNR_RETRY, NIC_CMD_F_RNR_RETRY) | ATTR_CODE(NIC_QPA_RQ_PSN, NIC_CMD_F_RQ_PSN) |
                 ATTR_CODE(NIC_QPA_MAX_QP_RD_ATOMIC, NIC_CMD_F_MAX_RD_ATOMIC) |
                 ATTR_CODE(NIC_QPA_MIN_RNR_TIMER, NIC_CMD_F_MIN_RNR_TIMER) | ATTR_CODE(NIC_QPA_SQ_PSN, NIC_CMD_F_SQ_PSN) |
                 ATTR_CODE(NIC_QPA_MAX_DEST_RD_ATOMIC, NIC_CMD_F_MAX_DEST_RD_ATOMIC) |
                 ATTR_CODE(NIC_QPA_DEST_QPN, NIC_CMD_F_DEST_QPN) | ATTR_CODE(NIC_QPA_BACKOFF, NIC_CMD_F_BACKOFF);
    return lowest != 0 ? (uint8_t)f : (uint8_t)NIC_CMD_F_MASK;
}
#undef ATTR_CODE

/* A unicast Ethernet address that fits 48 bits (the I/G bit is bit 40: first byte, bit 0). */
HLS_INLINE bool mac_ok(uint64_t mac) { return mac != 0 && (mac >> 48) == 0 && ((mac >> 40) & 1) == 0; }

/* MODIFY_QP's checks come in the order the answer names them: the mask and the target state,
 * the transition with its required and allowed attributes, then the values in mask bit order
 * (so the lowest wrong attribute is named). In pieces, so that ctrl runs the ones that need
 * only the command, the facts from the QP's row and the verdict in three cycles
 * (docs/ctrl.md, FSM). */

/* The mask and the target state, from the command alone: the field, or NIC_CMD_F_NONE. */
HLS_INLINE uint8_t modify_mask_field(uint32_t mask, const nic_qp_attr_t *a) {
    if (mask & ~(uint32_t)QPA_KNOWN) return NIC_CMD_F_MASK;
    /* without the STATE bit the target is the current state, always valid */
    if ((mask & NIC_QPA_STATE) && a->state > NIC_QPS_ERR) return NIC_CMD_F_STATE;
    return NIC_CMD_F_NONE;
}

/* The values, from the command alone, all but CUR_STATE (which needs the row). */
HLS_INLINE uint8_t modify_value_field(uint32_t mask, const nic_qp_attr_t *a) {
    if ((mask & NIC_QPA_ACCESS) && (a->access & ~0xFu)) return NIC_CMD_F_ACCESS;
    if ((mask & NIC_QPA_PKEY_INDEX) && a->pkey_index != 0) return NIC_CMD_F_PKEY_INDEX;
    if ((mask & NIC_QPA_PORT) && a->port_num != 1) return NIC_CMD_F_PORT;
    if ((mask & NIC_QPA_AV) && (!mac_ok(a->dst_mac) || a->dst_ip == 0)) return NIC_CMD_F_AV;
    if ((mask & NIC_QPA_PATH_MTU) && (a->pmtu < 1 || a->pmtu > 5)) return NIC_CMD_F_PATH_MTU;
    if ((mask & NIC_QPA_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > NIC_MAX_RD_ATOMIC)
        return NIC_CMD_F_MAX_RD_ATOMIC;
    if ((mask & NIC_QPA_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > NIC_MAX_DEST_RD_ATOMIC)
        return NIC_CMD_F_MAX_DEST_RD_ATOMIC;
    if ((mask & NIC_QPA_BACKOFF) && a->backoff && (a->backoff_first == 0 || a->backoff_first > a->backoff_cap))
        return NIC_CMD_F_BACKOFF;
    return NIC_CMD_F_NONE;
}

/* What the QP's current state says about the command: the transition is allowed, which
 * attributes it requires that the mask lacks, which the mask has that it does not accept,
 * and whether CUR_STATE is given and wrong. */
typedef struct {
    bool allowed;
    uint32_t missing, extra;
    bool cur_wrong;
} modify_facts;

HLS_INLINE modify_facts modify_facts_of(unsigned cur, uint32_t mask, const nic_qp_attr_t *a) {
    unsigned next = (mask & NIC_QPA_STATE) ? (unsigned)a->state : cur;
    uint32_t req = 0, opt = 0;
    uint32_t attrs = mask & ~(uint32_t)NIC_QPA_STATE;
    modify_facts f;
    f.allowed = qp_transition(cur, next, &req, &opt);
    f.missing = req & ~attrs;
    f.extra = attrs & ~(req | opt);
    f.cur_wrong = (mask & NIC_QPA_CUR_STATE) && a->cur_state != cur;
    return f;
}

/* The verdict from the three pieces: NIC_CMD_OK, or the error and *field. */
HLS_INLINE uint8_t modify_verdict(const modify_facts *f, uint8_t mask_field, uint8_t value_field, uint8_t *field) {
    *field = mask_field;
    if (mask_field != NIC_CMD_F_NONE) return NIC_CMD_EINVAL;
    if (!f->allowed) { *field = NIC_CMD_F_STATE; return NIC_CMD_ESTATE; }
    if (f->missing) { *field = attr_field(f->missing); return NIC_CMD_EINVAL; }
    if (f->extra) { *field = attr_field(f->extra); return NIC_CMD_EINVAL; }
    *field = f->cur_wrong ? NIC_CMD_F_CUR_STATE : value_field;
    return *field == NIC_CMD_F_NONE ? NIC_CMD_OK : NIC_CMD_EINVAL;
}

/* MODIFY_QP from state cur: NIC_CMD_OK, or the error and *field (all three pieces). */
HLS_INLINE uint8_t check_modify(unsigned cur, uint32_t mask, const nic_qp_attr_t *a, uint8_t *field) {
    modify_facts f = modify_facts_of(cur, mask, a);
    return modify_verdict(&f, modify_mask_field(mask, a), modify_value_field(mask, a), field);
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
