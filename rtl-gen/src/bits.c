#include "bits.h"

#include <string.h>

void bits_zero(bits_t *b) { memset(b, 0, sizeof *b); }

void bits_from_u64(bits_t *b, uint64_t v) {
    bits_zero(b);
    b->w[0] = v;
}

/* b = b * 10 + digit over all words */
static void mul10_add(bits_t *b, unsigned digit) {
    unsigned __int128 carry = digit;
    for (unsigned i = 0; i < BITS_WORDS; i++) {
        unsigned __int128 t = (unsigned __int128)b->w[i] * 10 + carry;
        b->w[i] = (uint64_t)t;
        carry = t >> 64;
    }
}

static void negate(bits_t *b) {
    unsigned carry = 1;
    for (unsigned i = 0; i < BITS_WORDS; i++) {
        uint64_t v = ~b->w[i];
        b->w[i] = v + carry;
        carry = carry && b->w[i] == 0;
    }
}

bool bits_from_decimal(bits_t *b, const char *s, unsigned width) {
    bool neg = false;
    bits_zero(b);
    if (*s == '-') {
        neg = true;
        s++;
    }
    if (*s < '0' || *s > '9') return false;
    for (; *s >= '0' && *s <= '9'; s++) mul10_add(b, (unsigned)(*s - '0'));
    if (neg) negate(b);
    bits_truncate(b, width);
    return true;
}

unsigned bits_get_bit(const bits_t *b, unsigned i) {
    return i < BITS_MAX ? (unsigned)(b->w[i / 64] >> (i % 64)) & 1u : 0;
}

void bits_set_bit(bits_t *b, unsigned i, unsigned v) {
    if (i >= BITS_MAX) return;
    if (v)
        b->w[i / 64] |= 1ull << (i % 64);
    else
        b->w[i / 64] &= ~(1ull << (i % 64));
}

void bits_truncate(bits_t *b, unsigned width) {
    for (unsigned i = width; i < BITS_MAX; i++)
        if (i % 64 == 0) {
            memset(&b->w[i / 64], 0, (BITS_WORDS - i / 64) * 8);
            break;
        } else {
            bits_set_bit(b, i, 0);
        }
}

void bits_extract(bits_t *dst, const bits_t *src, unsigned lo, unsigned width) {
    bits_t t;
    bits_zero(&t);
    for (unsigned i = 0; i < width; i++) bits_set_bit(&t, i, bits_get_bit(src, lo + i));
    *dst = t;
}

void bits_insert(bits_t *dst, const bits_t *src, unsigned shift, unsigned width) {
    for (unsigned i = 0; i < width; i++)
        if (bits_get_bit(src, i)) bits_set_bit(dst, shift + i, 1);
}

bool bits_is_zero(const bits_t *b, unsigned width) {
    for (unsigned i = 0; i < width; i++)
        if (bits_get_bit(b, i)) return false;
    return true;
}

uint64_t bits_low64(const bits_t *b) { return b->w[0]; }

void bits_format_verilog(char *out, const bits_t *b, unsigned width) {
    if (width == 1) {
        strcpy(out, bits_get_bit(b, 0) ? "1'b1" : "1'b0");
        return;
    }
    int n = sprintf(out, "%u'h", width);
    unsigned digits = (width + 3) / 4;
    bool leading = true;
    for (unsigned d = digits; d-- > 0;) {
        unsigned v = 0;
        for (unsigned k = 0; k < 4; k++)
            if (d * 4 + k < width) v |= bits_get_bit(b, d * 4 + k) << k;
        if (leading && v == 0 && d != 0) continue;
        leading = false;
        out[n++] = "0123456789abcdef"[v];
    }
    out[n] = 0;
}

void bits_print_verilog(FILE *f, const bits_t *b, unsigned width) {
    char buf[BITS_MAX / 4 + 32];
    bits_format_verilog(buf, b, width);
    fputs(buf, f);
}
