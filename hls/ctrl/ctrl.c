/* ctrl — the command interface and the QP state machine (docs/ctrl.md).
 *
 * in:  cmd                      host/firmware commands, answered in order on cmd_resp
 *      ev_comp, ev_resp, ev_cqw datapath events (completer, responder, cq_writer: CQ_ERR and
 *                               the completion events of armed CQs, CQ_COMP), migration
 *                               markers and context answers
 *      ev_rxd, ev_tx            rx_dispatch's context answers, roce_tx's transmit markers
 *      ev_req                   the requester's context answers (NIC_CTX_REQ_QP)
 * out: cmd_resp                 one nic_cmd_resp_t per command
 *      cfg_req, cfg_resp, cfg_comp, cfg_cqw, cfg_rxd   configuration fan-out (nic_cfg_t)
 *      async                    events for the host
 *
 * Tables (HLS_MEM, ctrl_rows.h): qps (master QP attributes, row = fn*16 + qpn%16),
 * cqs (valid, cqn, QP reference count), mrs (valid, key and the region).
 *
 * One FSM serves one command or event at a time; events win when both wait, so a datapath
 * error is applied before any later host command looks at the row. A command:
 *   IDLE  accept it; read its QP row and MR row
 *   RD_A  read CQ row A (CREATE_QP: send_cq, DESTROY_QP: the row's send_cq, else the cqn's row)
 *   RD_B  keep A; read CQ row B (CREATE_QP: recv_cq, DESTROY_QP: the row's recv_cq, else A)
 *   EXEC  every check, every table write but CQ row B's (one write per memory per cycle)
 *   WB_B  CQ row B's reference count when B != A
 *   CFG   offer the nic_cfg_t to every block that needs it until each one took it
 *   RESP  the answer
 * An event: IDLE (read the QP row), EV_EXEC (state change, row write), CFG, ASYNC.
 * Migration (docs/migration.md): SUSPEND_FN and a context command for another block's row
 * leave CFG for IDLE still pending; IDLE then serves events but no command, and the marker
 * or NIC_EV_CTX that completes the command is absorbed in EV_EXEC and releases RESP.
 * Every table write lands at least one cycle before the next job's reads, and no job reads a
 * row after writing it, so the read-first memories never need a bypass. */
#include "hls.h"
#include "nic_if.h"
#include "ctrl_rows.h"
#include "ctrl_rules.h"
#include "ctrl_ctx.h"

typedef struct {
    HLS_STREAM(nic_cmd_t) cmd;
    bool cmd_resp_ready;
    bool cfg_req_ready, cfg_resp_ready, cfg_comp_ready, cfg_cqw_ready, cfg_rxd_ready;
    HLS_STREAM(nic_event_t) ev_comp;
    HLS_STREAM(nic_event_t) ev_resp;
    HLS_STREAM(nic_event_t) ev_cqw;
    HLS_STREAM(nic_event_t) ev_rxd;
    HLS_STREAM(nic_event_t) ev_tx;
    HLS_STREAM(nic_event_t) ev_req;
    bool async_ready;
} ctrl_in;

typedef struct {
    bool cmd_ready;
    HLS_STREAM(nic_cmd_resp_t) cmd_resp;
    HLS_STREAM(nic_cfg_t) cfg_req;
    HLS_STREAM(nic_cfg_t) cfg_resp;
    HLS_STREAM(nic_cfg_t) cfg_comp;
    HLS_STREAM(nic_cfg_t) cfg_cqw;
    HLS_STREAM(nic_cfg_t) cfg_rxd;
    bool ev_comp_ready, ev_resp_ready, ev_cqw_ready, ev_rxd_ready, ev_tx_ready, ev_req_ready;
    HLS_STREAM(nic_event_t) async;
} ctrl_out;

enum { C_IDLE = 0, C_RD_A, C_RD_B, C_CHECK, C_VERDICT, C_EXEC, C_WB_B, C_EV_EXEC, C_CFG, C_RESP, C_ASYNC };
enum { TO_REQ = 1, TO_RESP = 2, TO_COMP = 4, TO_CQW = 8, TO_RXD = 16 };
#define TO_QP_BLOCKS (TO_REQ | TO_RESP | TO_COMP)
#define TO_ALL (TO_QP_BLOCKS | TO_CQW | TO_RXD)
/* Event sources, in round-robin order. */
enum { SRC_COMP = 0, SRC_RESP, SRC_CQW, SRC_RXD, SRC_TX, SRC_REQ, N_SRC };
_Static_assert(N_SRC == 6, "the event grant's encoder (C_IDLE) is written for 6 sources");
/* Migration markers a pending SUSPEND_FN waits for (docs/migration.md section 2). */
enum { MK_TX_REQ = 1, MK_TX_RESP = 2, MK_COMP = 4, MK_RESP = 8, MK_CQW = 16 };
#define MK_TX (MK_TX_REQ | MK_TX_RESP)
#define MK_ALL (MK_TX | MK_COMP | MK_RESP | MK_CQW)

