/* completer.h — ports, context rows and registers of the completer block (docs/completer.md).
 * Private to hls/completer: the contract types come from nic_if.h. */
#ifndef COMPLETER_H
#define COMPLETER_H

#include "hls.h"
#include "nic_if.h"
#include "nic_types.h"

typedef struct {
    HLS_STREAM(nic_cfg_t) cfg;
    HLS_STREAM(nic_wqe_rec_t) wqe_rec;
    HLS_STREAM(nic_rx_pkt_t) rx_pkt;
    HLS_STREAM(nic_beat_t) rx_pay;
    HLS_STREAM(nic_dma_resp_t) dma_resp; /* unused: the completer only writes */
    bool dma_req_ready;
    bool req_ctl_ready;
    bool cqe_ready;
    bool ev_ready;
    /* cycles the clock skips after this edge: `now` advances by 1 + time_skip. 0 in hardware;
     * the simulator's idle jump (docs/device.md "Idle: the clock jumps") sets it for one cycle */
    uint32_t time_skip;
} completer_in;

typedef struct {
    bool cfg_ready;
    bool wqe_rec_ready;
    bool rx_pkt_ready;
    bool rx_pay_ready;
    bool dma_resp_ready;
    HLS_STREAM(nic_dma_req_t) dma_req;
    HLS_STREAM(nic_req_ctl_t) req_ctl;
    HLS_STREAM(nic_cqe_req_t) cqe;
    HLS_STREAM(nic_event_t) ev;
    /* counters, mirrored from state */
    uint32_t acks;     /* response packets that moved a QP forward (ACK, READ resp, atomic ACK) */
    uint32_t naks;     /* NAK / RNR NAK packets acted upon */
    uint32_t timeouts; /* local ACK timer expiries */
    uint32_t retries;  /* REWINDs sent */
    uint32_t cqes;     /* CQEs sent */
    uint32_t dropped;  /* response packets that matched nothing (ghost, duplicate, stale) */
} completer_out;

/* One QP context row (32 bytes, no padding: memory words are compared byte for byte, so
 * only whole standard integers; PSNs are 24-bit values kept in uint32_t). */
typedef struct {
    uint64_t deadline;     /* cycle at which the armed timer fires */
    uint32_t qpn;          /* from cfg */
    uint32_t head_done;    /* PSNs of the head WQE that need no resend: a READ's responses
                              received (next PSN = first + head_done), a SEND/WRITE's packets
                              the peer acknowledged or a NAK's PSN implies; REWIND resumes at
                              first + head_done */
    uint8_t state;         /* NIC_QPS_* (from cfg) */
    uint8_t pmtu;          /* from cfg: enum ibv_mtu */
    uint8_t timeout;       /* from cfg: local ACK timeout exponent, 0 = infinite */
    uint8_t retry_cnt;     /* from cfg */
    uint8_t rnr_retry;     /* from cfg: 7 = infinite */
    uint8_t backoff;       /* from cfg: DA3 backoff mode */
    uint8_t backoff_first; /* from cfg */
    uint8_t backoff_cap;   /* from cfg */
    uint8_t send_cq;       /* from cfg */
    uint8_t head;          /* ring slot of the oldest outstanding WQE, 0..NIC_OUTSTANDING-1 */
    uint8_t count;         /* outstanding WQEs, 0..NIC_OUTSTANDING */
    uint8_t retries_left;
    uint8_t rnr_left;
    uint8_t armed;         /* timer armed */
    uint8_t cur_exp;       /* backoff mode: exponent of the running timeout */
    uint8_t rnr_wait;      /* the armed timer is an RNR wait, not the ACK timeout */
    uint8_t retrying;      /* a resend is under way (timeout or response): responses may
                              not start another until progress (rxe comp.started_retry);
                              timeouts may */
    uint8_t sqd_wait;      /* the SQD marker came: raise NIC_EV_SQ_DRAINED once count is 0 */
    uint8_t epoch;         /* the function's RUN epoch when the timer was last (re)armed: an
                              older one is re-armed with its full timeout (migration) */
    uint8_t keep_head;     /* loaded by a context write: the first record into the empty ring
                              keeps head_done, rd_start and the retry state (ring rebuild) */
    uint32_t rd_start;     /* head_done when the head READ's request was last (re)sent: its
                              first response is READ_RESPONSE_FIRST/ONLY there */
    uint32_t acked;        /* bit 31 set: an ACK said the peer has every request up to PSN
                              acked & 0xFFFFFF, but retired nothing because the oldest WQE, a
                              READ/atomic, lacked its response (9.7.5.1.4). SEND/WRITE WQEs up
                              to it retire as soon as they are the oldest, so the READ's re-issue
                              needs no second ACK for them (docs/completer.md "Retry") */
    uint32_t rsvd;         /* 0: keeps the row a multiple of 8 bytes with no padding */
} cmp_qpc_t;
/* cmp_qpc_t.acked bit 30: the kept PSN is a sequence NAK's PSN - 1 (completer.c acked_value) */
#define ACKED_NAK 0x40000000u
_Static_assert(sizeof(cmp_qpc_t) == 48, "qpc row: no padding");

/* One outstanding WQE (a wqe_rec without qp/flush), 40 bytes. A memory word may hold only
 * whole standard integers and no padding, so the 7 bytes after `status` are explicit
 * reserved fields (always 0). */
