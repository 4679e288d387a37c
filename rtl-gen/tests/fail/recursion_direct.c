/* recursion_direct — a helper that calls itself (sum of 0..n, n < 16). Rejected:
 * hardware has no call stack, even when the depth is bounded; write a loop. */
#include "hls.h"

typedef struct { uint8_t n; } recursion_direct_in;
typedef struct { uint32_t y; } recursion_direct_out;
typedef struct { bool unused; } recursion_direct_state;

static uint32_t sum_to(uint32_t n) {
    return n == 0 ? 0 : n + sum_to(n - 1); /* expect-error: recursion */
}

HLS_TOP void recursion_direct(const recursion_direct_in *in, recursion_direct_out *out,
                              recursion_direct_state *st) {
    (void)st;
    out->y = sum_to(in->n & 15);
}
