/* responder_test.c — the responder's protocol scenarios (docs/responder.md "Tests"): SEND,
 * WRITE, READ, atomics, duplicates, sequence errors, RNR, violations, READ queue, quiesce,
 * throughput; the harness is responder_tb.h. */
#include "responder_tb.h"

/* ---- scenarios ----------------------------------------------------------------------------- */
static uint8_t pay[70000];

static void t_send(uint8_t pmtu) {
    uint32_t mtu = 128u << pmtu;
    char name[64];
    snprintf(name, sizeof name, "SEND only/imm/multi-packet, ACK coalescing, mtu %u", mtu);
    tb_begin(name);
    reset_qp(pmtu, ACC_ALL, 0xFFFFFE); /* PSNs wrap through 0 */
    uint32_t psn = model_epsn;
    /* SEND_ONLY_IMM 100 bytes, AckReq */
    uint64_t b1 = BUF_BASE + 0x10 + pmtu, b2 = BUF_BASE + 0x4003;
    post_recv(0x1111, b1, 200);
    post_recv(0x2222, b2, 3 * mtu);
    settle();
    fill_random(pay, 100);
    roce_hdr_t h = req(ROCE_OP_SEND_ONLY_IMM, psn, true);
    h.payload_len = 100;
    h.imm = 0xdeadbeef;
    push_pkt(h, pay);
    model_write(b1, pay, 100);
    model_msn++;
    expect_cqe(0x1111, 100, NIC_WC_RECV, NIC_WC_SUCCESS, true, 0xdeadbeef);
    expect_ack(psn, 0x1F, model_msn);
    psn++;
    /* FIRST(mtu) MIDDLE(mtu) LAST(77): only the LAST asks for an ACK */
    fill_random(pay, 2 * mtu + 77);
    for (int i = 0; i < 3; i++) {
        roce_hdr_t m = req(i == 0 ? ROCE_OP_SEND_FIRST : i == 1 ? ROCE_OP_SEND_MIDDLE : ROCE_OP_SEND_LAST,
                           psn + i, i == 2);
        m.payload_len = (hls_uint(14))(i == 2 ? 77 : mtu);
        push_pkt(m, pay + i * mtu);
    }
    model_write(b2, pay, 2 * mtu + 77);
    model_msn++;
    expect_cqe(0x2222, 2 * mtu + 77, NIC_WC_RECV, NIC_WC_SUCCESS, false, 0);
    expect_ack(psn + 2, 0x1F, model_msn);
    psn += 3;
    settle();
    rsp_qpc_t r = row();
    CHECK(r.epsn == (psn & 0xFFFFFF) && r.msn == model_msn && r.rq_head == 2, "epsn %x msn %u head %u",
          r.epsn, r.msn, r.rq_head);
    model_epsn = psn;
    tb_end();
}

static void t_write(uint8_t pmtu) {
    uint32_t mtu = 128u << pmtu;
    char name[80];
    snprintf(name, sizeof name, "WRITE first/middle/last, only, only_imm, zero-length, mtu %u", mtu);
    tb_begin(name);
    reset_qp(pmtu, ACC_ALL, 0x100);
    uint32_t psn = model_epsn;
    uint64_t va = MR_BASE + 0x1003 + pmtu;
    uint32_t len = 2 * mtu + 5;
    fill_random(pay, len);
    for (int i = 0; i < 3; i++) {
        roce_hdr_t m = req(i == 0 ? ROCE_OP_RDMA_WRITE_FIRST : i == 1 ? ROCE_OP_RDMA_WRITE_MIDDLE
                                                                     : ROCE_OP_RDMA_WRITE_LAST,
                           psn + i, i >= 1);
        if (i == 0) m.reth_va = va, m.reth_rkey = KEY_OK, m.reth_len = len;
        m.payload_len = (hls_uint(14))(i == 2 ? 5 : mtu);
        push_pkt(m, pay + i * mtu);
    }
    model_write(va, pay, len);
    expect_ack(psn + 1, 0x1F, model_msn);       /* MIDDLE: message still open */
    expect_ack(psn + 2, 0x1F, ++model_msn);
    psn += 3;
    /* WRITE_ONLY without AckReq: no ACK of its own (coalesced into the next) */
    roce_hdr_t o = req(ROCE_OP_RDMA_WRITE_ONLY, psn++, false);
    o.reth_va = MR_BASE + 0x3000;
    o.reth_rkey = KEY_OK;
    o.reth_len = o.payload_len = 64;
    fill_random(pay, 64);
    push_pkt(o, pay);
    model_write(MR_BASE + 0x3000, pay, 64);
    model_msn++;
    /* WRITE_ONLY_IMM consumes an RQ WQE */
    post_recv(0x3333, BUF_BASE, 16);
    roce_hdr_t w = req(ROCE_OP_RDMA_WRITE_ONLY_IMM, psn, true);
    w.reth_va = MR_BASE + 0x3101;
    w.reth_rkey = KEY_OK;
    w.reth_len = w.payload_len = 9;
    w.imm = 0x01020304;
    fill_random(pay, 9);
    push_pkt(w, pay);
    model_write(MR_BASE + 0x3101, pay, 9);
    expect_cqe(0x3333, 9, NIC_WC_RECV_RDMA_WITH_IMM, NIC_WC_SUCCESS, true, 0x01020304);
    expect_ack(psn++, 0x1F, ++model_msn);
    /* zero-length WRITE: no rkey check (9.7.4.1.5), ACKed */
    roce_hdr_t z = req(ROCE_OP_RDMA_WRITE_ONLY, psn, true);
    z.reth_rkey = 0x9999;
    push_pkt(z, NULL);
    expect_ack(psn++, 0x1F, ++model_msn);
    /* WRITE FIRST / LAST_IMM: the WQE is taken at the LAST_IMM */
    post_recv(0x4444, BUF_BASE, 16);
    fill_random(pay, mtu + 1);
    roce_hdr_t f = req(ROCE_OP_RDMA_WRITE_FIRST, psn, false);
    f.reth_va = MR_BASE + 0x5000;
    f.reth_rkey = KEY_OK;
    f.reth_len = mtu + 1;
    f.payload_len = (hls_uint(14))mtu;
    push_pkt(f, pay);
    roce_hdr_t l = req(ROCE_OP_RDMA_WRITE_LAST_IMM, psn + 1, true);
    l.payload_len = 1;
    l.imm = 77;
    push_pkt(l, pay + mtu);
    model_write(MR_BASE + 0x5000, pay, mtu + 1);
    expect_cqe(0x4444, mtu + 1, NIC_WC_RECV_RDMA_WITH_IMM, NIC_WC_SUCCESS, true, 77);
    expect_ack(psn + 1, 0x1F, ++model_msn);
    psn += 2;
    settle();
    rsp_qpc_t r = row();
    CHECK(r.epsn == psn && r.msn == model_msn, "epsn %x msn %u", r.epsn, r.msn);
    model_epsn = psn;
    tb_end();
}

