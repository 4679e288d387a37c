/* scen_prot.c — protection and RNR scenarios (docs/scenarios.md): a remote access violation
 * (wrong rkey, wrong PD, out of bounds, missing access right; WRITE, READ, atomic) must get
 * the spec NAK (remote access error, IB 9.7.5.2.4 / 9.7.4.1.5), complete the requester's WQE
 * with REM_ACCESS_ERR, take both QPs to the error state (IB 9.9.2/9.9.3: the responder's QP
 * too) with flushes behind it, and change no byte outside the registered target (the whole
 * arena is golden-checked: the target region is filled with random bytes the golden model
 * never changes). RNR: no receive posted, with finite and infinite rnr_retry. */
#include "scen_suites.h"
#include "scen_priv.h"
#include "../lib/pcap.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *MODE_NAME[] = {"c", "rtl", "lockstep"};

/* An op the golden model expects to fail or flush: its regions exist, nothing is expected to
 * move. A SEND gets a receive on the peer with recv_status (SCEN_NONE: never completes). */
static int dead_op(scen_t *s, int ei, uint8_t opcode, uint32_t len, uint32_t rkey, uint64_t raddr, uint8_t status,
                   uint8_t recv_status) {
    scen_ep_t *e = scen_ep(s, ei), *p = scen_ep(s, e->peer);
    nic_sq_wqe_t w = {.opcode = opcode, .flags = NIC_WQE_SIGNALED, .length = len, .lkey = e->key, .rkey = rkey,
                      .remote_addr = raddr};
    if (opcode == NIC_WR_CAS || opcode == NIC_WR_FAA) {
        w.length = 8;
        w.local_addr = scen_alloc(s, e->nic, 8, 8, 0);
        w.compare = scen_golden_u64(s, p->nic, raddr >= SCEN_ARENA_BASE ? raddr : p->atom_word);
        w.swap_add = 0x1234;
    } else {
        w.local_addr = scen_alloc(s, e->nic, len, 1, 3);
        scen_fill(s, e->nic, w.local_addr, len);
    }
    int i = scen_add_raw(s, ei, &w, status, true);
    if (opcode == NIC_WR_SEND || opcode == NIC_WR_SEND_IMM) {
        int k = scen_add_recv(s, e->peer, len + 8, recv_status);
        p->recvs[k].op = i;
        e->ops[i].recv = k;
    }
    return i;
}

/* The NAK on the wire: a frame from NIC 1 with opcode ACKNOWLEDGE, AETH syndrome syn and
 * PSN psn. */
static bool nak_on_wire(const char *pcap, uint8_t syn, uint32_t psn, char *seen, size_t n) {
    pcap_reader_t *r = pcap_open_read(pcap);
    seen[0] = 0;
    if (!r) { snprintf(seen, n, "cannot read %s", pcap); return false; }
    static uint8_t buf[9216];
    size_t len;
    uint64_t t;
    bool found = false;
    while (pcap_next(r, buf, sizeof buf, &len, &t) == 1) {
        if (len < 58 || buf[42] != ROCE_OP_ACKNOWLEDGE) continue;
        uint64_t src = 0;
        for (int i = 6; i < 12; i++) src = (src << 8) | buf[i];
        uint32_t p = ((uint32_t)buf[51] << 16) | ((uint32_t)buf[52] << 8) | buf[53];
        if (src != scen_mac(1, 0) || buf[54] == 0x1f) continue;
        if (strlen(seen) < n - 40) snprintf(seen + strlen(seen), n - strlen(seen), " syn 0x%02x psn %u;", buf[54], p);
        found |= buf[54] == syn && p == psn;
    }
    pcap_close_read(r);
    return found;
}

