/* mig_fw.h — the migration firmware: its one state struct and its entry points.
 *
 * Everything the firmware keeps is in struct mig_fw, which the caller owns (a static in the
 * embedded build, a field of the device model in the simulator); every function takes a
 * pointer to it. No heap: the buffers are sized by the MIG_MAX_* limits below, and init
 * refuses hardware whose tables are larger. */
#ifndef MIG_FW_H
#define MIG_FW_H

#include <stdbool.h>
#include <stdint.h>

#include "mig_cmd.h"
#include "mig_hal.h"
#include "mig_image.h"
#include "mig_layout.h"

#define MIG_MAX_FNS 4
#define MIG_MAX_ROWS 64                 /* rows per function of any table */
#define MIG_MAX_QP 16
#define MIG_MAX_CQ 16
#define MIG_MAX_MR 64
#define MIG_BITMAP_WORDS (MIG_MAX_ROWS / 32)
#define MIG_OBJ_TABLES 3                /* QP, CQ, MR: the tables with rows per function */

typedef uint32_t mig_bitmap_t[MIG_BITMAP_WORDS];
/* one row of any table: its sections' words */
typedef uint32_t mig_row_t[MIG_SECTIONS_MAX][MIG_SECTION_WORDS_MAX];

/* the save iterator of one pass */
struct mig_save {
    bool in_pass;
    bool tracked;               /* pre-copy ran: passes after the first carry changes only */
    uint32_t pass;              /* passes begun since PreCopy-Start / Suspend */
    uint32_t seq;               /* next block number of the pass */
    uint32_t blocks;            /* blocks of the pass */
    uint32_t records;           /* records written in the pass */
    uint16_t flags;             /* MIG_IMG_* of the pass */
    uint8_t kind;               /* MIG_BLK_* of the next block */
    uint16_t count[MIG_TABLES]; /* records of each table in the pass */
    mig_bitmap_t todo[MIG_OBJ_TABLES];  /* rows still to send in this pass */
    mig_bitmap_t carry[MIG_OBJ_TABLES]; /* dirty rows read by a size query, for the next pass */
};

/* what the requester's row holds of its place in the send queue (mig_send_pos.h) */
struct mig_send_pos {
    uint16_t head;          /* NIC_CTX_REQ_SQ_HEAD: the WQE being sent */
    uint16_t rd_mask;       /* NIC_CTX_REQ_RD_MASK: READ / atomic WQEs, bit index % 16 */
    uint32_t offset;        /* NIC_CTX_REQ_OFFSET: bytes of the head WQE already sent */
};

/* the load state machine: blocks are checked and staged; hardware is written only when the
 * final pass and the staged whole have validated (mig_load_check.c) */
struct mig_load {
    uint8_t expect;             /* MIG_BLK_* the next block may be (HDR: a pass begins) */
    bool have_full;             /* a full pass has been staged */
    uint32_t pass;
    uint32_t seq;               /* next block number */
    uint16_t flags;             /* of the current pass */
    uint32_t capacity;          /* the image's capacity version */
    uint16_t count[MIG_TABLES]; /* the header's counts */
    uint16_t seen[MIG_TABLES];  /* records staged in this pass */
    uint32_t blocks;            /* the header's block count */
    mig_bitmap_t in_pass[MIG_OBJ_TABLES];  /* slots a record of this pass has filled */
    mig_bitmap_t staged[MIG_OBJ_TABLES];   /* slots holding a valid object */
    uint8_t qp[MIG_MAX_QP][MIG_QP_RECORD_BYTES];
    uint8_t cq[MIG_MAX_CQ][MIG_CQ_RECORD_BYTES];
    uint8_t mr[MIG_MAX_MR][MIG_MR_RECORD_BYTES];
    uint8_t fn[MIG_FN_RECORD_BYTES];
    struct mig_send_pos send_pos[MIG_MAX_QP];  /* found before the first write, put at it */
};

struct mig_fw {
    struct mig_hal hal;
    struct mig_caps caps;
    uint8_t state[MIG_MAX_FNS];     /* enum mig_state */
    uint32_t throttle[MIG_MAX_FNS]; /* DevThrottle rate in force */
    bool loaded[MIG_MAX_FNS];       /* committed by a load: announce on Resume-Active */
    int8_t active_fn;               /* the function being migrated, -1: none */
    struct mig_save save;
    struct mig_load load;
    uint8_t block[MIG_BLOCK_SIZE];  /* the block being built or checked */
    mig_row_t row;                  /* the row being moved */
};

/* Reads the capabilities, checks they fit the buffers; every function RUNNING. */
int mig_fw_init(struct mig_fw *fw, const struct mig_hal *hal, struct mig_resp *resp);

/* Executes one mailbox command: always fills *resp (status, reason, state). */
void mig_fw_command(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp);

/* ---- inside the firmware ---- */
int mig_fail(struct mig_resp *resp, int status, int reason, uint64_t v0, uint64_t v1);
/* a failed HAL op as a response: MIG_E_NO_OP or MIG_E_HW, reason MIG_R_HAL, value[0] = op */
int mig_hal_fail(struct mig_resp *resp, int rc, unsigned op);
int mig_state_cas(struct mig_fw *fw, unsigned fn, enum mig_state expected, enum mig_state next,
                  struct mig_resp *resp);
int mig_row_read(struct mig_fw *fw, unsigned table, unsigned fn, unsigned row, mig_row_t out,
                 struct mig_resp *resp);
int mig_row_write(struct mig_fw *fw, unsigned table, unsigned fn, unsigned row,
                  const mig_row_t in, struct mig_resp *resp);
/* the valid bit of a QP, CQ or MR row (reads only the section holding it) */
int mig_row_valid(struct mig_fw *fw, unsigned table, unsigned fn, unsigned row, bool *valid,
                  struct mig_resp *resp);
unsigned mig_slot_of(const struct mig_fw *fw, unsigned table, uint64_t number);
uint32_t mig_capacity_version(const struct mig_caps *caps);

/* save iterator (mig_save.c), loader (mig_load.c) */
void mig_save_reset(struct mig_fw *fw);
int mig_save_next(struct mig_fw *fw, unsigned fn, uint64_t host_addr, struct mig_resp *resp);
int mig_save_bytes_left(struct mig_fw *fw, unsigned fn, uint64_t *bytes, struct mig_resp *resp);
void mig_load_reset(struct mig_fw *fw);
int mig_load_block(struct mig_fw *fw, unsigned fn, uint64_t host_addr, bool last,
                   struct mig_resp *resp);

/* bitmaps of rows */
static inline bool mig_bit(const mig_bitmap_t b, unsigned i) { return (b[i / 32] >> (i % 32)) & 1; }
static inline void mig_bit_set(mig_bitmap_t b, unsigned i) { b[i / 32] |= 1u << (i % 32); }
static inline void mig_bit_clear(mig_bitmap_t b, unsigned i) { b[i / 32] &= ~(1u << (i % 32)); }
unsigned mig_bit_count(const mig_bitmap_t b);

#endif /* MIG_FW_H */
