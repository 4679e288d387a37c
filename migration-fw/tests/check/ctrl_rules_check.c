/* ctrl_rules_check.c — compiled (never run) by every build of migration-fw: mig_rules.h's
 * copies of ctrl's names must equal nic_if.h's, or the build fails. The limits ctrl writes
 * as literals (PATH_MTU 1..5, CQ log <= 15, QPN >= 2, PORT 1) are cited in mig_rules.h; the
 * fuzzer's oracle (tests/fuzz/ctrl_oracle.c) judges loaded rows with ctrl_rules.h itself. */
#include "nic_if.h"
#include "mig_rules.h"

_Static_assert(MIG_QPS_RESET == NIC_QPS_RESET && MIG_QPS_INIT == NIC_QPS_INIT &&
               MIG_QPS_RTR == NIC_QPS_RTR && MIG_QPS_RTS == NIC_QPS_RTS && MIG_QPS_SQD == NIC_QPS_SQD &&
               MIG_QPS_SQE == NIC_QPS_SQE && MIG_QPS_ERR == NIC_QPS_ERR, "QP states");
_Static_assert(MIG_MAX_RD_ATOMIC == NIC_MAX_RD_ATOMIC, "NIC_MAX_RD_ATOMIC");
_Static_assert(MIG_MAX_DEST_RD_ATOMIC == NIC_MAX_DEST_RD_ATOMIC, "NIC_MAX_DEST_RD_ATOMIC");
