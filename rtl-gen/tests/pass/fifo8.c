/* fifo8 — an 8-entry FIFO of 16-byte descriptors (a struct payload) with almost-full and
 * almost-empty flags at programmable thresholds, as a DMA engine's descriptor queue.
 *
 * In the corpus for a struct-typed stream and flags compared against input thresholds. */
#include "hls.h"

typedef struct {
    uint64_t addr;
    uint32_t len;
    uint16_t qpn;
    uint8_t opcode;
    uint8_t flags;
} fifo8_desc;

typedef struct {
    HLS_STREAM(fifo8_desc) enq;
    bool deq_ready;
    hls_uint(4) afull_at, aempty_at;
} fifo8_in;

typedef struct {
    bool enq_ready;
    HLS_STREAM(fifo8_desc) deq;
    bool almost_full, almost_empty;
    hls_uint(4) level;
} fifo8_out;

typedef struct {
    fifo8_desc slot[8];
    hls_uint(3) head, tail;
    hls_uint(4) count;
} fifo8_state;

HLS_TOP void fifo8(const fifo8_in *in, fifo8_out *out, fifo8_state *st) {
    out->level = st->count;
    out->almost_full = st->count >= in->afull_at;
    out->almost_empty = st->count <= in->aempty_at;
    out->enq_ready = st->count != 8;
    out->deq.valid = st->count != 0;
    if (out->deq.valid) out->deq.data = st->slot[st->head];
    bool push = hls_fire(in->enq.valid, out->enq_ready);
    bool pop = hls_fire(out->deq.valid, in->deq_ready);
    if (push) {
        st->slot[st->tail] = in->enq.data;
        st->tail++;
    }
    if (pop) st->head++;
    st->count = (hls_uint(4))(st->count + push - pop);
}
