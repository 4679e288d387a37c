/* bench_env.c — bench environment and probes; bench_env.h says what. */
#include "bench_env.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t MAC[2] = {0x020000000a01ull, 0x020000000b02ull};
static const uint32_t IP[2] = {0x0a000001, 0x0a000002};
static const uint32_t PSN0[2] = {100, 5000}; /* first request PSN of A and of B */
#define FN 0
#define CQ_LOG 10
#define MR_KEY 0x0105u  /* MR slot 1, tag 5 */
#define PD 7
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)

static uint64_t cq_base(uint32_t cqn) { return cqn == BENCH_SCQ ? 0x10000ull : 0x20000ull; }
static uint64_t sq_base(unsigned i) { return 0x100000ull + 0x2000ull * i; }
static uint64_t rq_base(unsigned i) { return 0x101000ull + 0x2000ull * i; }

void bench_cfg_default(bench_cfg_t *c) {
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->wire_latency = 250;        /* 1 us at 250 MHz: cable plus one switch hop */
    c->wire_bytes_per_cycle = 64; /* the NIC's own beat rate: 128 Gb/s at 250 MHz */
    c->wire_overhead = 24;        /* preamble 8 + FCS 4 + inter-frame gap 12 */
    c->dma_read_latency = 1;      /* ideal host memory: the NIC's own limits (the PCIe-like
                                     run of bench.c sets 125) */
    c->dma_write_latency = 0;     /* a posted write is visible at the next edge */
    c->dma_outstanding = 8;
    c->ack_timeout = 4;           /* 1024 << 4 = 16384 cycles = 65.5 us */
    c->mode = NIC_TB_C;
}

uint32_t bench_qpn(unsigned nic, unsigned i) { return (nic == BENCH_A ? 0x40u : 0x50u) + i; }

/* RESET -> INIT -> RTR -> RTS with the attribute masks rdma-core programs use (perftest's
 * ibv_modify_qp calls), and the bench's ACK timeout (the harness's nic_tb_modify_qp_rts fixes
 * timeout 14 = 67 ms, far longer than a simulation). */
static int to_rts(bench_env_t *e, unsigned n, unsigned i) {
    unsigned p = 1 - n;
    nic_cmd_t c = {.op = NIC_CMD_MODIFY_QP, .fn = FN, .num = bench_qpn(n, i)};
    c.mask = NIC_QPA_STATE | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT | NIC_QPA_ACCESS;
    c.qp.state = NIC_QPS_INIT;
    c.qp.pkey_index = 0;
    c.qp.port_num = 1;
    c.qp.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
    int r = nic_tb_cmd(e->tb, n, &c, NULL);
    if (r) return r;
    c.mask = NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
             NIC_QPA_MAX_DEST_RD_ATOMIC | NIC_QPA_MIN_RNR_TIMER;
    c.qp.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    c.qp.state = NIC_QPS_RTR;
    c.qp.dst_mac = MAC[p];
    c.qp.dst_ip = IP[p];
    c.qp.udp_sport = (uint16_t)(0xc000 | (bench_qpn(n, i) & 0x3fff));
    c.qp.pmtu = (hls_uint(3))e->pmtu;
    c.qp.dest_qpn = (hls_u24)bench_qpn(p, i);
    c.qp.rq_psn = (hls_u24)(PSN0[p] + 1000 * i);
    c.qp.min_rnr_timer = 12;
    if ((r = nic_tb_cmd(e->tb, n, &c, NULL))) return r;
    c.mask = NIC_QPA_STATE | NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
             NIC_QPA_MAX_QP_RD_ATOMIC;
    c.qp.state = NIC_QPS_RTS;
    c.qp.max_rd_atomic = NIC_MAX_DEST_RD_ATOMIC; /* what the peer's responder accepts */
    c.qp.sq_psn = (hls_u24)(PSN0[n] + 1000 * i);
    c.qp.timeout = (hls_uint(5))e->cfg.ack_timeout;
    c.qp.retry_cnt = 7;
    c.qp.rnr_retry = 7;
    return nic_tb_cmd(e->tb, n, &c, NULL);
}

