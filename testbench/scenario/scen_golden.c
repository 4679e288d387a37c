/* scen_golden.c — the golden model of the scenario driver: where every work request's bytes
 * come from and go, and what each completion must say (scen.h). Decided when the op is added,
 * because an RC QP executes its work requests in order and every op gets fresh regions: the
 * final memory then does not depend on how QPs interleave, only on per-QP order (atomics hit a
 * per-endpoint word, so their results follow post order). */
#include "scen_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what) {
    fprintf(stderr, "scen: %s\n", what);
    printf("FAIL scen: %s\n", what);
    exit(1);
}

uint64_t scen_alloc(scen_t *s, unsigned n, uint32_t len, unsigned align, unsigned skew) {
    /* 16..79 guard bytes before every region, then the alignment and the skew */
    uint64_t a = s->bump[n] + 16 + prng_below(&s->rng, 64);
    if (align > 1) a = (a + align - 1) / align * align;
    a += skew;
    if (a + len + 80 > s->o.arena) die("arena too small for the scenario (raise scen_opts_t.arena)");
    s->bump[n] = a + len;
    return SCEN_ARENA_BASE + a;
}

void scen_fill(scen_t *s, unsigned n, uint64_t addr, uint32_t len) {
    uint8_t *g = s->gold[n] + (addr - SCEN_ARENA_BASE);
    prng_fill(&s->rng, g, len);
    if (hostmem_write(nic_tb_mem(s->tb, n), addr, g, len)) die("hostmem out of pages");
}

void scen_expect_copy(scen_t *s, unsigned dn, uint64_t dst, unsigned sn, uint64_t src, uint32_t len) {
    memmove(s->gold[dn] + (dst - SCEN_ARENA_BASE), s->gold[sn] + (src - SCEN_ARENA_BASE), len);
}

void scen_expect_u64(scen_t *s, unsigned n, uint64_t addr, uint64_t v) {
    uint8_t *g = s->gold[n] + (addr - SCEN_ARENA_BASE);
    for (int i = 0; i < 8; i++) g[i] = (uint8_t)(v >> (8 * i));
}

uint64_t scen_golden_u64(scen_t *s, unsigned n, uint64_t addr) {
    const uint8_t *g = s->gold[n] + (addr - SCEN_ARENA_BASE);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | g[i];
    return v;
}

static int push_op(scen_ep_t *e, const scen_op_t *op) {
    if (e->nops == e->cap_ops) {
        e->cap_ops = e->cap_ops ? 2 * e->cap_ops : 64;
        e->ops = realloc(e->ops, e->cap_ops * sizeof *e->ops);
    }
    e->ops[e->nops] = *op;
    return (int)e->nops++;
}

static int push_recv(scen_ep_t *e, const scen_recv_t *r) {
    if (e->nrecvs == e->cap_recvs) {
        e->cap_recvs = e->cap_recvs ? 2 * e->cap_recvs : 64;
        e->recvs = realloc(e->recvs, e->cap_recvs * sizeof *e->recvs);
    }
    e->recvs[e->nrecvs] = *r;
    return (int)e->nrecvs++;
}

int scen_add_recv(scen_t *s, int ei, uint32_t len, uint8_t status) {
    scen_ep_t *e = &s->ep[ei];
    scen_recv_t r = {.status = status, .opcode = NIC_WC_RECV, .op = -1};
    r.wqe.wr_id = 0x5200000000000000ull | ((uint64_t)ei << 32) | e->nrecvs;
    r.wqe.addr = scen_alloc(s, e->nic, len, 1, (unsigned)prng_below(&s->rng, 64));
    r.wqe.length = len;
    r.wqe.lkey = e->key;
    return push_recv(e, &r);
}

static uint64_t wr_id_of(int ei, unsigned i) { return 0x5300000000000000ull | ((uint64_t)ei << 32) | i; }

int scen_add_raw(scen_t *s, int ei, const nic_sq_wqe_t *w, uint8_t status, bool cqe) {
    scen_op_t op = {.wqe = *w, .status = status, .cqe = cqe, .recv = -1};
    if (!op.wqe.wr_id) op.wqe.wr_id = wr_id_of(ei, s->ep[ei].nops);
    return push_op(&s->ep[ei], &op);
}

