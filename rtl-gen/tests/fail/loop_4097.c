/* loop_4097 — a constant trip count one over the documented bound of 4096 iterations.
 * Rejected: every iteration becomes its own copy of the logic in one cycle; a loop this
 * long belongs spread over cycles with its progress in state. */
#include "hls.h"

typedef struct { uint32_t x; } loop_4097_in;
typedef struct { uint32_t y; } loop_4097_out;
typedef struct { bool unused; } loop_4097_state;

HLS_TOP void loop_4097(const loop_4097_in *in, loop_4097_out *out, loop_4097_state *st) {
    (void)st;
    uint32_t acc = in->x;
    for (unsigned i = 0; i < 4097; i++) acc = (acc << 1 | acc >> 31) ^ i; /* expect-error: unbounded-loop */
    out->y = acc;
}
