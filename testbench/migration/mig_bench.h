/* mig_bench.h — the migration table of `make bench` (docs/bench.md "Migration", issue 11):
 * what the experiments of mig_bench share. Each experiment builds its NICs from reset with a
 * fixed seed, runs on the C model, and prints bench rows (testbench/bench/bench_rows.h); every
 * figure is a cycle or byte count of the simulation. Plain C testbench code. */
#ifndef MIG_BENCH_H
#define MIG_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "mig_fw.h"
#include "mig_hal_tb.h"
#include "../scenario/scen.h"
#include "../bench/bench_rows.h"

typedef struct {
    const char *iface;
    uint64_t seed;
    bool quick;                   /* small sizes: the smoke suite */
} mig_bench_opts_t;

/* One RC QP pair of function 0 on two NICs (A = NIC 0, QP 0x100; B = NIC 1, QP 0x200) in a
 * scenario whose golden model checks every completion and byte, and the migration firmware
 * over A. */
typedef struct {
    scen_t *s;
    nic_tb_t *tb;
    int ep;                       /* A's endpoint; B's is ep + 1 */
    struct mig_hal_tb hal;
    struct mig_fw fw;
} mig_bench_pair_t;

enum { MIG_BENCH_A = 0, MIG_BENCH_B = 1 };

/* Set up p (path MTU code pmtu, 1..5) with tick(arg) called before every scenario step;
 * false, and a failed check row named `what`, when the set-up fails. */
bool mig_bench_pair_new(mig_bench_pair_t *p, const mig_bench_opts_t *o, unsigned pmtu, const char *what,
                        bool (*tick)(scen_t *, void *), void *arg);
void mig_bench_pair_free(mig_bench_pair_t *p);
/* One firmware command for function 0 on A: the cycles it took, or -1 unless it answered
 * MIG_OK (the status is kept in *st). */
int64_t mig_bench_fw(mig_bench_pair_t *p, uint8_t opcode, uint32_t rate, uint8_t *st);

/* the experiments */
void mig_bench_suspend(const mig_bench_opts_t *o);    /* mig_bench_suspend.c */
void mig_bench_downtime(const mig_bench_opts_t *o);   /* mig_bench_downtime.c */
void mig_bench_throttle(const mig_bench_opts_t *o);   /* mig_bench_throttle.c */

#endif
