/* heap_malloc — a scratch buffer from malloc. Rejected: hardware has no heap; storage
 * is fixed at build time (locals, state registers, HLS_MEM). */
#include <stdlib.h>

#include "hls.h"

typedef struct { uint32_t x; } heap_malloc_in;
typedef struct { uint32_t y; } heap_malloc_out;
typedef struct { bool unused; } heap_malloc_state;

HLS_TOP void heap_malloc(const heap_malloc_in *in, heap_malloc_out *out, heap_malloc_state *st) {
    (void)st;
    uint32_t *tmp = malloc(4 * sizeof *tmp); /* expect-error: heap */
    tmp[0] = in->x;
    out->y = tmp[0];
}
