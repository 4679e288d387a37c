/* mem_word_padded — an HLS_MEM whose word struct has padding bytes.
 * Rejected: every bit of a memory word must be defined (the C model and the RAM compare
 * whole words); add an explicit reserved field. */
#include "hls.h"

typedef struct { uint32_t key; uint8_t flags; } entry_t; /* 3 bytes of padding */
typedef struct { uint8_t a; } mem_word_padded_in;
typedef struct { uint32_t key; } mem_word_padded_out;
typedef struct {
    HLS_MEM(entry_t, 64) table; /* expect-error: memory-shape */
} mem_word_padded_state;

HLS_TOP void mem_word_padded(const mem_word_padded_in *in, mem_word_padded_out *out,
                             mem_word_padded_state *st) {
    out->key = st->table.hls_mem_rdata.key;
    hls_mem_read(&st->table, in->a);
}
