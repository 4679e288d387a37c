/* cq_writer — writes completion queue entries into host CQ rings (docs/cq-writer.md).
 *
 * in:  cfg       from ctrl: NIC_CFG_CQ (create or destroy a CQ row), NIC_CFG_SUSPEND (leaving
 *                PASSIVE reopens a function), NIC_CFG_CTX (context port); other kinds ignored
 *      cq_db     CQ doorbells: the host's consumer index
 *      cqe_resp  completions from the responder   } served round-robin, one CQE at a time;
 *      cqe_comp  completions from the completer   } or a function's migration marker
 *      dma_resp  unused (this port only writes); its ready is tied high
 * out: dma_req   one 32-byte posted write per CQE
 *      ev        NIC_EV_CQ_ERR, once, when a CQ overruns; NIC_EV_CQ_COMP after the CQE that
 *                fires an armed CQ (the doorbell's arm field: ibv_req_notify_cq), or at
 *                once when an arm finds CQEs past its consumer index;
 *                NIC_EV_MIG_MARK once both inputs' markers of a function passed;
 *                NIC_EV_CTX, the answer to NIC_CFG_CTX
 *      cqes_written, cqes_dropped   counters
 *
 * One FSM, one job at a time. A job reads its CQ row in the cycle it is accepted and
 * decides in the next (the memory is synchronous). The row a decision writes goes into a
 * write-back register and reaches the memory in the next cycle, so the memory's write port
 * is fed from registers, not from the decision's arithmetic (issue 26). A read issued in that
 * next cycle of the same row would get the old word (the memory is read-first): it is
 * forwarded from the write-back register instead (`fwd`). */
#include "hls.h"
#include "nic_bar.h"
#include "nic_if.h"
#include "nic_ctx.h"

/* One CQ context row. pi counts every CQE ever written (32 bits, not reduced); ci is the
 * host's 16-bit consumer index from the doorbell, compared with pi's low 16 bits. */
typedef struct {
    uint64_t base;     /* ring base (32-byte aligned: ctrl checks) */
    uint32_t pi;       /* CQEs written since creation */
    uint32_t cqn;      /* the CQ number software uses; doorbells must match it */
    uint16_t ci;       /* consumer index, mod 2^16 */
    uint8_t log;       /* ring size, log2 entries */
    uint8_t valid;
    uint8_t err;       /* overrun happened: the CQ is dead until destroyed */
    uint8_t arm;       /* NIC_ARM_*: a completion event is wanted for the next (solicited) CQE */
    uint16_t rsvd1;    /* explicit padding: a memory word must have none */
} cqw_row_t;
_Static_assert(sizeof(cqw_row_t) == 24, "cqw_row_t must have no padding");
/* the context port's NIC_CTX_CQW_CQ words are this row's image (nic_ctx.h) */
#define CQW_AT(f, bit) _Static_assert(__builtin_offsetof(cqw_row_t, f) * 8 == (bit), "cqw_row_t." #f " is not where nic_ctx.h says")
CQW_AT(base, NIC_CTX_CQW_BASE);
CQW_AT(pi, NIC_CTX_CQW_PI);
CQW_AT(cqn, NIC_CTX_CQW_CQN);
CQW_AT(ci, NIC_CTX_CQW_CI);
CQW_AT(log, NIC_CTX_CQW_LOG);
CQW_AT(valid, NIC_CTX_CQW_VALID);
CQW_AT(err, NIC_CTX_CQW_ERR);
CQW_AT(arm, NIC_CTX_CQW_ARM);
#undef CQW_AT
typedef hls_uint(256) cqw_img_t;

/* A row write on its way to the memory (the write-back stage). */
typedef struct {
    bool pend;
    nic_cq_t row;
    cqw_row_t data;
} cqw_wb_t;

