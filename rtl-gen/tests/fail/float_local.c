/* float_local — a gain computed in double precision. Rejected: HLS-C has no floating
 * point (no FPU is generated); use fixed-point integers, e.g. gain in 1/256 units. */
#include "hls.h"

typedef struct { uint16_t x; } float_local_in;
typedef struct { uint16_t y; } float_local_out;
typedef struct { bool unused; } float_local_state;

HLS_TOP void float_local(const float_local_in *in, float_local_out *out, float_local_state *st) {
    (void)st;
    double scaled = in->x * 0.75; /* expect-error: floating-point */
    out->y = (uint16_t)scaled;
}
