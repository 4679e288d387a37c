/* responder_mig_test.c — the responder's part of live migration (docs/responder.md
 * "Migration"): the stop and its markers on each output, the packets in hand, the resume
 * NAKs (a request the closed gate dropped among their causes), a full save -> fresh responder
 * -> load -> resume, dirty bits, the throttle. Harness:
 * responder_tb.h (every response, CQE and memory byte checked as in responder_test.c). */
#include "responder_tb.h"
#include "nic_ctx.h"

/* ---- markers: taken out of the captured streams, with their position ------------------ */
static int desc_mark = -1, cqe_mark = -1, ev_mark = -1; /* items of the stream before it */
static unsigned n_desc_marks, n_cqe_marks, n_ev_marks;

static void take_markers(void) {
    unsigned j = 0;
    for (unsigned i = 0; i < ndesc; i++) {
        if (descs[i].mig_mark) {
            CHECK(descs[i].mig_mark == NIC_MARK_SRC_RESP && descs[i].mig_fn == FN &&
                      descs[i].payload_len == 0,
                  "tx marker: source %u fn %u payload %u", descs[i].mig_mark, descs[i].mig_fn,
                  (unsigned)descs[i].payload_len);
            desc_mark = (int)j;
            n_desc_marks++;
        } else {
            descs[j++] = descs[i];
        }
    }
    ndesc = j;
    j = 0;
    for (unsigned i = 0; i < ncqe; i++) {
        if (cqes[i].mig_mark) {
            CHECK(cqes[i].cq == (FN << NIC_QP_SLOT_BITS), "cqe marker cq %u", (unsigned)cqes[i].cq);
            cqe_mark = (int)j;
            n_cqe_marks++;
        } else {
            cqes[j++] = cqes[i];
        }
    }
    ncqe = j;
    j = 0;
    for (unsigned i = 0; i < nev; i++) {
        if (evs[i].kind == NIC_EV_MIG_MARK) {
            CHECK(evs[i].fn == FN, "ev marker fn %u", (unsigned)evs[i].fn);
            ev_mark = (int)j;
            n_ev_marks++;
        } else {
            evs[j++] = evs[i];
        }
    }
    nev = j;
}
static void reset_markers(void) {
    desc_mark = cqe_mark = ev_mark = -1;
    n_desc_marks = n_cqe_marks = n_ev_marks = 0;
}

/* The resume NAKs (PSN sequence error) taken out of the captured responses, each checked to
 * follow every READ response of its QP: naks[k] is the one to DEST_QPN + k. */
static roce_hdr_t naks[16];
static unsigned n_naks;
static void take_resume_naks(void) {
    unsigned j = 0;
    memset(naks, 0, sizeof naks);
    n_naks = 0;
    for (unsigned i = 0; i < ndesc; i++) {
        const roce_hdr_t *d = &descs[i];
        if (d->opcode != ROCE_OP_ACKNOWLEDGE || d->aeth_syndrome != 0x60 /* PSN sequence error */) {
            descs[j++] = *d;
            continue;
        }
        unsigned k = (unsigned)d->dest_qp - DEST_QPN;
        unsigned later_reads = 0;
        for (unsigned l = i + 1; l < ndesc; l++)
            later_reads += descs[l].dest_qp == d->dest_qp && descs[l].opcode >= ROCE_OP_READ_RESPONSE_FIRST &&
                           descs[l].opcode <= ROCE_OP_READ_RESPONSE_ONLY;
        CHECK(k < 16 && naks[k].opcode == 0, "resume NAK to qp %x: unknown or twice", (unsigned)d->dest_qp);
        CHECK(later_reads == 0, "resume NAK to qp %x before %u of its READ responses", (unsigned)d->dest_qp,
              later_reads);
        if (k < 16) naks[k] = *d;
        n_naks++;
    }
    ndesc = j;
}

static void cfg_suspend(nic_fn_t fn, unsigned level) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_SUSPEND;
    c.fn = fn;
    c.level = (hls_uint(2))level;
    push_cfg(c);
}

/* rx_dispatch's marker of FN on rx_pkt, behind the packets pushed before it */
static void push_rx_marker(void) {
    nic_rx_pkt_t p;
    memset(&p, 0, sizeof p);
    p.fn = FN;
    p.mig_mark = true;
    pktq[pkt_t++ % QMAX] = p;
}

/* QP row ROW + k of FN: qpn QPN + k, peer DEST_QPN + k (k = 0 is the harness's QP). */
static void cfg_qp_k(unsigned k, unsigned kind, uint8_t prev, uint8_t state, uint8_t pmtu, uint32_t psn) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = (uint8_t)kind;
    c.fn = FN;
    c.qp = (nic_qp_t)(ROW + k);
    c.prev_state = prev;
    c.attr = qp_attr(state, pmtu, ACC_ALL, psn);
    c.attr.qpn = QPN + k;
    c.attr.dest_qpn = DEST_QPN + k;
    c.attr.rq_base = RQ_BASE + 0x1000 * k;
    push_cfg(c);
}
static void bring_up_k(unsigned k, uint8_t pmtu, uint32_t psn) {
    cfg_qp_k(k, NIC_CFG_QP, NIC_QPS_ERR, NIC_QPS_RESET, pmtu, psn);
    cfg_qp_k(k, NIC_CFG_QP, NIC_QPS_RESET, NIC_QPS_INIT, pmtu, psn);
    cfg_qp_k(k, NIC_CFG_QP, NIC_QPS_INIT, NIC_QPS_RTR, pmtu, psn);
}
static roce_hdr_t to_qp(roce_hdr_t h, unsigned k) {
    h.dest_qp = QPN + k;
    return h;
}
static roce_hdr_t write_only(uint32_t psn, uint64_t va, unsigned len, unsigned k) {
    roce_hdr_t w = req(ROCE_OP_RDMA_WRITE_ONLY, psn, true);
    w.reth_va = va;
    w.reth_rkey = KEY_OK;
    w.reth_len = len;
    w.payload_len = (hls_uint(14))len;
    return to_qp(w, k);
}

