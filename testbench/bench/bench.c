/* bench — the NIC's performance figures (docs/bench.md), from simulator counters.
 *
 *   bench [--quick] [--seed N] [--no-rtl] [--only goodput|pcie|bidir|small|latency|acklat|loss|speed]
 *         [--size BYTES] [--count N] [--qps N] [--per-qp N] [--dma-read-latency N] [--dma-write-latency N]
 *         [--wire-latency N] IFACE
 *
 * Two whole NICs (hls/nic/nic.net) on a wire, C model (and the verilated RTL for the speed
 * figures when built with -DBENCH_RTL). Prints one row per figure on stdout, tab-separated:
 *     SECTION  METRIC  VALUE  UNIT  HOW
 * (testbench/bench/run turns them into the table and bench.tsv). Rows whose UNIT is
 * "cycles/s", "s" or "load" are wall-clock; every other figure is a cycle/packet/byte count of the
 * simulation and is the same for the same seed. Rows of section "check" say whether the run
 * was consistent (bytes delivered = bytes posted, every CQE successful, ...): value "ok" or
 * "FAIL: why"; rows of section "finding" flag NIC behaviour that looks wrong (value "ok" or
 * "PROBLEM: what"). Exit 0 iff every check is ok.
 *
 * Plain C testbench code, not HLS-C. */
#include "bench_env.h"
#include "bench_rows.h"
#include "../lib/prng.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void nic(const void *in, void *out, void *state);
#ifdef BENCH_RTL
#include "nic_rtl.h"
#endif

static nic_tb_model_t model;
static bench_cfg_t base_cfg;
static bool quick, use_rtl = true;
static const char *only;          /* --only: one group of figures */
static uint32_t opt_size;         /* --size / --count: the bulk WRITE workload */
static unsigned opt_count;
static unsigned opt_per_qp, opt_qps; /* --per-qp / --qps: the small-WRITE workload */
static bool want(const char *group) { return !only || !strcmp(only, group); }

static double wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}
static unsigned mtu_bytes(unsigned pmtu) { return 128u << pmtu; } /* enum ibv_mtu: 1 = 256 */

/* Data buffers: A's source at the start of the MR, B's target 32 MiB in. Pattern bytes are
 * never 0, so a target byte equal to its source byte was written by the NIC. */
#define SRC (BENCH_DATA_BASE)
#define DST (BENCH_DATA_BASE + 0x2000000ull)
static void fill_pattern(hostmem_t *m, uint64_t addr, size_t len, uint64_t seed) {
    prng_t r;
    prng_seed_stream(&r, seed, 0xbe7c);
    uint8_t buf[4096];
    for (size_t off = 0; off < len; off += sizeof buf) {
        size_t n = len - off < sizeof buf ? len - off : sizeof buf;
        for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(1 + prng_below(&r, 255));
        hostmem_write(m, addr + off, buf, n);
    }
}
/* Bytes of dst (in memory b) equal to src (in memory a), after every posted write applied. */
static uint64_t bytes_matching(hostmem_t *a, uint64_t src, hostmem_t *b, uint64_t dst, size_t len) {
    hostmem_flush(b);
    uint8_t x[4096], y[4096];
    uint64_t same = 0;
    for (size_t off = 0; off < len; off += sizeof x) {
        size_t n = len - off < sizeof x ? len - off : sizeof x;
        hostmem_read(a, src + off, x, n);
        hostmem_read(b, dst + off, y, n);
        for (size_t i = 0; i < n; i++) same += x[i] == y[i];
    }
    if (same != len && getenv("BENCH_DEBUG")) { /* where the wrong bytes came from */
        uint8_t *sx = malloc(len), *dy = malloc(len);
        hostmem_read(a, src, sx, len);
        hostmem_read(b, dst, dy, len);
        for (size_t off = 0; off < len; off += 512) {
            long shift = 99999;
            for (long k = -8192; k <= 8192 && shift == 99999; k++) {
                if ((long)off + k < 0 || off + k + 64 > len) continue;
                if (!memcmp(dy + off, sx + off + k, 64)) shift = k;
            }
            size_t z = 0;
            while (z < 64 && !dy[off + z]) z++;
            fprintf(stderr, "  dst+%zu: %s shift %ld\n", off, z == 64 ? "zero" : "data", shift);
        }
        free(sx); free(dy);
    }
    return same;
}

/* ---- bulk WRITEs: goodput ---------------------------------------------------------------- */
typedef struct {
    bool ok;
    uint64_t cycles;          /* first doorbell .. last CQE, inclusive */
    uint64_t total_cycles;    /* the whole simulation, set-up included */
    uint64_t setup_cycles;
    double seconds;           /* wall-clock of the whole simulation */
    uint64_t bytes_posted, bytes_delivered, cqes, cqe_errors;
    uint64_t tx_bytes[2], tx_frames[2], tx_beats[2], tx_span[2];
    uint64_t packets_needed, packets_sent, wire_lost;
    uint64_t timeouts, naks_acted, naks_sent, retries;
} bulk_t;

static uint64_t bulk_bound(uint64_t bytes, double p_loss) {
    /* generous: 8 cycles per payload beat, plus room for 50 ACK timeouts under loss */
    uint64_t b = 200000 + bytes / 8;
    if (p_loss > 0) b += 50ull * (1024ull << base_cfg.ack_timeout);
    return b;
}

