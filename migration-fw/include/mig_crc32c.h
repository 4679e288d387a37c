/* mig_crc32c.h — CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every
 * image block. crc32c("123456789") = 0xE3069283. */
#ifndef MIG_CRC32C_H
#define MIG_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* continue a CRC: start with crc = 0; the result of one call is the crc of the next */
uint32_t mig_crc32c(uint32_t crc, const uint8_t *p, size_t n);

#endif /* MIG_CRC32C_H */
