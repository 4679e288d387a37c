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
    size_t seq;                       /* its place in the pcap (ties in time keep it) */
    uint64_t src, dst;
    uint32_t dqpn, psn;
    uint8_t op;
    uint8_t syndrome;                 /* AETH's first byte (frames that carry one; else 0) */
} frame_t;

typedef struct { frame_t *f; size_t n, cap; } frames_t;

static uint64_t mac_at(const uint8_t *p) {
    uint64_t m = 0;
    for (int i = 0; i < 6; i++) m = m << 8 | p[i];
    return m;
}

/* by time, then by the order the pcap holds them (seq): a stable order for qsort */
static int by_cycle(const void *a, const void *b) {
    const frame_t *x = a, *y = b;
    if (x->cycle != y->cycle) return x->cycle < y->cycle ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
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
        out->f[out->n] = (frame_t){.cycle = t / ns, .seq = out->n, .dst = mac_at(buf), .src = mac_at(buf + 6),
                                     .dqpn = (uint32_t)buf[47] << 16 | buf[48] << 8 | buf[49],
                                     .psn = (uint32_t)buf[51] << 16 | buf[52] << 8 | buf[53], .op = buf[42],
                                     .syndrome = len >= 58 ? buf[54] : 0};
        out->n++;
    }
    pcap_close_read(r);
    /* in time order: a switch's delivered pcap is written as frames leave its queues, not
     * always in the order of their stamps (1 MiB lossy seed 3: 777 frames out of order), and
     * every rule below reads "earlier" as "before in the array" */
    if (out->n > 1) qsort(out->f, out->n, sizeof *out->f, by_cycle);
    return 0;
}

static bool is_request(uint8_t op) { return op <= 0x0c || op == 0x13 || op == 0x14; }
static bool is_read_atomic(uint8_t op) { return op == 0x0c || op == 0x13 || op == 0x14; }
static bool is_response(uint8_t op) { return op >= 0x0d && op <= 0x12; }
/* an ACK frame whose AETH says NAK, PSN sequence error (IBA 9.7.5.1.2: syndrome 011 00000) */
static bool is_seq_nak(const frame_t *f) { return f->op == 0x11 && f->syndrome == 0x60; }
/* ... and an RNR NAK (syndrome bits 7..5 = 001, the timer in bits 4..0) */
static bool is_rnr_nak(const frame_t *f) { return f->op == 0x11 && (f->syndrome & 0xe0) == 0x20; }
/* a response with PSN q covers request PSN p when p is at or before q (24-bit serial numbers) */
static bool covers(uint32_t q, uint32_t p) { return ((q - p) & 0xffffff) < 0x800000; }

/* While the peer's responder waits for the PSN a sequence NAK named, it drops every later
 * request it receives (IBA 9.7.5.1.2; it NAKs once). Such a window opens when the first
 * request past that PSN arrived after the one before it (that request drew the NAK; the NAK
 * leaves the responder some cycles later) and closes when the NAKed PSN arrives or the peer
 * sends a response that shows it has it (an ACK at or past it, a NAK past it). A copy
 * delivered inside the window, of a PSN past the NAKed one, did not arrive for the peer: the
 * wire's reordering or loss made it useless, not the migration. */
typedef struct {
    uint64_t nak_at;                  /* the cycle the peer sent the NAK */
    uint64_t from, to;
    uint64_t opener_sent;             /* when the request that opened it was sent (UINT64_MAX: none seen) */
    uint32_t psn;
} nak_window_t;
typedef struct { nak_window_t *w; size_t n; } nak_windows_t;

static bool past(uint32_t p, uint32_t q) { return p != q && covers(p, q); }

/* the cycle the copy of x delivered at cycle t was sent: the newest identical request sent by then */
static uint64_t last_sent(const frames_t *s, const frame_t *x, uint64_t t) {
    uint64_t at = UINT64_MAX;
    for (size_t i = 0; i < s->n && s->f[i].cycle <= t; i++)
        if (s->f[i].src == x->src && s->f[i].dqpn == x->dqpn && s->f[i].psn == x->psn && s->f[i].op == x->op)
            at = s->f[i].cycle;
    return at;
}

