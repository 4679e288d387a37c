/* requester — RC send-queue engine: SQ doorbells in, RoCEv2 request packets out
 * (docs/requester.md).
 *
 * in:  cfg      nic_cfg_t       QP rows, MR rows (lkey checks), function MAC/IP, quiesce (ctrl);
 *                               migration: suspend levels, context words, attribute loads
 *      sq_db    nic_db_t        SQ producer index (absolute; the last one wins)
 *      req_ctl  nic_req_ctl_t   RETIRED / REWIND / STOP (from the completer)
 *      dma_resp nic_dma_resp_t  WQE and payload read data
 * out: dma_req  nic_dma_req_t   reads only: one WQE (64 bytes) or one packet's payload
 *      tx_desc  roce_hdr_t      one per packet, held until taken (roce_tx's desc format)
 *      tx_pay   nic_beat_t      the packet's payload, ceil(len/64) beats, `last` on the final
 *      wqe_rec  nic_wqe_rec_t  one per WQE, before its first packet (or flushed), and again
 *                              for the outstanding ones after a migration load (ring
 *                              rebuild); an SQD marker when the QP enters or leaves SQD
 *      ev       nic_event_t     NIC_EV_CTX: the answer to a context read or write (ctrl);
 *                              NIC_EV_QP_ERR: a loaded position the WQEs disagree with
 *      packets_sent, wqes_started    counters
 *
 * One FSM serialises everything, so each context row is read in one cycle and written
 * back in a later one and nothing else touches it in between. Between packets it takes,
 * in priority order, a cfg, a req_ctl, a doorbell (4 cycles each, a doorbell 3: read the
 * row, register it (not a doorbell), compute the new row, write it: RQ_PUT)
 * or schedules the next QP with work (round-robin over the has_work bitmap) for exactly
 * one packet: load row + cached WQE, fetch the WQE if the cache row is stale, emit the
 * wqe_rec if the WQE is new, build the descriptor, read the payload and forward its beats,
 * write the row back. So quiesce, REWIND and SQD all act at a packet boundary. */
#include "hls.h"
#include "nic_if.h"
#include "nic_types.h"
#include "roce_psn.h"
#include "requester_ctx.h"
#include "requester_mig.h"

typedef struct {
    HLS_STREAM(nic_cfg_t) cfg;
    HLS_STREAM(nic_db_t) sq_db;
    HLS_STREAM(nic_req_ctl_t) req_ctl;
    bool dma_req_ready;
    HLS_STREAM(nic_dma_resp_t) dma_resp;
    bool tx_desc_ready;
    bool tx_pay_ready;
    bool wqe_rec_ready;
    bool ev_ready;
} requester_in;

typedef struct {
    bool cfg_ready;
    bool sq_db_ready;
    bool req_ctl_ready;
    HLS_STREAM(nic_dma_req_t) dma_req;
    bool dma_resp_ready;
    HLS_STREAM(roce_hdr_t) tx_desc;
    HLS_STREAM(nic_beat_t) tx_pay;
    HLS_STREAM(nic_wqe_rec_t) wqe_rec;
    HLS_STREAM(nic_event_t) ev;
    uint32_t packets_sent;
    uint32_t wqes_started;
} requester_out;

enum {
    RQ_IDLE = 0,  /* pick an event or a QP; issue the row read */
    RQ_EV_CFG,    /* the row of the held cfg arrives */
    RQ_EV_CTL,    /* the row of the held req_ctl arrives */
    RQ_EV_DB,     /* apply the held doorbell */
    RQ_LOAD,      /* row and cached WQE arrive */
    RQ_WQE_REQ,   /* DMA read of WQE sq_head */
    RQ_WQE_WAIT,  /* its one beat; fill the cache */
    RQ_MR,        /* a new WQE: read the MR row its lkey names */
    RQ_DECIDE,    /* flush, reject, start (record) or continue the WQE */
    RQ_REC,       /* wqe_rec held until taken */
    RQ_BUILD,     /* descriptor and next context of this packet */
    RQ_PKT_REQ,   /* payload DMA read request (descriptor offered meanwhile) */
    RQ_PKT,       /* payload beats dma_resp -> tx_pay, until desc and last beat moved */
    RQ_WB,        /* write the row back, update has_work */
    RQ_EV_OUT,    /* the context answer held on ev until taken */
    RQ_MARK,      /* a function's migration marker held on tx_desc until taken */
    RQ_REBUILD,   /* a loaded QP: the record of fetched WQE rb_idx, or the QP is broken */
    RQ_PUT,       /* write the row an event state computed (cur) back, then after_put */
    RQ_PROBE,     /* the resume probe's position, from the row LOAD registered */
    RQ_CTL_APPLY, /* apply the held req_ctl to the row EV_CTL registered */
    RQ_MR_CHECK,  /* a new WQE's lkey check against the MR row MR read */
    RQ_CFG_APPLY, /* apply the held cfg to the row EV_CFG registered */
    RQ_BACK_COUNT, /* resume probe one WQE back: the fetched WQE's packet count */
    RQ_BACK_APPLY, /* ... and from it the offset and PSN of that WQE's last packet */
};

enum { RQ_TAG_WQE = 0x000, RQ_TAG_PAY = 0x100 }; /* dma tag = kind | qp row */
enum { RQ_ACK_EVERY = 8 };                       /* AckReq at least every 8th packet */

typedef struct {
    HLS_MEM(req_row_t, NIC_QPS) ctx;       /* send context per QP row (requester_ctx.h) */
    HLS_MEM(uint32_t, NIC_QPS) qp_pd;      /* protection domain per QP row (NIC_CFG_QP) */
    HLS_MEM(nic_mr_row_t, NIC_MRS) mr;     /* copy of ctrl's MR table (NIC_CFG_MR), for lkey checks */
    HLS_MEM(hls_u512, NIC_QPS) wqe_cache;  /* WQE sq_head of each row, valid if wqe_valid */
    hls_uint(5) fsm;
    nic_qp_t q;                            /* row being worked on */
    nic_qp_t rr;                           /* round-robin: the row considered first */
    uint64_t row_valid;                    /* rows configured since reset (memories are not reset) */
    uint64_t has_work;                     /* has_work(row), kept in step with every row write */
    req_ctx_t cur;                         /* the row while one packet is built; the next row after BUILD */
    hls_u512 wqe;                          /* WQE sq_head */
    uint32_t pd;                           /* PD of row q */
    nic_wqe_rec_t rec;
    hls_uint(5) after_rec;                 /* RQ_BUILD, RQ_WB or RQ_IDLE */
    hls_uint(5) after_put;                 /* RQ_IDLE, RQ_REC or RQ_EV_OUT */
    roce_hdr_t desc;
    bool desc_sent;
    uint64_t pay_addr;
    hls_uint(13) pay_len;                  /* 0..4096 */
    hls_uint(7) beats_left;                /* 0..64 */
    hls_uint(7) last_bytes;                /* bytes in the final beat, 1..64 */
    bool pay_err;                          /* DMA error: the rest of the payload is zeros */
    uint32_t rem;                          /* RQ_DECIDE: bytes of WQE sq_head from offset on */
    uint32_t read_psns;                    /* RQ_DECIDE: PSNs a READ request for them takes */
    uint32_t rb_psns;                      /* the fetched WQE's packets: WQE rb_idx's (RQ_WQE_WAIT,
                                              for RQ_REBUILD) or the probe's WQE (RQ_BACK_COUNT) */
    bool pkt_last;                         /* RQ_DECIDE: the next packet is the message's last */
    hls_uint(13) pkt_len;                  /* RQ_DECIDE: its payload bytes, 0..4096 */
    bool lkey_fail;                        /* RQ_MR_CHECK: the new WQE's lkey check failed */
    uint64_t fn_mac[NIC_FNS];
    uint32_t fn_ip[NIC_FNS];
    uint32_t packets_sent;
    uint32_t wqes_started;
    /* migration (docs/requester.md "Migration") */
    uint64_t stopped;                      /* rows of functions not at RUN: never scheduled */
    hls_uint(NIC_FNS) tx_mark;             /* functions owed a transmit marker */
    hls_uint(NIC_FNS) comp_wait;           /* PASSIVE: waiting for the completer's marker */
    nic_fn_t mark_fn;                      /* the marker on tx_desc in RQ_MARK */
    uint64_t dirty;                        /* rows written since their last NIC_CTX_DIRTY read */
    nic_event_t ev;                        /* the context answer in RQ_EV_OUT */
    bool rec_rebuilt;                      /* the record in RQ_REC is a rebuilt one (not a start) */
    uint64_t probe;                        /* rows to resend their last packet (RUN again, DA4) */
    bool probe_back;                       /* RQ_WQE_WAIT: go to the fetched WQE's last packet */
    bool probing;                          /* the packet being built is the probe: AckReq */
} requester_state;

