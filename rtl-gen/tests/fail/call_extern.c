/* call_extern — a call to a function declared but defined nowhere in the file (e.g.
 * in a library). Rejected: only functions whose body rtl-gen sees become hardware. */
#include "hls.h"

typedef struct { uint32_t x; } call_extern_in;
typedef struct { uint32_t y; } call_extern_out;
typedef struct { bool unused; } call_extern_state;

extern uint32_t flow_hash(uint32_t key);

HLS_TOP void call_extern(const call_extern_in *in, call_extern_out *out, call_extern_state *st) {
    (void)st;
    out->y = flow_hash(in->x); /* expect-error: unsupported-call */
}
