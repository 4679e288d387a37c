/* scen_main.c — the command line of the scenario driver: picks a scenario (scen_suites.c) or
 * a range of fault seeds, the model (C, RTL, lock-step) and where the wire pcap goes.
 *
 *   scen [--mode c|rtl|lockstep] --iface NIC.iface [--pcap FILE] [--seed N] [--verbose] NAME
 *   scen [--mode ...] --iface NIC.iface [--pcap-dir DIR] --seeds FIRST-LAST faults
 *   scen --list
 *
 * With --pcap, FILE.expect gets one "OPCODE PSN" line per frame of the pcap (for
 * testbench/judges/tshark-check). Exit 0 when every check passed, 1 otherwise, 2 on usage. */
#include "scen_suites.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pcap.h"

static int usage(const char *why) {
    fprintf(stderr, "scen: %s\nusage: scen [--mode c|rtl|lockstep] --iface NIC.iface [--pcap FILE] [--seed N] [--verbose] NAME\n"
                    "       scen [--mode ...] --iface NIC.iface [--pcap-dir DIR] --seeds FIRST-LAST faults\n"
                    "       scen --list\n", why);
    return 2;
}

/* FILE.expect: "OPCODE PSN" of every frame in the pcap (tshark-check's expectation: decoding
 * is judged; the sequence itself is the scenario's business). -1 if the pcap is unreadable. */
int scen_write_expect(const char *pcap) {
    pcap_reader_t *r = pcap_open_read(pcap);
    if (!r) return -1;
    char path[1024];
    snprintf(path, sizeof path, "%s.expect", pcap);
    FILE *f = fopen(path, "w");
    if (!f) { pcap_close_read(r); return -1; }
    static uint8_t buf[9216];
    size_t len;
    uint64_t t;
    int n = 0;
    while (pcap_next(r, buf, sizeof buf, &len, &t) == 1) {
        if (len >= 54) fprintf(f, "%u %u\n", buf[42], ((unsigned)buf[51] << 16) | ((unsigned)buf[52] << 8) | buf[53]);
        n++;
    }
    fclose(f);
    pcap_close_read(r);
    return n;
}

int main(int argc, char **argv) {
    scen_args_t a = {.mode = NIC_TB_C, .seed = 1};
    const char *name = NULL, *seeds = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(v, "--list")) { scen_list(); return 0; }
        else if (!strcmp(v, "--verbose")) a.verbose = true;
        else if (!strcmp(v, "--mode") && more) {
            v = argv[++i];
            if (!strcmp(v, "c")) a.mode = NIC_TB_C;
            else if (!strcmp(v, "rtl")) a.mode = NIC_TB_RTL;
            else if (!strcmp(v, "lockstep")) a.mode = NIC_TB_LOCKSTEP;
            else return usage("--mode must be c, rtl or lockstep");
        } else if (!strcmp(v, "--iface") && more) a.iface = argv[++i];
        else if (!strcmp(v, "--pcap") && more) a.pcap = argv[++i];
        else if (!strcmp(v, "--pcap-dir") && more) a.pcap_dir = argv[++i];
        else if (!strcmp(v, "--seed") && more) a.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(v, "--seeds") && more) seeds = argv[++i];
        else if (v[0] == '-') return usage("unknown option");
        else if (!name) name = v;
        else return usage("more than one scenario name");
    }
    if (!name) return usage("no scenario name");
    if (!a.iface) return usage("--iface missing");
    if (a.mode != NIC_TB_C && !scen_has_rtl()) {
        printf("FAIL scen %s: built without the RTL model (build with testbench/scenario/build --rtl); mode %s unavailable\n", name,
               a.mode == NIC_TB_RTL ? "rtl" : "lockstep");
        return 1;
    }
    if (seeds) {
        char *end;
        a.first = strtoull(seeds, &end, 0);
        a.last = *end == '-' ? strtoull(end + 1, NULL, 0) : a.first;
    } else {
        a.first = a.last = a.seed;
    }
    int r = scen_dispatch(name, &a);
    if (r < 0) return usage("unknown scenario (see --list)");
    printf("%s scen %s: %d failure(s)\n", scen_failures ? "FAIL" : "PASS", name, scen_failures);
    return scen_failures ? 1 : 0;
}
