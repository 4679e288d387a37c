/* bit_count — population count, leading-zero count, trailing-zero count and parity of
 * a 64-bit word, written as plain loops over the bits (no builtins): e.g. the number of
 * valid bytes from a 64-bit byte-enable mask and the position of the first set bit of
 * a free-slot bitmap.
 *
 * In the corpus for loops with a constant trip count that rtl-gen fully unrolls (clang
 * may also recognise an idiom and emit llvm.ctpop/ctlz/cttz, which rtl-gen maps), and
 * for "first one found" search with a flag carried through the unrolled iterations. */
#include "hls.h"

typedef struct {
    uint64_t x;
} bit_count_in;

typedef struct {
    hls_uint(7) ones;     /* 0..64 */
    hls_uint(7) lead0;    /* 64 when x == 0 */
    hls_uint(7) trail0;   /* 64 when x == 0 */
    bool parity;          /* odd number of ones */
    hls_uint(6) msb;      /* index of the highest set bit, 0 when x == 0 */
} bit_count_out;

typedef struct {
    bool unused;
} bit_count_state;

HLS_TOP void bit_count(const bit_count_in *in, bit_count_out *out, bit_count_state *st) {
    (void)st;
    uint64_t x = in->x;

    hls_uint(7) ones = 0;
    bool parity = false;
    for (int i = 0; i < 64; i++) {
        bool b = (x >> i) & 1;
        ones += b;
        parity ^= b;
    }

    hls_uint(7) lead0 = 0;
    bool seen = false;
    hls_uint(6) msb = 0;
    for (int i = 63; i >= 0; i--) {
        if ((x >> i) & 1) {
            if (!seen) msb = (hls_uint(6))i;
            seen = true;
        } else if (!seen) {
            lead0++;
        }
    }

    hls_uint(7) trail0 = 0;
    bool done = false;
    for (int i = 0; i < 64; i++) {
        if ((x >> i) & 1) done = true;
        else if (!done) trail0++;
    }

    out->ones = ones;
    out->lead0 = lead0;
    out->trail0 = trail0;
    out->parity = parity;
    out->msb = msb;
}
