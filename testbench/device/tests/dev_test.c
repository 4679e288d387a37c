/* dev_test — the in-process device driven only as a driver drives it: MMIO on BAR0
 * (hls/include/nic_bar.h), hlsnic_dev_dma_map, rings and CQEs in this process's memory.
 *
 * Two devices in one process joined by a datagram wire. Device A uses function 0, device B
 * function 2 (and every command names function 3 in its bytes: the device must force the
 * BAR's function, or B's CREATE_QP fails on its own CQs). Checked, each with a PASS/FAIL line:
 *   registers: ID, CAPS, FN, CYCLES advancing
 *   SET_FN, CREATE_CQ x2, CREATE_QP, MODIFY_QP to RTS, REG_MR on both; a bad command's status
 *   SEND 100 bytes A->B into a posted receive; RDMA WRITE 5000 A->B; RDMA READ 3000 B->A:
 *     CQEs polled in memory, bytes compared
 *   CQ arm NEXT / SOLICITED through the CQ doorbell: one CQ_COMP event + interrupt per arm
 *   520 SENDs of seeded random sizes both ways, every receive armed, no event popped: rings
 *     and CQs wrap, every byte checked; 256 events kept per function, the rest EVENT_LOST
 *   a receive buffer inside the MR but not DMA-mapped: the write is refused, counted, the
 *     buffer untouched, the first fault reported as text
 *   a WRITE with a bad rkey: the error CQE, a QP_ERR event on A's function, its interrupt
 *     (eventfd) held while masked and raised at unmask, EVENT pops in order then reads 0
 *   an SQ ring unmapped before its doorbell: the WQE fetch (a read) is refused and counted
 *   bad BAR accesses: all-ones reads, dropped writes, counted, the first one as text
 *   statistics: the BAR's frame counters equal hlsnic_dev_stats and A's tx = B's rx
 * Usage: dev_test WIRE_A WIRE_B [c|rtl|quick|rtl-quick] [PCAP]   (quick: SEND only)
 *        dev_test DIR - configs      bad model / wire / pcap strings: the reasons hlsnic_dev_open gives
 *        dev_test DIR - port         the port against raw datagrams: empty, runt, a flood; the port
 *                                    moved to a device opened without one, attached later */
#define _GNU_SOURCE
#include "hlsnic_dev.h"
#include "nic_bar.h"
#include "nic_if.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dev_side.h"

static bool irq_pending(int fd, int timeout_ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, timeout_ms) == 1;
}
static void irq_clear(int fd) {
    uint64_t v;
    if (read(fd, &v, sizeof v) < 0 && errno != EAGAIN) perror("eventfd read");
}

/* ---- the tests -------------------------------------------------------------------------- */
static void registers(side_t *s) {
    char n[128];
    uint64_t id = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_ID);
    snprintf(n, sizeof n, "%s: NIC_BAR_ID", s->name);
    check(id == (NIC_BAR_MAGIC | (uint64_t)NIC_BAR_VERSION << 32), n, "0x%" PRIx64, id);
    uint32_t lo = hlsnic_mmio_read32(s->d, s->fn, NIC_BAR_ID), hi = hlsnic_mmio_read32(s->d, s->fn, NIC_BAR_ID + 4);
    snprintf(n, sizeof n, "%s: NIC_BAR_ID as two 32-bit reads", s->name);
    check(lo == NIC_BAR_MAGIC && hi == NIC_BAR_VERSION, n, "0x%x 0x%x", lo, hi);
    uint64_t caps = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_CAPS);
    snprintf(n, sizeof n, "%s: NIC_BAR_CAPS", s->name);
    check((caps & 0xff) == NIC_FNS && ((caps >> 8) & 0xff) == NIC_QP_PER_FN && ((caps >> 16) & 0xff) == NIC_CQ_PER_FN &&
              ((caps >> 24) & 0xff) == NIC_MR_PER_FN && ((caps >> 32) & 0xff) == NIC_OUTSTANDING,
          n, "0x%" PRIx64, caps);
    snprintf(n, sizeof n, "%s: NIC_BAR_FN", s->name);
    uint64_t fn = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_FN);
    check(fn == s->fn, n, "%" PRIu64 ", want %u", fn, s->fn);
    uint64_t c0 = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_CYCLES);
    double t0 = now_s();
    uint64_t c1 = c0;
    while (c1 == c0 && now_s() - t0 < DEADLINE_S) {
        pause_us(200);
        c1 = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_CYCLES);
    }
    snprintf(n, sizeof n, "%s: NIC_BAR_CYCLES advances while idle", s->name);
    check(c1 > c0, n, "stayed at %" PRIu64, c0);
}

static void bad_command(side_t *s) {
    nic_cmd_resp_t r;
    int st = command(s, (nic_cmd_t){.op = NIC_CMD_CREATE_CQ, .num = 5, .base = 0x1001, .log = 4}, &r);
    check(st == NIC_CMD_EINVAL && r.bad_field == NIC_CMD_F_BASE, "mailbox: a bad command's status and bad_field",
          "status %d bad_field %u, want %d %d", st, r.bad_field, NIC_CMD_EINVAL, NIC_CMD_F_BASE);
}


