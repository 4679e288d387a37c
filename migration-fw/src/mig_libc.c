/* mig_libc.c — byte loops: the firmware copies a few hundred bytes per block, and a loop the
 * compiler cannot turn back into a memcpy call (it would call itself) is all it needs. */
#include "mig_libc.h"

void *mig_memcpy(void *dst, const void *src, size_t n)
{
    volatile uint8_t *d = dst; /* volatile: keep the loop from being recognised as memcpy */
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++) d[i] = s[i];
    return dst;
}

void *mig_memset(void *dst, int c, size_t n)
{
    volatile uint8_t *d = dst;
    for (size_t i = 0; i < n; i++) d[i] = (uint8_t)c;
    return dst;
}

int mig_memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Only the freestanding builds define the C names; the native test build (with ASan) keeps
 * the C library's, which the sanitizer intercepts. */
#ifdef MIG_FREESTANDING
void *memcpy(void *dst, const void *src, size_t n) { return mig_memcpy(dst, src, n); }
void *memset(void *dst, int c, size_t n) { return mig_memset(dst, c, n); }
#endif
