/* mem_two_reads — two unconditional reads of one HLS_MEM in one cycle.
 * Rejected: a memory has one read port; the C model stops on the second read, while the
 * Verilog would silently keep the last. Read on exclusive paths or in two cycles. */
#include "hls.h"

typedef struct { uint8_t a, b; } mem_two_reads_in;
typedef struct { uint32_t y; } mem_two_reads_out;
typedef struct { HLS_MEM(uint32_t, 256) m; } mem_two_reads_state;

HLS_TOP void mem_two_reads(const mem_two_reads_in *in, mem_two_reads_out *out,
                           mem_two_reads_state *st) {
    out->y = st->m.hls_mem_rdata;
    hls_mem_read(&st->m, in->a);
    hls_mem_read(&st->m, in->b); /* expect-error: memory-port */
}