static bulk_t bulk_write(nic_tb_mode_t mode, unsigned pmtu, uint32_t size, unsigned count, double p_loss) {
    bulk_t r = {0};
    bench_cfg_t cfg = base_cfg;
    cfg.mode = mode;
    cfg.p_loss = p_loss;
    double w0 = wall();
    bench_env_t *e = bench_env_new(&model, &cfg, 1, pmtu);
    if (!e) return r;
    r.setup_cycles = e->setup_cycles;
    uint64_t bytes = (uint64_t)size * count;
    fill_pattern(nic_tb_mem(e->tb, BENCH_A), SRC, bytes, cfg.seed);
    uint64_t t0 = bench_now(e), pk0 = bench_counter(e, BENCH_A, "req_packets_sent");
    for (unsigned k = 0; k < count; k++)
        bench_post_send(e, BENCH_A, 0, NIC_WR_WRITE, SRC + (uint64_t)k * size, size, DST + (uint64_t)k * size);
    bool done = bench_run_until_cqes(e, BENCH_A, BENCH_SCQ, count, bulk_bound(bytes, p_loss));
    if (!done) bench_dump(e, "bulk WRITE: not every CQE came");
    r.ok = done;
    bench_cq_t *q = &e->cq[BENCH_A][BENCH_SCQ];
    r.cycles = done ? q->last_cycle - t0 + 1 : 0;
    r.cqes = q->cqes;
    r.cqe_errors = q->errors;
    if (q->errors)
        fprintf(stderr, "bench: first error CQE: wr_id 0x%" PRIx64 " status %u opcode %u\n", q->first_error.wr_id,
                q->first_error.status, q->first_error.opcode);
    r.bytes_posted = bytes;
    r.bytes_delivered = bytes_matching(nic_tb_mem(e->tb, BENCH_A), SRC, nic_tb_mem(e->tb, BENCH_B), DST, bytes);
    for (unsigned n = 0; n < 2; n++) { r.tx_bytes[n] = e->tx_bytes[n]; r.tx_frames[n] = e->tx_frames[n]; r.tx_beats[n] = e->tx_beats[n];
        r.tx_span[n] = e->tx_beats[n] ? e->tx_last_beat[n] - e->tx_first_beat[n] + 1 : 0; }
    r.packets_needed = (uint64_t)count * ((size + mtu_bytes(pmtu) - 1) / mtu_bytes(pmtu));
    r.packets_sent = bench_counter(e, BENCH_A, "req_packets_sent") - pk0;
    r.wire_lost = wire_stats(nic_tb_wire(e->tb))->lost;
    r.timeouts = bench_counter(e, BENCH_A, "comp_timeouts");
    r.naks_acted = bench_counter(e, BENCH_A, "comp_naks");
    r.retries = bench_counter(e, BENCH_A, "comp_retries");
    r.naks_sent = bench_counter(e, BENCH_B, "resp_naks_sent");
    r.total_cycles = bench_now(e);
    r.seconds = wall() - w0;
    bench_env_free(e);
    return r;
}

static void bulk_checks(const char *name, const bulk_t *r, unsigned count, bool lossless) {
    char n[128];
    snprintf(n, sizeof n, "%s: every WRITE completed successfully", name);
    bench_check(n, r->ok && r->cqes == count && !r->cqe_errors, "%" PRIu64 " CQEs of %u, %" PRIu64 " with an error status%s",
          r->cqes, count, r->cqe_errors, r->ok ? "" : " (timed out)");
    snprintf(n, sizeof n, "%s: bytes delivered = bytes posted", name);
    bench_check(n, r->bytes_delivered == r->bytes_posted, "%" PRIu64 " of %" PRIu64 " bytes right in B's memory",
          r->bytes_delivered, r->bytes_posted);
    snprintf(n, sizeof n, "%s: positive cycle count", name);
    bench_check(n, r->cycles > 0, "interval of %" PRIu64 " cycles", r->cycles);
    if (lossless) {
        snprintf(n, sizeof n, "%s: no loss, so no retransmission", name);
        bench_finding(n, r->packets_sent == r->packets_needed && !r->timeouts && !r->retries,
              "%" PRIu64 " request packets sent for %" PRIu64 " needed, %" PRIu64 " timeouts, %" PRIu64 " retries",
              r->packets_sent, r->packets_needed, r->timeouts, r->retries);
    }
}

static void bulk_rows(const char *sec, const bulk_t *r) {
    if (!r->cycles) {
        bench_row(sec, "interval", "cycles", "the run did not finish (see the checks): no rates", "-");
        bench_row(sec, "payload bytes right in B's memory", "bytes", "target bytes equal to the source", "%" PRIu64 " of %" PRIu64,
            r->bytes_delivered, r->bytes_posted);
        return;
    }
    double c = (double)r->cycles;
    const char *iv = "first SQ doorbell .. last CQE applied in host memory, inclusive";
    bench_row(sec, "interval", "cycles", iv, "%" PRIu64, r->cycles);
    bench_row(sec, "payload delivered and completed", "bytes", "target bytes equal to the source after the run", "%" PRIu64,
        r->bytes_delivered);
    bench_row(sec, "goodput", "bytes/cycle", "payload bytes / interval", "%.2f", r->bytes_delivered / c);
    bench_row(sec, "goodput at 250 MHz", "Gb/s", "bytes/cycle x 8 x 0.25; line = 64 B/cycle = 128 Gb/s", "%.1f",
        r->bytes_delivered / c * 2.0);
    bench_row(sec, "wire A->B (requests)", "bytes/cycle", "frame bytes out of A's tx_frame / interval", "%.2f",
        r->tx_bytes[0] / c);
    bench_row(sec, "wire B->A (ACKs)", "bytes/cycle", "frame bytes out of B's tx_frame / interval", "%.2f", r->tx_bytes[1] / c);
    bench_row(sec, "A's tx_frame busy", "%", "cycles with a beat on A's tx_frame / interval", "%.1f", 100.0 * r->tx_beats[0] / c);
    bench_row(sec, "A's tx_frame busy while sending", "%", "beats / (last beat - first beat + 1): bubbles in the burst",
        "%.1f", r->tx_span[0] ? 100.0 * r->tx_beats[0] / r->tx_span[0] : 0.0);
    bench_row(sec, "frames A->B / B->A", "frames", "frames started on tx_frame", "%" PRIu64 " / %" PRIu64, r->tx_frames[0],
        r->tx_frames[1]);
}

