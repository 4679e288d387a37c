/* util.h — allocation that never returns NULL, growable arrays, string interning. */
#ifndef RTLGEN_UTIL_H
#define RTLGEN_UTIL_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same string, same pointer, kept for the whole run. */
const char *intern(const char *s);

/* Append one element to a growable array: ARR_PUSH(arr, count, cap, value) */
#define ARR_PUSH(arr, n, cap, v)                                   \
    do {                                                           \
        if ((n) == (cap)) {                                        \
            (cap) = (cap) ? (cap) * 2 : 16;                        \
            (arr) = xrealloc((arr), sizeof(*(arr)) * (size_t)(cap)); \
        }                                                          \
        (arr)[(n)++] = (v);                                        \
    } while (0)

#endif
