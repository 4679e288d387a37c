/* sat_counter13 — a 13-bit up/down counter that saturates at 0 and 8191 instead of
 * wrapping: a credit or occupancy counter (e.g. receive-buffer credits in 64-byte
 * units) where wrap-around would be a silent corruption.
 *
 * In the corpus for unsigned _BitInt(13): an odd-width register, a 14-bit intermediate
 * for the overflow check, and comparisons against the type's limits. */
#include "hls.h"

#define SAT13_MAX 8191

typedef struct {
    bool up;              /* add step (up and down together: no change) */
    bool down;            /* subtract step */
    hls_uint(13) step;
    bool clear;           /* back to 0; wins over up/down */
} sat_counter13_in;

typedef struct {
    hls_uint(13) count;   /* value before this cycle's update */
    bool at_max;
    bool at_zero;
} sat_counter13_out;

typedef struct {
    hls_uint(13) count;
} sat_counter13_state;

HLS_TOP void sat_counter13(const sat_counter13_in *in, sat_counter13_out *out,
                           sat_counter13_state *st) {
    hls_uint(13) c = st->count;
    out->count = c;
    out->at_max = c == SAT13_MAX;
    out->at_zero = c == 0;
    if (in->clear) {
        c = 0;
    } else if (in->up && !in->down) {
        hls_uint(14) sum = (hls_uint(14))c + in->step; /* one bit wider: cannot wrap */
        c = sum > SAT13_MAX ? (hls_uint(13))SAT13_MAX : (hls_uint(13))sum;
    } else if (in->down && !in->up) {
        c = c < in->step ? (hls_uint(13))0 : (hls_uint(13))(c - in->step);
    }
    st->count = c;
}
