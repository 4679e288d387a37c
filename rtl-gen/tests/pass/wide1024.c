/* wide1024 — arithmetic on 1024-bit values, the widest HLS-C allows: an accumulator
 * register (add modulo 2^1024), a rotate by a variable amount, magnitude compare, and
 * selecting one 32-bit lane by index. Stands in for wide hash/key datapaths (e.g. a
 * flow key of a 5-tuple plus metadata).
 *
 * In the corpus to push constants, operators and registers to the 1024-bit limit, and
 * for the rotate guard: x >> 1024 is undefined, so amount 0 is handled apart. */
#include "hls.h"

typedef hls_uint(1024) u1024;

typedef struct {
    u1024 x;
    bool acc_en;          /* acc += x */
    hls_uint(10) rot;     /* rotate-left amount, 0..1023 */
    hls_uint(5) lane;     /* 32-bit lane of acc to show, 0..31 */
} wide1024_in;

typedef struct {
    u1024 sum;            /* acc + x (acc before this cycle's update) */
    u1024 rotl;           /* x rotated left by rot */
    uint32_t lane_word;   /* acc bits [32*lane+31 : 32*lane] */
    bool x_gt_acc;
    bool x_zero;
} wide1024_out;

typedef struct {
    u1024 acc;
} wide1024_state;

HLS_INLINE u1024 rotl1024(u1024 x, hls_uint(10) n) {
    if (n == 0) return x; /* x >> 1024 would be undefined */
    return (x << n) | (x >> (1024 - n));
}

HLS_TOP void wide1024(const wide1024_in *in, wide1024_out *out, wide1024_state *st) {
    u1024 acc = st->acc;
    out->sum = acc + in->x;                       /* wraps modulo 2^1024 */
    out->rotl = rotl1024(in->x, in->rot);
    out->lane_word = (uint32_t)(acc >> (32 * (unsigned)in->lane)); /* shift <= 992 */
    out->x_gt_acc = in->x > acc;
    out->x_zero = in->x == 0;
    if (in->acc_en) st->acc = acc + in->x;
}