static void goodput(unsigned pmtu, uint32_t size, unsigned count) {
    char sec[64], name[96];
    snprintf(sec, sizeof sec, "WRITE %u x %u B, MTU %u", count, size, mtu_bytes(pmtu));
    bulk_t r = bulk_write(NIC_TB_C, pmtu, size, count, 0);
    snprintf(name, sizeof name, "goodput MTU %u", mtu_bytes(pmtu));
    bulk_checks(name, &r, count, true);
    bulk_rows(sec, &r);
}

static void lossy(unsigned pmtu, uint32_t size, unsigned count, double p) {
    char sec[80], name[96];
    snprintf(sec, sizeof sec, "WRITE %u x %u B, MTU %u, %.0f%% loss", count, size, mtu_bytes(pmtu), p * 100);
    bulk_t r = bulk_write(NIC_TB_C, pmtu, size, count, p);
    snprintf(name, sizeof name, "%.0f%% loss", p * 100);
    bulk_checks(name, &r, count, false);
    bulk_rows(sec, &r);
    bench_row(sec, "frames lost on the wire", "frames", "wire loss impairment, both directions", "%" PRIu64, r.wire_lost);
    bench_row(sec, "request packets sent / needed", "packets", "A's req_packets_sent; needed = WQEs x ceil(size/MTU)",
        "%" PRIu64 " / %" PRIu64, r.packets_sent, r.packets_needed);
    bench_row(sec, "retransmitted packets", "packets", "sent - needed", "%" PRIu64, r.packets_sent - r.packets_needed);
    bench_row(sec, "NAKs sent by B / acted on by A", "packets", "resp_naks_sent / comp_naks", "%" PRIu64 " / %" PRIu64,
        r.naks_sent, r.naks_acted);
    bench_row(sec, "ACK timeouts / retries", "events", "comp_timeouts / comp_retries", "%" PRIu64 " / %" PRIu64, r.timeouts,
        r.retries);
}

/* The goodput workload at MTU 4096 with host memory as slow as PCIe (read latency 125 cycles
 * = 500 ns, posted writes visible after 50): what the DMA round trip costs per packet. */
static void pcie(uint32_t size, unsigned count) {
    bench_cfg_t saved = base_cfg;
    base_cfg.dma_read_latency = 125;
    base_cfg.dma_write_latency = 50;
    char sec[112];
    snprintf(sec, sizeof sec, "WRITE %u x %u B, MTU 4096, PCIe-like host (DMA read 125, write 50 cycles)", count, size);
    bulk_t r = bulk_write(NIC_TB_C, 5, size, count, 0);
    base_cfg = saved;
    bulk_checks("PCIe-like host", &r, count, true);
    bulk_rows(sec, &r);
}

/* ---- both directions at once: ACKs share each NIC's transmitter with data ---------------- */
/* A and B each post `count` WRITEs of `size` to the other at the same cycle. Each NIC's ACKs
 * then leave through the same tx_arb as its own requests (tx_arb has no ACK priority): ACK
 * starvation shows as each direction's interval growing beyond the one-way run's, as ACK
 * timeouts, or as retransmissions without loss. */
