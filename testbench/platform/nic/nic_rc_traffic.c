/* nic_rc_traffic.c — the RC traffic of the platform's NIC tests; nic_rc_traffic.h says what.
 *
 * Each side's MR starts filled with a pattern; the test keeps what both MRs must hold after
 * every operation (`want`) and compares all of both MRs with host memory after each one, so
 * a byte written where it should not be (a byte enable ignored, an offset off by one) fails
 * as surely as a byte missing. */
#include "nic_rc_traffic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_host.h"

enum { A = 0, B = 1 };

struct nic_rc {
    nic_rc_setup_t s;
    nic_host_t h[2];
    uint8_t *want[2];   /* what each MR must hold */
    uint8_t *got;       /* scratch: an MR read back */
    uint64_t wr_id;
    int failures;
};

static void check(nic_rc_t *rc, int ok, const char *what, const char *why) {
    if (ok) {
        printf("PASS %s/%s\n", rc->s.prefix, what);
        return;
    }
    printf("FAIL %s/%s: %s\n", rc->s.prefix, what, why);
    rc->failures++;
}

static uint8_t pattern(unsigned seed, unsigned side, uint64_t i) {
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(seed * 2 + side) << 40;
    x ^= x >> 29;
    return (uint8_t)(x | 1); /* never 0: a byte never written reads 0 */
}

nic_rc_t *nic_rc_new(const nic_rc_setup_t *s) {
    nic_rc_t *rc = calloc(1, sizeof *rc);
    if (!rc) abort();
    rc->s = *s;
    static const uint64_t mac[2] = {0x020000000a01ull, 0x020000000b02ull};
    static const uint32_t ip[2] = {0x0a000001, 0x0a000002}, qpn[2] = {0x11, 0x22}, psn[2] = {100, 5000};
    char why[512];
    for (int k = A; k <= B; k++) {
        nic_host_t *h = &rc->h[k];
        h->ops = s->ops[k];
        h->fn = s->fn[k];
        h->mac = mac[k];
        h->ip = ip[k];
        h->qpn = qpn[k];
        h->psn = psn[k];
        h->mr_key = 0x0105u + 0x100u * (unsigned)k;
        h->pd = 7;
        nic_host_layout(h, s->base[k], s->mr_len);
        rc->want[k] = calloc(1, s->mr_len);
        if (!rc->want[k]) abort();
        if (s->mr_at[k]) {   /* a device's memory: it starts as the device has it (zero) */
            h->mr_base = s->mr_at[k];
            continue;
        }
        for (uint64_t i = 0; i < s->mr_len; i++) rc->want[k][i] = pattern(s->seed, (unsigned)k, i);
        h->ops.mem_write(h->ops.ctx, h->mr_base, rc->want[k], s->mr_len);
    }
    rc->got = malloc(s->mr_len);
    if (!rc->got) abort();
    int ok = 1;
    for (int k = A; k <= B && ok; k++) {
        ok = nic_host_create(&rc->h[k]) == 0;
        snprintf(why, sizeof why, "%s", rc->h[k].error);
        check(rc, ok, k == A ? "create A (SET_FN, 2 CQs, QP, MR over the mailbox)" : "create B (SET_FN, 2 CQs, QP, MR over the mailbox)", why);
    }
    for (int k = A; k <= B && ok; k++) {
        ok = nic_host_connect(&rc->h[k], &rc->h[1 - k], s->pmtu) == 0;
        snprintf(why, sizeof why, "%s", rc->h[k].error);
        check(rc, ok, k == A ? "connect A (RESET->INIT->RTR->RTS)" : "connect B (RESET->INIT->RTR->RTS)", why);
    }
    if (!ok) {
        nic_rc_free(rc);
        return NULL;
    }
    return rc;
}

void nic_rc_free(nic_rc_t *rc) {
    if (!rc) return;
    free(rc->want[A]);
    free(rc->want[B]);
    free(rc->got);
    free(rc);
}

/* Both MRs equal to what they must hold: 1; else 0 and the first difference in why. */
static int mrs_ok(nic_rc_t *rc, char *why, size_t n) {
    for (int k = A; k <= B; k++) {
        nic_host_t *h = &rc->h[k];
        if (rc->s.mr_at[k]) continue;   /* not in host memory: its owner checks it */
        h->ops.mem_read(h->ops.ctx, h->mr_base, rc->got, rc->s.mr_len);
        for (uint64_t i = 0; i < rc->s.mr_len; i++)
            if (rc->got[i] != rc->want[k][i]) {
                snprintf(why, n, "%s's MR byte %llu (host address 0x%llx) is 0x%02x, want 0x%02x", k == A ? "A" : "B",
                         (unsigned long long)i, (unsigned long long)(h->mr_base + i), rc->got[i], rc->want[k][i]);
                return 0;
            }
    }
    return 1;
}

