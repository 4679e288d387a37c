/* rr_arb16 — a 16-way round-robin arbiter written the way RTL designers do it: mask off
 * the requests at or below the last grant, take the lowest of what is left, and when
 * nothing is left take the lowest of all requests. The grant holds until released.
 *
 * In the corpus for the double-priority-mask idiom (x & -x for the lowest set bit) and
 * a held grant with a lock bit. */
#include "hls.h"

typedef struct {
    uint16_t req;
    bool release;             /* the granted requester is done */
} rr_arb16_in;

typedef struct {
    uint16_t grant;           /* one-hot, or 0 */
    hls_uint(4) grant_idx;
    bool busy;
} rr_arb16_out;

typedef struct {
    uint16_t held;            /* the current grant, one-hot; 0 when none */
    hls_uint(4) last;
} rr_arb16_state;

HLS_TOP void rr_arb16(const rr_arb16_in *in, rr_arb16_out *out, rr_arb16_state *st) {
    uint16_t grant = st->held;
    if (grant == 0 && in->req != 0) {
        uint16_t above = (uint16_t)(in->req & ~((2u << st->last) - 1u));
        uint16_t pool = above ? above : in->req;
        grant = (uint16_t)(pool & (uint16_t)-pool);
        st->held = grant;
        st->last = (hls_uint(4))__builtin_ctz(grant);
    }
    out->grant = grant;
    out->grant_idx = grant ? (hls_uint(4))__builtin_ctz(grant) : 0;
    out->busy = grant != 0;
    if (in->release) st->held = 0;
}
