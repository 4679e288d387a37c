/* psn_window — classify a received packet sequence number (PSN) against the expected
 * PSN, as an InfiniBand/RoCE RC responder does. PSNs are 24-bit serial numbers: the
 * difference psn - epsn is taken modulo 2^24 and split at the half window 2^23:
 *   difference 0             -> EXPECTED   (accept; the expected PSN advances, wrapping)
 *   difference >= 2^23       -> DUPLICATE  (one of the 2^23 PSNs before epsn: re-ACK)
 *   difference 1 .. 2^23-1   -> AHEAD      (out of window: NAK with PSN sequence error)
 *
 * In the corpus for 24-bit wrap-around arithmetic on unsigned _BitInt(24) (no masking:
 * the type wraps) and an enum-typed output port. */
#include "hls.h"

typedef enum {
    PSN_NONE = 0,       /* no packet this cycle */
    PSN_EXPECTED = 1,
    PSN_DUPLICATE = 2,
    PSN_AHEAD = 3,
} psn_class;

typedef struct {
    bool pkt_valid;
    hls_u24 pkt_psn;
    bool load;          /* set the expected PSN (QP modify to RTR); wins over pkt_valid */
    hls_u24 load_psn;
} psn_window_in;

typedef struct {
    psn_class cls;
    hls_u24 distance;   /* pkt_psn - epsn modulo 2^24, for the NAK/duplicate logic */
    hls_u24 epsn;       /* expected PSN this cycle (before the update) */
} psn_window_out;

typedef struct {
    hls_u24 epsn;
} psn_window_state;

#define PSN_HALF_WINDOW ((hls_u24)1 << 23)

/* Serial-number difference: unsigned _BitInt(24) arithmetic is modulo 2^24. */
HLS_INLINE hls_u24 psn_diff(hls_u24 a, hls_u24 b) { return a - b; }

HLS_TOP void psn_window(const psn_window_in *in, psn_window_out *out, psn_window_state *st) {
    hls_u24 d = psn_diff(in->pkt_psn, st->epsn);
    out->epsn = st->epsn;
    out->distance = d;
    if (in->load) {
        st->epsn = in->load_psn;
        return;
    }
    if (!in->pkt_valid) return; /* cls stays PSN_NONE (0) */
    if (d == 0) {
        out->cls = PSN_EXPECTED;
        st->epsn = st->epsn + 1; /* 0xFFFFFF + 1 wraps to 0 */
    } else if (d >= PSN_HALF_WINDOW) {
        out->cls = PSN_DUPLICATE;
    } else {
        out->cls = PSN_AHEAD;
    }
}
