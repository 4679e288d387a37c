/* block.h — compile one HLS-C cycle function: frontend, IR, translation. */
#ifndef RTLGEN_BLOCK_H
#define RTLGEN_BLOCK_H

#include <stdio.h>

#include "iface.h"
#include "translate.h"

typedef struct {
    iface_t ifc;
    tr_t tr;
} compiled_t;

/* Exits with status 1 (after printing file:line errors) if the block breaks a rule. */
void block_compile(const char *file, const char *top, const char **clang_args, int n_args,
                   compiled_t *out);
/* Write the block's Verilog module to path (exit 2 on I/O failure). */
void block_write_verilog(const compiled_t *b, const char *path);

#endif
