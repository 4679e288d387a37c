/* wire_order.h — the order in which the Verilog prints a module's wires.
 * A reviewer reads the Verilog as a diff, so the order must follow the C, not the order
 * in which translate.c met the basic blocks: a changed condition makes clang lay out the
 * blocks of a function (and of the helpers inlined into it) in another order, and wires
 * printed in block order then show as removed in one place and added in another. Here
 * every wire is printed at its place in the source: its statement's call chain from the
 * top function, then its line. Nothing else moves it, not even the wires it reads (a
 * topological order would drag a whole cone along when one wire of it moves): a wire read
 * by a wire printed before it is declared ahead of all logic ("forward") and assigned at
 * its place. */
#ifndef RTLGEN_WIRE_ORDER_H
#define RTLGEN_WIRE_ORDER_H

#include <stdbool.h>

#include "netlist.h"
#include "sig_index.h"

/* The indices of the printed signals (live[i], SIG_WIRE or SIG_CASE) in print order; *n gets
 * their count, *forward (nl->n entries) which ones a wire printed earlier reads.
 * Deterministic: a function of the statements, their order of translation and the
 * expressions only. */
unsigned *wire_order(const netlist_t *nl, const sig_index_t *x, const bool *live, unsigned *n,
                     bool **forward);

#endif
