/* scen.h — the scenario driver of the whole NIC (docs/scenarios.md).
 *
 * Two NICs (testbench/nic/nic_tb) on a wire. A scenario creates QP pairs (one QP on each NIC,
 * same PCIe function on both), gives each QP endpoint a list of send work requests, and runs:
 * the driver posts the WQEs and the receive WQEs they need through the nic_tb driver API only
 * (commands, WQEs in host memory, doorbells, CQ polling), checks every completion against the
 * golden model (wr_id, status, opcode, byte_len, imm, qpn, order per QP, exactly once), and at
 * the end every byte of each NIC's data arena against the golden image: the arena is one
 * hostmem guard region, so a DMA byte anywhere but in a target the golden model expects to
 * change fails the run (hostmem names the first such write).
 *
 * The golden model (scen_golden.c) decides at scen_add_op time what each work request does:
 * sources get random data, targets get fresh unaligned regions with guard bytes around them,
 * atomics are computed in post order on a per-endpoint word of the peer. Plain C testbench code.
 */
#ifndef SCEN_H
#define SCEN_H

#include <stdbool.h>
#include <stdint.h>

#include "../nic/nic_tb.h"
#include "../lib/prng.h"

typedef struct scen scen_t;

#define SCEN_MAX_EPS 128          /* 64 QP pairs x 2 endpoints */
#define SCEN_ARENA_BASE ((uint64_t)0x40000000)
#define SCEN_RING_BASE ((uint64_t)0x10000000)

enum { SCEN_NONE = 0xff };        /* "no completion expected" */

/* One send work request and what the golden model expects of it. */
typedef struct {
    nic_sq_wqe_t wqe;             /* as posted */
    uint8_t status;               /* expected send CQE status (NIC_WC_*) */
    bool cqe;                     /* a send CQE is expected (signaled, or not SUCCESS) */
    int recv;                     /* index into the peer's receive list, or -1 */
} scen_op_t;

/* One receive WQE and its expected completion. */
typedef struct {
    nic_rq_wqe_t wqe;
    uint8_t status;               /* expected; SCEN_NONE: stays posted, no CQE */
    uint8_t opcode;               /* NIC_WC_RECV or NIC_WC_RECV_RDMA_WITH_IMM */
    uint32_t byte_len;
    bool imm;
    uint32_t immv;
    int op;                       /* the peer op that consumes it */
} scen_recv_t;

/* QP attributes a scenario chooses (nic_qp_attr_t subset set by MODIFY_QP). */
typedef struct {
    unsigned pmtu;                /* 1..5 */
    uint32_t sq_psn[2];           /* first PSN sent by side 0 / side 1 */
    uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
    bool backoff;
    uint8_t backoff_first, backoff_cap;
    unsigned sq_log, rq_log;
    uint8_t access;               /* the QP's remote access flags */
    bool late;                    /* scen_pair leaves both QPs in RESET: the caller sets them up
                                     with scen_qp_advance while the run goes on */
} scen_qp_opts_t;

typedef struct {
    unsigned nic;                 /* 0 or 1 */
    nic_fn_t fn;
    uint32_t qpn;
    int peer;                     /* endpoint index of the other side */
    scen_qp_opts_t o;
    uint8_t state;                /* NIC_QPS_* the driver has taken the QP to: receives are
                                     posted from INIT on, sends in RTS */
    uint32_t pd, key;             /* the QP's PD; the MR key of its function's arena MR */
    /* work */
    scen_op_t *ops;
    unsigned nops, cap_ops;
    scen_recv_t *recvs;           /* receives this endpoint must post (for the peer's ops) */
    unsigned nrecvs, cap_recvs;
    uint64_t atom_word;           /* on this NIC: the word the peer's atomics target */
    uint64_t atom_val;            /* its golden value */
    /* progress */
    unsigned posted, retired;     /* send WQEs posted; index after the last one completed */
    unsigned next_cqe;            /* next op that may produce a send CQE */
    unsigned recv_posted, recv_done;
    uint64_t recv_hold_until;     /* receives are not posted before this cycle (RNR scenarios) */
    bool recv_never;              /* receives are never posted */
    bool sends_held;              /* sends from op hold_from on wait until a driver clears this */
    unsigned hold_from;           /* (a second wave of work: testbench/migration) */
} scen_ep_t;

typedef struct {
    nic_tb_mode_t mode;
    nic_tb_mode_t nic_mode[NIC_TB_MAX_NICS]; /* mode NIC_TB_PER_NIC: each NIC's model (nic_tb.h) */
    uint64_t rtl_scramble_seed;   /* nic_tb_config_t's: random registers without reset in the RTL */
    const char *iface;
    uint64_t seed;
    const char *pcap;             /* wire pcap of every frame the NICs sent, or NULL */
    uint64_t arena;               /* bytes per NIC (default 4 MiB) */
    wire_config_t wire;           /* impairments; seed, pcap, latency set by the driver */
    bool quiet_checks;            /* no loss: no NAK, retry, timeout, drop expected */
    unsigned expect_async[2];     /* NIC_EV_QP_ERR events expected per NIC */
    uint64_t max_cycles;          /* the whole run's bound (0: 4 million) */
    bool verbose;
    bool giveup_ok;               /* a RETRY_EXC_ERR as the run's first deviation stops it as a
                                   * give-up claim (scen_giveup), to be proven from the wire */
    unsigned nics;                /* 0 or 2: sides 0 and 1 on NICs 0 and 1, point-to-point; 3: a
                                   * learning switch with a third NIC a side can move to
                                   * (testbench/migration) */
    /* Called before each 16-cycle step of scen_run (the migration driver); the run does not
     * end while it returns true. */
    bool (*tick)(scen_t *s, void *arg);
    void *tick_arg;
} scen_opts_t;

