/* mem_pick — one of two memories chosen per cycle by an input, for reads and for writes.
 *
 * In the corpus because clang may merge the calls of two exclusive branches into one call
 * on a phi of the two memories' addresses (SimplifyCFG sinks common code), and a designer may
 * write that directly (the write below): rtl-gen turns it into one port operation per memory,
 * each under its own condition. */
#include "hls.h"

typedef struct {
    bool sel;            /* 1: memory a, 0: memory b */
    bool re, we;
    hls_uint(4) raddr, waddr;
    uint32_t wdata;
} mem_pick_in;

typedef struct {
    uint32_t qa, qb;     /* read data of each memory, valid the cycle after its read */
    bool qa_valid, qb_valid;
} mem_pick_out;

typedef HLS_MEM(uint32_t, 16) mem_pick_ram; /* one type, so a pointer may point at either */

typedef struct {
    mem_pick_ram a;
    mem_pick_ram b;
    bool read_a, read_b; /* which memory the last cycle read */
} mem_pick_state;

HLS_TOP void mem_pick(const mem_pick_in *in, mem_pick_out *out, mem_pick_state *st) {
    out->qa_valid = st->read_a;
    out->qb_valid = st->read_b;
    out->qa = st->read_a ? st->a.hls_mem_rdata : 0;
    out->qb = st->read_b ? st->b.hls_mem_rdata : 0;
    st->read_a = in->re && in->sel;
    st->read_b = in->re && !in->sel;
    if (in->re) {
        if (in->sel)
            hls_mem_read(&st->a, in->raddr);
        else
            hls_mem_read(&st->b, in->raddr);
    }
    /* the memory chosen by a pointer: the same shape as a call clang merged from two paths */
    if (in->we) hls_mem_write(in->sel ? &st->a : &st->b, in->waddr, in->wdata);
}
