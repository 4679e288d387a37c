/* bench_rows.h — the rows every bench program prints (docs/bench.md): one figure per line,
 * tab-separated, SECTION METRIC VALUE UNIT HOW, which testbench/bench/run gathers into
 * bench.tsv and testbench/bench/table prints. Section "check": was the run consistent (value
 * "ok" or "FAIL: why"); section "finding": NIC behaviour that looks wrong ("ok" or
 * "PROBLEM: what"), not a bench failure. Plain C testbench code. */
#ifndef BENCH_ROWS_H
#define BENCH_ROWS_H

#include <stdbool.h>
#include <stdio.h>

/* Where the rows go (default stdout): a program whose libraries print on stdout keeps its
 * rows apart this way. */
void bench_rows_to(FILE *f);
void bench_row(const char *sec, const char *metric, const char *unit, const char *how, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void bench_check(const char *name, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void bench_finding(const char *name, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* checks that failed so far */
int bench_check_failures(void);

#endif
