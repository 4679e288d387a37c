/* recursion_mutual — two helpers that call each other (is_even / is_odd). Rejected:
 * a cycle through several functions is recursion too; the error names the call that
 * closes the cycle. */
#include "hls.h"

typedef struct { uint8_t n; } recursion_mutual_in;
typedef struct { bool even; } recursion_mutual_out;
typedef struct { bool unused; } recursion_mutual_state;

static bool is_odd(uint8_t n);

static bool is_even(uint8_t n) { return n == 0 ? true : is_odd((uint8_t)(n - 1)); }

static bool is_odd(uint8_t n) {
    return n == 0 ? false : is_even((uint8_t)(n - 1)); /* expect-error: recursion */
}

HLS_TOP void recursion_mutual(const recursion_mutual_in *in, recursion_mutual_out *out,
                              recursion_mutual_state *st) {
    (void)st;
    out->even = is_even(in->n);
}
