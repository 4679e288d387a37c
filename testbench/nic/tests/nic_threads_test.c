/* nic_threads_test — NICs stepped on several threads give bit for bit what one thread gives
 * (docs/nic-testbench.md, "Several threads").
 *
 * Four whole NICs (hls/nic/nic.net) on one learning switch; six RC QP pairs join every two of
 * them (0-1 1-2 2-3 3-0 0-2 1-3), so each NIC talks to all three others at once. Every QP
 * side posts a seeded random mix of SEND, WRITE, READ and FAA (0..3 MTUs, MTU 256/1024/4096)
 * with up to SLOTS outstanding; receives are re-posted as they complete. The same seed runs
 * twice in this process: with nic_tb_config_t.threads = 1 and with THREADS, and the test
 * checks that the two runs agree on every CQE (bytes and the cycle it was polled), every byte
 * of every NIC's host memory (data, rings, CQs), the switch's pcap byte for byte, the wire's
 * counters and the final cycle; and that the traffic itself was sound (every CQE a success,
 * every opcode on every NIC, nothing left outstanding). Run under ThreadSanitizer this is also
 * the race check of the threaded harness and of the per-instance edge queues (hls.h).
 *
 * Usage: nic_threads_test IFACE c|rtl THREADS SEED CYCLES OUTDIR
 * (OUTDIR receives wire_1.pcap and wire_THREADS.pcap.) Prints speed lines (simulated cycles
 * per wall second, per CPU second) for both runs. */
#include "../nic_tb.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/prng.h"

void nic(const void *in, void *out, void *state);
#ifdef NIC_THREADS_RTL
#include "nic_rtl.h"
#endif

#define NICS 4
#define PAIRS 6
#define SLOTS 3
#define RQ_POSTED 32             /* receive WQEs kept posted on every QP */
#define STEP_CYCLES 16u          /* the driver polls and posts every this many cycles */
#define DRAIN 600000u            /* cycles after CYCLES for everything to complete */
#define MAX_CQES 200000

static const unsigned pair_nic[PAIRS][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}, {1, 3}};

/* ---- address map of every NIC's host memory ---------------------------------------------- */
#define CQ_BASE(k, r) (0x10000ull + ((uint64_t)(k) * 2 + (r)) * 0x1000)
#define SQ_BASE(k) (0x100000ull + (uint64_t)(k) * 0x1000)
#define RQ_BASE(k) (0x200000ull + (uint64_t)(k) * 0x1000)
#define DATA_BASE 0x1000000ull
#define AREA 0x20000ull                                        /* per pair */
#define LBUF(k, s) (DATA_BASE + (k) * AREA + (uint64_t)(s) * 0x4000)          /* my ops' buffers */
#define RBUF(k, s) (DATA_BASE + (k) * AREA + 0x10000 + (uint64_t)(s) * 0x4000) /* the peer's targets */
#define RECV_BUF(k) (DATA_BASE + (k) * AREA + 0x1c000)        /* where SENDs land */
#define DATA_LEN ((uint64_t)PAIRS * AREA)
#define PD 1
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)
#define MR_KEY 0x0130u
#define CQ_LOG 7
#define RING_LOG 6

static uint64_t mac_of(unsigned n) { return 0x020000000b00ull | (n + 1); }
static uint32_t ip_of(unsigned n) { return 0x0a000101u + n; }
static uint32_t qpn_of(unsigned k, unsigned side) { return 0x100u * (side + 1) + 16u * k + k + 1; }
static uint32_t scq_of(unsigned k) { return 2 * k + 1; }
static uint32_t rcq_of(unsigned k) { return 2 * k + 2; }
static unsigned pmtu_of(unsigned k) { return (unsigned[]){1, 3, 5}[k % 3]; }

typedef struct {
    unsigned nic, cqn;
    uint64_t cycle;
    nic_cqe_t cqe;
} cqe_rec_t;

/* Everything a run produced that the other run must reproduce. */
typedef struct {
    cqe_rec_t *cqes;
    unsigned ncqes;
    uint8_t *mem[NICS];          /* CQs, rings and data, concatenated */
    size_t mem_len;
    uint64_t cycles;
    wire_stats_t wire;
    uint64_t ops[NICS][7];       /* completed, per NIC and opcode */
    unsigned bad_status, outstanding;
    double wall, cpu;
} result_t;

typedef struct {
    nic_tb_t *tb;
    prng_t rng;
    unsigned busy[PAIRS][2];     /* outstanding send WQEs */
    uint8_t slot_op[PAIRS][2][64]; /* opcode of each SQ entry, by sq index % 64 */
    unsigned sq_done[PAIRS][2];
    result_t *r;
} run_t;

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

