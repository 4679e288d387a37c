/* edge_queue_test — the native model's edge queue is per instance (hls.h, docs/hls-c.md §2):
 *  - two instances of one block, their edges applied in the other order: each edge applies
 *    its own instance's memory operations and nothing of the other's;
 *  - two threads, each stepping its own instance at the same time: every read returns what a
 *    reference array says, and both end with the cells of the same run on one thread;
 *  - a cycle function called after an edge without binding a queue again stops with the
 *    message that says so (checked in a child process). */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../pass/wide_mem.c"

static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static wide_mem_out cycle(hls_edge_queue *q, wide_mem_state *st, wide_mem_in in) {
    wide_mem_out out = {0};
    hls_edge_queue_bind(q);
    wide_mem(&in, &out, st);
    hls_clock_edge(q);
    return out;
}

static void interleaved_edges(void) {
    static wide_mem_state a, b;
    hls_edge_queue *qa = hls_edge_queue_new(), *qb = hls_edge_queue_new();
    wide_mem_in wa = {.we = true, .waddr = 1, .wdata = 0xaa}, wb = {.we = true, .waddr = 1, .wdata = 0xbb};
    wide_mem_out out = {0};
    hls_edge_queue_bind(qa);
    wide_mem(&wa, &out, &a);
    hls_edge_queue_bind(qb);
    wide_mem(&wb, &out, &b);
    hls_clock_edge(qb);
    bool b_only = b.buf.hls_mem_cell[1] == 0xbb && a.buf.hls_mem_cell[1] == 0;
    hls_clock_edge(qa);
    check("edge_queue/an_edge_applies_only_its_instance", b_only && a.buf.hls_mem_cell[1] == 0xaa);
    hls_edge_queue_free(qa);
    hls_edge_queue_free(qb);
}

typedef struct {
    uint32_t seed;
    unsigned mismatches;
    wide_mem_state st;
} worker_t;

static atomic_int ready; /* workers at the start line: both start stepping together */

/* Seeded random reads and writes; every read checked against a reference array. */
static void *worker(void *arg) {
    worker_t *w = arg;
    hls_edge_queue *q = hls_edge_queue_new();
    atomic_fetch_add(&ready, 1);
    for (int spins = 0; atomic_load(&ready) < 2 && spins < 1000000; spins++) sched_yield();
    hls_u512 ref[64] = {0}, want = 0;
    bool pending = false;
    uint32_t x = w->seed;
    for (int cyc = 0; cyc < 400000; cyc++) {
        x = x * 1103515245u + 12345u;
        wide_mem_in in = {.we = (x >> 30) & 1, .waddr = (hls_uint(6))(x >> 8), .wdata = (hls_u512)x * 0x9e3779b97f4a7c15ull,
                          .re = (x >> 29) & 1, .raddr = (uint8_t)(x >> 16)};
        wide_mem_out out = cycle(q, &w->st, in);
        if (out.rvalid != pending || (pending && out.rdata != want)) w->mismatches++;
        pending = in.re;
        want = ref[in.raddr % 64]; /* read-first: the old word */
        if (in.we) ref[in.waddr] = in.wdata;
    }
    hls_edge_queue_free(q);
    return NULL;
}

static void two_threads(void) {
    static worker_t t[2] = {{.seed = 1}, {.seed = 2}}, alone = {.seed = 1};
    pthread_t tid[2];
    bool started = true;
    for (int i = 0; i < 2; i++) started &= pthread_create(&tid[i], NULL, worker, &t[i]) == 0;
    for (int i = 0; i < 2 && started; i++) pthread_join(tid[i], NULL);
    worker(&alone);
    check("edge_queue/two_threads_two_instances_every_read_right",
          started && !t[0].mismatches && !t[1].mismatches && !alone.mismatches);
    check("edge_queue/threaded_run_equals_the_one_thread_run",
          !memcmp(t[0].st.buf.hls_mem_cell, alone.st.buf.hls_mem_cell, sizeof alone.st.buf.hls_mem_cell));
}

static void unbound_stops(void) {
    int p[2];
    if (pipe(p)) { check("edge_queue/unbound_cycle_stops_with_a_message", false); return; }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 2);
        static wide_mem_state st;
        hls_edge_queue *q = hls_edge_queue_new();
        cycle(q, &st, (wide_mem_in){.we = true});   /* bound: fine; the edge unbinds q */
        wide_mem_in in = {.re = true};
        wide_mem_out out = {0};
        wide_mem(&in, &out, &st);                   /* not bound again: must stop */
        _exit(0);
    }
    close(p[1]);
    char msg[512] = "";
    ssize_t n = read(p[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = 0;
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    check("edge_queue/unbound_cycle_stops_with_a_message",
          WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
              strstr(msg, "hls: memory read with no edge queue bound on this thread") != NULL);
}

int main(void) {
    interleaved_edges();
    two_threads();
    unbound_stops();
    return failures != 0;
}
