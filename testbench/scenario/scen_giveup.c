/* scen_giveup.c — is a RETRY_EXC_ERR on a lossy wire legitimate? (docs/scenarios.md, faults)
 *
 * IB gives a message retry_cnt + 1 attempts (9.7.6.1.3); with loss and bit flips some messages
 * legitimately lose a needed frame in every one. The faults scenario therefore lets the run
 * stop at the first deviation if it is a RETRY_EXC_ERR on a WR expected to succeed (the
 * "claim", scen_opts_t.giveup_ok), and this file decides from the wire itself whether the
 * claim holds. Proven means both:
 *   1. the requester sent the WR's first PSN at least retry_cnt + 1 times (pcap of the frames
 *      as sent) before the error CQE: it did not give up early;
 *   2. no frame that would have completed the WR (or shown partial progress, which resets the
 *      retry counter, IB 9.7.5.1) reached the requester intact before the error CQE (pcap of
 *      the frames as delivered; intact = byte-identical to a frame that was sent, so a bit-
 *      flipped copy, which the receiver's ICRC check drops, does not count):
 *        READ:            a READ response with a PSN of the READ;
 *        CAS / FETCH_ADD: an ATOMIC ACKNOWLEDGE with its PSN;
 *        SEND / WRITE:    an ACK at or after its first PSN, or any NAK or response after it
 *                         (coalesced acknowledgement, IB 9.7.5.1.1).
 * An ACK after a READ/atomic's PSN is no progress: it tells the requester the response was
 * lost (implied NAK) and costs a retry. Anything else is reported as not proven, with the
 * frame that disproves it. Conservative: partial progress inside a multi-packet WR followed by
 * retry_cnt + 1 more lost attempts would be legitimate but is reported as not proven. */
#include "scen_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pcap.h"

#define GIVEUP_MAX_FRAME 9200

bool scen_giveup(const scen_t *s, scen_giveup_t *g) {
    if (s->giveup_ep < 0) return false;
    scen_ep_t *e = (scen_ep_t *)&s->ep[s->giveup_ep];
    const scen_ep_t *p = &s->ep[e->peer];
    memset(g, 0, sizeof *g);
    g->ep = s->giveup_ep;
    g->op = s->giveup_op;
    g->cycle = s->giveup_cycle;
    g->nic = e->nic;
    g->qpn = e->qpn;
    g->peer_qpn = p->qpn;
    g->ip = scen_ip(e->nic, e->fn);
    g->peer_ip = scen_ip(p->nic, p->fn);
    g->retry_cnt = e->o.retry_cnt;
    g->ns_per_cycle = s->o.wire.ns_per_cycle ? s->o.wire.ns_per_cycle : 4;
    /* the WR's PSNs: every earlier WR took one PSN per packet (a READ one per response packet,
     * an atomic one), in post order from the QP's sq_psn */
    uint32_t mtu = 128u << e->o.pmtu, psn = e->o.sq_psn[e->nic];
    for (unsigned k = 0; k <= g->op; k++) {
        const nic_sq_wqe_t *w = &e->ops[k].wqe;
        bool atomic = w->opcode == NIC_WR_CAS || w->opcode == NIC_WR_FAA;
        uint32_t n = atomic || !w->length ? 1 : (w->length + mtu - 1) / mtu;
        if (k == g->op) {
            g->first_psn = psn;
            g->last_psn = (psn + n - 1) & 0xffffff;
            g->wr_opcode = w->opcode;
            g->wr_id = w->wr_id;
        }
        psn = (psn + n) & 0xffffff;
    }
    return true;
}

/* PSN a - b in the 24-bit circle, as a signed distance */
static int32_t psn_diff(uint32_t a, uint32_t b) { return (int32_t)((a - b) << 8) >> 8; }

typedef struct {
    uint32_t src_ip;
    uint8_t opcode, syndrome;
    uint32_t dest_qp, psn;
} rocev2_t;

/* Ethernet / IPv4 / UDP 4791 / BTH (/ AETH): false for anything else. */
static bool parse(const uint8_t *f, size_t len, rocev2_t *h) {
    if (len < 14 + 20 + 8 + 12 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4) return false;
    size_t ip = 14, ihl = (size_t)(f[ip] & 15) * 4, udp = ip + ihl, bth = udp + 8;
    if (f[ip + 9] != 17 || len < bth + 12 || ((f[udp + 2] << 8) | f[udp + 3]) != 4791) return false;
    h->src_ip = (uint32_t)f[ip + 12] << 24 | (uint32_t)f[ip + 13] << 16 | (uint32_t)f[ip + 14] << 8 | f[ip + 15];
    h->opcode = f[bth];
    h->dest_qp = (uint32_t)f[bth + 5] << 16 | (uint32_t)f[bth + 6] << 8 | f[bth + 7];
    h->psn = (uint32_t)f[bth + 9] << 16 | (uint32_t)f[bth + 10] << 8 | f[bth + 11];
    h->syndrome = len > bth + 12 ? f[bth + 12] : 0;
    return true;
}

