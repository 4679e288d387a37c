/* nic_tb.h — whole-NIC testbench harness (docs/nic-testbench.md).
 *
 * N NICs, each the composed model of a .net (rtl-gen --compose: TOP_model.c, or the
 * verilated TOP_rtl.h, or both in lock-step; all alike or chosen per NIC), each with its own
 * 4-port host memory (testbench/lib/hostmem), joined by a testbench/lib/wire (point-to-point
 * or a switch).
 * Ports are found by name in the composite's .iface at run time, so one harness serves
 * every composition: rx_frame / tx_frame carry Ethernet frames, every INST_dma_req /
 * INST_dma_resp pair is one host-memory port, any other top stream is a queue the test
 * feeds (nic_tb_push) or drains (nic_tb_pop). A small driver API on top does what a host
 * driver does: commands, WQEs in host memory, doorbells, CQ polling.
 *
 * Plain C testbench code: heap, stdio; not HLS-C. */
#ifndef NIC_TB_H
#define NIC_TB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nic_if.h"
#include "../lib/hostmem.h"
#include "../lib/wire.h"
#include "../../rtl-gen/wrap/iface_read.h"

/* The composite model: the generated C function and, optionally, the verilated model's C
 * API. NIC_TB_MODEL(top) fills both from TOP / TOP_rtl_* (include TOP_rtl.h first). */
typedef struct {
    const char *iface; /* path of the composite's .iface */
    void (*c_step)(const void *in, void *out, void *state);
    void *(*rtl_new)(void);
    void (*rtl_eval)(void *m, const void *in, void *out);
    void (*rtl_edge)(void *m);
    void (*rtl_free)(void *m);
    /* optional: TOP_rtl_read_regs, for nic_tb_config_t.regs_check_every (lock-step) */
    void (*rtl_read_regs)(void *m, void *state);
    /* optional: TOP_rtl_read_state (memory cells too), for nic_tb_compare_state */
    void (*rtl_read_state)(void *m, void *state);
    /* optional: TOP_rtl_scramble, for nic_tb_config_t.rtl_scramble_seed */
    void (*rtl_scramble)(void *m, unsigned long long seed);
} nic_tb_model_t;

#define NIC_TB_RTL_FNS(top)                                                                  \
    .rtl_new = (void *(*)(void))top##_rtl_new,                                             \
    .rtl_eval = (void (*)(void *, const void *, void *))top##_rtl_eval,                    \
    .rtl_edge = (void (*)(void *))top##_rtl_edge, .rtl_free = (void (*)(void *))top##_rtl_free, \
    .rtl_read_regs = (void (*)(void *, void *))top##_rtl_read_regs,                           \
    .rtl_read_state = (void (*)(void *, void *))top##_rtl_read_state,                         \
    .rtl_scramble = (void (*)(void *, unsigned long long))top##_rtl_scramble

typedef enum {
    NIC_TB_C = 0,        /* the generated C model */
    NIC_TB_RTL = 1,      /* the verilated RTL */
    NIC_TB_LOCKSTEP = 2, /* both on the same inputs, every output compared every cycle */
    NIC_TB_PER_NIC = 3,  /* each NIC one of the three above: nic_tb_config_t.nic_mode[n] (a
                            function moved between the C model and the RTL: mig_scen) */
} nic_tb_mode_t;

#define NIC_TB_MAX_NICS 8

/* Optional DMA backend (testbench/platform: DMA carried as PCIe TLPs): when eval is set, every
 * DMA port of every NIC reaches it instead of the NIC's own host memory, under hostmem's cycle
 * contract (hostmem.h): eval gives port `port` of NIC `nic` its outputs for this cycle (from
 * registers only), edge takes the NIC's outputs of that port, tick is the clock edge of the
 * NIC's ports. The NIC's hostmem then sees no DMA (the driver helpers below still use it). */