static void t_read(uint8_t pmtu) {
    uint32_t mtu = 128u << pmtu;
    char name[64];
    snprintf(name, sizeof name, "READ 0..64 KiB, mtu %u", mtu);
    tb_begin(name);
    reset_qp(pmtu, ACC_ALL, 0x7FFFF0);
    uint32_t psn = model_epsn;
    static const uint32_t lens[] = {0, 1, 63, 64, 65, 255, 256, 257, 1000, 4096, 4097, 65536};
    /* the data: random bytes written by the host */
    fill_random(pay, 65536 + 64);
    hostmem_write(mem, MR_BASE + 0x8000, pay, 65536 + 64);
    memcpy(shadow_at(MR_BASE + 0x8000), pay, 65536 + 64);
    hostmem_guard_target(mem, MR_BASE + 0x8000, 65536 + 64);
    for (unsigned k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        uint64_t va = MR_BASE + 0x8000 + (k * 7) % 64;
        roce_hdr_t h = req(ROCE_OP_RDMA_READ_REQUEST, psn, true);
        h.reth_va = va;
        h.reth_rkey = KEY_OK;
        h.reth_len = lens[k];
        push_pkt(h, NULL);
        expect_read(va, lens[k], psn, mtu, ++model_msn);
        psn += lens[k] == 0 ? 1 : (lens[k] + mtu - 1) / mtu;
        if (k % NIC_MAX_DEST_RD_ATOMIC == NIC_MAX_DEST_RD_ATOMIC - 1) settle(); /* the peer's limit */
    }
    settle();
    rsp_qpc_t r = row();
    CHECK(r.epsn == (psn & 0xFFFFFF) && r.msn == model_msn, "epsn %x msn %u", r.epsn, r.msn);
    model_epsn = psn;
    tb_end();
}

static void t_atomic(void) {
    tb_begin("CAS/FAA, duplicate atomic answered from the replay cache, executed once");
    reset_qp(3, ACC_ALL, 0x200);
    uint32_t psn = model_epsn;
    uint64_t v0 = 0x1122334455667788ull;
    hostmem_write_u64(mem, ATOM_VA, v0);
    memcpy(shadow_at(ATOM_VA), &v0, 8);
    hostmem_guard_target(mem, ATOM_VA, 8);
    /* CAS success */
    roce_hdr_t c = req(ROCE_OP_COMPARE_SWAP, psn, true);
    c.atomic_va = ATOM_VA;
    c.atomic_rkey = KEY_OK;
    c.atomic_cmp = v0;
    c.atomic_swap_add = 0xAAAA;
    push_pkt(c, NULL);
    expect_atomic_ack(psn, ++model_msn, v0);
    /* CAS failure: memory unchanged */
    roce_hdr_t c2 = c;
    c2.psn = psn + 1;
    c2.atomic_cmp = 5;
    c2.atomic_swap_add = 6;
    push_pkt(c2, NULL);
    expect_atomic_ack(psn + 1, ++model_msn, 0xAAAA);
    /* FAA */
    roce_hdr_t f = req(ROCE_OP_FETCH_ADD, psn + 2, true);
    f.atomic_va = ATOM_VA;
    f.atomic_rkey = KEY_OK;
    f.atomic_swap_add = 0x100000000ull;
    push_pkt(f, NULL);
    expect_atomic_ack(psn + 2, ++model_msn, 0xAAAA);
    /* the FAA again (a duplicate: its ACK was lost) and the first CAS again */
    push_pkt(f, NULL);
    expect_atomic_ack(psn + 2, model_msn, 0xAAAA);
    push_pkt(c, NULL);
    expect_atomic_ack(psn, model_msn, v0);
    uint64_t v1 = 0xAAAA + 0x100000000ull;
    uint8_t b[8];
    memcpy(b, &v1, 8);
    model_write(ATOM_VA, b, 8);
    settle();
    CHECK(hostmem_read_u64(mem, ATOM_VA) == v1, "value 0x%llx after one CAS and one FAA",
          F(hostmem_read_u64(mem, ATOM_VA)));
    CHECK(row().epsn == psn + 3, "epsn %x", row().epsn);
    /* four more FAAs push the first CAS out of the 4-slot cache: its duplicate is dropped
     * (rxe: no resource, class D), the newest ones are still answered */
    psn += 3;
    uint64_t v = v1;
    for (int i = 0; i < 4; i++) {
        roce_hdr_t a = f;
        a.psn = psn + i;
        a.atomic_swap_add = (uint64_t)i + 1;
        push_pkt(a, NULL);
        expect_atomic_ack(psn + i, ++model_msn, v);
        v += (uint64_t)i + 1;
    }
    memcpy(b, &v, 8);
    model_write(ATOM_VA, b, 8);
    settle();
    uint32_t d0 = st.dropped;
    push_pkt(c, NULL);
    roce_hdr_t a3 = f;
    a3.psn = psn + 3;
    a3.atomic_swap_add = 4;
    push_pkt(a3, NULL);
    expect_atomic_ack(psn + 3, model_msn, v - 4);
    settle();
    CHECK(st.dropped == d0 + 1, "evicted duplicate not dropped");
    CHECK(hostmem_read_u64(mem, ATOM_VA) == v, "value 0x%llx", F(hostmem_read_u64(mem, ATOM_VA)));
    model_epsn = psn + 4;
    tb_end();
}

