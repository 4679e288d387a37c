/* nic_events_test — CQ arm and completion events through the whole NIC (hls/nic/nic.net, C
 * model, testbench/nic harness): the path ibv_req_notify_cq / ibv_get_cq_event use.
 *
 * Two NICs A and B on a wire, one RC QP each, RTS. The host side arms a CQ with the CQ
 * doorbell's arm field and reads ctrl_async, as a driver does through NIC_BAR_CQ_DB and
 * NIC_BAR_EVENT. Checks, each against exact event counts on both NICs:
 *   1. B's recv CQ armed SOLICITED: a SEND without SE completes and raises no event;
 *   2. a SEND with IBV_SEND_SOLICITED (BTH SE) raises exactly one NIC_EV_CQ_COMP for B's recv
 *      CQ row, and its CQE is in host memory when the event is seen;
 *   3. the arm is spent: the next solicited SEND raises nothing;
 *   4. A's send CQ armed NEXT: the WRITE's send CQE raises one event for A's send CQ row;
 *   5. an arm never fires on a CQE that was already in the ring: B arms NEXT with an unpolled
 *      CQE waiting; nothing; the next CQE fires it;
 *   6. RDMA WRITE with immediate and SE fires a SOLICITED arm (the responder's second CQE path).
 * Usage: nic_events_test IFACE */
#include "../../../testbench/nic/nic_tb.h"
#include "nic_bar.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void nic(const void *in, void *out, void *state);

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

enum { A = 0, B = 1 };
static const nic_fn_t FN[2] = {0, 1};
static const uint64_t MAC[2] = {0x020000000a01ull, 0x020000000b02ull};
static const uint32_t IP[2] = {0x0a000001, 0x0a000002};
static const uint32_t QPN[2] = {0x13, 0x24};
static const uint32_t SQ_PSN[2] = {0xfffff0, 77};       /* A's PSNs wrap during the test */
#define SCQ 5
#define RCQ 6
#define CQ_LOG 4
#define SCQ_BASE 0x10000ull
#define RCQ_BASE 0x11000ull
#define SQ_BASE 0x20000ull
#define RQ_BASE 0x30000ull
#define MR_BASE 0x100000ull
#define MR_LEN 0x10000ull
#define MR_KEY 0x0207u
#define PD 3
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ)
#define WAIT 60000
#define QUIET 3000                                       /* cycles in which no event may come */

static nic_tb_t *tb;
static char why[600];
static uint32_t ci[2][16];                               /* consumer index per (nic, cqn) */
static unsigned events[2];                               /* events popped per NIC */
static nic_event_t last_ev[2];

static nic_cq_t cq_row(unsigned n, uint32_t cqn) { return (nic_cq_t)(FN[n] * NIC_CQ_PER_FN + cqn % NIC_CQ_PER_FN); }
static uint64_t cq_base(uint32_t cqn) { return cqn == SCQ ? SCQ_BASE : RCQ_BASE; }

/* Does the entry at the consumer index hold a new CQE (owner bit = pass parity)? */
static bool cqe_waiting(unsigned n, uint32_t cqn) {
    nic_cqe_t e;
    uint32_t i = ci[n][cqn];
    hostmem_read(nic_tb_mem(tb, n), cq_base(cqn) + 32u * (i & ((1u << CQ_LOG) - 1)), &e, sizeof e);
    return !!(e.owner & NIC_CQE_OWNER) == !((i >> CQ_LOG) & 1);
}
typedef struct { unsigned n; uint32_t cqn; } cq_ref_t;
static bool cond_cqe(nic_tb_t *t, void *arg) { (void)t; const cq_ref_t *r = arg; return cqe_waiting(r->n, r->cqn); }
static bool cond_event(nic_tb_t *t, void *arg) { return nic_tb_pending(t, *(unsigned *)arg, "ctrl_async") > 0; }

/* Wait for the next CQE of (n, cqn) and consume it (the harness rings the doorbell, no arm). */
static bool take_cqe(unsigned n, uint32_t cqn, nic_cqe_t *e) {
    cq_ref_t r = {n, cqn};
    if (!nic_tb_run_until(tb, cond_cqe, &r, WAIT)) return false;
    if (nic_tb_poll_cq(tb, n, FN[n], cqn, e) != 1) return false;
    ci[n][cqn]++;
    return true;
}
/* The CQ doorbell with an arm, as ibv_req_notify_cq writes NIC_BAR_CQ_DB. */
static void arm(unsigned n, uint32_t cqn, unsigned how) {
    nic_db_t d = {.fn = FN[n], .num = (hls_u24)cqn, .index = (uint16_t)ci[n][cqn], .arm = (hls_uint(2))how};
    nic_tb_push(tb, n, "cqw_cq_db", &d, sizeof d);
}
/* Pop every event that came; returns how many. */
static unsigned drain_events(unsigned n) {
    unsigned k = 0;
    nic_event_t e;
    while (nic_tb_pop(tb, n, "ctrl_async", &e, sizeof e) == 1) { last_ev[n] = e; events[n]++; k++; }
    return k;
}
/* Wait for one event on n; false after WAIT cycles. */
static bool wait_event(unsigned n) { return nic_tb_run_until(tb, cond_event, &n, WAIT); }

