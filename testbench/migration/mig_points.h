/* mig_points.h — where a migration point fell, per moved QP, from the image the source saved
 * (docs/migration.md "Migration points").
 *
 * The last record of each QP in the image (over every pass: a row not dirty since its last
 * save is unchanged) is the QP's state at Suspend-Passive, the state the destination loads.
 * From it, with the WQEs the load re-reads from the send queue, a QP is:
 *   mid-message        its requester is inside a multi-packet message (send position past the
 *                      first packet of a WQE and before its last: OFFSET != 0), or its
 *                      responder is inside an incoming one (POS_CLASS SEND or WRITE);
 *   mid-read-response  a READ response is under way: its responder has sent the FIRST of a
 *                      READ response and has packets left (POS_CLASS READ_RESP, RD_STARTED),
 *                      or its requester's oldest WQE is a READ whose response has partly
 *                      arrived (HEAD_DONE != 0);
 *   setup              in INIT or RTR: its connection is being set up;
 *   idle               none of these (at a message boundary both ways).
 * A QP counts in every class it is in (a QP in RTR answering a READ is setup and
 * mid-read-response); idle only when in none. */
#ifndef MIG_POINTS_H
#define MIG_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "mig_fw.h"
#include "mig_layout.h"

enum mig_point { MIG_POINT_MID_MESSAGE, MIG_POINT_MID_READ_RESPONSE, MIG_POINT_SETUP, MIG_POINT_IDLE, MIG_POINTS };
extern const char *const mig_point_names[MIG_POINTS];

/* The newest QP record of each slot an image carried. */
typedef struct {
    uint8_t rec[MIG_MAX_QP][MIG_QP_RECORD_BYTES];
    bool valid[MIG_MAX_QP];
} mig_points_image_t;

/* Take one image block (MIG_BLOCK_SIZE bytes, as saved): a QP block's records replace the
 * slots they name (a record with VALID 0: the QP was destroyed). Other blocks are ignored. */
void mig_points_take_block(mig_points_image_t *im, const uint8_t *block);

/* The classes of one QP record, a bit (1 << MIG_POINT_*) each; `host` reads its send queue
 * (only host_read is used). -1 when the send position cannot be derived from the WQEs (the
 * load would refuse it too): resp says why (mig_send_position). */
int mig_point_classes(const uint8_t *rec, const struct mig_hal *host, struct mig_resp *resp);

/* counts[class] += the QPs of the image in that class; -1 (and resp) as mig_point_classes */
int mig_points_count(const mig_points_image_t *im, const struct mig_hal *host, unsigned counts[MIG_POINTS],
                     struct mig_resp *resp);

#endif /* MIG_POINTS_H */
