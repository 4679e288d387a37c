/* fifo_mem256 — a 256-entry FIFO of 32-bit words in an HLS_MEM (block RAM), with a
 * one-word output register in front so deq.data comes from a register: when the output
 * register is empty, or being popped, and the RAM holds words, the next word is read; it
 * lands in the output register the cycle after. enq_ready depends on registers only.
 *
 * In the corpus for a RAM with one cycle of read latency behind a stream interface: the
 * bookkeeping (words in RAM, a read in flight, the output register) a deep FIFO needs. */
#include "hls.h"

typedef struct {
    HLS_STREAM(uint32_t) enq;
    bool deq_ready;
} fifo_mem256_in;

typedef struct {
    bool enq_ready;
    HLS_STREAM(uint32_t) deq;
} fifo_mem256_out;

typedef struct {
    HLS_MEM(uint32_t, 256) ram;
    uint8_t head, tail;           /* RAM read and write addresses */
    hls_uint(9) in_ram;           /* words written and not yet read, 0..256 */
    bool in_flight;               /* a read was issued last cycle */
    bool out_valid;
    uint32_t out_data;
} fifo_mem256_state;

HLS_TOP void fifo_mem256(const fifo_mem256_in *in, fifo_mem256_out *out, fifo_mem256_state *st) {
    /* room for everything already accepted: the RAM, a read in flight, the output word */
    hls_uint(10) held = (hls_uint(10))(st->in_ram + st->in_flight + st->out_valid);
    out->enq_ready = held < 256;
    out->deq.valid = st->out_valid;
    out->deq.data = st->out_data;
    bool pop = hls_fire(out->deq.valid, in->deq_ready);
    bool push = hls_fire(in->enq.valid, out->enq_ready);

    bool out_free = !st->out_valid || pop;
    if (st->in_flight) { /* last cycle's read arrives into the output register */
        st->out_data = st->ram.hls_mem_rdata;
        st->out_valid = true;
    } else if (pop) {
        st->out_valid = false;
    }
    /* issue a read when the output register will be free next cycle and no read is in flight */
    bool rd = st->in_ram != 0 && out_free && !st->in_flight;
    if (rd) {
        hls_mem_read(&st->ram, st->head);
        st->head++;
    }
    st->in_flight = rd;
    if (push) {
        hls_mem_write(&st->ram, st->tail, in->enq.data);
        st->tail++;
    }
    st->in_ram = (hls_uint(9))(st->in_ram + push - rd);
}
