/* mig_libc.h — the firmware's own memory helpers (no libc in a freestanding build).
 * mig_libc.c also defines memcpy/memset/memmove, which the compiler may emit implicitly for
 * struct copies and zeroing: they forward to these. */
#ifndef MIG_LIBC_H
#define MIG_LIBC_H

#include <stddef.h>
#include <stdint.h>

void *mig_memcpy(void *dst, const void *src, size_t n);
void *mig_memset(void *dst, int c, size_t n);
int mig_memcmp(const void *a, const void *b, size_t n);

/* little-endian byte access: the image's integers, whatever the core's byte order */
static inline void mig_put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint64_t mig_get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

#endif /* MIG_LIBC_H */
