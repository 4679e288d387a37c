/* mig_bandwidth — the bandwidth of a live-migrated NIC function over the guest's device time,
 * from the simulator's own frame times, and what the migration cost it (docs/bench.md,
 * "Live migration"; docs/live-migration.md, "Plot and bench").
 *
 *   mig_bandwidth --timeline TL.json --pcap FILE --mac MAC [--window CYCLES] [--out DIR]
 *
 * FILE is the migrating side's `hlsnic-run --pcap`: the source device's frames, and FILE.migN
 * the destination's of migration N. A device stamps each frame with its own cycle count (4 ns a
 * cycle); the timeline's dest_cycle_base puts the destination's count after the source's, so
 * every frame gets its guest device time, cycle-exact. A frame from MAC is sent (tx), any other
 * received (rx). Writes DIR/throughput.tsv (one line per window of CYCLES: start cycle, tx and
 * rx bytes, tx and rx Gbit/s at 250 MHz) and DIR/phases.tsv (the plot's marks), and prints the
 * bench rows (bench_rows.h) of the first successful migration: downtime by phase, pre-copy
 * iterations, bandwidth before / in the dip / after, the dip's depth and length. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_rows.h"
#include "mig_timeline.h"
#include "pcap.h"

#define SECTION "live migration: ib_write_bw"
#define USAGE "mig_bandwidth --timeline TL.json --pcap FILE --mac MAC [--window CYCLES] [--out DIR]"
#define GBIT_PER_BYTE_PER_CYCLE 2.0 /* 8 bits x 250 MHz */
#define DATA_FRAME_MIN 512          /* a frame this long carries payload (ACKs are ~60 bytes) */

typedef struct {
    uint64_t cyc;
    uint32_t len;
    bool tx;
} frame_t;

typedef struct {
    frame_t *f;
    size_t n, cap;
} frames_t;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mig_bandwidth: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* Append FILE's frames at guest time base + (its timestamp / 4 ns). */
static void read_pcap(frames_t *fs, const char *file, uint64_t base, const uint8_t mac[6]) {
    pcap_reader_t *r = pcap_open_read(file);
    if (!r) die("%s: not a readable pcap", file);
    static uint8_t buf[PCAP_SNAPLEN];
    size_t len, before = fs->n;
    uint64_t ns;
    int rc;
    while ((rc = pcap_next(r, buf, sizeof buf, &len, &ns)) == 1) {
        if (fs->n == fs->cap && !(fs->f = realloc(fs->f, (fs->cap = fs->cap ? 2 * fs->cap : 4096) * sizeof *fs->f)))
            die("%s: out of memory", file);
        fs->f[fs->n++] = (frame_t){.cyc = base + ns / 4, .len = (uint32_t)len, .tx = len >= 12 && !memcmp(buf + 6, mac, 6)};
    }
    pcap_close_read(r);
    if (rc < 0) die("%s: malformed pcap after frame %zu", file, fs->n - before);
}

static int by_cycle(const void *a, const void *b) {
    const frame_t *x = a, *y = b;
    return x->cyc < y->cyc ? -1 : x->cyc > y->cyc;
}

static bool is_data(const frame_t *f, bool tx) { return f->tx == tx && f->len >= DATA_FRAME_MIN; }

/* data bytes in [c0, c1) */
static uint64_t bytes_in(const frames_t *fs, bool tx, uint64_t c0, uint64_t c1) {
    uint64_t s = 0;
    for (size_t i = 0; i < fs->n; i++)
        if (fs->f[i].tx == tx && fs->f[i].cyc >= c0 && fs->f[i].cyc < c1) s += fs->f[i].len;
    return s;
}

static double rate(const frames_t *fs, bool tx, uint64_t c0, uint64_t c1) {
    return c1 > c0 ? (double)bytes_in(fs, tx, c0, c1) / (double)(c1 - c0) : 0;
}

