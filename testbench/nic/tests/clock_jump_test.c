/* clock_jump_test.c — the idle jump (testbench/nic/clock_jump.h) is exact and it is fast.
 *
 * Two NICs on a wire, one RC QP each way, the ACK timeout exponent given (14 by default: what
 * rdma-core's programs use, 16.7 M cycles). The host side is a pure function of what it reads
 * in host memory, run after every cycle: A sends a SEND of 100 bytes whose only frame the wire
 * drops (recovered by A's ACK timeout), then a WRITE of 3000 bytes whose ACK the wire drops
 * when LOSSES is 2 (A times out again and resends; B answers the duplicate). The same run is made twice, once
 * ticking every cycle and once jumping whenever both NICs are idle, and must agree exactly:
 * the wire's pcaps byte for byte (timestamps are cycles), every CQE and the cycle it was
 * taken at, the memory written, the end cycle. Then: the jumping run ticked a small part of
 * the cycles (counted, no wall clock), and each timeout was reached by a jump.
 *
 * Usage: clock_jump_test IFACE c|rtl|lockstep OUTDIR [TIMEOUT_EXP [LOSSES]]   (14, 2)
 * rtl and lockstep need a build with -DCLOCK_JUMP_RTL and the verilated model. */
#include "../clock_jump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nic(const void *in, void *out, void *state);
#ifdef CLOCK_JUMP_RTL
#include "nic_rtl.h"
#endif

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

enum { A = 0, B = 1 };
static const nic_fn_t FN[2] = {0, 1};
static const uint64_t MAC[2] = {0x020000000a01ull, 0x020000000b02ull};
static const uint32_t IP[2] = {0x0a000001, 0x0a000002};
static const uint32_t QPN[2] = {0x11, 0x22};
static const uint32_t PSN[2] = {100, 5000};
#define SCQ 1
#define RCQ 2
#define CQ_LOG 6
#define CQ_BASE(cqn) ((cqn) == SCQ ? 0x10000ull : 0x11000ull)
#define SQ_BASE 0x20000ull
#define RQ_BASE 0x30000ull
#define MR_BASE 0x100000ull
#define MR_LEN 0x10000ull
#define MR_KEY 0x0105u
#define PD 7
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)
#define BATCH 16      /* cycles between idle checks, as testbench/device's idle batches */
#define MAX_CQES 8

typedef struct {
    uint64_t cycle;
    unsigned nic;
    nic_cqe_t e;
} cqe_log_t;

/* One run's host side: what it has done and seen. */
typedef struct {
    nic_tb_t *tb;
    unsigned phase;         /* 0: SEND posted; 1: WRITE posted; 2: done */
    unsigned losses;        /* 2: the WRITE's ACK is lost too */
    uint32_t ci[2][3];
    cqe_log_t log[MAX_CQES];
    unsigned nlog;
    uint64_t end;           /* cycle the last CQE was taken */
} host_t;

static bool take_cqe(host_t *h, unsigned n, uint32_t cqn) {
    uint32_t ci = h->ci[n][cqn];
    nic_cqe_t e;
    hostmem_read(nic_tb_mem(h->tb, n), CQ_BASE(cqn) + 32u * (ci & ((1u << CQ_LOG) - 1)), &e, sizeof e);
    if (!!(e.owner & NIC_CQE_OWNER) != !((ci >> CQ_LOG) & 1)) return false;
    if (nic_tb_poll_cq(h->tb, n, FN[n], cqn, &e) != 1) return false;
    h->ci[n][cqn]++;
    if (h->nlog < MAX_CQES) h->log[h->nlog++] = (cqe_log_t){nic_tb_now(h->tb), n, e};
    return true;
}

static void post_write(host_t *h) {
    uint8_t buf[3000];
    for (unsigned i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 7 + 3);
    hostmem_write(nic_tb_mem(h->tb, A), MR_BASE + 0x1000, buf, sizeof buf);
    nic_sq_wqe_t w = {.wr_id = 0xa002, .opcode = NIC_WR_WRITE, .flags = NIC_WQE_SIGNALED,
                      .local_addr = MR_BASE + 0x1000, .length = sizeof buf, .lkey = MR_KEY,
                      .remote_addr = MR_BASE + 0x4000, .rkey = MR_KEY};
    nic_tb_post_send(h->tb, A, FN[A], QPN[A], &w);
}

/* After every cycle: take CQEs, and post the WRITE once the SEND completed. The lost frames
 * are wire pause windows set when each message is posted, from the cycle of posting on. */
static void host_after_cycle(host_t *h) {
    bool a = take_cqe(h, A, SCQ);
    bool b = take_cqe(h, B, RCQ);
    if (a && h->phase == 0) {
        h->phase = 1;
        post_write(h);
        /* the WRITE's ACK (B -> A) is lost: A's port drops what arrives in the next 5000 cycles */
        if (h->losses == 2)
            wire_pause(nic_tb_wire(h->tb), nic_tb_now(h->tb), nic_tb_now(h->tb) + 5000, WIRE_PAUSE_DROP, 1u << A);
    } else if (a && h->phase == 1) {
        h->phase = 2;
    }
    if (a || b) h->end = nic_tb_now(h->tb);
}

