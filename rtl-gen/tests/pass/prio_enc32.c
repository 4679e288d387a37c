/* prio_enc32 — a 32-input priority encoder: the index of the highest request, a valid
 * flag, and the request vector with that bit cleared (to serve the next one), as an
 * interrupt controller or a completion scheduler does it.
 *
 * In the corpus for a plain C loop that keeps the last match (clang turns it into a
 * leading-zero count) next to the explicit builtin, compared each cycle. */
#include "hls.h"

typedef struct {
    uint32_t req;
} prio_enc32_in;

typedef struct {
    bool valid;
    hls_uint(5) idx;
    hls_uint(5) idx_builtin;
    uint32_t rest;
} prio_enc32_out;

typedef struct {
    bool unused;
} prio_enc32_state;

HLS_TOP void prio_enc32(const prio_enc32_in *in, prio_enc32_out *out, prio_enc32_state *st) {
    (void)st;
    hls_uint(5) idx = 0;
    for (unsigned i = 0; i < 32; i++)
        if ((in->req >> i) & 1) idx = (hls_uint(5))i;
    out->valid = in->req != 0;
    out->idx = idx;
    out->idx_builtin = in->req ? (hls_uint(5))(31 - __builtin_clz(in->req)) : 0;
    out->rest = in->req & ~(out->valid ? 1u << idx : 0u);
}
