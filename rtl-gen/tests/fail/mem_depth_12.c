/* mem_depth_12 — an HLS_MEM of 12 entries. Rejected: depth must be a power of two
 * (addresses are taken modulo the depth, which is a bit mask); use 16. The native
 * build stops here too, on hls.h's static assertion. */
#include "hls.h"

typedef struct { bool we; uint8_t addr; uint32_t x; } mem_depth_12_in;
typedef struct { uint32_t y; } mem_depth_12_out;
typedef struct {
    HLS_MEM(uint32_t, 12) table; /* expect-error: memory-shape */
} mem_depth_12_state;

HLS_TOP void mem_depth_12(const mem_depth_12_in *in, mem_depth_12_out *out,
                          mem_depth_12_state *st) {
    out->y = st->table.hls_mem_rdata;
    hls_mem_read(&st->table, in->addr);
    if (in->we) hls_mem_write(&st->table, in->addr, in->x);
}
