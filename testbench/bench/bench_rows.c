/* bench_rows.c — the bench's output rows; bench_rows.h says what they are. */
#include "bench_rows.h"

#include <stdarg.h>

static FILE *out;
static int failures;

void bench_rows_to(FILE *f) { out = f; }
static FILE *dest(void) { return out ? out : stdout; }

void bench_row(const char *sec, const char *metric, const char *unit, const char *how, const char *fmt, ...) {
    char v[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    fprintf(dest(), "%s\t%s\t%s\t%s\t%s\n", sec, metric, v, unit, how);
    fflush(dest());
}

/* "ok", or the prefix and the reason; why is formatted only when it is needed */
static void verdict(const char *sec, const char *name, bool ok, const char *bad, const char *fmt, va_list ap) {
    char why[512] = "";
    if (!ok) vsnprintf(why, sizeof why, fmt, ap);
    fprintf(dest(), "%s\t%s\t%s%s\t\t\n", sec, name, ok ? "ok" : bad, why);
    fflush(dest());
}

void bench_check(const char *name, bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verdict("check", name, ok, "FAIL: ", fmt, ap);
    va_end(ap);
    failures += !ok;
}

void bench_finding(const char *name, bool ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    verdict("finding", name, ok, "PROBLEM: ", fmt, ap);
    va_end(ap);
}

int bench_check_failures(void) { return failures; }
