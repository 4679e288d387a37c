/* mul64 — 64 x 64 multiplies: the full 128-bit unsigned product, the high half of the
 * signed product, and a 128-bit multiply-accumulate register. Models the address and
 * length arithmetic of the DMA engine (page counts x page sizes) and a MAC for
 * statistics.
 *
 * In the corpus for wide multipliers (i128 mul, sext before mul) in the netlist; the
 * 64-bit operands are widened first, so nothing overflows. */
#include "hls.h"

typedef hls_int(128) s128;

typedef struct {
    uint64_t a;
    uint64_t b;
    int64_t sa;
    int64_t sb;
    bool mac_en;          /* acc += a * b */
    bool mac_clear;       /* acc = 0; wins over mac_en */
} mul64_in;

typedef struct {
    hls_u128 prod;        /* a * b, all 128 bits */
    uint64_t prod_lo;     /* what C's uint64_t a * b gives (modulo 2^64) */
    int64_t sprod_hi;     /* bits [127:64] of sa * sb */
    hls_u128 acc;         /* accumulator before this cycle's update */
} mul64_out;

typedef struct {
    hls_u128 acc;
} mul64_state;

HLS_TOP void mul64(const mul64_in *in, mul64_out *out, mul64_state *st) {
    hls_u128 prod = (hls_u128)in->a * in->b;
    out->prod = prod;
    out->prod_lo = in->a * in->b;                 /* unsigned: wraps, defined */
    s128 sprod = (s128)in->sa * in->sb;           /* |result| < 2^126: no overflow */
    out->sprod_hi = (int64_t)(sprod >> 64);       /* arithmetic shift of a signed value */
    out->acc = st->acc;
    if (in->mac_clear) st->acc = 0;
    else if (in->mac_en) st->acc = st->acc + prod; /* wraps modulo 2^128 */
}