int scen_prot(const scen_args_t *a, const char *which) {
    static const char *viol[] = {"rkey", "pd", "bounds", "access"};
    static const char *kind[] = {"write", "read", "atomic"};
    int v = -1, k = -1;
    for (int i = 0; i < 4; i++)
        if (!strncmp(which, viol[i], strlen(viol[i])) && which[strlen(viol[i])] == '-') v = i;
    if (v < 0) return -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(which + strlen(viol[v]) + 1, kind[i])) k = i;
    if (k < 0) return -1;
    char name[80], pcap[600];
    snprintf(name, sizeof name, "prot-%s (%s)", which, MODE_NAME[a->mode]);
    snprintf(pcap, sizeof pcap, "%s", a->pcap ? a->pcap : "/tmp/scen-prot.pcap");
    scen_opts_t o;
    scen_base_opts(a, &o, pcap);
    o.quiet_checks = false;
    o.expect_async[0] = o.expect_async[1] = 1;
    o.max_cycles = 200000;
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.sq_psn[0] = 0xfffffe;   /* the violation's PSN wraps to 0 */
    int e = scen_pair(s, 0, 0x11, 0x22, &q);
    if (e < 0) { scen_free(s); return 1; }
    /* B's extra MRs around a 4 KiB target filled with random bytes */
    uint64_t tgt = scen_alloc(s, 1, 4096, 64, 0);
    scen_fill(s, 1, tgt, 4096);
    nic_tb_t *tb = scen_tb(s);
    int r = 0;
    r |= nic_tb_reg_mr(tb, 1, 0, 0x0207, tgt, 4096, scen_pd(0), SCEN_ACC_ALL);             /* bounds */
    r |= nic_tb_reg_mr(tb, 1, 0, 0x0307, tgt, 4096, scen_pd(0) + 100, SCEN_ACC_ALL);       /* other PD */
    r |= nic_tb_reg_mr(tb, 1, 0, 0x0407, tgt, 4096, scen_pd(0), NIC_ACC_LOCAL_WRITE);      /* no remote right */
    scen_check(!r, "prot setup: REG_MR of the bounds / other-PD / no-access MRs", "status %d", r);
    static const uint32_t rkey_of[] = {0x0907 /* slot 9: never registered */, 0x0307, 0x0207, 0x0407};
    static const uint8_t op_of[] = {NIC_WR_WRITE, NIC_WR_READ, NIC_WR_CAS};
    uint32_t len = k == 2 ? 8 : 100;
    uint64_t raddr = tgt + 512;
    if (v == 2) raddr = k == 2 ? tgt + 4096 : tgt + 4096 - len / 2;  /* past the end / across it */
    scen_add_op(s, e, NIC_WR_WRITE, 300, true, 0);                         /* good traffic first */
    int bad = dead_op(s, e, op_of[k], len, rkey_of[v], raddr, NIC_WC_REM_ACCESS_ERR, 0);
    dead_op(s, e, NIC_WR_SEND, 50, SCEN_ARENA_KEY, 0, NIC_WC_WR_FLUSH_ERR, NIC_WC_WR_FLUSH_ERR);
    dead_op(s, e, NIC_WR_WRITE, 40, SCEN_ARENA_KEY, scen_alloc(s, 1, 40, 1, 0), NIC_WC_WR_FLUSH_ERR, 0);
    (void)bad;
    int f = scen_run(s, name);
    scen_free(s);
    char seen[400], b[200];
    bool ok = nak_on_wire(pcap, 0x62, 0xffffff, seen, sizeof seen);  /* 0xfffffe WRITE, then the violation */
    snprintf(b, sizeof b, "%s: NIC 1 sent NAK remote access error (AETH 0x62) with the violating request's PSN", name);
    scen_check(ok, b, "NAKs on the wire:%s", seen);
    scen_finish_pcap(name, pcap);
    return f + !ok;
}

/* Request frames NIC 0 sent (opcodes below the READ responses: SEND, WRITE, READ request;
 * atomics 0x13/0x14 too), counted from the wire pcap. */
