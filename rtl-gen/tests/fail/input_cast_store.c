/* input_cast_store — clearing an input port through a cast that drops const.
 * Rejected: input ports are driven from outside the block; a store into *in has no
 * hardware meaning (compute into a local instead). */
#include "hls.h"

typedef struct { uint32_t x; bool clear; } input_cast_store_in;
typedef struct { uint32_t y; } input_cast_store_out;
typedef struct { bool unused; } input_cast_store_state;

HLS_TOP void input_cast_store(const input_cast_store_in *in, input_cast_store_out *out,
                              input_cast_store_state *st) {
    (void)st;
    input_cast_store_in *w = (input_cast_store_in *)in; /* expect-error: unsupported */
    if (in->clear) w->x = 0;
    out->y = in->x;
}