static void t_duplicates(void) {
    tb_begin("duplicate SEND/WRITE re-ACKed without execution, duplicate READ re-executed");
    reset_qp(1, ACC_ALL, 0x300);
    uint32_t psn = model_epsn;
    post_recv(0x5555, BUF_BASE + 0x100, 64);
    post_recv(0x6666, BUF_BASE + 0x200, 64);
    fill_random(pay, 32);
    roce_hdr_t s = req(ROCE_OP_SEND_ONLY, psn, true);
    s.payload_len = 32;
    push_pkt(s, pay);
    model_write(BUF_BASE + 0x100, pay, 32);
    expect_cqe(0x5555, 32, NIC_WC_RECV, NIC_WC_SUCCESS, false, 0);
    expect_ack(psn, 0x1F, ++model_msn);
    roce_hdr_t w = req(ROCE_OP_RDMA_WRITE_ONLY, psn + 1, true);
    w.reth_va = MR_BASE + 0x600;
    w.reth_rkey = KEY_OK;
    w.reth_len = w.payload_len = 16;
    push_pkt(w, pay);
    model_write(MR_BASE + 0x600, pay, 16);
    expect_ack(psn + 1, 0x1F, ++model_msn);
    roce_hdr_t r = req(ROCE_OP_RDMA_READ_REQUEST, psn + 2, true);
    r.reth_va = MR_BASE + 0x600;
    r.reth_rkey = KEY_OK;
    r.reth_len = 300; /* 2 packets at mtu 256 */
    push_pkt(r, NULL);
    expect_read(MR_BASE + 0x600, 300, psn + 2, 256, ++model_msn);
    settle();
    /* now all three again, with other payload bytes: nothing may be written */
    uint8_t other[32];
    memset(other, 0xEE, sizeof other);
    push_pkt(s, other);
    expect_ack(psn + 3, 0x1F, model_msn); /* PSN epsn-1 */
    push_pkt(w, other);
    expect_ack(psn + 3, 0x1F, model_msn);
    push_pkt(r, NULL);
    expect_read(MR_BASE + 0x600, 300, psn + 2, 256, model_msn);
    settle();
    CHECK(row().rq_head == 1 && row().epsn == psn + 4, "head %u epsn %x", row().rq_head, row().epsn);
    model_epsn = psn + 4;
    tb_end();
}

static void t_sequence(void) {
    tb_begin("PSN sequence error NAKed once, then recovery; RNR NAK then success after posting");
    reset_qp(1, ACC_ALL, 0x400);
    uint32_t psn = model_epsn;
    roce_hdr_t w = req(ROCE_OP_RDMA_WRITE_ONLY, psn + 2, true);
    w.reth_va = MR_BASE + 0x700;
    w.reth_rkey = KEY_OK;
    w.reth_len = w.payload_len = 8;
    uint8_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    push_pkt(w, x);
    w.psn = psn + 3;
    push_pkt(w, x);
    expect_ack(psn, 0x60, model_msn); /* one NAK only, PSN = epsn */
    settle();
    CHECK(st.dropped > 0, "the second out-of-sequence packet was not counted");
    /* the expected PSN arrives: executed, and a new gap is NAKed again */
    w.psn = psn;
    push_pkt(w, x);
    model_write(MR_BASE + 0x700, x, 8);
    expect_ack(psn, 0x1F, ++model_msn);
    w.psn = psn + 5;
    push_pkt(w, x);
    expect_ack(psn + 1, 0x60, model_msn);
    psn++;
    /* RNR: SEND with no WQE posted */
    roce_hdr_t s = req(ROCE_OP_SEND_ONLY, psn, true);
    s.payload_len = 8;
    push_pkt(s, x);
    expect_ack(psn, 0x20 | MIN_RNR, model_msn);
    settle();
    post_recv(0x7777, BUF_BASE + 0x300, 8);
    push_pkt(s, x);
    model_write(BUF_BASE + 0x300, x, 8);
    expect_cqe(0x7777, 8, NIC_WC_RECV, NIC_WC_SUCCESS, false, 0);
    expect_ack(psn, 0x1F, ++model_msn);
    settle();
    CHECK(row().epsn == psn + 1, "epsn %x", row().epsn);
    model_epsn = psn + 1;
    tb_end();
}