bench_env_t *bench_env_new(const nic_tb_model_t *m, const bench_cfg_t *cfg, unsigned nqp, unsigned pmtu) {
    if (nqp < 1 || nqp > BENCH_MAX_QPS) { fprintf(stderr, "bench: %u QPs (1..%d)\n", nqp, BENCH_MAX_QPS); return NULL; }
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.nics = 2;
    c.mode = cfg->mode;
    c.seed = cfg->seed;
    c.backpressure_pct = 0;
    c.wire.seed = cfg->seed;
    c.wire.latency_cycles = cfg->wire_latency;
    c.wire.bytes_per_cycle = cfg->wire_bytes_per_cycle;
    c.wire.overhead_bytes = cfg->wire_overhead;
    c.wire.p_loss = cfg->p_loss;
    c.wire.pool_frames = 4096;
    c.wire.pcap_sent = getenv("BENCH_PCAP"); /* diagnosis: every frame of the run (docs/bench.md) */
    c.mem.read_latency = cfg->dma_read_latency;
    c.mem.write_latency = cfg->dma_write_latency;
    c.mem.max_outstanding = cfg->dma_outstanding;
    nic_tb_t *tb = nic_tb_new(m, &c);
    if (!tb) return NULL;
    bench_env_t *e = calloc(1, sizeof *e);
    e->tb = tb;
    e->cfg = *cfg;
    e->nqp = nqp;
    e->pmtu = pmtu;
    int r = 0;
    unsigned bad_nic = 0;
    const char *step = "";
    for (unsigned n = 0; n < 2 && !r; n++) {
#define STEP(s, call) do { if (!r && (r = (call)) != NIC_CMD_OK) { step = s; bad_nic = n; } } while (0)
        STEP("SET_FN", nic_tb_set_fn(tb, n, FN, MAC[n], IP[n]));
        STEP("CREATE_CQ send", nic_tb_create_cq(tb, n, FN, BENCH_SCQ, cq_base(BENCH_SCQ), CQ_LOG));
        STEP("CREATE_CQ recv", nic_tb_create_cq(tb, n, FN, BENCH_RCQ, cq_base(BENCH_RCQ), CQ_LOG));
        STEP("REG_MR", nic_tb_reg_mr(tb, n, FN, MR_KEY, BENCH_DATA_BASE, BENCH_DATA_LEN, PD, ACC));
        for (unsigned i = 0; i < nqp && !r; i++) {
            nic_tb_qp_t q = {.qpn = bench_qpn(n, i), .sq_base = sq_base(i), .rq_base = rq_base(i),
                             .sq_log = BENCH_RING_LOG, .rq_log = BENCH_RING_LOG, .send_cqn = BENCH_SCQ,
                             .recv_cqn = BENCH_RCQ, .pd = PD, .access = ACC};
            STEP("CREATE_QP", nic_tb_create_qp(tb, n, FN, &q));
            STEP("MODIFY_QP RESET->INIT->RTR->RTS", to_rts(e, n, i));
        }
#undef STEP
    }
    if (r) {
        fprintf(stderr, "bench: NIC %c %s failed: status %d (-1: no answer)\n", "AB"[bad_nic], step, r);
        bench_env_free(e);
        return NULL;
    }
    e->setup_cycles = nic_tb_now(tb);
    return e;
}

void bench_env_free(bench_env_t *e) {
    if (!e) return;
    nic_tb_free(e->tb);
    free(e);
}

uint64_t bench_now(const bench_env_t *e) { return nic_tb_now(e->tb); }
void bench_arm_tx(bench_env_t *e, unsigned nic) { e->tx_armed[nic] = true; }
uint64_t bench_counter(const bench_env_t *e, unsigned nic, const char *name) { return nic_tb_out(e->tb, nic, name); }

/* Take every CQE now visible on nic's CQ cqn. */
static void poll_cq(bench_env_t *e, unsigned n, uint32_t cqn, uint64_t cycle) {
    bench_cq_t *q = &e->cq[n][cqn];
    for (;;) {
        nic_cqe_t c;
        if (nic_tb_poll_cq(e->tb, n, FN, cqn, &c) != 1) return; /* owner bit: not this pass's */
        if (!q->cqes) q->first_cycle = cycle;
        q->cqes++;
        q->last_cycle = cycle;
        q->last = c;
        if (c.status != NIC_WC_SUCCESS && !q->errors++) q->first_error = c;
    }
}

