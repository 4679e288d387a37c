/* mig_path_test — the migration handshake in the packet-path blocks (docs/migration.md):
 * rx_dispatch's per-function gate (drop and count, markers behind the last packet passed,
 * other functions unaffected, reopening) and its NIC_CTX_FN context word; tx_arb passing
 * marker descriptors in order with no payload beat; roce_tx turning a marker into
 * NIC_EV_MIG_MARK without a frame. One PASS/FAIL line per check; exit 1 on any failure. */
#include "../../packet/roce_tx.c"
#include "../rx_dispatch.c"
#include "../tx_arb.c"

#include <stdio.h>
#include <string.h>

static hls_edge_queue *edges; /* rx_dispatch's memory edges (hls.h) */

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}
static uint64_t rs = 12345;
static bool chance(int pct) { rs = rs * 6364136223846793005ull + 1442695040888963407ull; return (int)((rs >> 33) % 100) < pct; }

/* ---------------------------------------------------------------- rx_dispatch */
static const uint64_t MAC[3] = {0x02aabbcc0001ull, 0x02aabbcc0002ull, 0x02aabbcc0003ull};
static const uint32_t IP[3] = {0x0a000001, 0x0a000002, 0x0a000003};
#define QN 64
typedef struct { int tag; unsigned fn; bool mark, gated; int beats_after; } seen_t;   /* one output item */
static struct {
    rx_dispatch_state st;
    roce_rx_desc_t desc[QN]; unsigned dh, dt;
    roce_rx_beat_t pay[QN * 2]; unsigned ph, pt;
    nic_cfg_t cfg[QN]; unsigned ch, ct;
    seen_t seen[2][QN]; unsigned nseen[2];
    unsigned beats_open[2];         /* payload beats still owed to the last packet per port */
    bool beat_order_ok;
    nic_event_t ev[QN]; unsigned nev;
} R;

static void rx_push(int tag, unsigned fn_addr, uint8_t op, unsigned plen) {
    roce_rx_desc_t d = {0};
    d.hdr.opcode = op; d.hdr.dst_mac = MAC[fn_addr]; d.hdr.dst_ip = IP[fn_addr]; d.hdr.payload_len = (hls_uint(14))plen;
    d.hdr.psn = (hls_u24)tag;         /* the tag the outputs are checked with */
    d.status = ROCE_RX_OK;
    for (unsigned b = 0; b < (plen + 63) / 64; b++) {
        roce_rx_beat_t x = {.beat = {.data = (hls_u512)tag, .bytes = 64, .last = b + 1 == (plen + 63) / 64},
                            .resp = roce_op_is_response(op)};
        R.pay[R.pt++ % (QN * 2)] = x;
    }
    R.desc[R.dt++ % QN] = d;
}
static void rx_cfg(nic_cfg_t c) { R.cfg[R.ct++ % QN] = c; }
static void rx_step(void) {
    rx_dispatch_in in = {0};
    rx_dispatch_out out = {0};
    in.rx_desc.valid = R.dh != R.dt; in.rx_desc.data = R.desc[R.dh % QN];
    in.rx_pay.valid = R.ph != R.pt; in.rx_pay.data = R.pay[R.ph % (QN * 2)];
    in.cfg.valid = R.ch != R.ct; in.cfg.data = R.cfg[R.ch % QN];
    in.req_pkt_ready = !chance(30); in.req_pay_ready = !chance(30);
    in.resp_pkt_ready = !chance(30); in.resp_pay_ready = !chance(30);
    in.ev_ready = !chance(50);
    hls_edge_queue_bind(edges);
    rx_dispatch(&in, &out, &R.st);
    hls_clock_edge(edges);
    if (in.rx_desc.valid && out.rx_desc_ready) R.dh++;
    if (in.rx_pay.valid && out.rx_pay_ready) R.ph++;
    if (in.cfg.valid && out.cfg_ready) R.ch++;
    if (out.ev.valid && in.ev_ready) R.ev[R.nev++ % QN] = out.ev.data;
    const HLS_STREAM(nic_rx_pkt_t) *pk[2] = {(void *)&out.req_pkt, (void *)&out.resp_pkt};
    const HLS_STREAM(nic_beat_t) *py[2] = {(void *)&out.req_pay, (void *)&out.resp_pay};
    bool pr[2] = {in.req_pkt_ready, in.resp_pkt_ready}, yr[2] = {in.req_pay_ready, in.resp_pay_ready};
    for (unsigned p = 0; p < 2; p++) {
        if (py[p]->valid && yr[p]) {
            if (R.beats_open[p] == 0) R.beat_order_ok = false;
            else R.beats_open[p]--;
        }
        if (pk[p]->valid && pr[p]) {
            if (R.beats_open[p]) R.beat_order_ok = false;   /* an item before the last one's beats */
            const nic_rx_pkt_t *x = &pk[p]->data;
            R.seen[p][R.nseen[p]++ % QN] = (seen_t){x->mig_mark ? -1 : (int)x->hdr.psn, x->fn, x->mig_mark, x->gated, 0};
            R.beats_open[p] = x->mig_mark ? 0 : ((unsigned)x->hdr.payload_len + 63) / 64;
        }
    }
}
static void rx_run(unsigned n) { for (unsigned i = 0; i < n; i++) rx_step(); }
static void rx_drain(void) { for (unsigned i = 0; i < 3000 && (R.dh != R.dt || R.ch != R.ct); i++) rx_step(); rx_run(200); }
static nic_cfg_t fn_cfg(unsigned fn) {
    return (nic_cfg_t){.kind = NIC_CFG_FN, .fn = (nic_fn_t)fn, .mac = MAC[fn], .ip = IP[fn], .valid = true};
}
static nic_cfg_t susp(unsigned fn, unsigned level) { return (nic_cfg_t){.kind = NIC_CFG_SUSPEND, .fn = (nic_fn_t)fn, .level = (hls_uint(2))level}; }
/* Items of port p as a string: tags, "M<fn>" for markers, "G<tag>" for a gated request's
 * header (no beats). */