/* One protection/validation failure on a fresh QP: the NAK, the event, nothing written,
 * the payload drained, and the next (good) packet dropped because the QP is in ERR. */
static void t_violation(const char *name, uint8_t qp_access, roce_hdr_t h, unsigned plen,
                        uint8_t syndrome, uint8_t detail) {
    tb_begin(name);
    reset_qp(1, qp_access, 0x500);
    uint32_t psn = model_epsn;
    h.psn = psn;
    h.ack_req = true;
    h.payload_len = (hls_uint(14))plen;
    memset(pay, 0x5A, plen);
    push_pkt(h, pay);
    expect_ack(psn, syndrome, model_msn);
    exp_ev = 1;
    exp_ev_detail = detail;
    roce_hdr_t next = req(ROCE_OP_RDMA_WRITE_ONLY, psn + 1, true);
    next.reth_va = MR_BASE;
    next.reth_rkey = KEY_OK;
    next.reth_len = next.payload_len = 4;
    push_pkt(next, pay);
    uint32_t dropped = st.dropped;
    settle();
    CHECK(st.dropped == dropped + 1, "the packet after the NAK was not dropped");
    CHECK(row().state == NIC_QPS_ERR, "QP state %u", row().state);
    tb_end();
}

static roce_hdr_t wr(uint32_t key, uint64_t va, uint32_t len) {
    roce_hdr_t h = req(ROCE_OP_RDMA_WRITE_ONLY, 0, true);
    h.reth_rkey = key;
    h.reth_va = va;
    h.reth_len = len;
    return h;
}

