/* port_mem — an HLS_MEM in the input struct. Rejected: a memory is state (a RAM inside
 * the block); ports carry values, one per leaf. */
#include "hls.h"

typedef struct {
    HLS_MEM(uint32_t, 4) table; /* expect-error: port-type */
    uint8_t a;
} port_mem_in;
typedef struct { uint32_t y; } port_mem_out;
typedef struct { bool unused; } port_mem_state;

HLS_TOP void port_mem(const port_mem_in *in, port_mem_out *out, port_mem_state *st) {
    (void)st;
    out->y = in->table.hls_mem_rdata + in->a;
}
