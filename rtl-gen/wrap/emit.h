/* emit.h — the files wrap-gen writes from a parsed .iface. Each returns false (after
 * printing why) when a file cannot be written. */
#ifndef WRAP_EMIT_H
#define WRAP_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "iface_read.h"

/* DIR/TOP_rtl.h (the C API), DIR/TOP_rtl.cpp (its C++ body over rtl_glue.h) and
 * DIR/TOP_public.vlt (Verilator configuration: the signals the body reads are public). */
bool emit_api(const ifc_t *ifc, const char *iface_path, const char *dir);

/* DIR/TOP_native_step.c (one cycle of the C model) and DIR/TOP_equiv_bind.c (the RTL
 * model under the names the generic equiv driver calls): equiv.h declares both. */
bool emit_equiv(const ifc_t *ifc, const char *iface_path, const char *dir);

/* Open DIR/TOP+SUFFIX for writing; emit_close reports a failed write. */
FILE *emit_open(const char *dir, const char *top, const char *suffix);
bool emit_close(FILE *f, const char *dir, const char *top, const char *suffix);

#endif
