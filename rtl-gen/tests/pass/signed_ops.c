/* signed_ops — signed arithmetic with every undefined case guarded:
 *  - division and remainder: x / 0 and INT32_MIN / -1 are undefined in C, so the
 *    block defines them (quotient 0 or INT32_MIN, remainder 0) before dividing;
 *  - arithmetic shift right by a 5-bit amount (always < 32; clang shifts in sign bits);
 *  - sign extension of a packed 12-bit two's-complement field through signed _BitInt(12);
 *  - signed against unsigned comparison of the same bits;
 *  - a 12-bit signed accumulator that wraps by its type (conversion, not overflow).
 * Models e.g. the signed timer/credit deltas of congestion control.
 *
 * In the corpus for sdiv/srem, ashr, sext/trunc and signed compares in the netlist. */
#include "hls.h"

typedef struct {
    int32_t a;
    int32_t b;
    hls_uint(5) shamt;
    uint16_t field12;         /* bits [11:0] hold a signed 12-bit delta */
    bool acc_en;
} signed_ops_in;

typedef struct {
    int32_t quot;
    int32_t rem;
    int32_t ashr;
    int32_t delta;            /* sign-extended bits [11:0] of field12 */
    bool a_lt_b;              /* signed compare */
    bool a_ltu_b;             /* the same bits compared as unsigned */
    int64_t wide_prod;        /* a * b without overflow */
    hls_int(12) acc;
} signed_ops_out;

typedef struct {
    hls_int(12) acc;
} signed_ops_state;

HLS_TOP void signed_ops(const signed_ops_in *in, signed_ops_out *out, signed_ops_state *st) {
    int32_t a = in->a, b = in->b;
    if (b == 0) {
        out->quot = 0;
        out->rem = 0;
    } else if (a == INT32_MIN && b == -1) {
        out->quot = INT32_MIN;    /* the wrapped two's-complement result */
        out->rem = 0;
    } else {
        out->quot = a / b;        /* rounds toward zero */
        out->rem = a % b;         /* sign of a */
    }
    out->ashr = a >> in->shamt;
    hls_int(12) delta = (hls_int(12))(in->field12 & 0xFFF); /* keeps bits [11:0] */
    out->delta = delta;
    out->a_lt_b = a < b;
    out->a_ltu_b = (uint32_t)a < (uint32_t)b;
    out->wide_prod = (int64_t)a * b;

    hls_int(12) acc = st->acc;
    out->acc = acc;
    /* 13-bit sum cannot overflow; converting it to 12 bits wraps (two's complement) */
    if (in->acc_en) st->acc = (hls_int(12))((hls_int(13))acc + delta);
}