static void write_read(side_t *a, side_t *b) {
    uint8_t *src = a->mr + 0x1000, *dst = b->mr + 0x2000;
    fill(src, 5000, 2);
    post_send(a, (nic_sq_wqe_t){.wr_id = 0xa1, .opcode = NIC_WR_WRITE, .flags = NIC_WQE_SIGNALED,
                                .local_addr = (uintptr_t)src, .length = 5000, .lkey = a->key,
                                .remote_addr = (uintptr_t)dst, .rkey = b->key});
    if (cqe_ok("WRITE 5000: A's CQE", a, SCQ, 0xa1, NIC_WC_RDMA_WRITE, NIC_WC_SUCCESS, -1))
        bytes_equal("WRITE 5000: bytes in B's MR", dst, src, 5000);
    uint8_t *rsrc = b->mr + 0x8000, *rdst = a->mr + 0x6000;
    fill(rsrc, 3000, 3);
    memset(rdst, 0, 3000);
    post_send(a, (nic_sq_wqe_t){.wr_id = 0xa2, .opcode = NIC_WR_READ, .flags = NIC_WQE_SIGNALED,
                                .local_addr = (uintptr_t)rdst, .length = 3000, .lkey = a->key,
                                .remote_addr = (uintptr_t)rsrc, .rkey = b->key});
    if (cqe_ok("READ 3000: A's CQE", a, SCQ, 0xa2, NIC_WC_RDMA_READ, NIC_WC_SUCCESS, 3000))
        bytes_equal("READ 3000: bytes in A's buffer", rdst, rsrc, 3000);
}

/* ibv_req_notify_cq through the CQ doorbell's arm bits: one NIC_EV_CQ_COMP per arm, on the
 * CQ's function, with its interrupt. SOLICITED fires only for a receive whose SEND had SE. */
static void cq_arm(side_t *a, side_t *b) {
    int fd = hlsnic_dev_irq_fd(b->d, b->fn);
    irq_clear(fd);
    unsigned row = b->fn * NIC_CQ_PER_FN + RCQ % NIC_CQ_PER_FN;
    static const struct { unsigned arm; uint8_t flags; bool fires; const char *name; } t[] = {
        {NIC_ARM_NEXT, 0, true, "CQ arm NEXT: a receive CQE raises one completion event"},
        {NIC_ARM_SOLICITED, 0, false, "CQ arm SOLICITED: a receive without SE raises none"},
        {NIC_ARM_NONE, NIC_WQE_SOLICITED, true, "CQ arm SOLICITED (still armed): a receive with SE raises one"},
        {NIC_ARM_NONE, 0, false, "CQ arm: disarmed after the event, the next CQE raises none"},
    };
    for (unsigned i = 0; i < sizeof t / sizeof *t; i++) {
        if (t[i].arm) hlsnic_mmio_write64(b->d, b->fn, NIC_BAR_CQ_DB, NIC_DB_VALUE(RCQ, b->ci[RCQ], t[i].arm));
        post_recv(b, (nic_rq_wqe_t){.wr_id = 0xc0 + i, .addr = (uintptr_t)(b->mr + 0x400), .length = 64, .lkey = b->key});
        post_send(a, (nic_sq_wqe_t){.wr_id = 0xd0 + i, .opcode = NIC_WR_SEND, .flags = NIC_WQE_SIGNALED | t[i].flags,
                                    .local_addr = (uintptr_t)a->mr, .length = 32, .lkey = a->key});
        char n[160];
        snprintf(n, sizeof n, "CQ arm %u: A's send CQE", i);
        cqe_ok(n, a, SCQ, 0xd0 + i, NIC_WC_SEND, NIC_WC_SUCCESS, -1);
        nic_cqe_t e;
        bool got = poll_cq(b, RCQ, &e); /* the event follows the CQE's write */
        bool irq = irq_pending(fd, t[i].fires ? 5000 : 300);
        uint64_t ev = hlsnic_mmio_read64(b->d, b->fn, NIC_BAR_EVENT);
        if (irq) irq_clear(fd);
        bool ok = got && e.wr_id == 0xc0 + i &&
                  (t[i].fires ? irq && (ev >> 63) && (ev & 0xff) == NIC_EV_CQ_COMP && ((ev >> 16) & 0xff) == row
                              : !irq && ev == 0);
        check(ok, t[i].name, "recv CQE %s (wr_id 0x%" PRIx64 "), interrupt %d, event 0x%" PRIx64 " (want %s, cq row %u)",
              got ? "ok" : "missing", got ? e.wr_id : 0, irq, ev, t[i].fires ? "CQ_COMP" : "none", row);
    }
}

/* Many round trips of seeded random sizes: rings and the CQ wrap several times (owner parity
 * flips), every byte checked: CQE/data visibility across threads under load. The receiver
 * arms its recv CQ every round and nobody pops events: each side queues rounds/2 completion
 * events, NIC_BAR_EVENT_DEPTH are kept (the oldest) and the rest counted in EVENT_LOST. */
