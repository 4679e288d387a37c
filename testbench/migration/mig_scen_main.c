/* mig_scen_main.c — the command line of the migration scenario driver (mig_scen.h).
 *
 *   mig_scen --iface NIC.iface [--mode c|lockstep|c2rtl|rtl2c] [--seeds FIRST-LAST] [--pcap-dir DIR]
 *            [--fault migrate|abort|corrupt|truncated|tag|not-empty|collide|hw-refuses] [--phase N]
 *            [--qps N] [--late N] [--ops N] [--max-len BYTES] [--max-cycles N] [--lossy]
 *            [--lossy-bound-info] [--unserved MASK] [--verbose]
 *
 * Every seed of the range is one run; odd seeds run on a lossy wire when --lossy is given.
 * --lossy-bound-info: on those, the resend bound (with --pcap-dir) is an info line, not a check.
 * --mode c2rtl: A and the peer B run the C model, A' the verilated RTL; rtl2c: A the RTL, B and
 * A' the C model (both need a build with --rtl); lockstep: every NIC both, compared.
 * Prints PASS/FAIL lines and "mig_scen: N runs, N failed"; exit 0 when every run passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mig_scen.h"

static int usage(const char *why) {
    fprintf(stderr, "mig_scen: %s\nusage: mig_scen --iface NIC.iface [--mode c|lockstep|c2rtl|rtl2c] [--seeds A-B] [--pcap-dir DIR] "
                    "[--fault NAME] [--phase N] [--qps N] [--late N] [--ops N] [--max-len B] [--max-cycles N] [--lossy] [--lossy-bound-info] [--unserved MASK] [--verbose]\n", why);
    return 2;
}

int main(int argc, char **argv) {
    static const char *faults[] = {"migrate", "abort", "corrupt", "truncated", "tag", "not-empty", "collide", "hw-refuses"};
    mig_scen_opts_t o;
    mig_scen_opts_default(&o);
    uint64_t first = 1, last = 1;
    bool lossy = false, late_given = false;
    for (int i = 1; i < argc; i++) {
        const char *v = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(v, "--iface") && more) o.iface = argv[++i];
        else if (!strcmp(v, "--mode") && more) {
            v = argv[++i];
            if (!strcmp(v, "c")) o.mode = NIC_TB_C;
            else if (!strcmp(v, "lockstep")) o.mode = NIC_TB_LOCKSTEP;
            else if (!strcmp(v, "c2rtl") || !strcmp(v, "rtl2c")) {
                /* the function moves between implementations: A on one, A' on the other; the
                 * peer B on the C model */
                bool to_rtl = !strcmp(v, "c2rtl");
                o.mode = NIC_TB_PER_NIC;
                o.nic_mode[0] = to_rtl ? NIC_TB_C : NIC_TB_RTL;
                o.nic_mode[1] = NIC_TB_C;
                o.nic_mode[2] = to_rtl ? NIC_TB_RTL : NIC_TB_C;
            } else return usage("--mode must be c, lockstep, c2rtl or rtl2c");
        } else if (!strcmp(v, "--seeds") && more) {
            char *end;
            first = last = strtoull(argv[++i], &end, 0);
            if (*end == '-') last = strtoull(end + 1, NULL, 0);
        } else if (!strcmp(v, "--pcap-dir") && more) o.pcap_dir = argv[++i];
        else if (!strcmp(v, "--fault") && more) {
            v = argv[++i];
            unsigned k = 0;
            while (k < sizeof faults / sizeof *faults && strcmp(v, faults[k])) k++;
            if (k == sizeof faults / sizeof *faults) return usage("unknown --fault");
            o.fault = (enum mig_fault)k;
        } else if (!strcmp(v, "--phase") && more) o.abort_phase = (enum mig_phase)(atoi(argv[++i]) % MIG_PHASES);
        else if (!strcmp(v, "--qps") && more) o.qps = (unsigned)atoi(argv[++i]);
        else if (!strcmp(v, "--late") && more) o.late_qps = (unsigned)strtoul(argv[++i], NULL, 0), late_given = true;
        else if (!strcmp(v, "--ops") && more) o.ops = (unsigned)atoi(argv[++i]);
        else if (!strcmp(v, "--max-len") && more) o.max_len = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(v, "--max-cycles") && more) o.max_cycles = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(v, "--lossy")) lossy = true;
        else if (!strcmp(v, "--lossy-bound-info")) o.lossy_bound_info = true;
        else if (!strcmp(v, "--unserved") && more) o.unserved = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(v, "--verbose")) o.verbose = true;
        else return usage("unknown option");
    }
    if (!o.iface) return usage("--iface missing");
    if (o.qps < 1 || o.qps > MIG_SCEN_MAX_QPS) return usage("--qps must be 1..16");
    /* one pair at least must carry traffic from the start (without --late: 1, or 0 with one QP) */
    if (late_given && o.late_qps >= o.qps) return usage("--late must be below --qps");
    if (o.max_cycles == 0) return usage("--max-cycles must be above 0");
    unsigned runs = 0, failed = 0;
    for (uint64_t seed = first; seed <= last; seed++) {
        o.seed = seed;
        o.lossy = lossy && (seed & 1);
        runs++;
        failed += mig_scen_run(&o) != 0;
    }
    printf("mig_scen: %u runs, %u failed\n", runs, failed);
    return failed != 0;
}
