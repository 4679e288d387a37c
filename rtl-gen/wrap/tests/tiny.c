/* tiny — a small HLS-C block whose Verilog (tiny.v) and interface (tiny.iface) are written
 * by hand, following docs/rtl-gen.md, so the Verilator flow is tested without rtl-gen.
 * It has what a wrapper can get wrong: an input stream with ready, an output stream, a
 * signed 13-bit _BitInt, a 100-bit port and register, an HLS_MEM, and a register whose
 * name holds "__" (Verilator mangles it).
 *
 * A command on stream cmd either writes cmd*3 + acc into m[cmd & 7] (bit 15 set) or reads
 * m[cmd & 7]; the word read appears on stream res. One command at a time: cmd_ready is 0
 * while a read is under way or its result waits for res_ready. */
#include "tiny.h"

HLS_TOP void tiny(const tiny_in *in, tiny_out *out, tiny_state *st) {
    out->cmd_ready = !st->res_valid && !st->pending;
    out->res.valid = st->res_valid;
    out->res.data = st->res;
    out->acc = st->acc;
    out->wide_x = in->wide ^ st->w;

    if (st->pending) { /* the read data arrived: offer it */
        st->res = st->m.hls_mem_rdata;
        st->res_valid = true;
        st->pending = false;
    } else if (st->res_valid && in->res_ready) {
        st->res_valid = false;
    }
    if (hls_fire(in->cmd.valid, out->cmd_ready)) {
        unsigned addr = in->cmd.data & 7u;
        st->cnt_.n++;
        if (in->cmd.data & 0x8000u) {
            hls_mem_write(&st->m, addr, (uint32_t)in->cmd.data * 3u + (uint32_t)(int32_t)st->acc);
        } else {
            hls_mem_read(&st->m, addr);
            st->pending = true;
        }
    }
    /* 13-bit wrap-around; signed overflow would be undefined, so add unsigned */
    st->acc = (hls_int(13))((hls_uint(13))st->acc + (hls_uint(13))in->delta);
    st->w = (st->w << 1) ^ in->wide;
}
