/* mig_bench_throttle.c — the peer's goodput while the function is throttled (mig_bench.h).
 *
 * One RC QP pair, path MTU 4096. The firmware sets DevThrottle on A's function (bytes of host
 * memory writes per 1024 cycles, 0 = off: the responder's token bucket, docs/migration.md
 * section 4), then the peer B posts WRITEs to A at once. Goodput = payload / interval, the
 * interval from the scenario step that posted them to B's last send CQE. A throttle slows the
 * peer by back-pressure at A's packet boundary, not by loss: B's ACK timeouts are counted. */
#include "mig_bench.h"

#include <inttypes.h>
#include <stdio.h>

#define SEC "migration: peer goodput under DevThrottle (B WRITEs to A, MTU 4096)"
#define PMTU 5

typedef struct {
    mig_bench_pair_t p;
    uint64_t first;             /* the cycle of the first scenario step (B's doorbells) */
} run_t;

static bool tick(scen_t *s, void *arg) {
    run_t *r = arg;
    if (!r->first) r->first = nic_tb_now(scen_tb(s));
    return false;
}

void mig_bench_throttle(const mig_bench_opts_t *o) {
    static const uint32_t rates[] = {0, 16384, 4096};   /* off, 16 and 4 bytes/cycle */
    unsigned count = o->quick ? 4 : 16;
    uint32_t size = o->quick ? 16u << 10 : 64u << 10;
    for (unsigned k = 0; k < 3; k++) {
        char what[128], m[96];
        snprintf(what, sizeof what, "migration: %u WRITEs of %u B to a function throttled to %u B/1024 cycles completed right",
                 count, size, rates[k]);
        run_t r = {0};
        if (!mig_bench_pair_new(&r.p, o, PMTU, what, tick, &r)) continue;
        uint8_t st;
        int64_t cyc = mig_bench_fw(&r.p, MIG_CMD_DEV_THROTTLE, rates[k], &st);
        for (unsigned i = 0; i < count; i++) scen_add_op(r.p.s, r.p.ep + 1, NIC_WR_WRITE, size, true, 0);
        int failed = cyc < 0 ? 0 : scen_run(r.p.s, what);
        uint64_t last = 0;
        for (unsigned i = 0; i < count; i++) {
            uint64_t c = scen_cqe_cycle(r.p.s, r.p.ep + 1, i);
            last = c > last ? c : last;
        }
        uint64_t timeouts = nic_tb_out(r.p.tb, MIG_BENCH_B, "comp_timeouts");
        mig_bench_pair_free(&r.p);
        bool ok = cyc >= 0 && !failed && last > r.first;
        bench_check(what, ok, "DEV_THROTTLE status %u, %d scenario check(s) failed", st, failed);
        if (!ok) continue;
        uint64_t interval = last - r.first + 1;
        if (rates[k]) snprintf(m, sizeof m, "goodput, throttle %u B / 1024 cycles", rates[k]);
        else snprintf(m, sizeof m, "goodput, throttle off");
        bench_row(SEC, m, "bytes/cycle", "payload / (B's doorbells .. B's last send CQE)", "%.2f", (double)count * size / (double)interval);
        if (rates[k]) snprintf(m, sizeof m, "B's ACK timeouts, throttle %u", rates[k]);
        else snprintf(m, sizeof m, "B's ACK timeouts, throttle off");
        bench_row(SEC, m, "timeouts", "B's comp_timeouts: back-pressure, not loss, should make it 0", "%" PRIu64, timeouts);
    }
}