static const char *port_str(unsigned p) {
    static char b[2][256];
    b[p][0] = 0;
    for (unsigned i = 0; i < R.nseen[p]; i++) {
        char t[16];
        if (R.seen[p][i].mark) snprintf(t, sizeof t, "M%u ", R.seen[p][i].fn);
        else snprintf(t, sizeof t, "%s%d ", R.seen[p][i].gated ? "G" : "", R.seen[p][i].tag);
        strncat(b[p], t, sizeof b[p] - strlen(b[p]) - 1);
    }
    return b[p];
}

static void test_rxd_gate(void) {
    memset(&R, 0, sizeof R);
    R.beat_order_ok = true;
    rx_cfg(fn_cfg(0)); rx_cfg(fn_cfg(1));
    rx_drain();
    rx_push(1, 0, ROCE_OP_SEND_ONLY, 100);     /* fn 0 request, two beats */
    rx_push(2, 1, ROCE_OP_SEND_ONLY, 0);       /* fn 1 request */
    rx_push(3, 0, ROCE_OP_ACKNOWLEDGE, 0);     /* fn 0 response */
    rx_drain();
    rx_cfg(susp(0, NIC_SUSPEND_PASSIVE));
    rx_push(4, 0, ROCE_OP_SEND_ONLY, 200);     /* gate closed: dropped, its header alone goes on */
    rx_push(5, 1, ROCE_OP_SEND_ONLY, 70);      /* fn 1: passes */
    rx_push(6, 0, ROCE_OP_ACKNOWLEDGE, 0);     /* dropped */
    rx_drain();
    rx_cfg(susp(0, NIC_SUSPEND_RUN));
    rx_push(7, 0, ROCE_OP_SEND_ONLY, 0);       /* gate open again */
    rx_drain();
    rx_dispatch_out o = {0};
    rx_dispatch_in z = {0};
    hls_edge_queue_bind(edges);
    rx_dispatch(&z, &o, &R.st);
    hls_clock_edge(edges);
    char why[600];
    snprintf(why, sizeof why, "req port: %s / resp port: %s", port_str(0), port_str(1));
    check(!strcmp(port_str(0), "1 2 M0 G4 5 7 ") && !strcmp(port_str(1), "3 M0 "),
          "rx_dispatch: PASSIVE drops the function's packets (a request's header goes on, gated, without beats), marker on both "
          "ports behind the last one passed, others pass",
          why);
    check(R.beat_order_ok, "rx_dispatch: a marker never overtakes the payload beats of the packet before it",
          "an item arrived while beats were owed, or a beat without a packet");
    snprintf(why, sizeof why, "dropped_mig %u to_responder %u to_completer %u", o.dropped_mig, o.to_responder, o.to_completer);
    check(o.dropped_mig == 2 && o.to_responder == 4 && o.to_completer == 1, "rx_dispatch: dropped_mig counts the gated packets",
          why);
    check(R.st.req.wp == R.st.req.rp && R.st.resp.wp == R.st.resp.rp, "rx_dispatch: the dropped packets' beats are freed",
          "beats left in a ring");
}

