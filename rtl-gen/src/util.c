#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) diag_internal("out of memory");
    return p;
}

void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) diag_internal("out of memory");
    return p;
}

void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) diag_internal("out of memory");
    return p;
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static const char **interned;
static size_t n_interned, cap_interned;

const char *intern(const char *s) {
    for (size_t i = 0; i < n_interned; i++)
        if (strcmp(interned[i], s) == 0) return interned[i];
    const char *c = xstrdup(s);
    ARR_PUSH(interned, n_interned, cap_interned, c);
    return c;
}
