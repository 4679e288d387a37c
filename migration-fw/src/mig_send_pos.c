/* mig_send_pos.c — see mig_send_pos.h. */
#include "mig_send_pos.h"

#include "mig_layout.h"
#include "mig_record.h"
#include "nic_wr.h"
#include "roce_psn.h"

/* nic_if.h's send WQE (docs/nic-host-interface.md): 64 bytes, opcode at 8, length at 24 */
enum { WQE_BYTES = 64, WQE_OPCODE = 8, WQE_LENGTH = 24 };
enum { OUTSTANDING_MAX = 16 };                   /* NIC_OUTSTANDING: rd_mask has a bit each */

int mig_send_position_find(const struct mig_hal *hal, const mig_row_t row, struct mig_send_pos *pos,
                           struct mig_resp *resp)
{
    uint16_t una = (uint16_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_UNA);
    uint16_t hi = (uint16_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI);
    uint32_t next_psn = (uint32_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_NEXT_PSN);
    uint64_t qpn = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_QPN);
    *pos = (struct mig_send_pos){ una, 0, 0 };
    if (una == hi) return MIG_OK;
    if ((uint16_t)(hi - una) > OUTSTANDING_MAX)
        return mig_fail(resp, MIG_E_FIT, MIG_R_SEND_POSITION, qpn, next_psn);
    bool flushing = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_FLUSHING) != 0;
    unsigned shift = mig_mtu_shift(row);
    uint64_t base = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_SQ_BASE);
    uint16_t ring_mask = (uint16_t)((1u << mig_row_field(MIG_TABLE_QP, row, MIG_QPF_SQ_LOG)) - 1);
    uint32_t psn = (uint32_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_UNA_PSN);
    uint16_t head = hi, rd_mask = 0;
    uint32_t offset = 0;
    bool found = flushing;      /* a flushing QP sends nothing more: head = sq_hi, offset 0 */
    for (uint16_t i = una; i != hi; i++) {
        uint8_t wqe[WQE_BYTES];
        int rc = mig_hal_host_read(hal, base + (uint64_t)(i & ring_mask) * WQE_BYTES, wqe, WQE_BYTES);
        if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_HOST_READ);
        uint8_t op = wqe[WQE_OPCODE];
        uint32_t len = (uint32_t)wqe[WQE_LENGTH] | (uint32_t)wqe[WQE_LENGTH + 1] << 8 |
                       (uint32_t)wqe[WQE_LENGTH + 2] << 16 | (uint32_t)wqe[WQE_LENGTH + 3] << 24;
        uint32_t n = wqe_psns(op, len, shift);
        if (wr_reads_back(op)) rd_mask |= (uint16_t)(1u << (i % OUTSTANDING_MAX));
        uint32_t into = psn_sub(next_psn, psn);         /* PSNs of WQE i before next_psn */
        if (!found && into < n) {
            head = i;
            offset = (uint32_t)((uint64_t)into << shift);
            found = true;
        }
        psn = psn_add(psn, n);
    }
    if (!found && psn != next_psn) return mig_fail(resp, MIG_E_FIT, MIG_R_SEND_POSITION, qpn, next_psn);
    *pos = (struct mig_send_pos){ head, rd_mask, offset };
    return MIG_OK;
}

void mig_send_position_put(mig_row_t row, const struct mig_send_pos *pos)
{
    mig_words_put(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_SQ_HEAD, 16, pos->head);
    mig_words_put(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_OFFSET, 32, pos->offset);
    mig_words_put(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_RD_MASK, 16, pos->rd_mask);
}

int mig_send_position(const struct mig_hal *hal, mig_row_t row, struct mig_resp *resp)
{
    struct mig_send_pos pos;
    int rc = mig_send_position_find(hal, row, &pos, resp);
    if (rc == MIG_OK) mig_send_position_put(row, &pos);
    return rc;
}
