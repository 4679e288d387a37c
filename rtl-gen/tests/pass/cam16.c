/* cam16 — a 16-entry content-addressable memory: 32-bit keys with a valid bit each, one
 * write port (entry index given) and one lookup per cycle that returns the lowest
 * matching entry, as a QPN-to-context or flow table would use it.
 *
 * In the corpus for a parallel compare against every entry and a priority pick of the
 * hits; a write and a lookup in one cycle see the old contents (registers). */
#include "hls.h"

typedef struct {
    bool wr_en;
    hls_uint(4) wr_idx;
    uint32_t wr_key;
    bool wr_valid;            /* false: invalidate the entry */
    bool lookup;
    uint32_t key;
} cam16_in;

typedef struct {
    bool hit;
    hls_uint(4) hit_idx;
    uint16_t match_vec;       /* every entry that matched */
} cam16_out;

typedef struct {
    uint32_t key[16];
    uint16_t valid;
} cam16_state;

HLS_TOP void cam16(const cam16_in *in, cam16_out *out, cam16_state *st) {
    uint16_t match = 0;
    for (unsigned i = 0; i < 16; i++)
        if (((st->valid >> i) & 1) && st->key[i] == in->key) match |= (uint16_t)(1u << i);
    if (in->lookup) {
        out->match_vec = match;
        out->hit = match != 0;
        out->hit_idx = match ? (hls_uint(4))__builtin_ctz(match) : 0;
    }
    if (in->wr_en) {
        st->key[in->wr_idx] = in->wr_key;
        if (in->wr_valid) st->valid |= (uint16_t)(1u << in->wr_idx);
        else st->valid &= (uint16_t)~(1u << in->wr_idx);
    }
}