static nak_windows_t nak_windows(const frames_t *s, const frames_t *d, uint64_t mac, uint32_t qpn, uint32_t dqpn) {
    nak_windows_t ws = {calloc(s->n + 1, sizeof(nak_window_t)), 0};
    for (size_t i = 0; i < s->n; i++) {
        const frame_t *y = &s->f[i];
        if (y->dst != mac || y->dqpn != qpn || !is_seq_nak(y)) continue;
        uint32_t q = y->psn, before_q = (q - 1) & 0xffffff;
        uint64_t prev_at = 0;                  /* the PSN before q last arrived */
        for (size_t j = 0; j < d->n && d->f[j].cycle <= y->cycle; j++)
            if (d->f[j].src == mac && d->f[j].dqpn == dqpn && is_request(d->f[j].op) && d->f[j].psn == before_q)
                prev_at = d->f[j].cycle;
        /* ... or q itself arrived and the peer refused it with an RNR NAK: it expects q again
         * and NAKs the next later request anew (1 MiB lossy seed 3: NAKs of 101 in two
         * rounds). A q that arrived without one was taken, or came after the request that
         * drew this NAK (the NAK leaves the responder some cycles after that request) */
        uint64_t rnr_at = 0;
        for (size_t j = 0; j < i; j++)
            if (s->f[j].cycle >= prev_at && s->f[j].dst == mac && s->f[j].dqpn == qpn && is_rnr_nak(&s->f[j]) && s->f[j].psn == q)
                rnr_at = s->f[j].cycle;
        if (rnr_at)
            for (size_t j = 0; j < d->n && d->f[j].cycle <= rnr_at; j++)
                if (d->f[j].src == mac && d->f[j].dqpn == dqpn && is_request(d->f[j].op) && d->f[j].psn == q &&
                    d->f[j].cycle > prev_at)
                    prev_at = d->f[j].cycle;
        nak_window_t w = {.nak_at = y->cycle, .from = y->cycle, .to = UINT64_MAX, .opener_sent = UINT64_MAX, .psn = q};
        for (size_t j = 0; j < d->n && d->f[j].cycle <= y->cycle; j++)
            if (d->f[j].cycle >= prev_at && d->f[j].src == mac && d->f[j].dqpn == dqpn && is_request(d->f[j].op) &&
                past(d->f[j].psn, q)) {
                w.from = d->f[j].cycle;
                w.opener_sent = last_sent(s, &d->f[j], w.from);
                break;
            }
        for (size_t j = 0; j < d->n; j++)      /* q arrives */
            if (d->f[j].cycle > w.from && d->f[j].src == mac && d->f[j].dqpn == dqpn && is_request(d->f[j].op) &&
                d->f[j].psn == q) {
                w.to = d->f[j].cycle;
                break;
            }
        for (size_t j = i + 1; j < s->n && s->f[j].cycle < w.to; j++) { /* or the peer shows it has q */
            const frame_t *z = &s->f[j];
            if (z->dst == mac && z->dqpn == qpn && is_response(z->op) &&
                (is_seq_nak(z) ? past(z->psn, q) : covers(z->psn, q))) {
                w.to = z->cycle;
                break;
            }
        }
        ws.w[ws.n++] = w;
    }
    return ws;
}

/* the peer dropped a copy of request x delivered at cycle t: inside a NAK window, past its PSN */
static bool dropped_by_peer(const nak_windows_t *ws, const frame_t *x, uint64_t t) {
    if (!is_request(x->op)) return false;
    for (size_t i = 0; i < ws->n; i++)
        if (t >= ws->w[i].from && t < ws->w[i].to && past(x->psn, ws->w[i].psn))
            return true;
    return false;
}

/* copies of x's frame the wire delivered in cycles [from, by) that the peer took in */
static unsigned delivered_copies(const frames_t *d, const nak_windows_t *ws, const frame_t *x, uint64_t from, uint64_t by) {
    unsigned k = 0;
    for (size_t i = 0; i < d->n; i++)
        k += d->f[i].cycle >= from && d->f[i].cycle < by && d->f[i].src == x->src && d->f[i].dst == x->dst && d->f[i].dqpn == x->dqpn &&
             d->f[i].psn == x->psn && d->f[i].op == x->op && !dropped_by_peer(ws, x, d->f[i].cycle);
    return k;
}