static void t_violations(void) {
    t_violation("wrong rkey -> NAK remote access error", ACC_ALL, wr(KEY_OK + 1, MR_BASE, 100), 100,
                0x62, NIC_WC_REM_ACCESS_ERR);
    t_violation("deregistered MR -> NAK remote access error", ACC_ALL, wr(KEY_DEREG, MR_BASE, 100),
                100, 0x62, NIC_WC_REM_ACCESS_ERR);
    t_violation("MR of another PD -> NAK remote access error", ACC_ALL, wr(KEY_BADPD, MR_BASE, 100),
                100, 0x62, NIC_WC_REM_ACCESS_ERR);
    t_violation("WRITE past the MR's end -> NAK remote access error", ACC_ALL,
                wr(KEY_OK, MR_BASE + MR_LEN - 50, 100), 100, 0x62, NIC_WC_REM_ACCESS_ERR);
    t_violation("WRITE below the MR's start -> NAK remote access error", ACC_ALL,
                wr(KEY_SMALL, MR_BASE + 0x100 - 1, 10), 10, 0x62, NIC_WC_REM_ACCESS_ERR);
    t_violation("MR without REMOTE_WRITE -> NAK remote access error", ACC_ALL,
                wr(KEY_RONLY, MR_BASE, 100), 100, 0x62, NIC_WC_REM_ACCESS_ERR);
    t_violation("QP without REMOTE_WRITE -> NAK remote access error", NIC_ACC_REMOTE_READ,
                wr(KEY_OK, MR_BASE, 100), 100, 0x62, NIC_WC_REM_ACCESS_ERR);
    roce_hdr_t rd = req(ROCE_OP_RDMA_READ_REQUEST, 0, true);
    rd.reth_rkey = KEY_OK;
    rd.reth_va = MR_BASE;
    rd.reth_len = 16;
    t_violation("QP without REMOTE_READ -> NAK remote access error", NIC_ACC_REMOTE_WRITE, rd, 0,
                0x62, NIC_WC_REM_ACCESS_ERR);
    roce_hdr_t at = req(ROCE_OP_FETCH_ADD, 0, true);
    at.atomic_rkey = KEY_RONLY;
    at.atomic_va = MR_BASE;
    t_violation("MR without REMOTE_ATOMIC -> NAK remote access error", ACC_ALL, at, 0, 0x62,
                NIC_WC_REM_ACCESS_ERR);
    at.atomic_rkey = KEY_OK;
    at.atomic_va = ATOM_VA + 4;
    t_violation("misaligned atomic -> NAK invalid request", ACC_ALL, at, 0, 0x61,
                NIC_WC_REM_INV_REQ_ERR);
    t_violation("WRITE payload beyond the RETH length -> NAK invalid request", ACC_ALL,
                wr(KEY_OK, MR_BASE, 10), 11, 0x61, NIC_WC_REM_INV_REQ_ERR);
    t_violation("SEND MIDDLE without FIRST -> NAK invalid request", ACC_ALL,
                req(ROCE_OP_SEND_MIDDLE, 0, true), 256, 0x61, NIC_WC_REM_INV_REQ_ERR);
    t_violation("WRITE LAST without FIRST -> NAK invalid request", ACC_ALL,
                req(ROCE_OP_RDMA_WRITE_LAST, 0, true), 20, 0x61, NIC_WC_REM_INV_REQ_ERR);

    tb_begin("SEND ONLY longer than the RQ buffer -> LOC_LEN_ERR CQE, nothing written");
    reset_qp(1, ACC_ALL, 0x640);
    post_recv(0xEEEE, BUF_BASE + 0xC00, 100);
    settle();
    roce_hdr_t so = req(ROCE_OP_SEND_ONLY, model_epsn, true);
    so.payload_len = 101;
    memset(pay, 0x33, 101);
    push_pkt(so, pay);
    expect_cqe(0xEEEE, 0, NIC_WC_RECV, NIC_WC_LOC_LEN_ERR, false, 0);
    expect_ack(model_epsn, 0x61, model_msn);
    exp_ev = 1;
    exp_ev_detail = NIC_WC_LOC_LEN_ERR;
    settle();
    tb_end();

    static const struct { const char *name; uint32_t lkey; uint64_t addr; } badbuf[] = {
        {"RQ WQE with a wrong lkey -> NAK remote operational error, LOC_PROT_ERR CQE", KEY_BUF + 1,
         BUF_BASE},
        {"RQ buffer past its MR's end -> NAK remote operational error, LOC_PROT_ERR CQE", KEY_BUF,
         BUF_BASE + BUF_LEN - 50},
        {"RQ buffer in an MR without LOCAL_WRITE -> NAK remote operational error", KEY_RONLY,
         MR_BASE},
    };
    for (unsigned k = 0; k < 3; k++) {
        tb_begin(badbuf[k].name);
        reset_qp(1, ACC_ALL, 0x660);
        post_lkey = badbuf[k].lkey;
        post_recv(0xF00D, badbuf[k].addr, 100);
        post_lkey = KEY_BUF;
        roce_hdr_t sb = req(ROCE_OP_SEND_ONLY, model_epsn, true);
        sb.payload_len = 10;
        memset(pay, 0x44, 10);
        push_pkt(sb, pay);
        expect_cqe(0xF00D, 0, NIC_WC_RECV, NIC_WC_LOC_PROT_ERR, false, 0);
        expect_ack(model_epsn, 0x63, model_msn);
        exp_ev = 1;
        exp_ev_detail = NIC_WC_LOC_PROT_ERR;
        settle();
        tb_end();
    }

    /* SEND longer than the posted buffer: LOC_LEN_ERR completion, NAK invalid request */
    tb_begin("SEND longer than the RQ buffer -> LOC_LEN_ERR CQE and NAK invalid request");
    reset_qp(1, ACC_ALL, 0x600);
    post_recv(0x8888, BUF_BASE + 0x800, 300);
    post_recv(0x9999, BUF_BASE + 0x900, 300);
    settle();
    uint32_t psn = model_epsn;
    fill_random(pay, 512);
    roce_hdr_t f = req(ROCE_OP_SEND_FIRST, psn, false);
    f.payload_len = 256;
    push_pkt(f, pay);
    roce_hdr_t l = req(ROCE_OP_SEND_LAST, psn + 1, true);
    l.payload_len = 100; /* 356 > 300 */
    push_pkt(l, pay + 256);
    model_write(BUF_BASE + 0x800, pay, 256);
    expect_cqe(0x8888, 256, NIC_WC_RECV, NIC_WC_LOC_LEN_ERR, false, 0);
    expect_ack(psn + 1, 0x61, model_msn);
    exp_ev = 1;
    exp_ev_detail = NIC_WC_LOC_LEN_ERR;
    settle();
    tb_end();
    /* ctrl answers the event: ERR -> the other posted WQE is flushed */
    tb_begin("to ERR: posted RQ WQEs and later doorbells complete with WR_FLUSH_ERR");
    expect_cqe(0x9999, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR, false, 0);
    cfg_qp(NIC_QPS_RTS, NIC_QPS_ERR, 1, ACC_ALL, 0x600);
    settle();
    post_recv(0xAAAA, BUF_BASE, 8);
    post_recv(0xBBBB, BUF_BASE, 8);
    expect_cqe(0xAAAA, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR, false, 0);
    expect_cqe(0xBBBB, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR, false, 0);
    settle();
    CHECK(row().rq_head == 4 && row().rq_tail == 4, "head %u tail %u", row().rq_head, row().rq_tail);
    tb_end();
    /* a new FIRST while a SEND is open: the open WQE completes in error (class C, rxe) */
    tb_begin("SEND FIRST while a SEND is open -> NAK invalid request, open WQE completes in error");
    reset_qp(1, ACC_ALL, 0x680);
    post_recv(0xCCCC, BUF_BASE + 0xA00, 600);
    settle();
    psn = model_epsn;
    fill_random(pay, 256);
    f = req(ROCE_OP_SEND_FIRST, psn, false);
    f.payload_len = 256;
    push_pkt(f, pay);
    model_write(BUF_BASE + 0xA00, pay, 256);
    f.psn = psn + 1;
    push_pkt(f, pay);
    expect_cqe(0xCCCC, 256, NIC_WC_RECV, NIC_WC_REM_INV_REQ_ERR, false, 0);
    expect_ack(psn + 1, 0x61, model_msn);
    exp_ev = 1;
    exp_ev_detail = NIC_WC_REM_INV_REQ_ERR;
    settle();
    tb_end();
}