typedef struct {
    HLS_MEM(ctrl_qp_row_t, NIC_QPS) qps;
    HLS_MEM(ctrl_cq_row_t, NIC_CQS) cqs;
    HLS_MEM(nic_mr_row_t, NIC_MRS) mrs;
    hls_uint(4) fsm;
    hls_uint(3) ev_rr;          /* event source (SRC_*) served first next time */
    bool serving_event;         /* CFG is followed by ASYNC (event) or RESP (command) */
    nic_cmd_t cmd;
    nic_event_t ev;
    hls_uint(3) ev_src;         /* SRC_* the event in hand came from */
    /* migration (docs/migration.md): suspend level per function; the command in hand waits
     * for markers (pend_marks) or for its NIC_EV_CTX answer (pend_ctx from pend_src) */
    hls_uint(2) level[NIC_FNS];
    hls_uint(5) pend_marks;
    bool pend_ctx;
    hls_uint(3) pend_src;
    nic_fn_t pend_fn;
    /* dirty rows: one bit per row of qps / cqs / mrs, set by every write (NIC_CTX_DIRTY) */
    uint64_t qp_dirty, cq_dirty;
    uint64_t mr_dirty[NIC_FNS];
    nic_cq_t cq_a, cq_b;
    bool cq_same;               /* cq_a == cq_b, registered in C_CHECK for C_EXEC */
    ctrl_cq_row_t cqa;          /* CQ row A as read in RD_B */
    ctrl_cq_row_t cqb_new;      /* CQ row B to write in WB_B */
    hls_uint(5) cfg_need;       /* TO_* outputs that have not taken cfg yet */
    nic_cfg_t cfg;
    nic_cmd_resp_t resp;
    uint8_t cmd_field;              /* what C_RD_A found wrong with the command's fields */
    uint8_t mod_value_field;        /* MODIFY_QP: what C_RD_A found wrong with its values */
    modify_facts mod_facts;         /* MODIFY_QP: what C_CHECK found in the QP's state */
    uint8_t chk_status, chk_field;  /* what C_CHECK found wrong with the command in hand */
} ctrl_state;

/* This cycle's memory operations. Every path only fills these in and the top function issues
 * at most one read and one write per memory at its end: clang would otherwise merge calls on
 * alternative paths into one call on a pointer that selects the memory, which rtl-gen rejects
 * ([memory-access]). */
typedef struct {
    bool qp_re, qp_we, cq_re, cq_we, mr_re, mr_we;
    nic_qp_t qp_ra, qp_wa;
    nic_cq_t cq_ra, cq_wa;
    nic_mr_t mr_ra, mr_wa;
    ctrl_qp_row_t qp_wd;
    ctrl_cq_row_t cq_wd;
    nic_mr_row_t mr_wd;
} mem_ops;

HLS_INLINE void qp_write(mem_ops *o, nic_qp_t a, ctrl_qp_row_t v) { o->qp_we = true; o->qp_wa = a; o->qp_wd = v; }
HLS_INLINE void cq_write(mem_ops *o, nic_cq_t a, ctrl_cq_row_t v) { o->cq_we = true; o->cq_wa = a; o->cq_wd = v; }
HLS_INLINE void mr_write(mem_ops *o, nic_mr_t a, nic_mr_row_t v) { o->mr_we = true; o->mr_wa = a; o->mr_wd = v; }

/* Context rows of a command's number (nic_if.h namespaces). */
HLS_INLINE nic_qp_t num_row(nic_fn_t fn, uint32_t num) {
    return (nic_qp_t)(((unsigned)fn << NIC_QP_SLOT_BITS) | (num % NIC_QP_PER_FN));
}
/* A context command names an MR by slot, every other command by key. */
HLS_INLINE nic_mr_t cmd_mr_row(const nic_cmd_t *c) {
    bool ctx = c->op == NIC_CMD_CTX_READ || c->op == NIC_CMD_CTX_WRITE;
    return ctx ? (nic_mr_t)(((unsigned)c->fn << NIC_MR_SLOT_BITS) | (c->num % NIC_MR_PER_FN)) : nic_mr_of_key(c->fn, c->num);
}
HLS_INLINE nic_fn_t cq_fn(nic_cq_t cq) { return (nic_fn_t)((unsigned)cq >> NIC_QP_SLOT_BITS); }

/* A QP's reference on a CQ row taken (up) or given back, once or, when the QP's send and
 * recv CQ are one row, twice; never below 0. In the row's 8 bits: a 32-bit signed add and its
 * sign test were a carry chain in front of the CQ table's write data (issue 26). */
HLS_INLINE ctrl_cq_row_t cq_refs(ctrl_cq_row_t r, bool up, bool twice) {
    uint8_t d = twice ? 2 : 1;
    r.refs = up ? (uint8_t)(r.refs + d) : r.refs > d ? (uint8_t)(r.refs - d) : 0;
    return r;
}

HLS_INLINE nic_cfg_t qp_cfg(nic_qp_t row, unsigned prev, const nic_qp_attr_t *a, bool valid) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_QP;
    c.fn = (nic_fn_t)((unsigned)row >> NIC_QP_SLOT_BITS);
    c.qp = row;
    c.prev_state = (hls_uint(3))prev;
    c.attr = *a;
    c.attr.cur_state = a->state;   /* the command's cur_state is a check, not an attribute */
    c.valid = valid;   /* 0: the QP was destroyed */
    return c;
}

/* What a command decided: filled in by exec_cmd and the migration helpers below. */
typedef struct {
    uint8_t status, field;
    unsigned need;              /* TO_* outputs of cfg */
    nic_cfg_t cfg;
    unsigned marks;             /* MK_* to wait for before answering */
    bool wait_ctx;              /* the answer comes from the owner's NIC_EV_CTX */
    hls_uint(3) ctx_src;        /* SRC_* of that owner */
} cmd_verdict;

/* SUSPEND_FN: RUN -> ACTIVE -> PASSIVE -> ACTIVE -> RUN. Suspend-Active is where the function
 * stops (seed 004 DA12, VFIO RUNNING_P2P): the blocks hear NIC_SUSPEND_PASSIVE, the only
 * stopped level they know (rx_dispatch closes the gate, every block stops at a packet
 * boundary), and the answer waits for the markers of the whole graph, which prove that the
 * function started its last DMA. ACTIVE <-> PASSIVE only says whether the context may be
 * written: nothing is moving, so the blocks hear nothing and the answer is immediate. Resume
 * -Active tells the blocks RUN (docs/migration.md 2). */
