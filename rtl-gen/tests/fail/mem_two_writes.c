/* mem_two_writes — an unconditional write and a conditional write of one HLS_MEM.
 * Rejected: whenever the condition holds the memory gets two writes in one cycle, which
 * its one write port cannot do; give the second write priority with if/else instead. */
#include "hls.h"

typedef struct { uint8_t a, b; uint32_t d; bool also; } mem_two_writes_in;
typedef struct { uint32_t y; } mem_two_writes_out;
typedef struct { HLS_MEM(uint32_t, 256) m; } mem_two_writes_state;

HLS_TOP void mem_two_writes(const mem_two_writes_in *in, mem_two_writes_out *out,
                            mem_two_writes_state *st) {
    out->y = st->m.hls_mem_rdata;
    hls_mem_read(&st->m, in->a);
    hls_mem_write(&st->m, in->a, in->d);
    if (in->also) hls_mem_write(&st->m, in->b, ~in->d); /* expect-error: memory-port */
}