/* The next CQE of side k's cq matches: 1; else 0 with why. */
static int cqe_ok(nic_rc_t *rc, int k, int cq, uint64_t wr_id, unsigned opcode, long len, char *why, size_t n) {
    nic_cqe_t e;
    if (!nic_host_poll(&rc->h[k], cq, &e)) {
        snprintf(why, n, "%s", rc->h[k].error);
        return 0;
    }
    if (e.wr_id != wr_id || e.opcode != opcode || e.status != NIC_WC_SUCCESS || (len >= 0 && e.byte_len != (uint32_t)len)) {
        snprintf(why, n, "%s's CQE: wr_id %llu opcode %u status %u byte_len %u; want wr_id %llu opcode %u status 0%s",
                 k == A ? "A" : "B", (unsigned long long)e.wr_id, e.opcode, e.status, e.byte_len,
                 (unsigned long long)wr_id, opcode, len >= 0 ? " and the length" : "");
        return 0;
    }
    return 1;
}

static nic_sq_wqe_t wqe(nic_rc_t *rc, int k, unsigned opcode, uint64_t local_off, uint32_t len, uint64_t remote_off) {
    nic_sq_wqe_t w = {.wr_id = ++rc->wr_id, .opcode = (uint8_t)opcode, .flags = NIC_WQE_SIGNALED,
                      .local_addr = rc->h[k].mr_base + local_off, .length = len, .lkey = rc->h[k].mr_key,
                      .remote_addr = rc->h[1 - k].mr_base + remote_off, .rkey = rc->h[1 - k].mr_key};
    return w;
}

/* SEND (with or without immediate) of len bytes from side k at src_off into a receive buffer
 * the other side posted at dst_off. */
static void send(nic_rc_t *rc, const char *name, int k, unsigned opcode, uint64_t src_off, uint32_t len, uint64_t dst_off) {
    char why[512] = "";
    int r = 1 - k;
    nic_rq_wqe_t rw = {.wr_id = ++rc->wr_id, .addr = rc->h[r].mr_base + dst_off, .length = len + 64, .lkey = rc->h[r].mr_key};
    nic_host_post_recv(&rc->h[r], &rw);
    nic_sq_wqe_t w = wqe(rc, k, opcode, src_off, len, 0);
    w.imm = 0xfeed0000u + (uint32_t)rc->wr_id;
    nic_host_post_send(&rc->h[k], &w);
    memcpy(rc->want[r] + dst_off, rc->want[k] + src_off, len);
    int ok = cqe_ok(rc, k, NIC_HOST_SEND_CQ, w.wr_id, NIC_WC_SEND, -1, why, sizeof why) &&
             cqe_ok(rc, r, NIC_HOST_RECV_CQ, rw.wr_id, NIC_WC_RECV, len, why, sizeof why) && mrs_ok(rc, why, sizeof why);
    check(rc, ok, name, why);
}

/* WRITE or READ of len bytes between side k's local_off and the other side's remote_off. */
static void rdma(nic_rc_t *rc, const char *name, int k, unsigned opcode, uint64_t local_off, uint32_t len, uint64_t remote_off) {
    char why[512] = "";
    nic_sq_wqe_t w = wqe(rc, k, opcode, local_off, len, remote_off);
    nic_host_post_send(&rc->h[k], &w);
    if (opcode == NIC_WR_WRITE) memcpy(rc->want[1 - k] + remote_off, rc->want[k] + local_off, len);
    else memcpy(rc->want[k] + local_off, rc->want[1 - k] + remote_off, len);
    int ok = cqe_ok(rc, k, NIC_HOST_SEND_CQ, w.wr_id, opcode == NIC_WR_WRITE ? NIC_WC_RDMA_WRITE : NIC_WC_RDMA_READ, -1, why,
                    sizeof why) &&
             mrs_ok(rc, why, sizeof why);
    check(rc, ok, name, why);
}

static uint64_t get64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* CAS or FAA by side k on the other side's 8-byte word at remote_off; the old value lands at
 * local_off. */
