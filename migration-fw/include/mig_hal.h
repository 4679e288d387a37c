/* mig_hal.h — THE hardware abstraction of the migration firmware.
 *
 * The firmware reaches the NIC only through these operations (the datapath's context port,
 * quiesce controls, dirty bitmaps, counters, its host-memory DMA and the gratuitous-ARP
 * sender). One struct of function pointers plus a context pointer, as OpenSBI's
 * sbi_platform_operations: the simulator fills it with ops that talk to the model and cost
 * what the model's ports cost; the unit tests fill it with a stub over arrays. An op left
 * NULL answers MIG_E_NO_OP from its wrapper; the firmware never calls through a NULL.
 *
 * Rows are addressed per function: (table, section, fn, row) with row < rows per function
 * (caps); the row's words are the section's 32-bit words as mig_layout.h lays them out. */
#ifndef MIG_HAL_H
#define MIG_HAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mig_err.h"
#include "mig_layout.h"

enum mig_level {            /* how far a function is quiesced */
    MIG_LEVEL_RUN = 0,      /* running */
    MIG_LEVEL_ACTIVE = 1,   /* off the embedded switch: incoming packets dropped and counted,
                               the packets in hand finished, no DMA of the function's any more
                               (still a PCIe target); the peers resend after resume */
    MIG_LEVEL_PASSIVE = 2,  /* the same, and the contexts may be written (a load) */
};

enum mig_counter {          /* per-function datapath counters */
    MIG_COUNTER_HOST_WRITE_BYTES = 0,  /* bytes the function's traffic wrote to host memory */
    MIG_COUNTER_PACKETS_OUT = 1,
    MIG_COUNTER_PACKETS_IN = 2,
    MIG_COUNTERS
};

struct mig_caps {
    uint16_t fns;                                   /* functions */
    uint16_t rows[MIG_TABLES];                      /* rows per function (FN: 1) */
    uint8_t words[MIG_TABLES][MIG_SECTIONS_MAX];    /* words per section (0: no section) */
};

/* the ops, for MIG_R_HAL's value */
enum { MIG_HAL_OP_CAPS, MIG_HAL_OP_CTX_READ, MIG_HAL_OP_CTX_WRITE, MIG_HAL_OP_SUSPEND_REQUEST,
       MIG_HAL_OP_SUSPEND_STATUS, MIG_HAL_OP_DIRTY_TRACK, MIG_HAL_OP_DIRTY_READ_CLEAR,
       MIG_HAL_OP_THROTTLE_SET, MIG_HAL_OP_COUNTER_READ, MIG_HAL_OP_HOST_READ,
       MIG_HAL_OP_HOST_WRITE, MIG_HAL_OP_ANNOUNCE, MIG_HAL_OP_FLUSH_WRITES };

struct mig_hal_ops {
    int (*caps)(void *hw, struct mig_caps *out);
    int (*ctx_read)(void *hw, unsigned table, unsigned section, unsigned fn, unsigned row,
                    uint32_t *words, unsigned nwords);
    int (*ctx_write)(void *hw, unsigned table, unsigned section, unsigned fn, unsigned row,
                     const uint32_t *words, unsigned nwords);
    /* start moving fn to a level; suspend_status reports the level reached so far */
    int (*suspend_request)(void *hw, unsigned fn, enum mig_level level);
    int (*suspend_status)(void *hw, unsigned fn, enum mig_level *reached);
    /* dirty tracking: while on, a row the datapath or ctrl writes sets its bit */
    int (*dirty_track)(void *hw, unsigned fn, bool on);
    int (*dirty_read_clear)(void *hw, unsigned fn, unsigned table, uint32_t *bitmap,
                            unsigned nwords);
    /* DevThrottle: at most bytes_per_1024 bytes of host writes per 1024 cycles; 0 = off */
    int (*throttle_set)(void *hw, unsigned fn, uint32_t bytes_per_1024);
    int (*counter_read)(void *hw, unsigned fn, enum mig_counter c, uint64_t *value);
    /* the firmware's DMA: image blocks to and from the PF driver's host buffer */
    int (*host_read)(void *hw, uint64_t addr, uint8_t *buf, uint32_t len);
    int (*host_write)(void *hw, uint64_t addr, const uint8_t *buf, uint32_t len);
    /* gratuitous ARP for fn's MAC and IP: the switch learns the new port after resume */
    int (*announce)(void *hw, unsigned fn);
    /* charge the firmware's own work (mig_cost.h) to the clock */
    void (*spend)(void *hw, uint32_t cycles);
    /* the flush read of Suspend-Active (seed 004, DA12): a zero-length read to every peer
     * BAR fn's DMA wrote since its last flush, returning once every one is answered. PCIe
     * never lets a read completion pass a posted write on its path, so after it every write
     * the function made has reached its target. A HAL with no fabric (nothing posted can be
     * in flight) answers MIG_OK at once. */
    int (*flush_writes)(void *hw, unsigned fn);
};

