/* peek — a consumer that looks at its input stream's data in every cycle, valid or not (it
 * keeps the XOR of every seq it has seen). Legal HLS-C, and a reason the composed FIFO's
 * out_data must be defined while the FIFO is empty: with peek behind it, a FIFO that showed
 * its (unreset) entry at head while empty would make the RTL differ from the C model
 * (wrap/tests/run: equiv/fifo-mutant-ungated). */
#include "hls.h"

typedef struct {
    uint16_t seq;
    uint32_t payload;
    bool last;
} peek_beat;

typedef struct {
    HLS_STREAM(peek_beat) rx;
} peek_in;

typedef struct {
    bool rx_ready;
    uint16_t seen;
} peek_out;

typedef struct {
    uint16_t seen;
} peek_state;

HLS_TOP void peek(const peek_in *in, peek_out *out, peek_state *st) {
    out->rx_ready = true;
    out->seen = st->seen;
    st->seen ^= in->rx.data.seq;
}