static int post_send(unsigned n, uint64_t wr_id, uint8_t opcode, uint8_t flags, uint64_t laddr, uint32_t len,
                     uint64_t raddr, uint32_t imm) {
    nic_sq_wqe_t w = {.wr_id = wr_id, .opcode = opcode, .flags = flags, .imm = imm, .local_addr = laddr,
                      .length = len, .lkey = MR_KEY, .remote_addr = raddr, .rkey = MR_KEY};
    return nic_tb_post_send(tb, n, FN[n], QPN[n], &w);
}
static int post_recv(unsigned n, uint64_t wr_id, uint64_t addr, uint32_t len) {
    nic_rq_wqe_t w = {.wr_id = wr_id, .addr = addr, .length = len, .lkey = MR_KEY};
    return nic_tb_post_recv(tb, n, FN[n], QPN[n], &w);
}
static bool cqe_ok(const nic_cqe_t *e, uint64_t wr_id, uint8_t opc) {
    return e->wr_id == wr_id && e->opcode == opc && e->status == NIC_WC_SUCCESS;
}

/* A SEND A -> B of 64 bytes with the given WQE flags: both CQEs taken, B's recv CQE checked. */
static bool send_a_to_b(uint64_t id, uint8_t flags) {
    nic_cqe_t e;
    post_recv(B, 0xb000 + id, MR_BASE + 0x8000, 256);
    post_send(A, 0xa000 + id, NIC_WR_SEND, NIC_WQE_SIGNALED | flags, MR_BASE, 64, 0, 0);
    bool ok = take_cqe(A, SCQ, &e) && cqe_ok(&e, 0xa000 + id, NIC_WC_SEND);
    return take_cqe(B, RCQ, &e) && cqe_ok(&e, 0xb000 + id, NIC_WC_RECV) && ok;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: nic_events_test IFACE\n"); return 2; }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic};
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = NIC_TB_C;
    c.wire.latency_cycles = 20;
    c.wire.bytes_per_cycle = 25;
    c.backpressure_pct = 10;       /* ctrl_async and the other drained streams stall now and then */
    c.seed = 11;
    tb = nic_tb_new(&m, &c);
    if (!tb) { printf("FAIL events: harness: cannot load %s\n", argv[1]); return 1; }

    int bad = 0;
    for (unsigned n = 0; n < 2 && !bad; n++) {
        unsigned p = 1 - n;
        nic_tb_qp_t q = {.qpn = QPN[n], .sq_base = SQ_BASE, .rq_base = RQ_BASE, .sq_log = 5, .rq_log = 5,
                         .send_cqn = SCQ, .recv_cqn = RCQ, .pd = PD, .access = ACC};
        bad = nic_tb_set_fn(tb, n, FN[n], MAC[n], IP[n]) || nic_tb_create_cq(tb, n, FN[n], SCQ, SCQ_BASE, CQ_LOG) ||
              nic_tb_create_cq(tb, n, FN[n], RCQ, RCQ_BASE, CQ_LOG) || nic_tb_create_qp(tb, n, FN[n], &q) ||
              nic_tb_reg_mr(tb, n, FN[n], MR_KEY, MR_BASE, MR_LEN, PD, ACC) ||
              nic_tb_modify_qp_rts(tb, n, FN[n], QPN[n], QPN[p], MAC[p], IP[p], SQ_PSN[n], SQ_PSN[p], 3);
    }
    check(!bad, "events setup: two NICs, CQs, QPs in RTS", "a set-up command failed");
    if (bad) { nic_tb_free(tb); return 1; }

    /* 1. SOLICITED arm, SEND without SE: completes, no event anywhere */
    arm(B, RCQ, NIC_ARM_SOLICITED);
    bool ok = send_a_to_b(1, 0);
    nic_tb_run(tb, QUIET);
    unsigned ea = drain_events(A), eb = drain_events(B);
    snprintf(why, sizeof why, "CQEs %s; events A %u B %u", ok ? "ok" : "missing or wrong", ea, eb);
    check(ok && ea == 0 && eb == 0, "events 1: SOLICITED arm ignores an unsolicited SEND", why);

    /* 2. SEND with SE: one event for B's recv CQ, its CQE already in memory */
    post_recv(B, 0xb002, MR_BASE + 0x8000, 256);
    post_send(A, 0xa002, NIC_WR_SEND, NIC_WQE_SIGNALED | NIC_WQE_SOLICITED, MR_BASE, 64, 0, 0);
    bool got = wait_event(B);
    bool cqe_first = got && cqe_waiting(B, RCQ);
    eb = drain_events(B);
    nic_cqe_t e;
    ok = take_cqe(B, RCQ, &e) && cqe_ok(&e, 0xb002, NIC_WC_RECV) && take_cqe(A, SCQ, &e);
    nic_tb_run(tb, QUIET);
    eb += drain_events(B);
    ea = drain_events(A);
    snprintf(why, sizeof why, "event %s, CQE in memory first %d, events B %u (kind %u cq %u, want %u) A %u, CQEs %s",
             got ? "seen" : "missing", cqe_first, eb, last_ev[B].kind, (unsigned)last_ev[B].cq,
             (unsigned)cq_row(B, RCQ), ea, ok ? "ok" : "bad");
    check(got && cqe_first && eb == 1 && ea == 0 && last_ev[B].kind == NIC_EV_CQ_COMP &&
              last_ev[B].cq == cq_row(B, RCQ) && ok,
          "events 2: a solicited SEND fires B's recv CQ arm once, after its CQE", why);

    /* 3. the arm is spent */
    ok = send_a_to_b(3, NIC_WQE_SOLICITED);
    nic_tb_run(tb, QUIET);
    eb = drain_events(B);
    snprintf(why, sizeof why, "events B %u", eb);
    check(ok && eb == 0, "events 3: one event per arm", why);

    /* 4. NEXT on A's send CQ: a WRITE's CQE fires it */
    arm(A, SCQ, NIC_ARM_NEXT);
    post_send(A, 0xa004, NIC_WR_WRITE, NIC_WQE_SIGNALED, MR_BASE, 3000, MR_BASE + 0x4000, 0);
    got = wait_event(A);
    ea = drain_events(A);
    ok = take_cqe(A, SCQ, &e) && cqe_ok(&e, 0xa004, NIC_WC_RDMA_WRITE);
    nic_tb_run(tb, QUIET);
    ea += drain_events(A);
    eb = drain_events(B);
    snprintf(why, sizeof why, "events A %u (kind %u cq %u, want %u) B %u, CQE %s", ea, last_ev[A].kind,
             (unsigned)last_ev[A].cq, (unsigned)cq_row(A, SCQ), eb, ok ? "ok" : "bad");
    check(got && ea == 1 && eb == 0 && last_ev[A].kind == NIC_EV_CQ_COMP && last_ev[A].cq == cq_row(A, SCQ) && ok,
          "events 4: NEXT arm on the send CQ fires on the WRITE's CQE", why);

    /* 5. an arm that finds a CQE past its consumer index fires at once: the host arms and then
     *    polls, and a CQE written after its poll looked but before the arm arrived would
     *    otherwise sit in the ring with no event to come */
    post_recv(B, 0xb005, MR_BASE + 0x8000, 256);
    post_send(A, 0xa005, NIC_WR_SEND, NIC_WQE_SIGNALED, MR_BASE, 64, 0, 0);
    cq_ref_t rb = {B, RCQ};
    bool waiting = nic_tb_run_until(tb, cond_cqe, &rb, WAIT);
    arm(B, RCQ, NIC_ARM_NEXT);               /* with the old consumer index: the CQE is unpolled */
    nic_tb_run(tb, QUIET);
    eb = drain_events(B);
    ok = waiting && take_cqe(A, SCQ, &e) && take_cqe(B, RCQ, &e) && cqe_ok(&e, 0xb005, NIC_WC_RECV);
    snprintf(why, sizeof why, "CQE waiting %d, events B %u kind %u cq %u", waiting, eb, last_ev[B].kind,
             (unsigned)last_ev[B].cq);
    check(ok && eb == 1 && last_ev[B].kind == NIC_EV_CQ_COMP && last_ev[B].cq == cq_row(B, RCQ),
          "events 5: an arm finding an unpolled CQE fires at once", why);
    ok = send_a_to_b(6, 0);
    nic_tb_run(tb, QUIET);
    eb = drain_events(B);
    snprintf(why, sizeof why, "events B %u", eb);
    check(ok && eb == 0, "events 5: that arm is spent: the next CQE fires nothing", why);
    arm(B, RCQ, NIC_ARM_NEXT);               /* everything polled: the arm waits */
    nic_tb_run(tb, QUIET);
    eb = drain_events(B);
    ok = send_a_to_b(0x16, 0);
    nic_tb_run(tb, QUIET);
    unsigned eb2 = drain_events(B);
    snprintf(why, sizeof why, "events B at the arm %u, after the CQE %u kind %u", eb, eb2, last_ev[B].kind);
    check(ok && eb == 0 && eb2 == 1 && last_ev[B].kind == NIC_EV_CQ_COMP,
          "events 5: an arm with nothing unpolled fires on the next CQE", why);

    /* 6. RDMA WRITE with immediate and SE fires a SOLICITED arm */
    arm(B, RCQ, NIC_ARM_SOLICITED);
    post_recv(B, 0xb007, MR_BASE + 0x8000, 256);
    post_send(A, 0xa007, NIC_WR_WRITE_IMM, NIC_WQE_SIGNALED | NIC_WQE_SOLICITED, MR_BASE, 2000, MR_BASE + 0x6000,
              0x5eed);
    got = wait_event(B);
    ok = take_cqe(B, RCQ, &e) && cqe_ok(&e, 0xb007, NIC_WC_RECV_RDMA_WITH_IMM) && e.imm == 0x5eed &&
         take_cqe(A, SCQ, &e);
    nic_tb_run(tb, QUIET);
    eb = drain_events(B);
    ea = drain_events(A);
    snprintf(why, sizeof why, "event %s, events B %u A %u kind %u, CQEs %s", got ? "seen" : "missing", eb, ea,
             last_ev[B].kind, ok ? "ok" : "bad");
    check(got && eb == 1 && ea == 0 && last_ev[B].kind == NIC_EV_CQ_COMP && ok,
          "events 6: WRITE_WITH_IMM with SE fires the SOLICITED arm", why);

    /* 7. SQ drain (IB 10.3.1): RTS -> SQD just after four 16 KiB WRITEs are posted. The WQE
     * already started finishes, SQ_DRAINED comes once with its CQE already in memory, the
     * others wait in the SQ; SQD -> RTS sends them. */
    for (unsigned k = 0; k < 4; k++)
        post_send(A, 0xa100 + k, NIC_WR_WRITE, NIC_WQE_SIGNALED, MR_BASE, 16384, MR_BASE + 0x8000, 0);
    nic_tb_run(tb, 30);
    nic_cmd_t mc = {.op = NIC_CMD_MODIFY_QP, .fn = FN[A], .num = QPN[A], .mask = NIC_QPA_STATE};
    mc.qp.state = NIC_QPS_SQD;
    nic_cmd_resp_t mresp;
    int to_sqd = nic_tb_cmd(tb, A, &mc, &mresp);
    got = wait_event(A);
    unsigned done = 0;
    bool cqes_ok = true;
    while (got && cqe_waiting(A, SCQ) && take_cqe(A, SCQ, &e)) cqes_ok &= cqe_ok(&e, 0xa100 + done++, NIC_WC_RDMA_WRITE);
    ea = drain_events(A);
    nic_event_t drained = last_ev[A];
    nic_tb_run(tb, QUIET);
    bool held = !cqe_waiting(A, SCQ) && drain_events(A) == 0;
    mc.qp.state = NIC_QPS_RTS;
    int to_rts = nic_tb_cmd(tb, A, &mc, &mresp);
    for (unsigned k = done; k < 4; k++) cqes_ok &= take_cqe(A, SCQ, &e) && cqe_ok(&e, 0xa100 + k, NIC_WC_RDMA_WRITE);
    nic_tb_run(tb, QUIET);
    ea += drain_events(A);
    snprintf(why, sizeof why, "modify %d/%d, event %s (kind %u qp %u cq %u), %u CQEs before it, held %d, events A %u, CQEs %s",
             to_sqd, to_rts, got ? "seen" : "missing", drained.kind, (unsigned)drained.qp, (unsigned)drained.cq, done,
             held, ea, cqes_ok ? "ok" : "bad");
    check(to_sqd == 0 && to_rts == 0 && got && ea == 1 && drained.kind == NIC_EV_SQ_DRAINED &&
              drained.qp == (nic_qp_t)(FN[A] * NIC_QP_PER_FN + QPN[A] % NIC_QP_PER_FN) &&
              drained.cq == cq_row(A, SCQ) && done >= 1 && done < 4 && held && cqes_ok,
          "events 7: SQD drains the started WRITE, then SQ_DRAINED once; RTS sends the rest", why);

    snprintf(why, sizeof why, "A %u, B %u events in %" PRIu64 " cycles", events[A], events[B], nic_tb_now(tb));
    check(events[A] == 2 && events[B] == 4, "events: exact totals", why);
    nic_tb_free(tb);
    return failures ? 1 : 0;
}