HLS_INLINE void exec_suspend(ctrl_state *st, cmd_verdict *v) {
    const nic_cmd_t *c = &st->cmd;
    unsigned cur = st->level[c->fn], next = c->level;
    bool ok = (cur == NIC_SUSPEND_RUN && next == NIC_SUSPEND_ACTIVE) ||
              (cur == NIC_SUSPEND_ACTIVE && (next == NIC_SUSPEND_PASSIVE || next == NIC_SUSPEND_RUN)) ||
              (cur == NIC_SUSPEND_PASSIVE && next == NIC_SUSPEND_ACTIVE);
    bool stop = cur == NIC_SUSPEND_RUN;
    bool run = next == NIC_SUSPEND_RUN;
    if (next > NIC_SUSPEND_PASSIVE) {
        v->field = NIC_CMD_F_LEVEL;
    } else if (!ok) {
        v->status = NIC_CMD_ESTATE;
        v->field = NIC_CMD_F_LEVEL;
    } else {
        st->level[c->fn] = (hls_uint(2))next;
        v->cfg.kind = NIC_CFG_SUSPEND;
        v->cfg.level = (hls_uint(2))(run ? NIC_SUSPEND_RUN : NIC_SUSPEND_PASSIVE);
        v->need = stop || run ? TO_ALL : 0;
        v->marks = stop ? MK_ALL : 0;
    }
}

/* The section's words per row, 0 for a section this NIC does not have. */
HLS_INLINE unsigned ctx_words(unsigned sect) {
    switch (sect) {
    case NIC_CTX_CTRL_QP: return NIC_CTX_QP_WORDS;
    case NIC_CTX_CTRL_CQ: return NIC_CTX_CQ_WORDS;
    case NIC_CTX_CTRL_MR: return NIC_CTX_MR_WORDS;
    case NIC_CTX_REQ_QP: return NIC_CTX_REQ_QP_WORDS;
    case NIC_CTX_COMP_QP: return NIC_CTX_COMP_QP_WORDS;
    case NIC_CTX_RESP_QP: return NIC_CTX_RESP_QP_WORDS;
    case NIC_CTX_RESP_ATOM: return NIC_CTX_RESP_ATOM_WORDS;
    case NIC_CTX_CQW_CQ: return NIC_CTX_CQW_WORDS;
    case NIC_CTX_FN: return NIC_CTX_FN_WORDS;
    case NIC_CTX_DIRTY: return NIC_CTX_DIRTY_WORDS;
    default: return 0;
    }
}
/* Rows per function (the bound of cmd.num); DIRTY: num names a section with dirty bits. */
HLS_INLINE bool ctx_num_ok(unsigned sect, uint32_t num) {
    switch (sect) {
    case NIC_CTX_CTRL_MR: return num < NIC_CTX_MR_SLOTS;
    case NIC_CTX_FN: return num < NIC_CTX_FN_SLOTS;
    case NIC_CTX_DIRTY: return num != NIC_CTX_FN && num != NIC_CTX_DIRTY && ctx_words(num) != 0;
    default: return num < NIC_CTX_QP_SLOTS;  /* QP and CQ slots: 16 each */
    }
}

/* The function's 16 bits of a 64-row dirty register, and the register with them cleared. */
HLS_INLINE uint64_t dirty16(uint64_t r, nic_fn_t fn) { return (r >> (16 * (unsigned)fn)) & 0xFFFFu; }
HLS_INLINE uint64_t clear16(uint64_t r, nic_fn_t fn) { return r & ~((uint64_t)0xFFFFu << (16 * (unsigned)fn)); }

/* CTX_READ / CTX_WRITE, once check_fields and check_cmd found nothing wrong: ctrl's own
 * sections are read and written here, one row access each
 * (the row was read in IDLE / RD_A like any command's); the other sections go to their
 * owner as NIC_CFG_CTX and the answer is the owner's NIC_EV_CTX. */
