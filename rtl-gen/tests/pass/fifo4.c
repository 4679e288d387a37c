/* fifo4 — a 4-entry FIFO built from a register array, with valid/ready streams on both
 * sides. enq_ready depends only on registers (not full), so no combinational path runs
 * from deq_ready back to enq_ready; a full FIFO therefore refuses a beat even in a
 * cycle where it is also popped (one cycle of lost throughput, in exchange for timing).
 *
 * In the corpus for input and output streams with back-pressure and for a register
 * file written at a dynamic index (the tail slot) and read at another (the head). */
#include "hls.h"

typedef struct {
    HLS_STREAM(uint32_t) enq;
    bool deq_ready;
} fifo4_in;

typedef struct {
    bool enq_ready;
    HLS_STREAM(uint32_t) deq;
    hls_uint(3) level;          /* entries held, 0..4 */
} fifo4_out;

typedef struct {
    uint32_t slot[4];
    hls_uint(2) head;           /* oldest entry; wraps modulo 4 by its type */
    hls_uint(3) count;
} fifo4_state;

HLS_TOP void fifo4(const fifo4_in *in, fifo4_out *out, fifo4_state *st) {
    out->level = st->count;
    out->enq_ready = st->count != 4;
    out->deq.valid = st->count != 0;
    if (out->deq.valid) out->deq.data = st->slot[st->head];

    bool push = hls_fire(in->enq.valid, out->enq_ready);
    bool pop = hls_fire(out->deq.valid, in->deq_ready);
    if (push) {
        hls_uint(2) tail = (hls_uint(2))(st->head + st->count); /* modulo 4 */
        st->slot[tail] = in->enq.data;
    }
    if (pop) st->head = st->head + 1;
    st->count = (hls_uint(3))(st->count + push - pop);
}
