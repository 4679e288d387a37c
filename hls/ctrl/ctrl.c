/* ctrl — the command interface and the QP state machine (docs/ctrl.md).
 *
 * in:  cmd                      host/firmware commands, answered in order on cmd_resp
 *      ev_comp, ev_resp, ev_cqw datapath events (completer, responder, cq_writer: CQ_ERR and
 *                               the completion events of armed CQs, CQ_COMP)
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
 * Every table write lands at least one cycle before the next job's reads, and no job reads a
 * row after writing it, so the read-first memories never need a bypass. */
#include "hls.h"
#include "nic_if.h"
#include "ctrl_rows.h"
#include "ctrl_rules.h"

typedef struct {
    HLS_STREAM(nic_cmd_t) cmd;
    bool cmd_resp_ready;
    bool cfg_req_ready, cfg_resp_ready, cfg_comp_ready, cfg_cqw_ready, cfg_rxd_ready;
    HLS_STREAM(nic_event_t) ev_comp;
    HLS_STREAM(nic_event_t) ev_resp;
    HLS_STREAM(nic_event_t) ev_cqw;
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
    bool ev_comp_ready, ev_resp_ready, ev_cqw_ready;
    HLS_STREAM(nic_event_t) async;
} ctrl_out;

enum { C_IDLE = 0, C_RD_A, C_RD_B, C_EXEC, C_WB_B, C_EV_EXEC, C_CFG, C_RESP, C_ASYNC };
enum { TO_REQ = 1, TO_RESP = 2, TO_COMP = 4, TO_CQW = 8, TO_RXD = 16 };
#define TO_QP_BLOCKS (TO_REQ | TO_RESP | TO_COMP)

typedef struct {
    HLS_MEM(ctrl_qp_row_t, NIC_QPS) qps;
    HLS_MEM(ctrl_cq_row_t, NIC_CQS) cqs;
    HLS_MEM(ctrl_mr_row_t, NIC_MRS) mrs;
    hls_uint(4) fsm;
    hls_uint(2) ev_rr;          /* event source served first next time: 0 comp, 1 resp, 2 cqw */
    bool serving_event;         /* CFG is followed by ASYNC (event) or RESP (command) */
    nic_cmd_t cmd;
    nic_event_t ev;
    nic_cq_t cq_a, cq_b;
    ctrl_cq_row_t cqa;          /* CQ row A as read in RD_B */
    ctrl_cq_row_t cqb_new;      /* CQ row B to write in WB_B */
    hls_uint(5) cfg_need;       /* TO_* outputs that have not taken cfg yet */
    nic_cfg_t cfg;
    nic_cmd_resp_t resp;
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
    ctrl_mr_row_t mr_wd;
} mem_ops;

HLS_INLINE void qp_write(mem_ops *o, nic_qp_t a, ctrl_qp_row_t v) { o->qp_we = true; o->qp_wa = a; o->qp_wd = v; }
HLS_INLINE void cq_write(mem_ops *o, nic_cq_t a, ctrl_cq_row_t v) { o->cq_we = true; o->cq_wa = a; o->cq_wd = v; }
HLS_INLINE void mr_write(mem_ops *o, nic_mr_t a, ctrl_mr_row_t v) { o->mr_we = true; o->mr_wa = a; o->mr_wd = v; }

/* Context rows of a command's number (nic_if.h namespaces). */
HLS_INLINE nic_qp_t num_row(nic_fn_t fn, uint32_t num) {
    return (nic_qp_t)(((unsigned)fn << NIC_QP_SLOT_BITS) | (num % NIC_QP_PER_FN));
}
HLS_INLINE nic_mr_t mr_row(nic_fn_t fn, uint32_t key) {
    return (nic_mr_t)(((unsigned)fn << NIC_MR_SLOT_BITS) | ((key >> 8) % NIC_MR_PER_FN));
}
HLS_INLINE nic_fn_t cq_fn(nic_cq_t cq) { return (nic_fn_t)((unsigned)cq >> NIC_QP_SLOT_BITS); }

