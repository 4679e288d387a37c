/* ctrl_oracle.h — the fuzz target's judge of a loaded function: is every row one that ctrl's
 * mailbox commands could have made? Written from hls/ctrl (ctrl_rules.h's check_modify and
 * apply_modify replayed along the QP state machine, ctrl.c's CREATE / REG rules), not from
 * the firmware's checks, so the two are independent. */
#ifndef CTRL_ORACLE_H
#define CTRL_ORACLE_H

#include "stub_hal.h"

/* 0 when fn's rows are all ctrl could hold; else a static string naming the first that is
 * not, and *row the slot */
const char *ctrl_oracle_fn(const struct stub_nic *n, unsigned fn, unsigned *row);

#endif /* CTRL_ORACLE_H */
