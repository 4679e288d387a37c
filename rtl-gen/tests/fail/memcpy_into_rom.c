/* memcpy_into_rom — overwriting a constant table with memcpy through a void * cast.
 * Rejected like any store into a ROM: the cast drops const. */
#include <string.h>

#include "hls.h"

typedef struct { uint32_t seed; } memcpy_into_rom_in;
typedef struct { uint32_t y; } memcpy_into_rom_out;
typedef struct { bool unused; } memcpy_into_rom_state;

static const uint32_t init_vec[2] = {0x01234567u, 0x89abcdefu};

HLS_TOP void memcpy_into_rom(const memcpy_into_rom_in *in, memcpy_into_rom_out *out,
                             memcpy_into_rom_state *st) {
    (void)st;
    memcpy((void *)init_vec, &in->seed, sizeof in->seed); /* expect-error: unsupported */
    out->y = init_vec[0] ^ init_vec[1];
}
