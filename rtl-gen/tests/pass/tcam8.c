/* tcam8 — an 8-entry ternary CAM: each entry holds a value and a care-mask (a 0 bit in the
 * mask matches anything), with a priority; the lookup returns the matching entry of the
 * highest priority, ties to the lower index. An ACL or a longest-prefix-match would use it.
 *
 * In the corpus for masked compares and a max-search over a struct array. */
#include "hls.h"

typedef struct {
    uint16_t value, mask;
    uint8_t prio;
    bool valid;
    uint8_t action;
} tcam8_entry;

typedef struct {
    bool wr_en;
    hls_uint(3) wr_idx;
    tcam8_entry wr;
    uint16_t key;
} tcam8_in;

typedef struct {
    bool hit;
    hls_uint(3) idx;
    uint8_t action;
} tcam8_out;

typedef struct {
    tcam8_entry e[8];
} tcam8_state;

HLS_TOP void tcam8(const tcam8_in *in, tcam8_out *out, tcam8_state *st) {
    bool hit = false;
    hls_uint(3) best = 0;
    uint8_t best_prio = 0;
    for (unsigned i = 0; i < 8; i++) {
        const tcam8_entry *e = &st->e[i];
        bool m = e->valid && ((in->key ^ e->value) & e->mask) == 0;
        if (m && (!hit || e->prio > best_prio)) {
            hit = true;
            best = (hls_uint(3))i;
            best_prio = e->prio;
        }
    }
    out->hit = hit;
    out->idx = best;
    out->action = hit ? st->e[best].action : 0;
    if (in->wr_en) st->e[in->wr_idx] = in->wr;
}
