/* psn_bitmap — a receiver's out-of-order window as an RDMA responder with selective
 * acknowledgements keeps it: a 24-bit expected PSN and a 256-bit bitmap of packets
 * received ahead of it. A packet at the expected PSN advances the window past every
 * consecutive packet already held; a packet ahead within 256 is marked; one behind is a
 * duplicate; one beyond the window is dropped.
 *
 * In the corpus for 24-bit serial-number arithmetic, a wide shift by a data-dependent
 * amount (the count of trailing ones), and a 256-bit register updated in one cycle. */
#include "hls.h"

typedef struct {
    bool valid;
    hls_u24 psn;
} psn_bitmap_in;

typedef struct {
    bool in_order, ahead, duplicate, dropped;
    hls_u24 epsn;             /* the expected PSN after this packet */
} psn_bitmap_out;

typedef struct {
    hls_u24 epsn;
    hls_uint(256) held;       /* bit i: PSN epsn + 1 + i already received */
} psn_bitmap_state;

HLS_TOP void psn_bitmap(const psn_bitmap_in *in, psn_bitmap_out *out, psn_bitmap_state *st) {
    out->epsn = st->epsn;
    if (!in->valid) return;
    hls_u24 d = in->psn - st->epsn;           /* modulo 2^24 */
    if (d == 0) {
        /* the run of packets held right after this one: trailing ones of held */
        hls_uint(256) h = st->held;
        unsigned run = (unsigned)__builtin_ctzg((hls_uint(256))~h, 256);
        hls_uint(257) rest = (hls_uint(257))h >> run;   /* run may be 256 */
        st->held = (hls_uint(256))(rest >> 1);
        st->epsn = st->epsn + (hls_u24)(run + 1);
        out->in_order = true;
    } else if (d <= 256) {
        st->held |= (hls_uint(256))1 << (d - 1);
        out->ahead = true;
    } else if (d >= (1u << 23)) {
        out->duplicate = true;
    } else {
        out->dropped = true;
    }
    if (out->in_order) out->epsn = st->epsn;
}
