/* line_wrap.h — Verilog statements printed on lines of bounded length.
 * One generated statement can be arbitrarily long (a 1024-bit concatenation, the sink of
 * every unread bit of a large block), and Verilator refuses a line of more than 40000
 * preprocessor tokens. Generated Verilog has no string literals, so every space is a
 * token boundary where the statement may continue on the next line. */
#ifndef RTLGEN_LINE_WRAP_H
#define RTLGEN_LINE_WRAP_H

#include <stdbool.h>
#include <stdio.h>

/* Wrap target: a line breaks at the last space before this column. */
#define LINE_WRAP_COLUMN 100
/* The longest line rtl-gen writes: the wrap column, or one unbreakable token (a 1024-bit
 * constant is 262 characters) on a continuation line, plus a trailing comment. The lint
 * check of the corpus holds every generated file to it. */
#define LINE_MAX_CHARS 400

/* Print text starting at column col (what is already on the line), continuing on new lines
 * indented by indent spaces. Returns the column after the last character printed. */
unsigned line_wrap(FILE *f, unsigned col, unsigned indent, const char *text);

#endif
