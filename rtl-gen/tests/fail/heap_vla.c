/* heap_vla — a variable-length array sized by an input. Rejected under the heap rule:
 * every array size must be a compile-time constant (it becomes a fixed set of wires). */
#include "hls.h"

typedef struct { uint8_t n; uint8_t i; uint32_t x; } heap_vla_in;
typedef struct { uint32_t y; } heap_vla_out;
typedef struct { bool unused; } heap_vla_state;

HLS_TOP void heap_vla(const heap_vla_in *in, heap_vla_out *out, heap_vla_state *st) {
    (void)st;
    uint32_t buf[in->n % 8 + 1]; /* expect-error: heap */
    for (int k = 0; k < 8; k++) buf[k % (in->n % 8 + 1)] = in->x + (uint32_t)k;
    out->y = buf[in->i % (in->n % 8 + 1)];
}
