/* port_width_2048 — an input port wider than the 1024-bit limit. */
#include "hls.h"

typedef struct { hls_uint(2048) wide; } port_width_2048_in; /* expect-error: port-type */
typedef struct { uint8_t y; } port_width_2048_out;
typedef struct { bool unused; } port_width_2048_state;

HLS_TOP void port_width_2048(const port_width_2048_in *in, port_width_2048_out *out,
                             port_width_2048_state *st) {
    (void)st;
    out->y = (uint8_t)in->wide;
}
