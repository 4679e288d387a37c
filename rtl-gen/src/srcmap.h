/* srcmap.h — the source map written next to each generated module: for every C line, the
 * Verilog lines of the wires it became. The Verilog carries no line numbers (a comment added
 * at the top of the C would otherwise change every line of it); reviewers and waveform users
 * look lines up here instead. Format in docs/rtl-gen.md ("The source map"). */
#ifndef RTLGEN_SRCMAP_H
#define RTLGEN_SRCMAP_H

#include <stdbool.h>

typedef struct {
    const char *file; /* interned: one pointer per file */
    unsigned line, vfirst, vlast;
} srcmap_entry_t;

typedef struct {
    srcmap_entry_t *e;
    unsigned n, cap;
} srcmap_t;

/* C line file:line became Verilog lines vfirst..vlast */
void srcmap_add(srcmap_t *m, const char *file, unsigned line, unsigned vfirst, unsigned vlast);
/* Write the map of module file verilog_name to path; false on an I/O error. */
bool srcmap_write(const srcmap_t *m, const char *verilog_name, const char *path);
/* The map's path for a Verilog path: NAME.v -> NAME.srcmap (else path + ".srcmap"). */
char *srcmap_path(const char *verilog_path);

#endif
