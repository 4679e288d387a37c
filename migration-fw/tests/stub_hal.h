/* stub_hal.h — a fake NIC behind the HAL: context tables in arrays laid out as mig_layout.h
 * says, a quiesce handshake that settles after a set number of polls (or never), dirty
 * bitmaps, throttle and counters, a host memory, and a clock: the firmware's spend() plus a
 * port cost per access (STUB_CTX_* / STUB_DMA_*, standing in for the model's ports). */
#ifndef STUB_HAL_H
#define STUB_HAL_H

#include "mig_fw.h"

#define STUB_HOST_BYTES (64 * 1024)
#define STUB_CTX_LATENCY 4u     /* cycles per context-port access ... */
#define STUB_CTX_WORD 1u        /* ... plus one per 32-bit word */
#define STUB_DMA_LATENCY 100u   /* host DMA: round trip ... */
#define STUB_DMA_BYTES_PER_CYCLE 64u

struct stub_nic {
    struct mig_caps caps;
    uint32_t rows[MIG_TABLES][MIG_SECTIONS_MAX][MIG_MAX_FNS][MIG_MAX_ROWS][MIG_SECTION_WORDS_MAX];
    uint8_t level[MIG_MAX_FNS];     /* reached */
    uint8_t target[MIG_MAX_FNS];    /* requested */
    unsigned polls_to_settle;       /* polls before the level is reached */
    bool never_settle;
    unsigned polls[MIG_MAX_FNS];
    bool tracking[MIG_MAX_FNS];
    mig_bitmap_t dirty[MIG_MAX_FNS][MIG_OBJ_TABLES];
    uint32_t throttle[MIG_MAX_FNS];
    uint64_t counter[MIG_MAX_FNS][MIG_COUNTERS];
    unsigned announces[MIG_MAX_FNS];
    unsigned flushes[MIG_MAX_FNS];     /* flush_writes calls (Suspend-Active's flush read) */
    unsigned mutations;             /* ctx writes, throttle and level changes: 0 = untouched */
    unsigned fail_write;            /* ctx_write number n (from 1) fails, a hardware fault; 0: none */
    unsigned ctx_writes;            /* ctx_write calls so far */
    uint64_t fw_cycles, port_cycles;
    uint8_t host[STUB_HOST_BYTES];
};

void stub_init(struct stub_nic *n);
struct mig_hal stub_hal(struct stub_nic *n);
/* the datapath writing a row: marks it dirty while tracking is on */
void stub_row_get(const struct stub_nic *n, unsigned table, unsigned fn, unsigned row, mig_row_t out);
void stub_row_put(struct stub_nic *n, unsigned table, unsigned fn, unsigned row, const mig_row_t in);

#endif /* STUB_HAL_H */
