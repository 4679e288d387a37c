/* rr_arbiter — an 8-way round-robin arbiter: among the requesters whose bit is set,
 * grant the first one after the previous winner (wrapping), so every requester is
 * served within 8 grants. Models the work-queue scheduler picking the next send queue.
 *
 * In the corpus for a priority search written as an unrolled loop with a "found" flag
 * and modulo-8 index arithmetic on a 3-bit type, plus a one-hot output. */
#include "hls.h"

typedef struct {
    uint8_t req;          /* bit i: requester i wants a grant */
    bool advance;         /* the grant is consumed: move the pointer past the winner */
} rr_arbiter_in;

typedef struct {
    bool grant_valid;
    hls_uint(3) grant_idx;
    uint8_t grant_onehot;
} rr_arbiter_out;

typedef struct {
    hls_uint(3) last;     /* previous winner; the search starts at last + 1 */
} rr_arbiter_state;

HLS_TOP void rr_arbiter(const rr_arbiter_in *in, rr_arbiter_out *out, rr_arbiter_state *st) {
    bool found = false;
    hls_uint(3) winner = 0;
    for (int i = 1; i <= 8; i++) {
        hls_uint(3) idx = (hls_uint(3))(st->last + i); /* modulo 8 */
        if (!found && ((in->req >> idx) & 1)) {
            found = true;
            winner = idx;
        }
    }
    if (!found) return;
    out->grant_valid = true;
    out->grant_idx = winner;
    out->grant_onehot = (uint8_t)(1u << winner);
    if (in->advance) st->last = winner;
}
