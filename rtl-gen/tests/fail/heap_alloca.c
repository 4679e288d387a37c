/* heap_alloca — a stack allocation sized at run time. Rejected like malloc. */
#include "hls.h"

typedef struct { uint8_t n; uint32_t x; } heap_alloca_in;
typedef struct { uint32_t y; } heap_alloca_out;
typedef struct { bool unused; } heap_alloca_state;

HLS_TOP void heap_alloca(const heap_alloca_in *in, heap_alloca_out *out, heap_alloca_state *st) {
    (void)st;
    uint32_t *tmp = __builtin_alloca((in->n & 7) * 4 + 4); /* expect-error: heap */
    tmp[0] = in->x;
    out->y = tmp[0];
}