static uint8_t data[65536 + 64];
static void fresh_read_data(void) {
    fill_random(data, sizeof data);
    hostmem_write(mem, READ_VA, data, sizeof data);
    memcpy(shadow_at(READ_VA), data, sizeof data);
    hostmem_guard_target(mem, READ_VA, sizeof data);
}

/* ---- levels --------------------------------------------------------------------------- */
static void t_stop_mid_read(void) {
    tb_begin("stop mid-READ: at a packet boundary; packets in hand run, one parked behind the READ "
             "dropped; markers after rx_dispatch's; RUN: the rest, then one resume NAK per QP the "
             "peer sent requests to");
    reset_markers();
    reset_qp(3, ACC_ALL, 0xFFFFF8); /* mtu 1024, PSNs wrap during the READ */
    bring_up_k(1, 1, 0x300);
    bring_up_k(2, 1, 0x500);        /* its peer never sends: no resume NAK (it may be in RTR) */
    settle();
    fresh_read_data();
    uint32_t psn = model_epsn;
    push_pkt(read_req(psn, READ_VA, 65536), NULL);
    expect_read(READ_VA, 65536, psn, 1024, ++model_msn);
    run_until_descs(5);
    cfg_suspend(FN, NIC_SUSPEND_PASSIVE);
    CHECK(run_idle(), "not idle");
    uint64_t reads = dma_reads;
    unsigned d0 = st.dropped;
    unsigned k = ndesc;
    /* in hand (they passed the gate before it closed): QP 1's WRITE and atomic run; QP 0 has
     * READ responses left, which wait for RUN, so a WRITE to it is dropped, never parked */
    uint8_t x[40];
    fill_random(x, sizeof x);
    push_pkt(write_only(0x300, MR_BASE + 0x300, 40, 1), x);
    uint64_t orig;
    memcpy(&orig, shadow_at(ATOM_VA + 8), 8);
    roce_hdr_t fa = to_qp(req(ROCE_OP_FETCH_ADD, 0x301, true), 1);
    fa.atomic_va = ATOM_VA + 8;
    fa.atomic_rkey = KEY_OK;
    fa.atomic_swap_add = 1;
    push_pkt(fa, NULL);
    push_pkt(write_only(psn + 64, MR_BASE + 0x400, 40, 0), x);
    push_rx_marker();
    for (unsigned i = 0; i < 3000; i++) cycle();
    take_markers();
    CHECK(n_desc_marks == 1 && n_cqe_marks == 1 && n_ev_marks == 1,
          "markers: %u tx %u cqe %u ev (one each expected)", n_desc_marks, n_cqe_marks, n_ev_marks);
    CHECK(k >= 5 && k < 64 && ndesc == k + 2 && desc_mark == (int)k + 2,
          "%u READ packets before the stop, %u responses, the marker after %d", k, ndesc, desc_mark);
    CHECK(dma_reads == reads + 1, "%llu DMA reads after the stop (the atomic's only)",
          (unsigned long long)(dma_reads - reads));
    CHECK(st.dropped == d0 + 1, "%u dropped after the stop, expected 1", st.dropped - d0);
    model_write(MR_BASE + 0x300, x, 40);
    uint64_t sum = orig + 1;
    model_write(ATOM_VA + 8, (uint8_t *)&sum, 8);
    /* QP 1's ACK and atomic ACK come between the READ's k-th and k+1-th packets */
    unsigned base = nexp - 64;
    memmove(&exp_desc[base + k + 2], &exp_desc[base + k], (64 - k) * sizeof exp_desc[0]);
    memmove(&exp_pay[base + k + 2], &exp_pay[base + k], (64 - k) * sizeof exp_pay[0]);
    nexp += 2;
    roce_hdr_t ack = resp_base(ROCE_OP_ACKNOWLEDGE, 0x300);
    ack.aeth_syndrome = 0x1F;
    ack.aeth_msn = 1;
    ack.dest_qp = DEST_QPN + 1;
    exp_desc[base + k] = ack;
    exp_pay[base + k] = NULL;
    roce_hdr_t aack = resp_base(ROCE_OP_ATOMIC_ACKNOWLEDGE, 0x301);
    aack.aeth_syndrome = 0x1F;
    aack.aeth_msn = 2;
    aack.atomic_orig = orig;
    aack.dest_qp = DEST_QPN + 1;
    exp_desc[base + k + 1] = aack;
    exp_pay[base + k + 1] = NULL;
    cfg_suspend(FN, NIC_SUSPEND_RUN); /* the rest, PSNs and bytes continuous */
    CHECK(run_idle(), "not idle");
    take_resume_naks();
    CHECK(n_naks == 2 && (naks[0].psn == ((psn + 64) & 0xFFFFFF)) && naks[0].aeth_msn == model_msn &&
              naks[1].psn == 0x302 && naks[1].aeth_msn == 2,
          "%u resume NAKs: QP 0 psn %x msn %u, QP 1 psn %x msn %u (want 2: %x %u, 302 2)", n_naks,
          (unsigned)naks[0].psn, (unsigned)naks[0].aeth_msn, (unsigned)naks[1].psn,
          (unsigned)naks[1].aeth_msn, (psn + 64) & 0xFFFFFF, model_msn);
    settle();
    /* after the NAK, a request past the expected PSN is dropped quietly (9.7.5.1.2) until the
     * expected one comes */
    d0 = st.dropped;
    push_pkt(write_only(psn + 65, MR_BASE + 0x400, 40, 0), x);
    push_pkt(write_only(psn + 64, MR_BASE + 0x400, 40, 0), x);
    model_write(MR_BASE + 0x400, x, 40);
    expect_ack(psn + 64, 0x1F, ++model_msn);
    settle();
    CHECK(st.dropped == d0 + 1, "%u dropped behind the resume NAK, expected 1", st.dropped - d0);
    CHECK(run_idle(), "not idle");
    take_markers();
    CHECK(n_desc_marks == 1, "%u tx markers", n_desc_marks);
    cfg_qp_k(1, NIC_CFG_QP, NIC_QPS_RTR, NIC_QPS_RESET, 1, 0);
    cfg_qp_k(2, NIC_CFG_QP, NIC_QPS_RTR, NIC_QPS_RESET, 1, 0);
    settle();
    model_epsn = psn + 65;
    tb_end();
}

