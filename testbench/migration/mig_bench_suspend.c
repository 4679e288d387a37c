/* mig_bench_suspend.c — suspend latency against the message in flight (mig_bench.h).
 *
 * One RC QP pair, path MTU 1024; A posts one RDMA WRITE of S bytes. When half of its packets
 * (at least one) have left A's wire port, either the firmware suspends the function
 * (Suspend-Active, then Suspend-Passive: the cycles each command took until ctrl answered,
 * every marker in) and resumes it in place (Resume-Passive, Resume-Active), or the host moves
 * the QP to SQD (the SQ-drain path, the baseline): the cycles from the MODIFY_QP command to
 * NIC_EV_SQ_DRAINED on A's async queue. Either way the scenario then checks the WRITE
 * completed once with the right bytes on B. */
#include "mig_bench.h"

#include <inttypes.h>
#include <stdio.h>

#define SEC "migration: suspend with one message in flight (MTU 1024)"
#define PMTU 3                  /* 1024 bytes */
#define DRAIN_BOUND 20000000u   /* cycles an SQ drain may take before the run is a failure */

typedef struct {
    mig_bench_pair_t p;
    bool sqd, done;
    unsigned half;              /* packets on the wire when the function is stopped */
    uint64_t frames0;
    int64_t active, passive, drain;
    char err[160];
} run_t;

/* RTS -> SQD, then wait for the drained event; RTS again so the scenario completes */
static void drain(run_t *r) {
    nic_tb_t *tb = r->p.tb;
    uint32_t qpn = scen_ep(r->p.s, r->p.ep)->qpn;
    nic_cmd_t c = {.op = NIC_CMD_MODIFY_QP, .fn = 0, .num = qpn, .mask = NIC_QPA_STATE};
    c.qp.state = NIC_QPS_SQD;
    uint64_t t0 = nic_tb_now(tb);
    int st = nic_tb_cmd(tb, MIG_BENCH_A, &c, NULL);
    if (st != NIC_CMD_OK) { snprintf(r->err, sizeof r->err, "MODIFY_QP RTS->SQD answered %d", st); return; }
    bool drained = false;
    while (!drained && nic_tb_now(tb) - t0 < DRAIN_BOUND) {
        nic_event_t ev;
        /* the scenario does not poll while this tick runs: A's async events are ours */
        while (nic_tb_pop(tb, MIG_BENCH_A, "ctrl_async", &ev, sizeof ev) == 1)
            if (ev.kind == NIC_EV_SQ_DRAINED && ev.qp % NIC_QP_PER_FN == qpn % NIC_QP_PER_FN) drained = true;
            else snprintf(r->err, sizeof r->err, "unexpected async event kind %u", ev.kind);
        if (!drained) nic_tb_step(tb);
    }
    if (!drained) { snprintf(r->err, sizeof r->err, "no SQ_DRAINED within %u cycles", DRAIN_BOUND); return; }
    r->drain = (int64_t)(nic_tb_now(tb) - t0);
    c.qp.state = NIC_QPS_RTS;
    st = nic_tb_cmd(tb, MIG_BENCH_A, &c, NULL);
    if (st != NIC_CMD_OK) snprintf(r->err, sizeof r->err, "MODIFY_QP SQD->RTS answered %d", st);
}

static void suspend(run_t *r) {
    static const uint8_t resume[] = {MIG_CMD_RESUME_PASSIVE, MIG_CMD_RESUME_ACTIVE};
    uint8_t st;
    if ((r->active = mig_bench_fw(&r->p, MIG_CMD_SUSPEND_ACTIVE, 0, &st)) < 0 ||
        (r->passive = mig_bench_fw(&r->p, MIG_CMD_SUSPEND_PASSIVE, 0, &st)) < 0) {
        snprintf(r->err, sizeof r->err, "suspend answered firmware status %u", st);
        return;
    }
    for (unsigned k = 0; k < 2; k++)
        if (mig_bench_fw(&r->p, resume[k], 0, &st) < 0) snprintf(r->err, sizeof r->err, "resume answered firmware status %u", st);
}

/* before each scenario step: once the WRITE is posted, step to the half-way packet, stop */
static bool tick(scen_t *s, void *arg) {
    run_t *r = arg;
    if (r->done) return false;
    if (scen_ep(s, r->p.ep)->posted == 0) return true;
    r->done = true;
    while (nic_tb_frames_sent(r->p.tb, MIG_BENCH_A) - r->frames0 < r->half) {
        if (nic_tb_now(r->p.tb) > DRAIN_BOUND) { snprintf(r->err, sizeof r->err, "half of the message never left A"); return false; }
        nic_tb_step(r->p.tb);
    }
    if (r->sqd) drain(r);
    else suspend(r);
    return false;
}

/* one run; false (and a failed check row) when it was not consistent */
static bool one(const mig_bench_opts_t *o, uint32_t size, bool sqd, run_t *r) {
    char what[96];
    snprintf(what, sizeof what, "migration: %s with %u B in flight: the WRITE completed with the right bytes",
             sqd ? "SQ drain" : "suspend", size);
    *r = (run_t){.sqd = sqd, .active = -1, .passive = -1, .drain = -1};
    if (!mig_bench_pair_new(&r->p, o, PMTU, what, tick, r)) return false;
    unsigned packets = (size + 1023) / 1024;
    r->half = packets / 2 ? packets / 2 : 1;
    r->frames0 = nic_tb_frames_sent(r->p.tb, MIG_BENCH_A);
    scen_add_op(r->p.s, r->p.ep, NIC_WR_WRITE, size, true, 0);
    int failed = scen_run(r->p.s, what);
    mig_bench_pair_free(&r->p);
    bool ok = !failed && !r->err[0] && r->done;
    bench_check(what, ok, "%d scenario check(s) failed%s%s", failed, r->err[0] ? "; " : "", r->err);
    return ok;
}

static const char *size_name(uint32_t size, char *b, size_t n) {
    if (size >= 1u << 20) snprintf(b, n, "%u MiB", size >> 20);
    else snprintf(b, n, "%u KiB", size >> 10);
    return b;
}

void mig_bench_suspend(const mig_bench_opts_t *o) {
    static const uint32_t full[] = {1u << 10, 16u << 10, 256u << 10, 1u << 20}, quick[] = {1u << 10, 64u << 10};
    const uint32_t *sizes = o->quick ? quick : full;
    unsigned n = o->quick ? 2 : 4;
    for (unsigned i = 0; i < n; i++) {
        char sz[16], m[96];
        size_name(sizes[i], sz, sizeof sz);
        run_t a, d;
        if (one(o, sizes[i], false, &a)) {
            snprintf(m, sizeof m, "suspend-active, %s in flight", sz);
            bench_row(SEC, m, "cycles", "SUSPEND_ACTIVE command until ctrl answered (every block's marker in) and the flush read", "%" PRId64, a.active);
            snprintf(m, sizeof m, "suspend-passive, %s in flight", sz);
            bench_row(SEC, m, "cycles", "SUSPEND_PASSIVE command after it (nothing moves any more: answered at once)", "%" PRId64, a.passive);
        }
        if (one(o, sizes[i], true, &d)) {
            snprintf(m, sizeof m, "SQ drain (baseline), %s in flight", sz);
            bench_row(SEC, m, "cycles", "MODIFY_QP RTS->SQD at the same point until NIC_EV_SQ_DRAINED", "%" PRId64, d.drain);
        }
    }
}
