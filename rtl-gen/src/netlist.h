/* netlist.h — the signals of one module while it is being built.
 * Every value is either a constant or a named signal of exact width; every
 * expression is one operator over such operands, so the Verilog has no
 * implicit width conversions (Verilator -Wall stays quiet) and reads as the
 * SSA it came from. */
#ifndef RTLGEN_NETLIST_H
#define RTLGEN_NETLIST_H

#include <stdbool.h>

#include "bits.h"
#include "iface.h"

typedef enum {
    SIG_INPUT,  /* module input port */
    SIG_REG,    /* state register (st_*) */
    SIG_RDATA,  /* memory read-data register (st_*_rdata) */
    SIG_WIRE,   /* assign NAME = expr; */
    SIG_CASE,   /* always @(*) case (sel) ... : a dynamic index into a table */
} sig_kind_t;

typedef struct {
    char *name;
    unsigned width;
    sig_kind_t kind;
    char *expr;       /* SIG_WIRE: the assigned expression */
    char *case_sel;   /* SIG_CASE */
    char **case_label, **case_value;
    unsigned n_case;
    const char *base; /* the C-derived part of the name, without the numbering */
    int scope;        /* the statement it was named in (netlist_t.cur_scope, cur_call) */
    const char *call;
    unsigned fsm;     /* 1 + index of the FSM state register whose value this is (the register,
                       * or it zero-extended): its comparisons print state names */
    const char *file; /* source line, for the source map (never in the Verilog) */
    unsigned line;
    /* The values this signal can take, when that is a short known list (it was built from
     * constants through muxes, extensions, slices and + - * & | ^ <<): a dynamic index
     * then needs a case over these values only, not over every offset in range. */
    uint64_t *vals;
    unsigned n_vals;  /* 0: not known */
} sig_t;

typedef struct {
    int sig;          /* signal index, or -1 for a constant */
    unsigned width;
    const bits_t *k;  /* the constant when sig < 0 */
} val_t;

typedef struct {
    sig_t *sigs;
    unsigned n, cap;
    const char **used; /* hash set of names already taken (ports, registers, wires) */
    unsigned n_used, cap_used;
    const iface_t *ifc;   /* for the FSM state names (fsm_states.c) */
    const char *cur_file; /* location stamped on new signals */
    unsigned cur_line;
    /* Wire names are BASE_LINE_K, or BASE_LINEcCALL..._K in an inlined function: LINE is
     * cur_scope, the line of the current statement counted from the first line of the C
     * function it is in (so edits above it or in other functions do not change it), CALL...
     * is cur_call, the call chain: the line of the call in the calling function, then the
     * line of that function's call in its caller, and so on up to the top function (two
     * calls of a helper from two calls of another helper get different names), K counts
     * wires of one BASE within one such scope. No global counter: a change renames only
     * wires of the statements it touches. */
    int cur_scope;        /* -1: no statement (results gathered after the last one) */
    const char *cur_call; /* interned "cL1cL2..." (innermost call first); NULL: not inlined */
    const char *cur_result; /* outside any statement: the port or register whose value is
                             * being gathered; its wires are named RESULT_K */
    struct nl_count { const char *key; unsigned next; } *counts; /* hash: BASE_SCOPE -> K */
    unsigned n_counts, cap_counts;
} netlist_t;

int nl_add(netlist_t *nl, const char *base, unsigned width, sig_kind_t kind);
/* Reserve a name exactly (ports, registers); returns false if already taken. */
bool nl_reserve(netlist_t *nl, const char *name);
bool nl_name_taken(const netlist_t *nl, const char *name);

val_t v_sig(const netlist_t *nl, int sig);
val_t v_const(unsigned width, const bits_t *k);
val_t v_u64(unsigned width, uint64_t x);
bool v_is_const(val_t v);
bool v_is_const_value(val_t v, uint64_t x); /* constant equal to x (width <= 64 or zero) */

/* Text of an operand: signal name or literal. Returned strings are owned by the caller. */
char *v_text(const netlist_t *nl, val_t v);
/* Text for bits [lo, lo+width) of v. */
char *v_slice_text(const netlist_t *nl, val_t v, unsigned lo, unsigned width);

/* New wire = expr (takes ownership of expr). */
val_t nl_wire(netlist_t *nl, const char *base, unsigned width, char *expr);
/* Common shapes, with constant folding where it keeps the Verilog readable. */
val_t nl_slice(netlist_t *nl, val_t v, unsigned lo, unsigned width);
val_t nl_zext(netlist_t *nl, val_t v, unsigned width);
val_t nl_sext(netlist_t *nl, val_t v, unsigned width);
val_t nl_not1(netlist_t *nl, val_t a);
val_t nl_and1(netlist_t *nl, val_t a, val_t b);
val_t nl_or1(netlist_t *nl, val_t a, val_t b);
val_t nl_mux(netlist_t *nl, val_t sel, val_t a, val_t b, const char *base); /* sel ? a : b */
val_t nl_eq_const(netlist_t *nl, val_t a, const bits_t *k, const char *base);
val_t nl_binop(netlist_t *nl, const char *op, val_t a, val_t b, unsigned width, bool sign,
               const char *base);

/* r is src's bits [lo, lo + r.width) zero-extended: r carries src's FSM register when it holds
 * all of it. */
void nl_carry_fsm(netlist_t *nl, val_t r, int src, unsigned lo);

/* Value sets: at most NL_MAX_VALUES distinct values, widths up to 64 bits. */
#define NL_MAX_VALUES 64
/* The values v can take, in ascending order, into out[NL_MAX_VALUES]; 0 when not known. */
unsigned nl_values(const netlist_t *nl, val_t v, uint64_t *out);

#endif
