/* hls_inline.h — the one HLS-C word a plain-C header needs: HLS_INLINE.
 *
 * hls.h (the HLS-C contract) includes this; so do the protocol headers (roce_psn.h,
 * roce_mtu.h, roce_op.h, roce_mr.h, nic_wr.h) that the migration firmware shares with the
 * datapath. The firmware cannot include hls.h itself: hls.h brings stdio and the native
 * model's edge queue, and the firmware is freestanding (migration-fw/Makefile). */
#ifndef HLS_INLINE_H
#define HLS_INLINE_H

#include <stdbool.h>
#include <stdint.h>

/* Helpers are inlined into the cycle function; this makes it explicit. */
#define HLS_INLINE static inline __attribute__((always_inline))

#endif /* HLS_INLINE_H */
