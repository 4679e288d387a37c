/* fifo64 — a 64-entry FIFO of 12-bit tokens in registers, with a flush input and an
 * overflow counter for beats offered while full (the producer is allowed to drop).
 *
 * In the corpus for a deeper register-file FIFO (64-way read mux, 64 write enables). */
#include "hls.h"

typedef struct {
    HLS_STREAM(hls_uint(12)) enq;
    bool deq_ready;
    bool flush;
} fifo64_in;

typedef struct {
    bool enq_ready;
    HLS_STREAM(hls_uint(12)) deq;
    uint16_t dropped;
} fifo64_out;

typedef struct {
    hls_uint(12) slot[64];
    hls_uint(6) head, tail;
    hls_uint(7) count;
    uint16_t dropped;
} fifo64_state;

HLS_TOP void fifo64(const fifo64_in *in, fifo64_out *out, fifo64_state *st) {
    out->dropped = st->dropped;
    out->enq_ready = st->count != 64;
    out->deq.valid = st->count != 0;
    if (out->deq.valid) out->deq.data = st->slot[st->head];
    if (in->enq.valid && !out->enq_ready && st->dropped != 0xFFFF) st->dropped++;
    if (in->flush) {
        st->head = st->tail = 0;
        st->count = 0;
        return;
    }
    bool push = hls_fire(in->enq.valid, out->enq_ready);
    bool pop = hls_fire(out->deq.valid, in->deq_ready);
    if (push) st->slot[st->tail++] = in->enq.data;
    if (pop) st->head++;
    st->count = (hls_uint(7))(st->count + push - pop);
}
