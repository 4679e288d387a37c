/* mutable_static_local — a cycle counter in a static local. Rejected for the same
 * reason as a global: hidden state outside the state struct. */
#include "hls.h"

typedef struct { bool tick; } mutable_static_local_in;
typedef struct { uint32_t cycles; } mutable_static_local_out;
typedef struct { bool unused; } mutable_static_local_state;

HLS_TOP void mutable_static_local(const mutable_static_local_in *in,
                                  mutable_static_local_out *out,
                                  mutable_static_local_state *st) {
    (void)st;
    static uint32_t cycles; /* expect-error: mutable-global */
    if (in->tick) cycles++;
    out->cycles = cycles;
}
