/* check.h — the PASS/FAIL line of the verbs tests run under hlsnic-run (misuse.c, cq_events.c).
 * Define CHECK_PREFIX (e.g. "misuse/") before including: each check prints
 * "PASS <prefix>NAME" or "FAIL <prefix>NAME: why" and a failure is counted in check_failures. */
#ifndef HD_TESTS_CHECK_H
#define HD_TESTS_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int check_failures;
static bool check(bool ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool check(bool ok, const char *name, const char *fmt, ...) {
    if (ok) {
        printf("PASS " CHECK_PREFIX "%s\n", name);
    } else {
        va_list ap;
        va_start(ap, fmt);
        printf("FAIL " CHECK_PREFIX "%s: ", name);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        check_failures++;
    }
    fflush(stdout);
    return ok;
}

#endif /* HD_TESTS_CHECK_H */
