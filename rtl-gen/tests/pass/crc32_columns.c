/* crc32_columns — CRC-32 (reflected 0xEDB88320) of a 64-byte beat from a zero register,
 * written as hardware wants it: the XOR of one constant column per set data bit. This is
 * the ICRC engine's core (hls/packet/roce_common.h, crc32_block).
 *
 * In the corpus for logic depth: clang folds the columns to constants and reassociates the
 * 512-term XOR into one long chain; rtl-gen must emit it as balanced trees, and each
 * "bit set?" test as the bit itself (rtl-gen/tests/native/run checks the XOR depth of the
 * generated Verilog). crc32_beat.c is the same function as a chain of byte steps. */
#include "hls.h"

typedef struct {
    hls_u512 data;        /* byte i = bits [8i+7:8i], byte 0 first */
} crc32_columns_in;

typedef struct {
    uint32_t crc;         /* register after the previous cycle's beat */
} crc32_columns_out;

typedef struct {
    uint32_t reg;
} crc32_columns_state;

HLS_INLINE uint32_t crc32_shift(uint32_t crc) {
    return (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
}

HLS_TOP void crc32_columns(const crc32_columns_in *in, crc32_columns_out *out,
                           crc32_columns_state *st) {
    uint32_t col[8], reg = 0;
    for (int j = 0; j < 8; j++) col[j] = 1u << j;
    for (int p = 63; p >= 0; p--) { /* column of bit j of byte p: 8 * (64 - p) shifts */
        uint32_t byte = (uint8_t)(in->data >> (8 * p));
        for (int j = 0; j < 8; j++)
            for (int s = 0; s < 8; s++) col[j] = crc32_shift(col[j]);
        for (int j = 0; j < 8; j++) reg ^= col[j] & (0u - ((byte >> j) & 1u));
    }
    out->crc = st->reg;
    st->reg = reg;
}
