/* bits.h — leaf values as little-endian bytes: WIDTH bits in the low bits of SIZE bytes.
 *
 * This is how the C structs store every leaf (docs/rtl-gen.md) and, on a little-endian
 * host, how Verilator stores every signal: CData/SData/IData/QData are plain integers and
 * VlWide<N> is an array of 32-bit words, least significant first. So one byte-level
 * representation serves the C model, the verilated model and the equiv driver.
 * Valid C and C++ (rtl_glue.h includes it). */
#ifndef WRAP_BITS_H
#define WRAP_BITS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the byte-level leaf copies assume a little-endian host"
#endif

/* Bit I of the value at P. */
static inline unsigned bits_get(const uint8_t *p, unsigned i) {
    return (p[i / 8] >> (i % 8)) & 1u;
}

/* Make the bits of P above WIDTH, up to SIZE bytes, copies of the sign bit (IS_SIGNED) or
 * zeros: the canonical storage of a WIDTH-bit value, and what Verilator requires of the
 * unused bits of its variables. */
static inline void bits_extend(uint8_t *p, unsigned width, unsigned size, bool is_signed) {
    unsigned used = (width + 7) / 8;
    uint8_t fill = is_signed && bits_get(p, width - 1) ? 0xff : 0x00;
    if (width % 8) {
        uint8_t keep = (uint8_t)((1u << (width % 8)) - 1);
        p[used - 1] = (uint8_t)((p[used - 1] & keep) | (fill & ~keep));
    }
    memset(p + used, fill, size - used);
}

/* Do A and B hold the same WIDTH-bit value? Bits above WIDTH are ignored: the x86-64
 * ABI leaves the padding bits of a _BitInt unspecified. */
bool bits_equal(const uint8_t *a, const uint8_t *b, unsigned width);

/* "0x" and WIDTH/4 (rounded up) hex digits of the value at P, in a malloc'd string. */
char *bits_hex(const uint8_t *p, unsigned width);

#endif
