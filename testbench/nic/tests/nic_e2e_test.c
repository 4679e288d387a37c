/* nic_e2e_test — the first end-to-end test of the whole NIC (hls/nic/nic.net, C model).
 *
 * Two NICs on a point-to-point wire (pcap of every frame sent). Each gets its function's MAC
 * and IP, a send CQ and a recv CQ, one RC QP, one MR, and goes RESET->INIT->RTR->RTS with the
 * other's qpn / PSN / MAC / IP (pmtu 1024). Then, in order, each checked with poll_cq and the
 * exact bytes in host memory:
 *   1. SEND 100 bytes A->B into a posted receive buffer
 *   2. SEND_WITH_IMM 200 bytes
 *   3. RDMA WRITE 5000 bytes (5 packets) into B's MR
 *   4. RDMA READ 3000 bytes (3 response packets) of B's MR into A
 *   5. CAS, then FAA on an 8-byte word of B's MR
 * Every wait is bounded; a timeout names the missing CQE and prints both NICs' counters.
 * Finally the wire's frames are checked against the expected opcode/PSN sequence of each
 * direction and an expectation file for testbench/judges/tshark-check is written.
 * Usage: nic_e2e_test IFACE PCAP EXPECT [c|rtl|lockstep|c-rtl|rtl-c]
 * The mode (default c) needs a build with -DNIC_E2E_RTL and the verilated model for the others
 * (testbench/nic/tests/rtl-run); lock-step adds a check that C and RTL agreed on every output
 * of every cycle; c-rtl runs A on the C model and B on the RTL, rtl-c the other way round. */
#include "../nic_tb.h"
#include "../../lib/pcap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nic(const void *in, void *out, void *state);
#ifdef NIC_E2E_RTL
#include "nic_rtl.h"
#endif

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

/* ---- the set-up of both NICs ------------------------------------------------------------- */
enum { A = 0, B = 1 };
static const nic_fn_t FN[2] = {0, 1};
static const uint64_t MAC[2] = {0x020000000a01ull, 0x020000000b02ull};
static const uint32_t IP[2] = {0x0a000001, 0x0a000002};
static const uint32_t QPN[2] = {0x11, 0x22};
static const uint32_t SQ_PSN[2] = {100, 5000};          /* A's requests start at 100, B's at 5000 */
#define SCQ 1                                            /* send CQ cqn */
#define RCQ 2                                            /* recv CQ cqn */
#define CQ_LOG 6
#define SCQ_BASE 0x10000ull
#define RCQ_BASE 0x11000ull
#define SQ_BASE 0x20000ull
#define RQ_BASE 0x30000ull
#define MR_BASE 0x100000ull
#define MR_LEN 0x10000ull
#define MR_KEY 0x0105u                                   /* slot 1, tag 5 */
#define PD 7
#define PMTU 3                                           /* IBV_MTU_1024 */
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)
#define WAIT 60000                                       /* cycles per wait (~50x the round trip) */

static nic_tb_t *tb;
static char why[1024];

