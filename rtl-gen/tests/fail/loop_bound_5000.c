/* loop_bound_5000 — a data-dependent loop whose constant bound is over 4096.
 * Rejected: an early exit is fine under a bound of at most 4096 iterations only. */
#include "hls.h"

typedef struct { uint16_t n; uint32_t x; } loop_bound_5000_in;
typedef struct { uint32_t y; } loop_bound_5000_out;
typedef struct { bool unused; } loop_bound_5000_state;

HLS_TOP void loop_bound_5000(const loop_bound_5000_in *in, loop_bound_5000_out *out,
                             loop_bound_5000_state *st) {
    (void)st;
    uint32_t acc = in->x;
    for (unsigned i = 0; i < in->n && i < 5000; i++) acc = acc * 5 + 1; /* expect-error: unbounded-loop */
    out->y = acc;
}
