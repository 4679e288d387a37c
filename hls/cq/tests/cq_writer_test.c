/* cq_writer_test — drives cq_writer cycle by cycle against testbench/lib/hostmem and checks
 * the CQ rings byte for byte: CQE layout, owner bit per pass, round-robin, doorbells,
 * overrun (one event, drops counted), CQEs for absent CQs, CQ arm and completion events
 * (ibv_req_notify_cq: next / solicited), and a long run in which a host model polls owner
 * bits, re-arms and rings doorbells past the 16-bit consumer-index wrap; migration: markers
 * (every CQE ahead of both written before the event, none of a PASSIVE function after), the
 * context port's NIC_CTX_CQW_CQ words and dirty bits. */
#include <stdlib.h>
#include <string.h>

#include "../cq_writer.c"
#include "hostmem.h"
#include "prng.h"
#include "tb_check.h"

#define QLEN 64
typedef struct { nic_cqe_req_t q[QLEN]; unsigned h, t; } cqe_q;
typedef struct {
    cq_writer_state st;
    hostmem_t *m;
    prng_t r;
    unsigned dma_stall_pct, ev_stall_pct;
    nic_cfg_t cfg; bool cfg_v;
    nic_db_t db; bool db_v;
    cqe_q resp, comp;
    nic_event_t evs[8]; unsigned nev;
    uint32_t ev_written[8];                   /* cqes_written when each event was taken */
    unsigned ncomp;                           /* NIC_EV_CQ_COMP events seen (any number) */
    uint64_t *accepted; uint32_t naccepted;   /* wr_ids in the order cq_writer took them */
    uint64_t cycle;
    hls_edge_queue *edges;                    /* cq_writer's memory edges (hls.h) */
} tb_t;

static void tb_init(tb_t *tb, uint64_t seed) {
    memset(tb, 0, sizeof *tb);
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.write_latency = 3;
    tb->m = hostmem_new(&c);
    prng_seed(&tb->r, seed);
    tb->edges = hls_edge_queue_new();
}
static void tb_free(tb_t *tb) {
    hostmem_free(tb->m);
    hls_edge_queue_free(tb->edges);
}

