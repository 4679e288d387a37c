/* port_pointer — an input port that is a pointer to a buffer. Rejected: ports carry
 * values, not addresses; pass the data itself (an array or a wide _BitInt), or a
 * stream of it. */
#include "hls.h"

typedef struct {
    const uint32_t *buf; /* expect-error: port-type */
    uint32_t x;
} port_pointer_in;
typedef struct { uint32_t y; } port_pointer_out;
typedef struct { bool unused; } port_pointer_state;

HLS_TOP void port_pointer(const port_pointer_in *in, port_pointer_out *out,
                          port_pointer_state *st) {
    (void)st;
    out->y = in->x;
}