typedef struct {
    HLS_STREAM(nic_cfg_t) cfg;
    HLS_STREAM(nic_db_t) cq_db;
    HLS_STREAM(nic_cqe_req_t) cqe_resp;
    HLS_STREAM(nic_cqe_req_t) cqe_comp;
    bool dma_req_ready;
    HLS_STREAM(nic_dma_resp_t) dma_resp;
    bool ev_ready;
} cq_writer_in;

typedef struct {
    bool cfg_ready;
    bool cq_db_ready;
    bool cqe_resp_ready;
    bool cqe_comp_ready;
    HLS_STREAM(nic_dma_req_t) dma_req;
    bool dma_resp_ready;
    HLS_STREAM(nic_event_t) ev;
    uint32_t cqes_written;
    uint32_t cqes_dropped;
} cq_writer_out;

enum { CQW_IDLE = 0, CQW_DB, CQW_CQE, CQW_DMA, CQW_EV, CQW_CTX, CQW_SCAN, CQW_SCAN_CHECK };

typedef struct {
    HLS_MEM(cqw_row_t, NIC_CQS) cqs;
    hls_uint(3) fsm;
    bool rr_comp;          /* round-robin: the completer's stream has priority next */
    nic_cq_t row;          /* the row the current job works on */
    nic_db_t db;           /* the doorbell being applied */
    nic_cqe_t cqe;         /* the CQE being written */
    bool solicited;        /* its request's solicited flag */
    bool fire;             /* the CQE disarmed its CQ: NIC_EV_CQ_COMP follows its write */
    cqw_row_t cqe_row;     /* the CQE's row as read (CQW_CQE), written back in CQW_DMA */
    bool overrun;          /* the CQE found its ring full (CQW_CQE), acted on in CQW_DMA */
    bool row_due;          /* CQW_DMA has not written the CQE's row yet */
    uint8_t ev_kind;       /* the event offered in CQW_EV */
    nic_fn_t ev_fn;        /* its function (NIC_EV_MIG_MARK, NIC_EV_CTX) */
    hls_u128 ev_data;      /* its word (NIC_EV_CTX; written only by the context port) */
    nic_cfg_t ctx;         /* the NIC_CFG_CTX in hand (CQW_CTX) */
    nic_cq_t scan_row;     /* the resume scan's row (CQW_SCAN, CQW_SCAN_CHECK) */
    bool scanning;         /* CQW_EV returns to the resume scan, not to IDLE */
    /* migration, one bit per function: the marker of each input has passed (nothing more of
     * the function is taken from that input until it leaves PASSIVE), the event was sent */
    hls_uint(NIC_FNS) mk_resp, mk_comp, mk_sent;
    uint64_t dirty;        /* one bit per row, set by every row write (NIC_CTX_DIRTY) */
    cqw_wb_t wb;           /* write-back stage: the row write decided last cycle */
    /* forwarding: the read issued last cycle was of the row written in that cycle */
    bool fwd;
    cqw_row_t fwd_data;
    nic_dma_req_t dma;     /* the write offered on dma_req */
    uint32_t cqes_written;
    uint32_t cqes_dropped;
} cq_writer_state;

/* Context row of a doorbell: cq = fn * NIC_CQ_PER_FN + cqn % NIC_CQ_PER_FN (nic_if.h). */
HLS_INLINE nic_cq_t db_row(const nic_db_t *db) {
    return (nic_cq_t)(((unsigned)db->fn << NIC_QP_SLOT_BITS) | ((unsigned)db->num % NIC_CQ_PER_FN));
}

HLS_INLINE nic_fn_t row_fn(nic_cq_t cq) { return (nic_fn_t)((unsigned)cq >> NIC_QP_SLOT_BITS); }

/* Entries written but not consumed by a consumer index ci (the ring's occupancy, mod 2^16):
 * the overrun check, a doorbell's arm ("fires at once") and the resume scan's arm ask it. */
HLS_INLINE uint32_t ring_used(const cqw_row_t *r, uint16_t ci) { return (r->pi - (uint32_t)ci) & 0xFFFFu; }
/* used >= 2^log (log 0..31, used < 2^16): a bit of used at or above bit log. A mask per bit
 * (i >= log) and an OR, not a shift by the row's log and a compare. */