static void step(tb_t *tb) {
    hostmem_port_out_t ho;
    hostmem_eval(tb->m, 0, &ho);
    cq_writer_in in = {0};
    cq_writer_out out = {0};
    in.cfg.valid = tb->cfg_v; in.cfg.data = tb->cfg;
    in.cq_db.valid = tb->db_v; in.cq_db.data = tb->db;
    in.cqe_resp.valid = tb->resp.h != tb->resp.t; in.cqe_resp.data = tb->resp.q[tb->resp.h % QLEN];
    in.cqe_comp.valid = tb->comp.h != tb->comp.t; in.cqe_comp.data = tb->comp.q[tb->comp.h % QLEN];
    in.dma_req_ready = ho.req_ready && prng_below(&tb->r, 100) >= tb->dma_stall_pct;
    in.ev_ready = prng_below(&tb->r, 100) >= tb->ev_stall_pct;
    hls_edge_queue_bind(tb->edges);
    cq_writer(&in, &out, &tb->st);
    hls_clock_edge(tb->edges);
    if (in.cfg.valid && out.cfg_ready) tb->cfg_v = false;
    if (in.cq_db.valid && out.cq_db_ready) tb->db_v = false;
    if (in.cqe_resp.valid && out.cqe_resp_ready) tb->resp.h++;
    if (in.cqe_comp.valid && out.cqe_comp_ready) tb->comp.h++;
    if (tb->accepted && (out.cqe_resp_ready || out.cqe_comp_ready))
        tb->accepted[tb->naccepted++] = (out.cqe_comp_ready ? in.cqe_comp.data : in.cqe_resp.data).cqe.wr_id;
    if (out.ev.valid && in.ev_ready && out.ev.data.kind == NIC_EV_CQ_COMP) tb->ncomp++;
    if (out.ev.valid && in.ev_ready && tb->nev < 8) {
        tb->ev_written[tb->nev] = tb->st.cqes_written;
        tb->evs[tb->nev++] = out.ev.data;
    }
    hostmem_port_in_t hi = {0};
    hi.req_valid = out.dma_req.valid && in.dma_req_ready;
    hi.req.op = out.dma_req.data.write ? HOSTMEM_OP_WRITE : HOSTMEM_OP_READ;
    hi.req.addr = out.dma_req.data.addr;
    hi.req.len = (uint32_t)out.dma_req.data.len;
    for (unsigned i = 0; i < 64; i++) hi.req.data[i] = (uint8_t)(out.dma_req.data.data >> (8 * i));
    hi.resp_ready = out.dma_resp_ready;
    hostmem_edge(tb->m, 0, &hi);
    hostmem_tick(tb->m);
    tb->cycle++;
}
static bool busy(const tb_t *tb) {
    return tb->cfg_v || tb->db_v || tb->resp.h != tb->resp.t || tb->comp.h != tb->comp.t ||
           tb->st.fsm != CQW_IDLE;
}
static void settle(tb_t *tb) {
    for (unsigned i = 0; i < 10000 && busy(tb); i++) step(tb);
    for (unsigned i = 0; i < 8; i++) step(tb);
    hostmem_flush(tb->m);
}
static void send_cfg(tb_t *tb, nic_cq_t row, uint32_t cqn, uint64_t base, unsigned log, bool valid) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_CQ; c.cq = row; c.key = cqn; c.base = base; c.log = (hls_uint(5))log;
    c.valid = valid;
    tb->cfg = c; tb->cfg_v = true;
    settle(tb);
}
static void ring_arm(tb_t *tb, unsigned fn, uint32_t cqn, uint16_t ci, unsigned arm) {
    tb->db.fn = (nic_fn_t)fn; tb->db.num = (hls_u24)cqn; tb->db.index = ci; tb->db.arm = (hls_uint(2))arm;
    tb->db_v = true;
    settle(tb);
}
static void ring(tb_t *tb, unsigned fn, uint32_t cqn, uint16_t ci) { ring_arm(tb, fn, cqn, ci, NIC_ARM_NONE); }
static nic_cqe_t mk_cqe(uint32_t n) {
    nic_cqe_t c = {0};
    c.wr_id = 0x1000000000000000ull + n * 0x10001ull;
    c.byte_len = n * 7; c.imm = 0xA5000000u + n; c.qpn = 0x123400 + (n & 0xFF);
    c.opcode = (n & 1) ? NIC_WC_RECV : NIC_WC_SEND; c.status = (uint8_t)(n % 3);
    c.flags = n & 1; c.owner = 0x55; /* garbage: cq_writer owns this byte */
    c.rsvd = 0xDEADBEEFull;          /* garbage: written as 0 */
    return c;
}
static void push_sol(cqe_q *q, nic_cq_t row, nic_cqe_t c, bool solicited) {
    q->q[q->t % QLEN].cq = row; q->q[q->t % QLEN].cqe = c; q->q[q->t % QLEN].solicited = solicited; q->t++;
}
static void push(cqe_q *q, nic_cq_t row, nic_cqe_t c) { push_sol(q, row, c, false); }
/* A successful (status 0) CQE n. */
static nic_cqe_t ok_cqe(uint32_t n) { nic_cqe_t c = mk_cqe(n); c.status = NIC_WC_SUCCESS; return c; }
/* The CQE n (the n-th written to the ring) must hold c with the owner bit of its pass. */
static bool check_slot(tb_t *tb, uint64_t base, unsigned log, uint32_t n, nic_cqe_t c) {
    nic_cqe_t e = c;
    e.qpn &= 0xFFFFFF; e.rsvd = 0;
    e.owner = ((n >> log) & 1) ? 0 : NIC_CQE_OWNER;
    nic_cqe_t got;
    hostmem_read(tb->m, base + 32ull * (n & ((1u << log) - 1)), &got, sizeof got);
    return memcmp(&got, &e, sizeof e) == 0;
}

