/* mig_send_pos.h — the requester's send position of a loaded QP, derived from its
 * outstanding WQEs in the send queue (mig_layout.h, "Derived, not stored"). */
#ifndef MIG_SEND_POS_H
#define MIG_SEND_POS_H

#include "mig_fw.h"

/* For a QP row unpacked from a record with WQEs una .. sq_hi - 1 outstanding: reads them from
 * the send queue through the HAL and writes the row's SQ_HEAD, OFFSET and RD_MASK. Refuses
 * (MIG_E_FIT, MIG_R_SEND_POSITION, value[0] = qpn, value[1] = NEXT_PSN) a row whose next PSN
 * is not inside those WQEs' PSNs or right behind them, or with more outstanding WQEs than the
 * requester keeps; a failed host read answers MIG_E_HW naming host_read. Nothing outstanding:
 * MIG_OK, no host access (mig_record_derive wrote the position). */
int mig_send_position(const struct mig_hal *hal, mig_row_t row, struct mig_resp *resp);

#endif /* MIG_SEND_POS_H */
