#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static unsigned error_count;

/* One report per (file, line, rule): an unrolled or inlined construct can
 * reach the same check many times. */
#define SEEN_MAX 256
static struct { const char *file; unsigned line; const char *rule; } seen[SEEN_MAX];
static unsigned n_seen;

static bool seen_before(const char *file, unsigned line, const char *rule) {
    for (unsigned i = 0; i < n_seen; i++)
        if (seen[i].line == line && !strcmp(seen[i].file, file) && !strcmp(seen[i].rule, rule))
            return true;
    if (n_seen < SEEN_MAX) {
        seen[n_seen].file = strdup(file);
        seen[n_seen].line = line;
        seen[n_seen].rule = rule;
        n_seen++;
    }
    return false;
}

void diag_error(const char *file, unsigned line, unsigned col, const char *rule,
                const char *fmt, ...) {
    va_list ap;
    if (!file) file = "<unknown>";
    if (seen_before(file, line, rule)) return;
    fprintf(stderr, "%s:%u:%u: error: [%s] ", file, line, col, rule);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    error_count++;
}

unsigned diag_count(void) { return error_count; }

void diag_internal(const char *fmt, ...) {
    va_list ap;
    /* after a user error, rtl-gen may meet the half-translated remains of that error: the
     * user error is what to fix, so stop as for any user error */
    diag_exit_if_errors();
    fputs("rtl-gen: internal error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

void diag_exit_if_errors(void) {
    if (error_count) {
        fprintf(stderr, "rtl-gen: %u error%s\n", error_count, error_count == 1 ? "" : "s");
        exit(1);
    }
}
