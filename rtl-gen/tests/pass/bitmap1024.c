/* bitmap1024 — a 1024-entry allocation bitmap (1 = in use), as a QP or MR table keeps
 * it: allocate the lowest free entry, free an entry, test one, and report how many are in
 * use. Sixteen 64-bit words; the count is a sum over all 1024 bits and the search looks at
 * every word in one cycle.
 *
 * In the corpus for wide bit-vector state and reductions over all of it (1024-input
 * population count, a 16-word first-free search): Verilog whose single statements once
 * ran to 189000 characters, more than Verilator takes on one line. */
#include "hls.h"

typedef struct {
    bool alloc;               /* take the lowest free entry (when there is one) */
    bool release;             /* free entry release_idx */
    hls_uint(10) release_idx;
    hls_uint(10) test_idx;
} bitmap1024_in;

typedef struct {
    bool alloc_ok;            /* alloc was asked and an entry was free */
    hls_uint(10) alloc_idx;
    bool test_used;
    hls_uint(11) used;        /* entries in use, 0..1024 */
    bool full;
} bitmap1024_out;

typedef struct {
    uint64_t word[16];        /* entry i is bit i % 64 of word i / 64 */
} bitmap1024_state;

HLS_TOP void bitmap1024(const bitmap1024_in *in, bitmap1024_out *out, bitmap1024_state *st) {
    hls_uint(11) used = 0;
    bool found = false;
    hls_uint(10) first_free = 0;
    for (unsigned w = 0; w < 16; w++) {
        used += (hls_uint(11))__builtin_popcountll(st->word[w]);
        uint64_t free_bits = ~st->word[w];
        if (!found && free_bits != 0) {
            found = true;
            first_free = (hls_uint(10))(w * 64 + (unsigned)__builtin_ctzll(free_bits));
        }
    }
    out->used = used;
    out->full = !found;
    out->test_used = (st->word[in->test_idx >> 6] >> (in->test_idx & 63)) & 1;

    if (in->release) st->word[in->release_idx >> 6] &= ~(1ull << (in->release_idx & 63));
    if (in->alloc && found) {
        out->alloc_ok = true;
        out->alloc_idx = first_free;
        st->word[first_free >> 6] |= 1ull << (first_free & 63);
    }
}
