/* nic_if.h — the contracts between the NIC's HLS-C blocks and between the NIC and its host.
 *
 * docs/nic-architecture.md draws the blocks; this header is the exact shape of every stream
 * that joins them and of every structure the host shares with the device (WQE, CQE). A block
 * includes it and nic_types.h; the testbench includes it to drive the NIC's top ports.
 *
 * Block graph (every arrow is a FIFO of the .net composition, except those marked "top"):
 *
 *   top cmd ──> ctrl ──cfg──> requester, responder, completer, cq_writer, rx_dispatch
 *               ctrl <──event── completer, responder, cq_writer, rx_dispatch, roce_tx, requester
 *               ctrl ──> top cmd_resp, async
 *   top sq_db ──> requester ──wqe_rec──> completer ──req_ctl──> requester
 *   top rq_db ──> responder            top cq_db ──> cq_writer
 *   requester ──tx desc+pay──> tx_arb <──tx desc+pay── responder
 *   tx_arb ──> roce_tx ──> top frame_out          top frame_in ──> roce_rx ──> rx_dispatch
 *   rx_dispatch ──request packets──> responder ;  rx_dispatch ──response packets──> completer
 *   responder, completer ──cqe──> cq_writer
 *   requester, responder, completer, cq_writer: one DMA master port each (top dma_req/dma_resp)
 *
 * Sizes are compile-time constants below; a context index ("qp", "cq", "mr") is the row of
 * the device's context tables, a number ("qpn", "key") is what software and the wire see.
 */
#ifndef NIC_IF_H
#define NIC_IF_H

#include "hls.h"
#include "nic_types.h"
#include "nic_wr.h"
#include "roce_mr.h"

/* ---- namespaces --------------------------------------------------------------------- */
/* Several PCIe functions (PF + VFs), each with its own QP, CQ and MR namespace (DA1): a VF's
 * QPNs and keys can be recreated exactly on another device. Context rows:
 *   qp = fn * NIC_QP_PER_FN + (qpn % NIC_QP_PER_FN)     the row stores the full qpn; a
 *                                                         packet or doorbell whose qpn differs
 *                                                         from the row's is for no QP
 *   cq = fn * NIC_CQ_PER_FN + (cqn % NIC_CQ_PER_FN)
 *   mr = fn * NIC_MR_PER_FN + ((key >> 8) % NIC_MR_PER_FN)   key low 8 bits: software's tag
 * Incoming packets find their function by destination IPv4 address (each function has its
 * own MAC and IP, set by NIC_CMD_SET_FN). */
#define NIC_FN_BITS 2
#define NIC_FNS (1 << NIC_FN_BITS)            /* 4 functions */
#define NIC_QP_SLOT_BITS 4
#define NIC_QP_PER_FN (1 << NIC_QP_SLOT_BITS) /* 16 QPs per function */
#define NIC_QP_BITS (NIC_FN_BITS + NIC_QP_SLOT_BITS)
#define NIC_QPS (1 << NIC_QP_BITS)            /* 64 QP contexts */
#define NIC_CQ_BITS NIC_QP_BITS
#define NIC_CQS (1 << NIC_CQ_BITS)            /* 64 CQ contexts */
#define NIC_CQ_PER_FN NIC_QP_PER_FN
#define NIC_MR_SLOT_BITS 6
#define NIC_MR_PER_FN (1 << NIC_MR_SLOT_BITS) /* 64 MRs per function */
#define NIC_MR_BITS (NIC_FN_BITS + NIC_MR_SLOT_BITS)
#define NIC_MRS (1 << NIC_MR_BITS)            /* 256 MR contexts */
#define NIC_OUTSTANDING_BITS 4
#define NIC_OUTSTANDING (1 << NIC_OUTSTANDING_BITS) /* started, unretired send WQEs per QP */

typedef hls_uint(NIC_FN_BITS) nic_fn_t;
typedef hls_uint(NIC_QP_BITS) nic_qp_t;
typedef hls_uint(NIC_CQ_BITS) nic_cq_t;
typedef hls_uint(NIC_MR_BITS) nic_mr_t;

/* The MR row of key in function fn (the "mr =" line above): ctrl, the requester and the
 * responder index their MR tables with it. */