static void test_rxd_ctx(void) {
    memset(&R, 0, sizeof R);
    rx_cfg(fn_cfg(1));
    rx_cfg((nic_cfg_t){.kind = NIC_CFG_CTX, .fn = 1, .ctx_sect = NIC_CTX_FN});
    hls_u128 w = (hls_u128)MAC[2] | ((hls_u128)IP[2] << NIC_CTX_FN_IP) | ((hls_u128)1 << NIC_CTX_FN_VALID);
    rx_cfg((nic_cfg_t){.kind = NIC_CFG_CTX, .fn = 2, .ctx_sect = NIC_CTX_FN, .ctx_write = true, .ctx_data = w});
    rx_cfg((nic_cfg_t){.kind = NIC_CFG_CTX, .fn = 2, .ctx_sect = NIC_CTX_FN});
    rx_drain();
    rx_push(9, 2, ROCE_OP_SEND_ONLY, 0);       /* to the loaded addresses */
    rx_drain();
    hls_u128 w1 = (hls_u128)MAC[1] | ((hls_u128)IP[1] << 64) | ((hls_u128)1 << 96);
    char why[200];
    snprintf(why, sizeof why, "%u events", R.nev);
    check(R.nev == 3 && R.ev[0].kind == NIC_EV_CTX && R.ev[0].fn == 1 && R.ev[0].data == w1 && R.ev[1].fn == 2 &&
              R.ev[1].data == w && R.ev[2].data == w,
          "rx_dispatch: NIC_CTX_FN read and write answered on ev (MAC, IP, valid)", why);
    check(R.nseen[0] == 1 && R.seen[0][0].tag == 9 && R.seen[0][0].fn == 2, "rx_dispatch: a loaded function's packets are routed to it",
          port_str(0));
}

