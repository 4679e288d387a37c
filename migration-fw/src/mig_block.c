/* mig_block.c — the block checksum, shared by save, load and the tests that forge blocks. */
#include "mig_image.h"

#include "mig_crc32c.h"
#include "mig_libc.h"

uint32_t mig_block_crc(const uint8_t *block)
{
    uint32_t crc = mig_crc32c(0, block, MIG_BH_CRC);
    return mig_crc32c(crc, block + MIG_BH_BYTES, MIG_BLOCK_SIZE - MIG_BH_BYTES);
}

void mig_block_seal(uint8_t *block)
{
    mig_put_le(block + MIG_BH_CRC, mig_block_crc(block), 4);
}
