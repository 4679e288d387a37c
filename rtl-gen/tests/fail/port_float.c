/* port_float — a float input port (never used). Rejected: a port must have an integer
 * width; there is no floating point in HLS-C. */
#include "hls.h"

typedef struct {
    uint32_t x;
    float gain; /* expect-error: port-type */
} port_float_in;
typedef struct { uint32_t y; } port_float_out;
typedef struct { bool unused; } port_float_state;

HLS_TOP void port_float(const port_float_in *in, port_float_out *out, port_float_state *st) {
    (void)st;
    out->y = in->x;
}