HLS_INLINE ctrl_cq_row_t cq_refs(ctrl_cq_row_t r, int delta) {
    int n = (int)r.refs + delta;
    r.refs = (uint8_t)(n < 0 ? 0 : n);
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

/* The decision of one command: status, table writes, the configuration to send. */
HLS_INLINE void exec_cmd(ctrl_state *st, mem_ops *mo) {
    const nic_cmd_t *c = &st->cmd;
    ctrl_qp_row_t q = st->qps.hls_mem_rdata;
    ctrl_mr_row_t m = st->mrs.hls_mem_rdata;
    ctrl_cq_row_t ca = st->cqa;
    ctrl_cq_row_t cb = st->cqs.hls_mem_rdata;
    nic_qp_t qrow = num_row(c->fn, c->num);
    nic_mr_t mrow = mr_row(c->fn, c->num);
    bool qp_here = q.valid && q.qpn == c->num;
    nic_qp_attr_t cur = row_attr(&q);
    uint8_t status = NIC_CMD_OK, field = NIC_CMD_F_NONE;
    unsigned need = 0;
    bool wb_b = false;
    nic_cfg_t cfg = {0};
    cfg.fn = c->fn;
    st->resp.qp = (nic_qp_attr_t){0};

    switch (c->op) {
    case NIC_CMD_NOP:
        break;
    case NIC_CMD_SET_FN:
        if (!mac_ok(c->mac)) field = NIC_CMD_F_MAC;
        else if (c->ip == 0) field = NIC_CMD_F_IP;
        else {
            cfg.kind = NIC_CFG_FN;
            cfg.mac = c->mac;
            cfg.ip = c->ip;
            cfg.valid = true; /* the function now has an address: rx_dispatch accepts for it */
            need = TO_REQ | TO_RESP | TO_RXD;
        }
        break;
    case NIC_CMD_CREATE_CQ:
        if (c->num > 0xFFFFFFu) field = NIC_CMD_F_NUM;
        else if (c->base & 31) field = NIC_CMD_F_BASE;      /* CQEs are 32 bytes */
        else if (c->log > 15) field = NIC_CMD_F_LOG;        /* 16-bit consumer index */
        else if (ca.valid) status = NIC_CMD_EEXIST;
        else {
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
        if (!(ca.valid && ca.cqn == c->num)) status = NIC_CMD_ENOENT;
        else if (ca.refs != 0) status = NIC_CMD_EBUSY;
        else {
            cq_write(mo, st->cq_a, (ctrl_cq_row_t){0});
            need = TO_CQW;
        }
        cfg.valid = false;
        break;
    case NIC_CMD_CREATE_QP:
        if (c->num > 0xFFFFFFu || c->num < 2) field = NIC_CMD_F_NUM;   /* QP0/QP1 are special */
        else if ((c->qp.sq_base & 63) || c->qp.sq_log > 15) field = NIC_CMD_F_SQ;
        else if ((c->qp.rq_base & 31) || c->qp.rq_log > 15) field = NIC_CMD_F_RQ;
        else if (!ca.valid || cq_fn(c->qp.send_cq) != c->fn) field = NIC_CMD_F_SEND_CQ;
        else if (!cb.valid || cq_fn(c->qp.recv_cq) != c->fn) field = NIC_CMD_F_RECV_CQ;
        else if (q.valid) status = NIC_CMD_EEXIST;
        else {
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
            cq_write(mo, st->cq_a, cq_refs(ca, st->cq_a == st->cq_b ? 2 : 1));
            st->cqb_new = cq_refs(cb, 1);
            wb_b = st->cq_a != st->cq_b;
            cfg = qp_cfg(qrow, NIC_QPS_RESET, &a, true);
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_DESTROY_QP:
        if (!qp_here) status = NIC_CMD_ENOENT;
        else {
            nic_qp_attr_t a = cur;
            a.state = NIC_QPS_RESET;
            qp_write(mo, qrow, (ctrl_qp_row_t){0});
            cq_write(mo, st->cq_a, cq_refs(ca, st->cq_a == st->cq_b ? -2 : -1));
            st->cqb_new = cq_refs(cb, -1);
            wb_b = st->cq_a != st->cq_b;
            cfg = qp_cfg(qrow, cur.state, &a, false);
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_MODIFY_QP:
        if (!qp_here) status = NIC_CMD_ENOENT;
        else {
            status = check_modify(q.state, c->mask, &c->qp, &field);
            if (status == NIC_CMD_OK) {
                nic_qp_attr_t a = apply_modify(cur, c->mask, &c->qp);
                qp_write(mo, qrow, attr_row(&a, true, q.quiesce));
                cfg = qp_cfg(qrow, cur.state, &a, true);
                need = TO_QP_BLOCKS;
            }
        }
        break;
    case NIC_CMD_QUERY_QP:
        if (!qp_here) status = NIC_CMD_ENOENT;
        else st->resp.qp = cur;
        break;
    case NIC_CMD_QUIESCE_QP:
        if (!qp_here) status = NIC_CMD_ENOENT;
        else {
            qp_write(mo, qrow, attr_row(&cur, true, c->quiesce));
            cfg = qp_cfg(qrow, cur.state, &cur, true);
            cfg.kind = NIC_CFG_QUIESCE;
            cfg.quiesce = c->quiesce;
            need = TO_QP_BLOCKS;
        }
        break;
    case NIC_CMD_REG_MR:
        /* remote write/atomic access needs local write: the IB rule ibv_reg_mr enforces */
        if ((c->access & ~0xFu) ||
            ((c->access & (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_ATOMIC)) && !(c->access & NIC_ACC_LOCAL_WRITE)))
            field = NIC_CMD_F_ACCESS;
        else if (c->len == 0 || c->base + c->len < c->base) field = NIC_CMD_F_LEN;
        else if (m.valid) status = NIC_CMD_EEXIST;
        else {
            ctrl_mr_row_t r = {0};
            r.base = c->base;
            r.len = c->len;
            r.key = c->num;
            r.pd = c->pd;
            r.access = c->access;
            r.valid = 1;
            mr_write(mo, mrow, r);
            need = TO_REQ | TO_RESP; /* requester: lkey checks; responder: rkey checks */
        }
        cfg.valid = true;
        break;
    case NIC_CMD_DEREG_MR:
        if (!(m.valid && m.key == c->num)) status = NIC_CMD_ENOENT;
        else {
            mr_write(mo, mrow, (ctrl_mr_row_t){0});
            need = TO_REQ | TO_RESP;
        }
        cfg.valid = false;
        break;
    default:
        field = NIC_CMD_F_OP;
        break;
    }
    if (field != NIC_CMD_F_NONE && status == NIC_CMD_OK) status = NIC_CMD_EINVAL;
    if (status != NIC_CMD_OK) { need = 0; wb_b = false; }

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
    bool qp_event = kind == NIC_EV_QP_ERR || kind == NIC_EV_SQ_ERR || kind == NIC_EV_SQ_DRAINED;
    bool known = qp_event || kind == NIC_EV_CQ_ERR || kind == NIC_EV_CQ_COMP; /* CQ events: no QP */
    st->serving_event = true;
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
    switch ((unsigned)st->fsm) {
    case C_IDLE: {
        /* events first, round-robin among the three sources. Written as explicit branches:
         * a ?: over the three inputs' addresses made rtl-gen emit a wire named "1806_3149",
         * which is not a Verilog identifier. */
        bool vc = in->ev_comp.valid, vr = in->ev_resp.valid, vq = in->ev_cqw.valid;
        unsigned pick;
        if (st->ev_rr == 0) pick = vc ? 0 : vr ? 1 : vq ? 2 : 3;
        else if (st->ev_rr == 1) pick = vr ? 1 : vq ? 2 : vc ? 0 : 3;
        else pick = vq ? 2 : vc ? 0 : vr ? 1 : 3;
        if (pick != 3) {
            nic_event_t e = in->ev_cqw.data;
            if (pick == 0) e = in->ev_comp.data;
            if (pick == 1) e = in->ev_resp.data;
            out->ev_comp_ready = pick == 0;
            out->ev_resp_ready = pick == 1;
            out->ev_cqw_ready = pick == 2;
            st->ev_rr = (hls_uint(2))(pick == 2 ? 0 : pick + 1);
            st->ev = e;
            mo.qp_re = true;
            mo.qp_ra = e.qp;
            st->fsm = C_EV_EXEC;
        } else if (in->cmd.valid) {
            out->cmd_ready = true;
            st->cmd = in->cmd.data;
            mo.qp_re = true;
            mo.qp_ra = num_row(in->cmd.data.fn, in->cmd.data.num);
            mo.mr_re = true;
            mo.mr_ra = mr_row(in->cmd.data.fn, in->cmd.data.num);
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
        st->fsm = C_EXEC;
        break;
    }
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
        if (need == 0) st->fsm = st->serving_event ? C_ASYNC : C_RESP;
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
    if (mo.qp_we) hls_mem_write(&st->qps, mo.qp_wa, mo.qp_wd);
    if (mo.cq_we) hls_mem_write(&st->cqs, mo.cq_wa, mo.cq_wd);
    if (mo.mr_we) hls_mem_write(&st->mrs, mo.mr_wa, mo.mr_wd);
}