static void t_passive(void) {
    tb_begin("PASSIVE: markers behind the last packet on tx, cqe, ev; nothing of fn after; "
             "another function unaffected");
    reset_markers();
    reset_qp(1, ACC_ALL, 0x400);
    post_recv(0x5E1, BUF_BASE + 0x100, 300);
    settle();
    /* function 2's QP answers a READ all along */
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_QP;
    c.fn = 2;
    c.qp = (2 << NIC_QP_SLOT_BITS) | 3;
    c.prev_state = NIC_QPS_INIT;
    c.attr = qp_attr(NIC_QPS_RTR, 1, ACC_ALL, 0x77);
    c.attr.qpn = 0x93;
    c.attr.dest_qpn = 0x999;
    push_cfg(c);
    nic_cfg_t m;
    memset(&m, 0, sizeof m);
    m.kind = NIC_CFG_MR;
    m.fn = 2;
    m.mr = (2 << NIC_MR_SLOT_BITS) | ((KEY_OK >> 8) & 63);
    m.key = KEY_OK;
    m.pd = PD;
    m.base = MR_BASE;
    m.len = MR_LEN;
    m.access = ACC_ALL;
    m.valid = true;
    push_cfg(m);
    settle();
    fresh_read_data();
    roce_hdr_t r2 = read_req(0x77, READ_VA, 16384);
    r2.dest_qp = 0x93;
    pktq[pkt_t % QMAX].hdr = r2;
    pktq[pkt_t % QMAX].fn = 2;
    pktq[pkt_t++ % QMAX].mig_mark = false;
    run_until_descs(3);
    unsigned other0 = ndesc;

    cfg_suspend(FN, NIC_SUSPEND_PASSIVE);
    uint8_t x[200];
    fill_random(x, sizeof x);
    roce_hdr_t s = req(ROCE_OP_SEND_ONLY, model_epsn, true);
    s.payload_len = 200;
    push_pkt(s, x); /* in hand, ahead of rx_dispatch's marker: CQE and ACK before ours */
    push_rx_marker();
    CHECK(run_idle(), "not idle");
    post_recv(0x5E2, BUF_BASE + 0x400, 64); /* PASSIVE: the tail is recorded, nothing else */
    for (unsigned i = 0; i < 2000; i++) cycle();
    take_markers();
    /* the other function's 64 packets all came out; ours: the ACK, then the marker */
    unsigned ours = 0, ours_after = 0;
    for (unsigned i = 0; i < ndesc; i++)
        if (descs[i].dest_qp == DEST_QPN) ours++, ours_after += (int)i >= desc_mark;
    CHECK(n_desc_marks == 1 && n_cqe_marks == 1 && n_ev_marks == 1,
          "markers: %u tx %u cqe %u ev (one each expected)", n_desc_marks, n_cqe_marks, n_ev_marks);
    CHECK(ours == 1 && ours_after == 0, "%u responses of fn, %u after its marker", ours, ours_after);
    CHECK(ncqe == 1 && cqe_mark == 1, "%u CQEs, the marker after %d", ncqe, cqe_mark);
    CHECK(ev_mark == 0 && nev == 0, "events: %u, marker after %d", nev, ev_mark);
    CHECK(ndesc - ours == 64 && other0 < 64, "function 2: %u packets, %u before the suspend",
          ndesc - ours, other0);
    CHECK(row().rq_tail == 2 && row().rq_head == 1, "PASSIVE doorbell: head %u tail %u",
          row().rq_head, row().rq_tail);
    /* settle's expectations: the other function's packets, ours, the CQE */
    unsigned io = 0;
    roce_hdr_t ours_d = descs[0];
    for (unsigned i = 0; i < ndesc; i++)
        if (descs[i].dest_qp == DEST_QPN) ours_d = descs[i];
        else descs[io++] = descs[i];
    descs[io] = ours_d;
    expect_read(READ_VA, 16384, 0x77, 256, 1);
    for (unsigned i = 0; i < 64; i++) /* function 2 has no addresses configured */
        exp_desc[i].dest_qp = 0x999, exp_desc[i].src_mac = 0, exp_desc[i].src_ip = 0;
    model_write(BUF_BASE + 0x100, x, 200);
    expect_ack(model_epsn, 0x1F, ++model_msn);
    expect_cqe(0x5E1, 200, NIC_WC_RECV, NIC_WC_SUCCESS, false, 0);
    model_epsn++;
    settle();
    /* RUN: the function works again, its QP NAKs once (function 2's does not) */
    cfg_suspend(FN, NIC_SUSPEND_RUN);
    s.psn = model_epsn;
    s.payload_len = 64;
    push_pkt(s, x);
    model_write(BUF_BASE + 0x400, x, 64);
    expect_ack(model_epsn++, 0x1F, ++model_msn);
    expect_cqe(0x5E2, 64, NIC_WC_RECV, NIC_WC_SUCCESS, false, 0);
    CHECK(run_idle(), "not idle");
    take_resume_naks();
    /* the NAK names the expected PSN when it leaves: before the SEND or after it */
    CHECK(n_naks == 1 && naks[0].psn >= ((model_epsn - 1) & 0xFFFFFF) &&
              naks[0].psn <= (model_epsn & 0xFFFFFF) && naks[0].dst_mac == PEER_MAC && naks[0].src_mac == FN_MAC,
          "%u resume NAKs, QP 0's psn %x (want 1, %x or %x)", n_naks, (unsigned)naks[0].psn,
          model_epsn - 1, model_epsn);
    settle();
    tb_end();
}