static void bidir(uint32_t size, unsigned count) {
    char sec[96];
    snprintf(sec, sizeof sec, "WRITE %u x %u B each way at once, MTU 4096", count, size);
    bench_cfg_t cfg = base_cfg;
    bench_env_t *e = bench_env_new(&model, &cfg, 1, 5);
    if (!e) { bench_check("both ways: set-up", false, "bench_env_new failed"); return; }
    uint64_t bytes = (uint64_t)size * count;
    for (unsigned n = 0; n < 2; n++) fill_pattern(nic_tb_mem(e->tb, n), SRC, bytes, cfg.seed + n);
    uint64_t t0 = bench_now(e);
    for (unsigned k = 0; k < count; k++)
        for (unsigned n = 0; n < 2; n++)
            bench_post_send(e, n, 0, NIC_WR_WRITE, SRC + (uint64_t)k * size, size, DST + (uint64_t)k * size);
    bool done = true;
    for (unsigned n = 0; n < 2; n++)
        done &= bench_run_until_cqes(e, n, BENCH_SCQ, count, bulk_bound(2 * bytes, 0));
    if (!done) bench_dump(e, "both ways: not every CQE came");
    uint64_t got[2], last = 0;
    for (unsigned n = 0; n < 2; n++) {
        got[n] = bytes_matching(nic_tb_mem(e->tb, n), SRC, nic_tb_mem(e->tb, 1 - n), DST, bytes);
        if (e->cq[n][BENCH_SCQ].last_cycle > last) last = e->cq[n][BENCH_SCQ].last_cycle;
    }
    bench_cq_t *qa = &e->cq[BENCH_A][BENCH_SCQ], *qb = &e->cq[BENCH_B][BENCH_SCQ];
    bench_check("both ways: every WRITE completed successfully",
          done && qa->cqes == count && qb->cqes == count && !qa->errors && !qb->errors,
          "A %" PRIu64 " CQEs (%" PRIu64 " errors), B %" PRIu64 " (%" PRIu64 ") of %u each", qa->cqes, qa->errors,
          qb->cqes, qb->errors, count);
    bench_check("both ways: bytes delivered = bytes posted", got[0] == bytes && got[1] == bytes,
          "A->B %" PRIu64 ", B->A %" PRIu64 " of %" PRIu64 " bytes", got[0], got[1], bytes);
    uint64_t need = (uint64_t)count * ((size + 4095) / 4096);
    uint64_t sent[2] = {bench_counter(e, BENCH_A, "req_packets_sent"), bench_counter(e, BENCH_B, "req_packets_sent")};
    bench_finding("both ways: no loss, so no retransmission and no ACK timeout",
            sent[0] == need && sent[1] == need && !bench_counter(e, BENCH_A, "comp_timeouts") &&
                !bench_counter(e, BENCH_B, "comp_timeouts"),
            "request packets A %" PRIu64 " B %" PRIu64 " for %" PRIu64 " each; ACK timeouts A %" PRIu64 " B %" PRIu64,
            sent[0], sent[1], need, bench_counter(e, BENCH_A, "comp_timeouts"), bench_counter(e, BENCH_B, "comp_timeouts"));
    if (done) {
        double c = (double)(last - t0 + 1);
        bench_row(sec, "interval", "cycles", "first SQ doorbell .. last CQE of either NIC, inclusive", "%" PRIu64, last - t0 + 1);
        bench_row(sec, "goodput, both directions", "bytes/cycle", "payload bytes of both / interval", "%.2f",
            (got[0] + got[1]) / c);
        bench_row(sec, "wire A->B / B->A", "bytes/cycle", "frame bytes out of each tx_frame / interval", "%.2f / %.2f",
            e->tx_bytes[0] / c, e->tx_bytes[1] / c);
        bench_row(sec, "interval of A's / B's WRITEs", "cycles", "first doorbell .. each NIC's last CQE (compare: one way)",
            "%" PRIu64 " / %" PRIu64, qa->last_cycle - t0 + 1, qb->last_cycle - t0 + 1);
        bench_row(sec, "request packets sent A / B (needed each)", "packets", "req_packets_sent",
            "%" PRIu64 " / %" PRIu64 " (%" PRIu64 ")", sent[0], sent[1], need);
    }
    bench_env_free(e);
}

/* ---- many small WRITEs over 16 QPs: message rate ------------------------------------------ */
static void small_writes(unsigned nqp, unsigned per_qp, uint32_t size) {
    char sec[80];
    snprintf(sec, sizeof sec, "WRITE %u B x %u on each of %u QPs", size, per_qp, nqp);
    bench_cfg_t cfg = base_cfg;
    bench_env_t *e = bench_env_new(&model, &cfg, nqp, 5);
    if (!e) { bench_check("small WRITEs: set-up", false, "bench_env_new failed"); return; }
    unsigned total = nqp * per_qp;
    fill_pattern(nic_tb_mem(e->tb, BENCH_A), SRC, (size_t)total * size, cfg.seed);
    uint64_t t0 = bench_now(e);
    for (unsigned k = 0; k < per_qp; k++)
        for (unsigned q = 0; q < nqp; q++) {
            uint64_t off = (uint64_t)(q * per_qp + k) * size;
            bench_post_send(e, BENCH_A, q, NIC_WR_WRITE, SRC + off, size, DST + off);
        }
    bool done = bench_run_until_cqes(e, BENCH_A, BENCH_SCQ, total, 200000 + 400ull * total);
    if (!done) bench_dump(e, "small WRITEs: not every CQE came");
    bench_cq_t *cq = &e->cq[BENCH_A][BENCH_SCQ];
    uint64_t cycles = done ? cq->last_cycle - t0 + 1 : 0;
    uint64_t got = bytes_matching(nic_tb_mem(e->tb, BENCH_A), SRC, nic_tb_mem(e->tb, BENCH_B), DST, (size_t)total * size);
    char name[128];
    snprintf(name, sizeof name, "small WRITEs %ux%u", nqp, per_qp);
    snprintf(name, sizeof name, "small WRITEs %ux%u: every WRITE completed successfully", nqp, per_qp);
    bench_check(name, done && cq->cqes == total && !cq->errors,
          "%" PRIu64 " CQEs of %u (%" PRIu64 " errors) after %" PRIu64 " cycles; A's rx_frame took %" PRIu64
          " of the %" PRIu64 " frames B sent, %" PRIu64 " ACK timeouts",
          cq->cqes, total, cq->errors, bench_now(e) - t0, e->rx_frames[BENCH_A], e->tx_frames[BENCH_B],
          bench_counter(e, BENCH_A, "comp_timeouts"));
    snprintf(name, sizeof name, "small WRITEs %ux%u: bytes delivered = bytes posted", nqp, per_qp);
    bench_check(name, got == (uint64_t)total * size, "%" PRIu64 " of %u bytes", got, total * size);
    snprintf(name, sizeof name, "small WRITEs %ux%u: positive cycle count", nqp, per_qp);
    bench_check(name, cycles > 0, "interval %" PRIu64, cycles);
    uint64_t pk = bench_counter(e, BENCH_A, "req_packets_sent");
    snprintf(name, sizeof name, "small WRITEs %ux%u: no loss, so one packet per message, none resent", nqp, per_qp);
    bench_finding(name, pk == total,
          "%" PRIu64 " packets for %u messages (B sent %" PRIu64 " NAKs, A: %" PRIu64 " timeouts, %" PRIu64 " retries)",
          pk, total, bench_counter(e, BENCH_B, "resp_naks_sent"), bench_counter(e, BENCH_A, "comp_timeouts"),
          bench_counter(e, BENCH_A, "comp_retries"));
    if (getenv("BENCH_DEBUG")) bench_dump(e, "small WRITEs: counters at the end");
    if (!done) {
        bench_row(sec, "messages completed", "messages", "successful send CQEs (the run did not finish: no rates)",
            "%" PRIu64 " of %u", cq->cqes, total);
        bench_env_free(e);
        return;
    }
    double c = (double)cycles;
    bench_row(sec, "interval", "cycles", "first SQ doorbell .. last CQE applied, inclusive", "%" PRIu64, cycles);
    bench_row(sec, "messages completed", "messages", "successful send CQEs", "%" PRIu64, cq->cqes);
    bench_row(sec, "message rate", "messages/cycle", "messages / interval", "%.4f", total / c);
    bench_row(sec, "cycles per message", "cycles", "interval / messages", "%.1f", c / total);
    bench_row(sec, "message rate at 250 MHz", "Mmsg/s", "messages/cycle x 250", "%.1f", total / c * 250);
    bench_row(sec, "goodput", "bytes/cycle", "payload bytes / interval", "%.2f", got / c);
    bench_row(sec, "wire A->B (requests)", "bytes/cycle", "frame bytes out of A's tx_frame / interval", "%.2f",
        e->tx_bytes[0] / c);
    bench_row(sec, "A's tx_frame busy", "%", "cycles with a beat on A's tx_frame / interval", "%.1f", 100.0 * e->tx_beats[0] / c);
    bench_row(sec, "frames A->B / B->A", "frames", "frames started on tx_frame", "%" PRIu64 " / %" PRIu64, e->tx_frames[0],
        e->tx_frames[1]);
    bench_env_free(e);
}