HLS_INLINE nic_mr_t nic_mr_of_key(nic_fn_t fn, uint32_t key) {
    return (nic_mr_t)(((unsigned)fn << NIC_MR_SLOT_BITS) | ((key >> 8) % NIC_MR_PER_FN));
}

/* ---- host memory structures (little-endian; docs/nic-host-interface.md) --------------- */
/* Send queue: a ring of 2^sq_log 64-byte WQEs at sq_base; the host writes WQE i at
 * sq_base + 64 * (i mod 2^sq_log), then rings the SQ doorbell with producer index i + 1.
 * The opcodes NIC_WR_* are in nic_wr.h. */
enum { NIC_WQE_SIGNALED = 1, NIC_WQE_SOLICITED = 2 };
typedef struct {
    uint64_t wr_id;        /*  0 returned in the CQE */
    uint8_t opcode;        /*  8 NIC_WR_* */
    uint8_t flags;         /*  9 NIC_WQE_* */
    uint16_t rsvd0;        /* 10 */
    uint32_t imm;          /* 12 immediate data, host order (sent big-endian in ImmDt) */
    uint64_t local_addr;   /* 16 local buffer (IOVA = VA); READ/atomic results land here */
    uint32_t length;       /* 24 bytes; atomics: 8 */
    uint32_t lkey;         /* 28 */
    uint64_t remote_addr;  /* 32 WRITE/READ/atomic target */
    uint32_t rkey;         /* 40 */
    uint32_t rsvd1;        /* 44 */
    uint64_t compare;      /* 48 CAS compare value */
    uint64_t swap_add;     /* 56 CAS swap value / FAA add value */
} nic_sq_wqe_t;            /* 64 bytes: one DMA beat */

/* Receive queue: a ring of 2^rq_log 32-byte WQEs at rq_base, one buffer each. */
typedef struct {
    uint64_t wr_id;        /*  0 */
    uint64_t addr;         /*  8 */
    uint32_t length;       /* 16 */
    uint32_t lkey;         /* 20 */
    uint64_t rsvd;         /* 24 */
} nic_rq_wqe_t;            /* 32 bytes */

/* Completion queue: a ring of 2^cq_log 32-byte CQEs at cq_base. The device writes CQE n at
 * cq_base + 32 * (n mod 2^cq_log) with the owner bit set when bit cq_log of n is 0: 1 on the
 * first pass through the ring, 0 on the second, and so on; the host consumes while
 * the owner bit of the next entry equals its own pass parity and reports its consumer index
 * with the CQ doorbell (the device never overwrites an unconsumed entry: CQ overrun is an
 * error, NIC_EV_CQ_ERR). */
enum { /* completion opcodes: the values of enum ibv_wc_opcode (libibverbs 44) */
    NIC_WC_SEND = 0,
    NIC_WC_RDMA_WRITE = 1,
    NIC_WC_RDMA_READ = 2,
    NIC_WC_COMP_SWAP = 3,
    NIC_WC_FETCH_ADD = 4,
    NIC_WC_RECV = 128,
    NIC_WC_RECV_RDMA_WITH_IMM = 129,
};
enum { /* completion status: the values of enum ibv_wc_status (libibverbs 44) */
    NIC_WC_SUCCESS = 0,
    NIC_WC_LOC_LEN_ERR = 1,
    NIC_WC_LOC_QP_OP_ERR = 2,
    NIC_WC_LOC_PROT_ERR = 4,
    NIC_WC_WR_FLUSH_ERR = 5,
    NIC_WC_BAD_RESP_ERR = 7,
    NIC_WC_REM_INV_REQ_ERR = 9,
    NIC_WC_REM_ACCESS_ERR = 10,
    NIC_WC_REM_OP_ERR = 11,
    NIC_WC_RETRY_EXC_ERR = 12,
    NIC_WC_RNR_RETRY_EXC_ERR = 13,
};
enum { NIC_CQE_WITH_IMM = 1, NIC_CQE_OWNER = 0x80 };
typedef struct {
    uint64_t wr_id;        /*  0 */
    uint32_t byte_len;     /*  8 */
    uint32_t imm;          /* 12 host order */
    uint32_t qpn;          /* 16 low 24 bits */
    uint8_t opcode;        /* 20 NIC_WC_* */
    uint8_t status;        /* 21 NIC_WC_* status */
    uint8_t flags;         /* 22 NIC_CQE_WITH_IMM */
    uint8_t owner;         /* 23 NIC_CQE_OWNER bit = pass parity (1 on the first pass) */
    uint64_t rsvd;         /* 24 */
} nic_cqe_t;               /* 32 bytes */

