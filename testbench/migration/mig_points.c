/* mig_points.c — classifying migration points from the saved image; mig_points.h says what
 * each class means. The send position is derived exactly as the destination's load does
 * (mig_send_position), so the class is the state A' resumes from, not a guess. */
#include "mig_points.h"

#include <string.h>

#include "mig_image.h"
#include "mig_record.h"
#include "mig_send_pos.h"
#include "nic_if.h"

const char *const mig_point_names[MIG_POINTS] = {"mid-message", "mid-read-response", "setup", "idle"};

void mig_points_take_block(mig_points_image_t *im, const uint8_t *b) {
    if (b[MIG_BH_KIND] != MIG_BLK_QP) return;
    for (unsigned i = 0; i < b[MIG_BH_RECORDS]; i++) {
        const uint8_t *rec = b + MIG_BH_BYTES + i * MIG_QP_RECORD_BYTES;
        unsigned slot = (unsigned)mig_record_field(MIG_TABLE_QP, rec, MIG_QPF_QPN) % MIG_MAX_QP;
        memcpy(im->rec[slot], rec, MIG_QP_RECORD_BYTES);
        im->valid[slot] = mig_record_field(MIG_TABLE_QP, rec, MIG_QPF_VALID) != 0;
    }
}

int mig_point_classes(const uint8_t *rec, const struct mig_hal *host, struct mig_resp *resp) {
    mig_row_t row;
    mig_record_unpack(host, MIG_TABLE_QP, rec, row);
    uint64_t state = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_STATE);
    int classes = 0;
    if (state == NIC_QPS_INIT || state == NIC_QPS_RTR) classes |= 1 << MIG_POINT_SETUP;
    if (mig_send_position(host, row, resp) != MIG_OK) return -1;
    /* the requester: inside a message it sends; its oldest WQE a READ partly answered */
    uint16_t una = (uint16_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_UNA);
    uint16_t rd_mask = (uint16_t)mig_words_get(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_RD_MASK, 16);
    if (mig_words_get(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_OFFSET, 32) != 0) classes |= 1 << MIG_POINT_MID_MESSAGE;
    /* an atomic is one response packet: HEAD_DONE != 0 under an RD_MASK bit is a READ */
    if (rd_mask >> (una % 16) & 1 && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_HEAD_DONE) != 0)
        classes |= 1 << MIG_POINT_MID_READ_RESPONSE;
    /* the responder: inside a message it receives; a READ response it has begun */
    uint64_t pos = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_POS_CLASS);
    if (pos == MIG_POS_SEND || pos == MIG_POS_WRITE) classes |= 1 << MIG_POINT_MID_MESSAGE;
    if (pos == MIG_POS_READ_RESP && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_RD_STARTED))
        classes |= 1 << MIG_POINT_MID_READ_RESPONSE;
    return classes ? classes : 1 << MIG_POINT_IDLE;
}

int mig_points_count(const mig_points_image_t *im, const struct mig_hal *host, unsigned counts[MIG_POINTS],
                     struct mig_resp *resp) {
    for (unsigned q = 0; q < MIG_MAX_QP; q++) {
        if (!im->valid[q]) continue;
        int c = mig_point_classes(im->rec[q], host, resp);
        if (c < 0) return -1;
        for (unsigned k = 0; k < MIG_POINTS; k++) counts[k] += (unsigned)c >> k & 1;
    }
    return 0;
}
