/* verilog_write.h — print the translated block as one Verilog module. */
#ifndef RTLGEN_VERILOG_WRITE_H
#define RTLGEN_VERILOG_WRITE_H

#include <stdio.h>

#include "srcmap.h"
#include "translate.h"

/* The module to f; the Verilog lines of each C line's wires into map. The Verilog itself
 * names no source line, so a C edit that moves lines does not change it. */
void verilog_write(FILE *f, const tr_t *t, srcmap_t *map);

#endif
