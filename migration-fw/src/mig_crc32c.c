/* mig_crc32c.c — CRC-32C four bits at a time: a 16-entry table (64 bytes of rodata) keeps
 * the embedded image small and costs two lookups per byte (MIG_COST_CRC_BYTE). */
#include "mig_crc32c.h"

static const uint32_t nibble_table[16] = {
    0x00000000u, 0x105ec76fu, 0x20bd8edeu, 0x30e349b1u, 0x417b1dbcu, 0x5125dad3u,
    0x61c69362u, 0x7198540du, 0x82f63b78u, 0x92a8fc17u, 0xa24bb5a6u, 0xb21572c9u,
    0xc38d26c4u, 0xd3d3e1abu, 0xe330a81au, 0xf36e6f75u,
};

uint32_t mig_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ nibble_table[crc & 15];
        crc = (crc >> 4) ^ nibble_table[crc & 15];
    }
    return ~crc;
}