/* The registers that several states read, as they are at the start of the cycle. The states
 * are exclusive, but rtl-gen chains the stores of the states it lays out first in front of the
 * reads of the states after them: a state that read st->X would see, structurally, the
 * update logic of every state before it (a path through all of them). Each state reads the
 * register from here and writes st->X, so its logic starts at the register. */
typedef struct {
    nic_qp_t q, rr;
    uint64_t row_valid, dirty, probe, has_work;
    req_ctx_t cur;
    hls_u512 wqe;
    uint32_t pd;
    uint32_t rem, read_psns, rb_psns;
    bool pkt_last;
    hls_uint(13) pkt_len;
    bool lkey_fail;
} req_start_t;

/* ---- WQE fields (nic_sq_wqe_t, little-endian, byte offsets) ---- */
HLS_INLINE uint64_t wqe_field(hls_u512 w, unsigned byte, unsigned bytes) {
    return (uint64_t)(w >> (8 * byte)) & rp_mask(8 * bytes);
}
#define WQE_WR_ID(w) wqe_field(w, 0, 8)
#define WQE_OPCODE(w) ((uint8_t)wqe_field(w, 8, 1))
#define WQE_FLAGS(w) ((uint8_t)wqe_field(w, 9, 1))
#define WQE_IMM(w) ((uint32_t)wqe_field(w, 12, 4))
#define WQE_LOCAL(w) wqe_field(w, 16, 8)
#define WQE_LENGTH(w) ((uint32_t)wqe_field(w, 24, 4))
#define WQE_LKEY(w) ((uint32_t)wqe_field(w, 28, 4))
#define WQE_REMOTE(w) wqe_field(w, 32, 8)
#define WQE_RKEY(w) ((uint32_t)wqe_field(w, 40, 4))
#define WQE_COMPARE(w) wqe_field(w, 48, 8)
#define WQE_SWAP_ADD(w) wqe_field(w, 56, 8)

/* A WQE the requester cannot send (complete with NIC_WC_LOC_QP_OP_ERR, as rxe does for an
 * unknown opcode or a misaligned / wrong-size atomic: IB 9.4.5 requires 8-byte aligned VA). */
HLS_INLINE bool wqe_bad(hls_u512 w) {
    uint8_t op = WQE_OPCODE(w);
    bool atomic = wr_is_atomic(op);
    return op > NIC_WR_FAA || (atomic && (WQE_LENGTH(w) != 8 || (WQE_REMOTE(w) & 7) != 0));
}

/* wqe_psns (nic_wr.h) at the path MTU code pmtu, by mtu_packets_of: no barrel shifter. */
HLS_INLINE uint32_t wqe_pkts(uint8_t op, uint32_t len, unsigned pmtu) {
    return wr_is_atomic(op) ? 1 : mtu_packets_of(len, pmtu);
}

/* The local buffer of a new WQE against the MR its lkey names (roce_mr.h mr_check): the
 * NIC reads it (SEND / WRITE payload) or writes it (READ data, an atomic's original value:
 * LOCAL_WRITE). An atomic's buffer is its 8-byte result whatever the WQE's length says. */
HLS_INLINE bool lkey_ok(hls_u512 w, const nic_mr_row_t *m, uint32_t pd) {
    uint8_t op = WQE_OPCODE(w);
    uint64_t len = wr_is_atomic(op) ? 8 : WQE_LENGTH(w);
    unsigned acc = wr_reads_back(op) ? NIC_ACC_LOCAL_WRITE : 0;
    return mr_check(m, WQE_LKEY(w), pd, WQE_LOCAL(w), len, acc);
}

/* Work to do: ERR/SQE/STOP flush every posted WQE; otherwise the QP must be RTS (a new WQE
 * only within NIC_OUTSTANDING unretired ones) or SQD (only WQEs already started: IB 10.3.1
 * SQ drain finishes started WQEs and starts none), and not quiesced. */
HLS_INLINE bool ctx_has_work(const req_ctx_t *c) {
    if (c->rebuild) return true;             /* records owed to the completer, no packet */
    if (c->sq_head == c->sq_tail) return false;
    bool room = (uint16_t)(c->sq_hi - c->una) < NIC_OUTSTANDING;
    /* a flush record the completer queues behind outstanding WQEs takes a ring slot */
    if (c->flushing) return room || !c->own_flush;
    if (c->quiesced) return false;
    if (c->rd_wait) return false;            /* until a READ/atomic retires */
    if (c->held) return false;               /* until a RETIRED (apply_ctl) */
    bool started = c->sq_head != c->sq_hi;
    if (c->state == NIC_QPS_RTS) return started || room;
    if (c->state == NIC_QPS_SQD) return started;
    return false;
}

/* Stop sending: WQEs that already have a record are the completer's to flush; the rest
 * will be emitted as flush records. */
HLS_INLINE void ctx_flush(req_ctx_t *c) {
    c->ret = false;
    c->hold = false;
    c->held = false;
    if (!c->flushing) {
        c->sq_head = c->sq_hi;
        c->offset = 0;
        c->wqe_valid = false;
    }
    c->flushing = true;
    c->own_flush = false;                   /* STOP / ERR / SQE: the completer's ring is empty */
}

/* Bit (i % NIC_OUTSTANDING) of the rd_mask for SQ index i. */
HLS_INLINE uint16_t rd_bit(uint16_t i) { return (uint16_t)(1u << (i & (NIC_OUTSTANDING - 1))); }

/* WQEs [from, to) retired: their READ/atomic bits leave the mask (n = to - from <= 16). */
HLS_INLINE uint16_t rd_retire(uint16_t mask, uint16_t from, uint16_t to) {
    unsigned n = (uint16_t)(to - from);
    uint32_t run = n >= NIC_OUTSTANDING ? 0xFFFFu : ((1u << n) - 1);
    unsigned r = from & (NIC_OUTSTANDING - 1);
    uint32_t rot = ((run << r) | (run >> (NIC_OUTSTANDING - r))) & 0xFFFFu;
    return (uint16_t)(mask & ~rot);
}

/* WQE sq_head is about to start (no record yet): its lkey is checked first. */
HLS_INLINE bool wqe_new(const req_ctx_t *c) { return !c->flushing && c->sq_head == c->sq_hi; }

HLS_INLINE uint64_t bit_set(uint64_t b, nic_qp_t q, bool v) {
    uint64_t m = (uint64_t)1 << (unsigned)q;
    return v ? (b | m) : (b & ~m);
}

/* The 16 rows of function fn in a 64-row bitmap. */
HLS_INLINE uint64_t fn_rows(nic_fn_t fn) { return (uint64_t)0xFFFF << (NIC_QP_PER_FN * (unsigned)fn); }

HLS_INLINE nic_event_t ctx_answer(nic_fn_t fn, hls_u128 d) {
    nic_event_t e = {0};
    e.kind = NIC_EV_CTX;
    e.fn = fn;
    e.data = d;
    return e;
}