/* ---- context port ------------------------------------------------------------------------ */
/* One NIC_CFG_CTX job: its NIC_EV_CTX answer's data (taken out of the captured events). */
static hls_u128 ctx_op(unsigned row, unsigned sect, unsigned word, bool write, hls_u128 d) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_CTX;
    c.fn = FN;
    c.qp = (nic_qp_t)row;
    c.ctx_sect = (uint8_t)sect;
    c.ctx_word = (uint8_t)word;
    c.ctx_write = write;
    c.ctx_data = d;
    if (sect == NIC_CTX_DIRTY) c.key = NIC_CTX_RESP_QP;
    push_cfg(c);
    unsigned n0 = nev;
    for (unsigned i = 0; i < 10000 && nev == n0; i++) cycle();
    CHECK(nev == n0 + 1 && evs[n0].kind == NIC_EV_CTX && evs[n0].fn == FN,
          "context answer: %u events, kind %u", nev - n0, nev > n0 ? evs[n0].kind : 0);
    hls_u128 r = nev > n0 ? evs[n0].data : 0;
    nev = n0;
    return r;
}
static unsigned field(hls_u128 d, unsigned bit, unsigned width) {
    return (unsigned)((d >> bit) & (((hls_u128)1 << width) - 1));
}

/* Responses of a READ from its k-th packet on. */
static void expect_read_from(uint64_t va, uint32_t len, uint32_t psn, uint32_t mtu, uint32_t msn,
                             unsigned k) {
    unsigned base = nexp;
    expect_read(va, len, psn, mtu, msn);
    memmove(&exp_desc[base], &exp_desc[base + k], (nexp - base - k) * sizeof exp_desc[0]);
    memmove(&exp_pay[base], &exp_pay[base + k], (nexp - base - k) * sizeof exp_pay[0]);
    nexp -= k;
}

#define RQ2 (RQ_BASE + 0x2000) /* QP 2's RQ ring (cfg_qp_k: RQ_BASE + 0x1000 k) */

