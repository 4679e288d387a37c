/* roce_psn.h — packet sequence number arithmetic (IBTA vol. 1 9.7.1).
 *
 * A PSN is the 24-bit BTH field: every sum and difference is modulo 2^24. The space is split
 * in halves (9.7.1: a send queue has at most 2^23 PSNs outstanding), so of two PSNs the one
 * less than 2^23 behind the other is the earlier one: serial-number order, as TCP's. Plain C
 * with HLS_INLINE: the datapath blocks and the migration firmware use the same lines. */
#ifndef ROCE_PSN_H
#define ROCE_PSN_H

#include "hls_inline.h"

#define ROCE_PSN_MASK 0xFFFFFFu
#define ROCE_PSN_HALF 0x800000u /* 2^23: the bit that says "behind" in a difference */

/* The PSN n packets after psn. */
HLS_INLINE uint32_t psn_add(uint32_t psn, uint32_t n) { return (psn + n) & ROCE_PSN_MASK; }

/* How far a is past b, 0 .. 2^24 - 1 (also: the PSN b packets before a). */
HLS_INLINE uint32_t psn_sub(uint32_t a, uint32_t b) { return (a - b) & ROCE_PSN_MASK; }

/* PSN a is before PSN b. Only the low 24 bits of a and b count. */
HLS_INLINE bool psn_lt(uint32_t a, uint32_t b) { return ((a - b) & ROCE_PSN_HALF) != 0; }

/* PSN a is at or before PSN b. */
HLS_INLINE bool psn_le(uint32_t a, uint32_t b) { return ((b - a) & ROCE_PSN_HALF) == 0; }

#endif /* ROCE_PSN_H */
