/* giveup_test.c — scen_giveup_prove (scen_giveup.c) on hand-made pcaps: a RETRY_EXC_ERR claim
 * is accepted only with retry_cnt + 1 sends of the WR's first PSN and no intact response that
 * completes it; each way to disprove it is tried. One PASS/FAIL line per check. */
#include "../scen.h"
#include "../../lib/pcap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails;
static char dir[] = "/tmp/giveup-test.XXXXXX", sent[80], deliv[80];
static pcap_writer_t *ws, *wd;

enum { REQ_IP = 0x0a000102, RESP_IP = 0x0a000202, REQ_QP = 0x61, RESP_QP = 0x71 };

/* Ethernet / IPv4 / UDP 4791 / BTH / AETH, enough for the prover */
static size_t frame(uint8_t *f, uint32_t src, uint8_t opcode, uint32_t dqp, uint32_t psn, uint8_t syndrome) {
    memset(f, 0, 70);
    f[12] = 0x08;
    f[14] = 0x45;
    f[14 + 9] = 17;
    for (int i = 0; i < 4; i++) f[14 + 12 + i] = (uint8_t)(src >> (24 - 8 * i));
    f[34 + 2] = 4791 >> 8;
    f[34 + 3] = 4791 & 0xff;
    uint8_t *b = f + 42;
    b[0] = opcode;
    b[5] = (uint8_t)(dqp >> 16), b[6] = (uint8_t)(dqp >> 8), b[7] = (uint8_t)dqp;
    b[9] = (uint8_t)(psn >> 16), b[10] = (uint8_t)(psn >> 8), b[11] = (uint8_t)psn;
    b[12] = syndrome;
    return 70;
}

/* a request of the requester, as sent (and delivered unless lost) */
static void request(uint64_t cyc, uint8_t op, uint32_t psn, bool lost) {
    uint8_t f[80];
    size_t n = frame(f, REQ_IP, op, RESP_QP, psn, 0);
    pcap_write(ws, f, n, cyc * 4);
    if (!lost) pcap_write(wd, f, n, cyc * 4 + 200);
}
/* a response: sent; delivered intact, flipped (one bit), or lost */
static void response(uint64_t cyc, uint8_t op, uint32_t psn, uint8_t syn, int fate) {
    uint8_t f[80];
    size_t n = frame(f, RESP_IP, op, REQ_QP, psn, syn);
    pcap_write(ws, f, n, cyc * 4);
    if (fate == 2) f[60] ^= 0x10;
    if (fate) pcap_write(wd, f, n, cyc * 4 + 200);
}

static void open_pcaps(void) { ws = pcap_open(sent), wd = pcap_open(deliv); }

static void check(const char *name, uint8_t wr_opcode, uint32_t first, uint32_t last, bool want) {
    pcap_close(ws);
    pcap_close(wd);
    scen_giveup_t g = {.nic = 0, .qpn = REQ_QP, .peer_qpn = RESP_QP, .ip = REQ_IP, .peer_ip = RESP_IP, .retry_cnt = 7,
                       .ns_per_cycle = 4, .cycle = 100000, .first_psn = first, .last_psn = last, .wr_opcode = wr_opcode};
    char why[600];
    bool got = scen_giveup_prove(&g, sent, deliv, why, sizeof why);
    if (got == want) printf("PASS giveup %s: %s (%s)\n", name, want ? "proven" : "refused", why);
    else { printf("FAIL giveup %s: %s, want %s (%s)\n", name, got ? "proven" : "refused", want ? "proven" : "refused", why); fails++; }
}

int main(void) {
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    snprintf(sent, sizeof sent, "%s/s.pcap", dir);
    snprintf(deliv, sizeof deliv, "%s/d.pcap", dir);
    const uint32_t X = 0xfffffe;  /* PSNs across the wrap */

    /* FETCH_ADD: 8 attempts, responses lost or flipped, ACKs of later PSNs delivered (implied NAKs) */
    open_pcaps();
    for (int k = 0; k < 8; k++) {
        request(1000 + 9000 * k, 20, X, k & 1);
        response(1100 + 9000 * k, 18, X, 0, k == 2 ? 2 : 0);
        response(1200 + 9000 * k, 17, (X + 1) & 0xffffff, 0, 1);
    }
    check("atomic, every response lost or corrupted", NIC_WR_FAA, X, X, true);

    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 20, X, false);
    response(50000, 18, X, 0, 1);
    check("atomic, one ATOMIC ACKNOWLEDGE delivered intact", NIC_WR_FAA, X, X, false);

    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 20, X, false);
    response(100000 * 4, 18, X, 0, 1);   /* delivered long after the error CQE: too late */
    check("atomic, the response arrived after the error CQE", NIC_WR_FAA, X, X, true);

    open_pcaps();
    for (int k = 0; k < 7; k++) request(1000 + 9000 * k, 20, X, true);
    check("atomic, only 7 sends with retry_cnt 7 (gave up early)", NIC_WR_FAA, X, X, false);

    /* READ of 3 PSNs: a middle response delivered is progress */
    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 12, X, false);
    response(30000, 14, (X + 1) & 0xffffff, 0, 1);
    check("READ, a READ RESPONSE MIDDLE delivered (progress)", NIC_WR_READ, X, (X + 2) & 0xffffff, false);

    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 12, X, false);
    response(30000, 17, (X + 3) & 0xffffff, 0, 1);
    response(31000, 17, X, 0x60, 1);   /* NAK sequence error at its first PSN: no progress */
    check("READ, only an ACK after it and a NAK at its PSN", NIC_WR_READ, X, (X + 2) & 0xffffff, true);

    /* WRITE: a coalesced ACK of a later PSN acknowledges it */
    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 10, X, false);
    response(30000, 17, (X + 5) & 0xffffff, 0, 1);
    check("WRITE, a later ACK delivered (coalesced)", NIC_WR_WRITE, X, X, false);

    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 10, X, false);
    response(30000, 17, X, 0, 2);
    response(30000, 17, (X - 1) & 0xffffff, 0, 1);   /* the WR before it */
    response(30000, 17, X, 0x60, 1);
    check("WRITE, its ACK corrupted, older ACK and NAK at its PSN delivered", NIC_WR_WRITE, X, X, true);

    /* another QP's response does not count */
    open_pcaps();
    for (int k = 0; k < 8; k++) request(1000 + 9000 * k, 20, X, false);
    uint8_t f[80];
    size_t n = frame(f, RESP_IP, 18, REQ_QP + 1, X, 0);
    pcap_write(ws, f, n, 4000);
    pcap_write(wd, f, n, 4400);
    check("atomic, an ATOMIC ACKNOWLEDGE for another QP", NIC_WR_FAA, X, X, true);

    unlink(sent);
    unlink(deliv);
    rmdir(dir);
    return fails ? 1 : 0;
}