static void t_save_load(void) {
    tb_begin("save (CTX reads) -> fresh responder -> QP_ATTR + CTX writes -> RUN: READ, open "
             "WRITE and open SEND continue byte-exact; duplicate atomic from the loaded cache");
    reset_markers();
    reset_qp(1, ACC_ALL, 0x600);
    bring_up_k(1, 1, 0x900);
    bring_up_k(2, 1, 0xA00);
    settle();
    fresh_read_data();
    /* QP 0: an atomic, then a READ being answered with a second queued behind it */
    uint64_t orig;
    memcpy(&orig, shadow_at(ATOM_VA + 16), 8);
    roce_hdr_t fa = req(ROCE_OP_FETCH_ADD, 0x600, true);
    fa.atomic_va = ATOM_VA + 16;
    fa.atomic_rkey = KEY_OK;
    fa.atomic_swap_add = 0x1001;
    push_pkt(fa, NULL);
    uint64_t sum = orig + 0x1001;
    model_write(ATOM_VA + 16, (uint8_t *)&sum, 8);
    expect_atomic_ack(0x600, ++model_msn, orig);
    settle();
    uint32_t msn_read = ++model_msn;
    push_pkt(read_req(0x601, READ_VA, 16384), NULL);
    push_pkt(read_req(0x641, READ_VA + 20000, 512), NULL);
    run_until_descs(5);
    cfg_suspend(FN, NIC_SUSPEND_PASSIVE);
    CHECK(run_idle(), "not idle");
    unsigned k = ndesc;
    expect_read_prefix(READ_VA, 16384, 0x601, 256, msn_read, k);
    /* QP 1: WRITE FIRST of 768 bytes (open WRITE); QP 2: SEND FIRST (open SEND) */
    uint8_t w[768], s[356];
    fill_random(w, sizeof w);
    fill_random(s, sizeof s);
    roce_hdr_t wf = to_qp(req(ROCE_OP_RDMA_WRITE_FIRST, 0x900, false), 1);
    wf.reth_va = MR_BASE + 0x1003;
    wf.reth_rkey = KEY_OK;
    wf.reth_len = 768;
    wf.payload_len = 256;
    push_pkt(wf, w);
    model_write(MR_BASE + 0x1003, w, 256);
    nic_rq_wqe_t wqe = {0x5E2D, BUF_BASE + 0x800, 1000, KEY_BUF, 0};
    hostmem_write(mem, RQ2, &wqe, sizeof wqe);
    nic_db_t db = {.fn = FN, .num = QPN + 2, .index = 1};
    dbq[db_t++ % 64] = db;
    roce_hdr_t sf = to_qp(req(ROCE_OP_SEND_FIRST, 0xA00, false), 2);
    sf.payload_len = 256;
    push_pkt(sf, s);
    model_write(BUF_BASE + 0x800, s, 256);
    push_rx_marker();
    CHECK(run_idle(), "not idle");
    take_markers();
    CHECK(n_desc_marks == 1 && n_cqe_marks == 1 && n_ev_marks == 1, "markers %u %u %u",
          n_desc_marks, n_cqe_marks, n_ev_marks);
    settle();

    /* save */
    hls_u128 img[3][2 + RSP_ATOM_SLOTS];
    for (unsigned q = 0; q < 3; q++)
        for (unsigned i = 0; i < 2 + RSP_ATOM_SLOTS; i++)
            img[q][i] = ctx_op(ROW + q, i < 2 ? NIC_CTX_RESP_QP : NIC_CTX_RESP_ATOM, i < 2 ? i : i - 2,
                               false, 0);
    hls_u128 q0 = img[0][0], q0p = img[0][1];
    CHECK(field(q0, NIC_CTX_RSP_EPSN, 24) == 0x641 && field(q0, NIC_CTX_RSP_MSN, 24) == msn_read,
          "QP 0 image: epsn %x msn %u (the queued READ left out: 641, %u)",
          field(q0, NIC_CTX_RSP_EPSN, 24), field(q0, NIC_CTX_RSP_MSN, 24), msn_read);
    CHECK(field(q0, NIC_CTX_RSP_POS_CLASS, 2) == NIC_CTX_RSP_POS_READ &&
              field(q0, NIC_CTX_RSP_RD_STARTED, 1) == 1 &&
              field(q0, NIC_CTX_RSP_RD_PSN, 24) == 0x601 + k &&
              (uint64_t)q0p == READ_VA + 256ull * k &&
              field(q0p, NIC_CTX_RSP_POS_LEFT - 128, 32) == 16384 - 256 * k &&
              field(q0, NIC_CTX_RSP_REPLAY_FILL, 3) == 1,
          "QP 0 READ position: class %u psn %x va %llx left %u fill %u after %u packets",
          field(q0, NIC_CTX_RSP_POS_CLASS, 2), field(q0, NIC_CTX_RSP_RD_PSN, 24),
          (unsigned long long)(uint64_t)q0p, field(q0p, 64, 32), field(q0, NIC_CTX_RSP_REPLAY_FILL, 3), k);
    CHECK((uint64_t)img[0][2] == orig && field(img[0][2], NIC_CTX_RSP_ATOM_PSN, 24) == 0x600,
          "replay slot 0: %llx psn %x", (unsigned long long)(uint64_t)img[0][2],
          field(img[0][2], NIC_CTX_RSP_ATOM_PSN, 24));
    CHECK(field(img[1][0], NIC_CTX_RSP_POS_CLASS, 2) == NIC_CTX_RSP_POS_WRITE &&
              field(img[1][1], NIC_CTX_RSP_POS_DONE - 128, 32) == 256 &&
              field(img[1][1], NIC_CTX_RSP_POS_LEFT - 128, 32) == 512,
          "QP 1 open WRITE: class %u done %u left %u", field(img[1][0], NIC_CTX_RSP_POS_CLASS, 2),
          field(img[1][1], 96, 32), field(img[1][1], 64, 32));
    CHECK(field(img[2][0], NIC_CTX_RSP_POS_CLASS, 2) == NIC_CTX_RSP_POS_SEND &&
              field(img[2][1], NIC_CTX_RSP_POS_DONE - 128, 32) == 256 &&
              field(img[2][0], NIC_CTX_RSP_RQ_HEAD, 16) == 1,
          "QP 2 open SEND: class %u done %u rq_head %u", field(img[2][0], NIC_CTX_RSP_POS_CLASS, 2),
          field(img[2][1], 96, 32), field(img[2][0], NIC_CTX_RSP_RQ_HEAD, 16));

    /* a fresh responder; ctrl's messages as the firmware's load makes them */
    memset(&st, 0, sizeof st);
    tb_setup_fn_mrs();
    cfg_suspend(FN, NIC_SUSPEND_PASSIVE);
    for (unsigned q = 0; q < 3; q++) {
        cfg_qp_k(q, NIC_CFG_QP_ATTR, NIC_QPS_RTS, NIC_QPS_RTS, 1, 0);
        if (q == 0) cfgq[(cfg_t - 1) % 64].attr.rq_base = RQ_BASE;
    }
    CHECK(run_idle(), "not idle");
    reset_markers();
    take_markers();
    CHECK(n_desc_marks + n_cqe_marks + n_ev_marks == 0, "markers without rx_dispatch's");
    for (unsigned q = 0; q < 3; q++)
        for (unsigned i = 2 + RSP_ATOM_SLOTS; i-- > 0;) /* any order: backwards */
            CHECK(ctx_op(ROW + q, i < 2 ? NIC_CTX_RESP_QP : NIC_CTX_RESP_ATOM, i < 2 ? i : i - 2,
                         true, img[q][i]) == img[q][i], "write answer of QP %u word %u", q, i);
    for (unsigned q = 0; q < 3; q++)
        for (unsigned i = 0; i < 2 + RSP_ATOM_SLOTS; i++)
            CHECK(ctx_op(ROW + q, i < 2 ? NIC_CTX_RESP_QP : NIC_CTX_RESP_ATOM, i < 2 ? i : i - 2,
                         false, 0) == img[q][i], "QP %u word %u reads back differently", q, i);
    cfg_suspend(FN, NIC_SUSPEND_RUN);
    expect_read_from(READ_VA, 16384, 0x601, 256, msn_read, k);
    CHECK(run_idle(), "not idle");
    take_resume_naks(); /* the loaded EPSNs: QP 0 behind the READ left out */
    CHECK(n_naks == 3 && naks[0].psn == 0x641 && naks[1].psn == 0x901 && naks[2].psn == 0xA01,
          "%u resume NAKs: %x %x %x (want 641 901 A01)", n_naks, (unsigned)naks[0].psn,
          (unsigned)naks[1].psn, (unsigned)naks[2].psn);
    settle();
    /* the requester's peers go on: the left-out READ again (new here), the WRITE's and the
     * SEND's remaining packets, and a retry of the atomic */
    push_pkt(read_req(0x641, READ_VA + 20000, 512), NULL);
    expect_read(READ_VA + 20000, 512, 0x641, 256, ++model_msn);
    roce_hdr_t wm = to_qp(req(ROCE_OP_RDMA_WRITE_MIDDLE, 0x901, false), 1);
    wm.payload_len = 256;
    push_pkt(wm, w + 256);
    roce_hdr_t wl = to_qp(req(ROCE_OP_RDMA_WRITE_LAST, 0x902, true), 1);
    wl.payload_len = 256;
    push_pkt(wl, w + 512);
    model_write(MR_BASE + 0x1003 + 256, w + 256, 512);
    expect_ack(0x902, 0x1F, 1);
    exp_desc[nexp - 1].dest_qp = DEST_QPN + 1;
    roce_hdr_t sl = to_qp(req(ROCE_OP_SEND_LAST, 0xA01, true), 2);
    sl.payload_len = 100;
    push_pkt(sl, s + 256);
    model_write(BUF_BASE + 0x800 + 256, s + 256, 100);
    expect_ack(0xA01, 0x1F, 1);
    exp_desc[nexp - 1].dest_qp = DEST_QPN + 2;
    expect_cqe(0x5E2D, 356, NIC_WC_RECV, NIC_WC_SUCCESS, false, 0);
    exp_cqe[nexp_cqe - 1].cqe.qpn = QPN + 2;
    push_pkt(fa, NULL); /* duplicate: answered from the loaded replay slot, not executed */
    expect_atomic_ack(0x600, model_msn, orig);
    settle();
    cfg_qp_k(1, NIC_CFG_QP, NIC_QPS_RTS, NIC_QPS_RESET, 1, 0);
    cfg_qp_k(2, NIC_CFG_QP, NIC_QPS_RTS, NIC_QPS_RESET, 1, 0);
    settle();
    model_epsn = 0x643;
    tb_end();
}