static void test_layout_rr(void) {
    tb_begin("cq_writer: CQE bytes exact, round-robin between responder and completer");
    tb_t tb; tb_init(&tb, 1);
    const uint64_t base = 0x100000;
    hostmem_guard_fill(tb.m, base - 256, 32 * 16 + 512, 7);
    hostmem_guard_target(tb.m, base, 32 * 16);
    send_cfg(&tb, 5, 5, base, 4, true);
    for (uint32_t i = 0; i < 6; i++) { push(&tb.resp, 5, mk_cqe(2 * i)); push(&tb.comp, 5, mk_cqe(2 * i + 1)); }
    settle(&tb);
    /* both queues were full from the start: resp, comp, resp, comp, ... */
    for (uint32_t n = 0; n < 12; n++) CHECK(check_slot(&tb, base, 4, n, mk_cqe(n)), "slot %u", n);
    CHECK(tb.st.cqes_written == 12 && tb.st.cqes_dropped == 0, "written %u dropped %u",
          tb.st.cqes_written, tb.st.cqes_dropped);
    CHECK(hostmem_guard_check(tb.m, NULL, 0) == 0, "write outside the ring: %s", hostmem_guard_first(tb.m));
    CHECK(tb.nev == 0, "unexpected event");
    tb_end(); tb_free(&tb);
}

static void test_wrap_owner(void) {
    tb_begin("cq_writer: owner bit flips each pass, doorbell frees space");
    tb_t tb; tb_init(&tb, 2);
    tb.dma_stall_pct = 40;
    const uint64_t base = 0x200000;
    send_cfg(&tb, 16 + 3, 0x33, base, 2, true);   /* fn 1, cqn 0x33 -> row 19, 4 entries */
    uint32_t n = 0;
    for (unsigned pass = 0; pass < 3; pass++) {
        for (unsigned i = 0; i < 4; i++, n++) push(&tb.comp, 19, mk_cqe(n));
        settle(&tb);
        for (uint32_t k = n - 4; k < n; k++) CHECK(check_slot(&tb, base, 2, k, mk_cqe(k)), "pass %u slot %u", pass, k);
        ring(&tb, 1, 0x33, (uint16_t)n);           /* host consumed everything */
    }
    CHECK(tb.st.cqes_written == 12 && tb.st.cqes_dropped == 0 && tb.nev == 0, "written %u dropped %u ev %u",
          tb.st.cqes_written, tb.st.cqes_dropped, tb.nev);
    tb_end(); tb_free(&tb);
}

static void test_overrun(void) {
    tb_begin("cq_writer: overrun keeps the ring, one CQ_ERR event, later CQEs dropped");
    tb_t tb; tb_init(&tb, 3);
    tb.ev_stall_pct = 60;
    const uint64_t base = 0x300000;
    send_cfg(&tb, 2, 2, base, 2, true);
    for (uint32_t i = 0; i < 4; i++) push(&tb.resp, 2, mk_cqe(i));
    settle(&tb);
    ring(&tb, 0, 2, 1);                            /* one entry consumed: room for one more */
    for (uint32_t i = 4; i < 8; i++) push(&tb.resp, 2, mk_cqe(i));
    settle(&tb);
    CHECK(check_slot(&tb, base, 2, 4, mk_cqe(4)), "CQE 4 (fits) not written");
    for (uint32_t k = 1; k < 4; k++) CHECK(check_slot(&tb, base, 2, k, mk_cqe(k)), "unconsumed slot %u overwritten", k);
    CHECK(tb.st.cqes_written == 5 && tb.st.cqes_dropped == 3, "written %u dropped %u",
          tb.st.cqes_written, tb.st.cqes_dropped);
    CHECK(tb.nev == 1 && tb.evs[0].kind == NIC_EV_CQ_ERR && tb.evs[0].cq == 2, "events %u kind %u cq %u",
          tb.nev, tb.evs[0].kind, (unsigned)tb.evs[0].cq);
    ring(&tb, 0, 2, 8);                            /* the CQ stays in error */
    push(&tb.comp, 2, mk_cqe(9));
    settle(&tb);
    CHECK(tb.st.cqes_written == 5 && tb.st.cqes_dropped == 4 && tb.nev == 1, "after error: written %u dropped %u ev %u",
          tb.st.cqes_written, tb.st.cqes_dropped, tb.nev);
    send_cfg(&tb, 2, 2, base, 2, true);            /* recreated: usable again, pass 0 */
    push(&tb.comp, 2, mk_cqe(10));
    settle(&tb);
    CHECK(check_slot(&tb, base, 2, 0, mk_cqe(10)), "recreated CQ slot 0");
    tb_end(); tb_free(&tb);
}

