/* builtin_ffs — a builtin that docs/hls-c.md does not list (find first set).
 * Rejected with the builtin's name; write it with __builtin_ctz and a zero test. */
#include "hls.h"

typedef struct { uint32_t x; } builtin_ffs_in;
typedef struct { uint8_t y; } builtin_ffs_out;
typedef struct { bool unused; } builtin_ffs_state;

HLS_TOP void builtin_ffs(const builtin_ffs_in *in, builtin_ffs_out *out, builtin_ffs_state *st) {
    (void)st;
    out->y = (uint8_t)__builtin_ffs((int)in->x); /* expect-error: unsupported-call */
}
