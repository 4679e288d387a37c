/* crc32c_word — CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) over one 32-bit
 * little-endian word per cycle, as iSCSI or NVMe-oF digests are computed; the running
 * value is kept inverted as the standard defines, and `seed` restarts it.
 *
 * In the corpus for a 32-step reflected CRC unrolled into one cycle (an XOR network of
 * depth 32 that the XOR-tree pass flattens). */
#include "hls.h"

typedef struct {
    bool valid, seed;
    uint32_t data;
} crc32c_word_in;

typedef struct {
    uint32_t crc;             /* the CRC of everything since the last seed */
} crc32c_word_out;

typedef struct {
    uint32_t reg;             /* the inverted running CRC */
} crc32c_word_state;

HLS_TOP void crc32c_word(const crc32c_word_in *in, crc32c_word_out *out, crc32c_word_state *st) {
    uint32_t c = in->seed ? 0xFFFFFFFFu : st->reg;
    if (in->seed && !in->valid) st->reg = c;
    if (in->valid) {
        c ^= in->data;
        for (int i = 0; i < 32; i++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
        st->reg = c;
    }
    out->crc = ~st->reg;
}