static void pingpong(side_t *a, side_t *b, unsigned rounds) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned bad = 0, first = 0;
    char what[200] = "";
    for (unsigned i = 0; i < rounds && !bad; i++) {
        side_t *s = i & 1 ? b : a, *r = i & 1 ? a : b;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t len = 1 + (uint32_t)(x % 4096);
        uint8_t *src = s->mr + 0x4000, *dst = r->mr + 0x9000;
        fill(src, len, i);
        memset(dst, 0, len);
        hlsnic_mmio_write64(r->d, r->fn, NIC_BAR_CQ_DB, NIC_DB_VALUE(RCQ, r->ci[RCQ], NIC_ARM_NEXT));
        post_recv(r, (nic_rq_wqe_t){.wr_id = 0x1000 + i, .addr = (uintptr_t)dst, .length = 4096, .lkey = r->key});
        post_send(s, (nic_sq_wqe_t){.wr_id = 0x2000 + i, .opcode = NIC_WR_SEND, .flags = NIC_WQE_SIGNALED,
                                    .local_addr = (uintptr_t)src, .length = len, .lkey = s->key});
        nic_cqe_t e1, e2;
        bool g1 = poll_cq(s, SCQ, &e1), g2 = g1 && poll_cq(r, RCQ, &e2);
        if (!g1 || !g2 || e1.wr_id != 0x2000 + i || e1.status || e2.wr_id != 0x1000 + i || e2.status ||
            e2.byte_len != len || memcmp(dst, src, len)) {
            bad = 1, first = i;
            snprintf(what, sizeof what, "round %u (%u bytes): send CQE %s wr_id 0x%" PRIx64 " status %u, recv CQE %s "
                     "wr_id 0x%" PRIx64 " status %u len %u, data %s", i, len, g1 ? "ok" : "missing", g1 ? e1.wr_id : 0,
                     g1 ? e1.status : 0, g2 ? "ok" : "missing", g2 ? e2.wr_id : 0, g2 ? e2.status : 0,
                     g2 ? e2.byte_len : 0, g2 && !memcmp(dst, src, len) ? "same" : "differs");
        }
    }
    char n[64];
    snprintf(n, sizeof n, "pingpong: %u SENDs of 1..4096 bytes both ways", rounds);
    check(!bad, n, "%s (first bad round %u)", what, first);
    side_t *sides[2] = {a, b};
    for (int k = 0; k < 2 && !bad; k++) {
        side_t *s = sides[k];
        uint64_t want_lost = rounds / 2 - NIC_BAR_EVENT_DEPTH, lost = 0;
        double t0 = now_s(); /* the last event follows the last CQE by a few cycles */
        while ((lost = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_EVENT_LOST)) < want_lost && now_s() - t0 < 5) pause_us(500);
        unsigned popped = 0, wrong = 0;
        uint64_t ev, wrong_ev = 0;
        unsigned row = s->fn * NIC_CQ_PER_FN + RCQ % NIC_CQ_PER_FN;
        while ((ev = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_EVENT)) && popped < 2 * NIC_BAR_EVENT_DEPTH) {
            popped++;
            if ((ev & 0xff) != NIC_EV_CQ_COMP || ((ev >> 16) & 0xff) != row) wrong++, wrong_ev = ev;
        }
        bool irq = irq_pending(hlsnic_dev_irq_fd(s->d, s->fn), 0);
        irq_clear(hlsnic_dev_irq_fd(s->d, s->fn));
        snprintf(n, sizeof n, "pingpong: %s's event queue keeps %u, counts the rest in EVENT_LOST", s->name,
                 NIC_BAR_EVENT_DEPTH);
        check(popped == NIC_BAR_EVENT_DEPTH && !wrong && lost == want_lost && irq, n,
              "popped %u (%u not CQ_COMP of row %u, e.g. 0x%" PRIx64 "), EVENT_LOST %" PRIu64 " want %" PRIu64
              ", interrupt %d",
              popped, wrong, row, wrong_ev, lost, want_lost, irq);
    }
}

/* B's receive buffer lies in B's MR but in the page B never DMA-mapped. */
static void write_fault(side_t *a, side_t *b) {
    uint8_t *hole = b->mr + MR_LEN - 4096;
    memset(hole, 0x5a, 4096);
    hlsnic_dev_stats_t s0, s1;
    hlsnic_dev_stats(b->d, &s0);
    fill(a->mr + 0x3000, 256, 4);
    post_recv(b, (nic_rq_wqe_t){.wr_id = 0xb1, .addr = (uintptr_t)hole, .length = 256, .lkey = b->key});
    post_send(a, (nic_sq_wqe_t){.wr_id = 0xa3, .opcode = NIC_WR_SEND, .flags = NIC_WQE_SIGNALED,
                                .local_addr = (uintptr_t)(a->mr + 0x3000), .length = 256, .lkey = a->key});
    cqe_ok("DMA fault: A's SEND completes", a, SCQ, 0xa3, NIC_WC_SEND, NIC_WC_SUCCESS, -1);
    nic_cqe_t e;
    bool got = poll_cq(b, RCQ, &e);
    check(got && e.wr_id == 0xb1, "DMA fault: B's recv CQE still written (the CQ ring is mapped)",
          got ? "wr_id 0x%" PRIx64 : "no CQE", got ? e.wr_id : 0);
    hlsnic_dev_stats(b->d, &s1);
    check(s1.dma_faults >= s0.dma_faults + 4, "DMA fault: refused writes counted",
          "dma_faults %" PRIu64 " -> %" PRIu64 " (256 bytes = 4 beats)", s0.dma_faults, s1.dma_faults);
    uint8_t pat[4096];
    memset(pat, 0x5a, sizeof pat);
    bytes_equal("DMA fault: unmapped memory untouched", hole, pat, sizeof pat);
    const char *f = hlsnic_dev_first_fault(b->d);
    char want[64];
    snprintf(want, sizeof want, "write 0x%" PRIxPTR, (uintptr_t)hole);
    check(f && strstr(f, want) && strstr(f, "outside every mapping"), "DMA fault: first fault as text",
          "got \"%s\", want it to contain \"%s ... outside every mapping\"", f ? f : "(null)", want);
    check(!hlsnic_dev_first_fault(a->d), "DMA fault: none on A", "%s", hlsnic_dev_first_fault(a->d));
}


