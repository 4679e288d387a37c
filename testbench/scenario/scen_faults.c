/* scen_faults.c — the fault scenarios (docs/scenarios.md):
 *   faults        seeds of random mixed operations on a wire with 0-20 % loss and bit flips (combined),
 *                 0-20 % duplication and reordering: every WR completes exactly once, in order, atomics
 *                 once, memory byte-exact (scen_run's checks), or the seed ends in a RETRY_EXC_ERR that
 *                 the wire proves legitimate (scen_giveup.c)
 *   loss100-*     every frame lost: the first WQE ends with RETRY_EXC_ERR within the bound its
 *                 timeout / backoff / retry_cnt settings imply, the rest flush, the QP errs
 *   pause-*       the peer silent for 10^6 cycles: survived in backoff mode with retry_cnt 7;
 *                 fatal in IB mode with a timeout of 2^8 x 4.096 us and retry_cnt 2
 * The wire pcap taps wire_send (testbench/lib/wire.h: pcap_sent), so it holds the frames the
 * NICs produced, before loss, duplication, reordering or bit flips: what the judges see is NIC
 * output; a corrupted copy exists only on its way to the receiver. */
#include "scen_suites.h"
#include "scen_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *MODE_NAME[] = {"c", "rtl", "lockstep"};

int scen_faults(const scen_args_t *a) {
    int fails = 0, gaveup = 0;
    uint64_t cycles = 0, lost = 0, dup = 0, reord = 0, corrupt = 0, retries = 0;
    /* the frames as sent and as delivered, for proving a give-up claim (scen_giveup.c) */
    char tmpd[] = "/tmp/scen-giveup.XXXXXX", tsent[64], tdeliv[64];
    if (!mkdtemp(tmpd)) { perror("scen: mkdtemp"); return 1; }
    snprintf(tsent, sizeof tsent, "%s/sent.pcap", tmpd);
    snprintf(tdeliv, sizeof tdeliv, "%s/delivered.pcap", tmpd);
    const char *deliv = getenv("SCEN_PCAP_DELIVERED") ? getenv("SCEN_PCAP_DELIVERED") : tdeliv;
    for (uint64_t seed = a->first; seed <= a->last; seed++) {
        prng_t r;
        prng_seed_stream(&r, seed, 77);
        char pcap[600] = "", name[120];
        if (a->pcap_dir) snprintf(pcap, sizeof pcap, "%s/seed-%" PRIu64 ".pcap", a->pcap_dir, seed);
        scen_opts_t o;
        scen_args_t b = *a;
        b.seed = seed;
        const char *sent = pcap[0] ? pcap : tsent;
        scen_base_opts(&b, &o, sent);
        o.wire.pcap_delivered = deliv;
        o.giveup_ok = true;
        o.quiet_checks = false;
        o.arena = 1u << 20;
        o.max_cycles = 1500000;
        /* Each fault ranges over [0, 20 %]: duplication and reordering uniform; the two that
         * drop a frame (loss, and bit flips, which the receiver's ICRC check drops) share a
         * combined drop rate uniform in [0, 20 %], split at random between them. Why share:
         * IB gives a message retry_cnt + 1 = 8 attempts (7 is the most), and a READ attempt
         * needs its request and every response through. At 20 % + 20 % a 3-frame attempt
         * fails 74 % of the time and 0.74^8 = 9 % of such messages legitimately end in
         * RETRY_EXC_ERR: with independent [0, 20 %] ranges 6 of 500 seeds did, all at >= 21 %
         * combined drop (seeds 48 and 215 checked frame by frame with SCEN_PCAP_DELIVERED:
         * every attempt lost a frame). At <= 20 % combined it is <= 0.49^8 = 0.3 % at the
         * corner and far less on average (about 0.8 give-ups per 500 seeds): a give-up passes only
         * if scen_giveup.c proves from the pcaps that every attempt lost a needed frame. */
        unsigned drop = (unsigned)prng_below(&r, 2001);
        unsigned loss = (unsigned)prng_below(&r, drop + 1);
        o.wire.p_loss = loss / 10000.0;
        o.wire.p_dup = prng_below(&r, 2001) / 10000.0;
        o.wire.p_reorder = prng_below(&r, 2001) / 10000.0;
        o.wire.p_corrupt = (drop - loss) / 10000.0;
        o.wire.dup_delay_cycles = prng_below(&r, 200);
        bool backoff = seed & 1;
        snprintf(name, sizeof name, "faults seed %" PRIu64 " (%s; loss %.3f dup %.3f reorder %.3f flip %.3f; %s)", seed,
                 MODE_NAME[a->mode], o.wire.p_loss, o.wire.p_dup, o.wire.p_reorder, o.wire.p_corrupt,
                 backoff ? "backoff" : "IB timeout");
        scen_t *s = scen_new(&o);
        if (!s) return fails + 1;
        int f0 = scen_failures;
        scen_giveup_t g;
        bool claim = false;
        scen_quiet_pass = true;
        int eps[2];
        bool ok = true;
        for (unsigned k = 0; k < 2 && ok; k++) {
            scen_qp_opts_t q;
            scen_qp_opts_default(&q);
            q.pmtu = 1 + (unsigned)prng_below(&r, 5);
            q.sq_psn[0] = (uint32_t)prng_below(&r, 1u << 24);
            q.sq_psn[1] = 0xffffff - (uint32_t)prng_below(&r, 64);
            q.timeout = 2;                      /* 8192 cycles */
            q.retry_cnt = 7;
            q.backoff = backoff;
            q.backoff_first = 1;
            q.backoff_cap = 4;
            q.sq_log = 4;
            q.rq_log = 4;
            ok = (eps[k] = scen_pair(s, (nic_fn_t)k, 0x60 + k, 0x70 + k, &q)) >= 0;
        }
        if (ok) {
            unsigned n = 6 + (unsigned)prng_below(&r, 7);
            for (unsigned i = 0; i < n; i++)
                for (unsigned k = 0; k < 2; k++)
                    for (unsigned side = 0; side < 2; side++)
                        scen_add_random(s, eps[k] + (int)side, 0x7f, 2 * (128u << scen_ep(s, eps[k])->o.pmtu));
            scen_run(s, name);
            const wire_stats_t *w = wire_stats(nic_tb_wire(scen_tb(s)));
            cycles += scen_done_cycle(s);
            lost += w->lost;
            dup += w->duplicated;
            reord += w->reordered;
            corrupt += w->corrupted;
            retries += nic_tb_out(scen_tb(s), 0, "comp_retries") + nic_tb_out(scen_tb(s), 1, "comp_retries");
            claim = scen_giveup(s, &g);
        }
        scen_quiet_pass = false;
        scen_free(s);   /* closes the pcaps */
        if (pcap[0]) scen_write_expect(pcap);
        if (claim) {
            char why[600], what[300];
            snprintf(what, sizeof what, "%s: RETRY_EXC_ERR on NIC %u QP 0x%x op %u (wr_id 0x%" PRIx64 ", WR opcode %u, PSN 0x%06x..0x%06x) at cycle %" PRIu64,
                     name, g.nic, g.qpn, g.op, g.wr_id, g.wr_opcode, g.first_psn, g.last_psn, g.cycle);
            if (scen_giveup_prove(&g, sent, deliv, why, sizeof why)) {
                printf("PASS %s is legitimate: %s; the seed's later checks are void\n", what, why);
                gaveup++;
            } else {
                scen_check(false, what, "not justified by the wire: %s", why);
            }
        }
        if (scen_failures != f0) fails++;
        else if (!claim) printf("PASS %s: every completion and every byte right\n", name);
        fflush(stdout);
    }
    unlink(tsent);
    unlink(tdeliv);
    rmdir(tmpd);
    printf("faults: seeds %" PRIu64 "..%" PRIu64 ": %d failed, %d ended in a RETRY_EXC_ERR proven legitimate from the wire; %" PRIu64
           " cycles simulated, wire: %" PRIu64 " lost, %" PRIu64 " duplicated, %" PRIu64 " reordered, %" PRIu64
           " corrupted frames; %" PRIu64 " retransmissions\n",
           a->first, a->last, fails, gaveup, cycles, lost, dup, reord, corrupt, retries);
    return fails;
}

