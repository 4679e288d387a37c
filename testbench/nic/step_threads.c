/* step_threads.c — several threads stepping items in lock-step; step_threads.h says what.
 *
 * A round is started by bumping `round` and finished when `pending` (helpers still at work)
 * reaches 0. Waiting is a short spin, then a futex sleep. The spin is short on purpose: on a
 * machine with more runnable threads than cores (ours: 2 cores, several jobs) the thread
 * waited for is often not running, and a long spin only takes its core away; measured with
 * nic_threads_test (4 NICs, 2 threads, load 5..8): 50..200 polls ran 1.2-1.5x faster than one
 * thread, 20000 polls 8x slower (docs/nic-testbench.md, "Several threads"). */
#define _GNU_SOURCE
#include "step_threads.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 64
#define SPIN_LOOPS 100 /* polls of a word before sleeping on it: about a microsecond */

struct step_threads {
    unsigned threads, n;
    void (*step)(void *arg, unsigned item);
    void *arg;
    pthread_t helper[MAX_THREADS];
    unsigned started;
    _Atomic uint32_t round;    /* futex word: a new round (or stop) was announced */
    _Atomic uint32_t pending;  /* futex word: helpers that have not finished this round */
    atomic_uint sleepers;      /* helpers asleep on `round` */
    atomic_bool caller_asleep; /* the caller sleeps on `pending` */
    atomic_bool stop;
};

typedef struct {
    step_threads_t *p;
    unsigned index; /* 1..threads-1 */
} helper_arg_t;

static void futex_wait(_Atomic uint32_t *word, uint32_t seen) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}
static void futex_wake_all(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void run_items(step_threads_t *p, unsigned first) {
    for (unsigned i = first; i < p->n; i += p->threads) p->step(p->arg, i);
}

static void *helper_main(void *v) {
    helper_arg_t a = *(helper_arg_t *)v;
    free(v);
    step_threads_t *p = a.p;
    uint32_t seen = 0;
    for (;;) {
        uint32_t r;
        unsigned spins = 0;
        while ((r = atomic_load(&p->round)) == seen) {
            if (++spins < SPIN_LOOPS) { cpu_relax(); continue; }
            atomic_fetch_add(&p->sleepers, 1);
            futex_wait(&p->round, seen); /* returns at once if round moved meanwhile */
            atomic_fetch_sub(&p->sleepers, 1);
        }
        seen = r;
        if (atomic_load(&p->stop)) return NULL;
        run_items(p, a.index);
        if (atomic_fetch_sub(&p->pending, 1) == 1 && atomic_load(&p->caller_asleep)) futex_wake_all(&p->pending);
    }
}

step_threads_t *step_threads_new(unsigned threads, unsigned n, void (*step)(void *arg, unsigned item),
                                 void *arg) {
    if (threads < 2 || threads > MAX_THREADS) {
        fprintf(stderr, "step_threads: %u threads (2..%d)\n", threads, MAX_THREADS);
        return NULL;
    }
    step_threads_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = threads;
    p->n = n;
    p->step = step;
    p->arg = arg;
    for (unsigned t = 1; t < threads; t++) {
        helper_arg_t *a = malloc(sizeof *a);
        *a = (helper_arg_t){p, t};
        int r = a ? pthread_create(&p->helper[t], NULL, helper_main, a) : ENOMEM;
        if (r) {
            free(a);
            fprintf(stderr, "step_threads: helper thread %u: %s\n", t, strerror(r));
            step_threads_free(p);
            return NULL;
        }
        p->started = t;
    }
    return p;
}

void step_threads_run(step_threads_t *p) {
    atomic_store(&p->pending, p->threads - 1);
    atomic_fetch_add(&p->round, 1);
    if (atomic_load(&p->sleepers)) futex_wake_all(&p->round);
    run_items(p, 0);
    uint32_t left;
    unsigned spins = 0;
    while ((left = atomic_load(&p->pending)) != 0) {
        if (++spins < SPIN_LOOPS) { cpu_relax(); continue; }
        atomic_store(&p->caller_asleep, true);
        futex_wait(&p->pending, left); /* returns at once if a helper finished meanwhile */
        atomic_store(&p->caller_asleep, false);
    }
}

void step_threads_free(step_threads_t *p) {
    if (!p) return;
    atomic_store(&p->stop, true);
    atomic_fetch_add(&p->round, 1);
    futex_wake_all(&p->round);
    for (unsigned t = 1; t <= p->started; t++) pthread_join(p->helper[t], NULL);
    free(p);
}
