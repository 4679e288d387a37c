/* nic_mix_test — seeded random mixed RC traffic between two whole NICs (hls/nic/nic.net), in
 * C, RTL or lock-step mode (docs/nic-testbench.md, "Whole-NIC RTL and lock-step").
 *
 * NIC 0 hosts functions 0 and 2, NIC 1 functions 1 and 3, each with its own MAC, IP and MR.
 * PAIRS RC QP pairs join them (pair k: function k%2 on both sides, path MTU 256/1024/4096 by
 * k%3), each QP with its own send and receive CQ. Both sides of every pair post a random mix
 * of SEND, SEND_IMM, WRITE, WRITE_IMM, READ, CAS and FAA (sizes 0, small, one MTU, several
 * MTUs; unaligned buffers), at most SLOTS outstanding per QP, over a wire with seeded loss,
 * reordering, bit corruption and one 3000-cycle outage (cycles 30000..33000), so go-back-N, NAK
 * and timeout paths run too; some receive
 * WQEs are posted late so RNR NAKs happen.
 *
 * Checked: every CQE in order (wr_id, opcode, status, qpn, byte_len, immediate); every byte
 * a message placed (and the guard bytes around it untouched); atomic results and the final
 * atomic words against a model; no operation stalls; at the end no extra CQE, no async event,
 * no CQE dropped; the retransmission paths ran. In lock-step mode nic_tb compares every
 * output leaf of both NICs every cycle; the first mismatch fails the test with its cycle and
 * port name.
 *
 * Usage: nic_mix_test IFACE c|rtl|lockstep SEED CYCLES [PCAP [DELIVERED_PCAP]]
 * CYCLES: traffic is posted for this many cycles after set-up, then the test drains (bounded).
 * PCAP: every frame sent; DELIVERED_PCAP: every frame the wire delivered (after loss).
 * NIC_MIX_TRACE=prefix (rtl/lockstep, model built with build-model --trace): FST waveforms
 * prefix0.fst and prefix1.fst of the two NICs' RTL. */
#include "../nic_tb.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/prng.h"

void nic(const void *in, void *out, void *state);
#ifdef NIC_MIX_RTL
#include "nic_rtl.h"
#endif

#define PAIRS 6
#define SLOTS 3                 /* outstanding WQEs per QP */
#define SLOT_BYTES 0x4000u      /* one slot's buffer: largest message + offset + guards */
#define MAX_MSG 12000u
#define GUARD 16u               /* bytes checked on each side of a placed message */
#define FILL 0xa5
#define CQ_LOG 6
#define RING_LOG 6
#define STALL 400000u           /* cycles an operation may stay outstanding */
#define DRAIN 1500000u          /* cycles after CYCLES to let everything complete */
#define STEP_CYCLES 16u         /* the test looks at CQs and posts every this many cycles */

/* ---- address map (the same in both NICs' host memories) --------------------------------- */
#define CQ_BASE(k, r) (0x10000ull + ((uint64_t)(k) * 2 + (r)) * 0x1000)
#define SQ_BASE(k) (0x100000ull + (uint64_t)(k) * 0x1000)
#define RQ_BASE(k) (0x200000ull + (uint64_t)(k) * 0x1000)
#define DATA_BASE 0x1000000ull
#define QP_AREA ((uint64_t)2 * SLOTS * SLOT_BYTES + 0x1000)
#define LBUF(k, s) (DATA_BASE + (uint64_t)(k) * QP_AREA + (uint64_t)(s) * SLOT_BYTES)
#define RBUF(k, s) (DATA_BASE + (uint64_t)(k) * QP_AREA + (uint64_t)(SLOTS + (s)) * SLOT_BYTES)
#define ATOM(k) (DATA_BASE + (uint64_t)(k) * QP_AREA + (uint64_t)2 * SLOTS * SLOT_BYTES)
#define MR_LEN ((uint64_t)PAIRS * QP_AREA)
#define PD 3
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)

