/* int_to_ptr_use — an address made from an input integer, then read and used.
 * Rejected at the cast; rtl-gen must stop there with exit status 1 (it once went on to
 * translate the read and stopped with an internal error). */
#include <stdint.h>

#include "hls.h"

typedef struct { uint64_t addr; uint32_t x; } int_to_ptr_use_in;
typedef struct { uint32_t y; } int_to_ptr_use_out;
typedef struct { uint32_t acc; } int_to_ptr_use_state;

HLS_TOP void int_to_ptr_use(const int_to_ptr_use_in *in, int_to_ptr_use_out *out,
                            int_to_ptr_use_state *st) {
    const uint32_t *p = (const uint32_t *)(uintptr_t)in->addr; /* expect-error: unsupported */
    uint32_t v = *p;
    st->acc += v * in->x;
    out->y = st->acc;
}