/* ---- one operation at a time: latencies --------------------------------------------------- */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static void min_med_max(const char *sec, const char *metric, const char *how, uint64_t *v, unsigned n) {
    qsort(v, n, sizeof *v, cmp_u64);
    bench_row(sec, metric, "cycles", how, "%" PRIu64 " / %" PRIu64 " / %" PRIu64, v[0], v[n / 2], v[n - 1]);
}

static void latency(uint8_t opcode, uint32_t size, unsigned nops) {
    const char *opn = opcode == NIC_WR_SEND ? "SEND" : "READ";
    char sec[80], name[96];
    snprintf(sec, sizeof sec, "latency, %s %u B, %u ops one at a time (min / median / max)", opn, size, nops);
    bench_cfg_t cfg = base_cfg;
    bench_env_t *e = bench_env_new(&model, &cfg, 1, 3);
    if (!e) { bench_check("latency: set-up", false, "bench_env_new failed"); return; }
    hostmem_t *ma = nic_tb_mem(e->tb, BENCH_A), *mb = nic_tb_mem(e->tb, BENCH_B);
    /* SEND: A's bytes into B's posted receives; READ: B's bytes into A */
    hostmem_t *from = opcode == NIC_WR_SEND ? ma : mb, *to = opcode == NIC_WR_SEND ? mb : ma;
    fill_pattern(from, SRC, (size_t)nops * size, cfg.seed);
    if (opcode == NIC_WR_SEND)
        for (unsigned k = 0; k < nops; k++) bench_post_recv(e, BENCH_B, 0, DST + (uint64_t)k * size, size);
    uint64_t *d2w = calloc(nops, 8), *w2c = calloc(nops, 8), *tot = calloc(nops, 8);
    unsigned done = 0;
    bool order_ok = true;
    for (unsigned k = 0; k < nops; k++) {
        bench_run_quiet(e, 500, 100000);              /* idle NICs, empty wire */
        uint64_t rx0 = e->rx_frames[BENCH_A], t_db = bench_now(e);
        bench_arm_tx(e, BENCH_A);
        uint64_t off = (uint64_t)k * size;
        if (opcode == NIC_WR_SEND) bench_post_send(e, BENCH_A, 0, NIC_WR_SEND, SRC + off, size, 0);
        else bench_post_send(e, BENCH_A, 0, NIC_WR_READ, DST + off, size, SRC + off);
        if (!bench_run_until_cqes(e, BENCH_A, BENCH_SCQ, k + 1, 100000)) { bench_dump(e, "latency: no CQE"); break; }
        uint64_t t_tx = e->tx_start_cycle[BENCH_A], t_rx = e->rx_last_cycle[BENCH_A],
                 t_cqe = e->cq[BENCH_A][BENCH_SCQ].last_cycle;
        /* the response/ACK arrived, and events are in causal order */
        order_ok &= !e->tx_armed[BENCH_A] && e->rx_frames[BENCH_A] > rx0 && t_db <= t_tx && t_tx < t_rx && t_rx <= t_cqe;
        d2w[k] = t_tx - t_db;
        w2c[k] = t_cqe - t_rx;
        tot[k] = t_cqe - t_db;
        done++;
    }
    bench_run_quiet(e, 500, 100000);
    bench_cq_t *cq = &e->cq[BENCH_A][BENCH_SCQ];
    uint64_t got = bytes_matching(from, SRC, to, DST, (size_t)nops * size);
    snprintf(name, sizeof name, "latency %s: every op completed successfully", opn);
    bench_check(name, done == nops && cq->cqes == nops && !cq->errors, "%u ops timed, %" PRIu64 " CQEs, %" PRIu64 " errors",
          done, cq->cqes, cq->errors);
    snprintf(name, sizeof name, "latency %s: bytes delivered = bytes posted", opn);
    bench_check(name, got == (uint64_t)nops * size, "%" PRIu64 " of %u bytes", got, nops * size);
    snprintf(name, sizeof name, "latency %s: doorbell <= first tx byte < response in <= CQE", opn);
    bench_check(name, order_ok, "events out of order or missing");
    if (done == nops && done) {
        min_med_max(sec, "doorbell to wire", "SQ doorbell valid .. first beat of the request frame on tx_frame", d2w, nops);
        min_med_max(sec, "wire to CQE",
                    opcode == NIC_WR_SEND ? "ACK's last beat taken by rx_frame .. CQE applied in host memory"
                                          : "READ response's last beat taken by rx_frame .. CQE applied in host memory",
                    w2c, nops);
        min_med_max(sec, "doorbell to CQE", "the whole operation", tot, nops);
    }
    free(d2w); free(w2c); free(tot);
    bench_env_free(e);
}