/* A new run: two NICs, each function's MAC/IP, CQs and arena MR. NULL with a message. */
scen_t *scen_new(const scen_opts_t *o);
void scen_free(scen_t *s);
nic_tb_t *scen_tb(scen_t *s);
prng_t *scen_rng(scen_t *s);
scen_ep_t *scen_ep(scen_t *s, int e);
/* A QP pair on function fn: endpoint on NIC 0 (returned) and its peer (return + 1). The QPs
 * are brought to RTS with o's attributes. -1 and a FAIL line on a command error. */
int scen_pair(scen_t *s, nic_fn_t fn, uint32_t qpn0, uint32_t qpn1, const scen_qp_opts_t *o);
void scen_qp_opts_default(scen_qp_opts_t *o);
/* The next step RESET -> INIT -> RTR -> RTS of endpoint e's QP (a late pair's connection
 * set-up), as its host does it: MODIFY_QP on the NIC the side runs on now, with the
 * attributes scen_pair would have set. 0, or the status and a FAIL line. */
int scen_qp_advance(scen_t *s, int e);

/* ---- golden model (scen_golden.c) ------------------------------------------------------- */
/* Fresh region of len bytes in NIC n's arena (unaligned by `skew` 0..63, guard bytes around). */
uint64_t scen_alloc(scen_t *s, unsigned n, uint32_t len, unsigned align, unsigned skew);
/* Random bytes into NIC n's memory and the golden image. */
void scen_fill(scen_t *s, unsigned n, uint64_t addr, uint32_t len);
/* Golden image byte range := NIC n's bytes at src (a data movement the NIC must perform). */
void scen_expect_copy(scen_t *s, unsigned dn, uint64_t dst, unsigned sn, uint64_t src, uint32_t len);
void scen_expect_u64(scen_t *s, unsigned n, uint64_t addr, uint64_t v);
uint64_t scen_golden_u64(scen_t *s, unsigned n, uint64_t addr);
/* Add a work request of endpoint e that succeeds: the golden model sets up its source,
 * target, receive and atomic expectations. Returns the op index. recv_slack: extra bytes of
 * the receive buffer. */
int scen_add_op(scen_t *s, int e, uint8_t opcode, uint32_t len, bool signaled, unsigned recv_slack);
/* Add a random operation (mixed kinds and sizes up to max_len; kinds: bit mask of NIC_WR_*). */
int scen_add_random(scen_t *s, int e, unsigned kinds, uint32_t max_len);
/* Add an explicitly built WQE with the given expectations (error scenarios). */
int scen_add_raw(scen_t *s, int e, const nic_sq_wqe_t *w, uint8_t status, bool cqe);
/* Add a receive expectation for endpoint e without a consuming op (flush tests). */
int scen_add_recv(scen_t *s, int e, uint32_t len, uint8_t status);

/* ---- running (scen_drive.c) --------------------------------------------------------------- */
/* Post, poll and check until every expected completion came (or max_cycles), then a quiet
 * period (no extra CQE), the async events, the counters and every arena byte. Prints one
 * PASS/FAIL line per check prefixed with name; returns the number of failures. */
int scen_run(scen_t *s, const char *name);
/* The run's last finish cycle (after the expected completions, before the quiet period). */
uint64_t scen_done_cycle(const scen_t *s);
/* Cycle at which the send CQE of op i of endpoint e arrived (0 if not). */
uint64_t scen_cqe_cycle(const scen_t *s, int e, unsigned i);
const char *scen_counters(scen_t *s, unsigned n);
/* Live migration of a side's VM (testbench/migration): the NIC hosting side 0 or 1 now (0, 1
 * at the start); after nic_tb_move_host the side's driver work continues on `nic`. */
unsigned scen_host(const scen_t *s, unsigned side);
void scen_move_side(scen_t *s, unsigned side, unsigned nic);
/* The VM of the scenario is paused (the hypervisor's stop-and-copy): nothing is posted or
 * polled until it is resumed; the NICs keep running. */
void scen_hold_vm(scen_t *s, bool paused);
/* End scen_run at its next step (a driver around the scenario failed and waits for nothing
 * more); the run's checks still run and report what did not complete. */
void scen_stop(scen_t *s);

/* ---- give-up claims on a lossy wire (scen_giveup.c) ------------------------------------ */
/* The claim: endpoint ep's op (expected to succeed) completed with RETRY_EXC_ERR at cycle,
 * every earlier check passed, the run stopped there. With what the proof needs. */
typedef struct {
    int ep;
    unsigned op, nic;
    uint64_t cycle, wr_id;
    uint8_t wr_opcode, retry_cnt;
    uint32_t qpn, peer_qpn, ip, peer_ip, first_psn, last_psn, ns_per_cycle;
} scen_giveup_t;
/* After scen_run with giveup_ok: true and the claim if the run stopped on one. */
bool scen_giveup(const scen_t *s, scen_giveup_t *g);
/* The claim holds iff the requester sent the WR's first PSN >= retry_cnt + 1 times and no
 * response completing it (or showing progress) reached it intact (pcaps of the frames as
 * sent and as delivered, closed: after scen_free). why: the evidence either way. */
bool scen_giveup_prove(const scen_giveup_t *g, const char *sent_pcap, const char *deliv_pcap, char *why, size_t n);

/* Result printing shared by the drivers. */
extern int scen_failures;
extern bool scen_quiet_pass;      /* PASS lines are not printed (the fault sweep's seeds) */
void scen_check(bool ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
