/* resend_test.c — mig_count_resends (mig_resend.c) on pcaps written here, frame by frame:
 * which resends after a move are the migration's and which the wire's (docs/migration.md
 * section 7, "Counting resends caused by a migration"). One PASS/FAIL line per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/pcap.h"
#include "../mig_scen.h"

enum { MAC_A = 0x020000000100, MAC_B = 0x020000000200, QPN_A = 0x101, QPN_B = 0x201, MOVED = 1000 };
enum { OP_SEND_MIDDLE = 0x01, OP_READ = 0x0c, OP_READ_RESP_ONLY = 0x10, OP_ACK = 0x11 };

typedef struct {
    pcap_writer_t *sent, *delivered;
    uint64_t cycle;
} capture_t;

static void put_mac(uint8_t *p, uint64_t m) {
    for (int i = 5; i >= 0; i--, m >>= 8) p[i] = (uint8_t)m;
}

/* one RoCEv2 frame (only the fields the counter reads; `syndrome` is the AETH's first byte) */
static void build(uint8_t f[60], bool from_a, uint8_t op, uint32_t psn, uint8_t syndrome) {
    memset(f, 0, 60);
    f[54] = syndrome;
    put_mac(f, from_a ? MAC_B : MAC_A);
    put_mac(f + 6, from_a ? MAC_A : MAC_B);
    f[12] = 0x08;                                   /* IPv4 */
    f[36] = 4791 >> 8, f[37] = 4791 & 0xff;         /* UDP destination port */
    f[42] = op;
    uint32_t dqpn = from_a ? QPN_B : QPN_A;
    f[47] = (uint8_t)(dqpn >> 16), f[48] = (uint8_t)(dqpn >> 8), f[49] = (uint8_t)dqpn;
    f[51] = (uint8_t)(psn >> 16), f[52] = (uint8_t)(psn >> 8), f[53] = (uint8_t)psn;
}

/* a frame 10 cycles after the last one; lost: in the sent pcap only */
static void frame_aeth(capture_t *w, bool from_a, uint8_t op, uint32_t psn, uint8_t syndrome, bool lost) {
    uint8_t f[60];
    build(f, from_a, op, psn, syndrome);
    w->cycle += 10;
    pcap_write(w->sent, f, sizeof f, w->cycle * 4);
    if (!lost) pcap_write(w->delivered, f, sizeof f, w->cycle * 4);
}
static void frame(capture_t *w, bool from_a, uint8_t op, uint32_t psn, bool lost) {
    frame_aeth(w, from_a, op, psn, 0, lost);
}
static void req(capture_t *w, uint32_t psn) { frame(w, true, OP_SEND_MIDDLE, psn, false); }
static void ack(capture_t *w, uint32_t psn) { frame(w, false, OP_ACK, psn, false); }
/* a NAK, PSN sequence error, lost or not */
static void nak(capture_t *w, uint32_t psn, bool lost) { frame_aeth(w, false, OP_ACK, psn, 0x60, lost); }
static void to(capture_t *w, uint64_t cycle) { w->cycle = cycle; }

/* a request of the moved QP (A or A') sent now and delivered only at the next arrive(): the wire
 * delays it behind what is sent meanwhile */
static uint8_t delayed[60];
static void send_delayed(capture_t *w, uint32_t psn) {
    frame(w, true, OP_SEND_MIDDLE, psn, true);
    build(delayed, true, OP_SEND_MIDDLE, psn, 0);
}
static void arrive(capture_t *w) {
    w->cycle += 10;
    pcap_write(w->delivered, delayed, sizeof delayed, w->cycle * 4);
}

static int nfail;
static char sent_path[64], deliv_path[64];

static capture_t begin(void) {
    capture_t w = {pcap_open(sent_path), pcap_open(deliv_path), 0};
    return w;
}

static void expect(capture_t *w, const char *name, unsigned resent, unsigned explained, unsigned reissued) {
    pcap_close(w->sent);
    pcap_close(w->delivered);
    mig_resends_t r;
    int rc = mig_count_resends(sent_path, deliv_path, MAC_A, QPN_A, QPN_B, MOVED, 4, &r);
    if (rc == 0 && r.resent == resent && r.explained == explained && r.reissued == reissued) {
        printf("PASS resend count: %s (%u resent, %u explained, %u re-issued)\n", name, resent, explained, reissued);
    } else {
        printf("FAIL resend count: %s: rc %d, %u resent, %u explained, %u re-issued; want %u %u %u\n", name, rc,
               r.resent, r.explained, r.reissued, resent, explained, reissued);
        nfail++;
    }
}

