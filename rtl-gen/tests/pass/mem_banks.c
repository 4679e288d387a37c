/* mem_banks — an array of two memories, the bank chosen per cycle by an input bit.
 *
 * In the corpus for an HLS_MEM array reached at a dynamic index: each bank gets its own
 * RAM ports, each used when the index selects that bank (read one bank, write the other). */
#include "hls.h"

typedef HLS_MEM(uint16_t, 8) mem_banks_ram;

typedef struct {
    bool bank;            /* bank read this cycle; the other one may be written */
    hls_uint(3) addr;
    uint16_t wdata;
    bool we;
} mem_banks_in;

typedef struct {
    uint16_t q0, q1;      /* each bank's read data register */
} mem_banks_out;

typedef struct {
    mem_banks_ram bank[2];
} mem_banks_state;

HLS_TOP void mem_banks(const mem_banks_in *in, mem_banks_out *out, mem_banks_state *st) {
    out->q0 = st->bank[0].hls_mem_rdata;
    out->q1 = st->bank[1].hls_mem_rdata;
    hls_mem_read(&st->bank[in->bank], in->addr);
    if (in->we) hls_mem_write(&st->bank[!in->bank], in->addr, in->wdata);
}
