/* addr_compare — comparing two addresses. Rejected: hardware has wires, not addresses;
 * compare the selector that chose the pointer instead. */
#include "hls.h"

typedef struct { bool sel; uint32_t a, b; } addr_compare_in;
typedef struct { bool same; uint32_t y; } addr_compare_out;
typedef struct { uint32_t ra, rb; } addr_compare_state;

HLS_TOP void addr_compare(const addr_compare_in *in, addr_compare_out *out,
                          addr_compare_state *st) {
    uint32_t *p = in->sel ? &st->ra : &st->rb;
    *p = in->a;
    out->same = p == &st->ra; /* expect-error: unsupported */
    out->y = st->ra + st->rb;
}