static void t_drops(void) {
    tb_begin("quiesced QP, wrong qpn and non-RTR states: dropped without answer, counted");
    reset_qp(1, ACC_ALL, 0x700);
    uint32_t psn = model_epsn;
    roce_hdr_t w = wr(KEY_OK, MR_BASE + 0x900, 4);
    w.psn = psn;
    w.payload_len = 4;
    uint8_t x[4] = {9, 8, 7, 6};
    uint32_t d0 = st.dropped;
    cfg_quiesce(true);
    settle();
    push_pkt(w, x);
    roce_hdr_t other = w;
    other.dest_qp = QPN + 0x10000; /* same row, other qpn */
    push_pkt(other, x);
    settle();
    CHECK(st.dropped == d0 + 2, "dropped %u, expected %u", st.dropped, d0 + 2);
    cfg_quiesce(false);
    settle(); /* cfg and packets are separate streams: restart before the retransmission */
    push_pkt(w, x);
    model_write(MR_BASE + 0x900, x, 4);
    expect_ack(psn, 0x1F, ++model_msn);
    settle();
    /* INIT drops requests */
    cfg_qp(NIC_QPS_RTS, NIC_QPS_ERR, 1, ACC_ALL, 0);
    cfg_qp(NIC_QPS_ERR, NIC_QPS_RESET, 1, ACC_ALL, 0);
    cfg_qp(NIC_QPS_RESET, NIC_QPS_INIT, 1, ACC_ALL, 0);
    settle();
    w.psn = 0;
    push_pkt(w, x);
    settle();
    CHECK(st.dropped == d0 + 3, "dropped %u in INIT", st.dropped - d0);
    CHECK(st.acks_sent > 0 && st.naks_sent > 0, "counters %u %u", st.acks_sent, st.naks_sent);
    tb_end();
}

/* ---- READ responses as per-packet work --------------------------------------------------- */
static void t_queued_reads(void) {
    tb_begin("4 READs queued while the first is answered, answered in PSN order; WRITE ACK after");
    reset_qp(1, ACC_ALL, 0xA00);
    uint32_t psn = model_epsn;
    for (unsigned k = 0; k < 4; k++) {
        push_pkt(read_req(psn + 16 * k, READ_VA + 4096 * k + k, 4096), NULL);
        expect_read(READ_VA + 4096 * k + k, 4096, psn + 16 * k, 256, ++model_msn);
    }
    roce_hdr_t w = wr(KEY_OK, MR_BASE + 0xA00, 8);
    w.psn = psn + 64;
    w.payload_len = 8;
    uint8_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    push_pkt(w, x);
    model_write(MR_BASE + 0xA00, x, 8);
    expect_ack(psn + 64, 0x1F, ++model_msn); /* parked until every READ response is out */
    /* the 4 requests are taken (accepted, epsn past them) before the first READ is answered */
    for (unsigned i = 0; i < 100000 && pkt_t - pkt_h > 1; i++) cycle();
    unsigned sent = ndesc;
    settle();
    CHECK(sent < 16, "%u responses were out before the 4th READ was accepted", sent);
    CHECK(row().epsn == psn + 65, "epsn %x", row().epsn);
    model_epsn = psn + 65;
    tb_end();
}

static void t_excess_reads(void) {
    tb_begin("READ beyond max_dest_rd_atomic (2) -> NAK invalid request, QP to ERR");
    dest_rd_atomic = 2;
    reset_qp(1, ACC_ALL, 0xB00);
    uint32_t psn = model_epsn;
    for (unsigned k = 0; k < 3; k++) push_pkt(read_req(psn + 16 * k, READ_VA, 4096), NULL);
    CHECK(run_idle(), "not idle");
    /* READ 1 is cut by the NAK (in ERR nothing more is answered); READ 2 never starts */
    unsigned k = ndesc - 1;
    CHECK(ndesc >= 1 && k < 16, "%u responses before the NAK", k);
    expect_read_prefix(READ_VA, 4096, psn, 256, model_msn + 1, k);
    expect_ack(psn + 32, 0x61, model_msn + 2);
    exp_ev = 1;
    exp_ev_detail = NIC_WC_REM_INV_REQ_ERR;
    settle();
    dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    reset_qp(1, ACC_ALL, 0xB00);
    tb_end();
}

static void t_duplicate_mid_read(void) {
    tb_begin("duplicate READ from the middle replaces the READ in progress, answered from its PSN");
    reset_qp(1, ACC_ALL, 0xC00);
    uint32_t psn = model_epsn;
    push_pkt(read_req(psn, READ_VA, 4096), NULL);
    ++model_msn;
    run_until_descs(4);
    /* the requester's retry: PSN of its first missing response, RETH advanced by 3 MTUs */
    push_pkt(read_req(psn + 3, READ_VA + 768, 4096 - 768), NULL);
    CHECK(run_idle(), "not idle");
    unsigned k = ndesc - 13;
    CHECK(ndesc >= 13 && k >= 4 && k < 16, "%u responses of the original READ", k);
    expect_read_prefix(READ_VA, 4096, psn, 256, model_msn, k);
    expect_read(READ_VA + 768, 4096 - 768, psn + 3, 256, model_msn);
    settle();
    CHECK(row().epsn == psn + 16 && row().msn == model_msn, "epsn %x msn %u", row().epsn, row().msn);
    model_epsn = psn + 16;
    tb_end();
}