/* A WRITE with an rkey B never registered: B NAKs (remote access error), A's QP fails. */
static void events(side_t *a, side_t *b) {
    int fd = hlsnic_dev_irq_fd(a->d, a->fn);
    check(fd >= 0 && !irq_pending(fd, 0), "events: interrupt eventfd exists and is quiet", "fd %d", fd);
    uint64_t lost0 = hlsnic_mmio_read64(a->d, a->fn, NIC_BAR_EVENT_LOST);
    hlsnic_mmio_write64(a->d, a->fn, NIC_BAR_IRQ_MASK, 1);
    check(hlsnic_mmio_read64(a->d, a->fn, NIC_BAR_IRQ_MASK) == 1, "events: IRQ_MASK reads back", "not 1");
    post_send(a, (nic_sq_wqe_t){.wr_id = 0xa4, .opcode = NIC_WR_WRITE, .flags = NIC_WQE_SIGNALED,
                                .local_addr = (uintptr_t)a->mr, .length = 64, .lkey = a->key,
                                .remote_addr = (uintptr_t)b->mr, .rkey = b->key + 0x100});
    cqe_ok("events: bad rkey WRITE completes with REM_ACCESS_ERR", a, SCQ, 0xa4, NIC_WC_RDMA_WRITE,
           NIC_WC_REM_ACCESS_ERR, -1);
    /* the event follows the CQE; give it time to arrive while masked */
    double t0 = now_s();
    while (now_s() - t0 < 0.5) pause_us(1000);
    check(!irq_pending(fd, 0), "events: no interrupt while masked", "eventfd readable");
    hlsnic_mmio_write64(a->d, a->fn, NIC_BAR_IRQ_MASK, 0);
    check(irq_pending(fd, 5000), "events: unmasking raises the pending interrupt", "eventfd quiet for 5 s");
    uint64_t cnt = 0;
    check(read(fd, &cnt, sizeof cnt) == sizeof cnt && cnt >= 1, "events: reading the eventfd clears it",
          "read failed");
    check(!irq_pending(fd, 0), "events: eventfd quiet after the read", "still readable");
    uint64_t ev = hlsnic_mmio_read64(a->d, a->fn, NIC_BAR_EVENT);
    unsigned row = a->fn * NIC_QP_PER_FN + a->qpn % NIC_QP_PER_FN;
    check((ev >> 63) && (ev & 0xff) == NIC_EV_QP_ERR && ((ev >> 8) & 0xff) == row &&
              ((ev >> 24) & 0xff) == NIC_WC_REM_ACCESS_ERR,
          "events: NIC_BAR_EVENT pops QP_ERR with the QP row and REM_ACCESS_ERR",
          "0x%" PRIx64 ", want valid, kind %d, qp row %u, detail %d", ev, NIC_EV_QP_ERR, row, NIC_WC_REM_ACCESS_ERR);
    uint64_t more = hlsnic_mmio_read64(a->d, a->fn, NIC_BAR_EVENT);
    check(more == 0, "events: queue empty after the pop", "0x%" PRIx64, more);
    /* B's responder failed its QP too (IB 9.9.3.1.3: a remote access error puts the responder's
     * QP in ERR): the event is B's, on B's function, with B's QP row, and B's interrupt rang */
    int bfd = hlsnic_dev_irq_fd(b->d, b->fn);
    check(irq_pending(bfd, 5000), "events: B's function got its interrupt", "B's eventfd quiet for 5 s");
    check(!irq_pending(hlsnic_dev_irq_fd(a->d, b->fn), 0) && !irq_pending(hlsnic_dev_irq_fd(b->d, a->fn), 0),
          "events: no interrupt on the other functions", "one is readable");
    uint64_t bev = hlsnic_mmio_read64(b->d, b->fn, NIC_BAR_EVENT);
    unsigned brow = b->fn * NIC_QP_PER_FN + b->qpn % NIC_QP_PER_FN;
    check((bev >> 63) && (bev & 0xff) == NIC_EV_QP_ERR && ((bev >> 8) & 0xff) == brow &&
              ((bev >> 24) & 0xff) == NIC_WC_REM_ACCESS_ERR,
          "events: B's responder QP_ERR on B's function with B's QP row",
          "0x%" PRIx64 ", want valid, kind %d, qp row %u, detail %d", bev, NIC_EV_QP_ERR, brow, NIC_WC_REM_ACCESS_ERR);
    check(hlsnic_mmio_read64(b->d, 0, NIC_BAR_EVENT) == 0, "events: none on B's function 0", "function 0 has one");
    uint64_t lost1 = hlsnic_mmio_read64(a->d, a->fn, NIC_BAR_EVENT_LOST);
    check(lost1 == lost0, "events: EVENT_LOST unchanged (nothing dropped)", "%" PRIu64 " -> %" PRIu64, lost0, lost1);
}