/* mig_count_peer_resends: the peer's requests to A's QP dropped while A was suspended, and
 * A's responses to the peer (a sequence NAK, an ACK, a READ response) */
static void peer_req(capture_t *w, uint32_t psn, bool lost) { frame(w, false, OP_SEND_MIDDLE, psn, lost); }
static void a_nak(capture_t *w, uint32_t psn) { frame_aeth(w, true, OP_ACK, psn, 0x60, false); }
static void a_ack(capture_t *w, uint32_t psn) { frame(w, true, OP_ACK, psn, false); }
static void a_read_resp(capture_t *w, uint32_t psn) { frame(w, true, OP_READ_RESP_ONLY, psn, false); }
static void expect_peer(capture_t *w, const char *name, uint64_t stopped, uint64_t resumed, unsigned dropped,
                        unsigned taken, uint64_t first, uint64_t reads_out, bool in_round) {
    pcap_close(w->sent);
    pcap_close(w->delivered);
    mig_peer_resends_t r;
    int rc = mig_count_peer_resends(sent_path, deliv_path, MAC_A, QPN_A, QPN_B, stopped, resumed, 4, &r);
    if (rc == 0 && r.dropped == dropped && r.taken == taken && r.first_resend == first && r.reads_out == reads_out &&
        r.in_round == in_round) {
        char when[40] = "none after the resume";
        if (first != UINT64_MAX) snprintf(when, sizeof when, "%llu cycles after the resume", (unsigned long long)first);
        printf("PASS peer resend count: %s (%u dropped, %u taken, first %s, READ responses out at %llu%s)\n", name, dropped,
               taken, when, (unsigned long long)reads_out, in_round ? ", in a resend round" : "");
    } else {
        printf("FAIL peer resend count: %s: rc %d, %u dropped, %u taken, first %llu, reads out %llu, round %d; want %u %u %llu %llu %d\n",
               name, rc, r.dropped, r.taken, (unsigned long long)r.first_resend, (unsigned long long)r.reads_out, r.in_round,
               dropped, taken, (unsigned long long)first, (unsigned long long)reads_out, in_round);
        nfail++;
    }
}

