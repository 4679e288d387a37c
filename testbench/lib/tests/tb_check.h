/* tb_check.h — tiny test helpers for testbench/lib/tests: each test prints
 * "PASS name" or "FAIL name: why" once; tb_exit() returns non-zero if any failed. */
#ifndef TB_CHECK_H
#define TB_CHECK_H

#include <stdio.h>

static const char *tb_name;
static int tb_cur_fail, tb_fails, tb_passes;

static inline void tb_begin(const char *name) {
    tb_name = name;
    tb_cur_fail = 0;
}
static inline void tb_end(void) {
    if (!tb_cur_fail) {
        printf("PASS %s\n", tb_name);
        tb_passes++;
    } else {
        tb_fails++;
    }
    fflush(stdout);
}
/* CHECK(cond, printf-format, args...): the first failing check of a test is reported. */
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            if (!tb_cur_fail) {                                                                    \
                printf("FAIL %s: ", tb_name);                                                      \
                printf(__VA_ARGS__);                                                               \
                printf(" [%s:%d: %s]\n", __FILE__, __LINE__, #c);                                  \
            }                                                                                      \
            tb_cur_fail = 1;                                                                       \
        }                                                                                          \
    } while (0)
static inline int tb_exit(void) { return tb_fails ? 1 : 0; }

#endif /* TB_CHECK_H */
