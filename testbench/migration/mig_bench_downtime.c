/* mig_bench_downtime.c — stop-and-copy downtime and image sizes against the number of QPs
 * (mig_bench.h).
 *
 * Complete migrations of function 0 from A to A' with traffic running (mig_scen: the PF
 * driver, the firmware on both NICs, the scenario's golden model over every completion and
 * byte), started 3000 cycles after set-up with every QP busy (messages up to 64 KiB on each), with 1, 4 and 16 RC QP pairs.
 * mig_scen measures the pieces; this prints them: the device downtime (Suspend-Active through
 * the final save and load to Resume-Active on A', in cycles of the firmware's commands), the
 * full image (the first pre-copy pass) and the stop-and-copy pass in bytes, and what one RC QP
 * costs in the image the firmware produced. */
#include "mig_bench.h"

#include <inttypes.h>
#include <stdio.h>

#include "mig_scen.h"

#define SEC "migration: stop-and-copy vs QPs (traffic running)"
#define SEC_IMG "migration: image"

void mig_bench_downtime(const mig_bench_opts_t *o) {
    static const unsigned full[] = {1, 4, 16}, quick[] = {1, 4};
    const unsigned *qps = o->quick ? quick : full;
    unsigned n = o->quick ? 2 : 3;
    mig_scen_figures_t last = {0};
    unsigned last_qps = 0;
    for (unsigned i = 0; i < n; i++) {
        mig_scen_figures_t f;
        mig_scen_opts_t so;
        mig_scen_opts_default(&so);
        so.iface = o->iface;
        so.seed = o->seed;
        so.qps = qps[i];
        so.ops = o->quick ? 8 : 16;
        so.max_len_all = true;
        so.max_len = o->quick ? 16u << 10 : 64u << 10;
        so.max_cycles = 4000000;
        so.start_after = 3000;
        so.late_qps = 0;      /* every pair busy from the start, pre-copy under all of it */
        so.one_wave = true;
        so.figures = &f;
        char what[96], m[96];
        snprintf(what, sizeof what, "migration: %u QP pair(s) migrated with traffic running, every byte right", qps[i]);
        int failed = mig_scen_run(&so);
        bench_check(what, !failed && f.migrated, "%d check(s) of mig_scen failed (its lines are in the log)", failed);
        if (failed || !f.migrated) continue;
        const char *qs = qps[i] == 1 ? "QP" : "QPs";
        snprintf(m, sizeof m, "device downtime, %u %s", qps[i], qs);
        bench_row(SEC, m, "cycles", "Suspend-Active + Suspend-Passive + final save and load + Resume-Passive/Active on A' (firmware commands)",
                  "%" PRIu64, f.downtime);
        snprintf(m, sizeof m, "suspend-active / suspend-passive, %u %s", qps[i], qs);
        bench_row(SEC, m, "cycles", "the two suspend commands, part of the downtime", "%" PRIu64 " / %" PRIu64, f.suspend_active,
                  f.suspend_passive);
        snprintf(m, sizeof m, "VM held, %u %s", qps[i], qs);
        bench_row(SEC, m, "cycles", "VM paused .. resumed on A': the downtime plus the PF driver's 16-cycle steps between blocks",
                  "%" PRIu64, f.vm_held);
        snprintf(m, sizeof m, "full image, %u %s", qps[i], qs);
        bench_row(SEC, m, "bytes", "blocks of the first pre-copy pass (512 B each, header and end included)", "%" PRIu64, f.full_pass_bytes);
        snprintf(m, sizeof m, "stop-and-copy, %u %s", qps[i], qs);
        bench_row(SEC, m, "bytes", "blocks of the final pass, saved while suspended", "%" PRIu64, f.stopcopy_bytes);
        snprintf(m, sizeof m, "stop-and-copy / full image, %u %s", qps[i], qs);
        bench_row(SEC, m, "", "after the pre-copy passes below", "%.3f", (double)f.stopcopy_bytes / (double)f.full_pass_bytes);
        snprintf(m, sizeof m, "pre-copy passes, %u %s", qps[i], qs);
        bench_row(SEC, m, "passes", "until nothing was dirty or three passes", "%u", f.passes);
        snprintf(m, sizeof m, "traffic during pre-copy, %u %s", qps[i], qs);
        bench_row(SEC, m, "bytes/cycle", "frame bytes on the wire (both directions) / cycles from PreCopy-Start to the VM held",
                  "%.2f", (double)f.precopy_wire_bytes / (double)(f.precopy_cycles ? f.precopy_cycles : 1));
        snprintf(what, sizeof what, "migration: the full image of %u QP pair(s) has one QP record each", qps[i]);
        bench_check(what, f.qp_records == qps[i], "%" PRIu64 " QP records", f.qp_records);
        last = f;
        last_qps = qps[i];
    }
    if (!last_qps || !last.qp_records) return;
    uint64_t per_qp = last.qp_record_bytes / last.qp_records;
    char how[128];
    snprintf(how, sizeof how, "QP-block payload bytes / QP records of the %u-QP full image", last_qps);
    bench_row(SEC_IMG, "image bytes per RC QP", "bytes", how, "%" PRIu64, per_qp);
    bench_check("migration: image bytes per RC QP = the firmware's record size (MIG_QP_RECORD_BYTES)", per_qp == MIG_QP_RECORD_BYTES,
                "%" PRIu64 " B in the image, record %u B", per_qp, (unsigned)MIG_QP_RECORD_BYTES);
    fprintf(stderr, "image bytes per RC QP: %" PRIu64 "\n", per_qp);
}
