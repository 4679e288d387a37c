/* equiv.h — what the generic equiv driver (equiv_main.c) needs from one design: a step of
 * the native C model and the verilated model's C API. wrap-gen --equiv writes both
 * (TOP_native_step.c, TOP_equiv_bind.c). */
#ifndef WRAP_EQUIV_H
#define WRAP_EQUIV_H

/* The native model's edge queue (hls.h): hls_edge_queue_new() / _free(). */
void *equiv_native_new(void);
void equiv_native_free(void *edges);
/* memset(out, 0, size); bind edges; TOP(in, out, state); hls_clock_edge(edges); */
void equiv_native_step(void *edges, const void *in, void *out, void *state);

void *equiv_rtl_new(void);
void equiv_rtl_eval(void *m, const void *in, void *out);
void equiv_rtl_edge(void *m);
void equiv_rtl_read_regs(void *m, void *state);
void equiv_rtl_read_state(void *m, void *state);
void equiv_rtl_scramble(void *m, unsigned long long seed);
void equiv_rtl_trace(void *m, const char *path);
void equiv_rtl_free(void *m);

#endif