/* B's SQ ring unmapped, then a WQE and its doorbell: the WQE fetch must be refused. */
static void read_fault(side_t *b) {
    hlsnic_dev_stats_t s0, s1;
    hlsnic_dev_stats(b->d, &s0);
    int r = hlsnic_dev_dma_unmap(b->d, b->sq, 64u << SQ_LOG);
    check(r == 0, "DMA unmap of B's SQ ring", "errno %d", errno);
    r = hlsnic_dev_dma_unmap(b->d, b->sq, 64u << SQ_LOG);
    check(r == -1 && errno == ENOENT, "DMA unmap twice: ENOENT", "r %d errno %d", r, errno);
    post_send(b, (nic_sq_wqe_t){.wr_id = 0xb5, .opcode = NIC_WR_SEND, .flags = NIC_WQE_SIGNALED,
                                .local_addr = (uintptr_t)b->mr, .length = 16, .lkey = b->key});
    double t0 = now_s();
    do {
        pause_us(200);
        hlsnic_dev_stats(b->d, &s1);
    } while (s1.dma_faults == s0.dma_faults && now_s() - t0 < DEADLINE_S);
    check(s1.dma_faults > s0.dma_faults, "DMA fault: WQE fetch from an unmapped SQ refused and counted",
          "dma_faults stayed %" PRIu64, s0.dma_faults);
    r = hlsnic_dev_dma_map(b->d, NULL, 0);
    check(r == -1 && errno == EINVAL, "DMA map of 0 bytes: EINVAL", "r %d errno %d", r, errno);
}

static void bad_mmio(side_t *s) {
    hlsnic_dev_stats_t s0, s1;
    hlsnic_dev_stats(s->d, &s0);
    check(!hlsnic_dev_mmio_error(s->d), "MMIO: no error before the bad accesses", "%s", hlsnic_dev_mmio_error(s->d));
    uint64_t v = hlsnic_mmio_read64(s->d, s->fn, 0x5);
    const char *e = hlsnic_dev_mmio_error(s->d);
    check(v == ~0ull && e && strstr(e, "0x5") && strstr(e, "misaligned"), "MMIO: misaligned read64 answers all ones, named",
          "value 0x%" PRIx64 ", error \"%s\"", v, e ? e : "(null)");
    v = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_SIZE + 8);
    check(v == ~0ull, "MMIO: read64 beyond the BAR answers all ones", "0x%" PRIx64, v);
    v = hlsnic_mmio_read64(s->d, 7, NIC_BAR_ID);
    check(v == ~0ull, "MMIO: read64 of function 7 answers all ones", "0x%" PRIx64, v);
    v = hlsnic_mmio_read64(s->d, s->fn, 0x900);
    check(v == ~0ull, "MMIO: read64 of a hole (0x900) answers all ones", "0x%" PRIx64, v);
    v = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_SQ_DB);
    check(v == ~0ull, "MMIO: read64 of a write-only doorbell answers all ones", "0x%" PRIx64, v);
    hlsnic_mmio_write64(s->d, s->fn, NIC_BAR_ID, 0);
    v = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_ID);
    check(v == (NIC_BAR_MAGIC | (uint64_t)NIC_BAR_VERSION << 32), "MMIO: a write to read-only ID is dropped",
          "ID now 0x%" PRIx64, v);
    hlsnic_mmio_write32(s->d, s->fn, NIC_BAR_SQ_DB, 1);
    uint32_t w = hlsnic_mmio_read32(s->d, s->fn, NIC_BAR_EVENT);
    check(w == 0xffffffffu, "MMIO: read32 of EVENT refused (events pop with 64-bit reads)", "0x%x", w);
    uint8_t buf[8];
    hlsnic_mmio_write_burst(s->d, s->fn, NIC_BAR_CMD + NIC_BAR_CMD_MAX - 4, buf, 8);
    hlsnic_dev_stats(s->d, &s1);
    check(s1.mmio_errors == s0.mmio_errors + 9, "MMIO: every bad access counted",
          "%" PRIu64 " counted, want 9", s1.mmio_errors - s0.mmio_errors);
}