void bench_step(bench_env_t *e) {
    uint64_t c = nic_tb_now(e->tb);
    nic_tb_step(e->tb);
    for (unsigned n = 0; n < 2; n++) {
        /* tx_frame's ready is always high in the harness: valid means a beat left */
        if (nic_tb_out(e->tb, n, "tx_frame_valid")) {
            if (!e->tx_in_frame[n]) {
                e->tx_frames[n]++;
                if (e->tx_armed[n]) { e->tx_start_cycle[n] = c; e->tx_armed[n] = false; }
            }
            if (!e->tx_beats[n]++) e->tx_first_beat[n] = c;
            e->tx_last_beat[n] = c;
            e->tx_bytes[n] += nic_tb_out(e->tb, n, "tx_frame_data_bytes");
            e->tx_in_frame[n] = !nic_tb_out(e->tb, n, "tx_frame_data_last");
        }
        uint64_t rx = nic_tb_frames_received(e->tb, n);
        if (rx != e->rx_frames[n]) { e->rx_frames[n] = rx; e->rx_last_cycle[n] = c; }
        poll_cq(e, n, BENCH_SCQ, c);
        poll_cq(e, n, BENCH_RCQ, c);
    }
}

static uint32_t mr_key(void) { return MR_KEY; }

int bench_post_send(bench_env_t *e, unsigned nic, unsigned qp, uint8_t opcode, uint64_t laddr, uint32_t len,
                    uint64_t raddr) {
    nic_sq_wqe_t w = {.wr_id = ((uint64_t)qp << 32) | e->cq[nic][BENCH_SCQ].cqes, .opcode = opcode,
                      .flags = NIC_WQE_SIGNALED, .local_addr = laddr, .length = len, .lkey = mr_key(),
                      .remote_addr = raddr, .rkey = mr_key()};
    return nic_tb_post_send(e->tb, nic, FN, bench_qpn(nic, qp), &w);
}

int bench_post_recv(bench_env_t *e, unsigned nic, unsigned qp, uint64_t addr, uint32_t len) {
    nic_rq_wqe_t w = {.wr_id = 0x7000 + qp, .addr = addr, .length = len, .lkey = mr_key()};
    return nic_tb_post_recv(e->tb, nic, FN, bench_qpn(nic, qp), &w);
}

bool bench_run_until_cqes(bench_env_t *e, unsigned nic, unsigned cqn, uint64_t cqes, uint64_t max_cycles) {
    for (uint64_t i = 0; i < max_cycles; i++) {
        if (e->cq[nic][cqn].cqes >= cqes) return true;
        bench_step(e);
    }
    return e->cq[nic][cqn].cqes >= cqes;
}

void bench_run_quiet(bench_env_t *e, uint64_t settle, uint64_t max_cycles) {
    for (uint64_t i = 0; i < max_cycles; i++) {
        bool busy = wire_in_flight(nic_tb_wire(e->tb)) || e->tx_in_frame[0] || e->tx_in_frame[1];
        if (!busy) break;
        bench_step(e);
    }
    for (uint64_t i = 0; i < settle; i++) bench_step(e);
}

void bench_dump(const bench_env_t *e, const char *why) {
    fprintf(stderr, "bench: %s at cycle %" PRIu64 "\n", why, bench_now(e));
    static const char *names[] = {"req_packets_sent", "req_wqes_started", "resp_acks_sent", "resp_naks_sent",
                                  "resp_dropped", "comp_acks", "comp_naks", "comp_timeouts", "comp_retries",
                                  "comp_cqes", "comp_dropped", "cqw_cqes_written", "cqw_cqes_dropped",
                                  "rxd_dropped_bad", "rxd_dropped_len", "rx_cnt_bad_icrc"};
    for (unsigned n = 0; n < 2; n++) {
        fprintf(stderr, "  NIC %c:", "AB"[n]);
        for (unsigned k = 0; k < sizeof names / sizeof names[0]; k++)
            fprintf(stderr, " %s %" PRIu64, names[k], nic_tb_out(e->tb, n, names[k]));
        fprintf(stderr, "; frames sent %" PRIu64 " rcvd %" PRIu64 "; send CQEs %" PRIu64 " recv CQEs %" PRIu64 "\n",
                e->tx_frames[n], e->rx_frames[n], e->cq[n][BENCH_SCQ].cqes, e->cq[n][BENCH_RCQ].cqes);
    }
}
