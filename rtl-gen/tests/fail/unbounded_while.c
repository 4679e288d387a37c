/* unbounded_while — Collatz steps of an input: the loop runs until a data-dependent
 * condition holds. Rejected: a cycle function does a fixed amount of work per clock,
 * so every loop must unroll (constant trip count); spread long work over cycles with
 * state instead. The whole loop is on one line so the marker is exact whichever of
 * its instructions rtl-gen points at. */
#include "hls.h"

typedef struct { uint32_t x; } unbounded_while_in;
typedef struct { uint32_t steps; } unbounded_while_out;
typedef struct { bool unused; } unbounded_while_state;

HLS_TOP void unbounded_while(const unbounded_while_in *in, unbounded_while_out *out,
                             unbounded_while_state *st) {
    (void)st;
    uint32_t v = in->x | 1, steps = 0;
    while (v != 1) { v = (v & 1) ? 3 * v + 1 : v >> 1; steps++; } /* expect-error: unbounded-loop */
    out->steps = steps;
}
