/* mem_cell_index — reading an HLS_MEM cell directly, as if it were an array.
 * Rejected: a RAM has one synchronous read port; a direct read would need every cell
 * wired out at once. Use hls_mem_read and take hls_mem_rdata next cycle. */
#include "hls.h"

typedef struct { uint8_t addr; } mem_cell_index_in;
typedef struct { uint32_t y; } mem_cell_index_out;
typedef struct { HLS_MEM(uint32_t, 16) table; } mem_cell_index_state;

HLS_TOP void mem_cell_index(const mem_cell_index_in *in, mem_cell_index_out *out,
                            mem_cell_index_state *st) {
    out->y = st->table.hls_mem_cell[in->addr & 15]; /* expect-error: memory-access */
}
