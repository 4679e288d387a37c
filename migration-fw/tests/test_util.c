/* test_util.c — output and randomness for the unit tests (and the fuzz target). */
#include "test_util.h"

unsigned t_passes, t_fails;
const char *t_platform = "";
static uint32_t rng = 0x9e3779b9u;

static unsigned slen(const char *s) { unsigned n = 0; while (s[n]) n++; return n; }
void t_puts(const char *s) { t_out(s, slen(s)); }

/* v / 10 by shift-and-subtract: rv32 has no 64-bit divide and there is no libgcc here */
static uint64_t div10(uint64_t v, unsigned *rem)
{
    uint64_t q = 0, r = 0;
    for (int b = 63; b >= 0; b--) {
        r = r << 1 | ((v >> b) & 1);
        if (r >= 10) r -= 10, q |= (uint64_t)1 << b;
    }
    *rem = (unsigned)r;
    return q;
}

void t_putu(uint64_t v)
{
    char buf[24];
    unsigned i = sizeof buf, digit;
    do { v = div10(v, &digit); buf[--i] = (char)('0' + digit); } while (v);
    t_out(buf + i, sizeof buf - i);
}

void t_pass(const char *name)
{
    t_passes++;
    t_puts("PASS migration-fw/");
    t_puts(t_platform);
    t_puts(" ");
    t_puts(name);
    t_puts("\n");
}

void t_fail(const char *name, const char *why, uint64_t a, uint64_t b)
{
    t_fails++;
    t_puts("FAIL migration-fw/");
    t_puts(t_platform);
    t_puts(" ");
    t_puts(name);
    t_puts(": ");
    t_puts(why);
    t_puts(" (");
    t_putu(a);
    t_puts(", ");
    t_putu(b);
    t_puts(")\n");
}

bool t_expect(const char *name, const char *what, uint64_t a, uint64_t b)
{
    if (a != b) t_fail(name, what, a, b);
    return a == b;
}

void t_seed(uint32_t s) { rng = s ? s : 1; }
uint32_t t_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

void t_pass_begin(void)
{
    t_passes++;
    t_puts("PASS migration-fw/");
    t_puts(t_platform);
    t_puts(" ");
}
