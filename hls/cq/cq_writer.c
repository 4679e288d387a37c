/* cq_writer — writes completion queue entries into host CQ rings (docs/cq-writer.md).
 *
 * in:  cfg       NIC_CFG_CQ from ctrl: create (valid) or destroy a CQ row; other kinds ignored
 *      cq_db     CQ doorbells: the host's consumer index
 *      cqe_resp  completions from the responder   } served round-robin,
 *      cqe_comp  completions from the completer   } one CQE at a time
 *      dma_resp  unused (this port only writes); its ready is tied high
 * out: dma_req   one 32-byte posted write per CQE
 *      ev        NIC_EV_CQ_ERR, once, when a CQ overruns; NIC_EV_CQ_COMP after the CQE that
 *                fires an armed CQ (the doorbell's arm field: ibv_req_notify_cq)
 *      cqes_written, cqes_dropped   counters
 *
 * One FSM, one job at a time. A job reads its CQ row in the cycle it is accepted and
 * decides in the next (the memory is synchronous). Every row write happens in that decide
 * cycle and the FSM always spends at least one more cycle before the next read (DMA/EV/IDLE),
 * so no read ever races a write of the same row: no bypass is needed. */
#include "hls.h"
#include "nic_bar.h"
#include "nic_if.h"

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

enum { CQW_IDLE = 0, CQW_DB, CQW_CQE, CQW_DMA, CQW_EV };

typedef struct {
    HLS_MEM(cqw_row_t, NIC_CQS) cqs;
    hls_uint(3) fsm;
    bool rr_comp;          /* round-robin: the completer's stream has priority next */
    nic_cq_t row;          /* the row the current job works on */
    nic_db_t db;           /* the doorbell being applied */
    nic_cqe_t cqe;         /* the CQE being written */
    bool solicited;        /* its request's solicited flag */
    bool fire;             /* the CQE disarmed its CQ: NIC_EV_CQ_COMP follows its write */
    uint8_t ev_kind;       /* the event offered in CQW_EV */
    nic_dma_req_t dma;     /* the write offered on dma_req */
    uint32_t cqes_written;
    uint32_t cqes_dropped;
} cq_writer_state;