typedef struct {
    uint8_t *data;
    size_t len;
} frame_t;

/* Would this response, delivered intact, have completed the WR or shown progress on it? */
static bool progress(const scen_giveup_t *g, const rocev2_t *h) {
    int32_t d0 = psn_diff(h->psn, g->first_psn), d1 = psn_diff(h->psn, g->last_psn);
    switch (g->wr_opcode) {
    case NIC_WR_READ: return h->opcode >= 13 && h->opcode <= 16 && d0 >= 0 && d1 <= 0;
    case NIC_WR_CAS:
    case NIC_WR_FAA: return h->opcode == 18 && d0 == 0;
    default:
        if (h->opcode == 17 && (h->syndrome >> 5) == 0) return d0 >= 0;  /* ACK */
        return h->opcode >= 13 && h->opcode <= 18 && d0 > 0;             /* NAK / response after it */
    }
}

bool scen_giveup_prove(const scen_giveup_t *g, const char *sent_pcap, const char *deliv_pcap, char *why, size_t n) {
    uint64_t until_ns = g->cycle * g->ns_per_cycle;
    uint8_t *buf = malloc(GIVEUP_MAX_FRAME);
    frame_t *sent = NULL;
    size_t nsent = 0, cap = 0, len;
    uint64_t t;
    unsigned tx = 0;
    bool ok = false;
    pcap_reader_t *r = pcap_open_read(sent_pcap);
    if (!r) { snprintf(why, n, "cannot read the sent-frames pcap %s", sent_pcap); goto out; }
    while (pcap_next(r, buf, GIVEUP_MAX_FRAME, &len, &t) == 1) {
        if (len > GIVEUP_MAX_FRAME) continue;
        if (nsent == cap) sent = realloc(sent, (cap = cap ? 2 * cap : 256) * sizeof *sent);
        sent[nsent].data = malloc(len);
        memcpy(sent[nsent].data, buf, len);
        sent[nsent++].len = len;
        rocev2_t h;
        /* a request (not a response: opcodes 13..18) of this QP carrying the WR's first PSN */
        if (t <= until_ns && parse(buf, len, &h) && h.src_ip == g->ip && h.dest_qp == g->peer_qpn &&
            !(h.opcode >= 13 && h.opcode <= 18) && h.psn == g->first_psn)
            tx++;
    }
    pcap_close_read(r);
    if (tx < g->retry_cnt + 1u) {
        snprintf(why, n, "the requester sent PSN 0x%06x only %u times before the error CQE (cycle %" PRIu64 "), retry_cnt %u allows %u",
                 g->first_psn, tx, g->cycle, g->retry_cnt, g->retry_cnt + 1u);
        goto out;
    }
    if (!(r = pcap_open_read(deliv_pcap))) { snprintf(why, n, "cannot read the delivered-frames pcap %s", deliv_pcap); goto out; }
    unsigned idx = 0, flipped = 0;
    ok = true;
    while (pcap_next(r, buf, GIVEUP_MAX_FRAME, &len, &t) == 1) {
        idx++;
        rocev2_t h;
        if (t > until_ns || len > GIVEUP_MAX_FRAME || !parse(buf, len, &h) || h.src_ip != g->peer_ip || h.dest_qp != g->qpn ||
            !progress(g, &h))
            continue;
        bool intact = false;
        for (size_t i = 0; i < nsent && !intact; i++) intact = sent[i].len == len && !memcmp(sent[i].data, buf, len);
        if (!intact) { flipped++; continue; }
        snprintf(why, n, "delivered frame %u (opcode %u PSN 0x%06x AETH 0x%02x, cycle %" PRIu64 ") reached QP 0x%x intact before the error CQE",
                 idx, h.opcode, h.psn, h.syndrome, t / g->ns_per_cycle, g->qpn);
        ok = false;
        break;
    }
    pcap_close_read(r);
    if (ok)
        snprintf(why, n, "PSN 0x%06x sent %u times (retry_cnt %u); no response completing it reached QP 0x%x intact (%u corrupted)",
                 g->first_psn, tx, g->retry_cnt, g->qpn, flipped);
out:
    for (size_t i = 0; i < nsent; i++) free(sent[i].data);
    free(sent);
    free(buf);
    return ok;
}
