/* libc_test.c — mig_memcpy/memset/memcmp, the compiler's implicit memcpy, CRC-32C check
 * values, little-endian helpers. */
#include "mig_crc32c.h"
#include "mig_libc.h"
#include "test_util.h"

struct big { uint32_t w[40]; };

static void copy_struct(struct big *d, const struct big *s) { *d = *s; } /* may call memcpy */

void libc_tests(void)
{
    uint8_t a[67], b[67];
    bool ok = true;
    for (unsigned n = 0; n < sizeof a; n++) {
        for (unsigned i = 0; i < sizeof a; i++) a[i] = (uint8_t)(i * 7 + 1), b[i] = 0xEE;
        mig_memcpy(b, a, n);
        for (unsigned i = 0; i < sizeof a; i++) ok &= b[i] == (i < n ? a[i] : 0xEE);
        ok &= mig_memcmp(a, b, n) == 0;
        if (n < sizeof a) ok &= mig_memcmp(a, b, n + 1) != 0;
        mig_memset(b, 0x5A, n);
        for (unsigned i = 0; i < sizeof a; i++) ok &= b[i] == (i < n ? 0x5A : (i < n ? a[i] : 0xEE));
    }
    if (ok) t_pass("libc: mig_memcpy / mig_memset / mig_memcmp exact at sizes 0..66");
    else t_fail("libc", "byte helpers wrong", 0, 0);

    struct big s, d;
    for (unsigned i = 0; i < 40; i++) s.w[i] = i * 0x01010101u;
    mig_memset(&d, 0, sizeof d);
    copy_struct(&d, &s);
    if (mig_memcmp(&d, &s, sizeof s) == 0) t_pass("libc: struct copy (the compiler's implicit memcpy)");
    else t_fail("libc", "struct copy", 0, 0);

    const uint8_t check[] = "123456789";
    if (t_expect("crc32c", "crc32c(\"123456789\")", mig_crc32c(0, check, 9), 0xE3069283u) &&
        t_expect("crc32c", "split = whole", mig_crc32c(mig_crc32c(0, check, 4), check + 4, 5), 0xE3069283u) &&
        t_expect("crc32c", "32 zero bytes", mig_crc32c(0, (const uint8_t[32]){ 0 }, 32), 0x8A9136AAu))
        t_pass("crc32c: check values (RFC 3720 B.4)");

    uint8_t le[8];
    mig_put_le(le, 0x0102030405060708ull, 8);
    if (le[0] == 8 && le[7] == 1 && mig_get_le(le, 8) == 0x0102030405060708ull && mig_get_le(le, 3) == 0x060708)
        t_pass("little-endian put/get independent of the core's byte order");
    else t_fail("little-endian", "bytes", le[0], le[7]);
}