static void t_duplicate_read_round(void) {
    tb_begin("a go-back-N round of duplicate READs: each queues behind the one before, none cut short");
    reset_qp(1, ACC_ALL, 0xC80);
    uint32_t psn = model_epsn;
    push_pkt(read_req(psn, READ_VA, 4096), NULL);
    expect_read(READ_VA, 4096, psn, 256, ++model_msn);
    push_pkt(read_req(psn + 16, READ_VA + 8192, 256), NULL);
    expect_read(READ_VA + 8192, 256, psn + 16, 256, ++model_msn);
    CHECK(run_idle(), "not idle");
    /* the answers were lost from the 4th packet on: the requester retries the first READ from
     * its first missing response and then the second, back to back */
    push_pkt(read_req(psn + 3, READ_VA + 768, 4096 - 768), NULL);
    push_pkt(read_req(psn + 16, READ_VA + 8192, 256), NULL);
    expect_read(READ_VA + 768, 4096 - 768, psn + 3, 256, model_msn);
    expect_read(READ_VA + 8192, 256, psn + 16, 256, model_msn);
    settle();
    CHECK(row().epsn == psn + 17 && row().msn == model_msn, "epsn %x msn %u", row().epsn, row().msn);
    model_epsn = psn + 17;
    tb_end();
}

/* A second QP, row ROW + 1, same function, PD and MRs. */
#define QPN_B (QPN + 1)
#define DEST_QPN_B (DEST_QPN + 1)
static void cfg_qp_b(uint8_t prev, uint8_t state, uint8_t pmtu, uint32_t psn) {
    nic_cfg_t c;
    memset(&c, 0, sizeof c);
    c.kind = NIC_CFG_QP;
    c.fn = FN;
    c.qp = ROW + 1;
    c.prev_state = prev;
    c.attr = qp_attr(state, pmtu, ACC_ALL, psn);
    c.attr.qpn = QPN_B;
    c.attr.dest_qpn = DEST_QPN_B;
    push_cfg(c);
}

static void t_interleave(void) {
    tb_begin("two QPs' 8 KiB READ responses interleave packet by packet");
    reset_qp(1, ACC_ALL, 0xD00);
    cfg_qp_b(NIC_QPS_RESET, NIC_QPS_INIT, 1, 0x50);
    cfg_qp_b(NIC_QPS_INIT, NIC_QPS_RTR, 1, 0x50);
    settle();
    uint32_t psn = model_epsn;
    push_pkt(read_req(psn, READ_VA, 8192), NULL);
    roce_hdr_t b = read_req(0x50, READ_VA + 8192 + 5, 8192);
    b.dest_qp = QPN_B;
    push_pkt(b, NULL);
    CHECK(run_idle(), "not idle");
    /* the expected packets of each QP, merged in the order they came out */
    static roce_hdr_t ea[32], eb[32];
    static const uint8_t *pa[32], *pb[32];
    expect_read(READ_VA, 8192, psn, 256, ++model_msn);
    memcpy(ea, exp_desc, sizeof ea), memcpy(pa, exp_pay, sizeof pa);
    nexp = 0;
    expect_read(READ_VA + 8192 + 5, 8192, 0x50, 256, 1);
    memcpy(eb, exp_desc, sizeof eb), memcpy(pb, exp_pay, sizeof pb);
    nexp = 0;
    unsigned ia = 0, ib = 0, run = 0, longest = 0;
    for (unsigned i = 0; i < ndesc && ia + ib < 64; i++) {
        bool is_b = descs[i].dest_qp == DEST_QPN_B;
        if (is_b && ib < 32) {
            exp_desc[nexp] = eb[ib], exp_pay[nexp++] = pb[ib++];
            exp_desc[nexp - 1].dest_qp = DEST_QPN_B;
        } else if (!is_b && ia < 32) {
            exp_desc[nexp] = ea[ia], exp_pay[nexp++] = pa[ia++];
        }
        run = i > 0 && descs[i].dest_qp == descs[i - 1].dest_qp ? run + 1 : 1;
        if (ia < 32 && ib < 32 && run > longest) longest = run; /* while both have work */
    }
    settle();
    CHECK(longest <= 3, "%u packets of one QP in a row while both had READ work", longest);
    printf("     (longest run of one QP's packets while both busy: %u)\n", longest);
    cfg_qp_b(NIC_QPS_RTR, NIC_QPS_RESET, 1, 0);
    settle();
    model_epsn = psn + 32;
    tb_end();
}

static void t_quiesce_read(void) {
    tb_begin("quiesce mid-READ: stops at a packet boundary, position in the row, resumes exactly");
    reset_qp(3, ACC_ALL, 0xFFFFF0); /* mtu 1024, PSNs wrap */
    uint32_t psn = model_epsn;
    push_pkt(read_req(psn, READ_VA, 65536), NULL);
    expect_read(READ_VA, 65536, psn, 1024, ++model_msn);
    run_until_descs(5);
    cfg_quiesce(true);
    CHECK(run_idle(), "not idle");
    unsigned k = ndesc;
    uint64_t reads = dma_reads;
    for (unsigned i = 0; i < 3000; i++) cycle();
    CHECK(ndesc == k && dma_reads == reads, "quiesced: %u more responses, %llu more DMA reads",
          ndesc - k, (unsigned long long)(dma_reads - reads));
    CHECK(k >= 5 && k < 64, "%u of 64 responses out when quiesced", k);
    rsp_rdq_t q = st.rdq.hls_mem_cell[ROW];
    unsigned h = q.head & 3;
    CHECK(q.count == 1 && q.started && q.psn[h] == ((psn + k) & 0xFFFFFF) &&
              q.va[h] == READ_VA + 1024ull * k && q.len[h] == 65536 - 1024 * k,
          "saved position: count %u started %u psn %x va %llx len %u after %u packets", q.count,
          q.started, q.psn[h], (unsigned long long)q.va[h], q.len[h], k);
    cfg_quiesce(false);
    settle(); /* every packet exactly once, in order, byte-exact */
    model_epsn = psn + 64;
    tb_end();
}

