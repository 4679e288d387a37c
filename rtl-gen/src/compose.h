/* compose.h — several cycle functions joined by FIFOs, from a .net file:
 *
 *   top NAME
 *   block INSTANCE FUNCTION FILE.c        (FILE relative to the .net file)
 *   fifo SRC_INSTANCE.STREAM DST_INSTANCE.STREAM DEPTH
 *
 * Generates, in OUTDIR: one Verilog file per block, one per FIFO, the top
 * module NAME.v, NAME.iface and NAME_model.c (the C model of the whole). */
#ifndef RTLGEN_COMPOSE_H
#define RTLGEN_COMPOSE_H

int compose_run(const char *net_file, const char *out_dir, const char **clang_args, int n_args);

#endif
