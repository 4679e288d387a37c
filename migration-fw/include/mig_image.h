/* mig_image.h — the migration image on the wire between the PF drivers (little-endian).
 *
 * An image pass is a sequence of MIG_BLOCK_SIZE-byte blocks:
 *   block 0         kind HDR: magic, tag, block size, record sizes, counts
 *   then            kind FN (one function record), CQ, MR, QP record blocks, in that order
 *   last            kind END: block and record counts again (a truncated pass has none)
 * Every block: a 16-byte block header, the payload, zero padding to the block size.
 * The CRC-32C covers the whole block except its own 4 bytes. */
#ifndef MIG_IMAGE_H
#define MIG_IMAGE_H

#include <stdint.h>

#include "mig_layout.h"

#define MIG_BLOCK_SIZE 512u
#define MIG_IMAGE_MAGIC 0x494d4e48u   /* "HNMI" as little-endian bytes */
#define MIG_FEATURE_VERSION 1u        /* DevThrottle, pre-copy deltas, replay cache */

/* block header */
enum {
    MIG_BH_SEQ = 0,         /* u32: block number within the pass, from 0 */
    MIG_BH_LEN = 4,         /* u16: payload bytes */
    MIG_BH_KIND = 6,        /* u8: MIG_BLK_* */
    MIG_BH_RECORDS = 7,     /* u8: records in the payload */
    MIG_BH_PASS = 8,        /* u32: pass number, from 0 */
    MIG_BH_CRC = 12,        /* u32: CRC-32C of bytes [0,12) and [16, MIG_BLOCK_SIZE) */
    MIG_BH_BYTES = 16,
};
#define MIG_PAYLOAD_MAX (MIG_BLOCK_SIZE - MIG_BH_BYTES)

enum { MIG_BLK_HDR = 1, MIG_BLK_FN = 2, MIG_BLK_CQ = 3, MIG_BLK_MR = 4, MIG_BLK_QP = 5,
       MIG_BLK_END = 6 };

/* HDR payload */
enum {
    MIG_IH_MAGIC = 0,       /* u32 MIG_IMAGE_MAGIC */
    MIG_IH_LAYOUT = 4,      /* u16 layout version: record formats (MIG_LAYOUT_VERSION) */
    MIG_IH_FEATURE = 6,     /* u16 feature version */
    MIG_IH_CAPACITY = 8,    /* u32 capacity version: log2 rows per function, QP | CQ<<8 | MR<<16 */
    MIG_IH_BLOCK_SIZE = 12, /* u16 */
    MIG_IH_FLAGS = 14,      /* u16 MIG_IMG_* */
    MIG_IH_COUNT_FN = 16,   /* u16 records of each kind in this pass */
    MIG_IH_COUNT_CQ = 18,
    MIG_IH_COUNT_MR = 20,
    MIG_IH_COUNT_QP = 22,
    MIG_IH_BLOCKS = 24,     /* u32 blocks in this pass, HDR and END included */
    MIG_IH_QP_BYTES = 28,   /* u16 each: record sizes (a cross-check of the layout version) */
    MIG_IH_CQ_BYTES = 30,
    MIG_IH_MR_BYTES = 32,
    MIG_IH_FN_BYTES = 34,
    MIG_IH_BYTES = 36,
};
enum { MIG_IMG_FULL = 1,    /* every row in use is in the pass (else: rows changed since the
                               previous pass, including rows now empty) */
       MIG_IMG_FINAL = 2 }; /* saved while suspended: the load commits after this pass */

/* END payload */
enum { MIG_IE_BLOCKS = 0,   /* u32 */
       MIG_IE_RECORDS = 4,  /* u32 */
       MIG_IE_BYTES = 8 };

/* CRC-32C of a block (everything but its CRC field); seal stores it */
uint32_t mig_block_crc(const uint8_t *block);
void mig_block_seal(uint8_t *block);

#endif /* MIG_IMAGE_H */