HLS_INLINE bool ring_full(uint32_t used, unsigned log) {
    uint32_t high = 0;
    HLS_UNROLL for (unsigned i = 0; i < 16; i++) high |= (uint32_t)(i >= log) << i;
    return (used & high) != 0;
}
HLS_INLINE bool fn_bit(unsigned bits, nic_fn_t fn) { return (bits >> (unsigned)fn) & 1; }

/* Every row write goes through here: decided now, written by the write-back stage in the
 * next cycle (`write_back`), which marks the row dirty for the pre-copy passes. */
HLS_INLINE void row_write(cq_writer_state *st, nic_cq_t row, cqw_row_t r) {
    st->wb.pend = true;
    st->wb.row = row;
    st->wb.data = r;
}

/* The write-back stage, at the start of every cycle: last cycle's decided row write, `wb` as
 * the register held it at the edge (a copy: read through st->wb, a later state's use would
 * see the stores of the states laid out before it, docs/rtl-gen.md). */
HLS_INLINE void write_back(cq_writer_state *st, const cqw_wb_t *wb) {
    if (wb->pend) {
        hls_mem_write(&st->cqs, wb->row, wb->data);
        st->dirty |= (uint64_t)1 << wb->row;
    }
    st->wb.pend = false;
}

/* Every row read goes through here. Read-after-write hazard: a read of the row the
 * write-back stage writes in this same cycle returns the old word, so that word is forwarded. */
HLS_INLINE void row_read(cq_writer_state *st, const cqw_wb_t *wb, nic_cq_t row) {
    hls_mem_read(&st->cqs, row);
    st->fwd = wb->pend && wb->row == row;
    st->fwd_data = wb->data;
}

/* The row a read asked for last cycle. */
HLS_INLINE cqw_row_t row_data(const cq_writer_state *st) {
    return st->fwd ? st->fwd_data : st->cqs.hls_mem_rdata;
}

/* The context port: NIC_CTX_CQW_CQ word w of the row (read, or replace it), or the
 * function's dirty bits (read and clear). Answered with NIC_EV_CTX in CQW_EV. */
HLS_INLINE void ctx_job(cq_writer_state *st, const cqw_row_t *got) {
    const nic_cfg_t *c = &st->ctx;
    hls_u128 ans = c->ctx_data;
    if (c->ctx_sect == NIC_CTX_DIRTY) {
        unsigned sh = 16 * (unsigned)c->fn;
        ans = (st->dirty >> sh) & 0xFFFFu;
        st->dirty &= ~((uint64_t)0xFFFFu << sh);
    } else {
        cqw_row_t r = *got;
        cqw_img_t img = 0;
        r.rsvd1 = 0;
        __builtin_memcpy(&img, &r, sizeof r);
        unsigned sh = (c->ctx_word & 1) ? 128 : 0;
        if (c->ctx_write) {
            cqw_img_t m = (cqw_img_t)(hls_u128)~(hls_u128)0 << sh;
            img = (img & ~m) | ((cqw_img_t)c->ctx_data << sh);
            __builtin_memcpy(&r, &img, sizeof r);
            r.rsvd1 = 0;
            row_write(st, c->cq, r);
        } else {
            ans = (hls_u128)(img >> sh);
        }
    }
    st->ev_kind = NIC_EV_CTX;
    st->ev_fn = c->fn;
    st->ev_data = ans;
    st->fsm = CQW_EV;
}

/* The CQE's 32 bytes exactly as nic_cqe_t lays them out in host memory (little-endian). */
HLS_INLINE hls_u512 cqe_bytes(const nic_cqe_t *c, uint8_t owner) {
    hls_u512 w = (hls_u512)c->wr_id;
    w |= (hls_u512)c->byte_len << 64;
    w |= (hls_u512)c->imm << 96;
    w |= (hls_u512)(c->qpn & 0xFFFFFFu) << 128;   /* "low 24 bits": the rest is reserved */
    w |= (hls_u512)c->opcode << 160;
    w |= (hls_u512)c->status << 168;
    w |= (hls_u512)c->flags << 176;
    w |= (hls_u512)owner << 184;
    return w;                                     /* bytes 24..31 (rsvd) are 0 */
}

