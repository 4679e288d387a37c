/* wire — a top function whose name is a Verilog keyword.
 * Rejected: the function's name is the Verilog module's name (and the --top argument
 * every tool uses), so rtl-gen cannot rename it the way it renames ports. */
#include "hls.h"

typedef struct { uint8_t x; } wire_in;
typedef struct { uint8_t y; } wire_out;
typedef struct { bool unused; } wire_state;

HLS_TOP void wire(const wire_in *in, wire_out *out, wire_state *st) { /* expect-error: top-signature */
    (void)st;
    out->y = in->x;
}