/* ---- ACK latency under bidirectional load -------------------------------------------------- */
/* A WRITEs to B on QP 0 while B READs from A on QP 1 and WRITEs to A on QP 2, 1 MiB each: A's
 * responder is busy with B's requests (READ responses to generate, WRITE payload to place)
 * while B's ACKs for A's WRITEs arrive. An ACK's latency: from its arrival at A's port (the
 * wire hands the frame to A's receive queue) to rx_dispatch handing it to A's completer
 * (A's rxd_to_completer counting it, one cycle after the hand-over). Response frames reach
 * the completer in arrival order, so the n-th response frame at A's port is the n-th count. */
#define ACK_FIFO (1u << 16)
typedef struct {
    uint64_t at[ACK_FIFO];  /* arrival cycles at A's port, in arrival order */
    bool resp[ACK_FIFO];    /* a response frame (an ACK here) */
    unsigned head, tail;
} frame_fifo_t;
typedef struct {
    uint64_t at[ACK_FIFO], taken[ACK_FIFO]; /* arrival; A's rx_frame took its last beat */
    unsigned head, tail;
} ack_fifo_t;

static void tap_frames(void *arg, unsigned nic, const uint8_t *frame, size_t len, uint64_t cycle) {
    frame_fifo_t *q = arg;
    if (nic != BENCH_A || q->tail - q->head == ACK_FIFO) return;
    /* BTH opcode: Ethernet 14 + IPv4 20 + UDP 8 bytes in */
    q->resp[q->tail % ACK_FIFO] = len > 42 && roce_op_is_response(frame[42]);
    q->at[q->tail++ % ACK_FIFO] = cycle;
}

typedef struct {
    bool ok;
    unsigned acks;            /* ACKs timed */
    uint64_t *lat, *inside;   /* their latencies; the part after rx_frame took them */
    uint64_t writes_interval; /* A's first doorbell .. A's last CQE */
    uint64_t timeouts, resent; /* A's ACK timeouts; A's request packets beyond those needed */
} ack_run_t;

static ack_run_t ack_latency_run(bool load, uint32_t size, unsigned count, uint32_t big, unsigned nbig) {
    ack_run_t r = {0};
    bench_cfg_t cfg = base_cfg;
    bench_env_t *e = bench_env_new(&model, &cfg, 3, 5);
    if (!e) return r;
    static frame_fifo_t f;
    static ack_fifo_t q;
    f.head = f.tail = q.head = q.tail = 0;
    r.lat = calloc(ACK_FIFO, sizeof *r.lat);
    r.inside = calloc(ACK_FIFO, sizeof *r.inside);
    hostmem_t *ma = nic_tb_mem(e->tb, BENCH_A), *mb = nic_tb_mem(e->tb, BENCH_B);
    const uint64_t a_read_src = SRC + 0x1000000ull, b_write_dst = DST + 0x1000000ull; /* in A */
    const uint64_t b_read_dst = DST + 0x1000000ull, b_write_src = SRC + 0x1000000ull; /* in B */
    fill_pattern(ma, SRC, (size_t)size * count, cfg.seed);
    fill_pattern(ma, a_read_src, (size_t)big * nbig, cfg.seed + 1);
    fill_pattern(mb, b_write_src, (size_t)big * nbig, cfg.seed + 2);
    nic_tb_set_rx_tap(e->tb, tap_frames, &f);
    uint64_t taken = nic_tb_frames_received(e->tb, BENCH_A);
    uint64_t t0 = bench_now(e);
    if (load)
        for (unsigned k = 0; k < nbig; k++) {
            uint64_t off = (uint64_t)k * big;
            bench_post_send(e, BENCH_B, 1, NIC_WR_READ, b_read_dst + off, big, a_read_src + off);
            bench_post_send(e, BENCH_B, 2, NIC_WR_WRITE, b_write_src + off, big, b_write_dst + off);
        }
    for (unsigned k = 0; k < count; k++)
        bench_post_send(e, BENCH_A, 0, NIC_WR_WRITE, SRC + (uint64_t)k * size, size, DST + (uint64_t)k * size);
    uint64_t counted = bench_counter(e, BENCH_A, "rxd_to_completer");
    unsigned b_wants = load ? 2 * nbig : 0;
    /* until every CQE came and every response frame that reached A was counted (late ones:
     * ACKs of packets resent after a timeout) */
    for (uint64_t i = 0; i < 4000000; i++) {
        bool quiet = !wire_in_flight(nic_tb_wire(e->tb)) && f.head == f.tail && q.head == q.tail;
        if (e->cq[BENCH_A][BENCH_SCQ].cqes >= count && e->cq[BENCH_B][BENCH_SCQ].cqes >= b_wants && quiet) break;
        bench_step(e);
        uint64_t now = bench_now(e) - 1;
        /* frames A's rx_frame took whole, in arrival order; the responses among them wait
         * for the completer's count */
        for (uint64_t t = nic_tb_frames_received(e->tb, BENCH_A); taken < t && f.head != f.tail; taken++, f.head++) {
            if (!f.resp[f.head % ACK_FIFO]) continue;
            q.at[q.tail % ACK_FIFO] = f.at[f.head % ACK_FIFO];
            q.taken[q.tail++ % ACK_FIFO] = now;
        }
        for (uint64_t c = bench_counter(e, BENCH_A, "rxd_to_completer"); counted < c && q.head != q.tail; counted++, q.head++) {
            r.inside[r.acks % ACK_FIFO] = now - q.taken[q.head % ACK_FIFO];
            r.lat[r.acks++ % ACK_FIFO] = now - q.at[q.head % ACK_FIFO];
        }
    }
    bench_cq_t *qa = &e->cq[BENCH_A][BENCH_SCQ], *qb = &e->cq[BENCH_B][BENCH_SCQ];
    uint64_t got = bytes_matching(ma, SRC, mb, DST, (size_t)size * count);
    uint64_t got_r = load ? bytes_matching(ma, a_read_src, mb, b_read_dst, (size_t)big * nbig) : 0;
    uint64_t got_w = load ? bytes_matching(mb, b_write_src, ma, b_write_dst, (size_t)big * nbig) : 0;
    r.ok = qa->cqes == count && !qa->errors && qb->cqes == b_wants && !qb->errors && got == (uint64_t)size * count &&
           (!load || (got_r == (uint64_t)big * nbig && got_w == (uint64_t)big * nbig)) && f.head == f.tail &&
           q.head == q.tail && r.acks;
    if (!r.ok) {
        fprintf(stderr, "bench: ACK latency (%s): A %" PRIu64 " CQEs (%" PRIu64 " errors) of %u, B %" PRIu64 " (%" PRIu64
                        ") of %u, bytes %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", %u response frames not counted\n",
                load ? "load" : "alone", qa->cqes, qa->errors, count, qb->cqes, qb->errors, b_wants, got, got_r, got_w,
                (q.tail - q.head) + (f.tail - f.head));
        bench_dump(e, "ACK latency: run incomplete");
    }
    r.writes_interval = qa->cqes ? qa->last_cycle - t0 + 1 : 0;
    r.timeouts = bench_counter(e, BENCH_A, "comp_timeouts");
    r.resent = bench_counter(e, BENCH_A, "req_packets_sent") - (uint64_t)count * ((size + 4095) / 4096);
    bench_env_free(e);
    return r;
}

