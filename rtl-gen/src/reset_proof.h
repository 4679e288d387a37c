/* reset_proof.h — which state registers need no reset.
 *
 * A register R needs no reset when a 1-bit register V (its guard, itself reset) makes it
 * unobservable until written: with V = 0,
 *   (1) nothing but R's own next value depends on R: no output, no other register's next
 *       value, no memory port;
 *   (2) whenever V becomes 1, R's next value does not depend on R (R is written).
 * Then after any reset (V = 0, R anything) R cannot influence anything until V is set, and
 * from then on it holds what it would hold had it been reset: the C model (everything
 * zeroed) and the Verilog (R not reset) agree on every output and every reset register in
 * every cycle, and on R whenever V is 1. docs/rtl-gen.md, "Reset policy", has the argument.
 *
 * Both conditions are checked on the netlist by three-valued (0, 1, unknown) evaluation:
 * V is 0, every input and every other register unknown. A wire whose value comes out known
 * depends on nothing; a mux whose select comes out known depends on one arm only. (1) is a
 * dependence walk from every root; (2) walks R's next value through its muxes down to every
 * place that reads R, collecting the select values on the way, and evaluates V's next value
 * with those selects fixed: it must come out 0. Anything the evaluation cannot decide keeps
 * the reset: the check may miss registers, never admit a wrong one. */
#ifndef RTLGEN_RESET_PROOF_H
#define RTLGEN_RESET_PROOF_H

#include "translate.h"

/* Fills ifc->reg_guard (n_regs entries): -1 for a register that keeps its reset, else the
 * index of its guard register (a 1-bit register that keeps its reset). */
void reset_proof(const tr_t *t, iface_t *ifc);

/* Does the block ignore input leaves data[0..n) whenever input leaf `valid` is 0: no output,
 * no register's next value and no memory port depends on them then (condition (1) with an
 * input for the guard)? rtl-gen --compose asks it of each FIFO's consumer: a FIFO need not
 * zero its output while empty when its consumer looks at the data only while it is valid. */
bool reset_proof_ignores_unless(const tr_t *t, unsigned valid, const int *data, unsigned n);

#endif