static nic_fn_t fn_of(unsigned n, unsigned k) { return (nic_fn_t)(n + 2 * (k % 2)); }
static uint64_t mac_of(nic_fn_t f) { return 0x020000000a00ull | (0x10u * f + 1); }
static uint32_t ip_of(nic_fn_t f) { return 0x0a000001u + f; }
static uint32_t mr_key(nic_fn_t f) { return 0x0100u | (0x30u + f); } /* slot 1, tag 0x3f */
/* qpn: its row (qpn % 16) is k/2 + 1 within the function; distinct on each NIC */
static uint32_t qpn_of(unsigned n, unsigned k) { return 0x100u * (n + 1) + 16u * k + (k / 2 + 1); }
static uint32_t scq_of(unsigned k) { return 2 * (k / 2) + 1; }
static uint32_t rcq_of(unsigned k) { return 2 * (k / 2) + 2; }
static unsigned pmtu_of(unsigned k) { return (unsigned[]){1, 3, 5}[k % 3]; } /* 256, 1024, 4096 */
static uint32_t mtu_bytes(unsigned pmtu) { return 128u << pmtu; }

/* ---- operations ---------------------------------------------------------------------------- */
typedef struct {
    bool busy;
    uint64_t serial;            /* wr_id and the data pattern's seed */
    uint8_t op;                 /* NIC_WR_* */
    uint32_t len, imm;
    uint64_t laddr, raddr;      /* local / remote buffer of this operation */
    uint64_t want_orig;         /* atomics: the original value the responder must return */
    uint64_t posted;            /* cycle */
    bool req_done, recv_done, needs_recv;
} op_t;

typedef struct {                /* a receive WQE waiting to be posted (RNR on purpose) */
    uint64_t at;
    nic_rq_wqe_t w;
} late_recv_t;

typedef struct {
    op_t slot[SLOTS];
    unsigned sq_fifo[64], sq_h, sq_n;     /* slots in SQ order: requester CQEs come in it */
    unsigned rq_fifo[64], rq_h, rq_n;     /* the PEER's consuming slots, in its SQ order */
    late_recv_t late[64];
    unsigned late_h, late_n;
    uint64_t atom_model;                  /* the value of ATOM(k) in this side's memory */
} side_t;

static nic_tb_t *tb;
static side_t side[2][PAIRS];
static prng_t rng;
static int failures;
static uint64_t next_serial = 1;
static uint64_t ops_posted[7], ops_done[7], bytes_done, rnr_posts;
static char why[2048];
static char tag[64];            /* "mix MODE seed S": every check's name starts with it */

static void check(bool ok, const char *name, const char *w) {
    const char *sep = strncmp(name, tag, strlen(tag)) ? ": " : "";
    const char *pre = *sep ? tag : "";
    if (ok) printf("PASS %s%s%s\n", pre, sep, name);
    else { printf("FAIL %s%s%s: %s\n", pre, sep, name, w); failures++; }
}
/* A failure inside the traffic: reported once per kind, counted always. */
static unsigned fails_reported;
static void fail_op(const char *what) {
    failures++;
    if (fails_reported++ < 8) printf("FAIL %s: traffic: %s\n", tag, what);
}

static const char *op_name(uint8_t op) {
    static const char *n[] = {"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ", "CAS", "FAA"};
    return op < 7 ? n[op] : "?";
}
static uint8_t wc_of(uint8_t op) {
    static const uint8_t w[] = {NIC_WC_SEND, NIC_WC_SEND, NIC_WC_RDMA_WRITE, NIC_WC_RDMA_WRITE,
                                NIC_WC_RDMA_READ, NIC_WC_COMP_SWAP, NIC_WC_FETCH_ADD};
    return w[op];
}
static void pattern(uint8_t *p, size_t len, uint64_t serial) {
    uint64_t s = serial * 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < len; i++) {
        if (i % 8 == 0) s = splitmix64(&s);
        p[i] = (uint8_t)(s >> (8 * (i % 8)));
    }
}

/* Memory at [addr, addr+len) equals the op's pattern, and the GUARD bytes on each side still
 * hold FILL. */
static bool placed_ok(unsigned n, uint64_t addr, uint32_t len, uint64_t serial, const char *ctx) {
    static uint8_t got[SLOT_BYTES + 2 * GUARD], want[SLOT_BYTES];
    hostmem_read(nic_tb_mem(tb, n), addr - GUARD, got, len + 2 * GUARD);
    pattern(want, len, serial);
    for (uint32_t i = 0; i < GUARD; i++)
        if (got[i] != FILL || got[GUARD + len + i] != FILL) {
            snprintf(why, sizeof why, "%s: NIC %u wrote outside the message: byte at 0x%" PRIx64 " is 0x%02x (fill 0x%02x)",
                     ctx, n, got[i] != FILL ? addr - GUARD + i : addr + len + i,
                     got[i] != FILL ? got[i] : got[GUARD + len + i], FILL);
            fail_op(why);
            return false;
        }
    for (uint32_t i = 0; i < len; i++)
        if (got[GUARD + i] != want[i]) {
            snprintf(why, sizeof why, "%s: NIC %u 0x%" PRIx64 " + %u of %u: byte 0x%02x, want 0x%02x", ctx, n, addr, i, len,
                     got[GUARD + i], want[i]);
            fail_op(why);
            return false;
        }
    return true;
}

