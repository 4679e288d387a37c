/* test_util.h — PASS/FAIL lines, a PRNG and number formatting for the unit tests; the same
 * code runs natively and on the rv32 build (no libc there: t_out is a Linux write ecall). */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/* platform: host_io.c (native) or rv32/rv32_io.c (qemu-riscv32) */
void t_out(const char *s, unsigned len);

extern unsigned t_passes, t_fails;
extern const char *t_platform;    /* "native", "rv32": the PASS lines' prefix */
void t_puts(const char *s);
void t_putu(uint64_t v);           /* decimal */
void t_pass(const char *name);
/* "PASS migration-fw/<platform> " for a line the caller completes with numbers */
void t_pass_begin(void);
/* FAIL name: why (a = .., b = ..) */
void t_fail(const char *name, const char *why, uint64_t a, uint64_t b);
/* expect a == b, else FAIL; returns a == b */
bool t_expect(const char *name, const char *what, uint64_t a, uint64_t b);

uint32_t t_rand(void);
void t_seed(uint32_t s);

/* the test groups */
void libc_tests(void);
void layout_tests(void);
void derive_tests(void);
void cmd_tests(void);
void image_tests(void);
void refusal_tests(void);
void value_tests(void);
void precopy_tests(void);
int mig_test_main(const char *platform);

#endif /* TEST_UTIL_H */