int scen_add_op(scen_t *s, int ei, uint8_t opcode, uint32_t len, bool signaled, unsigned recv_slack) {
    scen_ep_t *e = &s->ep[ei], *p = &s->ep[e->peer];
    unsigned ln = e->nic, rn = p->nic;
    scen_op_t op = {.status = NIC_WC_SUCCESS, .cqe = signaled, .recv = -1};
    nic_sq_wqe_t *w = &op.wqe;
    w->wr_id = wr_id_of(ei, e->nops);
    w->opcode = opcode;
    w->flags = signaled ? NIC_WQE_SIGNALED : 0;
    w->length = len;
    w->lkey = e->key;
    w->rkey = p->key;
    unsigned skew = (unsigned)prng_below(&s->rng, 64);
    switch (opcode) {
    case NIC_WR_SEND:
    case NIC_WR_SEND_IMM: {
        w->local_addr = scen_alloc(s, ln, len, 1, skew);
        scen_fill(s, ln, w->local_addr, len);
        if (opcode == NIC_WR_SEND_IMM) w->imm = (uint32_t)prng_next(&s->rng);
        if (prng_below(&s->rng, 4) == 0) w->flags |= NIC_WQE_SOLICITED;
        scen_recv_t r = {.status = NIC_WC_SUCCESS, .opcode = NIC_WC_RECV, .byte_len = len,
                         .imm = opcode == NIC_WR_SEND_IMM, .immv = w->imm, .op = (int)e->nops};
        r.wqe.wr_id = 0x5200000000000000ull | ((uint64_t)e->peer << 32) | p->nrecvs;
        r.wqe.length = len + recv_slack;
        r.wqe.addr = scen_alloc(s, rn, r.wqe.length, 1, (unsigned)prng_below(&s->rng, 64));
        r.wqe.lkey = p->key;
        scen_expect_copy(s, rn, r.wqe.addr, ln, w->local_addr, len);
        op.recv = push_recv(p, &r);
        break;
    }
    case NIC_WR_WRITE:
    case NIC_WR_WRITE_IMM:
        w->local_addr = scen_alloc(s, ln, len, 1, skew);
        scen_fill(s, ln, w->local_addr, len);
        w->remote_addr = scen_alloc(s, rn, len, 1, (unsigned)prng_below(&s->rng, 64));
        scen_expect_copy(s, rn, w->remote_addr, ln, w->local_addr, len);
        if (opcode == NIC_WR_WRITE_IMM) {
            w->imm = (uint32_t)prng_next(&s->rng);
            /* the receive WQE's buffer must stay untouched: a small guarded region */
            scen_recv_t r = {.status = NIC_WC_SUCCESS, .opcode = NIC_WC_RECV_RDMA_WITH_IMM, .byte_len = len,
                             .imm = true, .immv = w->imm, .op = (int)e->nops};
            r.wqe.wr_id = 0x5200000000000000ull | ((uint64_t)e->peer << 32) | p->nrecvs;
            r.wqe.length = 16;
            r.wqe.addr = scen_alloc(s, rn, 16, 1, 0);
            r.wqe.lkey = p->key;
            op.recv = push_recv(p, &r);
        }
        break;
    case NIC_WR_READ:
        w->remote_addr = scen_alloc(s, rn, len, 1, skew);
        scen_fill(s, rn, w->remote_addr, len);
        w->local_addr = scen_alloc(s, ln, len, 1, (unsigned)prng_below(&s->rng, 64));
        scen_expect_copy(s, ln, w->local_addr, rn, w->remote_addr, len);
        break;
    case NIC_WR_CAS:
    case NIC_WR_FAA: {
        w->length = 8;
        w->remote_addr = p->atom_word;
        w->local_addr = scen_alloc(s, ln, 8, 8, 0);
        uint64_t orig = p->atom_val, nv;
        if (opcode == NIC_WR_CAS) {
            w->compare = prng_below(&s->rng, 2) ? orig : prng_next(&s->rng);
            w->swap_add = prng_next(&s->rng);
            nv = w->compare == orig ? w->swap_add : orig;
        } else {
            w->swap_add = prng_below(&s->rng, 4) ? prng_below(&s->rng, 1000) : prng_next(&s->rng);
            nv = orig + w->swap_add;
        }
        p->atom_val = nv;
        scen_expect_u64(s, rn, p->atom_word, nv);
        scen_expect_u64(s, ln, w->local_addr, orig);
        break;
    }
    default:
        die("scen_add_op: unknown opcode");
    }
    return push_op(e, &op);
}

int scen_add_random(scen_t *s, int ei, unsigned kinds, uint32_t max_len) {
    uint8_t kind;
    do kind = (uint8_t)prng_below(&s->rng, 7);
    while (!((kinds >> kind) & 1));
    uint32_t mtu = 128u << s->ep[ei].o.pmtu, len;
    /* sizes: the boundaries around the MTU, small odd ones, and anything up to max_len */
    switch (prng_below(&s->rng, 6)) {
    case 0: len = (uint32_t)prng_below(&s->rng, 4); break;
    case 1: len = mtu - 1 + (uint32_t)prng_below(&s->rng, 3); break;
    case 2: len = (uint32_t)prng_below(&s->rng, 200) | 1; break;
    default: len = (uint32_t)prng_below(&s->rng, (uint64_t)max_len + 1); break;
    }
    if (len > max_len) len = max_len;
    bool signaled = prng_below(&s->rng, 4) != 0;
    return scen_add_op(s, ei, kind, len, signaled, (unsigned)prng_below(&s->rng, 3) * 40);
}
