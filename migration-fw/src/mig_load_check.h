/* mig_load_check.h — the checks of a load that write nothing (private to src/). */
#ifndef MIG_LOAD_CHECK_H
#define MIG_LOAD_CHECK_H

#include "mig_fw.h"

/* One record as it is staged (a valid QP, CQ or MR record, or the function record): every
 * value ctrl refuses through its mailbox is refused (MIG_E_VALUE, MIG_R_<table>_FIELD:
 * value[0] = number, value[1] = field id, value[2] = value). */
int mig_check_record(struct mig_fw *fw, unsigned table, const uint8_t *rec, struct mig_resp *resp);

/* The staged image after its final pass, before the first hardware write: every QP's CQs
 * staged (their fields become our slots), every CQ's REFS equal to the QP references to
 * it, every QP's send position found in the send queue (kept in fw->load.send_pos).
 * Reads host memory, writes nothing. */
int mig_check_staged(struct mig_fw *fw, struct mig_resp *resp);

#endif /* MIG_LOAD_CHECK_H */