/* x starts a go-back-N round that answers a sequence NAK the wire drew: the peer NAKed x's
 * PSN before x was sent, because a later request reached the peer before the copy of that PSN
 * its sender had sent first (the wire lost or delayed it). A requester must resend from the
 * PSN a sequence NAK names (IBA 9.7.5.2), so the source, unmoved, would have made the same
 * round on the same wire. Two senders: A' drew the NAK with its own packets (lossy seeds 25,
 * 33, 49), or A drew it before the move and the NAK reached A', not the stopped function: the
 * peer sent it late, behind its own backlog (1 MiB lossy seed 33 after issue 25's rework: B's
 * NAK of 111, drawn by A's 112 overtaking A's 111, left B 48 000 cycles after the move). A
 * NAK that came to the stopped function was dropped there and explains no round of A'. */
static bool round_on_wire_nak(const frames_t *s, const frames_t *d, const nak_windows_t *ws, const frame_t *x,
                              uint32_t qpn, uint64_t moved, uint64_t dest_from) {
    for (size_t i = 0; i < ws->n; i++) {
        const nak_window_t *w = &ws->w[i];
        if (w->psn != x->psn || w->nak_at >= x->cycle || w->opener_sent == UINT64_MAX) continue;
        bool opened_by_a = w->opener_sent < moved;
        if (opened_by_a) {
            bool reached_dest = false;     /* a copy of that NAK delivered to A' before x */
            for (size_t j = 0; j < d->n && d->f[j].cycle < x->cycle && !reached_dest; j++)
                reached_dest = d->f[j].cycle >= w->nak_at && d->f[j].cycle >= dest_from && d->f[j].dst == x->src &&
                               d->f[j].dqpn == qpn && is_seq_nak(&d->f[j]) && d->f[j].psn == w->psn;
            if (!reached_dest) continue;
        }
        /* the copy the opener overtook: sent by the opener's sender, before the opener */
        for (size_t j = 0; j < s->n && s->f[j].cycle < w->opener_sent; j++)
            if ((opened_by_a || s->f[j].cycle >= dest_from) && s->f[j].src == x->src && s->f[j].dqpn == x->dqpn &&
                s->f[j].psn == x->psn && is_request(s->f[j].op))
                return true;
    }
    return false;
}

/* x starts a round the wire forced on a timeout: the peer never answered x (no response
 * covering it was sent before x), and a later request the QP had sent before x, at or before
 * `last` (the previous request's PSN), never reached the peer: every copy lost, or delivered
 * while the peer dropped it waiting for a NAKed PSN. The peer answers only the packets that
 * ask for it (a message's last); with that later one missing it had nothing to answer, and a
 * timeout makes any requester go back to its oldest unacknowledged packet, x, moved or not
 * (mixed lossy seed 485: the wire lost the last packet, 123, of A''s round 116..123; B had
 * 121 and 122 and never acknowledged them, and A''s timeout resent 121..123). A resend of a
 * packet the peer did answer, the answer sent to the stopped function, stays the
 * migration's: a response covering x was sent. */
static bool round_after_later_loss(const frames_t *s, const frames_t *d, const nak_windows_t *ws, const frame_t *x,
                                   uint32_t last) {
    for (size_t j = 0; j < s->n && s->f[j].cycle < x->cycle; j++) {
        const frame_t *q = &s->f[j];
        if (q->src != x->src || q->dqpn != x->dqpn || !is_request(q->op) || !past(q->psn, x->psn) || past(q->psn, last))
            continue;
        if (!delivered_copies(d, ws, q, 0, x->cycle)) return true;   /* no copy of q the peer took before x */
    }
    return false;
}

/* x starts a go-back-N round A had to make: a sequence NAK naming x's PSN reached A before
 * the move and nothing that reached A after it, up to the move, covered that PSN. A running
 * source that took the NAK must resend from the PSN it names (IBA 9.7.5.2); the move only
 * left the round for A' to send (the caller asks only for the first copy A' sends of that
 * PSN). `moved` is when Suspend-Active was answered; the gate closed when it was issued
 * (84 to 580 cycles before on the 500 mixed seeds of `make test-long`), and a NAK that came
 * in between counts as taken here though the gate dropped it. */
static bool round_a_owed(const frames_t *d, const frame_t *x, uint64_t mac, uint32_t qpn, uint64_t moved) {
    bool owed = false;
    for (size_t i = 0; i < d->n && d->f[i].cycle < moved; i++) {
        const frame_t *y = &d->f[i];
        if (y->dst != mac || y->dqpn != qpn || !is_response(y->op)) continue;
        if (is_seq_nak(y) && y->psn == x->psn) owed = true;
        else if (is_seq_nak(y) ? past(y->psn, x->psn) : covers(y->psn, x->psn)) owed = false;
    }
    return owed;
}

