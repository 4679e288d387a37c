/* scen_drive.c — bring-up, posting, CQ polling and every check of a scenario run (scen.h).
 * Only the nic_tb driver API touches the NICs: commands, WQEs written into host memory with
 * doorbells, CQEs read from host memory with CQ doorbells; the test also pops ctrl_async (the
 * host's async event queue) and reads counters for the report. */
#include "scen_priv.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scen_failures;
bool scen_quiet_pass;

void scen_check(bool ok, const char *name, const char *fmt, ...) {
    if (ok) {
        if (!scen_quiet_pass) printf("PASS %s\n", name);
        return;
    }
    char why[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", name, why);
    scen_failures++;
}

void scen_qp_opts_default(scen_qp_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->pmtu = 3;
    o->sq_psn[0] = 100;
    o->sq_psn[1] = 5000;
    o->timeout = 12;          /* 16.8 ms: never reached without loss */
    o->retry_cnt = 7;
    o->rnr_retry = 7;
    o->min_rnr_timer = 1;     /* 0.01 ms: the shortest RNR wait */
    o->sq_log = 6;
    o->rq_log = 6;
    o->access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
}

nic_tb_t *scen_tb(scen_t *s) { return s->tb; }
prng_t *scen_rng(scen_t *s) { return &s->rng; }
scen_ep_t *scen_ep(scen_t *s, int e) { return &s->ep[e]; }
uint64_t scen_done_cycle(const scen_t *s) { return s->done_cycle; }
unsigned scen_host(const scen_t *s, unsigned side) { return s->host[side]; }
void scen_move_side(scen_t *s, unsigned side, unsigned nic) { s->host[side] = nic; }
void scen_hold_vm(scen_t *s, bool paused) { s->paused = paused; }
void scen_stop(scen_t *s) { s->stopped = true; }
uint64_t scen_cqe_cycle(const scen_t *s, int e, unsigned i) {
    return s->cqe_cycle && s->cqe_cycle[e] && i < s->ep[e].nops ? s->cqe_cycle[e][i] : 0;
}

void nic(const void *in, void *out, void *state);
#ifdef SCEN_RTL
#include "nic_rtl.h"
#endif

scen_t *scen_new(const scen_opts_t *o) {
    scen_t *s = calloc(1, sizeof *s);
    s->o = *o;
    s->giveup_ep = -1;
    s->host[0] = 0;
    s->host[1] = 1;
    if (!s->o.arena) s->o.arena = 4u << 20;
    if (!s->o.max_cycles) s->o.max_cycles = 4000000;
    if (getenv("SCEN_MAX_CYCLES")) s->o.max_cycles = strtoull(getenv("SCEN_MAX_CYCLES"), NULL, 0);
    prng_seed_stream(&s->rng, o->seed, 1);
    s->guard_seed = o->seed * 0x9e3779b97f4a7c15ull + 7;
    nic_tb_model_t m = {.iface = o->iface, .c_step = nic};
#ifdef SCEN_RTL
    m.rtl_new = (void *(*)(void))nic_rtl_new;
    m.rtl_eval = (void (*)(void *, const void *, void *))nic_rtl_eval;
    m.rtl_edge = (void (*)(void *))nic_rtl_edge;
    m.rtl_free = (void (*)(void *))nic_rtl_free;
    m.rtl_scramble = (void (*)(void *, unsigned long long))nic_rtl_scramble;
#endif
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = o->mode;
    memcpy(c.nic_mode, o->nic_mode, sizeof c.nic_mode);
    c.rtl_scramble_seed = o->rtl_scramble_seed;
    c.nics = o->nics ? o->nics : 2;
    c.use_switch = c.nics > 2;
    c.wire = o->wire;
    c.wire.seed = o->seed * 31 + 5;
    if (!c.wire.latency_cycles) c.wire.latency_cycles = 50;
    if (!c.wire.bytes_per_cycle) c.wire.bytes_per_cycle = 25;  /* 50 Gb/s at 250 MHz */
    if (!c.wire.reorder_max_cycles) c.wire.reorder_max_cycles = 300;
    if (!c.wire.corrupt_max_bits) c.wire.corrupt_max_bits = 3;
    c.wire.pcap_sent = o->pcap;
    /* debugging aid: the frames as delivered (after loss, duplication, reordering, flips) */
    if (getenv("SCEN_PCAP_DELIVERED")) c.wire.pcap_delivered = getenv("SCEN_PCAP_DELIVERED");
    c.mem.read_latency = getenv("SCEN_RDLAT") ? (uint32_t)atoi(getenv("SCEN_RDLAT")) : 20;
    c.seed = o->seed;
    s->tb = nic_tb_new(&m, &c);
    if (!s->tb) { free(s); return NULL; }
    for (unsigned n = 0; n < 2; n++) {
        s->gold[n] = malloc(s->o.arena);
        hostmem_t *mem = nic_tb_mem(s->tb, n);
        if (hostmem_guard_fill(mem, SCEN_ARENA_BASE, s->o.arena, s->guard_seed + n)) {
            fprintf(stderr, "scen: guard fill: %s\n", hostmem_error(mem));
            scen_free(s);
            return NULL;
        }
        hostmem_read(mem, SCEN_ARENA_BASE, s->gold[n], s->o.arena);
    }
    return s;
}

void scen_free(scen_t *s) {
    if (!s) return;
    nic_tb_free(s->tb);
    for (int e = 0; e < s->nep; e++) {
        free(s->ep[e].ops);
        free(s->ep[e].recvs);
        if (s->cqe_cycle) free(s->cqe_cycle[e]);
    }
    free(s->cqe_cycle);
    free(s->gold[0]);
    free(s->gold[1]);
    free(s);
}

static uint64_t ring_alloc(scen_t *s, unsigned n, uint64_t bytes) {
    uint64_t a = SCEN_RING_BASE + s->ring_bump[n];
    s->ring_bump[n] += (bytes + 4095) / 4096 * 4096;
    return a;
}

static int fn_up(scen_t *s, unsigned n, nic_fn_t fn) {
    if (s->fn_up[n][fn]) return 0;
    int r;
    if ((r = nic_tb_set_fn(s->tb, n, fn, scen_mac(n, fn), scen_ip(n, fn)))) return r;
    if ((r = nic_tb_create_cq(s->tb, n, fn, SCEN_SCQ, ring_alloc(s, n, 32u << SCEN_CQ_LOG), SCEN_CQ_LOG))) return r;
    if ((r = nic_tb_create_cq(s->tb, n, fn, SCEN_RCQ, ring_alloc(s, n, 32u << SCEN_CQ_LOG), SCEN_CQ_LOG))) return r;
    if ((r = nic_tb_reg_mr(s->tb, n, fn, SCEN_ARENA_KEY, SCEN_ARENA_BASE, s->o.arena, scen_pd(fn), SCEN_ACC_ALL)))
        return r;
    s->fn_up[n][fn] = true;
    return 0;
}

/* One step of RESET -> INIT -> RTR -> RTS with every attribute the scenario chose (the
 * ibv_modify_qp masks), on the NIC the endpoint's side runs on now: 0 or the command's
 * status | bad_field << 8 | (the state it was for - 1) << 16. */
static int qp_step(scen_t *s, scen_ep_t *e, const scen_ep_t *p) {
    nic_cmd_t c = {.op = NIC_CMD_MODIFY_QP, .fn = e->fn, .num = e->qpn};
    nic_cmd_resp_t resp;
    uint8_t to = (uint8_t)(e->state + 1);
    if (to == NIC_QPS_INIT) {
        c.mask = NIC_QPA_STATE | NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT;
        c.qp.port_num = 1;
        c.qp.access = e->o.access;
    } else if (to == NIC_QPS_RTR) {
        c.mask = NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN | NIC_QPA_MIN_RNR_TIMER |
                 NIC_QPA_MAX_DEST_RD_ATOMIC;
        c.qp.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
        c.qp.dst_mac = scen_mac(p->nic, p->fn);
        c.qp.dst_ip = scen_ip(p->nic, p->fn);
        c.qp.udp_sport = (uint16_t)(0xc000 | (e->qpn & 0x3fff));
        c.qp.pmtu = (hls_uint(3))e->o.pmtu;
        c.qp.dest_qpn = (hls_u24)p->qpn;
        c.qp.rq_psn = (hls_u24)e->o.sq_psn[1 - e->nic];
        c.qp.min_rnr_timer = (hls_uint(5))e->o.min_rnr_timer;
    } else if (to == NIC_QPS_RTS) {
        c.mask = NIC_QPA_STATE | NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
                 NIC_QPA_MAX_QP_RD_ATOMIC;
        /* initiator depth = the peer's responder resources (its max_dest_rd_atomic), as
         * verbs programs exchange them: more READ/atomics in flight than the peer's replay
         * cache holds loses an atomic's result when its ACK is lost (faults seed 34) */
        c.qp.max_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
        if (e->o.backoff) c.mask |= NIC_QPA_BACKOFF;
        c.qp.sq_psn = (hls_u24)e->o.sq_psn[e->nic];
        c.qp.timeout = (hls_uint(5))e->o.timeout;
        c.qp.retry_cnt = (hls_uint(3))e->o.retry_cnt;
        c.qp.rnr_retry = (hls_uint(3))e->o.rnr_retry;
        c.qp.backoff = e->o.backoff;
        c.qp.backoff_first = (hls_uint(5))e->o.backoff_first;
        c.qp.backoff_cap = (hls_uint(5))e->o.backoff_cap;
    } else {
        return 0;             /* in RTS: set up */
    }
    c.qp.state = (hls_uint(3))to;
    int r = nic_tb_cmd(s->tb, s->host[e->nic], &c, &resp);
    if (r) return r > 0 ? r | resp.bad_field << 8 | (to - 1) << 16 : r;
    e->state = to;
    return 0;
}

int scen_qp_advance(scen_t *s, int e) {
    scen_ep_t *ep = &s->ep[e];
    int r = qp_step(s, ep, &s->ep[ep->peer]);
    if (r) scen_check(false, "scen QP set-up", "NIC %u MODIFY_QP 0x%x to state %u: status 0x%x (bits 8..15: bad_field)",
                      s->host[ep->nic], ep->qpn, ep->state + 1, r & 0xffff);
    return r;
}

int scen_pair(scen_t *s, nic_fn_t fn, uint32_t qpn0, uint32_t qpn1, const scen_qp_opts_t *o) {
    if (s->nep + 2 > SCEN_MAX_EPS) return -1;
    int base = s->nep;
    const uint32_t qpn[2] = {qpn0, qpn1};
    for (unsigned n = 0; n < 2; n++) {
        scen_ep_t *e = &s->ep[base + n];
        memset(e, 0, sizeof *e);
        e->nic = n;
        e->fn = fn;
        e->qpn = qpn[n];
        e->peer = base + 1 - (int)n;
        e->o = *o;
        e->pd = scen_pd(fn);
        e->key = SCEN_ARENA_KEY;
    }
    s->nep += 2;
    char why[200] = "";
    for (unsigned n = 0; n < 2 && !why[0]; n++) {
        scen_ep_t *e = &s->ep[base + n];
        int r = fn_up(s, n, fn);
        if (r) { snprintf(why, sizeof why, "NIC %u fn %u set-up (SET_FN/CREATE_CQ/REG_MR): status %d", n, (unsigned)fn, r); break; }
        nic_tb_qp_t q = {.qpn = e->qpn, .sq_base = ring_alloc(s, n, 64u << o->sq_log), .rq_base = ring_alloc(s, n, 32u << o->rq_log),
                         .sq_log = o->sq_log, .rq_log = o->rq_log, .send_cqn = SCEN_SCQ, .recv_cqn = SCEN_RCQ, .pd = e->pd,
                         .access = o->access};
        if ((r = nic_tb_create_qp(s->tb, n, fn, &q))) snprintf(why, sizeof why, "NIC %u CREATE_QP 0x%x: status %d", n, e->qpn, r);
        /* the peer's atomic word: 8-byte aligned in this NIC's arena, random initial value */
        e->atom_word = scen_alloc(s, n, 8, 8, 0);
        scen_fill(s, n, e->atom_word, 8);
        e->atom_val = scen_golden_u64(s, n, e->atom_word);
    }
    /* a late pair stays in RESET: its set-up is the caller's (scen_qp_advance) */
    for (unsigned n = 0; n < 2 && !why[0] && !o->late; n++)
        for (int r = 0; !r && s->ep[base + n].state != NIC_QPS_RTS;)
            if ((r = qp_step(s, &s->ep[base + n], &s->ep[base + 1 - n])))
                snprintf(why, sizeof why, "NIC %u MODIFY_QP 0x%x to RTS: status 0x%x (bits 16+: 0 INIT, 1 RTR, 2 RTS; 8..15: bad_field)", n, s->ep[base + n].qpn, r);
    if (why[0]) { scen_check(false, "scen setup", "%s", why); return -1; }
    return base;
}

const char *scen_counters(scen_t *s, unsigned side) {
    static char b[2][700];
    nic_tb_t *t = s->tb;
    unsigned n = s->host[side];
    snprintf(b[side], sizeof b[side],
             "nic%u{req pkts %" PRIu64 " wqes %" PRIu64 "; resp acks %" PRIu64 " naks %" PRIu64 " dropped %" PRIu64
             "; comp acks %" PRIu64 " naks %" PRIu64 " timeouts %" PRIu64 " retries %" PRIu64 " cqes %" PRIu64 " dropped %" PRIu64
             "; cqw written %" PRIu64 " dropped %" PRIu64 "; rxd bad %" PRIu64 " addr %" PRIu64 " len %" PRIu64
             "; rx ok %" PRIu64 " icrc %" PRIu64 " ipcsum %" PRIu64 " trunc %" PRIu64 "; frames sent %" PRIu64 " rcvd %" PRIu64 "}",
             n, nic_tb_out(t, n, "req_packets_sent"), nic_tb_out(t, n, "req_wqes_started"), nic_tb_out(t, n, "resp_acks_sent"),
             nic_tb_out(t, n, "resp_naks_sent"), nic_tb_out(t, n, "resp_dropped"), nic_tb_out(t, n, "comp_acks"),
             nic_tb_out(t, n, "comp_naks"), nic_tb_out(t, n, "comp_timeouts"), nic_tb_out(t, n, "comp_retries"),
             nic_tb_out(t, n, "comp_cqes"), nic_tb_out(t, n, "comp_dropped"), nic_tb_out(t, n, "cqw_cqes_written"),
             nic_tb_out(t, n, "cqw_cqes_dropped"), nic_tb_out(t, n, "rxd_dropped_bad"), nic_tb_out(t, n, "rxd_dropped_addr"),
             nic_tb_out(t, n, "rxd_dropped_len"), nic_tb_out(t, n, "rx_cnt_ok"), nic_tb_out(t, n, "rx_cnt_bad_icrc"),
             nic_tb_out(t, n, "rx_cnt_bad_ip_csum"), nic_tb_out(t, n, "rx_cnt_truncated"), nic_tb_frames_sent(t, n),
             nic_tb_frames_received(t, n));
    return b[side];
}

/* ---- the run --------------------------------------------------------------------------- */
typedef struct {
    scen_t *s;
    const char *name;
    int ep_of[2][NIC_QPS];        /* endpoint of a QP row, -1 */
    unsigned fails;               /* FAIL lines printed by this run (capped) */
} run_t;

static void fail(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(run_t *r, const char *fmt, ...) {
    scen_failures++;
    if (++r->fails > 12) return;
    char why[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", r->name, why);
}

static uint8_t wc_opcode(uint8_t wr) {
    static const uint8_t m[] = {NIC_WC_SEND, NIC_WC_SEND, NIC_WC_RDMA_WRITE, NIC_WC_RDMA_WRITE, NIC_WC_RDMA_READ,
                                NIC_WC_COMP_SWAP, NIC_WC_FETCH_ADD};
    return wr < sizeof m ? m[wr] : 0xff;
}

static bool recv_wanted(const scen_ep_t *e, unsigned k) { return k < e->nrecvs && e->recvs[k].status != SCEN_NONE; }

/* Post what the rings allow: receives ahead (unless held), sends whose receive is posted. */
static void post_work(run_t *r) {
    scen_t *s = r->s;
    uint64_t now = nic_tb_now(s->tb);
    if (s->paused) return;
    for (int i = 0; i < s->nep; i++) {
        scen_ep_t *e = &s->ep[i];
        /* receives from INIT on, sends in RTS only (verbs refuse them before) */
        if (e->recv_never || now < e->recv_hold_until || e->state < NIC_QPS_INIT) continue;
        while (e->recv_posted < e->nrecvs && e->recv_posted - e->recv_done < (1u << e->o.rq_log)) {
            nic_tb_post_recv(s->tb, s->host[e->nic], e->fn, e->qpn, &e->recvs[e->recv_posted].wqe);
            e->recv_posted++;
        }
    }
    for (int i = 0; i < s->nep; i++) {
        scen_ep_t *e = &s->ep[i], *p = &s->ep[e->peer];
        while (e->state == NIC_QPS_RTS && e->posted < e->nops && e->posted - e->retired < (1u << e->o.sq_log)) {
            if (e->sends_held && e->posted >= e->hold_from) break;
            const scen_op_t *op = &e->ops[e->posted];
            /* no RNR by accident: a message that needs a receive waits for it to be posted,
             * unless the scenario holds the peer's receives on purpose */
            if (op->recv >= 0 && (unsigned)op->recv >= p->recv_posted && !p->recv_never && !p->recv_hold_until) break;
            nic_tb_post_send(s->tb, s->host[e->nic], e->fn, e->qpn, &op->wqe);
            e->posted++;
        }
    }
}

static void check_send_cqe(run_t *r, int ei, const nic_cqe_t *c) {
    scen_t *s = r->s;
    scen_ep_t *e = &s->ep[ei];
    /* a lossy wire may legitimately exhaust retry_cnt (faults): the oldest outstanding WR
     * ending in RETRY_EXC_ERR while every check so far passed stops the run as a claim that
     * the caller proves from the wire (scen_giveup.c); the unsignaled successful WRs before
     * it have no CQE; after the claim nothing more is checked */
    if (s->giveup_ep >= 0) return;
    if (s->o.giveup_ok && !r->fails && c->status == NIC_WC_RETRY_EXC_ERR && (c->qpn & 0xffffff) == e->qpn)
        for (unsigned j = e->next_cqe; j < e->posted; j++) {
            if (e->ops[j].wqe.wr_id == c->wr_id && e->ops[j].status == NIC_WC_SUCCESS &&
                c->opcode == wc_opcode(e->ops[j].wqe.opcode)) {
                s->giveup_ep = ei;
                s->giveup_op = j;
                s->giveup_cycle = nic_tb_now(s->tb);
                return;
            }
            if (e->ops[j].cqe) break;
        }
    while (e->next_cqe < e->nops && !e->ops[e->next_cqe].cqe) e->next_cqe++;
    if (e->next_cqe >= e->posted) {
        fail(r, "NIC %u QP 0x%x: unexpected send CQE wr_id 0x%" PRIx64 " status %u opcode %u at cycle %" PRIu64
                " (%u of %u WQEs posted, all expected CQEs seen)",
             e->nic, e->qpn, c->wr_id, c->status, c->opcode, nic_tb_now(s->tb), e->posted, e->nops);
        return;
    }
    unsigned i = e->next_cqe++;
    const scen_op_t *op = &e->ops[i];
    s->cqe_cycle[ei][i] = nic_tb_now(s->tb);
    e->retired = e->next_cqe;
    bool ok = c->wr_id == op->wqe.wr_id && c->status == op->status && c->opcode == wc_opcode(op->wqe.opcode) &&
              (c->qpn & 0xffffff) == e->qpn && !(c->flags & NIC_CQE_WITH_IMM) &&
              (op->status != NIC_WC_SUCCESS || c->byte_len == op->wqe.length);
    if (!ok)
        fail(r, "NIC %u QP 0x%x send CQE #%u at cycle %" PRIu64 ": got wr_id 0x%" PRIx64 " status %u opcode %u qpn 0x%x byte_len %u flags %u; "
                "want wr_id 0x%" PRIx64 " status %u opcode %u qpn 0x%x byte_len %u flags 0 (WR opcode %u, length %u)",
             e->nic, e->qpn, i, nic_tb_now(s->tb), c->wr_id, c->status, c->opcode, c->qpn & 0xffffff, c->byte_len, c->flags,
             op->wqe.wr_id, op->status, wc_opcode(op->wqe.opcode), e->qpn, op->wqe.length, op->wqe.opcode, op->wqe.length);
}

static void check_recv_cqe(run_t *r, int ei, const nic_cqe_t *c) {
    scen_t *s = r->s;
    scen_ep_t *e = &s->ep[ei];
    if (s->giveup_ep >= 0) return;   /* a give-up claim stopped the checks (check_send_cqe) */
    if (e->recv_done >= e->recv_posted || !recv_wanted(e, e->recv_done)) {
        fail(r, "NIC %u QP 0x%x: unexpected receive CQE wr_id 0x%" PRIx64 " status %u opcode %u byte_len %u at cycle %" PRIu64
                " (%u receives posted, %u completed)",
             e->nic, e->qpn, c->wr_id, c->status, c->opcode, c->byte_len, nic_tb_now(s->tb), e->recv_posted, e->recv_done);
        return;
    }
    const scen_recv_t *v = &e->recvs[e->recv_done++];
    bool ok = c->wr_id == v->wqe.wr_id && c->status == v->status && (c->qpn & 0xffffff) == e->qpn;
    if (v->status == NIC_WC_SUCCESS)
        ok = ok && c->opcode == v->opcode && c->byte_len == v->byte_len && !!(c->flags & NIC_CQE_WITH_IMM) == v->imm &&
             (!v->imm || c->imm == v->immv);
    if (!ok)
        fail(r, "NIC %u QP 0x%x receive CQE #%u at cycle %" PRIu64 ": got wr_id 0x%" PRIx64 " status %u opcode %u qpn 0x%x byte_len %u "
                "flags %u imm 0x%x; want wr_id 0x%" PRIx64 " status %u opcode %u byte_len %u imm %d/0x%x",
             e->nic, e->qpn, e->recv_done - 1, nic_tb_now(s->tb), c->wr_id, c->status, c->opcode, c->qpn & 0xffffff,
             c->byte_len, c->flags, c->imm, v->wqe.wr_id, v->status, v->opcode, v->byte_len, v->imm, v->immv);
}

/* Every CQE waiting on every CQ of every function in use. */
static void poll_all(run_t *r) {
    scen_t *s = r->s;
    if (s->paused) return;
    for (unsigned n = 0; n < 2; n++)
        for (unsigned fn = 0; fn < NIC_FNS; fn++) {
            if (!s->fn_up[n][fn]) continue;
            for (unsigned k = 0; k < 2; k++) {
                uint32_t cqn = k ? SCEN_RCQ : SCEN_SCQ;
                nic_cqe_t c;
                while (nic_tb_poll_cq(s->tb, s->host[n], (nic_fn_t)fn, cqn, &c) == 1) {
                    int ei = r->ep_of[n][fn * NIC_QP_PER_FN + (c.qpn & 0xffffff) % NIC_QP_PER_FN];
                    if (ei < 0 || s->ep[ei].qpn != (c.qpn & 0xffffff)) {
                        fail(r, "NIC %u fn %u %s CQ: CQE for unknown qpn 0x%x (wr_id 0x%" PRIx64 ")", n, fn, k ? "recv" : "send",
                             c.qpn & 0xffffff, c.wr_id);
                        continue;
                    }
                    if (k) check_recv_cqe(r, ei, &c);
                    else check_send_cqe(r, ei, &c);
                }
            }
            nic_event_t ev;
            while (nic_tb_pop(s->tb, s->host[n], "ctrl_async", &ev, sizeof ev) == 1) {
                if (s->async_seen[n] < 8) s->async_detail[n][s->async_seen[n]] = ev.detail;
                s->async_seen[n]++;
            }
        }
}

static bool all_done(const scen_t *s) {
    for (int i = 0; i < s->nep; i++) {
        const scen_ep_t *e = &s->ep[i];
        unsigned k = e->next_cqe;
        while (k < e->nops && !e->ops[k].cqe) k++;
        if (k < e->nops) return false;
        if (recv_wanted(e, e->recv_done)) return false;
    }
    return true;
}

static void describe_wait(run_t *r, char *b, size_t n) {
    scen_t *s = r->s;
    b[0] = 0;
    for (int i = 0; i < s->nep && strlen(b) < n - 200; i++) {
        const scen_ep_t *e = &s->ep[i];
        unsigned k = e->next_cqe;
        while (k < e->nops && !e->ops[k].cqe) k++;
        if (k < e->nops)
            snprintf(b + strlen(b), n - strlen(b), " [NIC %u QP 0x%x: send CQE of op %u (WR %u len %u) of %u, %u posted]", e->nic,
                     e->qpn, k, e->ops[k].wqe.opcode, e->ops[k].wqe.length, e->nops, e->posted);
        if (recv_wanted(e, e->recv_done))
            snprintf(b + strlen(b), n - strlen(b), " [NIC %u QP 0x%x: receive CQE %u of %u, %u posted]", e->nic, e->qpn,
                     e->recv_done, e->nrecvs, e->recv_posted);
    }
}

/* Which op's region holds addr (for a memory mismatch report). */
static void whose(scen_t *s, unsigned n, uint64_t a, char *b, size_t bn) {
    snprintf(b, bn, "in no op's region (guard)");
    for (int i = 0; i < s->nep; i++) {
        const scen_ep_t *e = &s->ep[i];
        if (e->nic == n && a >= e->atom_word && a < e->atom_word + 8) {
            snprintf(b, bn, "in the atomic word of QP 0x%x's peer", e->qpn);
            return;
        }
        for (unsigned k = 0; k < e->nops; k++) {
            const nic_sq_wqe_t *w = &e->ops[k].wqe;
            bool loc = e->nic == n && a >= w->local_addr && a < w->local_addr + w->length;
            bool rem = e->nic != n && w->opcode != NIC_WR_SEND && w->opcode != NIC_WR_SEND_IMM && a >= w->remote_addr &&
                       a < w->remote_addr + w->length;
            if (loc || rem) {
                snprintf(b, bn, "in the %s range of NIC %u QP 0x%x op %u (WR %u len %u, +%" PRIu64 ")", loc ? "local" : "remote",
                         e->nic, e->qpn, k, w->opcode, w->length, a - (loc ? w->local_addr : w->remote_addr));
                return;
            }
        }
        for (unsigned k = 0; k < e->nrecvs; k++) {
            const nic_rq_wqe_t *w = &e->recvs[k].wqe;
            if (e->nic == n && a >= w->addr && a < w->addr + w->length + 64) {
                snprintf(b, bn, "near receive %u of NIC %u QP 0x%x (buffer len %u, +%" PRIu64 ")", k, e->nic, e->qpn, w->length,
                         a - w->addr);
                return;
            }
        }
    }
}

static void check_memory(run_t *r) {
    scen_t *s = r->s;
    uint8_t *got = malloc(s->o.arena);
    char name[300], where[200];
    for (unsigned n = 0; n < 2; n++) {
        hostmem_t *m = nic_tb_mem(s->tb, s->host[n]);
        hostmem_flush(m);
        hostmem_read(m, SCEN_ARENA_BASE, got, s->o.arena);
        uint64_t diffs = 0, first = 0;
        for (uint64_t i = 0; i < s->o.arena; i++)
            if (got[i] != s->gold[n][i]) {
                if (!diffs) first = i;
                diffs++;
            }
        snprintf(name, sizeof name, "%s: NIC %u memory byte-exact (%" PRIu64 " KiB arena: targets and guard bytes)", r->name, n,
                 s->o.arena >> 10);
        if (diffs) whose(s, n, SCEN_ARENA_BASE + first, where, sizeof where);
        scen_check(!diffs, name, "%" PRIu64 " bytes differ; first at 0x%" PRIx64 " (%s): 0x%02x, want 0x%02x", diffs,
                   SCEN_ARENA_BASE + first, diffs ? where : "", got[first], s->gold[n][first]);
        const char *g = hostmem_error(m);
        snprintf(name, sizeof name, "%s: NIC %u host memory saw no malformed DMA request", r->name, n);
        scen_check(!g, name, "%s", g ? g : "");
    }
    free(got);
}

int scen_run(scen_t *s, const char *name) {
    int f0 = scen_failures;
    run_t r = {.s = s, .name = name};
    memset(r.ep_of, -1, sizeof r.ep_of);
    s->cqe_cycle = calloc((size_t)s->nep, sizeof *s->cqe_cycle);
    for (int i = 0; i < s->nep; i++) {
        scen_ep_t *e = &s->ep[i];
        r.ep_of[e->nic][e->fn * NIC_QP_PER_FN + e->qpn % NIC_QP_PER_FN] = i;
        s->cqe_cycle[i] = calloc(e->nops + 1, sizeof **s->cqe_cycle);
        /* the last successful op is signaled, so the run knows when the QP is done */
        if (e->nops && e->ops[e->nops - 1].status == NIC_WC_SUCCESS && !e->ops[e->nops - 1].cqe) {
            e->ops[e->nops - 1].cqe = true;
            e->ops[e->nops - 1].wqe.flags |= NIC_WQE_SIGNALED;
        }
    }
    uint64_t t0 = nic_tb_now(s->tb);
    bool busy = false;
    while ((busy || !all_done(s)) && s->giveup_ep < 0 && !s->stopped && nic_tb_now(s->tb) - t0 < s->o.max_cycles) {
        busy = s->o.tick && s->o.tick(s, s->o.tick_arg);
        post_work(&r);
        nic_tb_run(s->tb, 16);
        poll_all(&r);
    }
    s->done_cycle = nic_tb_now(s->tb);
    if (s->giveup_ep >= 0) return scen_failures - f0;   /* the caller proves or fails the claim */
    char b[4096];
    if (!all_done(s)) {
        describe_wait(&r, b, sizeof b);
        fail(&r, "not finished after %" PRIu64 " cycles; waiting for:%s; %s; %s", s->o.max_cycles, b, scen_counters(s, 0),
             scen_counters(s, 1));
    } else {
        char n2[300];
        snprintf(n2, sizeof n2, "%s: every expected completion arrived, right and in order (cycle %" PRIu64 ")", name,
                 s->done_cycle - t0);
        if (scen_failures == f0) scen_check(true, n2, " ");
    }
    /* quiet period: nothing more may complete */
    for (int i = 0; i < 3000 / 16; i++) {
        nic_tb_run(s->tb, 16);
        poll_all(&r);
    }
    char n2[300];
    snprintf(n2, sizeof n2, "%s: NIC_EV_QP_ERR async events as expected (NIC 0: %u, NIC 1: %u)", name, s->o.expect_async[0],
             s->o.expect_async[1]);
    scen_check(s->async_seen[0] == s->o.expect_async[0] && s->async_seen[1] == s->o.expect_async[1], n2,
               "got %u on NIC 0 (first detail %u), %u on NIC 1 (first detail %u)", s->async_seen[0], s->async_detail[0][0],
               s->async_seen[1], s->async_detail[1][0]);
    if (s->o.quiet_checks) {
        bool clean = true;
        for (unsigned side = 0; side < 2; side++) {
            nic_tb_t *t = s->tb;
            unsigned n = s->host[side];
            clean &= !nic_tb_out(t, n, "resp_naks_sent") && !nic_tb_out(t, n, "comp_naks") && !nic_tb_out(t, n, "comp_timeouts") &&
                     !nic_tb_out(t, n, "comp_retries") && !nic_tb_out(t, n, "resp_dropped") && !nic_tb_out(t, n, "comp_dropped") &&
                     !nic_tb_out(t, n, "rxd_dropped_bad") && !nic_tb_out(t, n, "rxd_dropped_addr") &&
                     !nic_tb_out(t, n, "rxd_dropped_len") && !nic_tb_out(t, n, "cqw_cqes_dropped") &&
                     nic_tb_out(t, n, "rx_cnt_ok") == nic_tb_frames_received(t, n);
        }
        snprintf(n2, sizeof n2, "%s: lossless wire: no NAK, timeout, retry, drop or bad frame on either NIC", name);
        scen_check(clean, n2, "%s; %s", scen_counters(s, 0), scen_counters(s, 1));
    }
    check_memory(&r);
    if (s->o.verbose) printf("  counters: %s\n            %s\n", scen_counters(s, 0), scen_counters(s, 1));
    return scen_failures - f0;
}