/* Context row of a doorbell: cq = fn * NIC_CQ_PER_FN + cqn % NIC_CQ_PER_FN (nic_if.h). */
HLS_INLINE nic_cq_t db_row(const nic_db_t *db) {
    return (nic_cq_t)(((unsigned)db->fn << NIC_QP_SLOT_BITS) | ((unsigned)db->num % NIC_CQ_PER_FN));
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

    switch ((unsigned)st->fsm) {
    case CQW_IDLE: {
        /* Configuration first (a CQ must exist before its CQEs arrive), then doorbells (they
         * free ring space), then CQEs, alternating between the two producers. */
        bool take_comp = in->cqe_comp.valid && (st->rr_comp || !in->cqe_resp.valid);
        bool take_resp = in->cqe_resp.valid && !take_comp;
        if (in->cfg.valid) {
            out->cfg_ready = true;
            if (in->cfg.data.kind == NIC_CFG_CQ) {
                /* create or destroy: a fresh row either way (pi = ci = 0, no error) */
                cqw_row_t r = {0};
                r.base = in->cfg.data.base;
                r.log = (uint8_t)in->cfg.data.log;
                r.valid = in->cfg.data.valid;
                r.cqn = in->cfg.data.key;  /* ctrl puts the cqn in key for NIC_CFG_CQ */
                hls_mem_write(&st->cqs, in->cfg.data.cq, r);
            }
        } else if (in->cq_db.valid) {
            out->cq_db_ready = true;
            st->db = in->cq_db.data;
            st->row = db_row(&in->cq_db.data);
            hls_mem_read(&st->cqs, st->row);
            st->fsm = CQW_DB;
        } else if (take_comp || take_resp) {
            const nic_cqe_req_t *r = take_comp ? &in->cqe_comp.data : &in->cqe_resp.data;
            out->cqe_comp_ready = take_comp;
            out->cqe_resp_ready = take_resp;
            st->rr_comp = take_resp;   /* the other producer goes first next time */
            st->row = r->cq;
            st->cqe = r->cqe;
            st->solicited = r->solicited;
            hls_mem_read(&st->cqs, r->cq);
            st->fsm = CQW_CQE;
        }
        break;
    }
    case CQW_DB: {
        cqw_row_t r = st->cqs.hls_mem_rdata;
        /* a doorbell for a CQ that does not exist (or another cqn on the row) is ignored */
        if (r.valid && r.cqn == (uint32_t)st->db.num) {
            r.ci = st->db.index;
            /* arm: NONE keeps the arm; NEXT is never weakened to SOLICITED by a later arm */
            if (st->db.arm == NIC_ARM_NEXT || (st->db.arm == NIC_ARM_SOLICITED && r.arm != NIC_ARM_NEXT))
                r.arm = (uint8_t)st->db.arm;
            hls_mem_write(&st->cqs, st->row, r);
        }
        st->fsm = CQW_IDLE;
        break;
    }
    case CQW_CQE: {
        cqw_row_t r = st->cqs.hls_mem_rdata;
        unsigned log = r.log & 31u;
        /* entries the host has not consumed yet; >= rather than == so that a bogus consumer
         * index (ahead of pi) counts as full instead of letting the ring be overwritten */
        uint32_t used = (r.pi - (uint32_t)r.ci) & 0xFFFFu;
        bool full = (uint64_t)used >= ((uint64_t)1 << log);
        if (!r.valid || r.err) {
            st->cqes_dropped = st->cqes_dropped + 1;
            st->fsm = CQW_IDLE;
        } else if (full) {
            /* overrun: IB vol. 1 11.6.3 makes it the CQ Error async event; keep the ring intact */
            r.err = 1;
            hls_mem_write(&st->cqs, st->row, r);
            st->cqes_dropped = st->cqes_dropped + 1;
            st->ev_kind = NIC_EV_CQ_ERR;
            st->fsm = CQW_EV;
        } else {
            uint64_t slot = (uint64_t)r.pi & (((uint64_t)1 << log) - 1);
            bool even_pass = (((uint64_t)r.pi >> log) & 1) == 0;
            st->dma.write = true;
            st->dma.tag = 0;
            st->dma.addr = r.base + 32 * slot;
            st->dma.len = 32;
            st->dma.data = cqe_bytes(&st->cqe, even_pass ? NIC_CQE_OWNER : 0);
            r.pi = r.pi + 1;
            /* IB vol. 1 11.4.2.2: an arm for the next completion fires on any CQE, an arm for
             * solicited ones on a solicited CQE or on any unsuccessful one; firing disarms */
            bool fire = r.arm == NIC_ARM_NEXT ||
                        (r.arm == NIC_ARM_SOLICITED && (st->solicited || st->cqe.status != NIC_WC_SUCCESS));
            if (fire) r.arm = NIC_ARM_NONE;
            st->fire = fire;
            st->ev_kind = NIC_EV_CQ_COMP;
            hls_mem_write(&st->cqs, st->row, r);
            st->fsm = CQW_DMA;
        }
        break;
    }
    case CQW_DMA:
        out->dma_req.valid = true;
        out->dma_req.data = st->dma;
        if (in->dma_req_ready) {
            st->cqes_written = st->cqes_written + 1;
            /* the event only after the CQE's write was accepted: the host never sees an
             * event before the CQE it announces (one DMA port, writes in order) */
            st->fsm = st->fire ? CQW_EV : CQW_IDLE;
        }
        break;
    case CQW_EV:
        out->ev.valid = true;
        out->ev.data.kind = st->ev_kind;
        out->ev.data.cq = st->row;
        out->ev.data.detail = 0;
        if (in->ev_ready) st->fsm = CQW_IDLE;
        break;
    default:
        st->fsm = CQW_IDLE;
        break;
    }
}
