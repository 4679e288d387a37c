/* mig_err.h — the one error space of the migration firmware.
 *
 * Every command answers a status (what kind of failure) and a reason (which field, check or
 * condition failed); the response's values say where (block sequence number, record index,
 * field id, the state found). HAL operations return a status from this space too. */
#ifndef MIG_ERR_H
#define MIG_ERR_H

enum mig_status {
    MIG_OK = 0,
    MIG_E_OPCODE = 1,       /* unknown command */
    MIG_E_ARG = 2,          /* bad command argument (reason names it) */
    MIG_E_STATE = 3,        /* command not allowed in the function's migration state */
    MIG_E_BUSY = 4,         /* another function is migrating (one at a time) */
    MIG_E_TAG = 5,          /* image tag incompatible with this device */
    MIG_E_CORRUPT = 6,      /* block checksum, sequence, kind or length wrong */
    MIG_E_TRUNCATED = 7,    /* the image ended before its end block */
    MIG_E_NOT_EMPTY = 8,    /* destination function holds objects */
    MIG_E_FIT = 9,          /* a number or value does not fit (destination, image field) */
    MIG_E_TIMEOUT = 10,     /* the hardware did not reach the requested level in time */
    MIG_E_HW = 11,          /* a HAL operation failed */
    MIG_E_NO_OP = 12,       /* the HAL lacks the operation */
    MIG_E_VALUE = 13,       /* load: a record holds a value (or a combination of values) ctrl
                               refuses through its mailbox, so no hardware could hold it */
};

enum mig_reason {
    MIG_R_NONE = 0,
    MIG_R_OPCODE,           /* cmd.opcode */
    MIG_R_FN,               /* cmd.fn out of range, or value[0] = the migrating function */
    MIG_R_STATE,            /* value[0] = the function's state (MIG_ST_*) */
    MIG_R_HOST_ADDR,        /* cmd.host_addr rejected by the host memory port */
    MIG_R_MAGIC,            /* image header magic */
    MIG_R_LAYOUT_VERSION,   /* value[0] = image's, value[1] = ours */
    MIG_R_FEATURE_VERSION,
    MIG_R_CAPACITY_VERSION,
    MIG_R_BLOCK_SIZE,       /* the header's block size is not ours */
    MIG_R_RECORD_SIZE,      /* the header's record sizes are not ours */
    MIG_R_BLOCK_CRC,        /* value[0] = block sequence number expected */
    MIG_R_BLOCK_SEQ,        /* value[0] = expected, value[1] = found */
    MIG_R_BLOCK_KIND,       /* a block out of order (value[1] = its kind) */
    MIG_R_BLOCK_LEN,        /* payload length / record count inconsistent */
    MIG_R_COUNTS,           /* the end block's or header's counts disagree with the blocks */
    MIG_R_END_MISSING,      /* the transfer ended (or a new pass began) before the end block */
    MIG_R_FIRST_PASS_DELTA, /* the first pass of a load must be a full image */
    MIG_R_QP_SLOT_COLLIDES, /* value[0] = number, value[1] = slot */
    MIG_R_CQ_SLOT_COLLIDES,
    MIG_R_MR_SLOT_COLLIDES,
    MIG_R_QP_COUNT,         /* more records than the destination has rows */
    MIG_R_CQ_COUNT,
    MIG_R_MR_COUNT,
    MIG_R_SEND_CQ_MISSING,  /* value[0] = qpn, value[1] = the CQ slot it names */
    MIG_R_RECV_CQ_MISSING,
    MIG_R_DEST_QP_IN_USE,   /* value[0] = the destination row in use */
    MIG_R_DEST_CQ_IN_USE,
    MIG_R_DEST_MR_IN_USE,
    MIG_R_FIELD_WIDTH,      /* save: value[0] = field id (mig_field_name), value[1] = row */
    MIG_R_FIELD_ALIGN,      /* save: a field's low bits that the image does not keep are set */
    MIG_R_ROW_SLOT,         /* save: a row's number does not map to the row (value[1] = row) */
    MIG_R_SUSPEND,          /* suspend_status did not reach the level */
    MIG_R_HAL,              /* value[0] = the HAL op (MIG_HAL_OP_*) */
    MIG_R_CAPS,             /* the hardware's table sizes exceed the firmware's buffers */
    MIG_R_NOT_LOADED,       /* the load has not committed */
    MIG_R_SEND_POSITION,    /* load: a QP's next PSN is not on its outstanding WQEs' PSNs
                               (value[0] = qpn, value[1] = next PSN; mig_send_pos.h) */
    /* load, MIG_E_VALUE (mig_load_check.c): value[0] = the record's number (qpn, cqn, MR
     * key; 0 for the function), value[1] = the field id (mig_field_name), value[2] = the
     * value refused */
    MIG_R_QP_FIELD,
    MIG_R_CQ_FIELD,
    MIG_R_MR_FIELD,
    MIG_R_FN_FIELD,
    MIG_R_CQ_REFS,          /* a CQ's REFS is not the number of the image's QP references to it
                               (value[0] = cqn, value[1] = REFS, value[2] = references) */
};

#endif /* MIG_ERR_H */