/* A go-back-N round of duplicate READs queued while a WRITE behind them is open: the image
 * keeps EPSN, MSN and the open WRITE (the WRITE was accepted after the READs first ran; taking
 * EPSN back to the queued duplicate would make the destination refuse the WRITE's next packet
 * or run the READ as a new one inside an open WRITE: seed 111 of the lossy sweep). */
static void t_save_duplicate_round(void) {
    tb_begin("save with a duplicate READ round queued behind an open WRITE: EPSN, MSN and the "
             "WRITE kept");
    reset_markers();
    reset_qp(1, ACC_ALL, 0xB00);
    settle();
    fresh_read_data();
    uint32_t psn = model_epsn;
    push_pkt(read_req(psn, READ_VA, 4096), NULL);
    expect_read(READ_VA, 4096, psn, 256, ++model_msn);
    push_pkt(read_req(psn + 16, READ_VA + 8192, 256), NULL);
    expect_read(READ_VA + 8192, 256, psn + 16, 256, ++model_msn);
    CHECK(run_idle(), "not idle");
    uint8_t w[768];
    fill_random(w, sizeof w);
    roce_hdr_t wf = req(ROCE_OP_RDMA_WRITE_FIRST, psn + 17, false);
    wf.reth_va = MR_BASE + 0x2000;
    wf.reth_rkey = KEY_OK;
    wf.reth_len = 768;
    wf.payload_len = 256;
    push_pkt(wf, w);
    model_write(MR_BASE + 0x2000, w, 256);
    CHECK(run_idle(), "not idle");
    /* the requester lost responses from the 4th on: it asks for both READs again */
    push_pkt(read_req(psn + 3, READ_VA + 768, 4096 - 768), NULL);
    push_pkt(read_req(psn + 16, READ_VA + 8192, 256), NULL);
    expect_read(READ_VA + 768, 4096 - 768, psn + 3, 256, model_msn);
    expect_read(READ_VA + 8192, 256, psn + 16, 256, model_msn);
    run_until_descs(ndesc + 3);         /* both taken */
    cfg_suspend(FN, NIC_SUSPEND_PASSIVE);
    push_rx_marker();
    CHECK(run_idle(), "not idle");
    take_markers();
    CHECK(row().epsn == psn + 18, "epsn %x, want %x", row().epsn, psn + 18);
    hls_u128 q0 = ctx_op(ROW, NIC_CTX_RESP_QP, 0, false, 0);
    hls_u128 q1 = ctx_op(ROW, NIC_CTX_RESP_QP, 1, false, 0);
    CHECK(field(q0, NIC_CTX_RSP_EPSN, 24) == psn + 18 && field(q0, NIC_CTX_RSP_MSN, 24) == model_msn,
          "image epsn %x msn %u, want %x %u (the duplicates do not take them back)",
          field(q0, NIC_CTX_RSP_EPSN, 24), field(q0, NIC_CTX_RSP_MSN, 24), psn + 18, model_msn);
    CHECK(field(q0, NIC_CTX_RSP_POS_CLASS, 2) == NIC_CTX_RSP_POS_WRITE &&
              field(q1, NIC_CTX_RSP_POS_DONE - 128, 32) == 256 &&
              field(q1, NIC_CTX_RSP_POS_LEFT - 128, 32) == 512,
          "open WRITE: class %u done %u left %u", field(q0, NIC_CTX_RSP_POS_CLASS, 2),
          field(q1, NIC_CTX_RSP_POS_DONE - 128, 32), field(q1, NIC_CTX_RSP_POS_LEFT - 128, 32));
    cfg_suspend(FN, NIC_SUSPEND_RUN);     /* the duplicates' rest, then the WRITE goes on */
    roce_hdr_t wm = req(ROCE_OP_RDMA_WRITE_MIDDLE, psn + 18, false);
    wm.payload_len = 256;
    push_pkt(wm, w + 256);
    roce_hdr_t wl = req(ROCE_OP_RDMA_WRITE_LAST, psn + 19, true);
    wl.payload_len = 256;
    push_pkt(wl, w + 512);
    model_write(MR_BASE + 0x2000 + 256, w + 256, 512);
    expect_ack(psn + 19, 0x1F, ++model_msn);
    CHECK(run_idle(), "not idle");
    take_resume_naks(); /* its PSN: where the WRITE was when the READs were out */
    CHECK(n_naks == 1 && naks[0].psn >= psn + 18 && naks[0].psn <= psn + 20, "%u resume NAKs, psn %x",
          n_naks, (unsigned)naks[0].psn);
    settle();
    model_epsn = psn + 20;
    tb_end();
}