/* ---- set-up ---------------------------------------------------------------------------------- */
static int modify(unsigned n, nic_fn_t f, uint32_t qpn, uint32_t mask, nic_qp_attr_t *a) {
    nic_cmd_t c = {.op = NIC_CMD_MODIFY_QP, .fn = f, .num = qpn, .mask = mask};
    c.qp = *a;
    nic_cmd_resp_t resp = {0};
    int r = nic_tb_cmd(tb, n, &c, &resp);
    if (r) fprintf(stderr, "nic_mix_test: MODIFY_QP to state %u of NIC %u qpn 0x%x: status %d bad_field %u\n",
                   (unsigned)a->state, n, qpn, r, (unsigned)resp.bad_field);
    return r;
}

/* RESET->INIT->RTR->RTS as rdma-core does it, with a local ACK timeout short enough (timeout
 * 4: 16384 cycles) that lost tails are retried within the run, and a short RNR timer. */
static int bring_up(unsigned n, unsigned k) {
    unsigned p = 1 - n;
    nic_fn_t f = fn_of(n, k), pf = fn_of(p, k);
    int r;
    nic_qp_attr_t a = {0};
    a.state = NIC_QPS_INIT;
    a.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
    a.pkey_index = 0;
    a.port_num = 1;
    if ((r = modify(n, f, qpn_of(n, k), NIC_QPA_STATE | NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT, &a)))
        return r;
    a.state = NIC_QPS_RTR;
    a.dst_mac = mac_of(pf);
    a.dst_ip = ip_of(pf);
    a.udp_sport = (uint16_t)(0xc000 | (qpn_of(n, k) & 0x3fff));
    a.pmtu = (hls_uint(3))pmtu_of(k);
    a.dest_qpn = (hls_u24)qpn_of(p, k);
    a.rq_psn = (hls_u24)(0xfffff0u + 77u * k + 1000u * p) & 0xffffff; /* the peer's sq_psn: some wrap */
    a.min_rnr_timer = 1;   /* 0.01 ms */
    a.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    if ((r = modify(n, f, qpn_of(n, k),
                    NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
                        NIC_QPA_MIN_RNR_TIMER | NIC_QPA_MAX_DEST_RD_ATOMIC, &a)))
        return r;
    a.state = NIC_QPS_RTS;
    a.sq_psn = (hls_u24)(0xfffff0u + 77u * k + 1000u * n) & 0xffffff;
    a.timeout = 4;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = SLOTS;
    return modify(n, f, qpn_of(n, k),
                  NIC_QPA_STATE | NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
                      NIC_QPA_MAX_QP_RD_ATOMIC, &a);
}

static const char *setup_step = "";
#define TRY(what, call) do { setup_step = what; if ((r = (call))) goto bad; } while (0)
static bool setup(void) {
    int r;
    for (unsigned n = 0; n < 2; n++) {
        for (unsigned i = 0; i < 2; i++) {
            nic_fn_t f = (nic_fn_t)(n + 2 * i);
            TRY("SET_FN", nic_tb_set_fn(tb, n, f, mac_of(f), ip_of(f)));
            TRY("REG_MR", nic_tb_reg_mr(tb, n, f, mr_key(f), DATA_BASE, MR_LEN, PD, ACC));
        }
        hostmem_fill(nic_tb_mem(tb, n), DATA_BASE, FILL, MR_LEN);
        for (unsigned k = 0; k < PAIRS; k++) {
            nic_fn_t f = fn_of(n, k);
            TRY("CREATE_CQ send", nic_tb_create_cq(tb, n, f, scq_of(k), CQ_BASE(k, 0), CQ_LOG));
            TRY("CREATE_CQ recv", nic_tb_create_cq(tb, n, f, rcq_of(k), CQ_BASE(k, 1), CQ_LOG));
            nic_tb_qp_t q = {.qpn = qpn_of(n, k), .sq_base = SQ_BASE(k), .rq_base = RQ_BASE(k), .sq_log = RING_LOG,
                             .rq_log = RING_LOG, .send_cqn = scq_of(k), .recv_cqn = rcq_of(k), .pd = PD, .access = ACC};
            TRY("CREATE_QP", nic_tb_create_qp(tb, n, f, &q));
            side[n][k].atom_model = 0x1000000000000000ull * (n + 1) + k;
            hostmem_write_u64(nic_tb_mem(tb, n), ATOM(k), side[n][k].atom_model);
        }
    }
    for (unsigned k = 0; k < PAIRS; k++)
        for (unsigned n = 0; n < 2; n++)
            if ((r = bring_up(n, k))) { snprintf(why, sizeof why, "MODIFY_QP to RTS of NIC %u pair %u: status %d", n, k, r); return false; }
    return true;
bad:
    snprintf(why, sizeof why, "%s failed with status %d (-1: no answer) at cycle %" PRIu64, setup_step, r, nic_tb_now(tb));
    return false;
}

