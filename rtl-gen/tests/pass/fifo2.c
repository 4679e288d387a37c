/* fifo2 — a 2-entry FIFO (a "pipeline register pair") for 64-bit beats with full
 * throughput: it accepts a beat in the cycle it is popped even when full, so enq_ready
 * depends on deq_ready combinationally, the opposite trade-off to fifo4.c.
 *
 * In the corpus with fifo8, fifo64 and fifo_mem256 for FIFOs of several depths. */
#include "hls.h"

typedef struct {
    HLS_STREAM(uint64_t) enq;
    bool deq_ready;
} fifo2_in;

typedef struct {
    bool enq_ready;
    HLS_STREAM(uint64_t) deq;
} fifo2_out;

typedef struct {
    uint64_t slot[2];
    bool rd, wr;              /* slot indices of the head and of the next free entry */
    hls_uint(2) count;
} fifo2_state;

HLS_TOP void fifo2(const fifo2_in *in, fifo2_out *out, fifo2_state *st) {
    out->deq.valid = st->count != 0;
    out->deq.data = st->slot[st->rd];
    bool pop = hls_fire(out->deq.valid, in->deq_ready);
    out->enq_ready = st->count != 2 || pop;
    bool push = hls_fire(in->enq.valid, out->enq_ready);
    if (push) {
        st->slot[st->wr] = in->enq.data;
        st->wr = !st->wr;
    }
    if (pop) st->rd = !st->rd;
    st->count = (hls_uint(2))(st->count + push - pop);
}