static void test_invalid(void) {
    tb_begin("cq_writer: CQEs for absent/destroyed CQs dropped, foreign doorbells ignored");
    tb_t tb; tb_init(&tb, 4);
    const uint64_t base = 0x400000;
    hostmem_guard_fill(tb.m, base, 4096, 9);
    push(&tb.resp, 7, mk_cqe(0));                  /* never created */
    settle(&tb);
    CHECK(tb.st.cqes_written == 0 && tb.st.cqes_dropped == 1, "absent: written %u dropped %u",
          tb.st.cqes_written, tb.st.cqes_dropped);
    send_cfg(&tb, 49, 0x21, base, 1, true);        /* fn 3, cqn 0x21 -> row 49, 2 entries */
    hostmem_guard_target(tb.m, base, 64);
    push(&tb.resp, 49, mk_cqe(1)); push(&tb.resp, 49, mk_cqe(2));
    settle(&tb);
    ring(&tb, 3, 0x11, 2);                         /* same row, other cqn: not this CQ */
    ring(&tb, 2, 0x21, 2);                         /* other function */
    push(&tb.resp, 49, mk_cqe(3));
    settle(&tb);
    CHECK(tb.st.cqes_written == 2 && tb.st.cqes_dropped == 2 && tb.nev == 1, "foreign doorbell freed space: w %u d %u ev %u",
          tb.st.cqes_written, tb.st.cqes_dropped, tb.nev);
    send_cfg(&tb, 49, 0x21, base, 1, false);       /* destroy */
    push(&tb.resp, 49, mk_cqe(4));
    settle(&tb);
    CHECK(tb.st.cqes_dropped == 3 && tb.nev == 1, "destroyed CQ: dropped %u", tb.st.cqes_dropped);
    CHECK(hostmem_guard_check(tb.m, NULL, 0) == 0, "stray write: %s", hostmem_guard_first(tb.m));
    tb_end(); tb_free(&tb);
}

/* A host that polls the ring (owner bit = its pass parity), checks each CQE and rings the
 * doorbell now and then; producers never exceed the space the host has reported. */
static void test_long_run(void) {
    tb_begin("cq_writer: 70000 CQEs through an 8-entry ring, host polling and re-arming, ci wraps 2^16");
    tb_t tb; tb_init(&tb, 5);
    tb.dma_stall_pct = 20;
    const uint64_t base = 0x500000;
    const unsigned log = 3;
    send_cfg(&tb, 10, 10, base, log, true);
    uint32_t pushed = 0, ci = 0, reported = 0, bad = 0;
    unsigned arms = 0, comps_seen = 0;
    bool armed = false;   /* an arm was sent and its event has not come yet */
    const uint32_t total = 70000;
    tb.accepted = calloc(total, sizeof *tb.accepted);
    while (ci < total && tb.cycle < 2000000) {
        if (pushed < total && pushed - reported < (1u << log) && prng_below(&tb.r, 100) < 70) {
            cqe_q *q = prng_below(&tb.r, 2) ? &tb.resp : &tb.comp;
            if (q->t - q->h < QLEN) push(q, 10, mk_cqe(pushed++));
        }
        /* host: consume the next entry if its owner bit says it is valid */
        nic_cqe_t got;
        hostmem_read(tb.m, base + 32ull * (ci & ((1u << log) - 1)), &got, sizeof got);
        uint8_t want_owner = ((ci >> log) & 1) ? 0 : NIC_CQE_OWNER;
        if (got.owner == want_owner && prng_below(&tb.r, 100) < 60) {
            if ((ci >= tb.naccepted || got.wr_id != tb.accepted[ci]) && !bad) bad = ci + 1;
            ci++;
        }
        if (!tb.db_v && ci != reported && prng_below(&tb.r, 100) < 20) {
            tb.db.fn = 0; tb.db.num = 10; tb.db.index = (uint16_t)ci; tb.db_v = true;
            tb.db.arm = NIC_ARM_NONE;
            if (!armed && prng_below(&tb.r, 100) < 30) { tb.db.arm = NIC_ARM_NEXT; armed = true; arms++; }
            reported = ci;   /* space counts once the doorbell is sent (it is applied first) */
        }
        step(&tb);
        if (tb.ncomp != comps_seen) {  /* exactly one event per arm, and only while armed */
            if (!armed || tb.ncomp != comps_seen + 1) bad = bad ? bad : 0x80000000u;
            comps_seen = tb.ncomp;
            armed = false;
        }
    }
    CHECK(ci == total, "host consumed %u of %u in %llu cycles", ci, total, (unsigned long long)tb.cycle);
    CHECK(bad != 0x80000000u, "a completion event without an arm, or two for one arm");
    CHECK(!bad || bad == 0x80000000u, "CQE %u is not the %u-th accepted", bad - 1, bad - 1);
    settle(&tb);
    CHECK(arms > 100 && tb.ncomp == arms - (armed ? 1 : 0), "arms %u events %u (armed at the end %d)", arms, tb.ncomp,
          armed);
    unsigned errs = 0;
    for (unsigned i = 0; i < tb.nev; i++) errs += tb.evs[i].kind != NIC_EV_CQ_COMP;
    CHECK(tb.st.cqes_written == total && tb.st.cqes_dropped == 0 && errs == 0, "w %u d %u err events %u",
          tb.st.cqes_written, tb.st.cqes_dropped, errs);
    tb_end(); free(tb.accepted); tb_free(&tb);
}

