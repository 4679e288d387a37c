/* diag.h — rtl-gen's error reporting: every rejection names file:line and a rule. */
#ifndef RTLGEN_DIAG_H
#define RTLGEN_DIAG_H

#include <stdnoreturn.h>

/* Print "FILE:LINE:COL: error: [RULE] message" and count it. */
void diag_error(const char *file, unsigned line, unsigned col, const char *rule,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Number of errors reported so far. */
unsigned diag_count(void);
/* Internal failure of rtl-gen itself (not the user's fault): print and exit 2. */
noreturn void diag_internal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Stop with exit status 1 if any error was reported. */
void diag_exit_if_errors(void);

#endif