/* ---- posting ------------------------------------------------------------------------------------ */
static uint32_t pick_len(unsigned k) {
    uint32_t mtu = mtu_bytes(pmtu_of(k)), top = 4 * mtu < MAX_MSG ? 4 * mtu : MAX_MSG;
    unsigned c = (unsigned)prng_below(&rng, 10);
    if (c == 0) return 0;
    if (c <= 2) return (uint32_t)prng_range(&rng, 1, 64);
    if (c <= 4) return (uint32_t)prng_range(&rng, 65, mtu);
    return (uint32_t)prng_range(&rng, mtu + 1, top);
}

static void post_recv_now(unsigned n, unsigned k, const nic_rq_wqe_t *w) {
    if (nic_tb_post_recv(tb, n, fn_of(n, k), qpn_of(n, k), w) < 0) fail_op("post_recv: doorbell queue full");
}

/* Post one random operation from side (n, k) into free slot s. */
static void post(unsigned n, unsigned k, unsigned s) {
    unsigned p = 1 - n;
    side_t *me = &side[n][k], *peer = &side[p][k];
    op_t *o = &me->slot[s];
    memset(o, 0, sizeof *o);
    o->busy = true;
    o->serial = next_serial++;
    o->op = (uint8_t)prng_below(&rng, 7);
    o->posted = nic_tb_now(tb);
    o->imm = (uint32_t)prng_next(&rng);
    uint64_t off = GUARD + prng_below(&rng, 64);
    o->laddr = LBUF(k, s) + off;
    o->raddr = RBUF(k, s) + GUARD + prng_below(&rng, 64);
    nic_sq_wqe_t w = {.wr_id = o->serial, .opcode = o->op, .flags = NIC_WQE_SIGNALED, .imm = o->imm,
                      .lkey = mr_key(fn_of(n, k)), .rkey = mr_key(fn_of(p, k))};
    static uint8_t buf[SLOT_BYTES];
    hostmem_t *lm = nic_tb_mem(tb, n), *pm = nic_tb_mem(tb, p);
    hostmem_fill(lm, LBUF(k, s), FILL, SLOT_BYTES);
    if (o->op == NIC_WR_CAS || o->op == NIC_WR_FAA) {
        o->len = 8;
        o->raddr = ATOM(k);
        o->want_orig = peer->atom_model;
        if (o->op == NIC_WR_CAS) {
            w.compare = prng_chance(&rng, PRNG_ALWAYS / 2) ? peer->atom_model : prng_next(&rng);
            w.swap_add = prng_next(&rng);
            if (w.compare == peer->atom_model) peer->atom_model = w.swap_add;
        } else {
            w.swap_add = prng_next(&rng) >> (prng_below(&rng, 4) * 16);
            peer->atom_model += w.swap_add;
        }
    } else {
        o->len = pick_len(k);
        hostmem_fill(pm, RBUF(k, s), FILL, SLOT_BYTES);
        pattern(buf, o->len, o->serial);
        if (o->op == NIC_WR_READ) hostmem_write(pm, o->raddr, buf, o->len);   /* what the READ fetches */
        else hostmem_write(lm, o->laddr, buf, o->len);                       /* what is sent */
    }
    w.local_addr = o->laddr;
    w.length = o->len;
    w.remote_addr = o->raddr;
    o->needs_recv = o->op == NIC_WR_SEND || o->op == NIC_WR_SEND_IMM || o->op == NIC_WR_WRITE_IMM;
    if (o->needs_recv) {
        /* the peer's receive WQE for this message: a SEND lands in RBUF of this slot */
        late_recv_t *l = &peer->late[(peer->late_h + peer->late_n++) % 64];
        l->w = (nic_rq_wqe_t){.wr_id = o->serial | 1ull << 63, .addr = RBUF(k, s) + GUARD + prng_below(&rng, 64),
                              .length = SLOT_BYTES - 2 * GUARD - 64, .lkey = mr_key(fn_of(p, k))};
        if (o->op != NIC_WR_WRITE_IMM) o->raddr = l->w.addr;
        bool late = prng_below(&rng, 16) == 0;
        l->at = nic_tb_now(tb) + (late ? prng_range(&rng, 200, 3000) : 0);
        rnr_posts += late;
        peer->rq_fifo[(peer->rq_h + peer->rq_n++) % 64] = s;
    }
    me->sq_fifo[(me->sq_h + me->sq_n++) % 64] = s;
    ops_posted[o->op]++;
    if (nic_tb_post_send(tb, n, fn_of(n, k), qpn_of(n, k), &w) < 0) fail_op("post_send: doorbell queue full");
}

