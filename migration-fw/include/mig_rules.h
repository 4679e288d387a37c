/* mig_rules.h — the values ctrl refuses through its mailbox (hls/ctrl/ctrl_rules.h and
 * ctrl.c, docs/ctrl.md "Commands" and "QP state machine"), for a load to refuse them too.
 *
 * The firmware cannot include nic_if.h (it is HLS-C); these mirror its names, and
 * tests/check/ctrl_rules_check.c, compiled by every build against nic_if.h and
 * ctrl_rules.h, fails when one of them drifts. */
#ifndef MIG_RULES_H
#define MIG_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "roce_mr.h"            /* NIC_ACC_* and REG_MR's rules, ctrl's own lines */

enum mig_qp_state {             /* NIC_QPS_* */
    MIG_QPS_RESET = 0, MIG_QPS_INIT = 1, MIG_QPS_RTR = 2, MIG_QPS_RTS = 3,
    MIG_QPS_SQD = 4, MIG_QPS_SQE = 5, MIG_QPS_ERR = 6,
};
#define MIG_QPN_MIN 2u          /* CREATE_QP: QP0 / QP1 are the management QPs (F_NUM) */
#define MIG_PORT 1u             /* MODIFY_QP PORT: the one port (F_PORT) */
#define MIG_PMTU_MIN 1u         /* MODIFY_QP PATH_MTU 1..5: 256..4096 bytes (F_PATH_MTU) */
#define MIG_PMTU_MAX 5u
#define MIG_MAX_RD_ATOMIC 16u   /* NIC_MAX_RD_ATOMIC (F_MAX_RD_ATOMIC) */
#define MIG_MAX_DEST_RD_ATOMIC 4u /* NIC_MAX_DEST_RD_ATOMIC: the replay slots (F_MAX_DEST_RD_ATOMIC) */
#define MIG_CQ_LOG_MAX 15u      /* CREATE_CQ: the CQ doorbell's consumer index is 16 bits (F_LOG) */

/* ctrl_rules.h's mac_ok: unicast (I/G bit, bit 40, clear), non-zero, 48 bits */
static inline bool mig_mac_ok(uint64_t mac)
{
    return mac != 0 && (mac >> 48) == 0 && ((mac >> 40) & 1) == 0;
}

#endif /* MIG_RULES_H */