static int requests_on_wire(const char *pcap) {
    pcap_reader_t *r = pcap_open_read(pcap);
    if (!r) return -1;
    static uint8_t buf[9216];
    size_t len;
    uint64_t t;
    int n = 0;
    while (pcap_next(r, buf, sizeof buf, &len, &t) == 1) {
        if (len < 58) continue;
        uint64_t src = 0;
        for (int i = 6; i < 12; i++) src = (src << 8) | buf[i];
        uint8_t op = buf[42];
        if (src == scen_mac(0, 0) && (op <= ROCE_OP_RDMA_READ_REQUEST || op == ROCE_OP_COMPARE_SWAP ||
                                      op == ROCE_OP_FETCH_ADD))
            n++;
    }
    pcap_close_read(r);
    return n;
}

/* Local protection (IB 10.6.3, 11.6.2 LOC_PROT_ERR): a WQE whose local buffer its lkey does
 * not cover (lkey: a key never registered; access: a READ landing in an MR without
 * LOCAL_WRITE; bounds: a WRITE reading past the MR's end) completes with LOC_PROT_ERR, sends
 * nothing, the QP goes to error and what follows is flushed; the peer sees only the good
 * traffic before it and stays up. */
int scen_prot_local(const scen_args_t *a, const char *which) {
    static const char *kinds[] = {"lkey", "access", "bounds"};
    int k = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(which, kinds[i])) k = i;
    if (k < 0) return -1;
    char name[80], pcap[600];
    snprintf(name, sizeof name, "prot-local-%s (%s)", which, MODE_NAME[a->mode]);
    snprintf(pcap, sizeof pcap, "%s", a->pcap ? a->pcap : "/tmp/scen-prot-local.pcap");
    scen_opts_t o;
    scen_base_opts(a, &o, pcap);
    o.quiet_checks = false;
    o.expect_async[0] = 1;
    o.max_cycles = 200000;
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    int e = scen_pair(s, 0, 0x11, 0x22, &q);
    if (e < 0) { scen_free(s); return 1; }
    scen_ep_t *ep = scen_ep(s, e), *peer = scen_ep(s, ep->peer);
    /* NIC 0's extra MR: 4 KiB, readable by the NIC but not writable (no LOCAL_WRITE) */
    uint64_t buf = scen_alloc(s, 0, 4096, 64, 0);
    scen_fill(s, 0, buf, 4096);
    int r = nic_tb_reg_mr(scen_tb(s), 0, 0, 0x0507, buf, 4096, scen_pd(0), 0);
    scen_check(!r, "prot-local setup: REG_MR of a 4 KiB MR without LOCAL_WRITE", "status %d", r);
    scen_add_op(s, e, NIC_WR_WRITE, 300, true, 0);               /* good traffic first */
    nic_sq_wqe_t w = {.flags = NIC_WQE_SIGNALED, .rkey = peer->key};
    w.remote_addr = scen_alloc(s, 1, 200, 1, 0);
    w.length = 200;
    if (k == 0) { w.opcode = NIC_WR_WRITE; w.lkey = 0x0607; w.local_addr = buf; }           /* never registered */
    if (k == 1) { w.opcode = NIC_WR_READ; w.lkey = 0x0507; w.local_addr = buf + 64; }       /* no LOCAL_WRITE */
    if (k == 2) { w.opcode = NIC_WR_WRITE; w.lkey = 0x0507; w.local_addr = buf + 4000; }    /* 104 bytes past the end */
    scen_add_raw(s, e, &w, NIC_WC_LOC_PROT_ERR, true);
    nic_sq_wqe_t f = {.opcode = NIC_WR_WRITE, .flags = NIC_WQE_SIGNALED, .length = 40, .lkey = ep->key,
                      .rkey = peer->key};
    f.local_addr = scen_alloc(s, 0, 40, 1, 0);
    scen_fill(s, 0, f.local_addr, 40);
    f.remote_addr = scen_alloc(s, 1, 40, 1, 0);
    scen_add_raw(s, e, &f, NIC_WC_WR_FLUSH_ERR, true);
    int fl = scen_run(s, name);
    unsigned mtu = 128u << q.pmtu;
    int want = (int)((300 + mtu - 1) / mtu);
    scen_free(s);
    int n = requests_on_wire(pcap);
    char b[200];
    snprintf(b, sizeof b, "%s: NIC 0 sent only the good WRITE's %d request frame(s), nothing of the failed WQE", name, want);
    scen_check(n == want, b, "%d request frames on the wire", n);
    scen_finish_pcap(name, pcap);
    return fl + (n != want);
}