/* The migration marker of function fn: on wqe_rec (to the completer) and on tx_desc (through
 * tx_arb to roce_tx, which turns it into NIC_EV_MIG_MARK for ctrl); no packet, no beats. */
HLS_INLINE nic_wqe_rec_t mig_rec(nic_fn_t fn) {
    nic_wqe_rec_t r = {0};
    r.qp = (nic_qp_t)((unsigned)fn << NIC_QP_SLOT_BITS);
    r.sqd_mark = NIC_MIG_MARK;
    return r;
}
HLS_INLINE roce_hdr_t mig_desc(nic_fn_t fn) {
    roce_hdr_t d = {0};
    d.mig_mark = NIC_MARK_SRC_REQ;
    d.mig_fn = (uint8_t)fn;
    return d;
}

/* The first set bit at or after `from`, circularly (only called with b != 0): the lowest set
 * bit of the bits at or after `from`, else of all, as a one-hot grant (x & -x, one carry
 * chain), its number from six ORs of constant masks. A rotate by `from` and a count of
 * trailing zeros behind it were the requester's slowest path (and yosys shared the rotate's
 * shifter with rd_retire's, joining two states' paths). */
HLS_INLINE nic_qp_t rr_pick(uint64_t b, nic_qp_t from) {
    uint64_t from_rr = b & (~(uint64_t)0 << (unsigned)from);
    uint64_t cand = from_rr != 0 ? from_rr : b;
    uint64_t grant = cand & (0 - cand);
    unsigned k = ((grant & 0xAAAAAAAAAAAAAAAAull) != 0 ? 1u : 0u) | ((grant & 0xCCCCCCCCCCCCCCCCull) != 0 ? 2u : 0u) |
                 ((grant & 0xF0F0F0F0F0F0F0F0ull) != 0 ? 4u : 0u) | ((grant & 0xFF00FF00FF00FF00ull) != 0 ? 8u : 0u) |
                 ((grant & 0xFFFF0000FFFF0000ull) != 0 ? 16u : 0u) | ((grant & 0xFFFFFFFF00000000ull) != 0 ? 32u : 0u);
    return (nic_qp_t)k;
}

/* The row as stored, or the empty row if it was never configured since reset. */
HLS_INLINE req_ctx_t row_now(const requester_state *st, const req_start_t *now) {
    req_ctx_t zero = {0};
    return ((now->row_valid >> (unsigned)now->q) & 1) ? ctx_unpack(st->ctx.hls_mem_rdata) : zero;
}

HLS_INLINE void row_write(requester_state *st, const req_start_t *now, const req_ctx_t *c) {
    hls_mem_write(&st->ctx, now->q, ctx_pack(c));
    st->row_valid = bit_set(now->row_valid, now->q, true);
    st->dirty = bit_set(now->dirty, now->q, true);
    /* a resume probe still owed keeps the row scheduled (a ring rebuild ends with no work) */
    bool probe = ((now->probe >> (unsigned)now->q) & 1) != 0;
    st->has_work = bit_set(now->has_work, now->q, ctx_has_work(c) || probe);
}

/* The requester's copies of the QP attributes (NIC_CFG_QP, NIC_CFG_QP_ATTR). */
HLS_INLINE req_ctx_t copy_attrs(req_ctx_t c, const nic_qp_attr_t *a) {
    c.state = a->state;
    c.pmtu = a->pmtu;
    c.qpn = a->qpn;
    c.dest_qpn = a->dest_qpn;
    c.dst_mac = a->dst_mac & rp_mask(48);
    c.dst_ip = a->dst_ip;
    c.udp_sport = a->udp_sport;
    c.sq_base = a->sq_base;
    c.sq_log = a->sq_log;
    c.max_rd = (hls_uint(5))(a->max_rd_atomic > NIC_MAX_RD_ATOMIC ? NIC_MAX_RD_ATOMIC : a->max_rd_atomic);
    c.rd_wait = false;                          /* looked at again with the new depth */
    return c;
}

/* NIC_CFG_QP: new attributes, dynamic state kept except where the transition says. */
HLS_INLINE req_ctx_t apply_qp_cfg(req_ctx_t c, const nic_cfg_t *g) {
    const nic_qp_attr_t *a = &g->attr;
    if (a->state == NIC_QPS_RESET) {
        req_ctx_t zero = {0};
        c = zero;                                   /* ->RESET clears the send state */
    }
    c = copy_attrs(c, a);
    if (g->prev_state == NIC_QPS_RTR && a->state == NIC_QPS_RTS) {
        c.next_psn = a->sq_psn;
        c.una_psn = a->sq_psn;
    }
    if (a->state == NIC_QPS_ERR || a->state == NIC_QPS_SQE) ctx_flush(&c);
    /* SQE -> RTS (IB 10.3.1): the errored WQEs were flushed, the SQ runs again */
    if (g->prev_state == NIC_QPS_SQE && a->state == NIC_QPS_RTS) c.flushing = false;
    return c;
}

/* An index is believed only inside [una, sq_hi]: the WQEs that have records. */
HLS_INLINE bool ctl_in_window(const req_ctx_t *c, const nic_req_ctl_t *k) {
    return (uint16_t)(k->wqe_index - c->una) <= (uint16_t)(c->sq_hi - c->una);
}

/* RETIRED: WQEs before wqe_index are complete. */
HLS_INLINE req_ctx_t ctl_retired(req_ctx_t c, const nic_req_ctl_t *k) {
    if (ctl_in_window(&c, k)) {
        c.rd_mask = rd_retire(c.rd_mask, c.una, k->wqe_index);
        c.una = k->wqe_index;
        c.una_psn = k->psn;                     /* the completer names WQE una's first PSN */
        /* An ACK for packets the original round delivered can retire WQEs that a go-back-N
         * round is still resending: the position (or the REISSUE return) is then behind una,
         * on a WQE the host may already reuse. Nothing before una needs sending again: go on
         * from where the peer's ACK says, WQE una's first packet. */
        bool head_gone = (uint16_t)(c.sq_head - c.una) > (uint16_t)(c.sq_hi - c.una);
        bool ret_gone = (uint16_t)(c.ret_head - c.una) > (uint16_t)(c.sq_hi - c.una);
        if (head_gone && c.ret && !ret_gone) {  /* the re-issued READ/atomic is answered */
            c.sq_head = c.ret_head;
            c.offset = c.ret_offset;
            c.next_psn = c.ret_psn;
        } else if (head_gone) {
            c.sq_head = c.una;
            c.offset = 0;
            c.next_psn = c.una_psn;
        }
        if (head_gone) {
            c.ret = false;
            c.wqe_valid = false;
        }
        /* held behind a re-issue: the peer has every PSN up to rb_psn. At WQE una (what
         * the ACK covers of it never retires it) the position moves past them, as a REWIND
         * into the message would; a READ/atomic there is the completer's to re-issue. At
         * WQE una or past the covered PSNs, the hold ends */
        bool at_una = c.sq_head == c.una;
        bool covered = psn_le(c.next_psn, c.rb_psn);
        bool una_rd = (c.rd_mask & rd_bit(c.una)) != 0;
        if (c.held && at_una && covered && !una_rd) {
            hls_u24 skip = (hls_u24)(c.rb_psn + 1 - c.next_psn);
            c.offset = c.offset + (uint32_t)mtu_mul(skip, c.pmtu);
            c.next_psn = (hls_u24)(c.rb_psn + 1);
        }
        if (at_una || !covered) c.held = false;
    }
    return c;
}