HLS_INLINE void exec_ctx(ctrl_state *st, mem_ops *mo, cmd_verdict *v) {
    const nic_cmd_t *c = &st->cmd;
    unsigned sect = c->ctx_sect, w = c->ctx_word;
    bool wr = c->op == NIC_CMD_CTX_WRITE;
    hls_u128 d = c->ctx_data;
    ctrl_qp_row_t q = st->qps.hls_mem_rdata;
    nic_mr_row_t m = st->mrs.hls_mem_rdata;
    hls_u128 ans = d;                 /* a write answers with the word written */
    if (sect == NIC_CTX_CTRL_QP) {
        ctx_qp_img_t img = qp_image(q);
        ctrl_qp_row_t nq = qp_from_image(qp_put(img, w, d), c->fn);
        if (wr) qp_write(mo, num_row(c->fn, c->num), nq);
        else ans = qp_word(img, w);
        if (wr && w == NIC_CTX_QP_WORDS - 1) {
            /* the row is complete: the QP blocks take their copies of the attributes and
             * keep their live state, which their own sections load (one copy per fact) */
            nic_qp_attr_t a = row_attr(&nq);
            v->cfg = qp_cfg(num_row(c->fn, c->num), a.state, &a, nq.valid);
            v->cfg.kind = NIC_CFG_QP_ATTR;
            v->need = TO_QP_BLOCKS;
        }
    } else if (sect == NIC_CTX_CTRL_CQ) {
        if (wr) cq_write(mo, st->cq_a, cq_from_image(d));
        else ans = cq_image(st->cqa);
    } else if (sect == NIC_CTX_CTRL_MR) {
        ctx_mr_img_t img = mr_image(m);
        nic_mr_row_t nm = mr_from_image(mr_put(img, w, d));
        if (wr) mr_write(mo, cmd_mr_row(c), nm);
        else ans = mr_word(img, w);
        if (wr && w == NIC_CTX_MR_WORDS - 1) {
            /* the row is complete: the requester (lkey checks) and the responder (rkey
             * checks) keep copies of the MR table; they get it as REG_MR / DEREG_MR give it */
            v->cfg.kind = NIC_CFG_MR;
            v->cfg.mr = cmd_mr_row(c);
            v->cfg.key = nm.key;
            v->cfg.pd = nm.pd;
            v->cfg.base = nm.base;
            v->cfg.len = nm.len;
            v->cfg.access = nm.access;
            v->cfg.valid = nm.valid;
            v->need = TO_REQ | TO_RESP;
        }
    } else if (sect == NIC_CTX_DIRTY && c->num == NIC_CTX_CTRL_QP) {
        ans = dirty16(st->qp_dirty, c->fn);
        st->qp_dirty = clear16(st->qp_dirty, c->fn);
    } else if (sect == NIC_CTX_DIRTY && c->num == NIC_CTX_CTRL_CQ) {
        ans = dirty16(st->cq_dirty, c->fn);
        st->cq_dirty = clear16(st->cq_dirty, c->fn);
    } else if (sect == NIC_CTX_DIRTY && c->num == NIC_CTX_CTRL_MR) {
        ans = st->mr_dirty[c->fn];
        st->mr_dirty[c->fn] = 0;
    } else if (sect == NIC_CTX_FN && wr) {
        /* the function's addresses are one fact with three copies: rx_dispatch's row (what it
         * accepts) and the requester's and responder's (the source MAC / IP of every frame
         * they build). A load sends them as SET_FN does, to all three, and answers the word
         * written: writing rx_dispatch's row alone left a destination sending from 0.0.0.0 */
        v->cfg.kind = NIC_CFG_FN;
        v->cfg.mac = (uint64_t)(d >> NIC_CTX_FN_MAC) & 0xFFFFFFFFFFFFull;
        v->cfg.ip = (uint32_t)(d >> NIC_CTX_FN_IP);
        v->cfg.valid = ((uint32_t)(d >> NIC_CTX_FN_VALID) & 1) != 0;
        v->need = TO_REQ | TO_RESP | TO_RXD;
    } else {
        /* another block's row: DIRTY goes to the owner of section num (in cfg.key) */
        unsigned owner = sect == NIC_CTX_DIRTY ? c->num : sect;
        v->cfg.kind = NIC_CFG_CTX;
        v->cfg.qp = num_row(c->fn, c->num);
        v->cfg.cq = num_row(c->fn, c->num);
        v->cfg.mr = cmd_mr_row(c);
        v->cfg.ctx_write = wr;
        v->cfg.ctx_sect = (uint8_t)sect;
        v->cfg.ctx_word = (uint8_t)w;
        v->cfg.ctx_data = d;
        v->cfg.key = sect == NIC_CTX_DIRTY ? c->num : 0;
        v->need = owner == NIC_CTX_COMP_QP ? TO_COMP : owner == NIC_CTX_CQW_CQ ? TO_CQW
                : owner == NIC_CTX_FN ? TO_RXD : owner == NIC_CTX_REQ_QP ? TO_REQ : TO_RESP;
        v->ctx_src = owner == NIC_CTX_COMP_QP ? SRC_COMP : owner == NIC_CTX_CQW_CQ ? SRC_CQW
                   : owner == NIC_CTX_FN ? SRC_RXD : owner == NIC_CTX_REQ_QP ? SRC_REQ : SRC_RESP;
        v->wait_ctx = true;
        ans = 0;
    }
    st->resp.ctx_data = ans;
}

/* The decision of one command: status, table writes, the configuration to send. */
/* C_RD_A: what is wrong with the command's own fields, whatever the rows hold (the first
 * checks of each op, in the order the answer names them), into cmd_field: a stage of its own
 * for the 64-bit range checks (MAC, MR range), whose carry chains would otherwise start
 * C_CHECK's priority chain. */
HLS_INLINE uint8_t check_fields(const nic_cmd_t *c) {
    uint8_t field = NIC_CMD_F_NONE;
    switch (c->op) {
    case NIC_CMD_SET_FN:
        if (!mac_ok(c->mac)) field = NIC_CMD_F_MAC;
        else if (c->ip == 0) field = NIC_CMD_F_IP;
        break;
    case NIC_CMD_CREATE_CQ:
        if (c->num > 0xFFFFFFu) field = NIC_CMD_F_NUM;
        else if (c->base & 31) field = NIC_CMD_F_BASE;      /* CQEs are 32 bytes */
        else if (c->log > 15) field = NIC_CMD_F_LOG;        /* 16-bit consumer index */
        break;
    case NIC_CMD_CREATE_QP:
        if (c->num > 0xFFFFFFu || c->num < 2) field = NIC_CMD_F_NUM;   /* QP0/QP1 are special */
        else if ((c->qp.sq_base & 63) || c->qp.sq_log > 15) field = NIC_CMD_F_SQ;
        else if ((c->qp.rq_base & 31) || c->qp.rq_log > 15) field = NIC_CMD_F_RQ;
        break;
    case NIC_CMD_REG_MR:
        if (!mr_reg_access_ok(c->access)) field = NIC_CMD_F_ACCESS;
        else if (!mr_reg_range_ok(c->base, c->len)) field = NIC_CMD_F_LEN;
        break;
    case NIC_CMD_MODIFY_QP:       /* the rest of its checks need the row (check_cmd) */
        field = modify_mask_field(c->mask, &c->qp);
        break;
    case NIC_CMD_CTX_READ:
    case NIC_CMD_CTX_WRITE: {
        unsigned sect = c->ctx_sect, words = ctx_words(sect);
        if (words == 0 || (c->op == NIC_CMD_CTX_WRITE && sect == NIC_CTX_DIRTY)) field = NIC_CMD_F_SECT;
        else if (c->ctx_word >= words) field = NIC_CMD_F_WORD;
        else if (!ctx_num_ok(sect, c->num)) field = NIC_CMD_F_NUM;
        break;
    }
    default:
        break;
    }
    return field;
}

/* C_CHECK: what is wrong with the command, from its fields and the rows read for it, into
 * chk_status / chk_field. Its own state so that no path runs from a check through the
 * verdict's priority chain into the row writes, cfg and answer of C_EXEC (a cycle per
 * command; commands are rare). SUSPEND_FN decides in C_EXEC (exec_suspend). */