static bool tick(void *arg) {
    host_t *h = arg;
    nic_tb_step(h->tb);
    host_after_cycle(h);
    return true;
}

typedef struct {
    uint64_t cycles, skipped, jumps, timeouts;
    bool setup_ok, done;
    uint8_t written[3000];
    host_t h;
} run_t;

static void run(const nic_tb_model_t *m, nic_tb_mode_t mode, unsigned exp, unsigned losses, bool jump, const char *pcap,
                run_t *r) {
    memset(r, 0, sizeof *r);
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = mode;
    c.wire.latency_cycles = 20;
    c.wire.bytes_per_cycle = 25;
    c.wire.pcap_sent = pcap;
    c.qp_timeout = exp;
    nic_tb_t *tb = nic_tb_new(m, &c);
    if (!tb) return;
    host_t *h = &r->h;
    h->tb = tb;
    h->losses = losses;
    bool ok = true;
    for (unsigned n = 0; n < 2 && ok; n++) {
        nic_tb_qp_t q = {.qpn = QPN[n], .sq_base = SQ_BASE, .rq_base = RQ_BASE, .sq_log = 6, .rq_log = 6,
                         .send_cqn = SCQ, .recv_cqn = RCQ, .pd = PD, .access = ACC};
        ok = nic_tb_set_fn(tb, n, FN[n], MAC[n], IP[n]) == NIC_CMD_OK &&
             nic_tb_create_cq(tb, n, FN[n], SCQ, CQ_BASE(SCQ), CQ_LOG) == NIC_CMD_OK &&
             nic_tb_create_cq(tb, n, FN[n], RCQ, CQ_BASE(RCQ), CQ_LOG) == NIC_CMD_OK &&
             nic_tb_create_qp(tb, n, FN[n], &q) == NIC_CMD_OK &&
             nic_tb_reg_mr(tb, n, FN[n], MR_KEY, MR_BASE, MR_LEN, PD, ACC) == NIC_CMD_OK &&
             nic_tb_modify_qp_rts(tb, n, FN[n], QPN[n], QPN[1 - n], MAC[1 - n], IP[1 - n], PSN[n], PSN[1 - n], 3) ==
                 NIC_CMD_OK;
    }
    r->setup_ok = ok;
    clock_jump_t *j = NULL;
    if (ok && jump) {
        char err[200];
        if (!(j = clock_jump_new(tb, err, sizeof err))) {
            check(false, "clock jump: set-up", err);
            ok = false;
        }
    }
    if (ok) {
        /* the SEND: B's port drops what arrives in the next 5000 cycles (its only frame) */
        nic_rq_wqe_t rw = {.wr_id = 0xb001, .addr = MR_BASE + 0x8000, .length = 4096, .lkey = MR_KEY};
        nic_tb_post_recv(tb, B, FN[B], QPN[B], &rw);
        hostmem_fill(nic_tb_mem(tb, A), MR_BASE, 0x5a, 100);
        nic_sq_wqe_t sw = {.wr_id = 0xa001, .opcode = NIC_WR_SEND, .flags = NIC_WQE_SIGNALED,
                           .local_addr = MR_BASE, .length = 100, .lkey = MR_KEY};
        nic_tb_post_send(tb, A, FN[A], QPN[A], &sw);
        wire_pause(nic_tb_wire(tb), nic_tb_now(tb), nic_tb_now(tb) + 5000, WIRE_PAUSE_DROP, 1u << B);
    }
    /* bounded: three timeouts' worth past the start, then the run fails */
    uint64_t limit = nic_tb_now(tb) + 3 * (1024ull << exp) + 1000000;
#define FINISHED (nic_tb_now(tb) >= limit || (h->phase == 2 && nic_tb_now(tb) >= h->end + 2000))
    while (ok && !FINISHED) {
        uint64_t t0 = nic_tb_transfers(tb, A) + nic_tb_transfers(tb, B);
        for (unsigned i = 0; i < BATCH && !FINISHED; i++) tick(h);
        /* a jump never passes the loop's own next stop: the end, or the bound */
        uint64_t stop = h->phase == 2 && h->end + 2000 < limit ? h->end + 2000 : limit;
        if (j && nic_tb_transfers(tb, A) + nic_tb_transfers(tb, B) == t0 && nic_tb_now(tb) < stop)
            clock_jump_try(j, stop - nic_tb_now(tb), tick, h);
    }
    r->done = h->phase == 2;
    r->cycles = nic_tb_now(tb);
    r->timeouts = nic_tb_out(tb, A, "comp_timeouts");
    if (j) {
        clock_jump_stats_t s = clock_jump_stats(j);
        r->skipped = s.skipped;
        r->jumps = s.jumps;
    }
    hostmem_read(nic_tb_mem(tb, B), MR_BASE + 0x4000, r->written, sizeof r->written);
    if (mode == NIC_TB_LOCKSTEP && nic_tb_mismatch(tb))
        check(false, jump ? "lock-step, jumping run: C = RTL" : "lock-step, ticking run: C = RTL", nic_tb_mismatch(tb));
    clock_jump_free(j);
    nic_tb_free(tb);
}

