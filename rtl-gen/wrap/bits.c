#include "bits.h"

#include <stdio.h>
#include <stdlib.h>

bool bits_equal(const uint8_t *a, const uint8_t *b, unsigned width) {
    unsigned whole = width / 8;
    if (memcmp(a, b, whole)) return false;
    if (width % 8 == 0) return true;
    uint8_t keep = (uint8_t)((1u << (width % 8)) - 1);
    return ((a[whole] ^ b[whole]) & keep) == 0;
}

char *bits_hex(const uint8_t *p, unsigned width) {
    unsigned digits = (width + 3) / 4;
    char *s = malloc(digits + 3);
    if (!s) {
        perror("equiv");
        exit(2);
    }
    s[0] = '0';
    s[1] = 'x';
    for (unsigned d = 0; d < digits; d++) { /* most significant digit first */
        unsigned lo = 4 * (digits - 1 - d), v = 0;
        for (unsigned b = 0; b < 4 && lo + b < width; b++) v |= bits_get(p, lo + b) << b;
        s[2 + d] = "0123456789abcdef"[v];
    }
    s[2 + digits] = '\0';
    return s;
}
