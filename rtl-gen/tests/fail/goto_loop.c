/* goto_loop — a loop written with goto, its trip count depending on the data.
 * Rejected: after unrolling no loop may remain, whatever its spelling. */
#include "hls.h"

typedef struct { uint32_t x; } goto_loop_in;
typedef struct { uint8_t n; } goto_loop_out;
typedef struct { bool unused; } goto_loop_state;

HLS_TOP void goto_loop(const goto_loop_in *in, goto_loop_out *out, goto_loop_state *st) {
    (void)st;
    uint32_t v = in->x;
    uint8_t n = 0;
again:
    if (v > 1) {
        v = v / 3; /* expect-error: unbounded-loop */
        n++;
        goto again;
    }
    out->n = n;
}