/* Cycles until the local ACK timer gives up on a message that never gets an answer: the
 * first send arms the timer, each of retry_cnt retries restarts it (IB 9.7.6.1.3). */
static uint64_t retry_bound(const scen_qp_opts_t *q) {
    uint64_t t = 0;
    unsigned e = q->backoff ? q->backoff_first : q->timeout;
    for (unsigned k = 0; k <= q->retry_cnt; k++) {
        t += (uint64_t)1024 << e;
        if (q->backoff && e < q->backoff_cap) e++;
    }
    return t;
}

static int dead(scen_t *s, int ei, uint8_t opcode, uint32_t len, uint8_t status) {
    scen_ep_t *e = scen_ep(s, ei), *p = scen_ep(s, e->peer);
    nic_sq_wqe_t w = {.opcode = opcode, .flags = NIC_WQE_SIGNALED, .length = len, .lkey = e->key, .rkey = p->key};
    w.local_addr = scen_alloc(s, e->nic, len, 1, 5);
    scen_fill(s, e->nic, w.local_addr, len);
    w.remote_addr = scen_alloc(s, p->nic, len, 1, 9);
    int i = scen_add_raw(s, ei, &w, status, true);
    if (opcode == NIC_WR_SEND) {
        int k = scen_add_recv(s, e->peer, len, SCEN_NONE);
        p->recvs[k].op = i;
        e->ops[i].recv = k;
    }
    return i;
}