static void atomic(nic_rc_t *rc, const char *name, int k, unsigned opcode, uint64_t local_off, uint64_t remote_off,
                   uint64_t compare, uint64_t swap_add) {
    char why[512] = "";
    nic_sq_wqe_t w = wqe(rc, k, opcode, local_off, 8, remote_off);
    w.compare = compare;
    w.swap_add = swap_add;
    uint64_t old = get64(rc->want[1 - k] + remote_off);
    nic_host_post_send(&rc->h[k], &w);
    put64(rc->want[k] + local_off, old);
    if (opcode == NIC_WR_FAA) put64(rc->want[1 - k] + remote_off, old + swap_add);
    else if (old == compare) put64(rc->want[1 - k] + remote_off, swap_add);
    int ok = cqe_ok(rc, k, NIC_HOST_SEND_CQ, w.wr_id, opcode == NIC_WR_FAA ? NIC_WC_FETCH_ADD : NIC_WC_COMP_SWAP, -1, why,
                    sizeof why) &&
             mrs_ok(rc, why, sizeof why);
    check(rc, ok, name, why);
}

int nic_rc_verbs(nic_rc_t *rc) {
    int before = rc->failures;
    uint64_t half = rc->s.mr_len / 2;
    send(rc, "SEND 100 B A->B", A, NIC_WR_SEND, 0, 100, half);
    send(rc, "SEND with immediate 3000 B B->A (3 packets)", B, NIC_WR_SEND_IMM, 64, 3000, half + 0x100);
    rdma(rc, "WRITE 5000 B A->B, remote address +13 (unaligned)", A, NIC_WR_WRITE, 7, 5000, 0x2000 + 13);
    rdma(rc, "READ 3000 B of B into A, local address +5 (unaligned)", A, NIC_WR_READ, 0x4000 + 5, 3000, 0x3000 + 3);
    rdma(rc, "WRITE 1 B B->A", B, NIC_WR_WRITE, 1, 1, 0x5000 + 61);
    uint64_t word = 0x6000;
    atomic(rc, "CAS A on B, compare equal: swapped", A, NIC_WR_CAS, 0x6100, word, get64(rc->want[B] + word), 0x1122334455667788ull);
    atomic(rc, "CAS A on B, compare unequal: kept", A, NIC_WR_CAS, 0x6108, word, 42, 7);
    atomic(rc, "FAA A on B", A, NIC_WR_FAA, 0x6110, word, 0, 0x1000000001ull);
    atomic(rc, "FAA B on A", B, NIC_WR_FAA, 0x6118, 0x6200, 0, 5);
    return rc->failures - before;
}

int nic_rc_bulk_write(nic_rc_t *rc, unsigned count, unsigned size, uint64_t *cycles, uint64_t *bytes) {
    int before = rc->failures;
    char why[512] = "", name[128];
    snprintf(name, sizeof name, "bulk WRITE %u x %u B A->B", count, size);
    if ((uint64_t)count * size > rc->s.mr_len) {
        check(rc, 0, name, "does not fit the MR");
        return 1;
    }
    nic_host_t *a = &rc->h[A];
    uint64_t first = 0, t0 = a->ops.cycles(a->ops.ctx);
    nic_sq_wqe_t w[64];
    for (unsigned i = 0; i < count && i < 64; i++) {
        w[i] = wqe(rc, A, NIC_WR_WRITE, (uint64_t)i * size, size, (uint64_t)i * size);
        nic_host_post_send(a, &w[i]);
        memcpy(rc->want[B] + (uint64_t)i * size, rc->want[A] + (uint64_t)i * size, size);
        if (!i) first = w[i].wr_id;
    }
    int ok = count <= 64;
    for (unsigned i = 0; i < count && ok; i++) ok = cqe_ok(rc, A, NIC_HOST_SEND_CQ, first + i, NIC_WC_RDMA_WRITE, -1, why, sizeof why);
    *cycles = a->ops.cycles(a->ops.ctx) - t0;
    ok = ok && mrs_ok(rc, why, sizeof why);
    *bytes = ok ? (uint64_t)count * size : 0;
    check(rc, ok, name, why);
    return rc->failures - before;
}

uint64_t nic_rc_start_write(nic_rc_t *rc, int side, uint64_t local_off, uint32_t len, uint64_t remote_off) {
    nic_sq_wqe_t w = wqe(rc, side, NIC_WR_WRITE, local_off, len, remote_off);
    nic_host_post_send(&rc->h[side], &w);
    memcpy(rc->want[1 - side] + remote_off, rc->want[side] + local_off, len);
    return w.wr_id;
}

int nic_rc_wait_send(nic_rc_t *rc, int side, uint64_t wr_id, const char *name) {
    char why[512] = "";
    int ok = cqe_ok(rc, side, NIC_HOST_SEND_CQ, wr_id, NIC_WC_RDMA_WRITE, -1, why, sizeof why);
    check(rc, ok, name, why);
    return ok;
}

const uint8_t *nic_rc_expected(const nic_rc_t *rc, int side) { return rc->want[side]; }