static void stats(side_t *a, side_t *b) {
    hlsnic_dev_stats_t sa, sb;
    hlsnic_dev_stats(a->d, &sa);
    hlsnic_dev_stats(b->d, &sb);
    uint64_t btx = hlsnic_mmio_read64(a->d, a->fn, NIC_BAR_STAT_TX_FRAMES);
    check(btx >= sa.tx_frames && btx > 0, "stats: BAR TX_FRAMES agrees with hlsnic_dev_stats", "BAR %" PRIu64 " stats %" PRIu64,
          btx, sa.tx_frames);
    /* the wire is lossless here: every frame A sent, B received (up to frames in flight) */
    check(sa.tx_dropped == 0 && sb.rx_dropped == 0 && sb.rx_frames + 4 >= sa.tx_frames && sb.rx_frames <= sa.tx_frames,
          "stats: A's tx frames reached B", "A tx %" PRIu64 " dropped %" PRIu64 ", B rx %" PRIu64 " dropped %" PRIu64,
          sa.tx_frames, sa.tx_dropped, sb.rx_frames, sb.rx_dropped);
    printf("INFO stats: A cycles %" PRIu64 " tx %" PRIu64 " rx %" PRIu64 " dma r %" PRIu64 " w %" PRIu64
           " faults %" PRIu64 "; B cycles %" PRIu64 " tx %" PRIu64 " rx %" PRIu64 " faults %" PRIu64 "\n",
           sa.cycles, sa.tx_frames, sa.rx_frames, sa.dma_reads, sa.dma_writes, sa.dma_faults, sb.cycles, sb.tx_frames,
           sb.rx_frames, sb.dma_faults);
}

/* hlsnic_dev_open refuses bad configurations with a reason naming what was wrong. */
static void bad_configs(const char *dir) {
    static const struct { const char *model, *wire, *want, *name; } t[] = {
        {"verilog", NULL, "model 'verilog'", "open: unknown model named"},
        {NULL, "tcp:1,2", "want unix:LOCAL_PATH,REMOTE_PATH or udp:", "open: unknown wire kind named"},
        {NULL, "unix:/nonexistent-dir/a,/tmp/b", "bind /nonexistent-dir/a: No such file or directory",
         "open: unix bind failure named"},
        {NULL, "unix:/tmp/only-one", "no ','", "open: wire without a remote named"},
        {NULL, "udp:127.0.0.1:70000,127.0.0.1:1", "port '70000'", "open: bad udp port named"},
        {NULL, "udp:127.0.0.1,127.0.0.1:1", "want HOST:PORT", "open: udp address without a port named"},
        {NULL, "udp:no.such.host.invalid:5,127.0.0.1:1", "host 'no.such.host.invalid'", "open: unknown host named"},
    };
    for (unsigned i = 0; i < sizeof t / sizeof *t; i++) {
        char err[256] = "";
        hlsnic_dev_config_t c = {.model = t[i].model, .wire = t[i].wire};
        hlsnic_dev_t *d = hlsnic_dev_open(&c, err, sizeof err);
        check(!d && strstr(err, t[i].want), t[i].name, "got %s \"%s\", want NULL and \"%s\"", d ? "a device" : "NULL",
              err, t[i].want);
        hlsnic_dev_close(d);
    }
    char err[256] = "", pc[512];
    snprintf(pc, sizeof pc, "%s/no-such-dir/x.pcap", dir);
    hlsnic_dev_config_t c = {.pcap = pc};
    hlsnic_dev_t *d = hlsnic_dev_open(&c, err, sizeof err);
    check(!d && strstr(err, "pcap") && strstr(err, "no-such-dir"), "open: unwritable pcap named", "\"%s\"", err);
    hlsnic_dev_close(d);
    c = (hlsnic_dev_config_t){.model = "rtl"};
    d = hlsnic_dev_open(&c, err, sizeof err);
    check(d || strstr(err, "model rtl: this build has no RTL model"), "open: model rtl opens, or says the build has none",
          "\"%s\"", err);
    hlsnic_dev_close(d);
}

/* The port against raw datagrams: the test binds the device's remote address itself. An
 * empty datagram is dropped and counted, a runt (20 bytes) is delivered as it is (pcap shows
 * 20 bytes), and a flood larger than the NIC's receive queue waits in the socket (the unix
 * receive queue back-pressures the sender) and is all delivered: nothing is dropped inside the
 * device, and the device never blocks on the socket. */