int scen_loss100(const scen_args_t *a, bool backoff) {
    char name[80];
    snprintf(name, sizeof name, "loss100-%s (%s)", backoff ? "backoff" : "ib", MODE_NAME[a->mode]);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    o.quiet_checks = false;
    o.expect_async[0] = 1;
    o.wire.p_loss = 1.0;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.retry_cnt = 3;
    q.timeout = 4;                    /* IB: 16384 cycles each */
    q.backoff = backoff;
    q.backoff_first = 2;              /* backoff: 4096, 8192, 16384, 16384 */
    q.backoff_cap = 4;
    uint64_t bound = retry_bound(&q);
    o.max_cycles = 2 * bound + 20000;  /* no hang: the run itself is bounded */
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    int e = scen_pair(s, 0, 0x11, 0x22, &q);
    if (e < 0) { scen_free(s); return 1; }
    uint64_t t0 = nic_tb_now(scen_tb(s));
    dead(s, e, NIC_WR_WRITE, 3000, NIC_WC_RETRY_EXC_ERR);
    dead(s, e, NIC_WR_READ, 100, NIC_WC_WR_FLUSH_ERR);
    dead(s, e, NIC_WR_SEND, 10, NIC_WC_WR_FLUSH_ERR);
    int f = scen_run(s, name);
    uint64_t t = scen_cqe_cycle(s, e, 0) - t0;
    /* slack: posting, the timer scan (<= 140 cycles per expiry, completer.md), the CQE write
     * and the 16-cycle polling */
    uint64_t slack = 400 + 200 * (uint64_t)(q.retry_cnt + 1);
    char b[300];
    snprintf(b, sizeof b, "%s: RETRY_EXC_ERR within [%" PRIu64 ", %" PRIu64 "] cycles of posting (retry_cnt %u, %s)", name, bound,
             bound + slack, q.retry_cnt, backoff ? "backoff 2^2..2^4 x 1024" : "timeout 2^4 x 1024");
    scen_check(scen_cqe_cycle(s, e, 0) && t >= bound && t <= bound + slack, b, "error CQE after %" PRIu64 " cycles", t);
    uint64_t tmo = nic_tb_out(scen_tb(s), 0, "comp_timeouts"), rt = nic_tb_out(scen_tb(s), 0, "comp_retries");
    snprintf(b, sizeof b, "%s: %u timeouts, %u resends", name, q.retry_cnt + 1, q.retry_cnt);
    scen_check(tmo == q.retry_cnt + 1u && rt == q.retry_cnt, b, "%" PRIu64 " timeouts, %" PRIu64 " resends", tmo, rt);
    scen_free(s);
    scen_finish_pcap(name, a->pcap);
    return f;
}

int scen_pause(const scen_args_t *a, bool backoff) {
    char name[80];
    snprintf(name, sizeof name, "pause-%s (%s)", backoff ? "backoff" : "ib", MODE_NAME[a->mode]);
    const uint64_t PAUSE = 1000000;
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    o.quiet_checks = false;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.backoff = backoff;
    q.backoff_first = 8;              /* 2^8, 2^9, 2^10 x 1024 cycles: 1.8 M > the pause */
    q.backoff_cap = 10;
    q.retry_cnt = backoff ? 7 : 2;
    q.timeout = 8;                    /* IB: 3 x 262144 < 10^6: fatal */
    o.expect_async[0] = backoff ? 0 : 1;
    o.max_cycles = backoff ? 3 * PAUSE : PAUSE;
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    int e = scen_pair(s, 0, 0x11, 0x22, &q);
    if (e < 0) { scen_free(s); return 1; }
    uint64_t t0 = nic_tb_now(scen_tb(s));
    wire_pause(nic_tb_wire(scen_tb(s)), t0, t0 + PAUSE, WIRE_PAUSE_DROP, 0);
    if (backoff) {
        scen_add_op(s, e, NIC_WR_WRITE, 3000, true, 0);
        scen_add_op(s, e, NIC_WR_READ, 5000, true, 0);
        scen_add_op(s, e, NIC_WR_SEND, 10, true, 0);
        scen_add_op(s, e, NIC_WR_FAA, 8, true, 0);
    } else {
        dead(s, e, NIC_WR_WRITE, 3000, NIC_WC_RETRY_EXC_ERR);
        dead(s, e, NIC_WR_READ, 100, NIC_WC_WR_FLUSH_ERR);
        dead(s, e, NIC_WR_SEND, 10, NIC_WC_WR_FLUSH_ERR);
    }
    int f = scen_run(s, name);
    char b[300];
    uint64_t t = scen_cqe_cycle(s, e, 0) - t0;
    if (backoff) {
        snprintf(b, sizeof b, "%s: the first WQE completed after the %" PRIu64 "-cycle pause, within the retries", name, PAUSE);
        scen_check(scen_cqe_cycle(s, e, 0) && t >= PAUSE && t < retry_bound(&q), b, "CQE after %" PRIu64 " cycles", t);
    } else {
        snprintf(b, sizeof b, "%s: RETRY_EXC_ERR inside the pause after %" PRIu64 " cycles", name, retry_bound(&q));
        scen_check(scen_cqe_cycle(s, e, 0) && t >= retry_bound(&q) && t < PAUSE, b, "CQE after %" PRIu64 " cycles", t);
    }
    scen_free(s);
    scen_finish_pcap(name, a->pcap);
    return f;
}