static double seconds(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int setup(run_t *u) {
    nic_tb_t *tb = u->tb;
    int r;
    for (unsigned n = 0; n < NICS; n++) {
        if ((r = nic_tb_set_fn(tb, n, 0, mac_of(n), ip_of(n)))) return r;
        if ((r = nic_tb_reg_mr(tb, n, 0, MR_KEY, DATA_BASE, DATA_LEN, PD, ACC))) return r;
        hostmem_fill(nic_tb_mem(tb, n), DATA_BASE, 0x5a, DATA_LEN);
    }
    for (unsigned k = 0; k < PAIRS; k++)
        for (unsigned side = 0; side < 2; side++) {
            unsigned n = pair_nic[k][side], p = pair_nic[k][1 - side];
            if ((r = nic_tb_create_cq(tb, n, 0, scq_of(k), CQ_BASE(k, 0), CQ_LOG))) return r;
            if ((r = nic_tb_create_cq(tb, n, 0, rcq_of(k), CQ_BASE(k, 1), CQ_LOG))) return r;
            nic_tb_qp_t q = {.qpn = qpn_of(k, side), .sq_base = SQ_BASE(k), .rq_base = RQ_BASE(k),
                             .sq_log = RING_LOG, .rq_log = RING_LOG, .send_cqn = scq_of(k),
                             .recv_cqn = rcq_of(k), .pd = PD, .access = ACC};
            if ((r = nic_tb_create_qp(tb, n, 0, &q))) return r;
            if ((r = nic_tb_modify_qp_rts(tb, n, 0, qpn_of(k, side), qpn_of(k, 1 - side), mac_of(p), ip_of(p),
                                          100u * k + side, 100u * k + 1 - side, pmtu_of(k))))
                return r;
            for (unsigned i = 0; i < RQ_POSTED; i++) {
                nic_rq_wqe_t w = {.wr_id = i, .addr = RECV_BUF(k), .length = 0x4000, .lkey = MR_KEY};
                if (nic_tb_post_recv(tb, n, 0, qpn_of(k, side), &w) < 0) return -2;
            }
        }
    return 0;
}

static void post(run_t *u, unsigned k, unsigned side) {
    static const uint8_t ops[4] = {NIC_WR_SEND, NIC_WR_WRITE, NIC_WR_READ, NIC_WR_FAA};
    unsigned n = pair_nic[k][side], s = u->busy[k][side];
    uint8_t op = ops[prng_below(&u->rng, 4)];
    uint32_t mtu = 128u << pmtu_of(k);
    uint32_t len = op == NIC_WR_FAA ? 8 : (uint32_t)prng_below(&u->rng, 3 * mtu + 1);
    /* the bytes a SEND or WRITE carries: new each time, so a stale byte would show */
    uint8_t buf[0x4000];
    prng_fill(&u->rng, buf, len);
    hostmem_write(nic_tb_mem(u->tb, n), LBUF(k, s), buf, len);
    nic_sq_wqe_t w = {.wr_id = ((uint64_t)k << 32) | u->sq_done[k][side], .opcode = op, .flags = NIC_WQE_SIGNALED,
                      .local_addr = LBUF(k, s), .length = len, .lkey = MR_KEY, .rkey = MR_KEY,
                      .remote_addr = op == NIC_WR_FAA ? RBUF(k, 0) + 8 * side : RBUF(k, s),
                      .swap_add = prng_next(&u->rng)};
    u->slot_op[k][side][(u->sq_done[k][side] + u->busy[k][side]) % 64] = op;
    u->busy[k][side]++;
    nic_tb_post_send(u->tb, n, 0, qpn_of(k, side), &w);
}

static void record(run_t *u, unsigned n, unsigned cqn, const nic_cqe_t *e) {
    result_t *r = u->r;
    if (r->ncqes < MAX_CQES) r->cqes[r->ncqes++] = (cqe_rec_t){n, cqn, nic_tb_now(u->tb), *e};
    r->bad_status += e->status != NIC_WC_SUCCESS;
}

static void poll(run_t *u) {
    nic_cqe_t e;
    for (unsigned k = 0; k < PAIRS; k++)
        for (unsigned side = 0; side < 2; side++) {
            unsigned n = pair_nic[k][side];
            while (nic_tb_poll_cq(u->tb, n, 0, rcq_of(k), &e) == 1) {
                record(u, n, rcq_of(k), &e);
                nic_rq_wqe_t w = {.wr_id = e.wr_id + RQ_POSTED, .addr = RECV_BUF(k), .length = 0x4000, .lkey = MR_KEY};
                nic_tb_post_recv(u->tb, n, 0, qpn_of(k, side), &w);
            }
            while (nic_tb_poll_cq(u->tb, n, 0, scq_of(k), &e) == 1) {
                record(u, n, scq_of(k), &e);
                if (!u->busy[k][side]) { u->r->bad_status++; continue; } /* nothing was posted */
                u->r->ops[n][u->slot_op[k][side][u->sq_done[k][side] % 64]]++;
                u->sq_done[k][side]++;
                u->busy[k][side]--;
            }
        }
}

static unsigned outstanding(const run_t *u) {
    unsigned c = 0;
    for (unsigned k = 0; k < PAIRS; k++) c += u->busy[k][0] + u->busy[k][1];
    return c;
}

/* One whole run; false (and why) when the harness or the set-up failed. */
static bool run(const nic_tb_model_t *m, nic_tb_mode_t mode, unsigned threads, uint64_t seed, uint64_t cycles,
                const char *pcap, result_t *r, char *why, size_t whylen) {
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.nics = NICS;
    c.mode = mode;
    c.use_switch = true;
    c.threads = threads;
    c.seed = seed;
    c.wire.seed = seed;
    c.wire.latency_cycles = 20;
    c.wire.bytes_per_cycle = 25;
    c.wire.pcap_sent = pcap;
    run_t u = {.r = r};
    memset(r, 0, sizeof *r);
    r->cqes = calloc(MAX_CQES, sizeof *r->cqes);
    prng_seed_stream(&u.rng, seed, 0x746872);
    if (!(u.tb = nic_tb_new(m, &c))) { snprintf(why, whylen, "nic_tb_new failed (see stderr)"); return false; }
    double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    int s = setup(&u);
    if (s) {
        snprintf(why, whylen, "set-up: status %d at cycle %" PRIu64, s, nic_tb_now(u.tb));
        nic_tb_free(u.tb);
        return false;
    }
    uint64_t end = nic_tb_now(u.tb) + cycles;
    while (nic_tb_now(u.tb) < end || (outstanding(&u) && nic_tb_now(u.tb) < end + DRAIN)) {
        nic_tb_run(u.tb, STEP_CYCLES);
        poll(&u);
        for (unsigned k = 0; k < PAIRS && nic_tb_now(u.tb) < end; k++)
            for (unsigned side = 0; side < 2; side++)
                if (u.busy[k][side] < SLOTS && prng_below(&u.rng, 4) == 0) post(&u, k, side);
    }
    nic_tb_run(u.tb, 1000);
    poll(&u);
    r->wall = seconds(CLOCK_MONOTONIC) - w0;
    r->cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    r->outstanding = outstanding(&u);
    r->cycles = nic_tb_now(u.tb);
    r->wire = *wire_stats(nic_tb_wire(u.tb));
    static const struct { uint64_t base, len; } regions[] = {
        {CQ_BASE(0, 0), 2 * PAIRS * 0x1000}, {SQ_BASE(0), PAIRS * 0x1000}, {RQ_BASE(0), PAIRS * 0x1000},
        {DATA_BASE, DATA_LEN}};
    for (unsigned i = 0; i < 4; i++) r->mem_len += regions[i].len;
    for (unsigned n = 0; n < NICS; n++) {
        r->mem[n] = malloc(r->mem_len);
        size_t at = 0;
        for (unsigned i = 0; i < 4; i++) {
            hostmem_read(nic_tb_mem(u.tb, n), regions[i].base, r->mem[n] + at, regions[i].len);
            at += regions[i].len;
        }
    }
    nic_tb_free(u.tb); /* closes the pcap */
    return true;
}

static void result_free(result_t *r) {
    free(r->cqes);
    for (unsigned n = 0; n < NICS; n++) free(r->mem[n]);
}

/* The first difference of two files, or -1 when equal; -2 when one cannot be read. */
static long file_diff(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    long at = -2;
    if (fa && fb) {
        int ca, cb;
        for (at = 0;; at++) {
            ca = getc(fa);
            cb = getc(fb);
            if (ca != cb) break;
            if (ca == EOF) { at = -1; break; }
        }
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return at;
}

static void compare(const result_t *a, const result_t *b, unsigned threads, const char *pa, const char *pb,
                    const char *tag) {
    char name[256], why[512] = "";
    unsigned i = 0;
    while (i < a->ncqes && i < b->ncqes && !memcmp(&a->cqes[i], &b->cqes[i], sizeof a->cqes[i])) i++;
    if (i < a->ncqes || i < b->ncqes)
        snprintf(why, sizeof why, "%u and %u CQEs; first difference at CQE %u (nic %u cq %u cycle %" PRIu64 " vs nic %u cq %u cycle %" PRIu64 ")",
                 a->ncqes, b->ncqes, i, i < a->ncqes ? a->cqes[i].nic : 99, i < a->ncqes ? a->cqes[i].cqn : 0,
                 i < a->ncqes ? a->cqes[i].cycle : 0, i < b->ncqes ? b->cqes[i].nic : 99,
                 i < b->ncqes ? b->cqes[i].cqn : 0, i < b->ncqes ? b->cqes[i].cycle : 0);
    snprintf(name, sizeof name, "%s: 1 thread and %u threads: every CQE equal, polled in the same cycle (%u CQEs)", tag,
             threads, a->ncqes);
    check(!why[0], name, why);
    why[0] = 0;
    for (unsigned n = 0; n < NICS && !why[0]; n++)
        for (size_t k = 0; k < a->mem_len; k++)
            if (a->mem[n][k] != b->mem[n][k]) {
                snprintf(why, sizeof why, "NIC %u: byte %zu of the dumped regions: 0x%02x vs 0x%02x", n, k, a->mem[n][k],
                         b->mem[n][k]);
                break;
            }
    snprintf(name, sizeof name, "%s: 1 thread and %u threads: every byte of every NIC's host memory equal (%zu bytes x %u)",
             tag, threads, a->mem_len, NICS);
    check(!why[0], name, why);
    long d = file_diff(pa, pb);
    snprintf(why, sizeof why, d == -2 ? "cannot read %s or %s" : "%s and %s differ at byte %ld", pa, pb, d);
    snprintf(name, sizeof name, "%s: 1 thread and %u threads: the switch's pcap is byte for byte equal (%" PRIu64 " frames)",
             tag, threads, a->wire.sent);
    check(d == -1, name, why);
    snprintf(why, sizeof why, "cycles %" PRIu64 "/%" PRIu64 ", frames %" PRIu64 "/%" PRIu64 ", bytes %" PRIu64 "/%" PRIu64,
             a->cycles, b->cycles, a->wire.sent, b->wire.sent, a->wire.delivered_bytes, b->wire.delivered_bytes);
    snprintf(name, sizeof name, "%s: 1 thread and %u threads: same final cycle and wire counters", tag, threads);
    check(a->cycles == b->cycles && !memcmp(&a->wire, &b->wire, sizeof a->wire), name, why);
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: nic_threads_test IFACE c|rtl THREADS SEED CYCLES OUTDIR\n");
        return 2;
    }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic
#ifdef NIC_THREADS_RTL
                        , NIC_TB_RTL_FNS(nic)
#endif
    };
    nic_tb_mode_t mode = !strcmp(argv[2], "rtl") ? NIC_TB_RTL : NIC_TB_C;
    if (strcmp(argv[2], "c") && strcmp(argv[2], "rtl")) { fprintf(stderr, "nic_threads_test: mode '%s': c or rtl\n", argv[2]); return 2; }
    unsigned threads = (unsigned)strtoul(argv[3], NULL, 0);
    uint64_t seed = strtoull(argv[4], NULL, 0), cycles = strtoull(argv[5], NULL, 0);
    if (threads < 2 || threads > NICS || !cycles) { fprintf(stderr, "nic_threads_test: THREADS 2..%d, CYCLES > 0\n", NICS); return 2; }
    char tag[64], pa[512], pb[512], why[256], name[256];
    snprintf(tag, sizeof tag, "threads %s seed %" PRIu64, argv[2], seed);
    snprintf(pa, sizeof pa, "%s/wire_1.pcap", argv[6]);
    snprintf(pb, sizeof pb, "%s/wire_%u.pcap", argv[6], threads);
    result_t one, many;
    if (!run(&m, mode, 1, seed, cycles, pa, &one, why, sizeof why)) { check(false, tag, why); return 1; }
    if (!run(&m, mode, threads, seed, cycles, pb, &many, why, sizeof why)) { check(false, tag, why); return 1; }

    bool kinds = true;
    for (unsigned n = 0; n < NICS; n++)
        kinds &= one.ops[n][NIC_WR_SEND] && one.ops[n][NIC_WR_WRITE] && one.ops[n][NIC_WR_READ] && one.ops[n][NIC_WR_FAA];
    snprintf(why, sizeof why, "%u CQEs not a success, %u operations outstanding, every opcode on every NIC: %s",
             one.bad_status, one.outstanding, kinds ? "yes" : "no");
    snprintf(name, sizeof name, "%s: %u NICs on a switch, 6 QP pairs: every operation completed with success, "
             "SEND/WRITE/READ/FAA from every NIC (%u CQEs, %" PRIu64 " frames)", tag, NICS, one.ncqes, one.wire.sent);
    check(!one.bad_status && !one.outstanding && kinds && one.ncqes < MAX_CQES, name, why);
    compare(&one, &many, threads, pa, pb, tag);
    printf("info %s: speed 1 thread %.0f cycles/s wall (%.0f per CPU s); %u threads %.0f cycles/s wall (%.0f per CPU s); "
           "%" PRIu64 " cycles of %u NICs\n", tag, one.cycles / one.wall, one.cycles / one.cpu, threads,
           many.cycles / many.wall, many.cycles / many.cpu, one.cycles, NICS);
    result_free(&one);
    result_free(&many);
    return failures ? 1 : 0;
}