static bool same_file(const char *a, const char *b, char *why, size_t n) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    bool same = fa && fb;
    long off = 0;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y) {
            snprintf(why, n, "%s and %s differ at byte %ld", a, b, off);
            same = false;
        }
        if (x == EOF || y == EOF) break;
        off++;
    }
    if (!fa || !fb) snprintf(why, n, "cannot open %s or %s", a, b);
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: clock_jump_test IFACE c|rtl|lockstep OUTDIR [TIMEOUT_EXP [LOSSES]]\n");
        return 2;
    }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic};
    nic_tb_mode_t mode = NIC_TB_C;
    if (strcmp(argv[2], "c")) {
#ifdef CLOCK_JUMP_RTL
        m = (nic_tb_model_t){.iface = argv[1], .c_step = nic, NIC_TB_RTL_FNS(nic)};
        mode = !strcmp(argv[2], "rtl") ? NIC_TB_RTL : NIC_TB_LOCKSTEP;
#else
        fprintf(stderr, "clock_jump_test: mode %s needs a build with -DCLOCK_JUMP_RTL\n", argv[2]);
        return 2;
#endif
    }
    unsigned exp = argc > 4 ? (unsigned)atoi(argv[4]) : 14, losses = argc > 5 ? (unsigned)atoi(argv[5]) : 2;
    if (exp > 31 || losses < 1 || losses > 2) {
        fprintf(stderr, "clock_jump_test: TIMEOUT_EXP %u (0..31), LOSSES %u (1 or 2)\n", exp, losses);
        return 2;
    }
    char pt[512], pj[512], why[1024], name[128];
    snprintf(pt, sizeof pt, "%s/ticked_%s_%u.pcap", argv[3], argv[2], exp);
    snprintf(pj, sizeof pj, "%s/jumped_%s_%u.pcap", argv[3], argv[2], exp);
    static run_t t, j;
    run(&m, mode, exp, losses, false, pt, &t);
    run(&m, mode, exp, losses, true, pj, &j);
    char tag[64];
    snprintf(tag, sizeof tag, "%s exp %u", argv[2], exp);

    snprintf(name, sizeof name, "clock jump %s: both runs complete (%u lost frame(s), as many timeouts)", tag, losses);
    snprintf(why, sizeof why, "ticked: set-up %d done %d timeouts %" PRIu64 "; jumped: set-up %d done %d timeouts %" PRIu64,
             t.setup_ok, t.done, t.timeouts, j.setup_ok, j.done, j.timeouts);
    check(t.done && j.done && t.timeouts == losses && j.timeouts == losses, name, why);

    snprintf(name, sizeof name, "clock jump %s: the wire's pcaps are identical, timestamps included", tag);
    check(same_file(pt, pj, why, sizeof why), name, why);

    snprintf(name, sizeof name, "clock jump %s: the same CQEs at the same cycles, the same end cycle", tag);
    bool same = t.h.nlog == j.h.nlog && t.cycles == j.cycles;
    snprintf(why, sizeof why, "ticked %u CQEs, end cycle %" PRIu64 "; jumped %u CQEs, end cycle %" PRIu64, t.h.nlog,
             t.cycles, j.h.nlog, j.cycles);
    for (unsigned i = 0; same && i < t.h.nlog; i++)
        if (memcmp(&t.h.log[i], &j.h.log[i], sizeof t.h.log[i])) {
            same = false;
            snprintf(why, sizeof why, "CQE %u: ticked nic %u wr 0x%" PRIx64 " at cycle %" PRIu64 ", jumped nic %u wr 0x%" PRIx64
                     " at cycle %" PRIu64, i, t.h.log[i].nic, t.h.log[i].e.wr_id, t.h.log[i].cycle, j.h.log[i].nic,
                     j.h.log[i].e.wr_id, j.h.log[i].cycle);
        }
    check(same && t.h.nlog == 3, name, why);

    snprintf(name, sizeof name, "clock jump %s: the WRITE's bytes landed alike", tag);
    check(!memcmp(t.written, j.written, sizeof t.written) && t.written[1] == 10, name, "B's memory differs between the runs");

    /* fast: most cycles were jumped over, not ticked; both timeouts were reached by a jump */
    uint64_t ticked = j.cycles - j.skipped;
    snprintf(name, sizeof name, "clock jump %s: the jumping run ticked under 2%% of its cycles", tag);
    snprintf(why, sizeof why, "%" PRIu64 " cycles, %" PRIu64 " jumped over in %" PRIu64 " jumps, %" PRIu64 " ticked",
             j.cycles, j.skipped, j.jumps, ticked);
    check(j.jumps >= losses && ticked * 50 < j.cycles, name, why);
    printf("INFO clock jump %s: %" PRIu64 " cycles: ticked run %" PRIu64 " ticks; jumping run %" PRIu64 " ticks + %" PRIu64
           " cycles in %" PRIu64 " jumps\n", tag, t.cycles, t.cycles, ticked, j.skipped, j.jumps);
    return failures ? 1 : 0;
}
