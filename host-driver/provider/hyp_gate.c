/* hyp_gate.c — pausing the guest (hyp.h). In a VM the hypervisor stops the vCPUs: the guest's
 * driver then neither touches the device's BAR nor looks at memory the device wrote. Here the
 * guest's threads run the provider, so every provider path that reaches the device or polls
 * what it wrote passes this gate; the hypervisor closes it for the stop phase of a migration.
 * A thread inside the gate may nest (a command's MMIO inside a verb): the depth is per thread. */
#include "hyp.h"

static __thread unsigned depth; /* this thread's nesting; one gate per process */

void hyp_gate_init(hyp_gate_t *g) {
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->inside = 0;
    g->paused = false;
}

void hyp_gate_enter(hyp_gate_t *g) {
    if (depth++) return;
    pthread_mutex_lock(&g->mu);
    while (g->paused) pthread_cond_wait(&g->cv, &g->mu);
    g->inside++;
    pthread_mutex_unlock(&g->mu);
}

void hyp_gate_exit(hyp_gate_t *g) {
    if (--depth) return;
    pthread_mutex_lock(&g->mu);
    if (--g->inside == 0) pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

void hyp_gate_pause(hyp_gate_t *g) {
    pthread_mutex_lock(&g->mu);
    g->paused = true;
    while (g->inside) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void hyp_gate_resume(hyp_gate_t *g) {
    pthread_mutex_lock(&g->mu);
    g->paused = false;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}
