/* prng.c — splitmix64 and xoshiro256** (see prng.h for the references). */
#include "prng.h"

#include <string.h>

uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void prng_seed(prng_t *r, uint64_t seed) {
    uint64_t sm = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&sm);
}

void prng_seed_stream(prng_t *r, uint64_t seed, uint64_t stream) {
    uint64_t h = seed;
    uint64_t a = splitmix64(&h);
    uint64_t k = stream ^ 0x6a09e667f3bcc909ull; /* so that stream 0 differs from prng_seed */
    uint64_t b = splitmix64(&k);
    prng_seed(r, a ^ (b * 0xd1342543de82ef95ull));
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t prng_next(prng_t *r) {
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t prng_below(prng_t *r, uint64_t n) {
    if (n == 0) return 0;
    unsigned __int128 m = (unsigned __int128)prng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = (0 - n) % n; /* 2^64 mod n */
        while (lo < t) {
            m = (unsigned __int128)prng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

uint64_t prng_range(prng_t *r, uint64_t lo, uint64_t hi) {
    if (hi <= lo) return lo;
    if (lo == 0 && hi == UINT64_MAX) return prng_next(r);
    return lo + prng_below(r, hi - lo + 1);
}

double prng_unit(prng_t *r) { return (double)(prng_next(r) >> 11) * 0x1.0p-53; }

uint64_t prng_threshold(double p) {
    if (!(p > 0.0)) return 0; /* also NaN */
    if (p >= 1.0) return PRNG_ALWAYS;
    double t = p * 18446744073709551616.0; /* 2^64 */
    if (t >= 18446744073709551615.0) return PRNG_ALWAYS - 1;
    return (uint64_t)t;
}

bool prng_chance(prng_t *r, uint64_t threshold) {
    uint64_t x = prng_next(r);
    return threshold == PRNG_ALWAYS ? true : x < threshold;
}

void prng_fill(prng_t *r, void *buf, size_t n) {
    uint8_t *p = buf;
    while (n) {
        uint64_t x = prng_next(r);
        size_t k = n < 8 ? n : 8;
        for (size_t i = 0; i < k; i++) p[i] = (uint8_t)(x >> (8 * i));
        p += k;
        n -= k;
    }
}