HLS_INLINE void check_cmd(ctrl_state *st) {
    const nic_cmd_t *c = &st->cmd;
    ctrl_qp_row_t q = st->qps.hls_mem_rdata;
    nic_mr_row_t m = st->mrs.hls_mem_rdata;
    ctrl_cq_row_t ca = st->cqa;
    ctrl_cq_row_t cb = st->cqs.hls_mem_rdata;
    bool qp_here = q.valid && q.qpn == c->num;
    uint8_t status = NIC_CMD_OK, field = st->cmd_field;
    /* MODIFY_QP names a missing QP before a bad mask: its cmd_field goes to modify_verdict */
    if (field == NIC_CMD_F_NONE || c->op == NIC_CMD_MODIFY_QP) {
        switch (c->op) {
        case NIC_CMD_CREATE_CQ:
            if (ca.valid) status = NIC_CMD_EEXIST;
            break;
        case NIC_CMD_DESTROY_CQ:
            if (!(ca.valid && ca.cqn == c->num)) status = NIC_CMD_ENOENT;
            else if (ca.refs != 0) status = NIC_CMD_EBUSY;
            break;
        case NIC_CMD_CREATE_QP:
            if (!ca.valid || cq_fn(c->qp.send_cq) != c->fn) field = NIC_CMD_F_SEND_CQ;
            else if (!cb.valid || cq_fn(c->qp.recv_cq) != c->fn) field = NIC_CMD_F_RECV_CQ;
            else if (q.valid) status = NIC_CMD_EEXIST;
            break;
        case NIC_CMD_DESTROY_QP:
        case NIC_CMD_QUERY_QP:
        case NIC_CMD_QUIESCE_QP:
            if (!qp_here) status = NIC_CMD_ENOENT;
            break;
        case NIC_CMD_MODIFY_QP:
            if (!qp_here) {
                status = NIC_CMD_ENOENT;
                field = NIC_CMD_F_NONE;
            } else {
                st->mod_facts = modify_facts_of(q.state, c->mask, &c->qp);   /* C_VERDICT judges */
            }
            break;
        case NIC_CMD_REG_MR:
            if (m.valid) status = NIC_CMD_EEXIST;
            break;
        case NIC_CMD_DEREG_MR:
            if (!(m.valid && m.key == c->num)) status = NIC_CMD_ENOENT;
            break;
        case NIC_CMD_CTX_WRITE:
            if (st->level[c->fn] != NIC_SUSPEND_PASSIVE) {
                status = NIC_CMD_ESTATE;   /* a running block never sees its row change */
                field = NIC_CMD_F_LEVEL;
            }
            break;
        case NIC_CMD_NOP:
        case NIC_CMD_SET_FN:
        case NIC_CMD_SUSPEND_FN:
        case NIC_CMD_CTX_READ:
        case NIC_CMD_THROTTLE:
            break;
        default:
            field = NIC_CMD_F_OP;
            break;
        }
    }
    if (field != NIC_CMD_F_NONE && status == NIC_CMD_OK) status = NIC_CMD_EINVAL;
    st->chk_status = status;
    st->chk_field = field;
}

/* C_VERDICT: MODIFY_QP's answer from what C_RD_A and C_CHECK found (a QP that exists: C_CHECK
 * left chk_status OK). Its own state for the same reason as C_CHECK: the attribute priority
 * encoders would otherwise follow the transition table in one cycle. */
HLS_INLINE void modify_qp_verdict(ctrl_state *st) {
    if (st->cmd.op == NIC_CMD_MODIFY_QP && st->chk_status == NIC_CMD_OK) {
        uint8_t field;
        st->chk_status = modify_verdict(&st->mod_facts, st->cmd_field, st->mod_value_field, &field);
        st->chk_field = field;
    }
}