/* REWIND / REISSUE: send again from WQE wqe_index, psn_off packets into it. */
HLS_INLINE req_ctx_t ctl_back(req_ctx_t c, const nic_req_ctl_t *k) {
    bool in_window = ctl_in_window(&c, k);
    /* REWIND resumes psn_off packets into the message (IB 9.7.5.2; nic_if.h): the payload
     * offset is psn_off * MTU, a shift. One that cannot lie inside a 32-bit length is not
     * believed; one beyond this WQE's length is caught in RQ_DECIDE, when the WQE is known. */
    uint64_t off = mtu_mul(k->psn_off, c.pmtu);
    /* REISSUE naming a SEND/WRITE: the completer's forward move (a second sequence NAK past
     * the start of a resend under way): the peer has every PSN before psn. Taken only while
     * the position is behind psn in that WQE; once the resend has passed it, going back
     * would send again what the peer has */
    bool forward = k->kind == NIC_REQ_REISSUE && (c.rd_mask & rd_bit(k->wqe_index)) == 0;
    bool behind = !c.ret && c.sq_head == k->wqe_index && c.next_psn != k->psn &&
                  psn_le(c.next_psn, k->psn);
    bool back = k->kind == NIC_REQ_REWIND || (k->kind == NIC_REQ_REISSUE && (!forward || behind));
    if (back && in_window && !c.flushing && (off >> 32) == 0) {
        /* REISSUE: a READ/atomic the peer answered past lost its response; the peer has the
         * WQEs after it, so only that request goes again and the stream returns to where it
         * was (RQ_BUILD), not a go-back-N round over every WQE behind it (after a migration:
         * thousands of packets behind a 1 MiB READ whose response the suspended source
         * dropped). If the peer lacks a later packet after all, the next one draws a sequence
         * NAK for it. A REWIND is a go-back-N round as before and forgets the return. */
        bool alone = k->kind == NIC_REQ_REISSUE && (c.rd_mask & rd_bit(k->wqe_index)) != 0;
        if (alone && c.sq_head != k->wqe_index && !c.ret) {
            c.ret = true;
            c.ret_head = c.sq_head;
            c.ret_offset = c.offset;
            c.ret_psn = c.next_psn;
        }
        if (!alone) c.ret = false;
        c.probe_at = false;                     /* ret_head / ret_psn now mean the return */
        /* the ACK past it says what the peer has of the WQEs behind it: once the re-issue
         * is out, hold there (RQ_BUILD) instead of resending them */
        c.hold = alone && k->acked && !c.rebuild;
        c.held = false;
        if (c.hold) c.rb_psn = k->acked_psn;
        c.sq_head = k->wqe_index;
        c.offset = (uint32_t)off;
        c.next_psn = k->psn;
        c.wqe_valid = false;
    }
    return c;
}

/* The kinds are exclusive, so each is computed from the row as read and one is selected at
 * the end: a RETIRED's update does not sit in front of a REWIND's logic in the same cycle. */
HLS_INLINE req_ctx_t apply_ctl(req_ctx_t c, const nic_req_ctl_t *k) {
    req_ctx_t stop = c;
    ctx_flush(&stop);
    req_ctx_t r = k->kind == NIC_REQ_RETIRED ? ctl_retired(c, k)
                : k->kind == NIC_REQ_STOP    ? stop
                                             : ctl_back(c, k);
    r.rd_wait = false;                          /* a waiting READ/atomic looks again */
    return r;
}

HLS_INLINE nic_wqe_rec_t make_rec(nic_qp_t q, const req_ctx_t *c, hls_u512 w) {
    nic_wqe_rec_t r;
    uint8_t op = WQE_OPCODE(w);
    r.qp = q;
    r.wqe_index = c->sq_head;
    r.first_psn = c->next_psn;
    r.last_psn = (hls_u24)psn_add(c->next_psn, wqe_pkts(op, WQE_LENGTH(w), c->pmtu) - 1);
    r.wr_opcode = op;
    r.signaled = (WQE_FLAGS(w) & NIC_WQE_SIGNALED) != 0;
    r.flush = c->flushing;
    r.wr_id = WQE_WR_ID(w);
    r.local_addr = WQE_LOCAL(w);
    r.length = WQE_LENGTH(w);
    r.status = (!c->flushing && wqe_bad(w)) ? NIC_WC_LOC_QP_OP_ERR : NIC_WC_SUCCESS;
    r.sqd_mark = 0;
    return r;
}

/* The marker that tells the completer a QP's SQ drain starts or ends (nic_if.h). */
HLS_INLINE nic_wqe_rec_t sqd_marker(nic_qp_t q, bool enter) {
    nic_wqe_rec_t r = {0};
    r.qp = q;
    r.sqd_mark = enter ? NIC_SQD_MARK_ENTER : NIC_SQD_MARK_LEAVE;
    return r;
}

/* The next packet's payload, rem bytes of the message left: an MTU, or the rest in the
 * last packet; a READ/atomic request carries none and is its message's last (and only). */
HLS_INLINE void pkt_split(requester_state *st, uint8_t op, uint32_t rem, unsigned pmtu) {
    uint32_t mtu = (uint32_t)mtu_mul(1, pmtu);
    bool stream = op <= NIC_WR_WRITE_IMM;          /* SEND*, WRITE*: segmented payload */
    bool last = !stream || rem <= mtu;
    st->pkt_last = last;
    st->pkt_len = !stream ? 0 : last ? rem : mtu;
}

/* The next packet of WQE w at the context's position (IB 9.4 opcode sequences). */
HLS_INLINE roce_hdr_t build_desc(const req_ctx_t *c, hls_u512 w, nic_qp_t q, const requester_state *st,
                                 const req_start_t *now, uint32_t *plen_out, bool *last_out) {
    uint32_t rem = now->rem;                     /* length - offset (RQ_DECIDE keeps offset inside the message) */
    uint8_t op = WQE_OPCODE(w);
    bool first = c->offset == 0;
    bool last = now->pkt_last;                   /* RQ_DECIDE: pkt_split */
    uint32_t plen = now->pkt_len;
    bool imm = op == NIC_WR_SEND_IMM || op == NIC_WR_WRITE_IMM;
    bool is_send = op == NIC_WR_SEND || op == NIC_WR_SEND_IMM;

    uint8_t opcode;
    if (op == NIC_WR_READ) opcode = ROCE_OP_RDMA_READ_REQUEST;
    else if (op == NIC_WR_CAS) opcode = ROCE_OP_COMPARE_SWAP;
    else if (op == NIC_WR_FAA) opcode = ROCE_OP_FETCH_ADD;
    else if (first && last)
        opcode = is_send ? (imm ? ROCE_OP_SEND_ONLY_IMM : ROCE_OP_SEND_ONLY)
                         : (imm ? ROCE_OP_RDMA_WRITE_ONLY_IMM : ROCE_OP_RDMA_WRITE_ONLY);
    else if (first) opcode = is_send ? ROCE_OP_SEND_FIRST : ROCE_OP_RDMA_WRITE_FIRST;
    else if (last)
        opcode = is_send ? (imm ? ROCE_OP_SEND_LAST_IMM : ROCE_OP_SEND_LAST)
                         : (imm ? ROCE_OP_RDMA_WRITE_LAST_IMM : ROCE_OP_RDMA_WRITE_LAST);
    else opcode = is_send ? ROCE_OP_SEND_MIDDLE : ROCE_OP_RDMA_WRITE_MIDDLE;

    roce_hdr_t d = {0};
    unsigned fn = (unsigned)q >> NIC_QP_SLOT_BITS;
    d.dst_mac = c->dst_mac;
    d.src_mac = st->fn_mac[fn & (NIC_FNS - 1)];
    d.src_ip = st->fn_ip[fn & (NIC_FNS - 1)];
    d.dst_ip = c->dst_ip;
    d.ttl = 64;
    /* rxe's choice: 0xC000 | 14 bits derived from the QP; here the qpn's low 14 bits */
    d.udp_sport = c->udp_sport != 0 ? c->udp_sport : (uint16_t)(0xC000 | ((uint32_t)c->qpn & 0x3FFF));
    d.opcode = opcode;
    /* SE on the last packet of a SEND or WRITE-with-immediate (IB 9.2.3, rxe_req.c) */
    d.se = (WQE_FLAGS(w) & NIC_WQE_SOLICITED) != 0 && last && (is_send || op == NIC_WR_WRITE_IMM);
    d.pkey = 0xFFFF;
    d.dest_qp = c->dest_qpn;
    d.psn = c->next_psn;
    d.ack_req = last || ((uint32_t)c->next_psn % RQ_ACK_EVERY) == RQ_ACK_EVERY - 1;
    /* WRITE FIRST/ONLY: the whole message (offset 0). READ: the bytes from offset on, so a
     * READ resumed after partial data asks only for what is missing (rxe req_retry) */
    d.reth_va = WQE_REMOTE(w) + c->offset;
    d.reth_rkey = WQE_RKEY(w);
    d.reth_len = rem;
    d.atomic_va = WQE_REMOTE(w);
    d.atomic_rkey = WQE_RKEY(w);
    d.atomic_swap_add = WQE_SWAP_ADD(w);
    d.atomic_cmp = op == NIC_WR_CAS ? WQE_COMPARE(w) : 0;
    d.imm = WQE_IMM(w);                          /* host order; roce_tx sends it big-endian */
    d.payload_len = (hls_uint(14))plen;
    /* fields the opcode does not carry are sent as 0 (roce_tx ignores them anyway) */
    uint8_t ext = roce_ext(opcode);
    if (!(ext & ROCE_EXT_RETH)) { d.reth_va = 0; d.reth_rkey = 0; d.reth_len = 0; }
    if (!(ext & ROCE_EXT_ATOMIC)) { d.atomic_va = 0; d.atomic_rkey = 0; d.atomic_swap_add = 0; }
    if (!(ext & ROCE_EXT_IMM)) d.imm = 0;
    *plen_out = plen;
    *last_out = last;
    return d;
}

