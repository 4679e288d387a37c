/* sat_counters — sixteen 8-bit saturating event counters (per-queue drop or ECN-mark
 * counts): each cycle one counter may go up by a step and another down by one, neither
 * wrapping; a read port shows any counter, and clear zeroes one.
 *
 * In the corpus for saturating arithmetic on a register file at dynamic indices, with
 * the later C statement winning when two ports hit one entry. */
#include "hls.h"

typedef struct {
    bool inc, dec, clear;
    hls_uint(4) inc_idx, dec_idx, clear_idx, rd_idx;
    hls_uint(3) step;
} sat_counters_in;

typedef struct {
    uint8_t value;
    bool any_saturated;
} sat_counters_out;

typedef struct {
    uint8_t cnt[16];
} sat_counters_state;

HLS_TOP void sat_counters(const sat_counters_in *in, sat_counters_out *out,
                          sat_counters_state *st) {
    out->value = st->cnt[in->rd_idx];
    bool sat = false;
    for (unsigned i = 0; i < 16; i++) sat |= st->cnt[i] == 0xFF;
    out->any_saturated = sat;
    if (in->inc) {
        uint8_t c = st->cnt[in->inc_idx];
        st->cnt[in->inc_idx] = c > 0xFF - in->step ? 0xFF : (uint8_t)(c + in->step);
    }
    if (in->dec) {
        uint8_t c = st->cnt[in->dec_idx];
        st->cnt[in->dec_idx] = c ? (uint8_t)(c - 1) : 0;
    }
    if (in->clear) st->cnt[in->clear_idx] = 0;
}