static void port(const char *dir) {
    char dev_path[256], peer_path[256], wire[600], pc[300], err[256];
    snprintf(dev_path, sizeof dev_path, "%s/port-dev", dir);
    snprintf(peer_path, sizeof peer_path, "%s/port-peer", dir);
    snprintf(pc, sizeof pc, "%s/port.pcap", dir);
    snprintf(wire, sizeof wire, "unix:%s,%s", dev_path, peer_path);
    hlsnic_dev_config_t c = {.wire = wire, .pcap = pc};
    hlsnic_dev_t *d = hlsnic_dev_open(&c, err, sizeof err);
    check(d != NULL, "port: open", "%s", err);
    if (!d) return;
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un me = {.sun_family = AF_UNIX}, to = {.sun_family = AF_UNIX};
    snprintf(me.sun_path, sizeof me.sun_path, "%s", peer_path);
    snprintf(to.sun_path, sizeof to.sun_path, "%s", dev_path);
    int sz = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    check(fd >= 0 && !bind(fd, (struct sockaddr *)&me, sizeof me), "port: the test binds the device's remote address",
          "%s", strerror(errno));
    uint8_t f[60] = {0x02, 0, 0, 0, 0, 0x99, 0x02, 0, 0, 0, 0, 0x98, 0x08, 0x00};
    hlsnic_dev_stats_t s0, s1;
    hlsnic_dev_stats(d, &s0);
    sendto(fd, f, 0, 0, (struct sockaddr *)&to, sizeof to);
    sendto(fd, f, 20, 0, (struct sockaddr *)&to, sizeof to);
    double t0 = now_s();
    do {
        pause_us(1000);
        hlsnic_dev_stats(d, &s1);
    } while (s1.rx_frames + s1.rx_dropped < s0.rx_frames + s0.rx_dropped + 2 && now_s() - t0 < DEADLINE_S);
    check(s1.rx_frames == s0.rx_frames + 1 && s1.rx_dropped == s0.rx_dropped + 1,
          "port: an empty datagram dropped and counted, a 20-byte runt delivered",
          "rx_frames +%" PRIu64 ", rx_dropped +%" PRIu64 ", want +1 and +1", s1.rx_frames - s0.rx_frames,
          s1.rx_dropped - s0.rx_dropped);
    enum { FLOOD = 3000 };
    unsigned sent = 0;
    for (unsigned i = 0; i < FLOOD; i++) sent += sendto(fd, f, sizeof f, 0, (struct sockaddr *)&to, sizeof to) == sizeof f;
    t0 = now_s();
    do {
        pause_us(1000);
        hlsnic_dev_stats(d, &s0);
    } while (s0.rx_frames + s0.rx_dropped < s1.rx_frames + s1.rx_dropped + sent && now_s() - t0 < DEADLINE_S);
    uint64_t got = s0.rx_frames - s1.rx_frames, dropped = s0.rx_dropped - s1.rx_dropped;
    check(sent == FLOOD && got == sent && dropped == 0,
          "port: a flood past the NIC's receive queue waits in the socket and is all delivered",
          "sent %u of %u, delivered %" PRIu64 ", dropped %" PRIu64, sent, FLOOD, got, dropped);
    uint64_t bar = hlsnic_mmio_read64(d, 0, NIC_BAR_STAT_RX_DROPPED);
    check(bar == s0.rx_dropped, "port: NIC_BAR_STAT_RX_DROPPED agrees", "BAR %" PRIu64 ", stats %" PRIu64, bar,
          s0.rx_dropped);
    hlsnic_dev_close(d);
    close(fd);
    unlink(peer_path);
    check(access(dev_path, F_OK) != 0, "port: close removes the device's socket path", "%s still there", dev_path);
    /* the pcap: the runt as 20 bytes (nothing padded on receive) */
    FILE *p = fopen(pc, "rb");
    uint8_t hdr[24], rec[16];
    uint32_t incl = 0;
    bool ok = p && fread(hdr, 1, 24, p) == 24 && fread(rec, 1, 16, p) == 16;
    if (ok) memcpy(&incl, rec + 8, 4);
    if (p) fclose(p);
    check(ok && incl == 20, "port: pcap records the runt as 20 bytes", "first record %u bytes", incl);
}

/* frames delivered to d since *seen, waiting up to DEADLINE_S for want of them */
static uint64_t rx_since(hlsnic_dev_t *d, uint64_t *seen, uint64_t want) {
    hlsnic_dev_stats_t s;
    double t0 = now_s();
    do {
        pause_us(1000);
        hlsnic_dev_stats(d, &s);
    } while (s.rx_frames < *seen + want && now_s() - t0 < DEADLINE_S);
    uint64_t got = s.rx_frames - *seen;
    *seen = s.rx_frames;
    return got;
}

/* The port handed over (what a migration's switch-over does): device D's port moved to E,
 * opened with none; frames sent to D's address then reach E, not D; the errors are named; a
 * port attached later to D works; each close removes the path its device held last. */