/* After RQ_LOAD (or RQ_PROBE): a row with nothing to send leaves the schedule; otherwise
 * fetch the WQE if the cache is stale, check a new one's lkey, or go on with it. */
HLS_INLINE void load_next(requester_state *st, const req_start_t *now, const req_ctx_t *c, bool resend) {
    if (!resend && !ctx_has_work(c)) {
        st->has_work = bit_set(now->has_work, now->q, false);
        st->fsm = RQ_IDLE;
    } else {
        st->fsm = c->rebuild || !c->wqe_valid ? RQ_WQE_REQ : wqe_new(c) ? RQ_MR : RQ_DECIDE;
    }
}

HLS_TOP void requester(const requester_in *in, requester_out *out, requester_state *st) {
    const req_start_t now = {st->q, st->rr, st->row_valid, st->dirty, st->probe, st->has_work, st->cur, st->wqe,
                             st->pd, st->rem, st->read_psns, st->rb_psns, st->pkt_last, st->pkt_len,
                             st->lkey_fail};
    out->packets_sent = st->packets_sent;
    out->wqes_started = st->wqes_started;

    switch ((unsigned)st->fsm) {
    case RQ_IDLE: {
        /* rows of suspended functions are not scheduled: they start nothing, and between
         * packets no DMA read of theirs is outstanding (docs/requester.md "Migration") */
        uint64_t runnable = now.has_work & ~st->stopped;
        if (in->cfg.valid) {
            const nic_cfg_t *g = &in->cfg.data;
            uint8_t kind = g->kind;
            bool dirty_read = kind == NIC_CFG_CTX && g->ctx_sect == NIC_CTX_DIRTY;
            if (kind == NIC_CFG_QP || kind == NIC_CFG_QUIESCE || kind == NIC_CFG_QP_ATTR ||
                (kind == NIC_CFG_CTX && !dirty_read)) {
                st->q = g->qp;
                hls_mem_read(&st->ctx, g->qp);
                st->fsm = RQ_EV_CFG;          /* cfg stays valid and stable until taken */
            } else {
                out->cfg_ready = true;        /* CQ rows and throttles are not the requester's */
                if (kind == NIC_CFG_MR) {
                    hls_mem_write(&st->mr, g->mr, nic_cfg_mr_row(g));
                }
                if (kind == NIC_CFG_FN) {
                    st->fn_mac[g->fn] = g->mac & rp_mask(48);
                    st->fn_ip[g->fn] = g->ip;
                }
                if (dirty_read) {             /* read and clear the function's 16 bits */
                    st->ev = ctx_answer(g->fn, (hls_u128)((now.dirty & fn_rows(g->fn)) >> (NIC_QP_PER_FN * (unsigned)g->fn)));
                    st->dirty = now.dirty & ~fn_rows(g->fn);
                    st->fsm = RQ_EV_OUT;
                }
                if (kind == NIC_CFG_SUSPEND) {
                    hls_uint(NIC_FNS) bit = (hls_uint(NIC_FNS))(1u << (unsigned)g->fn);
                    bool run = g->level == NIC_SUSPEND_RUN;
                    bool was_run = (st->stopped & fn_rows(g->fn)) == 0;
                    st->stopped = run ? (st->stopped & ~fn_rows(g->fn)) : (st->stopped | fn_rows(g->fn));
                    /* stopped (ctrl says PASSIVE from Suspend-Active on, docs/migration.md
                     * 2): we are between packets, with no DMA read outstanding; the completer
                     * hears first, at once, since nothing of fn can follow; the transmit
                     * marker waits for its answer */
                    st->comp_wait = (hls_uint(NIC_FNS))(st->comp_wait & ~bit);
                    if (run) st->tx_mark = (hls_uint(NIC_FNS))(st->tx_mark & ~bit);
                    /* RUN again: ACKs that arrived while the function was stopped were
                     * dropped (on a destination, with the source). Each QP resends its last
                     * packet, once, with AckReq: the peer answers the duplicate with a
                     * cumulative ACK (C9-105), so at most one packet per QP is resent (DA4)
                     * instead of a go-back-N round from the oldest unacknowledged PSN */
                    if (run && !was_run) {
                        st->probe = now.probe | (fn_rows(g->fn) & now.row_valid);
                        st->has_work = now.has_work | (fn_rows(g->fn) & now.row_valid);
                    }
                    if (g->level == NIC_SUSPEND_PASSIVE) {
                        st->comp_wait = st->comp_wait | bit;
                        st->rec = mig_rec(g->fn);
                        st->after_rec = RQ_IDLE;
                        st->fsm = RQ_REC;
                    }
                }
            }
        } else if (in->req_ctl.valid && in->req_ctl.data.kind == NIC_REQ_MIG_MARK) {
            /* the completer's marker: nothing more of fn comes on req_ctl; now the transmit
             * marker tells ctrl that the requester is done with fn */
            nic_fn_t fn = (nic_fn_t)((unsigned)in->req_ctl.data.qp >> NIC_QP_SLOT_BITS);
            hls_uint(NIC_FNS) bit = (hls_uint(NIC_FNS))(1u << (unsigned)fn);
            out->req_ctl_ready = true;
            if (st->comp_wait & bit) st->tx_mark = st->tx_mark | bit;
            st->comp_wait = (hls_uint(NIC_FNS))(st->comp_wait & ~bit);
        } else if (in->req_ctl.valid) {
            st->q = in->req_ctl.data.qp;
            hls_mem_read(&st->ctx, in->req_ctl.data.qp);
            st->fsm = RQ_EV_CTL;
        } else if (in->sq_db.valid) {
            nic_qp_t q = (nic_qp_t)(((unsigned)in->sq_db.data.fn << NIC_QP_SLOT_BITS) |
                                    ((unsigned)in->sq_db.data.num & (NIC_QP_PER_FN - 1)));
            st->q = q;
            hls_mem_read(&st->ctx, q);
            st->fsm = RQ_EV_DB;
        } else if (st->tx_mark != 0) {
            unsigned m = (unsigned)st->tx_mark;
            st->mark_fn = (nic_fn_t)(m & 1 ? 0 : m & 2 ? 1 : m & 4 ? 2 : 3);
            st->fsm = RQ_MARK;
        } else if (runnable != 0) {
            nic_qp_t q = rr_pick(runnable, now.rr);
            st->q = q;
            hls_mem_read(&st->ctx, q);
            hls_mem_read(&st->wqe_cache, q);
            hls_mem_read(&st->qp_pd, q);
            st->fsm = RQ_LOAD;
        }
        break;
    }

    case RQ_EV_CFG:
        /* the row arrives into a register; cfg stays valid and stable until CFG_APPLY takes
         * it, so the transition is computed from registers, not behind the row read */
        st->cur = row_now(st, &now);
        st->fsm = RQ_CFG_APPLY;
        break;

    case RQ_CFG_APPLY: {
        out->cfg_ready = true;
        req_ctx_t c = now.cur;
        if (in->cfg.data.kind == NIC_CFG_QP) {
            bool was_sqd = c.state == NIC_QPS_SQD;
            c = apply_qp_cfg(c, &in->cfg.data);
            hls_mem_write(&st->qp_pd, now.q, in->cfg.data.attr.pd);
            st->after_put = RQ_IDLE;
            if (was_sqd != (c.state == NIC_QPS_SQD)) { /* the drain starts or ends here */
                st->rec = sqd_marker(now.q, !was_sqd);
                st->after_rec = RQ_IDLE;
                st->after_put = RQ_REC;
            }
            st->cur = c;
            st->fsm = RQ_PUT;
            break;
        } else if (in->cfg.data.kind == NIC_CFG_QP_ATTR) {
            /* a migrated QP's attributes: copies only, no transition, live state kept */
            c = copy_attrs(c, &in->cfg.data.attr);
            hls_mem_write(&st->qp_pd, now.q, in->cfg.data.attr.pd);
            st->cur = c;
            st->after_put = RQ_IDLE;
            st->fsm = RQ_PUT;
            break;
        } else if (in->cfg.data.kind == NIC_CFG_CTX) {
            /* NIC_CTX_REQ_QP: one word of the send position; a write answers with the word */
            unsigned w = in->cfg.data.ctx_word;
            hls_u128 d = in->cfg.data.ctx_data;
            st->ev = ctx_answer(in->cfg.data.fn, in->cfg.data.ctx_write ? d : req_ctx_word(&c, w));
            st->cur = req_ctx_load(c, w, d);
            st->after_put = RQ_EV_OUT;
            st->fsm = in->cfg.data.ctx_write ? RQ_PUT : RQ_EV_OUT;
            break;
        } else if ((now.row_valid >> (unsigned)now.q) & 1) {
            c.quiesced = in->cfg.data.quiesce;      /* acts at the next packet boundary */
            st->cur = c;
            st->after_put = RQ_IDLE;
            st->fsm = RQ_PUT;
            break;
        }
        st->fsm = RQ_IDLE;
        break;
    }

    case RQ_EV_CTL:
        /* the row arrives into a register; req_ctl stays valid and stable until CTL_APPLY
         * takes it, so its update is computed from registers, not behind the row read */
        st->cur = row_now(st, &now);
        st->fsm = RQ_CTL_APPLY;
        break;

    case RQ_CTL_APPLY:
        out->req_ctl_ready = true;
        if ((now.row_valid >> (unsigned)now.q) & 1) {
            st->cur = apply_ctl(now.cur, &in->req_ctl.data);
            st->after_put = RQ_IDLE;
            st->fsm = RQ_PUT;
            break;
        }
        st->fsm = RQ_IDLE;
        break;

    case RQ_EV_DB: {
        out->sq_db_ready = true;
        req_ctx_t c = row_now(st, &now);
        /* a doorbell for a qpn the row does not hold, or a QP in RESET, is for no QP */
        if (((now.row_valid >> (unsigned)now.q) & 1) && c.qpn == in->sq_db.data.num &&
            c.state != NIC_QPS_RESET) {
            c.sq_tail = in->sq_db.data.index;
            st->cur = c;
            st->after_put = RQ_IDLE;
            st->fsm = RQ_PUT;
            break;
        }
        st->fsm = RQ_IDLE;
        break;
    }

    case RQ_LOAD: {
        /* the row, its cached WQE and PD arrive; a resume probe owed is worked out in its own
         * state from the registered row (RQ_PROBE), so the probe logic is not behind the row
         * read: a cycle more for the probe packet only */
        req_ctx_t c = row_now(st, &now);
        st->cur = c;
        st->wqe = st->wqe_cache.hls_mem_rdata;
        st->pd = st->qp_pd.hls_mem_rdata;
        st->probing = false;
        if (((now.probe >> (unsigned)now.q) & 1) != 0 && !c.rebuild) st->fsm = RQ_PROBE;
        else load_next(st, &now, &c, false);
        break;
    }

    case RQ_PROBE: {
        req_ctx_t c = now.cur;
        /* the resume probe (RQ_IDLE, NIC_CFG_SUSPEND): after a ring rebuild, and only if a
         * packet was sent and not acknowledged. When the oldest unretired WQE is a SEND/WRITE,
         * its first packet goes again and the position returns (ret) to where it was: the
         * peer answers any PSN before its expected one with a cumulative ACK (C9-105), also
         * after it NAKed once and drops everything else (9.7.5.1.2: the NAK went to a PASSIVE
         * source). A READ/atomic there would be executed again (a whole READ response), so
         * the first SEND/WRITE already sent behind it is probed the same way, when the ring
         * rebuild after a load found one (probe_at: ret_head / ret_psn). Without one, the
         * position steps back one packet instead; sending it moves the position back to where
         * it was, so the stream goes on unchanged (a peer that NAKed drops that one) */
        bool live = c.state == NIC_QPS_RTS || c.state == NIC_QPS_SQD;
        bool resend = live && !c.flushing && !c.quiesced && c.una_psn != c.next_psn &&
                      (c.offset != 0 || c.sq_head != c.una);
        bool una_rd = (c.rd_mask & rd_bit(c.una)) != 0;
        bool at_sent = (uint16_t)(c.ret_head - c.una) < (uint16_t)(c.sq_head - c.una) ||
                       (c.ret_head == c.sq_head && c.offset != 0);
        bool from_una = resend && !c.ret && !una_rd;
        bool from_at = resend && !c.ret && una_rd && c.probe_at && at_sent;
        st->probe = bit_set(now.probe, now.q, false);   /* once (RQ_LOAD came here for it) */
        c.probe_at = false;
        if (from_una || from_at) {               /* that WQE's first packet, then back here */
            uint16_t first_idx = from_una ? c.una : c.ret_head;
            hls_u24 first_psn = from_una ? c.una_psn : c.ret_psn;
            c.ret = true;
            c.ret_head = c.sq_head;
            c.ret_offset = c.offset;
            c.ret_psn = c.next_psn;
            c.sq_head = first_idx;
            c.offset = 0;
            c.next_psn = first_psn;
            if (c.sq_head != c.ret_head) c.wqe_valid = false; /* the cache holds WQE sq_head */
        } else if (resend && c.offset != 0) {    /* inside WQE sq_head: one MTU back */
            c.offset = c.offset - (uint32_t)mtu_mul(1, c.pmtu);
            c.next_psn = (hls_u24)(c.next_psn - 1);
        } else if (resend) {                     /* the last packet of WQE sq_head - 1 */
            c.sq_head = (uint16_t)(c.sq_head - 1);
            c.wqe_valid = false;
            st->probe_back = true;
        }
        st->probing = resend;
        st->cur = c;
        load_next(st, &now, &c, resend);
        break;
    }

    case RQ_WQE_REQ: {
        uint16_t index = now.cur.rebuild ? now.cur.rb_idx : now.cur.sq_head;
        uint32_t slot = (uint32_t)index & (uint32_t)rp_mask((unsigned)now.cur.sq_log);
        out->dma_req.valid = true;
        out->dma_req.data.tag = (uint16_t)(RQ_TAG_WQE | (unsigned)now.q);
        out->dma_req.data.addr = now.cur.sq_base + 64 * (uint64_t)slot;
        out->dma_req.data.len = 64;
        if (in->dma_req_ready) st->fsm = RQ_WQE_WAIT;
        break;
    }

    case RQ_WQE_WAIT:
        out->dma_resp_ready = true;
        if (in->dma_resp.valid) {
            /* a failed read leaves an invalid opcode: the WQE completes with LOC_QP_OP_ERR */
            hls_u512 w = in->dma_resp.data.err ? ~(hls_u512)0 : in->dma_resp.data.data;
            req_ctx_t c = now.cur;
            st->wqe = w;
            if (c.rebuild) {                     /* WQE rb_idx: not the cache's WQE sq_head */
                /* its PSN count, a stage before RQ_REBUILD compares with it */
                st->rb_psns = wqe_pkts(WQE_OPCODE(w), WQE_LENGTH(w), c.pmtu);
                st->fsm = RQ_REBUILD;
                break;
            }
            hls_mem_write(&st->wqe_cache, now.q, w);
            c.wqe_valid = true;
            st->cur = c;
            /* the probe's WQE: its last packet is worked out from the registered WQE in two
             * stages (its packet count, then offset and PSN), not behind the DMA data */
            st->fsm = st->probe_back ? RQ_BACK_COUNT : wqe_new(&c) ? RQ_MR : RQ_DECIDE;
        }
        break;

    case RQ_BACK_COUNT:
        st->rb_psns = wqe_pkts(WQE_OPCODE(now.wqe), WQE_LENGTH(now.wqe), now.cur.pmtu);
        st->fsm = RQ_BACK_APPLY;
        break;

    case RQ_BACK_APPLY: {                        /* its last packet: offset and PSN of it */
        req_ctx_t c = now.cur;
        uint8_t op = WQE_OPCODE(now.wqe);
        uint32_t n = now.rb_psns;
        c.offset = op <= NIC_WR_WRITE_IMM ? (uint32_t)mtu_mul(n - 1, c.pmtu) : 0;
        c.next_psn = (hls_u24)(c.next_psn - (hls_u24)(op == NIC_WR_READ ? n : 1));
        st->probe_back = false;
        st->cur = c;
        st->fsm = wqe_new(&c) ? RQ_MR : RQ_DECIDE;
        break;
    }

    case RQ_MR: {
        nic_fn_t fn = (nic_fn_t)((unsigned)now.q >> NIC_QP_SLOT_BITS);
        hls_mem_read(&st->mr, nic_mr_of_key(fn, WQE_LKEY(now.wqe)));
        st->fsm = RQ_MR_CHECK;
        break;
    }

    case RQ_MR_CHECK: {
        /* the lkey check of the new WQE's buffer (two 64-bit compares behind the MR row
         * read) in a stage of its own, registered for RQ_DECIDE */
        const nic_mr_row_t m = st->mr.hls_mem_rdata;
        st->lkey_fail = !lkey_ok(now.wqe, &m, now.pd);
        st->fsm = RQ_DECIDE;
        break;
    }

    case RQ_DECIDE: {
        req_ctx_t c = now.cur;
        bool fresh = c.sq_head == c.sq_hi;       /* no record emitted for WQE sq_head yet */
        bool bad = wqe_bad(now.wqe);
        /* lkey_fail is RQ_MR_CHECK's, which a new WQE (wqe_new: fresh, not flushing) passed */
        bool prot = fresh && !c.flushing && !bad && now.lkey_fail;
        /* a REWIND offset outside this message (into a WQE not yet started, at or past its
         * end, into an atomic): resend the message from its first PSN instead of reading past
         * its buffer. The completer never asks for that (docs/requester.md). */
        uint32_t len = WQE_LENGTH(now.wqe);
        bool restart = c.offset != 0 && (fresh || c.offset >= len);
        /* the bytes of the message from offset on (the restart's and the offset's side by
         * side, not one behind the other) and the PSNs a READ request for them takes, a stage
         * before RQ_BUILD uses them: BUILD is then no subtract, packet count and PSN add in
         * one cycle */
        uint32_t rem = restart ? len : len - c.offset;
        if (restart) {
            c.next_psn = (hls_u24)(c.next_psn - (hls_u24)mtu_div(c.offset, c.pmtu));
            c.offset = 0;
        }
        st->rem = rem;
        st->read_psns = wqe_pkts(WQE_OPCODE(now.wqe), rem, c.pmtu);
        pkt_split(st, WQE_OPCODE(now.wqe), rem, c.pmtu);
        st->rec = make_rec(now.q, &c, now.wqe);
        if (prot) st->rec.status = NIC_WC_LOC_PROT_ERR;
        bool reject = (bad || prot) && fresh;   /* a new WQE that cannot be sent */
        if (c.flushing || reject) {
            /* one record, nothing sent; a malformed WQE or a local protection error puts
             * the QP in error (rxe_req.c; the completer completes it and sends STOP) */
            if (!c.flushing) c.own_flush = true;
            c.flushing = true;
            c.sq_head = (uint16_t)(c.sq_head + 1);
            c.sq_hi = c.sq_head;
            c.offset = 0;
            c.wqe_valid = false;
            st->after_rec = RQ_WB;
            st->fsm = RQ_REC;
        } else if (bad) {
            /* the host rewrote a started WQE: stop; the completer holds its record */
            ctx_flush(&c);
            c.own_flush = true;
            st->fsm = RQ_WB;
        } else if (fresh && wr_reads_back(WQE_OPCODE(now.wqe)) &&
                   (unsigned)__builtin_popcount(c.rd_mask) >= (unsigned)c.max_rd) {
            /* initiator depth reached (max_rd_atomic, IB 9.4.4: never more READ/atomic in
             * flight than the peer's responder resources, whose replay cache would otherwise
             * lose an atomic's result): wait, WQE cached, until a RETIRED */
            c.rd_wait = true;
            st->fsm = RQ_WB;
        } else if (fresh) {
            if (wr_reads_back(WQE_OPCODE(now.wqe))) c.rd_mask = c.rd_mask | rd_bit(c.sq_head);
            c.sq_hi = (uint16_t)(c.sq_head + 1);
            st->after_rec = RQ_BUILD;
            st->fsm = RQ_REC;
        } else {
            st->fsm = RQ_BUILD;
        }
        st->cur = c;
        break;
    }

    case RQ_REC:
        out->wqe_rec.valid = true;
        out->wqe_rec.data = st->rec;
        if (in->wqe_rec_ready) {
            if (!st->rec.flush && st->rec.status == NIC_WC_SUCCESS && !st->rec.sqd_mark && !st->rec_rebuilt)
                st->wqes_started = st->wqes_started + 1;
            st->rec_rebuilt = false;
            st->fsm = st->after_rec;
        }
        break;

    case RQ_BUILD: {
        req_ctx_t c = now.cur;
        uint32_t plen = 0;
        bool last = false;
        st->desc = build_desc(&c, now.wqe, now.q, st, &now, &plen, &last);
        bool probe = st->probing;
        if (probe) st->desc.ack_req = 1;        /* the resume probe asks for its answer */
        st->probing = false;
        st->desc_sent = false;
        st->pay_addr = WQE_LOCAL(now.wqe) + c.offset;
        st->pay_len = (hls_uint(13))plen;
        st->beats_left = (hls_uint(7))((plen + 63) / 64);
        st->last_bytes = (hls_uint(7))(plen == 0 ? 64 : ((plen - 1) % 64) + 1);
        st->pay_err = false;
        uint8_t op = WQE_OPCODE(now.wqe);
        /* a READ request takes a PSN per response packet it asks for (from offset on) */
        c.next_psn = (hls_u24)psn_add(c.next_psn, op == NIC_WR_READ ? now.read_psns : 1);
        if (last) {
            c.sq_head = (uint16_t)(c.sq_head + 1);
            c.offset = 0;
            c.wqe_valid = false;
        } else {
            c.offset = c.offset + plen;
        }
        if (c.ret && (wr_reads_back(op) || probe)) { /* the re-issued request or probe is out */
            c.sq_head = c.ret_head;
            c.offset = c.ret_offset;
            c.next_psn = c.ret_psn;
            c.wqe_valid = false;
            c.ret = false;
        }
        if (c.hold && wr_reads_back(op)) {       /* the re-issue is out: hold if the peer has */
            c.held = psn_le(c.next_psn, c.rb_psn); /* where the stream goes on (apply_ctl) */
            c.hold = false;
        }
        st->cur = c;                             /* the row as it is after this packet */
        st->fsm = plen != 0 ? RQ_PKT_REQ : RQ_PKT;
        break;
    }

    case RQ_PKT_REQ:
    case RQ_PKT: {
        out->tx_desc.valid = !st->desc_sent;
        out->tx_desc.data = st->desc;
        bool desc_fire = !st->desc_sent && in->tx_desc_ready;
        bool desc_done = st->desc_sent || desc_fire;
        if (desc_fire) {
            st->desc_sent = true;
            st->packets_sent = st->packets_sent + 1;
        }
        if (st->fsm == RQ_PKT_REQ) {
            out->dma_req.valid = true;
            out->dma_req.data.tag = (uint16_t)(RQ_TAG_PAY | (unsigned)now.q);
            out->dma_req.data.addr = st->pay_addr;
            out->dma_req.data.len = st->pay_len;
            if (in->dma_req_ready) st->fsm = RQ_PKT;
            break;
        }
        bool more = st->beats_left != 0;
        bool src_valid = st->pay_err || in->dma_resp.valid;
        bool final = st->beats_left == 1;
        out->tx_pay.valid = more && src_valid;
        out->tx_pay.data.data = (st->pay_err || in->dma_resp.data.err) ? (hls_u512)0 : in->dma_resp.data.data;
        out->tx_pay.data.bytes = final ? st->last_bytes : (hls_uint(7))64;
        out->tx_pay.data.last = final;
        out->dma_resp_ready = more && !st->pay_err && in->tx_pay_ready;
        bool beat_fire = more && src_valid && in->tx_pay_ready;
        if (beat_fire) {
            st->beats_left = (hls_uint(7))(st->beats_left - 1);
            /* hostmem answers a failed read with one err beat: make up the rest as zeros */
            if (!st->pay_err && in->dma_resp.data.err) st->pay_err = true;
        }
        bool beats_done = !more || (final && beat_fire);
        if (desc_done && beats_done) st->fsm = RQ_WB;
        break;
    }

    case RQ_REBUILD: {
        /* One WQE of a loaded QP's outstanding window [una, sq_hi): its record as the source
         * sent it, PSNs recomputed from rb_psn (the packet count from RQ_WQE_WAIT). The saved
         * position must agree: at WQE sq_head, next_psn = first + offset / MTU with offset a
         * whole number of MTUs inside the message; with sq_head = sq_hi, next_psn is where the
         * last outstanding WQE ends and offset is 0. A flushing QP's records are flush records
         * (PSNs meaningless, nothing checked). */
        req_ctx_t c = now.cur;
        uint8_t op = WQE_OPCODE(now.wqe);
        uint32_t n = now.rb_psns;
        hls_u24 end_psn = (hls_u24)(c.rb_psn + (hls_u24)n);
        uint16_t span = (uint16_t)(c.sq_hi - c.una);
        bool window_ok = span <= NIC_OUTSTANDING && (uint16_t)(c.sq_head - c.una) <= span;
        bool at_head = c.rb_idx == c.sq_head;
        uint32_t at_pkt = mtu_div(c.offset, c.pmtu);
        bool head_ok = !at_head || (mtu_rem(c.offset, c.pmtu) == 0 && at_pkt < n &&
                                    c.next_psn == (hls_u24)(c.rb_psn + (hls_u24)at_pkt));
        bool last = (uint16_t)(c.rb_idx + 1) == c.sq_hi;
        bool end_ok = !last || c.sq_head != c.sq_hi || (c.next_psn == end_psn && c.offset == 0);
        bool broken = !c.flushing && (!window_ok || !head_ok || !end_ok || wqe_bad(now.wqe));
        if (broken) {
            /* never send PSNs the peer does not expect: ctrl moves the QP to ERR on the
             * event. The completer holds the records before rb_idx; from rb_idx on every WQE
             * becomes a flush record, so each one still completes (docs/requester.md
             * "Migration") */
            c.sq_head = c.rb_idx;
            c.sq_hi = c.rb_idx;
            c.offset = 0;
            c.wqe_valid = false;
            c.flushing = true;
            c.own_flush = false;
            c.rebuild = false;
            st->cur = c;
            st->after_put = RQ_EV_OUT;
            st->ev.kind = NIC_EV_QP_ERR;
            st->ev.qp = now.q;
            st->ev.cq = 0;
            st->ev.detail = NIC_WC_LOC_QP_OP_ERR;
            st->ev.in_cqe = false;
            st->ev.fn = (nic_fn_t)((unsigned)now.q >> NIC_QP_SLOT_BITS);
            st->ev.data = 0;
            st->fsm = RQ_PUT;
            break;
        }
        /* the resume probe's target when WQE una is a READ/atomic: the first SEND/WRITE
         * behind it whose first packet was sent (RQ_LOAD) */
        bool rb_sent = (uint16_t)(c.rb_idx - c.una) < (uint16_t)(c.sq_head - c.una) || (at_head && c.offset != 0);
        if (!c.probe_at && !c.ret && !c.flushing && (c.rd_mask & rd_bit(c.una)) != 0 && !wr_reads_back(op) &&
            rb_sent) {
            c.probe_at = true;
            c.ret_head = c.rb_idx;
            c.ret_psn = c.rb_psn;
        }
        req_ctx_t at = c;                       /* make_rec's view: WQE rb_idx from rb_psn */
        at.sq_head = c.rb_idx;
        at.next_psn = c.rb_psn;
        st->rec = make_rec(now.q, &at, now.wqe);
        st->rec_rebuilt = true;
        c.rb_idx = (uint16_t)(c.rb_idx + 1);
        c.rb_psn = end_psn;
        c.rebuild = !last;
        st->cur = c;
        st->after_rec = RQ_WB;
        st->fsm = RQ_REC;
        break;
    }

    case RQ_WB:
        st->probing = false;                    /* a probe that sent nothing (flushed, bad) */
        row_write(st, &now, &now.cur);
        st->rr = (nic_qp_t)(now.q + 1);         /* round-robin: this QP goes last */
        st->fsm = RQ_IDLE;
        break;

    case RQ_PUT:
        /* its own state so that the row's write data and has_work come from a register, not
         * from the event logic behind the row read (the row is written a cycle after it was
         * read and nothing reads it in between: the FSM serialises every row access) */
        row_write(st, &now, &now.cur);
        st->fsm = st->after_put;
        break;

    case RQ_EV_OUT:
        out->ev.valid = true;
        out->ev.data = st->ev;
        if (in->ev_ready) st->fsm = RQ_IDLE;
        break;

    case RQ_MARK:
        out->tx_desc.valid = true;
        out->tx_desc.data = mig_desc(st->mark_fn);
        if (in->tx_desc_ready) {
            st->tx_mark = (hls_uint(NIC_FNS))(st->tx_mark & ~(1u << (unsigned)st->mark_fn));
            st->fsm = RQ_IDLE;
        }
        break;

    default:
        st->fsm = RQ_IDLE;
        break;
    }
}