/* ---- DMA master port (one per block that touches host memory) ------------------------ */
/* Matches testbench/lib/hostmem.h: a read (len 1..4096) answers with ceil(len/64) beats in
 * request order, beat i = request bytes [64i, 64i+64) in the low bytes of data; a write is
 * one beat of len 1..64 bytes (byte i of data to addr + i), posted (no response). Writes and
 * reads of one port are applied in order; across ports in acceptance order (PCIe, no relaxed
 * ordering), so a block's data write accepted before another block's CQE write is visible
 * first. */
typedef struct {
    bool write;
    uint16_t tag;          /* read: echoed in its response beats */
    uint64_t addr;
    hls_uint(13) len;
    hls_u512 data;         /* write data */
} nic_dma_req_t;
typedef struct {
    uint16_t tag;
    hls_u512 data;
    hls_uint(7) bytes;     /* 1..64 */
    bool last;
    bool err;              /* malformed read: one beat, no data */
} nic_dma_resp_t;

/* ---- command interface (host/firmware -> ctrl) ---------------------------------------- */
enum {
    NIC_CMD_NOP = 0,
    NIC_CMD_SET_FN = 1,     /* fn's MAC (arg.mac) and IPv4 address (arg.ip) */
    NIC_CMD_CREATE_CQ = 2,  /* num = cqn; base, log */
    NIC_CMD_DESTROY_CQ = 3,
    NIC_CMD_CREATE_QP = 4,  /* num = qpn; qp attributes (state RESET) */
    NIC_CMD_MODIFY_QP = 5,  /* num = qpn; mask = NIC_QPA_* of the attributes to change */
    NIC_CMD_QUERY_QP = 6,   /* answer: resp.qp */
    NIC_CMD_DESTROY_QP = 7,
    NIC_CMD_REG_MR = 8,     /* num = key; mr attributes */
    NIC_CMD_DEREG_MR = 9,
    NIC_CMD_QUIESCE_QP = 10,/* arg.quiesce: stop (1) or restart (0) the QP between packets */
    /* migration (docs/migration.md): issued by the migration firmware for function fn */
    NIC_CMD_SUSPEND_FN = 11,/* level = NIC_SUSPEND_*; answered once the function has stopped */
    NIC_CMD_CTX_READ = 12,  /* num = row within fn; ctx_sect, ctx_word -> resp.ctx_data */
    NIC_CMD_CTX_WRITE = 13, /* num, ctx_sect, ctx_word, ctx_data; only while fn is PASSIVE */
    NIC_CMD_THROTTLE = 14,  /* rate: host-memory write budget, bytes per 1024 cycles; 0 = off */
};
/* Suspend levels of a function (docs/migration.md section 2). */
enum { NIC_SUSPEND_RUN = 0, NIC_SUSPEND_ACTIVE = 1, NIC_SUSPEND_PASSIVE = 2 };
/* Context sections (docs/migration.md section 3): which block's row a CTX command reaches.
 * A word is 128 bits; each block's doc gives the layout of its words. */
enum {
    NIC_CTX_CTRL_QP = 1,      /* ctrl: QP attributes, valid               (row: QP slot) */
    NIC_CTX_CTRL_CQ = 2,      /* ctrl: cqn, base, log, valid              (row: CQ slot) */
    NIC_CTX_CTRL_MR = 3,      /* ctrl: key, pd, base, len, access, valid  (row: MR slot) */
    NIC_CTX_REQ_QP = 4,       /* requester: send position                 (row: QP slot) */
    NIC_CTX_COMP_QP = 5,      /* completer: retry state, READ offset       (row: QP slot) */
    NIC_CTX_RESP_QP = 6,      /* responder: receive position, open message (row: QP slot) */
    NIC_CTX_RESP_ATOM = 7,    /* responder: replay slot = word             (row: QP slot) */
    NIC_CTX_CQW_CQ = 8,       /* cq_writer: pi, ci, arm, error             (row: CQ slot) */
    NIC_CTX_FN = 9,           /* rx_dispatch: the function's MAC and IPv4  (row 0) */
    NIC_CTX_DIRTY = 10,       /* read-and-clear dirty-row bits of the function; num = owner
                                 section (NIC_CTX_*), word 0: bits 0..127 of the rows */
};
/* Which transmit source a migration marker came from (nic_event_t.detail of NIC_EV_MIG_MARK
 * raised by roce_tx; roce_hdr_t.mig_mark). */
