/* mem_rdata_write — storing into hls_mem_rdata. Rejected: it is the RAM's read-data
 * register, written only by the RAM itself; keep your own register in the state. */
#include "hls.h"

typedef struct { uint32_t x; bool re; uint8_t addr; } mem_rdata_write_in;
typedef struct { uint32_t y; } mem_rdata_write_out;
typedef struct { HLS_MEM(uint32_t, 16) table; } mem_rdata_write_state;

HLS_TOP void mem_rdata_write(const mem_rdata_write_in *in, mem_rdata_write_out *out,
                             mem_rdata_write_state *st) {
    out->y = st->table.hls_mem_rdata;
    if (in->re) hls_mem_read(&st->table, in->addr);
    else st->table.hls_mem_rdata = in->x; /* expect-error: memory-access */
}