/* ibv_req_notify_cq: arm through the doorbell, one NIC_EV_CQ_COMP per arm, after the CQE. */
static void test_arm(void) {
    tb_begin("cq_writer: CQ arm NEXT / SOLICITED, one event per arm, after the CQE's write");
    tb_t tb; tb_init(&tb, 6);
    tb.dma_stall_pct = 30; tb.ev_stall_pct = 50;
    const uint64_t base = 0x600000;
    send_cfg(&tb, 16 + 6, 0x46, base, 4, true);     /* fn 1, cqn 0x46 -> row 22 */
    const nic_cq_t row = 22;
    uint32_t n = 0;
    push(&tb.resp, row, ok_cqe(n++)); push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 0, "event without an arm");
    ring_arm(&tb, 1, 0x46, 0, NIC_ARM_NEXT);       /* two CQEs unconsumed: the arm fires at once */
    settle(&tb);
    CHECK(tb.nev == 1 && tb.evs[0].kind == NIC_EV_CQ_COMP && tb.evs[0].cq == row,
          "an arm with CQEs past its consumer index: events %u kind %u", tb.nev, tb.evs[0].kind);
    push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 1, "the arm that fired at once fired again on the next CQE");
    ring_arm(&tb, 1, 0x46, (uint16_t)n, NIC_ARM_NEXT); /* all consumed: it waits for the next CQE */
    settle(&tb);
    CHECK(tb.nev == 1, "an arm with nothing unconsumed fired");
    push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 2 && tb.evs[1].kind == NIC_EV_CQ_COMP && tb.evs[1].cq == row && tb.evs[1].qp == 0 &&
          tb.evs[1].detail == 0, "NEXT: events %u kind %u cq %u", tb.nev, tb.evs[1].kind, (unsigned)tb.evs[1].cq);
    CHECK(tb.ev_written[1] == n, "event before its CQE's write (%u written of %u)", tb.ev_written[1], n);
    CHECK(check_slot(&tb, base, 4, n - 1, ok_cqe(n - 1)), "armed CQE written");
    push(&tb.resp, row, ok_cqe(n++)); push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 2, "fired twice on one arm");
    ring_arm(&tb, 1, 0x46, (uint16_t)(n - 1), NIC_ARM_SOLICITED); /* one unconsumed, unsolicited */
    settle(&tb);
    CHECK(tb.nev == 3 && tb.evs[2].kind == NIC_EV_CQ_COMP,
          "SOLICITED with a CQE past its consumer index: at once too (early, never lost): events %u", tb.nev);

    ring_arm(&tb, 1, 0x46, (uint16_t)n, NIC_ARM_SOLICITED);
    push(&tb.resp, row, ok_cqe(n++));              /* receive without SE, successful send */
    push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 3, "SOLICITED fired on an unsolicited successful CQE");
    push_sol(&tb.resp, row, ok_cqe(n++), true);
    settle(&tb);
    CHECK(tb.nev == 4 && tb.evs[3].kind == NIC_EV_CQ_COMP && tb.ev_written[3] == n, "SOLICITED: solicited CQE");
    ring_arm(&tb, 1, 0x46, (uint16_t)n, NIC_ARM_SOLICITED);
    nic_cqe_t e = ok_cqe(n++); e.status = NIC_WC_RETRY_EXC_ERR;
    push(&tb.comp, row, e);
    settle(&tb);
    CHECK(tb.nev == 5 && tb.evs[4].kind == NIC_EV_CQ_COMP, "SOLICITED: error CQE (11.4.2.2)");

    ring_arm(&tb, 1, 0x46, (uint16_t)n, NIC_ARM_NEXT); /* NEXT, then SOLICITED: still NEXT */
    ring_arm(&tb, 1, 0x46, (uint16_t)n, NIC_ARM_SOLICITED);
    ring(&tb, 1, 0x46, (uint16_t)n);               /* a plain doorbell keeps the arm */
    push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 6, "NEXT weakened or cleared by a later doorbell");

    ring_arm(&tb, 1, 0x56, (uint16_t)n, NIC_ARM_NEXT); /* same row, other cqn: not this CQ */
    ring_arm(&tb, 0, 0x46, (uint16_t)n, NIC_ARM_NEXT); /* other function */
    push(&tb.comp, row, ok_cqe(n++));
    settle(&tb);
    CHECK(tb.nev == 6, "a foreign doorbell armed the CQ");

    ring_arm(&tb, 1, 0x46, (uint16_t)n, NIC_ARM_NEXT);
    send_cfg(&tb, row, 0x46, base, 1, true);        /* destroyed and recreated (2 entries): disarmed */
    push(&tb.comp, row, ok_cqe(0));
    settle(&tb);
    CHECK(tb.nev == 6, "a recreated CQ kept the old arm");
    ring_arm(&tb, 1, 0x46, 0, NIC_ARM_NEXT);        /* CQE 0 unconsumed: fires at once */
    push(&tb.comp, row, ok_cqe(1)); push(&tb.comp, row, ok_cqe(2)); /* the second overruns */
    settle(&tb);
    CHECK(tb.nev == 8 && tb.evs[6].kind == NIC_EV_CQ_COMP && tb.evs[7].kind == NIC_EV_CQ_ERR,
          "armed then overrun: %u events, kinds %u %u", tb.nev, tb.evs[6].kind, tb.evs[7].kind);
    CHECK(tb.st.cqes_dropped == 1, "dropped %u", tb.st.cqes_dropped);
    tb_end(); tb_free(&tb);
}