HLS_TOP void cq_writer(const cq_writer_in *in, cq_writer_out *out, cq_writer_state *st) {
    out->cqes_written = st->cqes_written;
    out->cqes_dropped = st->cqes_dropped;
    out->dma_resp_ready = true;
    const cqw_wb_t wb = st->wb;
    /* the row read last cycle, taken before any state stores fwd (a later state reading
     * st->fwd would see the stores of the states laid out before it) */
    const cqw_row_t got = row_data(st);
    /* what CQW_CQE registered for CQW_DMA, as the registers held it */
    const cqw_row_t cqe_row = st->cqe_row;
    const nic_cq_t job_row = st->row;
    const bool overrun = st->overrun, row_due = st->row_due, fire = st->fire;
    write_back(st, &wb);
    /* the counters' next values from the registers, not behind the states' decisions */
    uint32_t written_next = st->cqes_written + 1, dropped_next = st->cqes_dropped + 1;

    switch ((unsigned)st->fsm) {
    case CQW_IDLE: {
        /* Configuration first (a CQ must exist before its CQEs arrive), then doorbells (they
         * free ring space), then CQEs, alternating between the two producers. An input whose
         * marker of a function has passed is not taken from for that function until it
         * leaves PASSIVE: the producer promised nothing follows, so a CQE that does is held
         * (not lost) rather than written into a frozen function. */
        const nic_cqe_req_t *qc = &in->cqe_comp.data, *qr = &in->cqe_resp.data;
        bool ok_comp = in->cqe_comp.valid && (qc->mig_mark || !fn_bit(st->mk_comp, row_fn(qc->cq)));
        bool ok_resp = in->cqe_resp.valid && (qr->mig_mark || !fn_bit(st->mk_resp, row_fn(qr->cq)));
        bool take_comp = ok_comp && (st->rr_comp || !ok_resp);
        bool take_resp = ok_resp && !take_comp;
        if (in->cfg.valid) {
            const nic_cfg_t *c = &in->cfg.data;
            out->cfg_ready = true;
            if (c->kind == NIC_CFG_CQ) {
                /* create or destroy: a fresh row either way (pi = ci = 0, no error) */
                cqw_row_t r = {0};
                r.base = c->base;
                r.log = (uint8_t)c->log;
                r.valid = c->valid;
                r.cqn = c->key;  /* ctrl puts the cqn in key for NIC_CFG_CQ */
                row_write(st, c->cq, r);
            } else if (c->kind == NIC_CFG_SUSPEND && c->level != NIC_SUSPEND_PASSIVE) {
                /* leaving PASSIVE: the function's CQEs are taken again */
                unsigned keep = ~(1u << (unsigned)c->fn);
                st->mk_resp &= keep;
                st->mk_comp &= keep;
                st->mk_sent &= keep;
                /* RUN: the arms kept while it was frozen (or loaded with its image) that
                 * find unconsumed CQEs fire now, one row per two cycles (CQW_SCAN) */
                if (c->level == NIC_SUSPEND_RUN) {
                    st->scan_row = (nic_cq_t)((unsigned)c->fn << NIC_QP_SLOT_BITS);
                    st->fsm = CQW_SCAN;
                }
            } else if (c->kind == NIC_CFG_CTX) {
                st->ctx = *c;
                row_read(st, &wb, c->cq);
                st->fsm = CQW_CTX;
            }
        } else if (in->cq_db.valid) {
            /* a doorbell is applied in every level: the consumer index is what the host
             * wrote, and it writes neither host memory nor an event */
            out->cq_db_ready = true;
            st->db = in->cq_db.data;
            st->row = db_row(&in->cq_db.data);
            row_read(st, &wb, st->row);
            st->fsm = CQW_DB;
        } else if (take_comp || take_resp) {
            const nic_cqe_req_t *r = take_comp ? qc : qr;
            out->cqe_comp_ready = take_comp;
            out->cqe_resp_ready = take_resp;
            st->rr_comp = take_resp;   /* the other producer goes first next time */
            nic_fn_t fn = row_fn(r->cq);
            if (r->mig_mark) {
                /* every CQE ahead of this marker is written (one job at a time, a DMA write
                 * counted only when accepted); once both inputs' markers are in, say so */
                unsigned b = 1u << (unsigned)fn;
                unsigned mc = st->mk_comp | (take_comp ? b : 0), mr = st->mk_resp | (take_resp ? b : 0);
                st->mk_comp = (hls_uint(NIC_FNS))mc;
                st->mk_resp = (hls_uint(NIC_FNS))mr;
                if ((mc & mr & b) && !(st->mk_sent & b)) {
                    st->mk_sent |= (hls_uint(NIC_FNS))b;
                    st->ev_kind = NIC_EV_MIG_MARK;
                    st->ev_fn = fn;
                    st->fsm = CQW_EV;
                }
            } else {
                st->row = r->cq;
                st->cqe = r->cqe;
                st->solicited = r->solicited;
                row_read(st, &wb, r->cq);
                st->fsm = CQW_CQE;
            }
        }
        break;
    }
    case CQW_DB: {
        cqw_row_t r = got;
        /* a doorbell for a CQ that does not exist (or another cqn on the row) is ignored */
        st->fsm = CQW_IDLE;
        if (r.valid && r.cqn == (uint32_t)st->db.num) {
            r.ci = st->db.index;
            /* An arm that finds CQEs past the doorbell's consumer index fires at once. The host
             * arms, then polls, and the arm reaches this block later: a CQE written between the
             * poll's look and the arm would otherwise be in the ring unseen, with no event to
             * come (docs/cq-writer.md). Not while the function is frozen (a marker passed):
             * then the arm is kept and the row carries it. */
            bool arming = st->db.arm != NIC_ARM_NONE;
            bool unconsumed = ring_used(&r, st->db.index) != 0;
            bool frozen = fn_bit((unsigned)st->mk_comp | (unsigned)st->mk_resp, row_fn(st->row));
            bool at_once = arming && unconsumed && !r.err && !frozen;
            if (at_once) {
                r.arm = NIC_ARM_NONE;  /* the event this arm asked for is the one sent now */
                st->ev_kind = NIC_EV_CQ_COMP;
                st->ev_fn = row_fn(st->row);
                st->fsm = CQW_EV;
            } else if (st->db.arm == NIC_ARM_NEXT || (st->db.arm == NIC_ARM_SOLICITED && r.arm != NIC_ARM_NEXT)) {
                /* NONE keeps the arm; NEXT is never weakened to SOLICITED by a later arm */
                r.arm = (uint8_t)st->db.arm;
            }
            row_write(st, st->row, r);
        }
        break;
    }
    case CQW_CQE: {
        /* The write is prepared as if the ring had room; whether it has (the subtract and
         * compare of ring_full) is registered and acted on in CQW_DMA, so neither reaches the
         * row's write data or the DMA request in this cycle. */
        cqw_row_t r = got;
        unsigned log = r.log & 31u;
        /* entries the host has not consumed yet; >= rather than == so that a bogus consumer
         * index (ahead of pi) counts as full instead of letting the ring be overwritten */
        st->overrun = ring_full(ring_used(&r, r.ci), log);
        st->cqe_row = r;
        st->row_due = true;
        uint64_t slot = (uint64_t)r.pi & ~(~(uint64_t)0 << log); /* the ring's index bits: a shift, not (1 << log) - 1 */
        bool even_pass = (((uint64_t)r.pi >> log) & 1) == 0;
        st->dma.write = true;
        st->dma.tag = 0;
        st->dma.addr = r.base + 32 * slot;
        st->dma.len = 32;
        st->dma.data = cqe_bytes(&st->cqe, even_pass ? NIC_CQE_OWNER : 0);
        /* IB vol. 1 11.4.2.2: an arm for the next completion fires on any CQE, an arm for
         * solicited ones on a solicited CQE or on any unsuccessful one; firing disarms */
        st->fire = r.arm == NIC_ARM_NEXT ||
                   (r.arm == NIC_ARM_SOLICITED && (st->solicited || st->cqe.status != NIC_WC_SUCCESS));
        st->ev_fn = row_fn(st->row);
        if (!r.valid || r.err) {
            st->cqes_dropped = dropped_next;
            st->fsm = CQW_IDLE;
        } else {
            st->fsm = CQW_DMA;
        }
        break;
    }
    case CQW_DMA: {
        /* the row's write: the CQE's entry taken (and the arm it fired cleared), or, when the
         * ring had no room, the CQ's error flag set and nothing offered */
        cqw_row_t r = cqe_row;
        if (overrun) {
            /* overrun: IB vol. 1 11.6.3 makes it the CQ Error async event; keep the ring intact */
            r.err = 1;
            row_write(st, job_row, r);
            st->cqes_dropped = dropped_next;
            st->ev_kind = NIC_EV_CQ_ERR;
            st->fsm = CQW_EV;
            break;
        }
        if (row_due) {
            r.pi = r.pi + 1;
            if (fire) r.arm = NIC_ARM_NONE;
            row_write(st, job_row, r);
            st->row_due = false;
        }
        st->ev_kind = NIC_EV_CQ_COMP;
        out->dma_req.valid = true;
        out->dma_req.data = st->dma;
        if (in->dma_req_ready) {
            st->cqes_written = written_next;
            /* the event only after the CQE's write was accepted: the host never sees an
             * event before the CQE it announces (one DMA port, writes in order) */
            st->fsm = fire ? CQW_EV : CQW_IDLE;
        }
        break;
    }
    case CQW_EV:
        out->ev.valid = true;
        out->ev.data.kind = st->ev_kind;
        out->ev.data.cq = st->row;
        out->ev.data.detail = 0;
        out->ev.data.fn = st->ev_fn;
        out->ev.data.data = st->ev_kind == NIC_EV_CTX ? st->ev_data : 0; /* the others carry none */
        if (in->ev_ready) st->fsm = st->scanning ? CQW_SCAN : CQW_IDLE;
        break;
    case CQW_CTX:
        ctx_job(st, &got);
        break;
    case CQW_SCAN:
        /* the resume scan: the function's rows in turn */
        row_read(st, &wb, st->scan_row);
        st->scanning = false;
        st->fsm = CQW_SCAN_CHECK;
        break;
    case CQW_SCAN_CHECK: {
        /* an arm with CQEs past its consumer index fires, as a doorbell's would have (CQW_DB);
         * then the next row, or IDLE after the function's last */
        cqw_row_t r = got;
        bool unconsumed = ring_used(&r, r.ci) != 0;
        bool last = ((unsigned)st->scan_row & (NIC_CQ_PER_FN - 1)) == NIC_CQ_PER_FN - 1;
        bool fire = r.valid && !r.err && r.arm != NIC_ARM_NONE && unconsumed;
        nic_cq_t row = st->scan_row;
        st->scan_row = (nic_cq_t)((unsigned)row + 1);
        st->fsm = fire ? CQW_EV : last ? CQW_IDLE : CQW_SCAN;
        st->scanning = fire && !last;
        if (fire) {
            r.arm = NIC_ARM_NONE;
            row_write(st, row, r);
            st->row = row;
            st->ev_kind = NIC_EV_CQ_COMP;
            st->ev_fn = row_fn(row);
        }
        break;
    }
    default:
        st->fsm = CQW_IDLE;
        break;
    }
}