static const char *counters(unsigned n) {
    static char s[2][900];
    snprintf(s[n], sizeof s[n],
             "nic%u{req pkts %" PRIu64 " wqes %" PRIu64 "; resp acks %" PRIu64 " naks %" PRIu64 " dropped %" PRIu64
             "; comp acks %" PRIu64 " naks %" PRIu64 " timeouts %" PRIu64 " retries %" PRIu64 " cqes %" PRIu64
             " dropped %" PRIu64 "; cqw written %" PRIu64 " dropped %" PRIu64 "; rxd resp %" PRIu64 " comp %" PRIu64
             " bad %" PRIu64 " addr %" PRIu64 " len %" PRIu64 "; arb a %" PRIu64 " b %" PRIu64 "; tx %" PRIu64
             "; rx ok %" PRIu64 " notroce %" PRIu64 " trunc %" PRIu64 " ipcsum %" PRIu64 " opc %" PRIu64 " icrc %" PRIu64
             "; frames sent %" PRIu64 " rcvd %" PRIu64 "; async %u}",
             n, nic_tb_out(tb, n, "req_packets_sent"), nic_tb_out(tb, n, "req_wqes_started"),
             nic_tb_out(tb, n, "resp_acks_sent"), nic_tb_out(tb, n, "resp_naks_sent"), nic_tb_out(tb, n, "resp_dropped"),
             nic_tb_out(tb, n, "comp_acks"), nic_tb_out(tb, n, "comp_naks"), nic_tb_out(tb, n, "comp_timeouts"),
             nic_tb_out(tb, n, "comp_retries"), nic_tb_out(tb, n, "comp_cqes"), nic_tb_out(tb, n, "comp_dropped"),
             nic_tb_out(tb, n, "cqw_cqes_written"), nic_tb_out(tb, n, "cqw_cqes_dropped"),
             nic_tb_out(tb, n, "rxd_to_responder"), nic_tb_out(tb, n, "rxd_to_completer"),
             nic_tb_out(tb, n, "rxd_dropped_bad"), nic_tb_out(tb, n, "rxd_dropped_addr"),
             nic_tb_out(tb, n, "rxd_dropped_len"), nic_tb_out(tb, n, "arb_sent_a"), nic_tb_out(tb, n, "arb_sent_b"),
             nic_tb_out(tb, n, "tx_frames_sent"), nic_tb_out(tb, n, "rx_cnt_ok"), nic_tb_out(tb, n, "rx_cnt_not_roce"),
             nic_tb_out(tb, n, "rx_cnt_truncated"), nic_tb_out(tb, n, "rx_cnt_bad_ip_csum"),
             nic_tb_out(tb, n, "rx_cnt_bad_opcode"), nic_tb_out(tb, n, "rx_cnt_bad_icrc"), nic_tb_frames_sent(tb, n),
             nic_tb_frames_received(tb, n), nic_tb_pending(tb, n, "ctrl_async"));
    return s[n];
}

/* ---- CQ polling with a bound ------------------------------------------------------------- */
static uint32_t cq_ci[2][3]; /* the test's own consumer index (mirrors the harness's) */
typedef struct { unsigned nic; uint32_t cqn; } cqw_t;
static uint64_t cq_base(uint32_t cqn) { return cqn == SCQ ? SCQ_BASE : RCQ_BASE; }
static bool cqe_there(nic_tb_t *t, void *arg) {
    const cqw_t *w = arg;
    uint32_t ci = cq_ci[w->nic][w->cqn];
    nic_cqe_t e;
    hostmem_read(nic_tb_mem(t, w->nic), cq_base(w->cqn) + 32u * (ci & ((1u << CQ_LOG) - 1)), &e, sizeof e);
    return !!(e.owner & NIC_CQE_OWNER) == !((ci >> CQ_LOG) & 1);
}
/* Wait for and take the next CQE of nic's CQ cqn; false (and a FAIL line) on a timeout. */
static bool get_cqe(const char *name, unsigned n, uint32_t cqn, const char *what, nic_cqe_t *e) {
    cqw_t w = {n, cqn};
    uint64_t t0 = nic_tb_now(tb);
    if (!nic_tb_run_until(tb, cqe_there, &w, WAIT) || nic_tb_poll_cq(tb, n, FN[n], cqn, e) != 1) {
        snprintf(why, sizeof why, "no CQE on NIC %c's %s CQ (%s) after %d cycles (cycle %" PRIu64 "); %s; %s",
                 n ? 'B' : 'A', cqn == SCQ ? "send" : "recv", what, WAIT, nic_tb_now(tb), counters(0), counters(1));
        check(false, name, why);
        (void)t0;
        return false;
    }
    cq_ci[n][cqn]++;
    return true;
}
static void show_cqe(char *s, size_t n, const nic_cqe_t *e) {
    snprintf(s, n, "wr_id 0x%" PRIx64 " byte_len %u imm 0x%x qpn 0x%x opcode %u status %u flags %u",
             e->wr_id, e->byte_len, e->imm, e->qpn & 0xffffff, e->opcode, e->status, e->flags);
}
/* A CQE's fields against what is expected; byte_len is ignored when want_len < 0. */
static bool cqe_is(const char *name, const nic_cqe_t *e, uint64_t wr_id, uint8_t opc, uint32_t qpn, long want_len,
                   bool imm, uint32_t immv) {
    bool ok = e->wr_id == wr_id && e->opcode == opc && e->status == NIC_WC_SUCCESS && (e->qpn & 0xffffff) == qpn &&
              (want_len < 0 || e->byte_len == (uint32_t)want_len) && !!(e->flags & NIC_CQE_WITH_IMM) == imm &&
              (!imm || e->imm == immv);
    char got[200];
    show_cqe(got, sizeof got, e);
    snprintf(why, sizeof why, "got %s; want wr_id 0x%" PRIx64 " opcode %u status 0 qpn 0x%x byte_len %ld imm %d/0x%x",
             got, wr_id, opc, qpn, want_len, imm, immv);
    check(ok, name, why);
    return ok;
}
static bool mem_is(const char *name, unsigned n, uint64_t addr, const uint8_t *want, size_t len) {
    uint8_t *got = malloc(len);
    hostmem_read(nic_tb_mem(tb, n), addr, got, len);
    size_t i = 0;
    while (i < len && got[i] == want[i]) i++;
    if (i < len)
        snprintf(why, sizeof why, "NIC %c 0x%" PRIx64 " + %zu: byte 0x%02x, want 0x%02x (%zu of %zu bytes right before it)",
                 n ? 'B' : 'A', addr, i, got[i], want[i], i, len);
    check(i == len, name, why);
    free(got);
    return i == len;
}
static void pattern(uint8_t *p, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++) p[i] = (uint8_t)(seed * 37 + i * 13 + (i >> 8));
}
static void put(unsigned n, uint64_t addr, const uint8_t *p, size_t len) { hostmem_write(nic_tb_mem(tb, n), addr, p, len); }

