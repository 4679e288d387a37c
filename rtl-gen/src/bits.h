/* bits.h — constant bit vectors up to BITS_MAX bits (LLVM's wide constants,
 * ROM contents, struct initialisers). Little-endian 64-bit words. */
#ifndef RTLGEN_BITS_H
#define RTLGEN_BITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BITS_MAX 2048
#define BITS_WORDS (BITS_MAX / 64)

typedef struct {
    uint64_t w[BITS_WORDS];
} bits_t;

void bits_zero(bits_t *b);
void bits_from_u64(bits_t *b, uint64_t v);
/* Parse a decimal integer (optional leading '-') as a width-bit two's complement value. */
bool bits_from_decimal(bits_t *b, const char *s, unsigned width);
unsigned bits_get_bit(const bits_t *b, unsigned i);
void bits_set_bit(bits_t *b, unsigned i, unsigned v);
/* Keep only the low width bits. */
void bits_truncate(bits_t *b, unsigned width);
/* dst = bits [lo, lo+width) of src */
void bits_extract(bits_t *dst, const bits_t *src, unsigned lo, unsigned width);
/* dst |= src << shift (src holds width bits) */
void bits_insert(bits_t *dst, const bits_t *src, unsigned shift, unsigned width);
bool bits_is_zero(const bits_t *b, unsigned width);
uint64_t bits_low64(const bits_t *b);
/* Print as a Verilog literal: W'hXXXX (or 1'b0 / 1'b1). */
void bits_print_verilog(FILE *f, const bits_t *b, unsigned width);
/* Same into a caller buffer (at least width/4 + 16 bytes). */
void bits_format_verilog(char *out, const bits_t *b, unsigned width);

#endif