static void send_kind(tb_t *tb, nic_cfg_t c) { tb->cfg = c; tb->cfg_v = true; settle(tb); }
static void push_mark(cqe_q *q, unsigned fn) {
    q->q[q->t % QLEN] = (nic_cqe_req_t){.cq = (nic_cq_t)(fn << 4), .mig_mark = true}; q->t++;
}
static void run_for(tb_t *tb, unsigned n) { for (unsigned i = 0; i < n; i++) step(tb); hostmem_flush(tb->m); }

static void test_mig_marker(void) {
    tb_begin("cq_writer: PASSIVE: CQEs ahead of both markers written before NIC_EV_MIG_MARK, none after, others unaffected");
    tb_t tb; tb_init(&tb, 9);
    tb.dma_stall_pct = 40; tb.ev_stall_pct = 30;
    const uint64_t b1 = 0x200000, b2 = 0x300000;
    hostmem_guard_fill(tb.m, b1 - 256, 32 * 8 + 512, 3);
    hostmem_guard_target(tb.m, b1, 32 * 8);
    send_cfg(&tb, 16 + 2, 2, b1, 3, true);
    send_cfg(&tb, 32 + 3, 3, b2, 3, true);
    send_kind(&tb, (nic_cfg_t){.kind = NIC_CFG_SUSPEND, .fn = 1, .level = NIC_SUSPEND_PASSIVE});
    push(&tb.resp, 16 + 2, ok_cqe(0)); push(&tb.resp, 32 + 3, ok_cqe(1)); push_mark(&tb.resp, 1);
    push(&tb.resp, 32 + 3, ok_cqe(2));                        /* another function: still written */
    push(&tb.comp, 16 + 2, ok_cqe(3)); push_mark(&tb.comp, 1);
    push(&tb.comp, 16 + 2, ok_cqe(4));                        /* behind the marker: must wait */
    run_for(&tb, 3000);
    CHECK(tb.nev == 1 && tb.evs[0].kind == NIC_EV_MIG_MARK && tb.evs[0].fn == 1, "events %u kind %u", tb.nev, tb.evs[0].kind);
    CHECK(tb.ev_written[0] >= 3, "marker event before the CQEs ahead of it were written (%u)", tb.ev_written[0]);
    CHECK(check_slot(&tb, b1, 3, 0, ok_cqe(0)) && check_slot(&tb, b1, 3, 1, ok_cqe(3)), "fn 1 CQEs ahead of the markers");
    CHECK(check_slot(&tb, b2, 3, 0, ok_cqe(1)) && check_slot(&tb, b2, 3, 1, ok_cqe(2)), "fn 2 CQEs");
    CHECK(tb.st.cqes_written == 4 && tb.comp.t - tb.comp.h == 1, "written %u, held %u", tb.st.cqes_written, tb.comp.t - tb.comp.h);
    CHECK(hostmem_guard_check(tb.m, NULL, 0) == 0, "a CQE of the PASSIVE function was written: %s", hostmem_guard_first(tb.m));
    /* an arm of the frozen function with two CQEs unconsumed is kept, not fired: the row
     * (what migration saves) carries it */
    ring_arm(&tb, 1, 2, 0, NIC_ARM_NEXT);
    run_for(&tb, 200);
    CHECK(tb.nev == 1, "an arm of a frozen function fired at once (%u events)", tb.nev);
    /* RUN again: the resume scan fires the kept arm (it finds CQEs past its consumer index)
     * before the held CQE is taken; the held CQE is written, nothing was lost */
    send_kind(&tb, (nic_cfg_t){.kind = NIC_CFG_SUSPEND, .fn = 1, .level = NIC_SUSPEND_RUN});
    settle(&tb);
    CHECK(check_slot(&tb, b1, 3, 2, ok_cqe(4)) && tb.st.cqes_written == 5, "held CQE after resume");
    CHECK(tb.nev == 2 && tb.evs[1].kind == NIC_EV_CQ_COMP && tb.evs[1].cq == 16 + 2 && tb.ev_written[1] == 4,
          "kept arm at resume: %u events, the second with %u CQEs written (want 4: before the held one)", tb.nev,
          tb.ev_written[1]);
    tb_end(); tb_free(&tb);
}