/* Receive WQEs whose time has come, in order (a late one holds back the ones after it). */
static void post_due_recvs(unsigned n, unsigned k) {
    side_t *me = &side[n][k];
    while (me->late_n && me->late[me->late_h].at <= nic_tb_now(tb)) {
        post_recv_now(n, k, &me->late[me->late_h].w);
        me->late_h = (me->late_h + 1) % 64;
        me->late_n--;
    }
}

/* ---- completions ----------------------------------------------------------------------------------- */
static void free_if_done(op_t *o) {
    if (o->req_done && (!o->needs_recv || o->recv_done)) o->busy = false;
}

static bool cqe_fields(const nic_cqe_t *e, uint64_t wr_id, uint8_t opc, uint32_t qpn, uint32_t len, bool imm,
                       uint32_t immv, const char *ctx) {
    bool ok = e->wr_id == wr_id && e->opcode == opc && e->status == NIC_WC_SUCCESS && (e->qpn & 0xffffff) == qpn &&
              e->byte_len == len && !!(e->flags & NIC_CQE_WITH_IMM) == imm && (!imm || e->imm == immv);
    if (!ok) {
        snprintf(why, sizeof why,
                 "%s: CQE wr_id 0x%" PRIx64 " opcode %u status %u qpn 0x%x byte_len %u flags %u imm 0x%x; want wr_id 0x%" PRIx64
                 " opcode %u status 0 qpn 0x%x byte_len %u imm %d/0x%x (cycle %" PRIu64 ")",
                 ctx, e->wr_id, e->opcode, e->status, e->qpn & 0xffffff, e->byte_len, e->flags, e->imm, wr_id, opc, qpn, len,
                 imm, immv, nic_tb_now(tb));
        fail_op(why);
    }
    return ok;
}

static void requester_cqe(unsigned n, unsigned k, const nic_cqe_t *e) {
    side_t *me = &side[n][k];
    unsigned p = 1 - n;
    char ctx[160];
    if (!me->sq_n) {
        snprintf(why, sizeof why, "NIC %u pair %u: a send CQE (wr_id 0x%" PRIx64 " status %u) with nothing outstanding", n, k,
                 e->wr_id, e->status);
        fail_op(why);
        return;
    }
    op_t *o = &me->slot[me->sq_fifo[me->sq_h]];
    me->sq_h = (me->sq_h + 1) % 64;
    me->sq_n--;
    snprintf(ctx, sizeof ctx, "NIC %u pair %u (pmtu %u) %s #%" PRIu64 " len %u requester", n, k, mtu_bytes(pmtu_of(k)),
             op_name(o->op), o->serial, o->len);
    bool ok = cqe_fields(e, o->serial, wc_of(o->op), qpn_of(n, k), o->len, false, 0, ctx);
    if (ok) switch (o->op) {
        case NIC_WR_WRITE:
        case NIC_WR_WRITE_IMM: ok = placed_ok(p, o->raddr, o->len, o->serial, ctx); break;
        case NIC_WR_READ: ok = placed_ok(n, o->laddr, o->len, o->serial, ctx); break;
        case NIC_WR_CAS:
        case NIC_WR_FAA: {
            uint64_t got = hostmem_read_u64(nic_tb_mem(tb, n), o->laddr);
            if (got != o->want_orig) {
                snprintf(why, sizeof why, "%s: original value 0x%" PRIx64 ", want 0x%" PRIx64, ctx, got, o->want_orig);
                fail_op(why);
                ok = false;
            }
            break;
        }
        default: break;
        }
    if (ok) { ops_done[o->op]++; bytes_done += o->len; }
    o->req_done = true;
    free_if_done(o);
}