enum { NIC_MARK_SRC_REQ = 1, NIC_MARK_SRC_RESP = 2 };
enum { /* QP states (values of enum ibv_qp_state) */
    NIC_QPS_RESET = 0, NIC_QPS_INIT = 1, NIC_QPS_RTR = 2, NIC_QPS_RTS = 3,
    NIC_QPS_SQD = 4, NIC_QPS_SQE = 5, NIC_QPS_ERR = 6,
};
enum { /* MODIFY_QP attribute mask (a subset of enum ibv_qp_attr_mask, same bit values) */
    NIC_QPA_STATE = 1 << 0,
    NIC_QPA_CUR_STATE = 1 << 1, /* cur_state: must equal the QP's state (a check, not a change) */
    NIC_QPA_ACCESS = 1 << 3,
    NIC_QPA_PKEY_INDEX = 1 << 4,/* pkey_index: 0 only (one P_Key, 0xFFFF) */
    NIC_QPA_PORT = 1 << 5,      /* port_num: 1 only */
    NIC_QPA_PATH_MTU = 1 << 8,
    NIC_QPA_TIMEOUT = 1 << 9,
    NIC_QPA_RETRY_CNT = 1 << 10,
    NIC_QPA_RNR_RETRY = 1 << 11,
    NIC_QPA_RQ_PSN = 1 << 12,
    NIC_QPA_MAX_QP_RD_ATOMIC = 1 << 13,  /* max_rd_atomic */
    NIC_QPA_MIN_RNR_TIMER = 1 << 15,
    NIC_QPA_SQ_PSN = 1 << 16,
    NIC_QPA_MAX_DEST_RD_ATOMIC = 1 << 17,/* max_dest_rd_atomic */
    NIC_QPA_AV = 1 << 7,        /* destination MAC and IP, UDP source port */
    NIC_QPA_DEST_QPN = 1 << 20,
    NIC_QPA_BACKOFF = 1 << 30,  /* hlsnic: backoff, backoff_first, backoff_cap */
};
/* ibv_modify_qp's ALT_PATH, PATH_MIG_STATE, EN_SQD_ASYNC_NOTIFY, QKEY and CAP bits are not
 * NIC_QPA_* bits: MODIFY_QP rejects them (EINVAL, NIC_CMD_F_MASK). */
/* Largest max_rd_atomic (READ/atomic requests this QP may have in flight: bounded by the
 * outstanding send WQEs) and max_dest_rd_atomic (the peer's: bounded by the responder's atomic
 * replay cache, RSP_ATOM_SLOTS in hls/responder/responder.h). */
#define NIC_MAX_RD_ATOMIC NIC_OUTSTANDING
#define NIC_MAX_DEST_RD_ATOMIC 4
/* access flags NIC_ACC_*: roce_mr.h */
/* Everything a QP context holds that software sets. */
typedef struct {
    hls_uint(3) state;        /* NIC_QPS_* */
    hls_uint(3) pmtu;         /* enum ibv_mtu: 1 = 256 ... 5 = 4096 */
    hls_u24 qpn;
    hls_u24 dest_qpn;
    hls_u24 sq_psn;           /* first PSN the requester sends (RTR->RTS) */
    hls_u24 rq_psn;           /* first PSN the responder expects (INIT->RTR) */
    uint64_t dst_mac;
    uint32_t dst_ip;
    uint16_t udp_sport;
    uint32_t pd;
    uint8_t access;           /* NIC_ACC_REMOTE_*: what peers may do to this QP's MRs */
    hls_uint(5) timeout;      /* local ACK timeout: 4.096 us * 2^timeout; 0 = infinite */
    hls_uint(3) retry_cnt;
    hls_uint(3) rnr_retry;    /* 7 = infinite */
    hls_uint(5) min_rnr_timer;/* IB encoding (9.7.5.2.8); sent in RNR NAKs */
    bool backoff;             /* DA3: exponential backoff mode */
    hls_uint(5) backoff_first;/* first timeout exponent in backoff mode */
    hls_uint(5) backoff_cap;  /* largest timeout exponent in backoff mode */
    uint64_t sq_base;
    uint64_t rq_base;
    hls_uint(5) sq_log;       /* ring sizes, log2 entries */
    hls_uint(5) rq_log;
    nic_cq_t send_cq;
    nic_cq_t recv_cq;
    /* what ibv_modify_qp / ibv_query_qp carry that the datapath does not act on (yet): ctrl
     * checks, keeps and returns them; the blocks get them in NIC_CFG_QP like the rest */
    uint16_t pkey_index;      /* 0 */
    uint8_t port_num;         /* 1 */
    uint8_t max_rd_atomic;    /* 0..NIC_MAX_RD_ATOMIC */
    uint8_t max_dest_rd_atomic; /* 0..NIC_MAX_DEST_RD_ATOMIC */
    hls_uint(3) cur_state;    /* MODIFY_QP with NIC_QPA_CUR_STATE only; QUERY_QP: = state */
} nic_qp_attr_t;

