/* mutable_global — a running total kept in a global variable. Rejected: a register
 * must live in the state struct, where reset clears it, migration can read it and the
 * Verilog names it. The error points at the global's declaration. */
#include "hls.h"

typedef struct { uint32_t x; } mutable_global_in;
typedef struct { uint32_t total; } mutable_global_out;
typedef struct { bool unused; } mutable_global_state;

uint32_t running_total; /* expect-error: mutable-global */

HLS_TOP void mutable_global(const mutable_global_in *in, mutable_global_out *out,
                            mutable_global_state *st) {
    (void)st;
    running_total += in->x;
    out->total = running_total;
}
