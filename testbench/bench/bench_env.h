/* bench_env.h — two NICs on a wire, set up for a measurement, and the probes that time events.
 *
 * A bench environment is a fresh nic_tb (2 NICs, point-to-point wire) with NIC A (0) and B (1)
 * each given a function, a send CQ and a receive CQ, `nqp` RC QPs connected pairwise (A's qp i
 * to B's qp i) and one MR covering the data area, all through the driver API (commands on
 * ctrl_cmd), exactly as a host driver would. Every measurement builds its own environment, so
 * runs do not influence each other and each is deterministic for the seed.
 *
 * bench_step() advances one clock cycle and records, from what the model put on its ports in
 * that cycle: frame bytes and frame starts on tx_frame, frames fully taken by rx_frame, and
 * CQEs that became visible in host memory (consumed at once, CQ doorbell rung, as a polling
 * driver does). Event times are cycle indices: the cycle in which the event happened at the
 * model's ports (for a CQE: the cycle at whose clock edge host memory applied the write).
 *
 * Plain C testbench code, not HLS-C. */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "../nic/nic_tb.h"

enum { BENCH_A = 0, BENCH_B = 1 };
#define BENCH_SCQ 1          /* send CQ number on both NICs */
#define BENCH_RCQ 2          /* receive CQ number */
#define BENCH_MAX_QPS 16     /* QPs per function (NIC_QP_PER_FN) */
#define BENCH_DATA_BASE 0x1000000ull  /* the MR: data buffers of both NICs */
#define BENCH_DATA_LEN 0x4000000ull   /* 64 MiB */

/* What a run looks like: the simulated host and wire. */
typedef struct {
    uint64_t seed;              /* wire impairments and data patterns */
    unsigned wire_latency;      /* cycles of propagation after serialisation */
    unsigned wire_bytes_per_cycle;
    unsigned wire_overhead;     /* preamble + FCS + inter-frame gap bytes per frame */
    double p_loss;              /* per frame, each direction */
    unsigned dma_read_latency;  /* host memory: cycles from read request to first beat */
    unsigned dma_write_latency; /* cycles until a posted write is visible */
    unsigned dma_outstanding;   /* reads in flight per DMA port */
    unsigned ack_timeout;       /* QP attribute timeout: 1024 << t cycles */
    nic_tb_mode_t mode;         /* C model or verilated RTL */
} bench_cfg_t;

void bench_cfg_default(bench_cfg_t *c);

/* One CQ as the bench's polling driver sees it. */
typedef struct {
    uint64_t cqes, errors;      /* CQEs taken; those with a status other than success */
    uint64_t first_cycle, last_cycle; /* cycles the first / latest CQE became visible */
    nic_cqe_t last;             /* the latest CQE */
    nic_cqe_t first_error;      /* the first CQE with an error status */
} bench_cq_t;

typedef struct {
    nic_tb_t *tb;
    bench_cfg_t cfg;
    unsigned nqp;
    unsigned pmtu;              /* enum ibv_mtu */
    uint64_t setup_cycles;      /* cycles the bring-up commands took */
    /* probes, per NIC */
    uint64_t tx_bytes[2];       /* frame bytes that left tx_frame */
    uint64_t tx_frames[2];      /* frames started on tx_frame */
    uint64_t tx_beats[2];       /* cycles with a beat on tx_frame */
    uint64_t tx_first_beat[2], tx_last_beat[2]; /* cycles of the first and latest beat */
    bool tx_in_frame[2];
    bool tx_armed[2];           /* bench_arm_tx: record the next frame start */
    uint64_t tx_start_cycle[2]; /* the recorded frame start */
    uint64_t rx_frames[2];      /* frames whose last beat rx_frame took */
    uint64_t rx_last_cycle[2];  /* cycle of the latest of those */
    bench_cq_t cq[2][3];        /* [nic][cqn] */
} bench_env_t;

/* Builds the NICs and brings nqp QP pairs to RTS at path MTU pmtu (enum ibv_mtu). NULL, with
 * the failing step on stderr, when a command fails. */
bench_env_t *bench_env_new(const nic_tb_model_t *m, const bench_cfg_t *cfg, unsigned nqp, unsigned pmtu);
void bench_env_free(bench_env_t *e);

/* QP numbers: A's qp i is 0x40 + i, B's is 0x50 + i (slot i in function 0). */
uint32_t bench_qpn(unsigned nic, unsigned i);
/* SQ/RQ ring entries per QP. */
#define BENCH_RING_LOG 6

/* One clock cycle plus the probes. */
void bench_step(bench_env_t *e);
uint64_t bench_now(const bench_env_t *e);
/* Record the cycle of the next frame start on nic's tx_frame (tx_start_cycle, tx_armed
 * cleared when it happened). */
void bench_arm_tx(bench_env_t *e, unsigned nic);

/* Post a signaled send WQE on A's or B's qp i (the doorbell is valid from bench_now()). */
int bench_post_send(bench_env_t *e, unsigned nic, unsigned qp, uint8_t opcode, uint64_t laddr, uint32_t len,
                    uint64_t raddr);
int bench_post_recv(bench_env_t *e, unsigned nic, unsigned qp, uint64_t addr, uint32_t len);

/* Steps until the nic's CQ cqn has taken `cqes` CQEs in all; false after max_cycles. */
bool bench_run_until_cqes(bench_env_t *e, unsigned nic, unsigned cqn, uint64_t cqes, uint64_t max_cycles);
/* Steps until both NICs' frames are all delivered and nothing is left in flight on the wire,
 * or max_cycles; then `settle` more cycles. */
void bench_run_quiet(bench_env_t *e, uint64_t settle, uint64_t max_cycles);

/* Counter leaf of a NIC (nic_tb_out). */
uint64_t bench_counter(const bench_env_t *e, unsigned nic, const char *name);
/* Both NICs' main counters, one line (diagnostics of a failed run). */
void bench_dump(const bench_env_t *e, const char *why);

#endif
