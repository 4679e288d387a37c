/* port_bitfield — a bit-field in the input struct. Rejected: use hls_uint(N) fields,
 * whose layout is defined, instead of bit-fields, whose layout is the compiler's. */
#include "hls.h"

typedef struct {
    unsigned opcode : 5; /* expect-error: port-type */
    unsigned qp : 11;
} port_bitfield_in;
typedef struct { uint16_t y; } port_bitfield_out;
typedef struct { bool unused; } port_bitfield_state;

HLS_TOP void port_bitfield(const port_bitfield_in *in, port_bitfield_out *out,
                           port_bitfield_state *st) {
    (void)st;
    out->y = (uint16_t)(in->opcode + in->qp);
}