int scen_rnr(const scen_args_t *a, const char *which) {
    bool exceeded = !strcmp(which, "exceeded");
    if (!exceeded && strcmp(which, "wait")) return -1;
    char name[80];
    snprintf(name, sizeof name, "rnr-%s (%s)", which, MODE_NAME[a->mode]);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    o.quiet_checks = false;
    o.max_cycles = 300000;
    if (exceeded) o.expect_async[0] = 1;
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.min_rnr_timer = 2;              /* 0.02 ms = 5000 cycles per RNR wait */
    q.rnr_retry = exceeded ? 2 : 7;
    int e = scen_pair(s, 0, 0x11, 0x22, &q);
    int e2 = -1;
    if (!exceeded) {
        scen_qp_opts_t q2 = q;
        q2.rnr_retry = 3;             /* finite, enough for the 12000-cycle hold */
        e2 = scen_pair(s, 1, 0x13, 0x24, &q2);
    }
    if (e < 0 || (!exceeded && e2 < 0)) { scen_free(s); return 1; }
    uint64_t t0 = nic_tb_now(scen_tb(s));
    if (exceeded) {
        scen_ep(s, e + 1)->recv_never = true;
        dead_op(s, e, NIC_WR_SEND, 64, 0, 0, NIC_WC_RNR_RETRY_EXC_ERR, SCEN_NONE);
        dead_op(s, e, NIC_WR_WRITE, 40, SCEN_ARENA_KEY, scen_alloc(s, 1, 40, 1, 0), NIC_WC_WR_FLUSH_ERR, 0);
    } else {
        scen_ep(s, e + 1)->recv_hold_until = t0 + 12000;
        scen_ep(s, e2 + 1)->recv_hold_until = t0 + 12000;
        for (int i = 0; i < 3; i++) {
            scen_add_op(s, e, NIC_WR_SEND_IMM, 100 + 700 * i, true, 0);
            scen_add_op(s, e2, NIC_WR_SEND, 3000 * i, true, 0);
        }
        scen_add_op(s, e, NIC_WR_WRITE_IMM, 999, true, 0);
    }
    int f = scen_run(s, name);
    char b[200];
    uint64_t naks = nic_tb_out(scen_tb(s), 0, "comp_naks");
    if (exceeded) {
        /* rnr_retry 2: the first RNR NAK and 2 retries, each after a 5000-cycle wait */
        uint64_t t = scen_cqe_cycle(s, e, 0) - t0;
        snprintf(b, sizeof b, "%s: RNR_RETRY_EXC_ERR after 3 RNR NAKs and 2 waits of 5000 cycles", name);
        scen_check(naks == 3 && t >= 10000 && t < 10000 + 3000, b, "%" PRIu64 " NAKs acted upon, error CQE %" PRIu64 " cycles after posting",
                   naks, t);
    } else {
        snprintf(b, sizeof b, "%s: RNR NAKs happened and the sends completed after the receives were posted", name);
        uint64_t t = scen_cqe_cycle(s, e, 0) - t0;
        scen_check(naks >= 2 && t >= 12000, b, "%" PRIu64 " NAKs, first CQE %" PRIu64 " cycles after posting", naks, t);
    }
    scen_free(s);
    scen_finish_pcap(name, a->pcap);
    return f;
}
