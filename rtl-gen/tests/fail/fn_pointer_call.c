/* fn_pointer_call — picking an operation through a function pointer. Rejected: there
 * is no indirect call in hardware; call both by name and select the result (a mux),
 * or switch on the selector. */
#include "hls.h"

typedef struct { bool sel; uint32_t x; } fn_pointer_call_in;
typedef struct { uint32_t y; } fn_pointer_call_out;
typedef struct { bool unused; } fn_pointer_call_state;

static uint32_t inc(uint32_t v) { return v + 1; }
static uint32_t dec(uint32_t v) { return v - 1; }

HLS_TOP void fn_pointer_call(const fn_pointer_call_in *in, fn_pointer_call_out *out,
                             fn_pointer_call_state *st) {
    (void)st;
    out->y = (in->sel ? inc : dec)(in->x); /* expect-error: function-pointer */
}
