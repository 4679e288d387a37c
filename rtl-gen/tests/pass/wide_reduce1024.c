/* wide_reduce1024 — reductions over one 1024-bit register: population count, parity,
 * index of the lowest and highest set bit, and a 1024-bit bit reversal, as a wide
 * valid-mask or a replay window would use them. The register shifts in 64 new bits per
 * cycle so every bit is exercised.
 *
 * In the corpus for the generic builtins on a _BitInt(1024) (__builtin_popcountg,
 * __builtin_ctzg, __builtin_clzg) and for statements over 1024 operands, which rtl-gen
 * emits as trees of named partial results on lines of bounded length. */
#include "hls.h"

typedef struct {
    uint64_t fill;
    bool shift;
} wide_reduce1024_in;

typedef struct {
    hls_uint(11) ones;
    bool odd;
    hls_uint(11) lowest;      /* 1024 when no bit is set */
    hls_uint(11) highest;     /* 1024 when no bit is set */
    uint64_t reversed_top;    /* the top 64 bits of the bit-reversed register */
} wide_reduce1024_out;

typedef struct {
    hls_uint(1024) mask;
} wide_reduce1024_state;

HLS_TOP void wide_reduce1024(const wide_reduce1024_in *in, wide_reduce1024_out *out,
                             wide_reduce1024_state *st) {
    hls_uint(1024) m = st->mask;
    out->ones = (hls_uint(11))__builtin_popcountg(m);
    out->odd = __builtin_popcountg(m) & 1;
    out->lowest = (hls_uint(11))__builtin_ctzg(m, 1024);
    out->highest = m ? (hls_uint(11))(1023 - __builtin_clzg(m)) : 1024;
    hls_uint(1024) rev = 0;
    for (unsigned i = 0; i < 16; i++) /* reverse 64-bit words and their order */
        rev |= (hls_uint(1024))__builtin_bitreverse64((uint64_t)(m >> (64 * i))) << (64 * (15 - i));
    out->reversed_top = (uint64_t)(rev >> 960);
    if (in->shift) st->mask = (m << 64) | in->fill;
}
