/* mig_resend.c — resends a migration caused, counted from the wire's pcaps (the rule is in
 * docs/migration.md section 7). A request of the QP is a frame from `mac` to the peer's QPN
 * `dqpn` with a request opcode; the QP's responses are frames to `mac` and QPN `qpn` with a
 * response opcode (ACK, NAK, READ response, atomic ACK). */
#include "mig_scen.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/pcap.h"

typedef struct {
    uint64_t cycle;
    uint64_t src, dst;
    uint32_t dqpn, psn;
    uint8_t op;
} frame_t;

typedef struct { frame_t *f; size_t n, cap; } frames_t;

static uint64_t mac_at(const uint8_t *p) {
    uint64_t m = 0;
    for (int i = 0; i < 6; i++) m = m << 8 | p[i];
    return m;
}

/* RoCEv2 frames of the pcap (Ethernet, IPv4, UDP 4791, BTH) */
static int load(const char *path, uint32_t ns, frames_t *out) {
    pcap_reader_t *r = pcap_open_read(path);
    if (!r) return -1;
    static uint8_t buf[9216];
    size_t len;
    uint64_t t;
    while (pcap_next(r, buf, sizeof buf, &len, &t) == 1) {
        if (len < 54 || buf[12] != 0x08 || buf[13] != 0x00 || ((buf[36] << 8) | buf[37]) != 4791) continue;
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 1024;
            out->f = realloc(out->f, out->cap * sizeof *out->f);
        }
        out->f[out->n++] = (frame_t){.cycle = t / ns, .dst = mac_at(buf), .src = mac_at(buf + 6),
                                     .dqpn = (uint32_t)buf[47] << 16 | buf[48] << 8 | buf[49],
                                     .psn = (uint32_t)buf[51] << 16 | buf[52] << 8 | buf[53], .op = buf[42]};
    }
    pcap_close_read(r);
    return 0;
}

static bool is_request(uint8_t op) { return op <= 0x0c || op == 0x13 || op == 0x14; }
static bool is_read_atomic(uint8_t op) { return op == 0x0c || op == 0x13 || op == 0x14; }
static bool is_response(uint8_t op) { return op >= 0x0d && op <= 0x12; }
/* a response with PSN q covers request PSN p when p is at or before q (24-bit serial numbers) */
static bool covers(uint32_t q, uint32_t p) { return ((q - p) & 0xffffff) < 0x800000; }

/* copies of x's frame the wire delivered before cycle `by` */
static unsigned delivered_copies(const frames_t *d, const frame_t *x, uint64_t by) {
    unsigned k = 0;
    for (size_t i = 0; i < d->n; i++)
        k += d->f[i].cycle < by && d->f[i].src == x->src && d->f[i].dst == x->dst && d->f[i].dqpn == x->dqpn &&
             d->f[i].psn == x->psn && d->f[i].op == x->op;
    return k;
}

int mig_count_resends(const char *sent, const char *delivered, uint64_t mac, uint32_t qpn, uint32_t dqpn, uint64_t moved,
                      uint32_t ns_per_cycle, mig_resends_t *r) {
    frames_t s = {0}, d = {0};
    memset(r, 0, sizeof *r);
    if (!ns_per_cycle) ns_per_cycle = 4;
    if (load(sent, ns_per_cycle, &s) || load(delivered, ns_per_cycle, &d)) { free(s.f); free(d.f); return -1; }
    /* Go-back-N rounds: a request whose PSN is at or before the previous request's starts a
     * round (the resume probe, the last packet again, does not); a round whose first packet
     * the wire explains explains every packet of it, since a go-back-N round resends what
     * followed the lost packet too. A round A began is not the migration's either: A went
     * back on a NAK or timeout of the peer's making (a reordered packet), Suspend-Active
     * included, which still takes every ACK and NAK. Rounds are followed across the move:
     * A' goes on with A's round. A first copy of a PSN ends the round. */
    bool have_prev = false, round_explained = false;
    uint32_t prev_psn = 0;
    for (size_t i = 0; i < s.n; i++) {
        const frame_t *x = &s.f[i];
        if (x->src != mac || x->dqpn != dqpn || !is_request(x->op)) continue;
        bool earlier = false, before = false, copy_arrived = false, response_sent = false, response_arrived = false;
        for (size_t j = 0; j < i; j++) {
            const frame_t *y = &s.f[j];
            if (y->src == mac && y->dqpn == dqpn && y->psn == x->psn && is_request(y->op)) {
                earlier = true;
                before |= y->cycle < moved;
                copy_arrived |= delivered_copies(&d, y, x->cycle) > 0;
            }
            /* a response covering it that the wire lost, before or after the move */
            if (y->dst == mac && y->dqpn == qpn && is_response(y->op) && covers(y->psn, x->psn)) {
                response_sent = true;
                response_arrived |= delivered_copies(&d, y, x->cycle) > 0;
            }
        }
        /* the wire explains it: every earlier copy lost, or every response to it lost (before
         * this copy was sent: what arrived later could not have stopped it) */
        bool here = earlier && (!copy_arrived || (response_sent && !response_arrived));
        bool new_round = have_prev && covers(prev_psn, x->psn) && x->psn != prev_psn;
        if (new_round) round_explained = here || x->cycle < moved;
        if (!earlier) round_explained = false;  /* a first copy: no round goes on */
        bool explained = here || (!new_round && round_explained);
        have_prev = true;
        prev_psn = x->psn;
        if (x->cycle < moved) {
            r->sent_before++;
            continue;
        }
        r->sent_after++;
        if (!before) continue;
        if (is_read_atomic(x->op)) {
            r->reissued++;
            continue;
        }
        r->resent++;
        if (explained) r->explained++;
    }
    free(s.f);
    free(d.f);
    return 0;
}
