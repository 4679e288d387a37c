/* rom_cast_store — a store into a constant table through a cast that drops const.
 * Rejected: a ROM cannot be written, and clang deletes the store (it is undefined C)
 * while the native model crashes on it; keep pointers to tables const. */
#include "hls.h"

typedef struct { uint8_t i, v; bool we; } rom_cast_store_in;
typedef struct { uint8_t y; } rom_cast_store_out;
typedef struct { bool unused; } rom_cast_store_state;

static const uint8_t gain[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

HLS_TOP void rom_cast_store(const rom_cast_store_in *in, rom_cast_store_out *out,
                            rom_cast_store_state *st) {
    (void)st;
    if (in->we) ((uint8_t *)gain)[in->i & 15] = in->v; /* expect-error: unsupported */
    out->y = gain[in->i & 15];
}
