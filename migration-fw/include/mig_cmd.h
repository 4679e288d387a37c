/* mig_cmd.h — the migration mailbox: what the managing function (PF) writes and reads back.
 * One command serves one target function; docs/migration-fw.md has the state machine. */
#ifndef MIG_CMD_H
#define MIG_CMD_H

#include <stdint.h>

enum mig_opcode {
    MIG_CMD_QUERY_TAG = 1,        /* value = layout, feature, capacity versions of this device */
    MIG_CMD_QUERY_BLOCK_SIZE = 2, /* value[0] = bytes per image block */
    MIG_CMD_QUERY_SIZE_LEFT = 3,  /* value[0] = image bytes the next save blocks will carry */
    MIG_CMD_PRECOPY_START = 4,    /* RUNNING -> PRECOPY: dirty tracking on */
    MIG_CMD_PRECOPY_STOP = 5,     /* PRECOPY -> RUNNING: dirty tracking off */
    MIG_CMD_DEV_THROTTLE = 6,     /* rate = host-write bytes per 1024 cycles, 0 = off */
    MIG_CMD_SUSPEND_ACTIVE = 7,   /* RUNNING/PRECOPY -> SUSPENDED_ACTIVE: no DMA, then the flush read */
    MIG_CMD_SUSPEND_PASSIVE = 8,  /* SUSPENDED_ACTIVE -> SUSPENDED_PASSIVE: frozen */
    MIG_CMD_RESUME_PASSIVE = 9,   /* SUSPENDED_PASSIVE -> SUSPENDED_ACTIVE */
    MIG_CMD_RESUME_ACTIVE = 10,   /* SUSPENDED_ACTIVE -> RUNNING; LOADING -> RUNNING (abort) */
    MIG_CMD_IMAGE_SAVE = 11,      /* write the next image block to host_addr */
    MIG_CMD_IMAGE_LOAD = 12,      /* read one image block from host_addr and stage it */
    MIG_CMD_SAVE_RESET = 13,      /* SUSPENDED_*: the save starts over: tracking off, the next
                                     pass full (pre-copy ended while suspended, or a pass the
                                     PF could not deliver); the state stays */
};
#define MIG_CMD_OPCODES 14

enum mig_state {
    MIG_ST_RUNNING = 0,
    MIG_ST_PRECOPY = 1,
    MIG_ST_SUSPENDED_ACTIVE = 2,
    MIG_ST_SUSPENDED_PASSIVE = 3,
    MIG_ST_LOADING = 4,
};
#define MIG_STATES 5

enum { MIG_LOAD_LAST = 1 };       /* cmd.flags on IMAGE_LOAD: the PF has no more blocks */

struct mig_cmd {
    uint8_t opcode;               /* MIG_CMD_* */
    uint8_t fn;                   /* target function */
    uint8_t flags;                /* MIG_LOAD_LAST */
    uint32_t rate;                /* DEV_THROTTLE */
    uint64_t host_addr;           /* IMAGE_SAVE / IMAGE_LOAD: the block's host buffer */
};

enum mig_answer {                 /* resp.answer of IMAGE_SAVE and IMAGE_LOAD */
    MIG_ANS_NONE = 0,
    MIG_SAVE_BLOCK = 1,           /* a block was written; more of this pass follow; value[0] =
                                     its number, value[1] its kind, value[2] the pass's MIG_IMG_* */
    MIG_SAVE_PASS_END = 2,        /* the pass's end block was written */
    MIG_SAVE_NOTHING_NOW = 3,     /* pre-copy: nothing changed since the last pass; no block */
    MIG_LOAD_STAGED = 4,          /* the block was checked and staged */
    MIG_LOAD_PASS_DONE = 5,       /* a pre-copy pass is complete; send the next pass */
    MIG_LOAD_COMMITTED = 6,       /* the final pass validated and is in the hardware */
};

struct mig_resp {
    uint8_t status;               /* enum mig_status */
    uint8_t reason;               /* enum mig_reason: which field or check */
    uint8_t state;                /* the function's migration state after the command */
    uint8_t answer;               /* enum mig_answer */
    uint64_t value[3];            /* results, or where the failure is (mig_err.h) */
};

#endif /* MIG_CMD_H */