typedef struct {
    void *ctx;
    void (*eval)(void *ctx, unsigned nic, unsigned port, hostmem_port_out_t *out);
    void (*edge)(void *ctx, unsigned nic, unsigned port, const hostmem_port_in_t *in);
    void (*tick)(void *ctx, unsigned nic);
} nic_tb_dma_t;

typedef struct {
    unsigned nics;          /* 1..NIC_TB_MAX_NICS */
    nic_tb_mode_t mode;
    nic_tb_mode_t nic_mode[NIC_TB_MAX_NICS]; /* mode NIC_TB_PER_NIC: NIC n's model */
    bool use_switch;        /* a learning switch instead of a point-to-point link (nics == 2) */
    wire_config_t wire;
    hostmem_config_t mem;   /* nports is set to the model's DMA port count */
    uint64_t seed;          /* output back-pressure on test-drained streams */
    unsigned backpressure_pct; /* % of cycles a drained stream's ready is low */
    /* Lock-step only: every this many cycles (0: never) also compare every register and
     * memory read-data register of the C model's state with the RTL's (TOP_rtl_read_regs),
     * so a divergence is caught where it starts, named by register, not only when it
     * reaches an output. */
    unsigned regs_check_every;
    /* Not 0: every verilated NIC starts with random values (from this seed and the NIC's
     * index) in the registers that have no reset, as hardware may after a reset; the C model
     * keeps its zeros. 0: they start at zero, as in the C model (docs/rtl-gen.md, "Reset
     * policy"). Needs the model's rtl_scramble. */
    uint64_t rtl_scramble_seed;
    /* 0 or 1: every NIC's model runs on the calling thread. 2..8: each cycle the NICs' models
     * (C, RTL or both) run on this many threads side by side, NIC n on thread n % threads
     * (thread 0 is the caller); the wire, host memories and test queues stay on the caller,
     * so a run is bit-identical to the same seed on one thread. */
    unsigned threads;
    nic_tb_dma_t dma;       /* all NULL: each NIC's own hostmem */
    /* the local ACK timeout exponent nic_tb_modify_qp_rts gives (4.096 us * 2^t); 0 -> 14,
     * what rdma-core's programs ask for */
    unsigned qp_timeout;
} nic_tb_config_t;

typedef struct nic_tb nic_tb_t;

void nic_tb_config_default(nic_tb_config_t *c);
/* NULL and a message on stderr when the interface cannot be read or a mode needs an RTL
 * model that was not given (naming the NIC). */
nic_tb_t *nic_tb_new(const nic_tb_model_t *m, const nic_tb_config_t *c);
void nic_tb_free(nic_tb_t *tb);

uint64_t nic_tb_now(const nic_tb_t *tb);
/* The model NIC nic runs: C, RTL or lock-step (config.mode, or its nic_mode[nic]). */
nic_tb_mode_t nic_tb_mode(const nic_tb_t *tb, unsigned nic);
/* "C model", "RTL", "lock-step" (for messages) */
const char *nic_tb_mode_name(nic_tb_mode_t mode);
hostmem_t *nic_tb_mem(nic_tb_t *tb, unsigned nic);
wire_t *nic_tb_wire(nic_tb_t *tb);
/* Lock-step: 0 while C and RTL agree; else the first mismatch ("cycle 12 nic 0: out
 * rxd_req_pkt_valid C=0x1 RTL=0x0"). */
const char *nic_tb_mismatch(const nic_tb_t *tb);
/* Lock-step: compare the whole state of every NIC in lock-step, C model against RTL (every register,
 * memory read-data register and memory cell: context tables included). True when equal;
 * false when a mismatch was recorded before (it is kept) or is found now (it becomes the
 * mismatch: "cycle 9 nic 0: memory resp.st_qpc cell 17 byte 3 C=0x.. RTL=0x.."); also false,
 * with that reason as the mismatch, when no NIC is in lock-step or without the model's rtl_read_state. */
bool nic_tb_compare_state(nic_tb_t *tb);
/* The RTL model of nic (NULL in C mode), e.g. for TOP_rtl_trace(nic_tb_rtl(tb, 1), "x.fst")
 * with a model built by build-model --trace. */