static void rate_row(const char *metric, double bpc, const char *how) {
    bench_row(SECTION, metric, "B/cycle", how, "%.3f", bpc);
    char m[128];
    snprintf(m, sizeof m, "%s (250 MHz)", metric);
    bench_row(SECTION, m, "Gbit/s", "the same at the documented 250 MHz clock", "%.3f", bpc * GBIT_PER_BYTE_PER_CYCLE);
}

static bool starts_with(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* The plot's marks: pre-copy as a span, the stop phases as spans, the resume as a line. */
static void write_phases(const char *file, const mig_record_t *m, unsigned nm) {
    FILE *f = fopen(file, "w");
    if (!f) die("%s: %s", file, strerror(errno));
    fprintf(f, "# label\tfrom_cycle\tto_cycle (guest device time; docs/live-migration.md, \"Plot and bench\")\n");
    for (unsigned i = 0; i < nm; i++) {
        uint64_t p0 = 0, p1 = 0;
        for (unsigned k = 0; k < m[i].nph; k++) {
            const mig_phase_t *p = &m[i].ph[k];
            if (starts_with(p->name, "pre-copy-") && strcmp(p->name, "pre-copy-p2p")) {
                if (!p0) p0 = p->cyc0;
                p1 = p->cyc1;
            } else if (!strcmp(p->name, "pause") || !strcmp(p->name, "pre-copy-p2p")) {
                fprintf(f, "%s\t%llu\t%llu\n", !strcmp(p->name, "pause") ? "pause" : "stop/P2P", (unsigned long long)p->cyc0,
                        (unsigned long long)p->cyc1);
            } else if (!strcmp(p->name, "stop-copy") || !strcmp(p->name, "destination-load") ||
                       !strcmp(p->name, "switch-over")) {
                fprintf(f, "%s\t%llu\t%llu\n", p->name, (unsigned long long)p->cyc0, (unsigned long long)p->cyc1);
            }
        }
        if (p0) fprintf(f, "pre-copy\t%llu\t%llu\n", (unsigned long long)p0, (unsigned long long)p1);
        if (m[i].ok) fprintf(f, "resume\t%llu\t%llu\n", (unsigned long long)m[i].paused1, (unsigned long long)m[i].paused1);
    }
    if (fclose(f)) die("%s: %s", file, strerror(errno));
}

static void write_series(const char *file, const frames_t *fs, uint64_t window) {
    FILE *f = fopen(file, "w");
    if (!f) die("%s: %s", file, strerror(errno));
    fprintf(f, "# window_start_cycle\ttx_bytes\trx_bytes\ttx_gbit_s\trx_gbit_s (windows of %llu cycles, 250 MHz)\n",
            (unsigned long long)window);
    uint64_t last = fs->n ? fs->f[fs->n - 1].cyc / window : 0;
    size_t i = 0;
    for (uint64_t w = 0; w <= last && fs->n; w++) {
        uint64_t tx = 0, rx = 0;
        for (; i < fs->n && fs->f[i].cyc / window == w; i++) *(fs->f[i].tx ? &tx : &rx) += fs->f[i].len;
        fprintf(f, "%llu\t%llu\t%llu\t%.4f\t%.4f\n", (unsigned long long)(w * window), (unsigned long long)tx, (unsigned long long)rx,
                (double)tx / window * GBIT_PER_BYTE_PER_CYCLE, (double)rx / window * GBIT_PER_BYTE_PER_CYCLE);
    }
    if (fclose(f)) die("%s: %s", file, strerror(errno));
}

/* Downtime and its phases: the phases that lie in the pause, and what the clock ran between
 * them (the driver's own steps between two phases), so that the rows add up to the downtime. */
static void downtime_rows(const mig_record_t *m) {
    uint64_t down = m->paused1 - m->paused0, sum = 0, prev = m->paused0;
    bool ordered = true;
    bench_row(SECTION, "downtime (guest paused)", "cycles", "timeline: paused.cycles[1] - [0]", "%llu", (unsigned long long)down);
    for (unsigned k = 0; k < m->nph; k++) {
        const mig_phase_t *p = &m->ph[k];
        if (p->cyc0 < m->paused0) continue;
        char metric[64];
        snprintf(metric, sizeof metric, "downtime: %s", p->name);
        bench_row(SECTION, metric, "cycles", "timeline: the phase's cycles", "%llu", (unsigned long long)(p->cyc1 - p->cyc0));
        ordered = ordered && p->cyc0 >= prev && p->cyc1 >= p->cyc0 && p->cyc1 <= m->paused1;
        sum += p->cyc1 - p->cyc0;
        prev = p->cyc1;
    }
    bench_row(SECTION, "downtime: between the phases", "cycles", "the rest of the pause: the clock ran between two steps of the driver",
              "%llu", (unsigned long long)(down - (sum <= down ? sum : down)));
    bench_check("live migration: the stop phases lie in the pause, in order, and sum to at most the downtime", ordered && sum <= down,
                "phases sum to %llu cycles, downtime %llu%s", (unsigned long long)sum, (unsigned long long)down,
                ordered ? "" : ", a phase out of order or outside the pause");
}

static void precopy_rows(const mig_record_t *m) {
    unsigned iters = 0;
    for (unsigned k = 0; k < m->nph; k++) {
        const mig_phase_t *p = &m->ph[k];
        if (!starts_with(p->name, "pre-copy-") || !strcmp(p->name, "pre-copy-p2p") || !strcmp(p->name, "pre-copy-start")) continue;
        iters++;
        char metric[64];
        snprintf(metric, sizeof metric, "%s: image bytes", p->name);
        bench_row(SECTION, metric, "B", "the device's stream read in the iteration", "%llu", (unsigned long long)p->image_bytes);
        snprintf(metric, sizeof metric, "%s: guest memory bytes", p->name);
        bench_row(SECTION, metric, "B", "guest pages copied (dirty log + CPU)", "%llu", (unsigned long long)p->guest_bytes);
    }
    bench_row(SECTION, "pre-copy iterations", "", "20 000 device cycles apart, until converged (docs/live-migration.md)", "%u", iters);
}

/* The dip: the windows whose data rate stays under half the rate before the migration, from
 * the first such window that holds part of the pause. */
static void dip_rows(const frames_t *fs, const mig_record_t *m, uint64_t window) {
    uint64_t tx_all = 0, rx_all = 0;
    for (size_t i = 0; i < fs->n; i++) *(fs->f[i].tx ? &tx_all : &rx_all) += fs->f[i].len;
    bool tx = tx_all >= rx_all; /* the direction that carries the data */
    uint64_t first = 0, last = 0;
    bool any = false;
    for (size_t i = 0; i < fs->n; i++)
        if (is_data(&fs->f[i], tx)) {
            if (!any) first = fs->f[i].cyc;
            last = fs->f[i].cyc, any = true;
        }
    uint64_t start = m->ph[0].cyc0; /* the migration began (guest memory copied, logging on) */
    double before = rate(fs, tx, first, start);
    uint64_t d0 = m->paused0 / window * window;
    while (d0 + window <= m->paused1 && rate(fs, tx, d0, d0 + window) >= before / 2) d0 += window; /* mostly before the pause */
    uint64_t d1 = d0;
    while (d1 < last && rate(fs, tx, d1, d1 + window) < before / 2) d1 += window;
    double during = rate(fs, tx, d0, d1), after = rate(fs, tx, d1, last);
    double lowest = before;
    for (uint64_t w = d0; w < d1; w += window) {
        double r = rate(fs, tx, w, w + window);
        if (r < lowest) lowest = r;
    }
    /* the longest silence of the data direction that overlaps the pause, cycle-exact */
    uint64_t gap0 = 0, gap1 = 0, prev = first;
    for (size_t i = 0; i < fs->n; i++) {
        if (!is_data(&fs->f[i], tx)) continue;
        uint64_t c = fs->f[i].cyc;
        if (c >= m->paused0 && prev <= m->paused1 && c - prev > gap1 - gap0) gap0 = prev, gap1 = c;
        prev = c;
    }
    bench_row(SECTION, "data direction of the migrating side", "", "the direction with more bytes", "%s", tx ? "tx" : "rx");
    rate_row("bandwidth before the migration", before, "data bytes / cycles from the first data frame to the migration's start");
    rate_row("bandwidth in the dip", during, "data bytes / cycles of the dip");
    rate_row("bandwidth after the dip", after, "data bytes / cycles from the dip's end to the last data frame");
    bench_row(SECTION, "dip depth", "B/cycle", "before minus the lowest window in the dip", "%.3f", before - lowest);
    bench_row(SECTION, "dip length", "cycles", "windows from the dip's start while under half the rate before", "%llu",
              (unsigned long long)(d1 - d0));
    bench_row(SECTION, "dip start", "cycles", "the first window under half the rate that holds part of the pause", "%llu", (unsigned long long)d0);
    bench_row(SECTION, "data silence around the pause", "cycles", "longest gap between data frames that overlaps the pause (exact)",
              "%llu", (unsigned long long)(gap1 - gap0));
    bench_row(SECTION, "window", "cycles", "throughput samples: one per window of device cycles", "%llu", (unsigned long long)window);
    bench_check("live migration: data flowed before and after the migration", before > 0 && after > 0, "before %.3f, after %.3f B/cycle",
                before, after);
    bench_check("live migration: the bandwidth in the dip is below the bandwidth before", d1 > d0 && during < before,
                "dip %.3f B/cycle over %llu cycles, before %.3f", during, (unsigned long long)(d1 - d0), before);
}

int main(int argc, char **argv) {
    const char *tl = NULL, *pcap = NULL, *mac_s = NULL, *out = ".";
    uint64_t window = 100000;
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) die("option %s needs a value", argv[i]);
        if (!strcmp(argv[i], "--timeline")) tl = v;
        else if (!strcmp(argv[i], "--pcap")) pcap = v;
        else if (!strcmp(argv[i], "--mac")) mac_s = v;
        else if (!strcmp(argv[i], "--out")) out = v;
        else if (!strcmp(argv[i], "--window")) {
            char *e;
            window = strtoull(v, &e, 10);
            if (*e || !window) die("--window '%s': not a positive number of cycles", v);
        } else die("unknown option '%s' (usage: %s)", argv[i], USAGE);
    }
    if (!tl || !pcap || !mac_s) die("usage: %s", USAGE);
    uint8_t mac[6];
    if (sscanf(mac_s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3], &mac[4], &mac[5]) != 6)
        die("--mac '%s': not XX:XX:XX:XX:XX:XX", mac_s);
    static mig_record_t m[64];
    char why[512];
    int nm = mig_timeline_read(tl, m, 64, why, sizeof why);
    if (nm < 0) die("%s", why);
    frames_t fs = {0};
    read_pcap(&fs, pcap, 0, mac);
    const mig_record_t *first_ok = NULL;
    for (int i = 0; i < nm; i++) {
        if (!m[i].ok) continue;
        char f[4096];
        snprintf(f, sizeof f, "%s.mig%u", pcap, m[i].n);
        read_pcap(&fs, f, m[i].dest_cycle_base, mac);
        if (!first_ok) first_ok = &m[i];
    }
    qsort(fs.f, fs.n, sizeof *fs.f, by_cycle);
    char file[4096];
    snprintf(file, sizeof file, "%s/throughput.tsv", out);
    write_series(file, &fs, window);
    snprintf(file, sizeof file, "%s/phases.tsv", out);
    write_phases(file, m, (unsigned)nm);
    bench_check("live migration: the timeline holds a successful migration", first_ok, "%d migration(s), none ok", nm);
    if (first_ok && first_ok->nph) {
        downtime_rows(first_ok);
        precopy_rows(first_ok);
        dip_rows(&fs, first_ok, window);
    }
    free(fs.f);
    return bench_check_failures() ? 1 : 0;
}
