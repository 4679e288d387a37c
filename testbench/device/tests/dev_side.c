/* dev_side.c — one side of a device test: a device, its function, its memory, driven as a
 * provider drives it (MMIO and dma_map only); shared by dev_test.c and vfio_test.c. dev_side.h
 * says what each helper does. */
#define _GNU_SOURCE
#include "dev_side.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int failures;
char why[1024];

void check(bool ok, const char *name, const char *fmt, ...) {
    if (ok) {
        printf("PASS %s\n", name);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", name, why);
    failures++;
}

double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
void pause_us(unsigned us) {
    struct timespec t = {0, (long)us * 1000};
    nanosleep(&t, NULL);
}


void *mem(size_t len) {
    void *p = aligned_alloc(4096, (len + 4095) / 4096 * 4096);
    if (!p) abort();
    memset(p, 0, len);
    return p;
}

/* A command through the mailbox: bytes, GO, poll STATUS, response bytes. Status or -1. */
int command(side_t *s, nic_cmd_t c, nic_cmd_resp_t *resp) {
    c.fn = 3; /* wrong on purpose: the device must put the BAR's function here */
    hlsnic_mmio_write_burst(s->d, s->fn, NIC_BAR_CMD, &c, sizeof c);
    hlsnic_mmio_write64(s->d, s->fn, NIC_BAR_CMD_GO, 1);
    double t0 = now_s();
    uint64_t st;
    while ((st = hlsnic_mmio_read64(s->d, s->fn, NIC_BAR_CMD_STATUS)) & NIC_CMD_STATUS_BUSY) {
        if (now_s() - t0 > DEADLINE_S) return -1;
        pause_us(20);
    }
    if (!(st & NIC_CMD_STATUS_DONE)) return -1;
    nic_cmd_resp_t r;
    hlsnic_mmio_read_burst(s->d, s->fn, NIC_BAR_RESP, &r, sizeof r);
    if (r.status != ((st >> 8) & 0xff) || r.bad_field != ((st >> 16) & 0xff)) return -2;
    if (resp) *resp = r;
    return r.status;
}

unsigned cq_row(const side_t *s, uint32_t cqn) { return s->fn * NIC_CQ_PER_FN + cqn % NIC_CQ_PER_FN; }

bool setup(side_t *s, const side_t *peer) {
    char n[128];
    int r;
    for (int q = SCQ; q <= RCQ; q++) {
        s->cq[q] = mem(32u << CQ_LOG);
        hlsnic_dev_dma_map(s->d, s->cq[q], 32u << CQ_LOG);
    }
    s->sq = mem(64u << SQ_LOG);
    s->rq = mem(32u << RQ_LOG);
    s->mr = mem(MR_LEN);
    hlsnic_dev_dma_map(s->d, s->sq, 64u << SQ_LOG);
    hlsnic_dev_dma_map(s->d, s->rq, 32u << RQ_LOG);
    hlsnic_dev_dma_map(s->d, s->mr, MR_LEN - 4096); /* the last page stays unmapped: the fault test */

    snprintf(n, sizeof n, "%s: SET_FN", s->name);
    r = command(s, (nic_cmd_t){.op = NIC_CMD_SET_FN, .mac = s->mac, .ip = s->ip}, NULL);
    check(r == 0, n, "status %d", r);
    for (int q = SCQ; q <= RCQ; q++) {
        snprintf(n, sizeof n, "%s: CREATE_CQ %d", s->name, q);
        r = command(s, (nic_cmd_t){.op = NIC_CMD_CREATE_CQ, .num = (uint32_t)q, .base = (uintptr_t)s->cq[q], .log = CQ_LOG},
                    NULL);
        check(r == 0, n, "status %d", r);
    }
    nic_cmd_t c = {.op = NIC_CMD_CREATE_QP, .num = s->qpn};
    c.qp.qpn = (hls_u24)s->qpn;
    c.qp.sq_base = (uintptr_t)s->sq;
    c.qp.rq_base = (uintptr_t)s->rq;
    c.qp.sq_log = SQ_LOG;
    c.qp.rq_log = RQ_LOG;
    c.qp.send_cq = (nic_cq_t)cq_row(s, SCQ);
    c.qp.recv_cq = (nic_cq_t)cq_row(s, RCQ);
    c.qp.pd = 7;
    c.qp.access = ACC;
    nic_cmd_resp_t resp;
    r = command(s, c, &resp);
    snprintf(n, sizeof n, "%s: CREATE_QP (function forced from the BAR)", s->name);
    check(r == 0, n, "status %d bad_field %u", r, resp.bad_field);

    /* RESET -> INIT -> RTR -> RTS, as rdma-core's ibv_modify_qp sequence does */
    /* the masks ib_modify_qp_is_ok requires (rdma-core's ibv_rc_pingpong sends these) */
#ifdef NIC_MAX_DEST_RD_ATOMIC /* ctrl knows pkey_index, port and the rd_atomic limits */
    const uint32_t init_more = NIC_QPA_PKEY_INDEX | NIC_QPA_PORT, rtr_more = NIC_QPA_MAX_DEST_RD_ATOMIC,
                   rts_more = NIC_QPA_MAX_QP_RD_ATOMIC;
#else
    const uint32_t init_more = 0, rtr_more = 0, rts_more = 0;
#endif
    c = (nic_cmd_t){.op = NIC_CMD_MODIFY_QP, .num = s->qpn, .mask = NIC_QPA_STATE | NIC_QPA_ACCESS | init_more};
    c.qp.state = NIC_QPS_INIT;
    c.qp.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
#ifdef NIC_MAX_DEST_RD_ATOMIC
    c.qp.port_num = 1;
    c.qp.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    c.qp.max_rd_atomic = NIC_MAX_DEST_RD_ATOMIC; /* the peer's responder resources */
#endif
    int r1 = command(s, c, NULL);
    c.mask = NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN | NIC_QPA_MIN_RNR_TIMER |
             rtr_more;
    c.qp.state = NIC_QPS_RTR;
    c.qp.dst_mac = peer->mac;
    c.qp.dst_ip = peer->ip;
    c.qp.udp_sport = (uint16_t)(0xc000 | s->qpn);
    c.qp.pmtu = PMTU;
    c.qp.dest_qpn = (hls_u24)peer->qpn;
    c.qp.rq_psn = (hls_u24)peer->psn;
    c.qp.min_rnr_timer = 1;
    int r2 = command(s, c, NULL);
    c.mask = NIC_QPA_STATE | NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY | rts_more;
    c.qp.state = NIC_QPS_RTS;
    c.qp.sq_psn = (hls_u24)s->psn;
    c.qp.timeout = (hls_uint(5))(s->timeout ? s->timeout : 14);
    c.qp.retry_cnt = 7;
    c.qp.rnr_retry = 7;
    int r3 = command(s, c, NULL);
    snprintf(n, sizeof n, "%s: MODIFY_QP INIT, RTR, RTS", s->name);
    check(!r1 && !r2 && !r3, n, "statuses %d %d %d", r1, r2, r3);

    r = command(s, (nic_cmd_t){.op = NIC_CMD_REG_MR, .num = s->key, .base = (uintptr_t)s->mr, .len = MR_LEN, .pd = 7,
                               .access = ACC},
                NULL);
    snprintf(n, sizeof n, "%s: REG_MR", s->name);
    check(r == 0, n, "status %d", r);
    return !failures;
}

bool map_side(hlsnic_dev_t *d, side_t *s) {
    return !hlsnic_dev_dma_map(d, s->cq[SCQ], 32u << CQ_LOG) && !hlsnic_dev_dma_map(d, s->cq[RCQ], 32u << CQ_LOG) &&
           !hlsnic_dev_dma_map(d, s->sq, 64u << SQ_LOG) && !hlsnic_dev_dma_map(d, s->rq, 32u << RQ_LOG) &&
           !hlsnic_dev_dma_map(d, s->mr, MR_LEN - 4096);
}

/* ---- the datapath, as a provider's post_send / post_recv / poll_cq do it ----------------- */
void post_send(side_t *s, nic_sq_wqe_t w) {
    s->sq[s->sq_pi & ((1u << SQ_LOG) - 1)] = w;
    s->sq_pi++;
    hlsnic_mmio_write64(s->d, s->fn, NIC_BAR_SQ_DB, NIC_DB_VALUE(s->qpn, s->sq_pi, 0));
}
void post_recv(side_t *s, nic_rq_wqe_t w) {
    s->rq[s->rq_pi & ((1u << RQ_LOG) - 1)] = w;
    s->rq_pi++;
    hlsnic_mmio_write64(s->d, s->fn, NIC_BAR_RQ_DB, NIC_DB_VALUE(s->qpn, s->rq_pi, 0));
}
/* The next CQE by its owner bit (acquire: the CQE's other bytes and the data it reports are
 * visible once the owner byte is, docs/device.md); false after the deadline. */
bool poll_cq(side_t *s, int q, nic_cqe_t *out) {
    double t0 = now_s();
    uint32_t ci = s->ci[q];
    nic_cqe_t *e = &s->cq[q][ci & ((1u << CQ_LOG) - 1)];
    uint8_t want = ((ci >> CQ_LOG) & 1) ? 0 : NIC_CQE_OWNER;
    while ((__atomic_load_n(&e->owner, __ATOMIC_ACQUIRE) & NIC_CQE_OWNER) != want) {
        if (now_s() - t0 > DEADLINE_S) return false;
        pause_us(20);
    }
    /* The device stores in 8-byte words (dev_dma.c), so read the CQE in 8-byte atomic loads:
     * the same bytes, and under ThreadSanitizer (tests/run) atomic against atomic, which it can
     * check, where a plain copy of bytes the clock thread stores atomically is reported. */
    _Static_assert(sizeof *e % 8 == 0, "a CQE is whole 8-byte words");
    uint64_t w[sizeof *e / 8];
    for (unsigned i = 0; i < sizeof *e / 8; i++) w[i] = __atomic_load_n((const uint64_t *)(const void *)e + i, __ATOMIC_RELAXED);
    memcpy(out, w, sizeof w);
    s->ci[q] = ++ci;
    hlsnic_mmio_write64(s->d, s->fn, NIC_BAR_CQ_DB, NIC_DB_VALUE(q, ci, 0));
    return true;
}

void fill(uint8_t *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
}

bool cqe_ok(const char *name, side_t *s, int q, uint64_t wr_id, unsigned opc, unsigned status, long len) {
    nic_cqe_t e;
    char n[160];
    snprintf(n, sizeof n, "%s", name);
    if (!poll_cq(s, q, &e)) {
        hlsnic_dev_stats_t st;
        hlsnic_dev_stats(s->d, &st);
        check(false, n, "no CQE on %s's %s CQ within %.0f s (cycle %" PRIu64 ", tx %" PRIu64 " rx %" PRIu64
                        " dma r %" PRIu64 " w %" PRIu64 " faults %" PRIu64 ")",
              s->name, q == SCQ ? "send" : "recv", DEADLINE_S, st.cycles, st.tx_frames, st.rx_frames, st.dma_reads,
              st.dma_writes, st.dma_faults);
        return false;
    }
    bool ok = e.wr_id == wr_id && e.opcode == opc && e.status == status && (e.qpn & 0xffffff) == s->qpn &&
              (len < 0 || e.byte_len == (uint32_t)len);
    check(ok, n, "CQE wr_id 0x%" PRIx64 " opcode %u status %u qpn 0x%x byte_len %u; want wr_id 0x%" PRIx64
                 " opcode %u status %u qpn 0x%x byte_len %ld",
          e.wr_id, e.opcode, e.status, e.qpn & 0xffffff, e.byte_len, wr_id, opc, status, s->qpn, len);
    return ok;
}

void bytes_equal(const char *name, const uint8_t *got, const uint8_t *want, size_t n) {
    size_t i = 0;
    while (i < n && got[i] == want[i]) i++;
    check(i == n, name, "first difference at byte %zu of %zu: 0x%02x, want 0x%02x", i, n, i < n ? got[i] : 0,
          i < n ? want[i] : 0);
}

void send_recv(side_t *a, side_t *b, const char *tag) {
    char n[128];
    uint8_t *src = a->mr, *dst = b->mr + 0x100;
    fill(src, 100, 1);
    memset(dst, 0xee, 200);
    post_recv(b, (nic_rq_wqe_t){.wr_id = 0xb0, .addr = (uintptr_t)dst, .length = 200, .lkey = b->key});
    post_send(a, (nic_sq_wqe_t){.wr_id = 0xa0, .opcode = NIC_WR_SEND, .flags = NIC_WQE_SIGNALED,
                                .local_addr = (uintptr_t)src, .length = 100, .lkey = a->key});
    snprintf(n, sizeof n, "%sSEND 100: A's send CQE", tag);
    cqe_ok(n, a, SCQ, 0xa0, NIC_WC_SEND, NIC_WC_SUCCESS, -1);
    snprintf(n, sizeof n, "%sSEND 100: B's recv CQE", tag);
    if (cqe_ok(n, b, RCQ, 0xb0, NIC_WC_RECV, NIC_WC_SUCCESS, 100)) {
        snprintf(n, sizeof n, "%sSEND 100: bytes in B's buffer", tag);
        bytes_equal(n, dst, src, 100);
        uint8_t ee[100];
        memset(ee, 0xee, sizeof ee);
        snprintf(n, sizeof n, "%sSEND 100: nothing past the message", tag);
        bytes_equal(n, dst + 100, ee, 100);
    }
}