static void receive_cqe(unsigned n, unsigned k, const nic_cqe_t *e) {
    side_t *me = &side[n][k];
    unsigned p = 1 - n;
    char ctx[160];
    if (!me->rq_n) {
        snprintf(why, sizeof why, "NIC %u pair %u: a receive CQE (wr_id 0x%" PRIx64 ") nobody sent", n, k, e->wr_id);
        fail_op(why);
        return;
    }
    op_t *o = &side[p][k].slot[me->rq_fifo[me->rq_h]];
    me->rq_h = (me->rq_h + 1) % 64;
    me->rq_n--;
    snprintf(ctx, sizeof ctx, "NIC %u pair %u (pmtu %u) receive of %s #%" PRIu64 " len %u", n, k, mtu_bytes(pmtu_of(k)),
             op_name(o->op), o->serial, o->len);
    bool imm = o->op != NIC_WR_SEND;
    bool ok = cqe_fields(e, o->serial | 1ull << 63, o->op == NIC_WR_WRITE_IMM ? NIC_WC_RECV_RDMA_WITH_IMM : NIC_WC_RECV,
                         qpn_of(n, k), o->len, imm, o->imm, ctx);
    if (ok && o->op != NIC_WR_WRITE_IMM) placed_ok(n, o->raddr, o->len, o->serial, ctx);
    o->recv_done = true;
    free_if_done(o);
}

static void poll_all(void) {
    nic_cqe_t e;
    for (unsigned n = 0; n < 2; n++)
        for (unsigned k = 0; k < PAIRS; k++) {
            while (nic_tb_poll_cq(tb, n, fn_of(n, k), rcq_of(k), &e) == 1) receive_cqe(n, k, &e);
            while (nic_tb_poll_cq(tb, n, fn_of(n, k), scq_of(k), &e) == 1) requester_cqe(n, k, &e);
        }
}

static unsigned outstanding(void) {
    unsigned c = 0;
    for (unsigned n = 0; n < 2; n++)
        for (unsigned k = 0; k < PAIRS; k++)
            for (unsigned s = 0; s < SLOTS; s++) c += side[n][k].slot[s].busy;
    return c;
}

static const op_t *oldest(unsigned *on, unsigned *ok_) {
    const op_t *best = NULL;
    for (unsigned n = 0; n < 2; n++)
        for (unsigned k = 0; k < PAIRS; k++)
            for (unsigned s = 0; s < SLOTS; s++) {
                const op_t *o = &side[n][k].slot[s];
                if (o->busy && (!best || o->posted < best->posted)) { best = o; *on = n; *ok_ = k; }
            }
    return best;
}

static uint64_t sum_out(const char *name) { return nic_tb_out(tb, 0, name) + nic_tb_out(tb, 1, name); }