typedef struct {
    uint8_t op;               /* NIC_CMD_* */
    nic_fn_t fn;              /* issuing function: every number below is in its namespace */
    uint32_t num;             /* qpn, cqn or key */
    uint32_t mask;            /* MODIFY_QP */
    nic_qp_attr_t qp;         /* CREATE_QP, MODIFY_QP */
    uint64_t base;            /* CREATE_CQ ring base; REG_MR start VA */
    uint64_t len;             /* REG_MR length */
    hls_uint(5) log;          /* CREATE_CQ ring size, log2 entries */
    uint32_t pd;              /* REG_MR */
    uint8_t access;           /* REG_MR NIC_ACC_* */
    uint64_t mac;             /* SET_FN */
    uint32_t ip;              /* SET_FN */
    bool quiesce;             /* QUIESCE_QP */
    hls_uint(2) level;        /* SUSPEND_FN: NIC_SUSPEND_* */
    uint8_t ctx_sect;         /* CTX_READ / CTX_WRITE: NIC_CTX_* */
    uint8_t ctx_word;         /* CTX_READ / CTX_WRITE: 128-bit word of the row */
    hls_u128 ctx_data;        /* CTX_WRITE */
    uint32_t rate;            /* THROTTLE */
} nic_cmd_t;

enum {
    NIC_CMD_OK = 0,
    NIC_CMD_EINVAL = 1,       /* bad argument (field named by resp.bad_field) */
    NIC_CMD_EEXIST = 2,       /* the row is taken */
    NIC_CMD_ENOENT = 3,       /* no such object */
    NIC_CMD_EBUSY = 4,        /* object in use (a CQ with QPs) */
    NIC_CMD_ESTATE = 5,       /* transition not allowed from the current state */
};
/* nic_cmd_resp_t.bad_field: which argument of a command was rejected (EINVAL / ESTATE). */
enum {
    NIC_CMD_F_NONE = 0,
    NIC_CMD_F_OP = 1,            /* unknown command */
    NIC_CMD_F_NUM = 2,           /* qpn / cqn out of range (CREATE_QP: qpn 0 and 1 too) */
    NIC_CMD_F_MASK = 3,          /* MODIFY_QP mask bit that is not a NIC_QPA_* */
    NIC_CMD_F_STATE = 4,         /* target state invalid or transition not allowed */
    NIC_CMD_F_PATH_MTU = 5,
    NIC_CMD_F_AV = 6,            /* dst_mac / dst_ip */
    NIC_CMD_F_DEST_QPN = 7,
    NIC_CMD_F_RQ_PSN = 8,
    NIC_CMD_F_SQ_PSN = 9,
    NIC_CMD_F_TIMEOUT = 10,
    NIC_CMD_F_RETRY_CNT = 11,
    NIC_CMD_F_RNR_RETRY = 12,
    NIC_CMD_F_MIN_RNR_TIMER = 13,
    NIC_CMD_F_ACCESS = 14,
    NIC_CMD_F_BACKOFF = 15,      /* backoff_first == 0 or > backoff_cap */
    NIC_CMD_F_SQ = 16,           /* sq_base alignment / sq_log */
    NIC_CMD_F_RQ = 17,           /* rq_base alignment / rq_log */
    NIC_CMD_F_SEND_CQ = 18,      /* not a CQ of this function */
    NIC_CMD_F_RECV_CQ = 19,
    NIC_CMD_F_BASE = 20,         /* CREATE_CQ ring base alignment */
    NIC_CMD_F_LOG = 21,          /* CREATE_CQ ring size */
    NIC_CMD_F_LEN = 22,          /* REG_MR length 0 or base + len overflows */
    NIC_CMD_F_MAC = 23,          /* SET_FN: zero, multicast or wider than 48 bits */
    NIC_CMD_F_IP = 24,           /* SET_FN: 0.0.0.0 */
    NIC_CMD_F_CUR_STATE = 25,    /* MODIFY_QP: cur_state is not the QP's state */
    NIC_CMD_F_PKEY_INDEX = 26,   /* not 0 */
    NIC_CMD_F_PORT = 27,         /* not 1 */
    NIC_CMD_F_MAX_RD_ATOMIC = 28,      /* > NIC_MAX_RD_ATOMIC */
    NIC_CMD_F_MAX_DEST_RD_ATOMIC = 29, /* > NIC_MAX_DEST_RD_ATOMIC */
    NIC_CMD_F_LEVEL = 30,        /* SUSPEND_FN: unknown level, or not reachable from the
                                    function's level (ESTATE); CTX_WRITE while not PASSIVE */
    NIC_CMD_F_SECT = 31,         /* CTX_*: unknown section */
    NIC_CMD_F_WORD = 32,         /* CTX_*: word beyond the section's row */
};
typedef struct {
    uint8_t status;           /* NIC_CMD_OK or error */
    uint8_t bad_field;        /* which argument was wrong (NIC_CMD_F_*) */
    nic_qp_attr_t qp;         /* QUERY_QP */
    hls_u128 ctx_data;        /* CTX_READ */
} nic_cmd_resp_t;