static void t_dirty(void) {
    tb_begin("dirty bits: every row write sets its QP's bit; NIC_CTX_DIRTY reads and clears 16");
    ctx_op(0, NIC_CTX_DIRTY, 0, false, 0);
    CHECK(ctx_op(0, NIC_CTX_DIRTY, 0, false, 0) == 0, "not cleared by the read");
    ctx_op(ROW + 1, NIC_CTX_RESP_QP, 0, false, 0); /* a read writes nothing */
    uint8_t x[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    push_pkt(write_only(model_epsn, MR_BASE + 0x2000, 8, 0), x);
    model_write(MR_BASE + 0x2000, x, 8);
    expect_ack(model_epsn++, 0x1F, ++model_msn);
    settle();
    hls_u128 d = ctx_op(0, NIC_CTX_DIRTY, 0, false, 0);
    CHECK(d == (hls_u128)1 << (QPN & 15), "dirty %llx, expected bit %u only", (unsigned long long)d,
          QPN & 15);
    CHECK(ctx_op(0, NIC_CTX_DIRTY, 0, false, 0) == 0, "second read not 0");
    tb_end();
}

/* ---- a request the closed gate dropped ------------------------------------------------ */
/* rx_dispatch's header of a request it dropped for the stopped function (no beats) */
static void push_gated(roce_hdr_t h) {
    nic_rx_pkt_t p;
    memset(&p, 0, sizeof p);
    p.hdr = h;
    p.hdr.payload_len = 0;
    p.fn = FN;
    p.gated = true;
    pktq[pkt_t++ % QMAX] = p;
}

static void t_gated_first_requests(void) {
    tb_begin("a request the closed gate dropped, the peer's first: nothing executed or sent while "
             "stopped; RUN: that QP NAKs its expected PSN, a QP whose peer sent nothing does not, "
             "a header for no QP of ours changes nothing");
    reset_markers();
    bring_up_k(1, 1, 0x700);
    bring_up_k(2, 1, 0x800);
    settle();
    cfg_suspend(FN, NIC_SUSPEND_PASSIVE);
    push_rx_marker();
    CHECK(run_idle(), "not idle");
    unsigned k = ndesc, d0 = st.dropped;
    uint64_t reads = dma_reads;
    push_gated(write_only(0x700, MR_BASE + 0x700, 40, 1));   /* QP 1's peer: its first request */
    push_gated(write_only(0x701, MR_BASE + 0x740, 40, 1));
    roce_hdr_t stray = write_only(0x900, MR_BASE, 40, 3);     /* row 3: no QP */
    push_gated(stray);
    for (unsigned i = 0; i < 500; i++) cycle();
    CHECK(ndesc == k && dma_reads == reads && st.dropped == d0, "while stopped: %u responses (want none), "
          "%llu DMA reads, %u dropped", ndesc - k, (unsigned long long)(dma_reads - reads), st.dropped - d0);
    cfg_suspend(FN, NIC_SUSPEND_RUN);
    CHECK(run_idle(), "not idle");
    take_markers();
    take_resume_naks();
    /* QP 0's peer sent requests in the tests before: it NAKs too */
    CHECK(n_naks == 2 && naks[0].opcode && naks[1].psn == 0x700 && !naks[2].opcode,
          "%u resume NAKs, QP 1's psn %x, QP 2 %s (want 2: QP 0, QP 1 at 700, none from QP 2)", n_naks,
          (unsigned)naks[1].psn, naks[2].opcode ? "NAKed" : "quiet");
    cfg_qp_k(1, NIC_CFG_QP, NIC_QPS_RTR, NIC_QPS_RESET, 1, 0);
    cfg_qp_k(2, NIC_CFG_QP, NIC_QPS_RTR, NIC_QPS_RESET, 1, 0);
    settle();
    tb_end();
}

/* ---- throttle ---------------------------------------------------------------------------- */
static void cfg_throttle(uint32_t rate) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_THROTTLE;
    c.fn = FN;
    c.rate = rate;
    push_cfg(c);
}

