/* mig_send_pos.h — the requester's send position of a loaded QP, derived from its
 * outstanding WQEs in the send queue (mig_layout.h, "Derived, not stored"). */
#ifndef MIG_SEND_POS_H
#define MIG_SEND_POS_H

#include "mig_fw.h"

/* For a QP row unpacked from a record with WQEs una .. sq_hi - 1 outstanding: reads them from
 * the send queue through the HAL and gives the position. Refuses (MIG_E_FIT,
 * MIG_R_SEND_POSITION, value[0] = qpn, value[1] = NEXT_PSN) a row whose next PSN is not inside
 * those WQEs' PSNs or right behind them, or with more outstanding WQEs than the requester
 * keeps; a failed host read answers MIG_E_HW naming host_read. Nothing outstanding: una, 0,
 * 0, no host access. Writes nothing: a load finds every QP's position before its first
 * hardware write (mig_load_check.c) and puts it into the row when it writes it. */
int mig_send_position_find(const struct mig_hal *hal, const mig_row_t row, struct mig_send_pos *pos,
                           struct mig_resp *resp);
void mig_send_position_put(mig_row_t row, const struct mig_send_pos *pos);
/* find, then put into row (the tests' and the testbench's point classifier's one call) */
int mig_send_position(const struct mig_hal *hal, mig_row_t row, struct mig_resp *resp);

#endif /* MIG_SEND_POS_H */