/* ---- configuration fan-out (ctrl -> blocks) ------------------------------------------- */
/* ctrl owns the QP state machine; after a command succeeds it sends the row's complete new
 * attributes (and the state it came from) to every block that keeps a copy. */
enum {
    NIC_CFG_QP = 1,           /* qp row: attr, prev_state (attr.state is the new one) */
    NIC_CFG_CQ = 2,           /* cq row: base, log, valid */
    NIC_CFG_MR = 3,           /* mr row: key, pd, base, len, access, valid */
    NIC_CFG_FN = 4,           /* fn: mac, ip */
    NIC_CFG_QUIESCE = 5,      /* qp row: quiesce */
    NIC_CFG_SUSPEND = 6,      /* fn: level (docs/migration.md: stop, then send markers) */
    NIC_CFG_CTX = 7,          /* fn, row (qp / cq / mr: the absolute row), ctx_*: read, or
                                 write when ctx_write; the owner answers NIC_EV_CTX */
    NIC_CFG_THROTTLE = 8,     /* fn: rate (bytes per 1024 cycles, 0 = off) */
    NIC_CFG_QP_ATTR = 9,      /* qp row: attr (and valid) as the migration firmware loaded
                                 them into ctrl (CTX_WRITE of CTRL_QP's last word): take the
                                 attribute copies, keep the live state, no state transition */
};
typedef struct {
    uint8_t kind;             /* NIC_CFG_* */
    nic_fn_t fn;
    nic_qp_t qp;
    hls_uint(3) prev_state;
    nic_qp_attr_t attr;
    nic_cq_t cq;
    nic_mr_t mr;
    uint32_t key;             /* NIC_CFG_MR: the key; NIC_CFG_CQ: the cqn; NIC_CFG_CTX of
                                 NIC_CTX_DIRTY: the section whose dirty bits are asked */
    uint64_t base;
    uint64_t len;
    hls_uint(5) log;
    uint32_t pd;
    uint8_t access;
    bool valid;
    uint64_t mac;
    uint32_t ip;
    bool quiesce;
    hls_uint(2) level;        /* NIC_CFG_SUSPEND: RUN, or PASSIVE = stopped, which the blocks
                                 hear from Suspend-Active on (docs/migration.md 2) */
    bool ctx_write;           /* NIC_CFG_CTX */
    uint8_t ctx_sect;
    uint8_t ctx_word;
    hls_u128 ctx_data;
    uint32_t rate;            /* NIC_CFG_THROTTLE */
} nic_cfg_t;

