/* nic_part_test — two NICs of the partial composition (hls/nic/nic_part.net: tx_arb ->
 * roce_tx, roce_rx -> rx_dispatch) on a point-to-point wire. NIC 0's requester and
 * responder sides (tx_arb sources a and b) send packets of every RC opcode; NIC 1's
 * rx_dispatch must hand each one addressed to its function to the right port (request
 * opcodes to the responder, responses to the completer) with exact headers and payload,
 * and drop those for another IP or MAC. Usage: nic_part_test IFACE MODE(c|rtl|lockstep) PCAP */
#include "nic_part_rtl.h"
#include "../nic_tb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nic_part(const void *in, void *out, void *state);

#define N 120
static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

typedef struct { roce_hdr_t h; uint8_t pay[2048]; int port; } pk_t; /* port 0 req, 1 resp, 2 dropped */
static pk_t P[N];

static bool done(nic_tb_t *tb, void *arg) {
    (void)arg;
    return nic_tb_out(tb, 1, "rxd_to_responder") + nic_tb_out(tb, 1, "rxd_to_completer") +
           nic_tb_out(tb, 1, "rxd_dropped_addr") == N &&
           !nic_tb_pending(tb, 0, "arb_a_pay") && !nic_tb_pending(tb, 0, "arb_b_pay");
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: nic_part_test IFACE c|rtl|lockstep PCAP\n"); return 2; }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic_part, NIC_TB_RTL_FNS(nic_part)};
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = !strcmp(argv[2], "rtl") ? NIC_TB_RTL : !strcmp(argv[2], "lockstep") ? NIC_TB_LOCKSTEP : NIC_TB_C;
    c.wire.latency_cycles = 20;
    c.wire.bytes_per_cycle = 25;
    c.wire.pcap_sent = argv[3];
    c.backpressure_pct = 30;
    nic_tb_t *tb = nic_tb_new(&m, &c);
    if (!tb) return 1;
    const char *mode = argv[2];
    char name[160], why[300];

    /* NIC 1's function 2 is 10.0.0.2 at 02:00:00:00:01:02 (ctrl's NIC_CFG_FN, pushed directly) */
    nic_cfg_t cfg = {.kind = NIC_CFG_FN, .fn = 2, .valid = true, .mac = 0x020000000102ull, .ip = 0x0a000002};
    nic_tb_push(tb, 1, "rxd_cfg", &cfg, sizeof cfg);

    uint64_t r = 12345;
    for (int i = 0; i < N; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        roce_hdr_t *h = &P[i].h;
        memset(h, 0, sizeof *h);
        h->opcode = (uint8_t)((r >> 33) % 21);
        uint8_t ext = roce_ext(h->opcode);
        h->dst_mac = 0x020000000102ull;
        h->src_mac = 0x020000000001ull;
        h->src_ip = 0x0a000001;
        h->dst_ip = 0x0a000002;
        h->ttl = 64;
        h->udp_sport = 0xc001;
        h->pkey = 0xffff;
        h->dest_qp = (hls_u24)(0x11 + i);
        h->psn = (hls_u24)(1000 + i);
        h->ack_req = i & 1;
        if (ext & ROCE_EXT_RETH) { h->reth_va = 0x1000 * (uint64_t)i; h->reth_rkey = 0x100 + (uint32_t)i; h->reth_len = 77; }
        if (ext & ROCE_EXT_AETH) { h->aeth_syndrome = 0x1f; h->aeth_msn = (hls_u24)i; }
        if (ext & ROCE_EXT_ATOMIC) { h->atomic_va = 0x8000; h->atomic_rkey = 7; h->atomic_swap_add = r; h->atomic_cmp = ~r; }
        if (ext & ROCE_EXT_ATOMICACK) h->atomic_orig = r ^ 0x55;
        if (ext & ROCE_EXT_IMM) h->imm = (uint32_t)r;
        unsigned len = (ext & ROCE_EXT_PAYLOAD) ? (unsigned)((r >> 20) % 2049) : 0;
        h->payload_len = (hls_uint(14))len;
        for (unsigned k = 0; k < len; k++) P[i].pay[k] = (uint8_t)(i * 7 + k);
        P[i].port = (h->opcode >= 0x0d && h->opcode <= 0x12) ? 1 : 0;
        if (i % 10 == 3) { h->dst_ip = 0x0a000009; P[i].port = 2; }  /* another host's IP */
        if (i % 10 == 7) { h->dst_mac ^= 1; P[i].port = 2; }         /* another MAC */
        /* requests from the requester side (a), responses from the responder side (b) */
        const char *d = P[i].port == 1 || (i & 1) ? "arb_b_desc" : "arb_a_desc";
        const char *p = d[4] == 'b' ? "arb_b_pay" : "arb_a_pay";
        nic_tb_push(tb, 0, d, h, sizeof *h);
        for (unsigned o = 0; o < len; o += 64) {
            unsigned n = len - o > 64 ? 64 : len - o;
            nic_beat_t b = {.bytes = (hls_uint(7))n, .last = o + n == len};
            for (unsigned k = n; k-- > 0;) b.data = (b.data << 8) | P[i].pay[o + k];
            nic_tb_push(tb, 0, p, &b, sizeof b);
        }
        h->pad = (hls_uint(2))((4 - (len & 3)) & 3); /* what the receiver reports */
    }
    bool fin = nic_tb_run_until(tb, done, NULL, 400000);
    nic_tb_run(tb, 200);
    snprintf(name, sizeof name, "nic_part[%s]: all %d packets crossed the wire and were dispatched", mode, N);
    snprintf(why, sizeof why, "cycle %llu: sent %llu received %llu, req %llu resp %llu addr %llu bad %llu",
             (unsigned long long)nic_tb_now(tb), (unsigned long long)nic_tb_frames_sent(tb, 0),
             (unsigned long long)nic_tb_frames_received(tb, 1), (unsigned long long)nic_tb_out(tb, 1, "rxd_to_responder"),
             (unsigned long long)nic_tb_out(tb, 1, "rxd_to_completer"), (unsigned long long)nic_tb_out(tb, 1, "rxd_dropped_addr"),
             (unsigned long long)nic_tb_out(tb, 1, "rxd_dropped_bad"));
    check(fin && nic_tb_out(tb, 1, "rxd_dropped_bad") == 0, name, why);

    /* each port's packets, exact; tx_arb interleaves its two sources, so packets are
     * matched by their (unique) PSN */
    int bad = 0, counted[3] = {0}, seen[N] = {0};
    char err[200] = "";
    for (int port = 0; port < 2 && !bad; port++) {
        const char *pn = port ? "rxd_resp_pkt" : "rxd_req_pkt", *bn = port ? "rxd_resp_pay" : "rxd_req_pay";
        nic_rx_pkt_t g;
        while (!bad && nic_tb_pop(tb, 1, pn, &g, sizeof g)) {
            int i = (int)g.hdr.psn - 1000;
            if (i < 0 || i >= N || seen[i]++ || P[i].port != port) {
                snprintf(err, sizeof err, "psn %u: unexpected on %s", (unsigned)g.hdr.psn, pn);
                bad++;
                break;
            }
            const roce_hdr_t *e = &P[i].h;
            if (g.fn != 2 || g.hdr.opcode != e->opcode || g.hdr.dest_qp != e->dest_qp ||
                g.hdr.payload_len != e->payload_len || g.hdr.pad != e->pad || g.hdr.reth_va != e->reth_va ||
                g.hdr.aeth_msn != e->aeth_msn || g.hdr.atomic_swap_add != e->atomic_swap_add ||
                g.hdr.atomic_orig != e->atomic_orig || g.hdr.imm != e->imm || g.hdr.src_ip != e->src_ip) {
                snprintf(err, sizeof err, "packet %d on %s: header differs", i, pn);
                bad++;
                break;
            }
            for (unsigned o = 0; o < e->payload_len && !bad; o += 64) {
                nic_beat_t bt;
                if (!nic_tb_pop(tb, 1, bn, &bt, sizeof bt)) { snprintf(err, sizeof err, "packet %d: beat missing", i); bad++; break; }
                unsigned n = e->payload_len - o > 64 ? 64 : e->payload_len - o;
                bool same = bt.bytes == n && bt.last == (o + n == e->payload_len);
                for (unsigned k = 0; k < n; k++) same &= (uint8_t)(bt.data >> (8 * k)) == P[i].pay[o + k];
                if (!same) { snprintf(err, sizeof err, "packet %d: payload beat at %u differs", i, o); bad++; }
            }
            counted[port]++;
        }
        if (!bad && nic_tb_pending(tb, 1, bn)) { snprintf(err, sizeof err, "extra beats on %s", bn); bad++; }
    }
    for (int i = 0; i < N && !bad; i++)
        if (P[i].port < 2 && !seen[i]) { snprintf(err, sizeof err, "packet %d never arrived", i); bad++; }
    int want[3] = {0};
    for (int i = 0; i < N; i++) want[P[i].port]++;
    snprintf(name, sizeof name, "nic_part[%s]: routing by opcode and function, exact headers and payload", mode);
    check(!bad, name, err);
    snprintf(name, sizeof name, "nic_part[%s]: rx_dispatch counters", mode);
    snprintf(why, sizeof why, "req %llu resp %llu addr %llu, want %d %d %d", (unsigned long long)nic_tb_out(tb, 1, "rxd_to_responder"),
             (unsigned long long)nic_tb_out(tb, 1, "rxd_to_completer"), (unsigned long long)nic_tb_out(tb, 1, "rxd_dropped_addr"),
             want[0], want[1], want[2]);
    check(nic_tb_out(tb, 1, "rxd_to_responder") == (uint64_t)want[0] && counted[0] == want[0] &&
              nic_tb_out(tb, 1, "rxd_to_completer") == (uint64_t)want[1] && counted[1] == want[1] &&
              nic_tb_out(tb, 1, "rxd_dropped_addr") == (uint64_t)want[2], name, why);
    snprintf(name, sizeof name, "nic_part[%s]: tx_arb sent every packet of both sources", mode);
    snprintf(why, sizeof why, "sent_a %llu sent_b %llu frames %llu", (unsigned long long)nic_tb_out(tb, 0, "arb_sent_a"),
             (unsigned long long)nic_tb_out(tb, 0, "arb_sent_b"), (unsigned long long)nic_tb_frames_sent(tb, 0));
    check(nic_tb_out(tb, 0, "arb_sent_a") + nic_tb_out(tb, 0, "arb_sent_b") == N && nic_tb_frames_sent(tb, 0) == N &&
              nic_tb_out(tb, 0, "arb_sent_a") > 0 && nic_tb_out(tb, 0, "arb_sent_b") > 0, name, why);
    if (c.mode == NIC_TB_LOCKSTEP) {
        snprintf(name, sizeof name, "nic_part[lockstep]: C model and RTL equal on every output for %llu cycles",
                 (unsigned long long)nic_tb_now(tb));
        check(!nic_tb_mismatch(tb), name, nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "");
    }
    nic_tb_free(tb);
    return failures ? 1 : 0;
}