int main(int argc, char **argv) {
    if (argc < 5 || argc > 7) {
        fprintf(stderr, "usage: nic_mix_test IFACE c|rtl|lockstep SEED CYCLES [PCAP [DELIVERED_PCAP]]\n");
        return 2;
    }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic
#ifdef NIC_MIX_RTL
                        , NIC_TB_RTL_FNS(nic)
#endif
    };
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    const char *mode = argv[2];
    if (!strcmp(mode, "c")) c.mode = NIC_TB_C;
    else if (!strcmp(mode, "rtl")) c.mode = NIC_TB_RTL;
    else if (!strcmp(mode, "lockstep")) c.mode = NIC_TB_LOCKSTEP;
    else { fprintf(stderr, "nic_mix_test: mode '%s': want c, rtl or lockstep\n", mode); return 2; }
    char *end;
    uint64_t seed = strtoull(argv[3], &end, 0);
    if (*end || !*argv[3]) { fprintf(stderr, "nic_mix_test: SEED '%s' is not a number\n", argv[3]); return 2; }
    uint64_t cycles = strtoull(argv[4], &end, 0);
    if (*end || !*argv[4]) { fprintf(stderr, "nic_mix_test: CYCLES '%s' is not a number\n", argv[4]); return 2; }
    c.seed = seed;
    c.wire.seed = seed;
    c.wire.latency_cycles = 20;
    c.wire.bytes_per_cycle = 25;
    c.wire.p_loss = 0.005;
    c.wire.p_reorder = 0.01;
    c.wire.reorder_max_cycles = 200;
    c.wire.p_corrupt = 0.003;
    /* a 3000-cycle link outage in both directions: long enough that every busy QP sends its
     * whole window into it and has nothing left to send after it, so nothing draws a NAK and
     * the local ACK timeout path runs whatever the seed (400 cycles did not: once ACKs no
     * longer waited behind requests in rx_dispatch, seed 1 recovered everything by NAKs) */
    c.wire.pause[0] = (wire_pause_t){.start = 30000, .end = 33000, .mode = WIRE_PAUSE_DROP, .port_mask = 0};
    c.wire.pcap_sent = argc >= 6 ? argv[5] : NULL;
    c.wire.pcap_delivered = argc >= 7 ? argv[6] : NULL;
    c.backpressure_pct = 0;
    c.regs_check_every = 128;   /* lock-step: registers too, not only outputs */
    prng_seed_stream(&rng, seed, 0x6d6978);
    snprintf(tag, sizeof tag, "mix %s seed %" PRIu64, mode, seed);

    tb = nic_tb_new(&m, &c);
    if (!tb) { printf("FAIL %s: harness: cannot load %s\n", tag, argv[1]); return 1; }
#ifdef NIC_MIX_RTL
    const char *trace = getenv("NIC_MIX_TRACE");
    for (unsigned n = 0; trace && c.mode != NIC_TB_C && n < 2; n++) {
        char path[512];
        snprintf(path, sizeof path, "%s%u.fst", trace, n);
        nic_rtl_trace((nic_rtl *)nic_tb_rtl(tb, n), path);
    }
