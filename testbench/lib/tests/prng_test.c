/* prng_test — known answers for splitmix64 and xoshiro256**, determinism, unbiasedness. */
#include "../prng.h"
#include "tb_check.h"

#include <math.h>
#include <string.h>

int main(void) {
    tb_begin("prng splitmix64 known answers");
    {
        uint64_t s = 0;
        /* the reference splitmix64.c from seed 0 (also computed by an independent Python model) */
        const uint64_t want[3] = {0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull, 0x06c45d188009454full};
        for (int i = 0; i < 3; i++) {
            uint64_t got = splitmix64(&s);
            CHECK(got == want[i], "output %d: %#llx, want %#llx", i, (unsigned long long)got,
                  (unsigned long long)want[i]);
        }
    }
    tb_end();

    tb_begin("prng xoshiro256** known answers");
    {
        prng_t r = {{1, 2, 3, 4}}; /* xoshiro256starstar.c from state {1,2,3,4}: 11520, 0, ... */
        const uint64_t want[4] = {11520, 0, 0x5a007080ull, 0x10e0000000009d80ull};
        for (int i = 0; i < 4; i++) {
            uint64_t got = prng_next(&r);
            CHECK(got == want[i], "output %d: %#llx, want %#llx", i, (unsigned long long)got,
                  (unsigned long long)want[i]);
        }
        prng_seed(&r, 42); /* seeding = four splitmix64 outputs */
        const uint64_t want42[3] = {0x15780b2e0c2ec716ull, 0x6104d9866d113a7eull, 0xae17533239e499a1ull};
        for (int i = 0; i < 3; i++) {
            uint64_t got = prng_next(&r);
            CHECK(got == want42[i], "seed 42 output %d: %#llx", i, (unsigned long long)got);
        }
    }
    tb_end();

    tb_begin("prng determinism and streams");
    {
        prng_t a, b, c, d, e;
        prng_seed(&a, 7);
        prng_seed(&b, 7);
        prng_seed(&c, 8);
        prng_seed_stream(&d, 7, 1);
        prng_seed_stream(&e, 7, 2);
        int same_ab = 0, same_ac = 0, same_de = 0;
        for (int i = 0; i < 1000; i++) {
            uint64_t x = prng_next(&a);
            same_ab += x == prng_next(&b);
            same_ac += x == prng_next(&c);
            same_de += prng_next(&d) == prng_next(&e);
        }
        CHECK(same_ab == 1000, "same seed differs");
        CHECK(same_ac == 0, "seeds 7 and 8 agree on %d outputs", same_ac);
        CHECK(same_de == 0, "streams 1 and 2 agree on %d outputs", same_de);
    }
    tb_end();

    tb_begin("prng_below range and uniformity (chi-square, 10 bins, 10^5 draws)");
    {
        prng_t r;
        prng_seed(&r, 1);
        unsigned bins[10] = {0};
        int out = 0;
        for (int i = 0; i < 100000; i++) {
            uint64_t x = prng_below(&r, 10);
            if (x >= 10) out++;
            else bins[x]++;
        }
        double chi = 0;
        for (int i = 0; i < 10; i++) chi += (bins[i] - 10000.0) * (bins[i] - 10000.0) / 10000.0;
        CHECK(out == 0, "%d draws out of range", out);
        CHECK(chi < 27.9, "chi-square %.1f (9 dof, p=0.001 bound 27.9)", chi); /* fails ~0.1% of seeds; seed fixed */
        uint64_t lo = 100, hi = 0;
        for (int i = 0; i < 10000; i++) {
            uint64_t x = prng_range(&r, 5, 9);
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        CHECK(lo == 5 && hi == 9, "prng_range(5,9) spans %llu..%llu", (unsigned long long)lo, (unsigned long long)hi);
        CHECK(prng_below(&r, 0) == 0 && prng_below(&r, 1) == 0, "degenerate n");
    }
    tb_end();

    tb_begin("prng_chance rates");
    {
        prng_t r;
        prng_seed(&r, 3);
        const double ps[4] = {0.001, 0.05, 0.5, 0.9};
        for (int k = 0; k < 4; k++) {
            uint64_t t = prng_threshold(ps[k]);
            int hits = 0, n = 100000;
            for (int i = 0; i < n; i++) hits += prng_chance(&r, t);
            double mu = n * ps[k], sd = sqrt(n * ps[k] * (1 - ps[k]));
            CHECK(fabs(hits - mu) < 5 * sd, "p=%g: %d hits, expected %.0f +- %.0f", ps[k], hits, mu, 5 * sd);
        }
        int never = 0, always = 0;
        for (int i = 0; i < 10000; i++) {
            never += prng_chance(&r, prng_threshold(0.0));
            always += prng_chance(&r, prng_threshold(1.0));
        }
        CHECK(never == 0 && always == 10000, "p=0 gave %d, p=1 gave %d of 10000", never, always);
        uint8_t b1[13];
        prng_t x, y;
        prng_seed(&x, 5);
        prng_seed(&y, 5);
        prng_fill(&x, b1, sizeof b1);
        uint64_t w0 = prng_next(&y), w1 = prng_next(&y);
        int ok = 1;
        for (int i = 0; i < 13; i++) ok &= b1[i] == (uint8_t)((i < 8 ? w0 : w1) >> (8 * (i % 8)));
        CHECK(ok, "prng_fill is not the little-endian bytes of prng_next");
    }
    tb_end();
    return tb_exit();
}