/* C_EXEC: the command's effect, when C_CHECK and C_VERDICT found nothing wrong. */
HLS_INLINE void exec_cmd(ctrl_state *st, mem_ops *mo) {
    const nic_cmd_t *c = &st->cmd;
    ctrl_qp_row_t q = st->qps.hls_mem_rdata;
    nic_mr_row_t m = st->mrs.hls_mem_rdata;
    ctrl_cq_row_t ca = st->cqa;
    ctrl_cq_row_t cb = st->cqs.hls_mem_rdata;
    nic_qp_t qrow = num_row(c->fn, c->num);
    nic_mr_t mrow = cmd_mr_row(c);
    nic_qp_attr_t cur = row_attr(&q);
    uint8_t status = st->chk_status, field = st->chk_field;
    bool ok = status == NIC_CMD_OK;
    unsigned need = 0;
    bool wb_b = false;
    nic_cfg_t cfg = {0};
    cfg.fn = c->fn;
    cmd_verdict v = {0};        /* the migration commands' decision */
    v.cfg = cfg;
    st->resp.qp = (nic_qp_attr_t){0};
    st->resp.ctx_data = 0;

    switch (c->op) {
    case NIC_CMD_SET_FN:
        if (ok) {
            cfg.kind = NIC_CFG_FN;
            cfg.mac = c->mac;
            cfg.ip = c->ip;
            cfg.valid = true; /* the function now has an address: rx_dispatch accepts for it */
            need = TO_REQ | TO_RESP | TO_RXD;
        }
        break;
    case NIC_CMD_CREATE_CQ:
        if (ok) {
            ctrl_cq_row_t r = {0};
            r.base = c->base;
            r.cqn = c->num;
            r.log = (uint8_t)c->log;
            r.valid = 1;
            cq_write(mo, st->cq_a, r);
            need = TO_CQW;
        }
        cfg.valid = true;
        break;
    case NIC_CMD_DESTROY_CQ:
        if (ok) {
            cq_write(mo, st->cq_a, (ctrl_cq_row_t){0});
            need = TO_CQW;
        }
        cfg.valid = false;
        break;
    case NIC_CMD_CREATE_QP:
        if (ok) {
            nic_qp_attr_t a = {0};   /* state RESET; the rest comes with MODIFY_QP */
            a.qpn = (hls_u24)c->num;
            a.pd = c->qp.pd;
            a.sq_base = c->qp.sq_base;
            a.rq_base = c->qp.rq_base;
            a.sq_log = c->qp.sq_log;
            a.rq_log = c->qp.rq_log;
            a.send_cq = c->qp.send_cq;
            a.recv_cq = c->qp.recv_cq;
            qp_write(mo, qrow, attr_row(&a, true, false));
            cq_write(mo, st->cq_a, cq_refs(ca, true, st->cq_same));
            st->cqb_new = cq_refs(cb, true, false);
            wb_b = !st->cq_same;
            cfg = qp_cfg(qrow, NIC_QPS_RESET, &a, true);
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_DESTROY_QP:
        if (ok) {
            nic_qp_attr_t a = cur;
            a.state = NIC_QPS_RESET;
            qp_write(mo, qrow, (ctrl_qp_row_t){0});
            cq_write(mo, st->cq_a, cq_refs(ca, false, st->cq_same));
            st->cqb_new = cq_refs(cb, false, false);
            wb_b = !st->cq_same;
            cfg = qp_cfg(qrow, cur.state, &a, false);
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_MODIFY_QP:
        if (ok) {
            nic_qp_attr_t a = apply_modify(cur, c->mask, &c->qp);
            qp_write(mo, qrow, attr_row(&a, true, q.quiesce));
            cfg = qp_cfg(qrow, cur.state, &a, true);
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_QUERY_QP:
        if (ok) st->resp.qp = cur;
        break;
    case NIC_CMD_QUIESCE_QP:
        if (ok) {
            qp_write(mo, qrow, attr_row(&cur, true, c->quiesce));
            cfg = qp_cfg(qrow, cur.state, &cur, true);
            cfg.kind = NIC_CFG_QUIESCE;
            cfg.quiesce = c->quiesce;
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_REG_MR:
        if (ok) {
            mr_write(mo, mrow, (nic_mr_row_t){.base = c->base, .len = c->len, .key = c->num, .pd = c->pd,
                                              .access = c->access, .valid = 1});
            need = TO_REQ | TO_RESP; /* requester: lkey checks; responder: rkey checks */
        }
        cfg.valid = true;
        break;
    case NIC_CMD_DEREG_MR:
        if (ok) {
            mr_write(mo, mrow, (nic_mr_row_t){0});
            need = TO_REQ | TO_RESP;
        }
        cfg.valid = false;
        break;
    case NIC_CMD_SUSPEND_FN:
        exec_suspend(st, &v);
        break;
    case NIC_CMD_CTX_READ:
    case NIC_CMD_CTX_WRITE:
        if (ok) exec_ctx(st, mo, &v);
        break;
    case NIC_CMD_THROTTLE:
        /* the two blocks that write incoming data to host memory keep the bucket */
        v.cfg.kind = NIC_CFG_THROTTLE;
        v.cfg.rate = c->rate;
        v.need = TO_RESP | TO_COMP;
        break;
    default:                    /* NOP, or an unknown op C_CHECK refused */
        break;
    }
    if (ok && c->op >= NIC_CMD_SUSPEND_FN && c->op <= NIC_CMD_THROTTLE) {
        /* SUSPEND_FN decides in exec_suspend; the context commands were checked before */
        status = v.status;
        field = v.field;
        need = v.need;
        cfg = v.cfg;
        if (field != NIC_CMD_F_NONE && status == NIC_CMD_OK) status = NIC_CMD_EINVAL;
    }
    if (status != NIC_CMD_OK) { need = 0; wb_b = false; }
    st->pend_marks = status == NIC_CMD_OK ? (hls_uint(5))v.marks : 0;
    st->pend_ctx = status == NIC_CMD_OK && v.wait_ctx;
    st->pend_src = v.ctx_src;
    st->pend_fn = c->fn;

    /* CQ and MR messages describe the object as the command named it */
    if (c->op == NIC_CMD_CREATE_CQ || c->op == NIC_CMD_DESTROY_CQ) {
        cfg.kind = NIC_CFG_CQ;
        cfg.cq = st->cq_a;
        cfg.key = c->num;              /* the cqn: cq_writer checks doorbells against it */
        cfg.base = c->op == NIC_CMD_CREATE_CQ ? c->base : ca.base;
        cfg.log = c->op == NIC_CMD_CREATE_CQ ? c->log : (hls_uint(5))ca.log;
    }
    if (c->op == NIC_CMD_REG_MR || c->op == NIC_CMD_DEREG_MR) {
        bool reg = c->op == NIC_CMD_REG_MR;
        cfg.kind = NIC_CFG_MR;
        cfg.mr = mrow;
        cfg.key = c->num;
        cfg.pd = reg ? c->pd : m.pd;
        cfg.base = reg ? c->base : m.base;
        cfg.len = reg ? c->len : m.len;
        cfg.access = reg ? c->access : m.access;
    }
    st->resp.status = status;
    st->resp.bad_field = field;
    st->cfg = cfg;
    st->cfg_need = (hls_uint(5))need;
    st->serving_event = false;
    st->fsm = wb_b ? C_WB_B : need ? C_CFG : C_RESP;
}

/* A marker or a context answer belongs to the pending command and never reaches the host:
 * the last awaited marker, or the owner's NIC_EV_CTX, releases the answer (RESP). Anything
 * else of these kinds (another function, nothing pending) is dropped. */
HLS_INLINE void absorb_event(ctrl_state *st) {
    const nic_event_t *e = &st->ev;
    bool mine = e->fn == st->pend_fn;
    unsigned src = st->ev_src;
    unsigned bit = src == SRC_COMP ? MK_COMP : src == SRC_RESP ? MK_RESP : src == SRC_CQW ? MK_CQW
                 : src == SRC_TX && e->detail == NIC_MARK_SRC_REQ ? MK_TX_REQ
                 : src == SRC_TX && e->detail == NIC_MARK_SRC_RESP ? MK_TX_RESP : 0;
    unsigned left = st->pend_marks & ~bit;
    st->fsm = C_IDLE;
    if (e->kind == NIC_EV_CTX && st->pend_ctx && mine && src == st->pend_src) {
        st->resp.ctx_data = e->data;
        st->pend_ctx = false;
        st->fsm = C_RESP;
    } else if (e->kind == NIC_EV_MIG_MARK && st->pend_marks != 0 && mine) {
        st->pend_marks = (hls_uint(5))left;
        if (left == 0) st->fsm = C_RESP;
    }
}

/* A datapath event: QP_ERR / SQ_ERR change the row's state (IB vol. 1 10.3), every kind of a
 * live QP and every CQ event (CQ_ERR, CQ_COMP: their qp is not looked at) is forwarded. */
HLS_INLINE void exec_event(ctrl_state *st, mem_ops *mo) {
    ctrl_qp_row_t q = st->qps.hls_mem_rdata;
    nic_qp_attr_t a = row_attr(&q);
    unsigned cur = q.state;
    unsigned next = cur;
    uint8_t kind = st->ev.kind;
    if (kind == NIC_EV_QP_ERR && cur != NIC_QPS_RESET) next = NIC_QPS_ERR;
    /* the send queue only runs in RTS and SQD; an SQ error there stops it (SQEr) */
    if (kind == NIC_EV_SQ_ERR && (cur == NIC_QPS_RTS || cur == NIC_QPS_SQD)) next = NIC_QPS_SQE;
    st->serving_event = true;
    if (kind == NIC_EV_MIG_MARK || kind == NIC_EV_CTX) {
        absorb_event(st);
        return;
    }
    bool qp_event = kind == NIC_EV_QP_ERR || kind == NIC_EV_SQ_ERR || kind == NIC_EV_SQ_DRAINED;
    bool known = qp_event || kind == NIC_EV_CQ_ERR || kind == NIC_EV_CQ_COMP; /* CQ events: no QP */
    if (!known || (qp_event && !q.valid)) {
        st->fsm = C_IDLE;        /* unknown kind, or a QP destroyed meanwhile: stale */
    } else if (next != cur) {
        a.state = (hls_uint(3))next;
        qp_write(mo, st->ev.qp, attr_row(&a, true, q.quiesce));
        st->cfg = qp_cfg(st->ev.qp, cur, &a, true);
        st->cfg_need = TO_QP_BLOCKS;
        st->fsm = C_CFG;
    } else {
        st->fsm = C_ASYNC;
    }
}

HLS_TOP void ctrl(const ctrl_in *in, ctrl_out *out, ctrl_state *st) {
    mem_ops mo = {0};
    /* what IDLE decides on, read as registered before any state's stores: rtl-gen follows a
     * field read after the switch's predicated stores through their mux chain, which tied
     * EXEC's verdict to IDLE's choice of the QP table's read address */
    bool cmd_waits = st->pend_marks != 0 || st->pend_ctx;
    unsigned ev_rr = st->ev_rr;
    switch ((unsigned)st->fsm) {
    case C_IDLE: {
        /* events first, round-robin among the sources from the one after the last served;
         * the data is chosen by explicit branches: a ?: over the inputs' addresses made
         * rtl-gen emit a wire named "1806_3149", which is not a Verilog identifier */
        unsigned v = (unsigned)in->ev_comp.valid << SRC_COMP | (unsigned)in->ev_resp.valid << SRC_RESP |
                     (unsigned)in->ev_cqw.valid << SRC_CQW | (unsigned)in->ev_rxd.valid << SRC_RXD |
                     (unsigned)in->ev_tx.valid << SRC_TX | (unsigned)in->ev_req.valid << SRC_REQ;
        /* the first valid source at or after ev_rr, else the first valid one, as a one-hot
         * grant: the lowest set bit of a 6-bit mask (x & -x, one carry chain). A walk
         * "ev_rr + k mod N_SRC" made a chain of 32-bit adds and compares, and a count of
         * trailing zeros a chain of muxes: ctrl's slowest path, into the QP table's read
         * address. The source's number comes from the grant by three ORs. */
        unsigned from_rr = v & (((1u << N_SRC) - 1) << ev_rr);
        unsigned cand = from_rr != 0 ? from_rr : v;
        unsigned grant = cand & (0u - cand);
        if (v != 0) {   /* = grant != 0, without the grant's carry chain in front of the choice */
            unsigned pick = ((grant & (1u << 1 | 1u << 3 | 1u << 5)) != 0 ? 1u : 0u) |
                            ((grant & (1u << 2 | 1u << 3)) != 0 ? 2u : 0u) |
                            ((grant & (1u << 4 | 1u << 5)) != 0 ? 4u : 0u);
            nic_event_t e = in->ev_tx.data;
            if (grant & (1u << SRC_COMP)) e = in->ev_comp.data;
            if (grant & (1u << SRC_RESP)) e = in->ev_resp.data;
            if (grant & (1u << SRC_CQW)) e = in->ev_cqw.data;
            if (grant & (1u << SRC_RXD)) e = in->ev_rxd.data;
            if (grant & (1u << SRC_REQ)) e = in->ev_req.data;
            out->ev_comp_ready = (grant >> SRC_COMP) & 1;
            out->ev_resp_ready = (grant >> SRC_RESP) & 1;
            out->ev_cqw_ready = (grant >> SRC_CQW) & 1;
            out->ev_rxd_ready = (grant >> SRC_RXD) & 1;
            out->ev_tx_ready = (grant >> SRC_TX) & 1;
            out->ev_req_ready = (grant >> SRC_REQ) & 1;
            st->ev_rr = (hls_uint(3))(pick == N_SRC - 1 ? 0 : pick + 1);
            st->ev = e;
            st->ev_src = (hls_uint(3))pick;
            mo.qp_re = true;
            mo.qp_ra = e.qp;
            st->fsm = C_EV_EXEC;
        } else if (in->cmd.valid && !cmd_waits) {
            /* a suspend or context command still waiting: events only (a block stuck on a
             * full event FIFO could otherwise never reach its marker), no new command */
            out->cmd_ready = true;
            st->cmd = in->cmd.data;
            mo.qp_re = true;
            mo.qp_ra = num_row(in->cmd.data.fn, in->cmd.data.num);
            mo.mr_re = true;
            mo.mr_ra = cmd_mr_row(&in->cmd.data);
            st->fsm = C_RD_A;
        }
        break;
    }
    case C_RD_A: {
        ctrl_qp_row_t q = st->qps.hls_mem_rdata;
        uint8_t op = st->cmd.op;
        st->cq_a = op == NIC_CMD_CREATE_QP ? st->cmd.qp.send_cq
                 : op == NIC_CMD_DESTROY_QP ? (nic_cq_t)q.send_cq
                 : num_row(st->cmd.fn, st->cmd.num);
        mo.cq_re = true;
        mo.cq_ra = st->cq_a;
        st->cmd_field = check_fields(&st->cmd);
        st->mod_value_field = modify_value_field(st->cmd.mask, &st->cmd.qp);
        st->fsm = C_RD_B;
        break;
    }
    case C_RD_B: {
        ctrl_qp_row_t q = st->qps.hls_mem_rdata;
        uint8_t op = st->cmd.op;
        st->cqa = st->cqs.hls_mem_rdata;
        st->cq_b = op == NIC_CMD_CREATE_QP ? st->cmd.qp.recv_cq
                 : op == NIC_CMD_DESTROY_QP ? (nic_cq_t)q.recv_cq
                 : st->cq_a;
        mo.cq_re = true;
        mo.cq_ra = st->cq_b;
        st->fsm = C_CHECK;
        break;
    }
    case C_CHECK:
        check_cmd(st);
        st->cq_same = st->cq_a == st->cq_b;
        st->fsm = C_VERDICT;
        break;
    case C_VERDICT:
        modify_qp_verdict(st);
        st->fsm = C_EXEC;
        break;
    case C_EXEC:
        exec_cmd(st, &mo);
        break;
    case C_WB_B:
        cq_write(&mo, st->cq_b, st->cqb_new);
        st->fsm = st->cfg_need ? C_CFG : C_RESP;
        break;
    case C_EV_EXEC:
        exec_event(st, &mo);
        break;
    case C_CFG: {
        unsigned need = st->cfg_need;
        out->cfg_req.valid = (need & TO_REQ) != 0;
        out->cfg_resp.valid = (need & TO_RESP) != 0;
        out->cfg_comp.valid = (need & TO_COMP) != 0;
        out->cfg_cqw.valid = (need & TO_CQW) != 0;
        out->cfg_rxd.valid = (need & TO_RXD) != 0;
        out->cfg_req.data = st->cfg;
        out->cfg_resp.data = st->cfg;
        out->cfg_comp.data = st->cfg;
        out->cfg_cqw.data = st->cfg;
        out->cfg_rxd.data = st->cfg;
        /* each output drops out once it has taken the message; the rest keep offering it */
        if (in->cfg_req_ready) need &= ~(unsigned)TO_REQ;
        if (in->cfg_resp_ready) need &= ~(unsigned)TO_RESP;
        if (in->cfg_comp_ready) need &= ~(unsigned)TO_COMP;
        if (in->cfg_cqw_ready) need &= ~(unsigned)TO_CQW;
        if (in->cfg_rxd_ready) need &= ~(unsigned)TO_RXD;
        st->cfg_need = (hls_uint(5))need;
        /* a command that waits for markers or a context answer is answered from the event
         * path (absorb_event) */
        bool waits = st->pend_marks != 0 || st->pend_ctx;
        if (need == 0) st->fsm = st->serving_event ? C_ASYNC : waits ? C_IDLE : C_RESP;
        break;
    }
    case C_RESP:
        out->cmd_resp.valid = true;
        out->cmd_resp.data = st->resp;
        if (in->cmd_resp_ready) st->fsm = C_IDLE;
        break;
    case C_ASYNC:
        out->async.valid = true;
        out->async.data = st->ev;
        if (in->async_ready) st->fsm = C_IDLE;
        break;
    default:
        st->fsm = C_IDLE;
        break;
    }
    if (mo.qp_re) hls_mem_read(&st->qps, mo.qp_ra);
    if (mo.cq_re) hls_mem_read(&st->cqs, mo.cq_ra);
    if (mo.mr_re) hls_mem_read(&st->mrs, mo.mr_ra);
    /* every row write marks the row dirty for the pre-copy passes (NIC_CTX_DIRTY) */
    if (mo.qp_we) st->qp_dirty |= (uint64_t)1 << mo.qp_wa;
    if (mo.cq_we) st->cq_dirty |= (uint64_t)1 << mo.cq_wa;
    if (mo.mr_we) {
        nic_fn_t f = (nic_fn_t)((unsigned)mo.mr_wa >> NIC_MR_SLOT_BITS);
        st->mr_dirty[f] |= (uint64_t)1 << ((unsigned)mo.mr_wa % NIC_MR_PER_FN);
    }
    if (mo.qp_we) hls_mem_write(&st->qps, mo.qp_wa, mo.qp_wd);
    if (mo.cq_we) hls_mem_write(&st->cqs, mo.cq_wa, mo.cq_wd);
    if (mo.mr_we) hls_mem_write(&st->mrs, mo.mr_wa, mo.mr_wd);
}