static void port_move(const char *dir) {
    char d_path[256], e_path[256], peer_path[256], wire[600], wire2[600], err[256];
    snprintf(d_path, sizeof d_path, "%s/move-d", dir);
    snprintf(e_path, sizeof e_path, "%s/move-d2", dir);
    snprintf(peer_path, sizeof peer_path, "%s/move-peer", dir);
    snprintf(wire, sizeof wire, "unix:%s,%s", d_path, peer_path);
    snprintf(wire2, sizeof wire2, "unix:%s,%s", e_path, peer_path);
    hlsnic_dev_t *d = hlsnic_dev_open(&(hlsnic_dev_config_t){.wire = wire}, err, sizeof err);
    hlsnic_dev_t *e = d ? hlsnic_dev_open(&(hlsnic_dev_config_t){.wire = NULL}, err, sizeof err) : NULL;
    check(d && e, "port move: open D on a wire and E with none", "%s", err);
    if (!d || !e) {
        hlsnic_dev_close(d);
        return;
    }
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un to_d = {.sun_family = AF_UNIX}, to_e = {.sun_family = AF_UNIX};
    snprintf(to_d.sun_path, sizeof to_d.sun_path, "%s", d_path);
    snprintf(to_e.sun_path, sizeof to_e.sun_path, "%s", e_path);
    uint8_t f[60] = {0x02, 0, 0, 0, 0, 0x99, 0x02, 0, 0, 0, 0, 0x98, 0x08, 0x00};
    uint64_t seen_d = 0, seen_e = 0;
    int bad_from = hlsnic_dev_wire_move(e, d, err, sizeof err);
    check(bad_from && strstr(err, "the source device has no port"), "port move: from a device without a port refused, named", "rc %d: %s",
          bad_from, err);
    int bad_to = hlsnic_dev_wire_move(d, d, err, sizeof err);
    check(bad_to && strstr(err, "one device"), "port move: onto itself refused, named", "rc %d: %s", bad_to, err);
    int moved = hlsnic_dev_wire_move(d, e, err, sizeof err);
    check(!moved, "port move: D's port moved to E", "%s", err);
    for (unsigned i = 0; i < 3; i++) sendto(fd, f, sizeof f, 0, (struct sockaddr *)&to_d, sizeof to_d);
    uint64_t got_e = rx_since(e, &seen_e, 3), got_d = rx_since(d, &seen_d, 0);
    check(got_e == 3 && got_d == 0, "port move: frames to D's address now reach E, not D", "E received %" PRIu64 ", D %" PRIu64, got_e,
          got_d);
    int again = hlsnic_dev_wire_move(d, e, err, sizeof err);
    check(again && strstr(err, "no port"), "port move: D has no port any more", "rc %d: %s", again, err);
    int busy = hlsnic_dev_wire_attach(e, wire2, err, sizeof err);
    check(busy && strstr(err, "has a port already") && access(e_path, F_OK) != 0,
          "port attach: to a device that has a port refused, named, nothing left bound", "rc %d: %s", busy, err);
    int bogus = hlsnic_dev_wire_attach(d, "unix:nocomma", err, sizeof err);
    check(bogus && strstr(err, "no ','"), "port attach: a bad wire refused with the open's message", "rc %d: %s", bogus, err);
    int att = hlsnic_dev_wire_attach(d, wire2, err, sizeof err);
    for (unsigned i = 0; i < 2; i++) sendto(fd, f, sizeof f, 0, (struct sockaddr *)&to_e, sizeof to_e);
    got_d = rx_since(d, &seen_d, 2);
    check(!att && got_d == 2, "port attach: D on a new address receives its frames", "rc %d (%s), D received %" PRIu64, att, att ? err : "",
          got_d);
    hlsnic_dev_close(e);
    hlsnic_dev_close(d);
    close(fd);
    check(access(d_path, F_OK) != 0 && access(e_path, F_OK) != 0, "port move: each close removes the path its device held",
          "%s %s, %s %s", d_path, access(d_path, F_OK) ? "gone" : "still there", e_path, access(e_path, F_OK) ? "gone" : "still there");
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: dev_test WIRE_A WIRE_B [c|rtl|quick|rtl-quick] [PCAP]\n");
        return 2;
    }
    const char *mode = argc > 3 ? argv[3] : "c";
    if (!strcmp(mode, "configs") || !strcmp(mode, "port")) { /* WIRE_A is a scratch directory here */
        if (mode[0] == 'c') bad_configs(argv[1]);
        else {
            port(argv[1]);
            port_move(argv[1]);
        }
        return failures ? 1 : 0;
    }
    bool quick = strstr(mode, "quick") != NULL;
    const char *model = !strncmp(mode, "rtl", 3) ? "rtl" : "c";
    char err[256];
    hlsnic_dev_config_t ca = {.model = model, .wire = argv[1], .pcap = argc > 4 ? argv[4] : NULL};
    hlsnic_dev_config_t cb = {.model = model, .wire = argv[2]};
    side_t a = {.name = "A", .fn = 0, .mac = 0x020000000a01ull, .ip = 0x0a000001, .qpn = 0x11, .key = 0x0105, .psn = 100};
    side_t b = {.name = "B", .fn = 2, .mac = 0x020000000b02ull, .ip = 0x0a000002, .qpn = 0x22, .key = 0x0307, .psn = 5000};
    a.d = hlsnic_dev_open(&ca, err, sizeof err);
    check(a.d != NULL, "open device A", "%s", err);
    b.d = a.d ? hlsnic_dev_open(&cb, err, sizeof err) : NULL;
    check(b.d != NULL, "open device B", "%s", err);
    if (!a.d || !b.d) return 1;
    double t0 = now_s();
    registers(&a);
    if (setup(&a, &b) && setup(&b, &a)) {
        send_recv(&a, &b, quick ? (strcmp(model, "rtl") ? "quick: " : "rtl: ") : "");
        if (!quick) {
            bad_command(&a);
            write_read(&a, &b);
            cq_arm(&a, &b);
            pingpong(&a, &b, 2 * (NIC_BAR_EVENT_DEPTH + 4));
            write_fault(&a, &b);
            events(&a, &b);
            read_fault(&b);
            bad_mmio(&a);
        }
        stats(&a, &b);
    }
    hlsnic_dev_stats_t sa;
    hlsnic_dev_stats(a.d, &sa);
    double dt = now_s() - t0;
    printf("INFO %s run: %.2f s wall, A ran %" PRIu64 " cycles (%.0f cycles/s)\n", model, dt, sa.cycles, sa.cycles / dt);
    hlsnic_dev_close(a.d);
    hlsnic_dev_close(b.d);
    return failures ? 1 : 0;
}
