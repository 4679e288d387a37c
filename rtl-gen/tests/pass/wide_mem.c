/* wide_mem — a 64-entry buffer of 512-bit words (one 64-byte beat each) in a
 * synchronous RAM with one write port and one read port: the receive payload buffer.
 * A read issued in cycle t presents its data in cycle t+1 (rvalid marks it); a read
 * and a write of one address in the same cycle return the old word (read-first).
 * raddr is 8 bits wide on purpose: the RAM uses it modulo its depth (64).
 *
 * In the corpus for HLS_MEM with 512-bit words (yosys maps this one, 64 deep, to LUT
 * RAM) and for the one-cycle read latency tracked by a valid register. */
#include "hls.h"

typedef struct {
    bool we;
    hls_uint(6) waddr;
    hls_u512 wdata;
    bool re;
    uint8_t raddr;        /* taken modulo 64 */
} wide_mem_in;

typedef struct {
    bool rvalid;          /* rdata holds the word read last cycle */
    hls_u512 rdata;
} wide_mem_out;

typedef struct {
    HLS_MEM(hls_u512, 64) buf;
    bool rd_pending;      /* a read was issued last cycle */
} wide_mem_state;

HLS_TOP void wide_mem(const wide_mem_in *in, wide_mem_out *out, wide_mem_state *st) {
    if (st->rd_pending) {
        out->rvalid = true;
        out->rdata = st->buf.hls_mem_rdata;
    }
    st->rd_pending = in->re;
    if (in->re) hls_mem_read(&st->buf, in->raddr);
    if (in->we) hls_mem_write(&st->buf, in->waddr, in->wdata);
}