static void ack_latency(void) {
    uint32_t size = quick ? 16384 : 65536, big = quick ? 262144 : 1048576;
    unsigned count = quick ? 4 : 16, nbig = 2;
    char sec[160];
    snprintf(sec, sizeof sec, "ACK latency: A WRITEs %u x %u B to B; against it B READs and WRITEs %u x %u B each from/to A",
             count, size, nbig, big);
    ack_run_t alone = ack_latency_run(false, size, count, big, nbig);
    ack_run_t load = ack_latency_run(true, size, count, big, nbig);
    bench_check("ACK latency: every WRITE, READ and the reverse WRITEs completed, bytes right, every ACK timed",
                alone.ok && load.ok, "alone %s, under load %s (see stderr)", alone.ok ? "ok" : "FAILED",
                load.ok ? "ok" : "FAILED");
    if (alone.ok && load.ok) {
        const char *how = "ACK frame at A's port .. rx_dispatch hands it to A's completer (min / median / max)";
        bench_row(sec, "ACKs timed, alone / under load", "frames", "response frames that reached A", "%u / %u", alone.acks,
                  load.acks);
        min_med_max(sec, "ACK latency, A's WRITEs alone", how, alone.lat, alone.acks);
        min_med_max(sec, "ACK latency, under the reverse load", how, load.lat, load.acks);
        min_med_max(sec, "of it inside A, under the reverse load",
                    "A's rx_frame took the ACK's last beat .. hand-over to the completer (the rest waited at the port)",
                    load.inside, load.acks);
        bench_row(sec, "A's WRITEs: interval alone / under load", "cycles", "A's first doorbell .. A's last CQE",
                  "%" PRIu64 " / %" PRIu64, alone.writes_interval, load.writes_interval);
        bench_row(sec, "A's ACK timeouts / packets resent, under load", "events", "comp_timeouts / req_packets_sent - needed",
                  "%" PRIu64 " / %" PRIu64, load.timeouts, load.resent);
    }
    if (alone.ok && load.ok) {
        bench_finding("ACK latency: no loss, so no ACK timeout under the reverse load", !load.timeouts && !load.resent,
                      "A: %" PRIu64 " ACK timeouts, %" PRIu64 " request packets resent", load.timeouts, load.resent);
    }
    free(alone.lat);
    free(alone.inside);
    free(load.lat);
    free(load.inside);
}

