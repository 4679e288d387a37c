/* sig_index.h — find a netlist's signals by the names written in its expressions.
 * Each wire's expression is Verilog text over named signals (netlist.h); the Verilog writer
 * follows those names to find what is live and in which order wires can be printed. */
#ifndef RTLGEN_SIG_INDEX_H
#define RTLGEN_SIG_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "netlist.h"

typedef struct {
    const netlist_t *nl;
    int *slot;        /* name hash -> signal index, -1 empty */
    unsigned cap;
} sig_index_t;

void sig_index_init(sig_index_t *x, const netlist_t *nl);
void sig_index_free(sig_index_t *x);

/* Calls fn(arg, sig, whole) for each signal named in text (the digits of sized literals such
 * as 32'h1f are not names); whole is false when the name is followed by a bit select '['. */
void sig_index_scan(const sig_index_t *x, const char *text, void (*fn)(void *, int, bool),
                    void *arg);

/* The same over every text of signal s: a wire's expression, a case's selector and values. */
void sig_index_scan_sig(const sig_index_t *x, const sig_t *s, void (*fn)(void *, int, bool),
                        void *arg);

#endif