int main(void) {
    snprintf(sent_path, sizeof sent_path, "/tmp/resend_test.%d.sent.pcap", (int)getpid());
    snprintf(deliv_path, sizeof deliv_path, "/tmp/resend_test.%d.deliv.pcap", (int)getpid());

    /* the resume probe: A' sends A's last packet again, then goes on */
    capture_t w = begin();
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    ack(&w, 15);
    to(&w, MOVED + 100);
    for (uint32_t p = 19; p < 25; p++) req(&w, p);
    expect(&w, "the resume probe only", 1, 0, 0);

    /* A' goes back 5 packets the peer had and acknowledged: the migration's */
    w = begin();
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    ack(&w, 19);
    to(&w, MOVED + 100);
    for (uint32_t p = 15; p < 22; p++) req(&w, p);
    expect(&w, "a go-back-N round of A' with nothing lost", 5, 0, 0);

    /* the wire lost packet 15: A''s round from 15 resends 16..19 too, all the wire's */
    w = begin();
    for (uint32_t p = 10; p < 20; p++) frame(&w, true, OP_SEND_MIDDLE, p, p == 15);
    ack(&w, 14);
    to(&w, MOVED + 100);
    for (uint32_t p = 15; p < 22; p++) req(&w, p);
    expect(&w, "a round from a packet the wire lost", 5, 5, 0);

    /* every ACK covering 12..19 lost: A''s timeout round is the wire's */
    w = begin();
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    frame(&w, false, OP_ACK, 19, true);
    to(&w, MOVED + 100);
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    expect(&w, "a timeout round after the ACKs were lost", 10, 10, 0);

    /* A began a round (a NAK for a reordered packet) before the move; A' finishes it */
    w = begin();
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    to(&w, MOVED - 200);
    for (uint32_t p = 12; p < 15; p++) req(&w, p);
    to(&w, MOVED + 100);
    for (uint32_t p = 14; p < 20; p++) req(&w, p);
    expect(&w, "A's round finished by A'", 6, 6, 0);

    /* ... but a new round of A' after that is the migration's again */
    w = begin();
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    to(&w, MOVED - 200);
    for (uint32_t p = 12; p < 20; p++) req(&w, p);
    to(&w, MOVED + 100);
    for (uint32_t p = 16; p < 20; p++) req(&w, p);
    expect(&w, "a new round of A' after A's", 4, 0, 0);

    /* The wire lost 15; 16 drew the peer's NAK, which reached A only while PASSIVE (or was
     * lost), and the peer dropped 16..19 (it waits for 15 and NAKs once). A''s probe from
     * the oldest unacknowledged packet (10) is the migration's; 15..19 are the wire's */
    for (int lost = 0; lost <= 1; lost++) {
        w = begin();
        for (uint32_t p = 10; p < 17; p++) frame(&w, true, OP_SEND_MIDDLE, p, p == 15);
        ack(&w, 14);
        nak(&w, 15, lost);
        for (uint32_t p = 17; p < 20; p++) req(&w, p);
        to(&w, MOVED + 100);
        req(&w, 10);
        for (uint32_t p = 15; p < 22; p++) req(&w, p);
        expect(&w, lost ? "packets the peer dropped after a NAK the wire lost" :
                          "packets the peer dropped after a NAK sent to the PASSIVE source", 6, 5, 0);
    }

    /* 15 came late (reordered): the peer took it after its NAK and ACKed it, having dropped
     * 16..18; A' probes (10) and resends 16..18: those are the wire's */
    w = begin();
    for (uint32_t p = 10; p < 15; p++) req(&w, p);
    req(&w, 16);
    nak(&w, 15, false);
    req(&w, 17);
    req(&w, 18);
    req(&w, 15);
    ack(&w, 15);
    to(&w, MOVED + 100);
    req(&w, 10);
    for (uint32_t p = 16; p < 19; p++) req(&w, p);
    expect(&w, "packets the peer dropped before a reordered one came", 4, 3, 0);

    /* ... but copies delivered before the NAK's window opened, or after it closed, arrived */
    w = begin();
    for (uint32_t p = 10; p < 15; p++) req(&w, p);
    req(&w, 16);
    nak(&w, 15, false);
    req(&w, 15);
    ack(&w, 16);
    req(&w, 17);
    to(&w, MOVED + 100);
    for (uint32_t p = 12; p < 18; p++) req(&w, p);
    expect(&w, "copies outside the NAK's window", 6, 1, 0);

    /* A''s probe (10) draws B's ACK of everything (19), the wire loses it: the timeout round
     * that follows is the wire's, the probe the migration's */
    w = begin();
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    ack(&w, 19);
    to(&w, MOVED + 100);
    req(&w, 10);
    frame(&w, false, OP_ACK, 19, true);
    for (uint32_t p = 10; p < 20; p++) req(&w, p);
    expect(&w, "a timeout round after the probe's answer was lost", 11, 10, 0);

    /* After the move the wire delays A''s own 17 behind 18: the peer NAKs 17, then takes the
     * late 17. A''s round from 17 on that NAK is the wire's (the source would have made it
     * too); the timeout round 15..19 (the wire lost A's 15, the peer dropped 16..19 waiting
     * for it) is the wire's as before; the probe is the migration's. Without the NAK, the
     * same round of A' is the migration's. */
    for (int naked = 1; naked >= 0; naked--) {
        w = begin();
        for (uint32_t p = 10; p < 20; p++) frame(&w, true, OP_SEND_MIDDLE, p, p == 15);
        ack(&w, 14);
        nak(&w, 15, true);
        to(&w, MOVED + 100);
        req(&w, 10);
        ack(&w, 14);
        req(&w, 15);
        req(&w, 16);
        send_delayed(&w, 17);
        req(&w, 18);
        if (naked) nak(&w, 17, false);
        arrive(&w);
        req(&w, 19);
        for (uint32_t p = 17; p < 20; p++) req(&w, p);
        expect(&w, naked ? "a round of A' on a NAK its own delayed packet drew" : "the same round of A' without a NAK", 9,
               naked ? 8 : 5, 0);
    }

    /* The wire delays 15 behind 16: B NAKs 15 and takes the late 15, then NAKs 16 (dropped
     * in the first NAK's window) when 17 comes. A makes the round on NAK 15 (15..17, which B
     * takes) and only then gets the NAK of 16, just before the move. Having taken it with
     * nothing covering 16 after it, A owed a round from 16: A' sending it (16, 17) is the
     * wire's doing. Had B's ACK of 17 come after that NAK, nothing was owed and the same
     * round of A' is the migration's. */
    for (int acked = 0; acked <= 1; acked++) {
        w = begin();
        for (uint32_t p = 10; p < 15; p++) req(&w, p);
        send_delayed(&w, 15);
        req(&w, 16);
        nak(&w, 15, false);
        arrive(&w);
        req(&w, 17);
        for (uint32_t p = 15; p < 18; p++) req(&w, p);
        nak(&w, 16, false);
        if (acked) ack(&w, 17);
        to(&w, MOVED + 100);
        for (uint32_t p = 16; p < 20; p++) req(&w, p);
        expect(&w, acked ? "the same first round of A' after an ACK past the NAKed PSN" : "the round A owed on a NAK it took, sent by A'",
               2, acked ? 0 : 2, 0);
    }

    /* The wire delays 15 behind 19: A takes B's NAK of 15 just before the move, B then takes
     * the late 15 (and had dropped 16..19). A' probes (10) and then sends the round A owed
     * from 15: the probe is the migration's, the round the wire's. When B NAKs 16 too
     * (it has 15) and A takes that, the round from 15 is the migration's, not owed. */
    for (int second = 0; second <= 1; second++) {
        w = begin();
        for (uint32_t p = 10; p < 15; p++) req(&w, p);
        send_delayed(&w, 15);
        for (uint32_t p = 16; p < 20; p++) req(&w, p);
        nak(&w, 15, false);
        arrive(&w);
        if (second) nak(&w, 16, false);
        to(&w, MOVED + 100);
        req(&w, 10);
        req(&w, 15);
        expect(&w, second ? "a round of A' after the probe from a PSN a later NAK acknowledged" : "the probe, then the round A owed on a NAK it took",
               2, second ? 0 : 1, 0);
    }

    /* The same round A owed, with the switch's delivered pcap not in time order: a frame for
     * another QP stamped after the move is written before B's NAK (a switch writes frames as
     * they leave its queues; 1 MiB lossy seed 3 had 777 such). Read in the pcap's order the
     * owed round's NAK seemed to come after the move. */
    w = begin();
    for (uint32_t p = 10; p < 15; p++) req(&w, p);
    {
        uint8_t f[60];
        build(f, false, OP_ACK, 5, 0);
        f[47] = 0, f[48] = 0x7f, f[49] = 0x7f;           /* another QP's ACK */
        pcap_write(w.delivered, f, sizeof f, (MOVED + 50) * 4);
    }
    send_delayed(&w, 15);
    for (uint32_t p = 16; p < 20; p++) req(&w, p);
    nak(&w, 15, false);
    arrive(&w);
    to(&w, MOVED + 100);
    req(&w, 10);
    req(&w, 15);
    expect(&w, "the probe, then the round A owed, with the delivered pcap out of time order", 2, 1, 0);

    /* B refuses 15 twice with an RNR NAK (no receive WQE yet) and each time NAKs the next
     * request (16) for 15, dropping 16..19 until 15 comes again. A' probes (12, the
     * migration's) and jumps to the position it loaded, 16: 16..19 are the wire's, every
     * copy came while B waited for 15. The second NAK's window opens at the second round's
     * 16, not at the first round's (that window closed when the second 15 came). */
    w = begin();
    for (uint32_t p = 10; p < 15; p++) req(&w, p);
    for (int round = 0; round < 2; round++) {             /* the second begins at 15, as go-back-N does */
        req(&w, 15);
        frame_aeth(&w, false, OP_ACK, 15, 0x21, false);   /* RNR NAK, timer 1 */
        req(&w, 16);
        nak(&w, 15, false);
        for (uint32_t p = 17; p < 20; p++) req(&w, p);
    }
    to(&w, MOVED + 100);
    req(&w, 12);
    for (uint32_t p = 16; p < 20; p++) req(&w, p);
    expect(&w, "packets the peer dropped after a NAK that followed its RNR NAK, in two rounds", 5, 4, 0);

    /* The wire lost 15; B's NAK of 15 came to the stopped function. A' probes (10, the
     * migration's) and its timeout round 15..19 is the wire's; in it the wire loses 19, the
     * packet B would have answered, so B ACKs 17 and never 18: A''s next timeout round, 18
     * and 19, is the wire's too (mixed lossy seed 485). When nothing was lost in the first
     * round and A' times out before B's answer, the same second round is the migration's. */
    for (int lost = 1; lost >= 0; lost--) {
        w = begin();
        for (uint32_t p = 10; p < 20; p++) frame(&w, true, OP_SEND_MIDDLE, p, p == 15);
        ack(&w, 14);
        to(&w, MOVED + 10);
        nak(&w, 15, false);
        to(&w, MOVED + 100);
        req(&w, 10);
        ack(&w, 14);
        for (uint32_t p = 15; p < 20; p++) frame(&w, true, OP_SEND_MIDDLE, p, lost && p == 19);
        ack(&w, 17);
        req(&w, 18);
        req(&w, 19);
        expect(&w, lost ? "a timeout round after the wire lost the packet the peer would have answered" :
                          "the same timeout round with nothing lost", 8, lost ? 7 : 5, 0);
    }

    /* The wire delays A's 15 behind 16 before the move; B, far behind its receive backlog,
     * NAKs 15 only after the move, then ACKs the late 15 and NAKs 16 (dropped in the first
     * NAK's window). A' probes 15 (WQE una's first packet, the migration's) and, when the NAK
     * reaches it, goes back to 15 as A would have: that round is the wire's (1 MiB lossy
     * seed 33). When those answers came to the stopped function instead, the same round of
     * A' is the migration's (B's ACK of 15 was dropped with them). */
    for (int reached = 1; reached >= 0; reached--) {
        w = begin();
        for (uint32_t p = 10; p < 15; p++) req(&w, p);
        ack(&w, 14);
        send_delayed(&w, 15);
        req(&w, 16);
        arrive(&w);
        for (uint32_t p = 17; p < 20; p++) req(&w, p);
        to(&w, reached ? MOVED + 100 : MOVED + 10);
        if (reached) req(&w, 15);
        nak(&w, 15, false);
        ack(&w, 15);
        nak(&w, 16, false);
        if (!reached) {
            to(&w, MOVED + 100);
            req(&w, 15);
        }
        for (uint32_t p = 15; p < 20; p++) req(&w, p);
        expect(&w, reached ? "a round of A' on a NAK A's reordered packets drew, sent after the move" :
                             "the same round of A' when that NAK came to the stopped function", 6, reached ? 5 : 4, 0);
    }

    /* a READ asked for again is a re-issue, not a resend */
    w = begin();
    frame(&w, true, OP_READ, 10, false);
    for (uint32_t p = 14; p < 18; p++) req(&w, p);
    to(&w, MOVED + 100);
    frame(&w, true, OP_READ, 10, false);
    req(&w, 18);
    expect(&w, "a READ re-issued", 0, 0, 1);

    /* B's packets: 30..34 taken before the stop; 35..39 reach the suspended A (37 lost on the
     * way, 36 twice: B's timeout), dropped; after Resume-Active B resends 35..39 (and 33,
     * which A had); A's own requests are not B's */
    w = begin();
    for (uint32_t p = 30; p < 35; p++) peer_req(&w, p, false);
    to(&w, 500);
    for (uint32_t p = 35; p < 40; p++) peer_req(&w, p, p == 37);
    peer_req(&w, 36, false);
    req(&w, 12);
    to(&w, 1590);
    peer_req(&w, 33, false);
    for (uint32_t p = 35; p < 40; p++) peer_req(&w, p, false);
    expect_peer(&w, "the peer's packets the suspended function dropped, resent after the resume", 500, 1500, 4, 0, 110, 0,
                false);

    /* nothing resent: the packet passed before the gate closed (taken), the first resend is none */
    w = begin();
    to(&w, 500);
    peer_req(&w, 35, false);
    expect_peer(&w, "a packet in the window the peer never resent: taken", 500, 1500, 0, 1, UINT64_MAX, 0, false);

    /* A NAKed 33 before the stop and B's round from 33 met the closed gate: B was inside a
     * resend round at the stop; after the resume A's READ responses go first (out at 1531),
     * then its resume NAK, then B's resend */
    w = begin();
    for (uint32_t p = 30; p < 33; p++) peer_req(&w, p, false);
    a_nak(&w, 33);
    to(&w, 500);
    for (uint32_t p = 33; p < 36; p++) peer_req(&w, p, false);
    to(&w, 1500);
    a_read_resp(&w, 7);
    a_read_resp(&w, 8);
    a_read_resp(&w, 9);
    a_nak(&w, 33);
    a_read_resp(&w, 10);                    /* after the resume NAK: not owed at the resume */
    for (uint32_t p = 33; p < 36; p++) peer_req(&w, p, false);
    expect_peer(&w, "the peer inside a resend round at the stop; READ responses before the resume NAK", 500, 1500, 3, 0, 60,
                31, true);

    /* the same, but A's ACK of 34 before the stop ended the round */
    w = begin();
    for (uint32_t p = 30; p < 33; p++) peer_req(&w, p, false);
    a_nak(&w, 33);
    peer_req(&w, 33, false);
    peer_req(&w, 34, false);
    a_ack(&w, 34);
    to(&w, 500);
    peer_req(&w, 35, false);
    to(&w, 1500);
    a_nak(&w, 35);
    peer_req(&w, 35, false);
    expect_peer(&w, "a resend round an ACK past its PSN ended before the stop", 500, 1500, 1, 0, 20, 0, false);

    unlink(sent_path);
    unlink(deliv_path);
    return nfail ? 1 : 0;
}