static void t_quiesce_flush(void) {
    tb_begin("quiesce during the ERR flush: no DMA, no CQE, doorbells wait; unquiesce finishes it");
    reset_qp(1, ACC_ALL, 0xE00);
    for (unsigned i = 0; i < 7; i++) post_recv(0xF00 + i, BUF_BASE, 8);
    settle();
    cfg_qp(NIC_QPS_RTS, NIC_QPS_ERR, 1, ACC_ALL, 0);
    for (unsigned i = 0; i < 100000 && ncqe < 2; i++) cycle();
    cfg_quiesce(true);
    CHECK(run_idle(), "not idle");
    unsigned k = ncqe;
    uint64_t reads = dma_reads;
    post_recv(0xF07, BUF_BASE, 8); /* a doorbell in ERR while quiesced */
    for (unsigned i = 0; i < 3000; i++) cycle();
    CHECK(ncqe == k && dma_reads == reads, "quiesced: %u more CQEs, %llu more DMA reads",
          ncqe - k, (unsigned long long)(dma_reads - reads));
    CHECK(k >= 2 && k < 7, "%u of 7 WQEs flushed when quiesced", k);
    cfg_quiesce(false);
    for (unsigned i = 0; i < 8; i++) expect_cqe(0xF00 + i, 0, NIC_WC_RECV, NIC_WC_WR_FLUSH_ERR, false, 0);
    settle();
    CHECK(row().rq_head == 8 && row().rq_tail == 8, "head %u tail %u", row().rq_head, row().rq_tail);
    bring_up(1, ACC_ALL, 0xE00);
    settle();
    tb_end();
}

int main(int argc, char **argv) {
    tb_setup(argc, argv);

    for (uint8_t pmtu = 1; pmtu <= 5; pmtu += 2) {
        t_send(pmtu);
        t_write(pmtu);
        t_read(pmtu);
    }
    t_atomic();
    t_duplicates();
    t_sequence();
    t_violations();
    t_drops();
    t_queued_reads();
    t_excess_reads();
    t_duplicate_mid_read();
    t_duplicate_read_round();
    t_interleave();
    t_quiesce_read();
    t_quiesce_flush();

    tb_begin("no back-pressure: READ 64 KiB at mtu 4096 within 1.03 cycles per beat");
    p_ready = 1.0;
    p_offer = 1.0;
    reset_qp(5, ACC_ALL, 0x900);
    uint64_t c0 = cycles;
    roce_hdr_t h = req(ROCE_OP_RDMA_READ_REQUEST, model_epsn, true);
    h.reth_va = MR_BASE + 0x8000;
    h.reth_rkey = KEY_OK;
    h.reth_len = 65536;
    push_pkt(h, NULL);
    expect_read(MR_BASE + 0x8000, 65536, model_epsn, 4096, ++model_msn);
    settle();
    /* the DMA reads run ahead, so only the first read's latency shows */
    uint64_t used = cycles - c0 - 9; /* settle's quiet cycles */
    printf("     (READ 64 KiB: %llu cycles for 1024 beats)\n", (unsigned long long)used);
    CHECK(used <= 1024 * 103 / 100, "%llu cycles", (unsigned long long)used);
    tb_end();

    tb_begin("no back-pressure: 4 queued READs of 16 KiB; two QPs' 32 KiB READs interleaved");
    reset_qp(5, ACC_ALL, 0x900);
    c0 = cycles;
    for (unsigned k = 0; k < 4; k++) {
        push_pkt(read_req(model_epsn + 4 * k, READ_VA + 16384 * k, 16384), NULL);
        expect_read(READ_VA + 16384 * k, 16384, model_epsn + 4 * k, 4096, ++model_msn);
    }
    settle();
    used = cycles - c0 - 9;
    printf("     (4 x READ 16 KiB: %llu cycles for 1024 beats)\n", (unsigned long long)used);
    /* while requests wait to be taken, no read is issued ahead (docs/responder.md) */
    CHECK(used <= 1024 * 110 / 100, "%llu cycles", (unsigned long long)used);
    model_epsn += 16;
    cfg_qp_b(NIC_QPS_RESET, NIC_QPS_INIT, 5, 0x50);
    cfg_qp_b(NIC_QPS_INIT, NIC_QPS_RTR, 5, 0x50);
    settle();
    c0 = cycles;
    push_pkt(read_req(model_epsn, READ_VA, 32768), NULL);
    h = read_req(0x50, READ_VA + 32768, 32768);
    h.dest_qp = QPN_B;
    push_pkt(h, NULL);
    CHECK(run_idle(), "not idle");
    used = cycles - c0 - 9;
    printf("     (2 QPs x READ 32 KiB interleaved: %llu cycles for 1024 beats)\n", (unsigned long long)used);
    CHECK(ndesc == 16 && npay == 65536, "%u responses, %u bytes", ndesc, npay);
    /* switching QPs every packet, each packet's read latency shows */
    CHECK(used <= 1024 * 120 / 100, "%llu cycles", (unsigned long long)used);
    ndesc = npay = npayframes = 0;
    cfg_qp_b(NIC_QPS_RTR, NIC_QPS_RESET, 1, 0);
    settle();
    tb_end();

    printf("%llu cycles, %u acks, %u naks, %u dropped\n", (unsigned long long)cycles, st.acks_sent,
           st.naks_sent, st.dropped);
    hostmem_free(mem);
    return tb_exit();
}
