/* mem_word_2048 — an HLS_MEM of 2048-bit words. Rejected: a memory word is at most 1024
 * bits; split it into two memories read with the same address. */
#include "hls.h"

typedef struct { uint8_t a; } mem_word_2048_in;
typedef struct { uint32_t y; } mem_word_2048_out;
typedef struct {
    HLS_MEM(hls_uint(2048), 4) lines; /* expect-error: memory-shape */
} mem_word_2048_state;

HLS_TOP void mem_word_2048(const mem_word_2048_in *in, mem_word_2048_out *out,
                           mem_word_2048_state *st) {
    out->y = (uint32_t)st->lines.hls_mem_rdata;
    hls_mem_read(&st->lines, in->a);
}
