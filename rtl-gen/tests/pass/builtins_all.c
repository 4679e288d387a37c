/* builtins_all — every builtin family docs/hls-c.md lists, in the forms a C programmer
 * reaches for: the generic type-agnostic ones of clang (__builtin_clzg / ctzg / popcountg,
 * with and without a zero fallback, here on a 24-bit _BitInt), parity, the rotates, and
 * the checked add/sub/mul that return an overflow flag.
 *
 * In the corpus because these were listed but rejected as "no body in this program". */
#include "hls.h"

typedef struct {
    uint32_t a, b;
    uint8_t s;
    hls_u24 w;
    int16_t sa, sb;
} builtins_all_in;

typedef struct {
    uint32_t clz24, ctz32, pop24, parity, rotl, rotr, sum, prod, clz32;
    bool add_ovf, mul_ovf, sub_ovf;
    int16_t sdiff;
    uint8_t rotl8;
    uint16_t swapped;
} builtins_all_out;

typedef struct {
    bool unused;
} builtins_all_state;

HLS_TOP void builtins_all(const builtins_all_in *in, builtins_all_out *out,
                          builtins_all_state *st) {
    (void)st;
    out->clz24 = (uint32_t)__builtin_clzg(in->w, 24);      /* 24 when w == 0 */
    out->ctz32 = (uint32_t)__builtin_ctzg(in->a, 32);
    out->pop24 = (uint32_t)__builtin_popcountg(in->w);
    out->parity = (uint32_t)__builtin_parity(in->a);
    out->rotl = __builtin_rotateleft32(in->a, in->s);
    out->rotr = __builtin_rotateright32(in->a, in->s);
    out->rotl8 = __builtin_rotateleft8((uint8_t)in->b, in->s);
    out->swapped = __builtin_bswap16((uint16_t)in->b);
    out->add_ovf = __builtin_add_overflow(in->a, in->b, &out->sum);
    out->mul_ovf = __builtin_umul_overflow(in->a, in->b, &out->prod);
    out->sub_ovf = __builtin_sub_overflow(in->sa, in->sb, &out->sdiff);
    out->clz32 = in->a ? (uint32_t)__builtin_clzg(in->a) : 32;
}
