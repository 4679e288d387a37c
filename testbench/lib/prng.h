/* prng.h — small, documented, seeded pseudo-random generators for the testbench.
 *
 * splitmix64 (Steele, Lea, Flood 2014; the reference code is public domain, by Sebastiano
 * Vigna, https://prng.di.unimi.it/splitmix64.c): a 64-bit counter stepped by the golden
 * gamma 0x9e3779b97f4a7c15 and mixed. Used to expand one 64-bit seed into state words and to
 * hash (seed, stream) pairs.
 *
 * xoshiro256** (Blackman, Vigna 2018, https://prng.di.unimi.it/xoshiro256starstar.c): the
 * general generator. 256 bits of state, period 2^256 - 1. Its state is seeded with four
 * successive splitmix64 outputs, as the authors recommend, so no seed gives the all-zero
 * state.
 *
 * Everything here is integer arithmetic on uint64_t, so a seed gives the same sequence on
 * every compiler and platform. prng_chance() compares an integer draw with a threshold
 * computed once from the probability, so Bernoulli trials are exact and portable too.
 */
#ifndef TB_PRNG_H
#define TB_PRNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4];
} prng_t;

/* One splitmix64 step: advances *state and returns the next output. */
uint64_t splitmix64(uint64_t *state);

/* Seed a generator: s[0..3] = the first four splitmix64 outputs from `seed`. */
void prng_seed(prng_t *r, uint64_t seed);
/* Seed an independent stream `stream` of `seed` (e.g. one per impairment or per port):
 * prng_seed(r, splitmix64 hash of (seed, stream)). Streams of one seed do not overlap in
 * practice and do not shift when another stream draws more or fewer numbers. */
void prng_seed_stream(prng_t *r, uint64_t seed, uint64_t stream);

/* Next 64 uniformly distributed bits (xoshiro256**). */
uint64_t prng_next(prng_t *r);
/* Uniform in [0, n), unbiased (Lemire's multiply-shift with rejection). n == 0 returns 0. */
uint64_t prng_below(prng_t *r, uint64_t n);
/* Uniform in [lo, hi] (inclusive). hi < lo returns lo. */
uint64_t prng_range(prng_t *r, uint64_t lo, uint64_t hi);
/* Uniform double in [0, 1) with 53 random bits (for statistics; the models use thresholds). */
double prng_unit(prng_t *r);

/* A probability as an integer threshold: prng_chance(r, t) is true with probability
 * t / 2^64; PRNG_ALWAYS means probability 1. prng_threshold(p) clamps p to [0, 1]. */
#define PRNG_ALWAYS UINT64_MAX
uint64_t prng_threshold(double p);
/* One Bernoulli trial; always consumes exactly one prng_next(), whatever the threshold. */
bool prng_chance(prng_t *r, uint64_t threshold);

/* Fill n bytes with random data (little-endian bytes of successive prng_next()). */
void prng_fill(prng_t *r, void *buf, size_t n);

#endif /* TB_PRNG_H */
