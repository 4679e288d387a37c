/* names.h — legal, distinct Verilog names for the leaves of in/out/state.
 * A leaf's name is its C field path joined with '_' (docs/rtl-gen.md). That path may be a
 * reserved word of Verilog-2005 or SystemVerilog (the Verilog tools), or of C++ (Verilator's
 * model is C++, and its -Wall rejects names that match C++ keywords and common library
 * words), and two paths may flatten to one name (a.b and a_b, an input and an output of one
 * name, a register next to a memory's derived names). names_legalise renames, never
 * rejects, so any C field names become a module. */
#ifndef RTLGEN_NAMES_H
#define RTLGEN_NAMES_H

#include <stdbool.h>

#include "iface.h"

/* Is n a word a Verilog/SystemVerilog tool or Verilator's C++ cannot take as a name? */
bool name_is_reserved(const char *n);

/* Rename the leaves and memories of ifc in place, deterministically: names are claimed in
 * the order clk, rst, the module name, the inputs, the outputs, the memories (with the names
 * the Verilog derives from them), the registers, each in declaration order. A reserved
 * NAME becomes NAME_; when that, or a plain NAME, is already claimed, the first free of
 * NAME_2, NAME_3, ... is taken. Every renaming is recorded in ifc->renames for the Verilog
 * header. */
void names_legalise(iface_t *ifc);

/* The suffixes the Verilog appends to a memory's name (verilog_write.c). */
extern const char *const mem_name_suffixes[];

#endif