void *nic_tb_rtl(nic_tb_t *tb, unsigned nic);

/* One clock cycle of every NIC, its host memory and the wire. */
void nic_tb_step(nic_tb_t *tb);
void nic_tb_run(nic_tb_t *tb, uint64_t cycles);
/* One cycle in which the completer's clock skips `skip` cycles after the edge (its
 * comp_time_skip input): the harness's cycle, and every host memory's, advance by 1 + skip.
 * Exact only when nothing else would have changed in the skipped cycles but periodic idle
 * state (clock_jump.h decides that); false, and nothing done, when the model has no such
 * input and skip != 0. */
bool nic_tb_step_skip(nic_tb_t *tb, uint32_t skip);
/* Nothing waits to enter nic: no item queued on an input stream, no received frame queued,
 * no frame half sent, no DMA outstanding in its host memory (a detached NIC is quiet). */
bool nic_tb_quiet(const nic_tb_t *tb, unsigned nic);
/* The model's whole state in the C layout (the RTL's through rtl_read_state in RTL mode; the
 * C model's in C and lock-step mode): false when the RTL model cannot be read. */
bool nic_tb_read_state(const nic_tb_t *tb, unsigned nic, void *state);
/* The composite's interface (leaf, register and memory offsets of the state). */
const ifc_t *nic_tb_iface(const nic_tb_t *tb);
/* Steps until cond(tb, arg) holds (checked before each step); false after max cycles. */
bool nic_tb_run_until(nic_tb_t *tb, bool (*cond)(nic_tb_t *, void *), void *arg, uint64_t max);

/* ---- test-fed and test-drained streams (name: the top stream, e.g. "rxd_req_pkt") ---- */
/* Queue one item of `size` bytes (the C struct of the stream's data) on input stream
 * `name`; -1 if the model has no such input stream or the size does not fit it. */
int nic_tb_push(nic_tb_t *tb, unsigned nic, const char *name, const void *data, size_t size);
/* Take the oldest item the model produced on output stream `name`: 1, or 0 when none. */
int nic_tb_pop(nic_tb_t *tb, unsigned nic, const char *name, void *data, size_t size);
/* Items waiting: queued on an input stream, or produced and not popped on an output. */
unsigned nic_tb_pending(const nic_tb_t *tb, unsigned nic, const char *name);
bool nic_tb_has_stream(const nic_tb_t *tb, const char *name);
/* Debugging only: the C model's state bytes of nic (the composite's state struct). */
uint8_t *nic_tb_c_state(nic_tb_t *tb, unsigned nic);
/* Value of an output port leaf that is not a stream (a counter), by name; 0 if absent. */
uint64_t nic_tb_out(const nic_tb_t *tb, unsigned nic, const char *name);

/* ---- frames ---------------------------------------------------------------------------- */
/* Put a frame on nic's receive side directly (as if it came from the wire). */
void nic_tb_inject(nic_tb_t *tb, unsigned nic, const uint8_t *frame, size_t len);
uint64_t nic_tb_frames_sent(const nic_tb_t *tb, unsigned nic);
uint64_t nic_tb_frames_received(const nic_tb_t *tb, unsigned nic); /* fed into frame_in */
/* Frames waiting for frame_in (injected or from the wire, not yet taken whole), and whether
 * that queue is full (nic_tb_inject would drop the next one). */
unsigned nic_tb_rx_queued(const nic_tb_t *tb, unsigned nic);
/* Called for every frame queued for a NIC's frame_in (from the wire or injected), in
 * arrival order, with the cycle it arrived at the NIC's port: when a frame waited in front of
 * the NIC (frame_in not ready) and when inside it can be told apart. NULL: none. */