/* ---------------------------------------------------------------- tx_arb, roce_tx */
static void test_tx_markers(void) {
    /* a: packet 1 (3 beats), marker REQ fn 2, packet 2 (0 beats); b: marker RESP fn 2, packet 3 (1 beat) */
    roce_hdr_t a[3] = {{0}}, b[2] = {{0}};
    a[0].opcode = ROCE_OP_SEND_ONLY; a[0].psn = 1; a[0].payload_len = 150;
    a[1].mig_mark = NIC_MARK_SRC_REQ; a[1].mig_fn = 2; a[1].payload_len = 300;   /* length ignored */
    a[2].opcode = ROCE_OP_SEND_ONLY; a[2].psn = 2;
    b[0].mig_mark = NIC_MARK_SRC_RESP; b[0].mig_fn = 2;
    b[1].opcode = ROCE_OP_ACKNOWLEDGE; b[1].psn = 3; b[1].payload_len = 10;
    unsigned na[2] = {3, 2}, di[2] = {0, 0}, beats_left[2] = {3, 1}, beats_out = 0;
    static tx_arb_state arb;
    static roce_tx_state tx;
    memset(&arb, 0, sizeof arb);
    memset(&tx, 0, sizeof tx);
    roce_hdr_t order[8]; unsigned norder = 0, frames = 0;
    nic_event_t ev[4]; unsigned nev = 0;
    for (unsigned cyc = 0; cyc < 2000; cyc++) {
        tx_arb_in ai = {0};
        tx_arb_out ao = {0};
        ai.a_desc.valid = di[0] < na[0]; if (ai.a_desc.valid) ai.a_desc.data = a[di[0]];
        ai.b_desc.valid = di[1] < na[1]; if (ai.b_desc.valid) ai.b_desc.data = b[di[1]];
        ai.a_pay.valid = beats_left[0] != 0; ai.a_pay.data.bytes = 64;
        ai.b_pay.valid = beats_left[1] != 0; ai.b_pay.data.bytes = 10; ai.b_pay.data.last = true;
        ai.a_pay.data.last = beats_left[0] == 1; ai.a_pay.data.bytes = beats_left[0] == 1 ? 22 : 64;
        ai.tx_desc_ready = !chance(40);
        ai.tx_pay_ready = !chance(40);
        tx_arb(&ai, &ao, &arb);
        if (ao.tx_desc.valid && ai.tx_desc_ready && norder < 8) order[norder++] = ao.tx_desc.data;
        if (ao.tx_pay.valid && ai.tx_pay_ready) beats_out++;
        if (ai.a_desc.valid && ao.a_desc_ready) di[0]++;
        if (ai.b_desc.valid && ao.b_desc_ready) di[1]++;
        if (ai.a_pay.valid && ao.a_pay_ready) beats_left[0]--;
        if (ai.b_pay.valid && ao.b_pay_ready) beats_left[1]--;
    }
    char why[200];
    bool a_in_order = true;
    int last_a = -1;
    for (unsigned i = 0; i < norder; i++)
        if (order[i].mig_mark != NIC_MARK_SRC_RESP && order[i].opcode != ROCE_OP_ACKNOWLEDGE) {
            int k = order[i].mig_mark ? 1 : order[i].psn == 1 ? 0 : 2;
            if (k <= last_a) a_in_order = false;
            last_a = k;
        }
    snprintf(why, sizeof why, "%u descriptors, %u beats, source a in order %d", norder, beats_out, a_in_order);
    check(norder == 5 && beats_out == 4 && a_in_order, "tx_arb: marker descriptors pass in their source's order, no beat", why);

    /* roce_tx: the merged order in, one frame per packet out, a marker only as an event.
     * The payload is its own stream, the packets' beats in order (roce_tx takes descriptors
     * ahead of the frame it builds). */
    unsigned k = 0, pk = 0, pay_left = 0;
    for (unsigned cyc = 0; cyc < 3000 && (k < norder || pk < norder || tx.d1.valid || tx.d2.valid ||
                                          tx.phase != TX_HDR0); cyc++) {
        roce_tx_in ti = {0};
        roce_tx_out to = {0};
        ti.desc.valid = k < norder;
        if (ti.desc.valid) ti.desc.data = order[k];
        while (pay_left == 0 && pk < norder && (order[pk].mig_mark || order[pk].payload_len == 0)) pk++;
        if (pay_left == 0 && pk < norder) pay_left = ((unsigned)order[pk].payload_len + 63) / 64;
        ti.pay.valid = pay_left != 0;
        ti.pay.data.bytes = (hls_uint(7))(pay_left == 1 ? ((order[pk].payload_len - 1) % 64) + 1 : 64);
        ti.pay.data.last = pay_left == 1;
        ti.frame_ready = true;
        ti.ev_ready = !chance(50);
        roce_tx(&ti, &to, &tx);
        if (to.ev.valid && ti.ev_ready && nev < 4) ev[nev++] = to.ev.data;
        if (to.frame.valid && to.frame.data.last) frames++;
        if (ti.pay.valid && to.pay_ready && --pay_left == 0) pk++;
        if (ti.desc.valid && to.desc_ready) k++;
    }
    snprintf(why, sizeof why, "%u frames (counter %u), %u events", frames, tx.frames_sent, nev);
    bool evs_ok = nev == 2;
    for (unsigned i = 0; i < nev; i++)
        evs_ok = evs_ok && ev[i].kind == NIC_EV_MIG_MARK && ev[i].fn == 2 &&
                 (ev[i].detail == NIC_MARK_SRC_REQ || ev[i].detail == NIC_MARK_SRC_RESP);
    check(frames == 3 && tx.frames_sent == 3 && evs_ok && ev[0].detail != ev[1].detail,
          "roce_tx: a marker sends no frame and raises NIC_EV_MIG_MARK (fn, source)", why);
}

int main(void) {
    edges = hls_edge_queue_new();
    test_rxd_gate();
    test_rxd_ctx();
    test_tx_markers();
    return failures ? 1 : 0;
}