/* The MR row a NIC_CFG_MR message carries, as the requester and the responder store it. */
HLS_INLINE nic_mr_row_t nic_cfg_mr_row(const nic_cfg_t *g) {
    return (nic_mr_row_t){.base = g->base, .len = g->len, .key = g->key, .pd = g->pd, .access = g->access,
                          .valid = g->valid};
}

/* ---- datapath events (blocks -> ctrl -> host) ---------------------------------------- */
enum {
    NIC_EV_QP_ERR = 1,        /* the QP must go to ERR (retry exceeded, fatal NAK, ...) */
    NIC_EV_SQ_ERR = 2,        /* the QP must go to SQE */
    NIC_EV_CQ_ERR = 3,        /* CQ overrun */
    NIC_EV_SQ_DRAINED = 4,    /* SQD: every WQE started before it is retired (completer;
                                 qp = row, cq = send CQ, detail 0) */
    NIC_EV_CQ_COMP = 5,       /* completion event of an armed CQ (cq = row; qp, detail = 0):
                                 cq_writer, after the CQE's write (nic_db_t.arm) */
    NIC_EV_CTX = 6,           /* answer to NIC_CFG_CTX: fn, data (the word read; a write
                                 answers with the word written) */
    NIC_EV_MIG_MARK = 7,      /* fn's migration marker reached ctrl (docs/migration.md);
                                 roce_tx: detail = NIC_MARK_SRC_* */
};
typedef struct {
    uint8_t kind;             /* NIC_EV_* */
    nic_qp_t qp;
    nic_cq_t cq;
    uint8_t detail;           /* a NIC_WC_* status that caused it */
    bool in_cqe;              /* NIC_EV_QP_ERR: an error CQE already reports it (the completer's
                                 errors, a responder error that ended a receive WQE); the host
                                 then raises no affiliated async event (IB 11.6.3) */
    nic_fn_t fn;              /* NIC_EV_CTX, NIC_EV_MIG_MARK */
    hls_u128 data;            /* NIC_EV_CTX */
} nic_event_t;

/* ---- doorbells (host MMIO -> requester / responder / cq_writer) --------------------- */
/* CQ arm (ibv_req_notify_cq): the CQ doorbell with arm = NIC_ARM_NEXT or NIC_ARM_SOLICITED
 * (nic_bar.h) arms the CQ; the first CQE written after the doorbell that matches the arm
 * disarms it and raises one NIC_EV_CQ_COMP. NEXT: any CQE. SOLICITED: a receive CQE whose
 * packet had the BTH SE bit (nic_cqe_req_t.solicited), or any CQE with status != SUCCESS
 * (IB vol. 1 11.4.2.2). An arm that finds CQEs past the doorbell's consumer index fires at
 * once (the host polls after arming, before the arm arrives: docs/cq-writer.md). An arm
 * does not weaken an earlier one (NEXT stays NEXT); NIC_ARM_NONE leaves the arm as it is. */
typedef struct {
    nic_fn_t fn;
    hls_u24 num;              /* qpn (SQ, RQ) or cqn (CQ) */
    uint16_t index;           /* SQ/RQ: producer index; CQ: consumer index */
    hls_uint(2) arm;          /* CQ only: NIC_ARM_* (nic_bar.h); 0 on SQ/RQ doorbells */
} nic_db_t;

/* ---- requester <-> completer ----------------------------------------------------------- */
/* One record per send WQE the requester starts (or flushes), in SQ order per QP. */
typedef struct {
    nic_qp_t qp;
    uint16_t wqe_index;       /* SQ index (not reduced mod ring size) */
    hls_u24 first_psn;
    hls_u24 last_psn;         /* PSN of the WQE's last request packet */
    uint8_t wr_opcode;        /* NIC_WR_* */
    bool signaled;
    bool flush;               /* not sent: complete with NIC_WC_WR_FLUSH_ERR */
    uint8_t status;           /* not 0: not sent, the requester found the WQE bad: complete
                                 it with this NIC_WC_* status (e.g. NIC_WC_LOC_QP_OP_ERR) */
    uint64_t wr_id;
    uint64_t local_addr;      /* READ / atomic: where the response data goes */
    uint32_t length;
    uint8_t sqd_mark;         /* not 0: no WQE, a marker (NIC_SQD_MARK_*) in the QP's record
                                 order: its SQ drain starts or ends here; only qp is valid */
} nic_wqe_rec_t;

