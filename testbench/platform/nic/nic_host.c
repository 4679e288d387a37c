/* nic_host.c — the host driver of one NIC function; nic_host.h says what. */
#include "nic_host.h"

#include <stdio.h>
#include <string.h>

#include "nic_bar.h"
#include "nic_suspend_cmd.h"

void nic_host_layout(nic_host_t *h, uint64_t base, uint64_t mr_len) {
    h->cq_log = 6;
    h->sq_log = 6;
    h->rq_log = 6;
    h->cq_base[0] = base;
    h->cq_base[1] = base + 0x1000;
    h->sq_base = base + 0x2000;
    h->rq_base = base + 0x3000;
    h->mr_base = base + 0x4000;
    h->mr_len = mr_len;
    if (!h->poll_ns) h->poll_ns = 64;
    if (!h->polls_max) h->polls_max = 200000;
}

static uint64_t reg(const nic_host_t *h, uint32_t r) { return (uint64_t)h->fn * NIC_BAR_SIZE + r; }

int nic_host_cmd(nic_host_t *h, nic_cmd_t c, nic_cmd_resp_t *resp) {
    uint64_t words[(sizeof c + 7) / 8] = {0};
    memcpy(words, &c, sizeof c);
    h->ops.mmio_write(h->ops.ctx, reg(h, NIC_BAR_CMD), words, sizeof words / 8);
    uint64_t one = 1, st = 0;
    h->ops.mmio_write(h->ops.ctx, reg(h, NIC_BAR_CMD_GO), &one, 1);
    for (unsigned poll = 0;; poll++) {
        h->ops.mmio_read(h->ops.ctx, reg(h, NIC_BAR_CMD_STATUS), &st, 1);
        if (!(st & NIC_CMD_STATUS_BUSY) && (st & NIC_CMD_STATUS_DONE)) break;
        if (poll == h->polls_max) {
            snprintf(h->error, sizeof h->error, "fn %u: command %u never answered (CMD_STATUS 0x%llx)", h->fn,
                     (unsigned)c.op, (unsigned long long)st);
            return -1;
        }
        h->ops.pause(h->ops.ctx, h->poll_ns);
    }
    nic_cmd_resp_t r;
    uint64_t rw[(sizeof r + 7) / 8];
    h->ops.mmio_read(h->ops.ctx, reg(h, NIC_BAR_RESP), rw, sizeof rw / 8);
    memcpy(&r, rw, sizeof r);
    if (resp) *resp = r;
    if (r.status)
        snprintf(h->error, sizeof h->error, "fn %u: command %u answered status %u, bad_field %u", h->fn,
                 (unsigned)c.op, r.status, r.bad_field);
    return r.status;
}

static unsigned cq_row(const nic_host_t *h, int cq) { return h->fn * NIC_CQ_PER_FN + 1 + (unsigned)cq; }

int nic_host_create(nic_host_t *h) {
    if (nic_host_cmd(h, (nic_cmd_t){.op = NIC_CMD_SET_FN, .mac = h->mac, .ip = h->ip}, NULL)) return -1;
    for (int q = 0; q < 2; q++) {
        uint8_t zero[32] = {0};
        for (unsigned i = 0; i < 1u << h->cq_log; i++) h->ops.mem_write(h->ops.ctx, h->cq_base[q] + 32 * i, zero, 32);
        h->cq_ci[q] = 0;
        nic_cmd_t c = {.op = NIC_CMD_CREATE_CQ, .num = 1 + (uint32_t)q, .base = h->cq_base[q], .log = (hls_uint(5))h->cq_log};
        if (nic_host_cmd(h, c, NULL)) return -1;
    }
    nic_cmd_t c = {.op = NIC_CMD_CREATE_QP, .num = h->qpn};
    c.qp.qpn = (hls_u24)h->qpn;
    c.qp.sq_base = h->sq_base;
    c.qp.rq_base = h->rq_base;
    c.qp.sq_log = (hls_uint(5))h->sq_log;
    c.qp.rq_log = (hls_uint(5))h->rq_log;
    c.qp.send_cq = (nic_cq_t)cq_row(h, NIC_HOST_SEND_CQ);
    c.qp.recv_cq = (nic_cq_t)cq_row(h, NIC_HOST_RECV_CQ);
    c.qp.pd = h->pd;
    c.qp.access = NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
    if (nic_host_cmd(h, c, NULL)) return -1;
    h->sq_pi = h->rq_pi = 0;
    c = (nic_cmd_t){.op = NIC_CMD_REG_MR, .num = h->mr_key, .base = h->mr_base, .len = h->mr_len, .pd = h->pd,
                    .access = NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC};
    return nic_host_cmd(h, c, NULL) ? -1 : 0;
}