/* ---- simulator speed ---------------------------------------------------------------------- */
static void speed(uint32_t size, unsigned count) {
    char sec[80];
    snprintf(sec, sizeof sec, "simulator speed: two NICs, WRITE %u x %u B, MTU 4096", count, size);
    double load[1] = {0};
    if (getloadavg(load, 1) == 1)
        bench_row(sec, "machine load when measured", "load", "1-minute load average (wall-clock figures depend on it)", "%.1f",
            load[0]);
    bulk_t c = bulk_write(NIC_TB_C, 5, size, count, 0);
    bench_row(sec, "C model: cycles simulated", "cycles", "set-up and workload, both NICs per cycle", "%" PRIu64, c.total_cycles);
    bench_row(sec, "C model: speed", "cycles/s", "cycles / wall-clock seconds", "%.0f", c.total_cycles / c.seconds);
#ifdef BENCH_RTL
    if (use_rtl) {
        bulk_t r = bulk_write(NIC_TB_RTL, 5, size, count, 0);
        bench_row(sec, "RTL (Verilator): cycles simulated", "cycles", "same run on the verilated NIC", "%" PRIu64, r.total_cycles);
        bench_row(sec, "RTL (Verilator): speed", "cycles/s", "cycles / wall-clock seconds", "%.0f", r.total_cycles / r.seconds);
        bulk_checks("RTL run", &r, count, true);
        bench_check("RTL run: same cycle counts as the C model", r.cycles == c.cycles && r.total_cycles == c.total_cycles,
              "interval C %" PRIu64 " RTL %" PRIu64 ", whole run C %" PRIu64 " RTL %" PRIu64, c.cycles, r.cycles,
              c.total_cycles, r.total_cycles);
        return;
    }
#endif
    bench_row(sec, "RTL (Verilator): speed", "-", "not run (bench built without the verilated model, or --no-rtl)", "-");
}

static int usage(const char *what, const char *arg) {
    fprintf(stderr, "bench: %s: '%s'\nusage: bench [--quick] [--seed N] [--no-rtl] "
                    "[--only goodput|pcie|bidir|small|latency|acklat|loss|speed] [--size BYTES] [--count N] [--qps N] "
                    "[--per-qp N] [--dma-read-latency N] [--dma-write-latency N] [--wire-latency N] IFACE\n",
            what, arg);
    return 2;
}

int main(int argc, char **argv) {
    const char *iface = NULL;
    bench_cfg_default(&base_cfg);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--no-rtl")) use_rtl = false;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) base_cfg.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--dma-read-latency") && i + 1 < argc)
            base_cfg.dma_read_latency = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--dma-write-latency") && i + 1 < argc)
            base_cfg.dma_write_latency = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--wire-latency") && i + 1 < argc)
            base_cfg.wire_latency = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) opt_size = (uint32_t)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) opt_count = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--per-qp") && i + 1 < argc) opt_per_qp = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--qps") && i + 1 < argc) opt_qps = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (argv[i][0] != '-' && !iface) iface = argv[i];
        else return usage("unknown or incomplete argument", argv[i]);
    }
    if (!iface) return usage("missing", "IFACE");
    static const char *groups[] = {"goodput", "pcie", "bidir", "small", "latency", "acklat", "loss", "speed"};
    bool known = !only;
    for (unsigned g = 0; g < sizeof groups / sizeof groups[0]; g++) known |= only && !strcmp(only, groups[g]);
    if (!known) return usage("--only: no such group", only);
    if ((uint64_t)(opt_size ? opt_size : 65536) * (opt_count ? opt_count : 16) > 0x2000000ull || opt_count > 64)
        return usage("--size x --count must fit the 32 MiB buffers, --count <= 64 (SQ ring)", "--size/--count");
    if (opt_qps > BENCH_MAX_QPS || (opt_per_qp && (opt_per_qp > (1u << BENCH_RING_LOG))))
        return usage("--qps <= 16 and --per-qp <= 64 (SQ ring)", "--qps/--per-qp");
    model = (nic_tb_model_t){.iface = iface, .c_step = nic,
#ifdef BENCH_RTL
                             NIC_TB_RTL_FNS(nic)
#endif
    };
    const bench_cfg_t *c = &base_cfg;
    bench_row("run", "seed", "", "wire impairments and data patterns", "%" PRIu64, c->seed);
    bench_row("run", "mode", "", "QUICK=1: small sizes", "%s", quick ? "quick" : "full");
    bench_row("run", "wire", "", "serialisation, per-frame overhead (preamble+FCS+IFG), propagation",
        "%u B/cycle, +%u B/frame, %u cycles", c->wire_bytes_per_cycle, c->wire_overhead, c->wire_latency);
    bench_row("run", "host memory (DMA)", "", "read latency, posted-write latency, reads in flight per port",
        "read %u, write %u cycles, %u reads", c->dma_read_latency, c->dma_write_latency, c->dma_outstanding);
    bench_row("run", "ACK timeout", "cycles", "QP timeout attribute 1024 << t", "%u (t=%u)", 1024u << c->ack_timeout,
        c->ack_timeout);
    bench_row("run", "line rate", "bytes/cycle", "one 64-byte beat per cycle = 128 Gb/s at 250 MHz", "64");

    unsigned big = opt_count ? opt_count : quick ? 4 : 16; /* WRITEs per bulk run */
    uint32_t big_size = opt_size ? opt_size : quick ? 16384 : 65536;
    if (want("goodput")) goodput(5, big_size, big);
    if (want("goodput")) goodput(3, big_size, big);
    if (want("pcie")) pcie(big_size, big);
    if (want("bidir")) bidir(big_size, big);
    if (want("small")) small_writes(opt_qps ? opt_qps : 16, opt_per_qp ? opt_per_qp : quick ? 4 : 32, 64);
    if (want("latency")) latency(NIC_WR_SEND, 64, quick ? 5 : 33);
    if (want("latency")) latency(NIC_WR_READ, 64, quick ? 5 : 33);
    if (want("acklat")) ack_latency();
    if (want("loss")) lossy(5, big_size, big, 0.01);
    if (want("loss")) lossy(5, big_size, big, 0.05);
    if (want("speed")) speed(big_size, quick ? 1 : 8);
    return bench_check_failures() ? 1 : 0;
}
