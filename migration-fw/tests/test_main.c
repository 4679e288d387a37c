/* test_main.c — the unit tests' entry point: every group in turn, then the tally. */
#include "test_util.h"

int mig_test_main(const char *platform)
{
    t_platform = platform;
    t_puts("migration-fw unit tests on ");
    t_puts(platform);
    t_puts("\n");
    libc_tests();
    layout_tests();
    derive_tests();
    cmd_tests();
    image_tests();
    refusal_tests();
    value_tests();
    precopy_tests();
    t_puts(platform);
    t_puts(": ");
    t_putu(t_passes);
    t_puts(" passed, ");
    t_putu(t_fails);
    t_puts(" failed\n");
    return t_fails ? 1 : 0;
}