typedef void (*nic_tb_rx_tap_fn)(void *arg, unsigned nic, const uint8_t *frame, size_t len, uint64_t cycle);
void nic_tb_set_rx_tap(nic_tb_t *tb, nic_tb_rx_tap_fn fn, void *arg);
bool nic_tb_rx_full(const nic_tb_t *tb, unsigned nic);
/* Transfers on nic's top-level streams so far (every valid && ready edge: commands,
 * doorbells, DMA requests and beats, frame beats): unchanged over N cycles means the NIC did
 * nothing its host or wire could see in them (testbench/device sleeps on that). */
uint64_t nic_tb_transfers(const nic_tb_t *tb, unsigned nic);

/* Send a frame from nic's wire port now, as if its transmitter had (a frame the firmware
 * builds, e.g. a gratuitous ARP); the wire's return code (WIRE_OK or WIRE_ERR_*). */
int nic_tb_send_frame(nic_tb_t *tb, unsigned nic, const uint8_t *frame, size_t len);

/* ---- migration: a NIC leaves, a VM's memory and driver state move ------------------------ */
/* nic is removed: from now on it is not stepped (its model, host memory and queues freeze)
 * and its wire port is silent (it sends nothing; frames the wire delivers to it are dropped
 * and counted). Irreversible. */
void nic_tb_detach(nic_tb_t *tb, unsigned nic);
bool nic_tb_attached(const nic_tb_t *tb, unsigned nic);
uint64_t nic_tb_frames_dropped_detached(const nic_tb_t *tb, unsigned nic);
/* The VM moves from NIC `from` to NIC `to` (the hypervisor's stop-and-copy; IOVA = VA, so
 * addresses are the same): every page of from's host memory (hostmem_copy_all), and the host
 * driver's own state of function fn (ring producer indices, CQ consumer indices, ring bases)
 * so nic_tb_post_* / nic_tb_poll_cq on `to` continue where they stopped on `from`. 0 or -1. */
int nic_tb_move_host(nic_tb_t *tb, unsigned from, unsigned to, nic_fn_t fn);
const nic_tb_config_t *nic_tb_config(const nic_tb_t *tb);

/* ---- driver: what a host driver does (needs ctrl/requester/responder/cq_writer) -------- */
/* Issue a command on ctrl_cmd and wait (up to 100000 cycles) for its response: the
 * response status, or -1 when the model has no command interface or none came. */
int nic_tb_cmd(nic_tb_t *tb, unsigned nic, const nic_cmd_t *cmd, nic_cmd_resp_t *resp);
int nic_tb_set_fn(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint64_t mac, uint32_t ip);
int nic_tb_create_cq(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t cqn, uint64_t base, unsigned log);
typedef struct {
    uint32_t qpn;
    uint64_t sq_base, rq_base;
    unsigned sq_log, rq_log;
    uint32_t send_cqn, recv_cqn;
    uint32_t pd;
    uint8_t access;
} nic_tb_qp_t;
int nic_tb_create_qp(nic_tb_t *tb, unsigned nic, nic_fn_t fn, const nic_tb_qp_t *qp);
/* RESET -> INIT -> RTR -> RTS with the peer's numbers (ibv_modify_qp as rdma-core does). */
int nic_tb_modify_qp_rts(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t qpn, uint32_t dest_qpn,
                         uint64_t dst_mac, uint32_t dst_ip, uint32_t sq_psn, uint32_t rq_psn,
                         unsigned pmtu);
int nic_tb_reg_mr(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t key, uint64_t base, uint64_t len,
                  uint32_t pd, uint8_t access);
/* Write a WQE into the SQ/RQ ring in host memory and ring the doorbell. */
int nic_tb_post_send(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t qpn, const nic_sq_wqe_t *wqe);
int nic_tb_post_recv(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t qpn, const nic_rq_wqe_t *wqe);
/* Poll one CQE by its owner bit; on success rings the CQ doorbell with the new consumer
 * index and returns 1; 0 if none is there. */
int nic_tb_poll_cq(nic_tb_t *tb, unsigned nic, nic_fn_t fn, uint32_t cqn, nic_cqe_t *cqe);

#endif