/* Bytes of 256-byte WRITEs executed per 1024 cycles with the bucket at rate (8 windows,
 * after the first), the peer offering more than that all along. */
static double throttled(uint32_t rate) {
    static uint8_t x[256];
    fill_random(x, sizeof x);
    cfg_throttle(rate);
    for (unsigned i = 0; i < 1200; i++) {
        push_pkt(write_only(model_epsn, MR_BASE + 0x3000, 256, 0), x);
        expect_ack(model_epsn++, 0x1F, ++model_msn);
    }
    model_write(MR_BASE + 0x3000, x, 256);
    for (unsigned i = 0; i < 1024; i++) cycle();
    unsigned a0 = ndesc;
    for (unsigned i = 0; i < 8 * 1024; i++) cycle();
    double per = (ndesc - a0) * 256.0 / 8;
    cfg_throttle(0);
    settle();
    return per;
}

static void t_throttle(void) {
    tb_begin("throttle: bytes written per 1024 cycles follow the rate; 0 = off");
    double saved_r = p_ready, saved_o = p_offer;
    p_ready = p_offer = 1.0;
    double r1 = throttled(2048), r2 = throttled(8192), off = throttled(0);
    printf("     (bytes per 1024 cycles: rate 2048 -> %.0f, rate 8192 -> %.0f, off -> %.0f)\n", r1,
           r2, off);
    CHECK(r1 >= 2048 - 64 && r1 <= 2048 + 64, "rate 2048: %.0f bytes per 1024 cycles", r1);
    CHECK(r2 >= 8192 - 64 && r2 <= 8192 + 64, "rate 8192: %.0f bytes per 1024 cycles", r2);
    CHECK(off > 2 * 8192, "off: %.0f bytes per 1024 cycles", off); /* link-limited */
    p_ready = saved_r;
    p_offer = saved_o;
    tb_end();
}

int main(int argc, char **argv) {
    tb_setup(argc, argv);
    t_stop_mid_read();
    t_passive();
    t_save_load();
    t_save_duplicate_round();
    t_dirty();
    t_gated_first_requests();
    t_throttle();
    printf("%llu cycles, %u acks, %u naks, %u dropped\n", (unsigned long long)cycles, st.acks_sent,
           st.naks_sent, st.dropped);
    hostmem_free(mem);
    return tb_exit();
}
