/* mem_bits — a memory of 1-bit words: 256 "seen" flags, read one cycle after the request
 * and written through a second port, as a duplicate filter keeps them.
 *
 * In the corpus because 1-bit memories once broke the flow: the Verilog declared the cells
 * without a packed range, and Verilator then models them as one 256-bit vector instead of
 * 256 words, which the wrapper (and equiv) refused. */
#include "hls.h"

typedef struct {
    uint8_t raddr, waddr;
    bool re, we, wdata;
} mem_bits_in;

typedef struct {
    bool seen;                /* M[raddr] of the previous cycle's read */
    bool seen_valid;
} mem_bits_out;

typedef struct {
    HLS_MEM(bool, 256) flags;
    bool pending;             /* a read was issued last cycle */
} mem_bits_state;

HLS_TOP void mem_bits(const mem_bits_in *in, mem_bits_out *out, mem_bits_state *st) {
    if (st->pending) {
        out->seen = st->flags.hls_mem_rdata;
        out->seen_valid = true;
    }
    st->pending = in->re;
    if (in->re) hls_mem_read(&st->flags, in->raddr);
    if (in->we) hls_mem_write(&st->flags, in->waddr, in->wdata);
}