struct mig_hal {
    const struct mig_hal_ops *ops;
    void *hw;
};

static inline int mig_hal_caps(const struct mig_hal *h, struct mig_caps *out)
{ return h->ops->caps ? h->ops->caps(h->hw, out) : MIG_E_NO_OP; }

static inline int mig_hal_ctx_read(const struct mig_hal *h, unsigned table, unsigned section,
                                   unsigned fn, unsigned row, uint32_t *w, unsigned n)
{ return h->ops->ctx_read ? h->ops->ctx_read(h->hw, table, section, fn, row, w, n) : MIG_E_NO_OP; }

static inline int mig_hal_ctx_write(const struct mig_hal *h, unsigned table, unsigned section,
                                    unsigned fn, unsigned row, const uint32_t *w, unsigned n)
{ return h->ops->ctx_write ? h->ops->ctx_write(h->hw, table, section, fn, row, w, n) : MIG_E_NO_OP; }

static inline int mig_hal_suspend_request(const struct mig_hal *h, unsigned fn, enum mig_level l)
{ return h->ops->suspend_request ? h->ops->suspend_request(h->hw, fn, l) : MIG_E_NO_OP; }

static inline int mig_hal_suspend_status(const struct mig_hal *h, unsigned fn, enum mig_level *r)
{ return h->ops->suspend_status ? h->ops->suspend_status(h->hw, fn, r) : MIG_E_NO_OP; }

static inline int mig_hal_dirty_track(const struct mig_hal *h, unsigned fn, bool on)
{ return h->ops->dirty_track ? h->ops->dirty_track(h->hw, fn, on) : MIG_E_NO_OP; }

static inline int mig_hal_dirty_read_clear(const struct mig_hal *h, unsigned fn, unsigned table,
                                           uint32_t *bitmap, unsigned nwords)
{ return h->ops->dirty_read_clear ? h->ops->dirty_read_clear(h->hw, fn, table, bitmap, nwords) : MIG_E_NO_OP; }

static inline int mig_hal_throttle_set(const struct mig_hal *h, unsigned fn, uint32_t rate)
{ return h->ops->throttle_set ? h->ops->throttle_set(h->hw, fn, rate) : MIG_E_NO_OP; }

static inline int mig_hal_counter_read(const struct mig_hal *h, unsigned fn, enum mig_counter c,
                                       uint64_t *v)
{ return h->ops->counter_read ? h->ops->counter_read(h->hw, fn, c, v) : MIG_E_NO_OP; }

static inline int mig_hal_host_read(const struct mig_hal *h, uint64_t a, uint8_t *b, uint32_t n)
{ return h->ops->host_read ? h->ops->host_read(h->hw, a, b, n) : MIG_E_NO_OP; }

static inline int mig_hal_host_write(const struct mig_hal *h, uint64_t a, const uint8_t *b, uint32_t n)
{ return h->ops->host_write ? h->ops->host_write(h->hw, a, b, n) : MIG_E_NO_OP; }

static inline int mig_hal_announce(const struct mig_hal *h, unsigned fn)
{ return h->ops->announce ? h->ops->announce(h->hw, fn) : MIG_E_NO_OP; }

static inline int mig_hal_flush_writes(const struct mig_hal *h, unsigned fn)
{ return h->ops->flush_writes ? h->ops->flush_writes(h->hw, fn) : MIG_E_NO_OP; }
/* spend has no failure: a HAL without a clock simply does not count */
static inline void mig_hal_spend(const struct mig_hal *h, uint32_t cycles)
{ if (h->ops->spend) h->ops->spend(h->hw, cycles); }

#endif /* MIG_HAL_H */