static hls_u128 ctx_rw(tb_t *tb, bool wr, unsigned sect, nic_cq_t row, unsigned w, hls_u128 d) {
    unsigned n0 = tb->nev = 0;   /* the event log holds 8 */
    send_kind(tb, (nic_cfg_t){.kind = NIC_CFG_CTX, .fn = (nic_fn_t)(row >> 4), .cq = row, .ctx_write = wr,
                              .ctx_sect = (uint8_t)sect, .ctx_word = (uint8_t)w, .ctx_data = d});
    settle(tb);
    return tb->nev == n0 + 1 && tb->evs[n0].kind == NIC_EV_CTX && tb->evs[n0].fn == row >> 4 ? tb->evs[n0].data : (hls_u128)0xbad;
}
static uint64_t fld(hls_u128 w0, hls_u128 w1, unsigned bit, unsigned width) {
    hls_u128 w = bit >= 128 ? w1 : w0;
    uint64_t v = (uint64_t)(w >> (bit % 128));
    return width >= 64 ? v : v & ((1ull << width) - 1);
}

static void test_ctx(void) {
    tb_begin("cq_writer: NIC_CTX_CQW_CQ read/write (pi, ci, arm, err and the ring), load into another row, dirty bits");
    tb_t tb; tb_init(&tb, 10);
    const uint64_t base = 0x400000, b3 = 0x500000;
    send_cfg(&tb, 16 + 6, 0x36, base, 2, true);
    for (uint32_t i = 0; i < 5; i++) push(&tb.resp, 16 + 6, ok_cqe(i));
    ring(&tb, 1, 0x36, 0);   /* nothing consumed: the 5th overruns a 4-entry ring */
    settle(&tb);
    ring_arm(&tb, 1, 0x36, 3, NIC_ARM_NEXT);
    tb.nev = 0;
    CHECK(ctx_rw(&tb, false, NIC_CTX_DIRTY, 16, 0, 0) == 1u << 6, "dirty bit of slot 6");
    CHECK(ctx_rw(&tb, false, NIC_CTX_DIRTY, 16, 0, 0) == 0, "dirty cleared by the read");
    hls_u128 w0 = ctx_rw(&tb, false, NIC_CTX_CQW_CQ, 16 + 6, 0, 0), w1 = ctx_rw(&tb, false, NIC_CTX_CQW_CQ, 16 + 6, 1, 0);
    CHECK(fld(w0, w1, NIC_CTX_CQW_BASE, 64) == base && fld(w0, w1, NIC_CTX_CQW_PI, 32) == 4 &&
          fld(w0, w1, NIC_CTX_CQW_CQN, 32) == 0x36 && fld(w0, w1, NIC_CTX_CQW_CI, 16) == 3 &&
          fld(w0, w1, NIC_CTX_CQW_LOG, 8) == 2 && fld(w0, w1, NIC_CTX_CQW_VALID, 8) == 1 &&
          fld(w0, w1, NIC_CTX_CQW_ERR, 8) == 1 && fld(w0, w1, NIC_CTX_CQW_ARM, 8) == NIC_ARM_NEXT, "row words");
    CHECK(ctx_rw(&tb, false, NIC_CTX_DIRTY, 16, 0, 0) == 0, "a context read dirtied the row");
    /* load a live (no error) copy into fn 3 slot 6 with its own base: the next CQE lands at pi */
    hls_u128 n0 = (w0 & ~(hls_u128)0xFFFFFFFFFFFFFFFFull) | b3, n1 = w1 & ~((hls_u128)0xFF << (NIC_CTX_CQW_ERR - 128));
    n1 &= ~((hls_u128)0xFF << (NIC_CTX_CQW_ARM - 128));
    CHECK(ctx_rw(&tb, true, NIC_CTX_CQW_CQ, 48 + 6, 0, n0) == n0 && ctx_rw(&tb, true, NIC_CTX_CQW_CQ, 48 + 6, 1, n1) == n1,
          "writes answer with the word written");
    CHECK(ctx_rw(&tb, false, NIC_CTX_CQW_CQ, 48 + 6, 0, 0) == n0 && ctx_rw(&tb, false, NIC_CTX_CQW_CQ, 48 + 6, 1, 0) == n1,
          "read back");
    CHECK(ctx_rw(&tb, false, NIC_CTX_DIRTY, 48, 0, 0) == 1u << 6 && ctx_rw(&tb, false, NIC_CTX_DIRTY, 16, 0, 0) == 0,
          "the write dirtied fn 3's row only");
    push(&tb.comp, 48 + 6, ok_cqe(9));
    settle(&tb);
    CHECK(check_slot(&tb, b3, 2, 4, ok_cqe(9)), "CQE after the load: slot pi mod 4, second-pass owner");
    ring(&tb, 3, 0x36, 5);
    w1 = ctx_rw(&tb, false, NIC_CTX_CQW_CQ, 48 + 6, 1, 0);
    CHECK(fld(0, w1, NIC_CTX_CQW_CI, 16) == 5, "doorbell on the loaded row");
    tb_end(); tb_free(&tb);
}

int main(void) {
    test_layout_rr();
    test_wrap_owner();
    test_overrun();
    test_invalid();
    test_arm();
    test_long_run();
    test_mig_marker();
    test_ctx();
    return tb_exit();
}
