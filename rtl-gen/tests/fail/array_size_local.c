/* array_size_local — a 65536-entry local histogram indexed by input values. Rejected: a
 * dynamically indexed array becomes a register file or ROM with one mux input or one
 * write enable per entry, too large past 4096 entries; a table that big is an HLS_MEM
 * (and state, not a local). */
#include "hls.h"

typedef struct { uint16_t a; uint16_t b; uint32_t x; } array_size_local_in;
typedef struct { uint32_t y; } array_size_local_out;
typedef struct { bool unused; } array_size_local_state;

HLS_TOP void array_size_local(const array_size_local_in *in, array_size_local_out *out,
                              array_size_local_state *st) {
    (void)st;
    uint32_t hist[65536] = {0};
    hist[in->a] = in->x; out->y = hist[in->b]; /* expect-error: array-size */
}