int nic_host_connect(nic_host_t *h, const nic_host_t *peer, unsigned pmtu) {
    nic_cmd_t c = {.op = NIC_CMD_MODIFY_QP, .num = h->qpn};
    c.mask = NIC_QPA_STATE | NIC_QPA_ACCESS | NIC_QPA_PKEY_INDEX | NIC_QPA_PORT;
    c.qp.state = NIC_QPS_INIT;
    c.qp.port_num = 1;
    c.qp.access = NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC;
    if (nic_host_cmd(h, c, NULL)) return -1;
    c.mask = NIC_QPA_STATE | NIC_QPA_AV | NIC_QPA_PATH_MTU | NIC_QPA_DEST_QPN | NIC_QPA_RQ_PSN |
             NIC_QPA_MIN_RNR_TIMER | NIC_QPA_MAX_DEST_RD_ATOMIC;
    c.qp.state = NIC_QPS_RTR;
    c.qp.max_dest_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    c.qp.dst_mac = peer->mac;
    c.qp.dst_ip = peer->ip;
    c.qp.pmtu = (hls_uint(3))pmtu;
    c.qp.dest_qpn = (hls_u24)peer->qpn;
    c.qp.rq_psn = (hls_u24)peer->psn;
    c.qp.min_rnr_timer = 12;
    if (nic_host_cmd(h, c, NULL)) return -1;
    c.mask = NIC_QPA_STATE | NIC_QPA_SQ_PSN | NIC_QPA_TIMEOUT | NIC_QPA_RETRY_CNT | NIC_QPA_RNR_RETRY |
             NIC_QPA_MAX_QP_RD_ATOMIC;
    c.qp.state = NIC_QPS_RTS;
    c.qp.max_rd_atomic = NIC_MAX_DEST_RD_ATOMIC;
    c.qp.sq_psn = (hls_u24)h->psn;
    c.qp.timeout = 14;
    c.qp.retry_cnt = 7;
    c.qp.rnr_retry = 7;
    return nic_host_cmd(h, c, NULL) ? -1 : 0;
}

static void ring(nic_host_t *h, uint32_t db, uint32_t num, uint16_t index) {
    uint64_t v = NIC_DB_VALUE(num, index, NIC_ARM_NONE);
    h->ops.mmio_write(h->ops.ctx, reg(h, db), &v, 1);
}

void nic_host_post_send(nic_host_t *h, const nic_sq_wqe_t *w) {
    uint16_t i = h->sq_pi++;
    h->ops.mem_write(h->ops.ctx, h->sq_base + 64u * (i & ((1u << h->sq_log) - 1)), w, sizeof *w);
    ring(h, NIC_BAR_SQ_DB, h->qpn, h->sq_pi);
}

void nic_host_post_recv(nic_host_t *h, const nic_rq_wqe_t *w) {
    uint16_t i = h->rq_pi++;
    h->ops.mem_write(h->ops.ctx, h->rq_base + 32u * (i & ((1u << h->rq_log) - 1)), w, sizeof *w);
    ring(h, NIC_BAR_RQ_DB, h->qpn, h->rq_pi);
}

int nic_host_poll(nic_host_t *h, int cq, nic_cqe_t *out) {
    uint32_t ci = h->cq_ci[cq], mask = (1u << h->cq_log) - 1;
    bool pass_owner = !((ci >> h->cq_log) & 1); /* 1 on the first pass through the ring */
    for (unsigned poll = 0; poll <= h->polls_max; poll++) {
        nic_cqe_t e;
        h->ops.mem_read(h->ops.ctx, h->cq_base[cq] + 32u * (ci & mask), &e, sizeof e);
        if (!!(e.owner & NIC_CQE_OWNER) == pass_owner) {
            *out = e;
            h->cq_ci[cq] = ci + 1;
            ring(h, NIC_BAR_CQ_DB, 1 + (uint32_t)cq, (uint16_t)(ci + 1));
            return 1;
        }
        h->ops.pause(h->ops.ctx, h->poll_ns);
    }
    snprintf(h->error, sizeof h->error, "fn %u: no CQE on %s CQ after %u polls", h->fn,
             cq == NIC_HOST_SEND_CQ ? "the send" : "the receive", h->polls_max);
    return 0;
}

unsigned nic_suspend_cmd_words(unsigned fn, unsigned level, uint64_t *words, unsigned max) {
    nic_cmd_t c = {.op = NIC_CMD_SUSPEND_FN, .fn = (nic_fn_t)fn, .level = (hls_uint(2))level};
    unsigned n = (sizeof c + 7) / 8;
    if (n > max) n = max;
    memset(words, 0, 8 * n);
    memcpy(words, &c, sizeof c < 8 * n ? sizeof c : 8 * n);
    return n;
}
