/* mem_reads_in_loop — reading one HLS_MEM in every iteration of an unrolled loop.
 * Rejected: the iterations run in the same cycle, so this is four reads of a one-port
 * memory; use a register array, or banks (an array of HLS_MEM), or four cycles. */
#include "hls.h"

typedef struct { uint8_t base; } mem_reads_in_loop_in;
typedef struct { uint32_t y; } mem_reads_in_loop_out;
typedef struct { HLS_MEM(uint32_t, 256) m; } mem_reads_in_loop_state;

HLS_TOP void mem_reads_in_loop(const mem_reads_in_loop_in *in, mem_reads_in_loop_out *out,
                               mem_reads_in_loop_state *st) {
    out->y = st->m.hls_mem_rdata;
    for (unsigned i = 0; i < 4; i++)
        hls_mem_read(&st->m, (uint8_t)(in->base + i)); /* expect-error: memory-port */
}
