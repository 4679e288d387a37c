/* step_threads.h — run one step function for each of n items on several threads, once per
 * call, in lock-step with the caller (docs/nic-testbench.md, "Several threads").
 *
 * nic_tb uses it to evaluate its NICs' models side by side each cycle while everything they
 * share (wire, test queues, PRNG) stays on the calling thread. Item i always runs on the same
 * thread (i % threads; thread 0 is the caller), so a model that keeps per-thread state (a
 * verilated model's context) sees one thread only. Every step of a round happens-before
 * step_threads_run returns, and everything the caller did before the call happens-before the
 * round's steps (C11 atomics: what ThreadSanitizer checks).
 *
 * Plain C testbench code with pthreads; not HLS-C. */
#ifndef TB_STEP_THREADS_H
#define TB_STEP_THREADS_H

typedef struct step_threads step_threads_t;

/* threads 2..64 (the caller and threads - 1 helpers), n items; NULL with a message on stderr
 * when a thread cannot be started. */
step_threads_t *step_threads_new(unsigned threads, unsigned n, void (*step)(void *arg, unsigned item),
                                 void *arg);
/* One round: step(arg, i) for every i in 0..n-1; returns when all are done. */
void step_threads_run(step_threads_t *p);
/* Stops and joins the helpers. NULL is ignored. */
void step_threads_free(step_threads_t *p);

#endif