#endif
    struct timespec t0, t1, c0, c1;   /* wall and CPU time: the machine is shared */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    char name[256];
    bool up = setup();
    snprintf(name, sizeof name, "%s: set-up (4 functions, %u QP pairs, MTU 256/1024/4096)", tag, PAIRS);
    check(up, name, why);
    uint64_t setup_cycles = nic_tb_now(tb);
    bool stalled = false;
    while (up && !nic_tb_mismatch(tb) && !stalled) {
        uint64_t now = nic_tb_now(tb);
        bool posting = now < setup_cycles + cycles;
        if (!posting && !outstanding()) break;
        if (now >= setup_cycles + cycles + DRAIN) { stalled = true; break; }
        nic_tb_run(tb, STEP_CYCLES);
        poll_all();
        for (unsigned n = 0; n < 2; n++)
            for (unsigned k = 0; k < PAIRS; k++) {
                post_due_recvs(n, k);
                for (unsigned s = 0; posting && s < SLOTS; s++)
                    if (!side[n][k].slot[s].busy && prng_below(&rng, 8) == 0) post(n, k, s);
            }
        unsigned on, ok_;
        const op_t *o = oldest(&on, &ok_);
        if (o && nic_tb_now(tb) - o->posted > STALL) stalled = true;
    }
    uint64_t traffic_cycles = nic_tb_now(tb) - setup_cycles;
    if (up && !nic_tb_mismatch(tb)) {
        unsigned on = 0, ok_ = 0;
        const op_t *o = oldest(&on, &ok_);
        snprintf(why, sizeof why, "%u operations outstanding at cycle %" PRIu64 "; oldest NIC %u pair %u %s #%" PRIu64
                 " len %u posted at cycle %" PRIu64 " (req CQE %s, recv CQE %s); comp timeouts %" PRIu64 " retries %" PRIu64,
                 outstanding(), nic_tb_now(tb), on, ok_, o ? op_name(o->op) : "-", o ? o->serial : 0, o ? o->len : 0,
                 o ? o->posted : 0, o && o->req_done ? "seen" : "missing", o && o->recv_done ? "seen" : "missing",
                 sum_out("comp_timeouts"), sum_out("comp_retries"));
        check(!stalled, "every operation completed (none outstanding longer than the stall bound)", why);
        /* quiet end */
        nic_tb_run(tb, 2000);
        poll_all();
        bool atoms = true;
        for (unsigned n = 0; n < 2; n++)
            for (unsigned k = 0; k < PAIRS; k++) {
                uint64_t v = hostmem_read_u64(nic_tb_mem(tb, n), ATOM(k));
                if (v != side[n][k].atom_model) {
                    atoms = false;
                    snprintf(why, sizeof why, "NIC %u pair %u atomic word 0x%" PRIx64 ", model 0x%" PRIx64, n, k, v,
                             side[n][k].atom_model);
                }
            }
        check(atoms, "every atomic word equals the model after all CAS/FAA", why);
        bool clean = true;
        for (unsigned n = 0; n < 2; n++)
            clean &= !nic_tb_out(tb, n, "cqw_cqes_dropped") && !nic_tb_pending(tb, n, "ctrl_async") &&
                     !nic_tb_out(tb, n, "rxd_dropped_len");
        /* (rxd_dropped_addr may count: a flipped bit in the Ethernet header, which the ICRC
         * does not cover, makes a frame another station's) */
        snprintf(why, sizeof why, "cqw dropped %" PRIu64 ", async events %u/%u, rxd dropped len %" PRIu64,
                 sum_out("cqw_cqes_dropped"), nic_tb_pending(tb, 0, "ctrl_async"), nic_tb_pending(tb, 1, "ctrl_async"),
                 sum_out("rxd_dropped_len"));
        check(clean, "no CQE dropped, no async event, no bad-length packet", why);
        uint64_t total = 0, all_kinds = 1;
        for (int i = 0; i < 7; i++) { total += ops_done[i]; all_kinds &= ops_done[i] > 0; }
        const wire_stats_t *ws = wire_stats(nic_tb_wire(tb));
        snprintf(why, sizeof why, "ops done %" PRIu64 " (per opcode %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
                 "/%" PRIu64 "/%" PRIu64 "); lost %" PRIu64 " corrupted %" PRIu64 " reordered %" PRIu64
                 "; comp timeouts %" PRIu64 " retries %" PRIu64 " naks %" PRIu64 "; resp naks %" PRIu64 "; late recvs %" PRIu64,
                 total, ops_done[0], ops_done[1], ops_done[2], ops_done[3], ops_done[4], ops_done[5], ops_done[6], ws->lost,
                 ws->corrupted, ws->reordered, sum_out("comp_timeouts"), sum_out("comp_retries"), sum_out("comp_naks"),
                 sum_out("resp_naks_sent"), rnr_posts);
        check(all_kinds && ws->lost && sum_out("comp_retries") && sum_out("comp_naks") && sum_out("comp_timeouts"),
              "every opcode completed; loss, NAKs, timeouts and retries happened", why);
        printf("info %s: %" PRIu64 " traffic cycles (+%" PRIu64 " set-up); %s\n", tag, traffic_cycles, setup_cycles, why);
        printf("info %s: frames sent %" PRIu64 "/%" PRIu64 ", wire bytes %" PRIu64 "\n", tag, nic_tb_frames_sent(tb, 0),
               nic_tb_frames_sent(tb, 1), ws->sent_bytes);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
    uint64_t total_cycles = nic_tb_now(tb);
    if (c.mode == NIC_TB_LOCKSTEP) {
        snprintf(name, sizeof name, "%s: C model and RTL equal: every output on every cycle, every register every %u cycles (%" PRIu64 " cycles, 2 NICs)", tag,
                 c.regs_check_every, total_cycles);
        check(!nic_tb_mismatch(tb), name, nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "");
        if (!nic_tb_mismatch(tb)) {
            snprintf(name, sizeof name, "%s: C model and RTL whole state equal at the end (every register and memory cell, 2 NICs)", tag);
            check(nic_tb_compare_state(tb), name, nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "");
        }
    }
    printf("info %s: speed %.0f cycles per CPU second of 2 NICs, %.0f per wall second (%" PRIu64
           " cycles, %.1f s CPU, %.1f s wall)\n", tag, cpu > 0 ? (double)total_cycles / cpu : 0.0,
           secs > 0 ? (double)total_cycles / secs : 0.0, total_cycles, cpu, secs);
    nic_tb_free(tb);
    if (failures) printf("FAIL %s: %d failure(s)\n", tag, failures);
    else printf("PASS %s\n", tag);
    return failures ? 1 : 0;
}