int mig_count_resends(const char *sent, const char *delivered, uint64_t mac, uint32_t qpn, uint32_t dqpn, uint64_t moved,
                      uint32_t ns_per_cycle, mig_resends_t *r) {
    frames_t s = {0}, d = {0};
    memset(r, 0, sizeof *r);
    if (!ns_per_cycle) ns_per_cycle = 4;
    if (load(sent, ns_per_cycle, &s) || load(delivered, ns_per_cycle, &d)) { free(s.f); free(d.f); return -1; }
    nak_windows_t ws = nak_windows(&s, &d, mac, qpn, dqpn);
    /* Go-back-N rounds: a request whose PSN is at or before the previous request's starts a
     * round (the resume probe, the last packet again, does not); a round whose first packet
     * the wire explains explains every packet of it, since a go-back-N round resends what
     * followed the lost packet too. A round A began is not the migration's either: A went
     * back on a NAK or timeout of the peer's making (a reordered packet) before it stopped.
     * Rounds are followed across the move: A' goes on with A's round. A first copy of a PSN
     * ends the round. */
    bool have_prev = false, round_explained = false;
    uint32_t prev_psn = 0;
    uint64_t prev_at = 0;
    /* A' answers for the QP from its first request on (responses before that reached the
     * PASSIVE source, or nobody, while the function moved) */
    uint64_t dest_from = UINT64_MAX;
    for (size_t i = 0; i < s.n && dest_from == UINT64_MAX; i++)
        if (s.f[i].cycle >= moved && s.f[i].src == mac && s.f[i].dqpn == dqpn && is_request(s.f[i].op))
            dest_from = s.f[i].cycle;
    for (size_t i = 0; i < s.n; i++) {
        const frame_t *x = &s.f[i];
        if (x->src != mac || x->dqpn != dqpn || !is_request(x->op)) continue;
        bool earlier = false, before = false, copy_arrived = false, response_sent = false, response_arrived = false;
        bool dest_sent = false;             /* A' sent this PSN before */
        bool sent_to_dest = false, arrived_at_dest = false; /* responses covering it sent to A' */
        for (size_t j = 0; j < i; j++) {
            const frame_t *y = &s.f[j];
            if (y->src == mac && y->dqpn == dqpn && y->psn == x->psn && is_request(y->op)) {
                earlier = true;
                dest_sent |= y->cycle >= dest_from;
                before |= y->cycle < moved;
                copy_arrived |= delivered_copies(&d, &ws, y, 0, x->cycle) > 0;
            }
            /* a response covering it that the wire lost, before or after the move */
            if (y->dst == mac && y->dqpn == qpn && is_response(y->op) && covers(y->psn, x->psn)) {
                /* this frame's delivery, not an earlier one's with the same fields */
                bool arrived = delivered_copies(&d, &ws, y, y->cycle, x->cycle) > 0;
                response_sent = true;
                response_arrived |= arrived;
                if (y->cycle >= dest_from) sent_to_dest = true, arrived_at_dest |= arrived;
            }
        }
        /* the wire explains it: every earlier copy lost, or every response to it lost (before
         * this copy was sent: what arrived later could not have stopped it), or every response
         * to it sent after the move lost: the peer answered A''s resume probe and the wire
         * lost the answer (those before the move reached a PASSIVE source: the probe is for
         * them) */
        bool here = earlier && (!copy_arrived || (response_sent && !response_arrived) ||
                                (sent_to_dest && !arrived_at_dest));
        /* a jump forward, past the next PSN, starts a round too: the position A' loaded, after
         * the probe or a READ re-issued alone. The probe's PSN sent again right after it does
         * too: the probe goes out once, so a second copy is a round of its own (1 MiB lossy
         * seed 33: the probe 111, then the round from 111 on B's late NAK of 111) */
        bool again_after_probe = x->psn == prev_psn && prev_at == dest_from;
        bool new_round = have_prev && (again_after_probe || (x->psn != prev_psn && (covers(prev_psn, x->psn) ||
                                                                                     x->psn != ((prev_psn + 1) & 0xffffff))));
        /* the probe itself is the migration's by design (DA4's one packet), whatever the peer
         * lacks, so the timeout rule does not ask for it */
        if (new_round)
            round_explained = here || x->cycle < moved || round_on_wire_nak(&s, &d, &ws, x, qpn, moved, dest_from) ||
                              (!dest_sent && round_a_owed(&d, x, mac, qpn, moved)) ||
                              (x->cycle != dest_from && !response_sent && round_after_later_loss(&s, &d, &ws, x, prev_psn));
        if (!earlier) round_explained = false;  /* a first copy: no round goes on */
        bool explained = here || round_explained;
        have_prev = true;
        prev_psn = x->psn;
        prev_at = x->cycle;
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
    free(ws.w);
    return 0;
}

/* The peer's resends of what the suspended function dropped. From Suspend-Active on, the
 * function's gate drops every packet (docs/migration.md 2); a request of the peer to the QP
 * that the wire delivered in [stopped, resumed) was dropped, and the peer must send its PSN
 * again. Counted per PSN: those dropped (the peer sent them again after the first dropped
 * copy), and how long after Resume-Active (`resumed`) the first of those resends left.
 * A PSN the peer never sent again was taken: it arrived between Suspend-Active's start and
 * the gate's closing (the scenario checks every byte, so a copy that was really dropped and
 * never resent would fail it). Two facts from the function's own responses to dqpn say what
 * the peer can be asked for: when the READ responses the QP owed at the resume were out (they
 * go before its resume NAK, in PSN order), and whether the peer was inside a resend round at
 * the stop, started by a sequence NAK of ours that no response at or past its PSN followed:
 * such a peer (ours, and rxe with started_retry) takes no second sequence NAK until the round
 * progresses, so its timeout recovers the dropped packets. */
int mig_count_peer_resends(const char *sent, const char *delivered, uint64_t mac, uint32_t qpn, uint32_t dqpn,
                           uint64_t stopped, uint64_t resumed, uint32_t ns_per_cycle, mig_peer_resends_t *r) {
    frames_t s = {0}, d = {0};
    memset(r, 0, sizeof *r);
    r->first_resend = UINT64_MAX;
    if (!ns_per_cycle) ns_per_cycle = 4;
    if (load(sent, ns_per_cycle, &s) || load(delivered, ns_per_cycle, &d)) { free(s.f); free(d.f); return -1; }
    for (size_t i = 0; i < d.n; i++) {
        const frame_t *x = &d.f[i];
        if (x->dst != mac || x->dqpn != qpn || !is_request(x->op) || x->cycle < stopped || x->cycle >= resumed) continue;
        bool seen = false;              /* an earlier dropped copy of the PSN counted it already */
        for (size_t j = 0; j < i && !seen; j++)
            seen = d.f[j].dst == mac && d.f[j].dqpn == qpn && is_request(d.f[j].op) && d.f[j].psn == x->psn &&
                   d.f[j].cycle >= stopped;
        if (seen) continue;
        bool again = false;
        for (size_t j = 0; j < s.n && !again; j++) {
            const frame_t *y = &s.f[j];
            if (y->cycle <= x->cycle || y->dst != mac || y->dqpn != qpn || !is_request(y->op) || y->psn != x->psn) continue;
            again = true;
            if (y->cycle >= resumed && y->cycle - resumed < r->first_resend) r->first_resend = y->cycle - resumed;
        }
        if (again) r->dropped++;
        else r->taken++;
    }
    /* the function's responses to the peer's QP: the resend round at the stop, the READ
     * responses after the resume up to its resume NAK */
    bool round = false;
    uint32_t round_psn = 0;
    bool nak_seen = false;               /* its resume NAK: READ responses after it do not count */
    for (size_t j = 0; j < s.n; j++) {
        const frame_t *y = &s.f[j];
        if (y->src != mac || y->dqpn != dqpn || !is_response(y->op)) continue;
        if (y->cycle < stopped) {
            if (is_seq_nak(y)) round = true, round_psn = y->psn;
            else if (round && covers(y->psn, round_psn) && !is_rnr_nak(y)) round = false;
        } else if (y->cycle >= resumed && !nak_seen) {
            if (is_seq_nak(y)) nak_seen = true;
            else if (y->op >= 0x0d && y->op <= 0x10) r->reads_out = y->cycle - resumed + 1;
        }
    }
    r->in_round = round;
    free(s.f);
    free(d.f);
    return 0;
}
