/* histogram_mem — a 64-bin histogram of packet sizes in an HLS_MEM, one sample per cycle
 * at full rate: the bin is read in one cycle and written back incremented in the next, so
 * a sample hitting the bin of the sample just before must see that write: a one-entry
 * bypass forwards it. A second port reads bins out (when no sample is being read).
 *
 * In the corpus for a read-modify-write pipeline over a RAM with forwarding (the pattern
 * of counter_rmw.c, two stages deep) and a read port shared by priority. */
#include "hls.h"

typedef struct {
    bool sample;
    uint16_t size;            /* bin = size / 32, clamped to 63 */
    bool rd;
    hls_uint(6) rd_bin;
} histogram_mem_in;

typedef struct {
    bool rd_valid;
    uint32_t rd_count;
} histogram_mem_out;

typedef struct {
    HLS_MEM(uint32_t, 64) bins;
    bool s1_valid;            /* stage 1: a sample's bin was read last cycle */
    hls_uint(6) s1_bin;
    bool w_valid;             /* the write of the previous cycle, for forwarding */
    hls_uint(6) w_bin;
    uint32_t w_count;
    bool rd_pending;
} histogram_mem_state;

HLS_TOP void histogram_mem(const histogram_mem_in *in, histogram_mem_out *out,
                           histogram_mem_state *st) {
    /* stage 2: count = what the RAM returned, or the write it missed */
    bool wrote = false;
    if (st->s1_valid) {
        uint32_t old = st->w_valid && st->w_bin == st->s1_bin ? st->w_count
                                                               : st->bins.hls_mem_rdata;
        uint32_t next = old == 0xFFFFFFFFu ? old : old + 1;
        hls_mem_write(&st->bins, st->s1_bin, next);
        st->w_bin = st->s1_bin;
        st->w_count = next;
        wrote = true;
    }
    st->w_valid = wrote;
    if (st->rd_pending) {
        out->rd_valid = true;
        out->rd_count = st->bins.hls_mem_rdata;
    }
    /* stage 1: read the sample's bin; the read-out port gets the RAM when no sample does */
    hls_uint(6) bin = in->size >= 63 * 32 ? 63 : (hls_uint(6))(in->size / 32);
    st->s1_valid = in->sample;
    st->s1_bin = bin;
    st->rd_pending = !in->sample && in->rd;
    if (in->sample) hls_mem_read(&st->bins, bin);
    else if (in->rd) hls_mem_read(&st->bins, in->rd_bin);
}