typedef struct {
    uint64_t wr_id;
    uint64_t local_addr;
    uint32_t length;
    uint32_t first_psn;
    uint32_t last_psn;
    uint16_t wqe_index;
    uint8_t opcode;        /* NIC_WR_* */
    uint8_t signaled;
    uint8_t status;        /* 0: sent; else not sent, completes with this NIC_WC_* status when it
                              is the oldest (WR_FLUSH_ERR: a flush record queued behind others) */
    uint8_t rsvd8;
    uint16_t rsvd16;
    uint32_t rsvd32;
} cmp_wrec_t;
_Static_assert(sizeof(cmp_wrec_t) == 40, "ring row: no padding");

/* What the latched packet means for the oldest WQE (completer.c judge): computed in the
 * cycle the ring's output is first seen (DISPATCH, JUDGE), acted on by EVAL the next. */
typedef struct {
    hls_uint(3) v;          /* verdict (V_*) */
    uint8_t status;         /* NIC_WC_* of a V_FATAL */
    uint32_t acked;         /* cmp_qpc_t.acked after the packet */
    uint32_t has;           /* PSNs of a SEND/WRITE head the peer has (peer_has) */
    bool nak_here;          /* a kept NAK's PSN lies in the head: resend from it now */
} cmp_judge_t;

/* The event being handled: what IDLE latched and what the states after it found out. Each
 * state reads it as registered at the clock edge (completer.c `e`, like the row `c_reg`) and
 * writes st->e, so no state's logic runs on into another's. */
typedef struct {
    hls_uint(3) op;         /* OP_* */
    hls_uint(3) act;        /* what the event asks for after retiring (ACT_*) */
    uint8_t act_status;     /* NIC_WC_* status of ACT_FAIL */
    nic_qp_t qp;            /* row of the event */
    uint8_t p_op;           /* latched response: BTH opcode, PSN, AETH syndrome, ... */
    hls_u24 p_psn;
    hls_u24 p_qpn;
    uint8_t p_syn;
    uint64_t p_orig;
    uint16_t p_len;
    uint16_t beats_left;    /* payload beats of the packet not yet consumed */
    uint16_t wr_off;        /* payload bytes already written */
    bool progress;          /* the packet moved the QP forward */
    bool partial;           /* an ACK inside the oldest SEND/WRITE: restarts the ACK timer */
    bool advanced;          /* ... and it acknowledged packets not acknowledged before */
    bool retired;           /* ... and retired at least one WQE */
    uint16_t next_idx;      /* SQ index after the last retired WQE */
    uint32_t next_psn;      /* first PSN of the WQE after the last retired one (RETIRED) */
    cmp_judge_t j;          /* the packet on the head WQE, for EVAL */
} cmp_event_t;

/* a throttle bucket holds at most 16 KiB (in 1/1024 bytes): the burst after a quiet spell */
#define CMP_THR_CAP ((uint32_t)16384 << 10)

typedef struct {
    HLS_MEM(cmp_qpc_t, NIC_QPS) qpc;
    HLS_MEM(cmp_wrec_t, NIC_QPS * NIC_OUTSTANDING) ring; /* row qp * NIC_OUTSTANDING + slot */
    uint64_t now;           /* free-running cycle counter: the time base (4 ns) */
    hls_uint(5) phase;      /* FSM state (CP_*) */
    nic_qp_t scan;          /* next row the timer scan looks at */
    bool scan_turn;         /* the scan goes before the next packet / wqe_rec */
    cmp_qpc_t c;            /* working copy of the row, written back in CP_WB */
    cmp_qpc_t cf;           /* latched cfg, in row form */
    cmp_wrec_t rec;         /* latched wqe_rec */
    bool rec_flush;
    uint8_t rec_mark;       /* the record is an SQD marker (NIC_SQD_MARK_*) */
    nic_wqe_rec_t rb;       /* a wqe_rec taken while an event was being handled */
    bool rb_valid;
    cmp_event_t e;          /* the event being handled */
    /* migration (docs/completer.md "Migration") */
    hls_uint(2) level[NIC_FNS];   /* NIC_SUSPEND_* per function */
    uint8_t epoch[NIC_FNS];       /* counts entries into RUN: timers armed before are re-armed */
    hls_uint(NIC_FNS) mk_rx;      /* rx_dispatch's marker of the function came on rx_pkt */
    hls_uint(NIC_FNS) mk_req;     /* the requester's marker came on wqe_rec */
    hls_uint(NIC_FNS) mk_sent;    /* our markers are out: nothing of the function changes */
    nic_fn_t mk_fn;               /* the function whose markers are being sent */
    uint64_t dirty;               /* qpc rows written since their NIC_CTX_DIRTY read */
    /* NIC_CFG_THROTTLE (DA9): a token bucket per function on the response payload written
     * to host memory (READ data), in 1/1024 bytes; rate 0 = off (docs/completer.md) */
    uint32_t thr_rate[NIC_FNS];
    uint32_t thr_tokens[NIC_FNS];
    hls_u128 ctx_ans;             /* the NIC_EV_CTX word being answered */
    nic_fn_t ctx_fn;
    bool ctx_wr;
    uint8_t ctx_word;
    hls_u128 ctx_data;
    uint32_t acks, naks, timeouts, retries, cqes, dropped;
} completer_state;

void completer(const completer_in *in, completer_out *out, completer_state *st);

#endif /* COMPLETER_H */
