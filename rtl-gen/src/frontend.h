/* frontend.h — the C side of rtl-gen, on libclang: parse the HLS-C file,
 * check the source-level rules and lay out the ports and state. */
#ifndef RTLGEN_FRONTEND_H
#define RTLGEN_FRONTEND_H

#include <clang-c/Index.h>

#include "iface.h"

typedef struct {
    const char *file;
    const char *top;
    const char **clang_args; /* -I / -D options, already including -D__HLS_SYNTH__ */
    int n_clang_args;
} frontend_opts_t;

/* Parse, check rules, fill the interface. Reports errors through diag;
 * returns false if the file could not be analysed at all. */
bool frontend_run(const frontend_opts_t *opts, iface_t *ifc);

/* Helpers shared by layout.c and source_rules.c */
void cursor_location(CXCursor c, const char **file, unsigned *line, unsigned *col);
void cursor_error(CXCursor c, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *xstrdup_cx(CXString s); /* copies and disposes */

/* layout.c: lay out the three structs of the top function */
void layout_build(CXCursor top_fn, CXType in_t, CXType out_t, CXType state_t, iface_t *ifc);
/* fsm_states.c: enum constants the C compares state registers with (after layout_build) */
void fsm_states_find(CXTranslationUnit tu, CXType state_t, iface_t *ifc);
/* source_rules.c: walk every function reachable from the top */
void source_rules_check(CXTranslationUnit tu, CXCursor top_fn);

#endif