/* SQ drain (IB vol. 1 10.3.1, RTS -> SQD): the requester starts no new WQE once it has
 * applied SQD and sends NIC_SQD_MARK_ENTER behind the last record it sent; when every WQE
 * ahead of the mark is retired the completer raises NIC_EV_SQ_DRAINED. Leaving SQD sends
 * NIC_SQD_MARK_LEAVE, which cancels an event not yet raised. Markers travel in the record
 * stream, so they cannot overtake a record nor be overtaken by one. */
enum { NIC_SQD_MARK_ENTER = 1, NIC_SQD_MARK_LEAVE = 2 };
/* sqd_mark = NIC_MIG_MARK: the migration marker of function qp >> NIC_QP_SLOT_BITS
 * (docs/migration.md): nothing of that function follows it until it leaves PASSIVE. */
enum { NIC_MIG_MARK = 3 };

enum {
    NIC_REQ_RETIRED = 1,      /* every WQE before wqe_index is retired (frees outstanding slots) */
    NIC_REQ_REWIND = 2,       /* go back: resend from PSN psn, psn_off PSNs into WQE wqe_index */
    NIC_REQ_STOP = 3,         /* QP failed: stop sending, flush what is left */
    NIC_REQ_MIG_MARK = 4,     /* migration marker of function qp >> NIC_QP_SLOT_BITS */
    NIC_REQ_REISSUE = 5,      /* as REWIND, for a READ/atomic the peer answered past (an ACK
                                 beyond it came): that request alone, then on from where the
                                 requester is (docs/requester.md "Retransmission"); for a
                                 SEND/WRITE: move a resend under way forward to the named PSN,
                                 applied only while the position is inside that WQE and behind
                                 it (a later sequence NAK; never moves a resend back) */
};
/* REWIND restarts where IB vol. 1 9.7.5.2 says, mid-message if need be: at the PSN a sequence
 * or RNR NAK names, or after the last PSN the peer acknowledged (timeout), or, for a READ, at
 * the first READ RESPONSE not received. psn_off = psn - the WQE's first PSN: the requester
 * resends a SEND/WRITE from payload byte psn_off * MTU (a MIDDLE or LAST packet when psn_off
 * is not 0) and re-issues a READ for the bytes from psn_off * MTU on. */
typedef struct {
    uint8_t kind;             /* NIC_REQ_* */
    nic_qp_t qp;
    uint16_t wqe_index;
    hls_u24 psn;
    hls_u24 psn_off;          /* REWIND: PSNs of WQE wqe_index before psn (0: whole message) */
    bool acked;               /* REISSUE of a READ/atomic: the ACK that went past it says the
                                 peer has every request up to acked_psn, so the requester
                                 resends none of them behind the re-issued one */
    hls_u24 acked_psn;
} nic_req_ctl_t;

/* ---- packets inside the NIC ------------------------------------------------------------ */
/* rx_dispatch -> responder / completer: a good frame's headers, its function and QP row,
 * followed on the payload stream by exactly ceil(payload_len / 64) beats. */
typedef struct {
    roce_hdr_t hdr;
    nic_fn_t fn;
    bool mig_mark;            /* no packet, no payload beats: fn's migration marker (only fn
                                 is meaningful; hdr is left as it happens to be) */
    bool gated;               /* no payload beats (payload_len 0): a request of a stopped
                                 function that rx_dispatch's gate dropped; the responder only
                                 notes that the QP's peer has sent (its resume NAK) */
} nic_rx_pkt_t;

/* ---- completions (responder / completer -> cq_writer) -------------------------------- */
typedef struct {
    nic_cq_t cq;
    bool solicited;           /* receive CQE of a SEND / WRITE_IMM whose last packet had BTH SE */
    nic_cqe_t cqe;            /* owner is filled in by cq_writer */
    bool mig_mark;            /* no CQE: the migration marker of function cq >> NIC_QP_SLOT_BITS */
} nic_cqe_req_t;

#endif /* NIC_IF_H */
