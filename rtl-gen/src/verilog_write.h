/* verilog_write.h — print the translated block as one Verilog module. */
#ifndef RTLGEN_VERILOG_WRITE_H
#define RTLGEN_VERILOG_WRITE_H

#include <stdio.h>

#include "translate.h"

void verilog_write(FILE *f, const tr_t *t);

#endif