static int post_send(unsigned n, uint64_t wr_id, uint8_t opcode, uint64_t laddr, uint32_t len, uint64_t raddr,
                     uint32_t imm, uint64_t cmp, uint64_t swap) {
    nic_sq_wqe_t w = {.wr_id = wr_id, .opcode = opcode, .flags = NIC_WQE_SIGNALED, .imm = imm, .local_addr = laddr,
                      .length = len, .lkey = MR_KEY, .remote_addr = raddr, .rkey = MR_KEY, .compare = cmp,
                      .swap_add = swap};
    return nic_tb_post_send(tb, n, FN[n], QPN[n], &w);
}
static int post_recv(unsigned n, uint64_t wr_id, uint64_t addr, uint32_t len) {
    nic_rq_wqe_t w = {.wr_id = wr_id, .addr = addr, .length = len, .lkey = MR_KEY};
    return nic_tb_post_recv(tb, n, FN[n], QPN[n], &w);
}

/* ---- the wire's frames ------------------------------------------------------------------- */
typedef struct { uint8_t opc; uint32_t psn; } op_t;
/* Reads the pcap, writes "OPCODE PSN" per frame to expect_path, splits the frames by sender
 * (source MAC) into a[] / b[]; -1 if unreadable. */
static int read_wire(const char *pcap, const char *expect_path, op_t *a, unsigned *na, op_t *b, unsigned *nb,
                     unsigned cap) {
    pcap_reader_t *r = pcap_open_read(pcap);
    if (!r) return -1;
    FILE *f = fopen(expect_path, "w");
    if (!f) { pcap_close_read(r); return -1; }
    static uint8_t buf[9216];
    size_t len;
    uint64_t t;
    *na = *nb = 0;
    int frames = 0;
    while (pcap_next(r, buf, sizeof buf, &len, &t) == 1) {
        frames++;
        if (len < 54) continue;
        op_t o = {buf[42], ((uint32_t)buf[51] << 16) | ((uint32_t)buf[52] << 8) | buf[53]};
        fprintf(f, "%u %u\n", o.opc, o.psn);
        uint64_t src = 0;
        for (int i = 6; i < 12; i++) src = (src << 8) | buf[i];
        if (src == MAC[A] && *na < cap) a[(*na)++] = o;
        else if (src == MAC[B] && *nb < cap) b[(*nb)++] = o;
    }
    fclose(f);
    pcap_close_read(r);
    return frames;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: nic_e2e_test IFACE PCAP EXPECT [c|rtl|lockstep]\n"); return 2; }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic
#ifdef NIC_E2E_RTL
                        , NIC_TB_RTL_FNS(nic)
#endif
    };
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    if (argc == 5 && !strcmp(argv[4], "rtl")) c.mode = NIC_TB_RTL;
    else if (argc == 5 && !strcmp(argv[4], "lockstep")) c.mode = NIC_TB_LOCKSTEP;
    else if (argc == 5 && (!strcmp(argv[4], "c-rtl") || !strcmp(argv[4], "rtl-c"))) {
        c.mode = NIC_TB_PER_NIC;
        c.nic_mode[A] = argv[4][0] == 'c' ? NIC_TB_C : NIC_TB_RTL;
        c.nic_mode[B] = argv[4][0] == 'c' ? NIC_TB_RTL : NIC_TB_C;
    } else if (argc == 5 && strcmp(argv[4], "c")) {
        fprintf(stderr, "nic_e2e_test: mode '%s': want c, rtl, lockstep, c-rtl or rtl-c\n", argv[4]);
        return 2;
    }
    c.wire.latency_cycles = 20;
    c.wire.bytes_per_cycle = 25;
    c.wire.pcap_sent = argv[2];
    c.backpressure_pct = 0;
    tb = nic_tb_new(&m, &c);
    if (!tb) { printf("FAIL e2e: harness: cannot load %s\n", argv[1]); return 1; }

    /* ---- set-up -------------------------------------------------------------------------- */
    int r, bad = 0;
    char step[64] = "";
    for (unsigned n = 0; n < 2 && !bad; n++) {
        unsigned p = 1 - n;
        nic_tb_qp_t q = {.qpn = QPN[n], .sq_base = SQ_BASE, .rq_base = RQ_BASE, .sq_log = 6, .rq_log = 6,
                         .send_cqn = SCQ, .recv_cqn = RCQ, .pd = PD, .access = ACC};
#define STEP(s, call) do { if (!bad && (r = (call)) != NIC_CMD_OK) { snprintf(step, sizeof step, "NIC %c %s", n ? 'B' : 'A', s); bad = r; } } while (0)
        STEP("SET_FN", nic_tb_set_fn(tb, n, FN[n], MAC[n], IP[n]));
        STEP("CREATE_CQ send", nic_tb_create_cq(tb, n, FN[n], SCQ, SCQ_BASE, CQ_LOG));
        STEP("CREATE_CQ recv", nic_tb_create_cq(tb, n, FN[n], RCQ, RCQ_BASE, CQ_LOG));
        STEP("CREATE_QP", nic_tb_create_qp(tb, n, FN[n], &q));
        STEP("REG_MR", nic_tb_reg_mr(tb, n, FN[n], MR_KEY, MR_BASE, MR_LEN, PD, ACC));
        STEP("MODIFY_QP RESET->INIT->RTR->RTS",
             nic_tb_modify_qp_rts(tb, n, FN[n], QPN[n], QPN[p], MAC[p], IP[p], SQ_PSN[n], SQ_PSN[p], PMTU));
    }
    snprintf(why, sizeof why, "%s: status %d (-1: no answer)", step, bad);
    check(!bad, "e2e setup: SET_FN, CREATE_CQ x2, CREATE_QP, REG_MR, RESET->INIT->RTR->RTS on both NICs", why);
    if (bad) { nic_tb_free(tb); return 1; }


    nic_cqe_t e;
    static uint8_t buf[8192], zero[8192];

    /* ---- 1. SEND 100 bytes ----------------------------------------------------------------- */
    pattern(buf, 100, 1);
    put(A, MR_BASE + 0x0000, buf, 100);
    post_recv(B, 0xb001, MR_BASE + 0x8000, 4096);
    post_send(A, 0xa001, NIC_WR_SEND, MR_BASE + 0x0000, 100, 0, 0, 0, 0);
    if (get_cqe("e2e 1 SEND: requester CQE", A, SCQ, "NIC_WC_SEND for wr 0xa001", &e))
        cqe_is("e2e 1 SEND: requester CQE", &e, 0xa001, NIC_WC_SEND, QPN[A], -1, false, 0);
    if (get_cqe("e2e 1 SEND: receive CQE", B, RCQ, "NIC_WC_RECV for wr 0xb001", &e))
        cqe_is("e2e 1 SEND: receive CQE", &e, 0xb001, NIC_WC_RECV, QPN[B], 100, false, 0);
    mem_is("e2e 1 SEND: 100 bytes in B's receive buffer", B, MR_BASE + 0x8000, buf, 100);
    mem_is("e2e 1 SEND: nothing written past the 100 bytes", B, MR_BASE + 0x8000 + 100, zero, 156);

    /* ---- 2. SEND_WITH_IMM 200 bytes -------------------------------------------------------- */
    pattern(buf, 200, 2);
    put(A, MR_BASE + 0x0200, buf, 200);
    post_recv(B, 0xb002, MR_BASE + 0x9000, 4096);
    post_send(A, 0xa002, NIC_WR_SEND_IMM, MR_BASE + 0x0200, 200, 0, 0xdeadbeef, 0, 0);
    if (get_cqe("e2e 2 SEND_IMM: requester CQE", A, SCQ, "NIC_WC_SEND for wr 0xa002", &e))
        cqe_is("e2e 2 SEND_IMM: requester CQE", &e, 0xa002, NIC_WC_SEND, QPN[A], -1, false, 0);
    if (get_cqe("e2e 2 SEND_IMM: receive CQE with immediate", B, RCQ, "NIC_WC_RECV+imm for wr 0xb002", &e))
        cqe_is("e2e 2 SEND_IMM: receive CQE with immediate", &e, 0xb002, NIC_WC_RECV, QPN[B], 200, true, 0xdeadbeef);
    mem_is("e2e 2 SEND_IMM: 200 bytes in B's receive buffer", B, MR_BASE + 0x9000, buf, 200);

    /* ---- 3. RDMA WRITE 5000 bytes ---------------------------------------------------------- */
    pattern(buf, 5000, 3);
    put(A, MR_BASE + 0x1000, buf, 5000);
    post_send(A, 0xa003, NIC_WR_WRITE, MR_BASE + 0x1000, 5000, MR_BASE + 0x2000 + 3, 0, 0, 0);
    if (get_cqe("e2e 3 WRITE 5000: requester CQE", A, SCQ, "NIC_WC_RDMA_WRITE for wr 0xa003", &e))
        cqe_is("e2e 3 WRITE 5000: requester CQE", &e, 0xa003, NIC_WC_RDMA_WRITE, QPN[A], -1, false, 0);
    mem_is("e2e 3 WRITE 5000: bytes in B's MR (unaligned target)", B, MR_BASE + 0x2000 + 3, buf, 5000);
    mem_is("e2e 3 WRITE 5000: bytes around the target untouched", B, MR_BASE + 0x2000, zero, 3);
    mem_is("e2e 3 WRITE 5000: bytes after the target untouched", B, MR_BASE + 0x2000 + 3 + 5000, zero, 64);

    /* ---- 4. RDMA READ 3000 bytes ----------------------------------------------------------- */
    pattern(buf, 3000, 4);
    put(B, MR_BASE + 0x4000, buf, 3000);
    post_send(A, 0xa004, NIC_WR_READ, MR_BASE + 0x5000 + 5, 3000, MR_BASE + 0x4000, 0, 0, 0);
    if (get_cqe("e2e 4 READ 3000: requester CQE", A, SCQ, "NIC_WC_RDMA_READ for wr 0xa004", &e))
        cqe_is("e2e 4 READ 3000: requester CQE", &e, 0xa004, NIC_WC_RDMA_READ, QPN[A], 3000, false, 0);
    mem_is("e2e 4 READ 3000: bytes in A's MR (unaligned target)", A, MR_BASE + 0x5000 + 5, buf, 3000);
    mem_is("e2e 4 READ 3000: bytes after the target untouched", A, MR_BASE + 0x5000 + 5 + 3000, zero, 64);

    /* ---- 5. CAS and FAA -------------------------------------------------------------------- */
    const uint64_t word = MR_BASE + 0xf008, v0 = 0x1122334455667788ull, v1 = 0x0badc0de0badc0deull, add = 0x100000001ull;
    hostmem_write_u64(nic_tb_mem(tb, B), word, v0);
    hostmem_write_u64(nic_tb_mem(tb, A), MR_BASE + 0x6000, ~0ull);
    hostmem_write_u64(nic_tb_mem(tb, A), MR_BASE + 0x6008, ~0ull);
    post_send(A, 0xa005, NIC_WR_CAS, MR_BASE + 0x6000, 8, word, 0, v0, v1);
    if (get_cqe("e2e 5 CAS: requester CQE", A, SCQ, "NIC_WC_COMP_SWAP for wr 0xa005", &e))
        cqe_is("e2e 5 CAS: requester CQE", &e, 0xa005, NIC_WC_COMP_SWAP, QPN[A], -1, false, 0);
    snprintf(why, sizeof why, "A's result 0x%" PRIx64 " (want original 0x%" PRIx64 "), B's word 0x%" PRIx64 " (want 0x%" PRIx64 ")",
             hostmem_read_u64(nic_tb_mem(tb, A), MR_BASE + 0x6000), v0, hostmem_read_u64(nic_tb_mem(tb, B), word), v1);
    check(hostmem_read_u64(nic_tb_mem(tb, A), MR_BASE + 0x6000) == v0 && hostmem_read_u64(nic_tb_mem(tb, B), word) == v1,
          "e2e 5 CAS: original value returned, word swapped", why);
    post_send(A, 0xa006, NIC_WR_FAA, MR_BASE + 0x6008, 8, word, 0, 0, add);
    if (get_cqe("e2e 5 FAA: requester CQE", A, SCQ, "NIC_WC_FETCH_ADD for wr 0xa006", &e))
        cqe_is("e2e 5 FAA: requester CQE", &e, 0xa006, NIC_WC_FETCH_ADD, QPN[A], -1, false, 0);
    snprintf(why, sizeof why, "A's result 0x%" PRIx64 " (want 0x%" PRIx64 "), B's word 0x%" PRIx64 " (want 0x%" PRIx64 ")",
             hostmem_read_u64(nic_tb_mem(tb, A), MR_BASE + 0x6008), v1, hostmem_read_u64(nic_tb_mem(tb, B), word), v1 + add);
    check(hostmem_read_u64(nic_tb_mem(tb, A), MR_BASE + 0x6008) == v1 &&
              hostmem_read_u64(nic_tb_mem(tb, B), word) == v1 + add,
          "e2e 5 FAA: original value returned, word incremented", why);

    /* ---- quiet end: nothing unexpected ----------------------------------------------------- */
    nic_tb_run(tb, 3000);
    cqw_t w[4] = {{A, SCQ}, {A, RCQ}, {B, SCQ}, {B, RCQ}};
    bool extra = false;
    for (int i = 0; i < 4; i++) extra |= cqe_there(tb, &w[i]);
    snprintf(why, sizeof why, "an extra CQE is waiting (A send %d recv %d, B send %d recv %d)", cqe_there(tb, &w[0]),
             cqe_there(tb, &w[1]), cqe_there(tb, &w[2]), cqe_there(tb, &w[3]));
    check(!extra, "e2e end: no unexpected CQE on any CQ", why);
    bool clean = true;
    for (unsigned n = 0; n < 2; n++)
        clean &= !nic_tb_out(tb, n, "resp_naks_sent") && !nic_tb_out(tb, n, "comp_naks") &&
                 !nic_tb_out(tb, n, "comp_timeouts") && !nic_tb_out(tb, n, "comp_retries") &&
                 !nic_tb_out(tb, n, "rxd_dropped_bad") && !nic_tb_out(tb, n, "rxd_dropped_addr") &&
                 !nic_tb_out(tb, n, "rxd_dropped_len") && !nic_tb_out(tb, n, "cqw_cqes_dropped") &&
                 !nic_tb_out(tb, n, "rx_cnt_bad_icrc") && !nic_tb_pending(tb, n, "ctrl_async") &&
                 nic_tb_out(tb, n, "rx_cnt_ok") == nic_tb_frames_received(tb, n);
    snprintf(why, sizeof why, "%s; %s", counters(0), counters(1));
    check(clean, "e2e end: no NAK, timeout, retry, drop, bad frame or async event on either NIC", why);
    printf("counters at cycle %" PRIu64 ": %s\n                    %s\n", nic_tb_now(tb), counters(0), counters(1));
    if (c.mode == NIC_TB_LOCKSTEP) {
        snprintf(why, sizeof why, "%s", nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "");
        char name[128];
        snprintf(name, sizeof name, "e2e lockstep: C model and RTL outputs equal on every cycle (%" PRIu64 " cycles, 2 NICs)",
                 nic_tb_now(tb));
        check(!nic_tb_mismatch(tb), name, why);
    }
    nic_tb_free(tb); /* closes the pcap */

    /* ---- the frames on the wire ------------------------------------------------------------ */
    op_t a[64], b[64];
    unsigned na, nb;
    int frames = read_wire(argv[2], argv[3], a, &na, b, &nb, 64);
    /* A's requests: SEND_ONLY 100, SEND_ONLY_IMM 101, WRITE FIRST/MIDDLE x3/LAST 102..106,
     * READ_REQUEST 107 (responses use 107..109), CAS 110, FAA 111 */
    static const op_t wa[] = {{0x04, 100}, {0x05, 101}, {0x06, 102}, {0x07, 103}, {0x07, 104}, {0x07, 105},
                              {0x08, 106}, {0x0c, 107}, {0x13, 110}, {0x14, 111}};
    unsigned nwa = sizeof wa / sizeof wa[0];
    bool ok = frames > 0 && na == nwa;
    char got[600] = "";
    for (unsigned i = 0; i < na && strlen(got) < 560; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), " %02x/%u", a[i].opc, a[i].psn);
    for (unsigned i = 0; ok && i < nwa; i++) ok = a[i].opc == wa[i].opc && a[i].psn == wa[i].psn;
    snprintf(why, sizeof why, "A sent %u frames (opcode/psn):%s", na, got);
    check(ok, "e2e wire: A's request frames are exactly SEND, SEND_IMM, WRITE x5, READ_REQ, CAS, FAA with PSNs 100..111",
          why);
    /* B's responses: ACKs (coalescing allowed) with the PSN of an acked request, READ
     * RESPONSE FIRST/MIDDLE/LAST 107..109 in order, ATOMIC_ACK 110 and 111; nothing else */
    unsigned rr = 0, at = 0, other = 0;
    got[0] = 0;
    for (unsigned i = 0; i < nb; i++) {
        if (strlen(got) < 560) snprintf(got + strlen(got), sizeof got - strlen(got), " %02x/%u", b[i].opc, b[i].psn);
        if (b[i].opc >= 0x0d && b[i].opc <= 0x0f && rr < 3 && b[i].opc == 0x0d + rr && b[i].psn == 107 + rr) rr++;
        else if (b[i].opc == 0x12 && at < 2 && b[i].psn == 110 + at) at++;
        else if (b[i].opc == 0x11 && b[i].psn >= 100 && b[i].psn <= 106) ;
        else other++;
    }
    snprintf(why, sizeof why, "B sent %u frames:%s", nb, got);
    check(frames > 0 && rr == 3 && at == 2 && !other,
          "e2e wire: B's frames are ACKs of A's PSNs, READ RESPONSE FIRST/MIDDLE/LAST 107..109, ATOMIC_ACK 110, 111",
          why);
    return failures ? 1 : 0;
}
