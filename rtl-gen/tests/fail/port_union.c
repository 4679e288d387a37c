/* port_union — a state register declared as a union (one word seen as bytes or as an
 * integer). Rejected: a register needs one meaning per bit; use an integer and shift,
 * or a struct. */
#include "hls.h"

typedef struct { uint32_t x; } port_union_in;
typedef struct { uint8_t low; } port_union_out;
typedef struct {
    union { uint32_t word; uint8_t bytes[4]; } last; /* expect-error: port-type */
} port_union_state;

HLS_TOP void port_union(const port_union_in *in, port_union_out *out, port_union_state *st) {
    out->low = st->last.bytes[0];
    st->last.word = in->x;
}
