/* mig_bench.c — the migration table of `make bench` (mig_bench.h; docs/bench.md "Migration").
 *
 *   mig_bench --iface NIC.iface [--seed N] [--quick] [--only suspend|downtime|throttle]
 *
 * Prints bench rows (SECTION METRIC VALUE UNIT HOW, tab-separated) on stdout; everything the
 * scenarios and the firmware print goes to stderr (the log), so stdout is only rows. Exit 0
 * iff every consistency check passed (every run's traffic completed with the right data, every
 * command answered). */
#include "mig_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(const char *why) {
    fprintf(stderr, "mig_bench: %s\nusage: mig_bench --iface NIC.iface [--seed N] [--quick] [--only suspend|downtime|throttle]\n", why);
    return 2;
}

bool mig_bench_pair_new(mig_bench_pair_t *p, const mig_bench_opts_t *o, unsigned pmtu, const char *what,
                        bool (*tick)(scen_t *, void *), void *arg) {
    memset(p, 0, sizeof *p);
    scen_opts_t so = {.mode = NIC_TB_C, .iface = o->iface, .seed = o->seed, .arena = 8u << 20, .quiet_checks = true,
                      .max_cycles = 20000000, .tick = tick, .tick_arg = arg};
    p->s = scen_new(&so);
    if (!p->s) { bench_check(what, false, "scenario set-up failed"); return false; }
    p->tb = scen_tb(p->s);
    scen_qp_opts_t qo;
    scen_qp_opts_default(&qo);
    qo.pmtu = pmtu;
    /* the migration scenarios' DA3 timers (docs/migration.md section 7): packets a PASSIVE
     * function dropped are recovered by them, and they never fire on a lossless wire */
    qo.backoff = true;
    qo.backoff_first = 7;
    qo.backoff_cap = 14;
    p->ep = scen_pair(p->s, 0, 0x100, 0x200, &qo);
    struct mig_resp r = {0};
    struct mig_hal h = mig_hal_tb(&p->hal, p->tb, MIG_BENCH_A);
    if (p->ep < 0 || mig_fw_init(&p->fw, &h, &r) != MIG_OK) {
        bench_check(what, false, "QP pair or firmware set-up failed (firmware status %u)", r.status);
        mig_bench_pair_free(p);
        return false;
    }
    return true;
}

void mig_bench_pair_free(mig_bench_pair_t *p) {
    if (p->s) scen_free(p->s);
    p->s = NULL;
}

int64_t mig_bench_fw(mig_bench_pair_t *p, uint8_t opcode, uint32_t rate, uint8_t *st) {
    struct mig_cmd c = {.opcode = opcode, .fn = 0, .rate = rate};
    struct mig_resp r;
    uint64_t t0 = nic_tb_now(p->tb);
    mig_fw_command(&p->fw, &c, &r);
    *st = r.status;
    return r.status == MIG_OK ? (int64_t)(nic_tb_now(p->tb) - t0) : -1;
}

int main(int argc, char **argv) {
    mig_bench_opts_t o = {.seed = 1};
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (!strcmp(argv[i], "--iface") && more) o.iface = argv[++i];
        else if (!strcmp(argv[i], "--seed") && more) o.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick")) o.quick = true;
        else if (!strcmp(argv[i], "--only") && more) only = argv[++i];
        else return usage("unknown option");
    }
    if (!o.iface) return usage("--iface missing");
    if (only && strcmp(only, "suspend") && strcmp(only, "downtime") && strcmp(only, "throttle")) return usage("unknown --only");
    /* rows on the real stdout; the scenarios' and firmware's lines (printf) to stderr */
    FILE *rows = fdopen(dup(1), "w");
    if (!rows || dup2(2, 1) < 0) { perror("mig_bench: stdout"); return 1; }
    bench_rows_to(rows);
    scen_quiet_pass = true;
    if (!only || !strcmp(only, "downtime")) mig_bench_downtime(&o);
    if (!only || !strcmp(only, "suspend")) mig_bench_suspend(&o);
    if (!only || !strcmp(only, "throttle")) mig_bench_throttle(&o);
    fclose(rows);
    return bench_check_failures() ? 1 : 0;
}
