/* jump_test.c — the device's idle jump (docs/device.md, "Idle: the clock jumps") on a lost
 * frame: two devices in one process on a unix datagram pair, one RC QP each, the ACK timeout
 * exponent 14 (what rdma-core's programs use: 16.7 M cycles). B's port drops the first frame it
 * receives (the test hook drop_rx), A's SEND; A's timeout resends it and the SEND completes.
 * Checked without any wall-clock bound: A reached its timeout by a jump (the cycles jumped
 * over cover most of the wait, the ticked ones are few), the resend left A's port one
 * timeout after the first copy (pcap timestamps are cycles), byte for byte the same frame.
 * Also: a bad drop_rx list and a bad HLSNIC_JUMP_GRACE_MS are refused with a reason.
 *   jump_test DIR c|rtl */
#include "dev_side.h"
#include "../../lib/pcap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_CYCLES (1024ull << 14)

static void bad_drop_list(void) {
    char err[256] = "";
    hlsnic_dev_config_t c = {.drop_rx = "1,x"};
    hlsnic_dev_t *d = hlsnic_dev_open(&c, err, sizeof err);
    check(!d && strstr(err, "'x' is not a frame number"), "jump: drop_rx \"1,x\" refused with a reason",
          "open %s, reason '%s'", d ? "succeeded" : "failed", err);
    hlsnic_dev_close(d);
}

/* HLSNIC_JUMP_GRACE_MS (the grace's floor for a much slower peer): a bad value is refused */
static void bad_grace(void) {
    const char *bad[] = {"", "x", "-5", "0", "12ms", "600001"};
    char why[512] = "";
    for (unsigned i = 0; i < sizeof bad / sizeof *bad && !why[0]; i++) {
        char err[256] = "";
        setenv("HLSNIC_JUMP_GRACE_MS", bad[i], 1);
        hlsnic_dev_config_t c = {0};
        hlsnic_dev_t *d = hlsnic_dev_open(&c, err, sizeof err);
        if (d || !strstr(err, "HLSNIC_JUMP_GRACE_MS") || !strstr(err, "1..600000"))
            snprintf(why, sizeof why, "'%s': open %s, reason '%s'", bad[i], d ? "succeeded" : "failed", err);
        hlsnic_dev_close(d);
    }
    unsetenv("HLSNIC_JUMP_GRACE_MS");
    check(!why[0], "jump: HLSNIC_JUMP_GRACE_MS '', x, -5, 0, 12ms, 600001 refused with a reason", "%s", why);
}

/* The first frame A sent and the next identical one in A's pcap: their cycles. */
static bool resend_cycles(const char *pcap, uint64_t *first, uint64_t *again) {
    pcap_reader_t *r = pcap_open_read(pcap);
    static uint8_t f0[9216], f[9216];
    size_t l0 = 0, l;
    uint64_t t;
    bool have = false, found = false;
    while (r && !found && pcap_next(r, have ? f : f0, sizeof f, have ? &l : &l0, &t) == 1) {
        if (!have) {
            have = true;
            *first = t / 4;
        } else if (l == l0 && !memcmp(f, f0, l)) {
            *again = t / 4;
            found = true;
        }
    }
    if (r) pcap_close_read(r);
    return found;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: jump_test DIR c|rtl\n");
        return 2;
    }
    bad_drop_list();
    bad_grace();
    char wa[600], wb[600], pa[600], err[256];
    snprintf(wa, sizeof wa, "unix:%s/ja,%s/jb", argv[1], argv[1]);
    snprintf(wb, sizeof wb, "unix:%s/jb,%s/ja", argv[1], argv[1]);
    snprintf(pa, sizeof pa, "%s/jump_a.pcap", argv[1]);
    hlsnic_dev_config_t ca = {.model = argv[2], .wire = wa, .pcap = pa};
    char pb[600];
    snprintf(pb, sizeof pb, "%s/jump_b.pcap", argv[1]);
    hlsnic_dev_config_t cb = {.model = argv[2], .wire = wb, .drop_rx = "1", .pcap = pb};
    side_t a = {.name = "A", .fn = 0, .mac = 0x020000000a01ull, .ip = 0x0a000001, .qpn = 0x11, .key = 0x0105, .psn = 100};
    side_t b = {.name = "B", .fn = 1, .mac = 0x020000000b02ull, .ip = 0x0a000002, .qpn = 0x22, .key = 0x0207, .psn = 5000};
    a.d = hlsnic_dev_open(&ca, err, sizeof err);
    b.d = a.d ? hlsnic_dev_open(&cb, err, sizeof err) : NULL;
    check(a.d && b.d, "jump: two devices open", "%s", err);
    if (a.d && b.d && setup(&a, &b) && setup(&b, &a)) {
        double t0 = now_s();
        send_recv(&a, &b, "jump: lost frame, ");
        double wall = now_s() - t0;
        hlsnic_dev_stats_t sa, sb;
        hlsnic_dev_stats(a.d, &sa);
        hlsnic_dev_stats(b.d, &sb);
        uint64_t ticked = sa.cycles - sa.cycles_jumped;
        check(sb.rx_dropped == 1, "jump: B's port dropped exactly the one frame", "rx_dropped %" PRIu64, sb.rx_dropped);
        check(sa.jumps >= 1 && sa.cycles_jumped >= TIMEOUT_CYCLES - TIMEOUT_CYCLES / 8 && ticked < TIMEOUT_CYCLES / 8,
              "jump: A reached its ACK timeout (exponent 14) by jumping, not ticking",
              "%" PRIu64 " cycles, %" PRIu64 " jumped over in %" PRIu64 " jumps, %" PRIu64 " ticked", sa.cycles,
              sa.cycles_jumped, sa.jumps, ticked);
        hlsnic_dev_close(a.d);
        a.d = NULL;
        uint64_t c1 = 0, c2 = 0;
        bool found = resend_cycles(pa, &c1, &c2);
        /* the timer is armed when the WQE's record reaches the completer, a few hundred cycles
         * before the frame leaves; the scan sees the expiry within 128 cycles */
        check(found && c2 - c1 <= TIMEOUT_CYCLES + 200 && c2 - c1 + 2000 >= TIMEOUT_CYCLES,
              "jump: the resend left A one ACK timeout after the first copy (pcap cycles)",
              "%s; first at cycle %" PRIu64 ", again at %" PRIu64 " (%" PRIu64 " later; timeout %llu)",
              found ? "found" : "no second copy of A's first frame", c1, c2, c2 - c1, TIMEOUT_CYCLES);
        printf("INFO jump %s: a lost frame recovered in %.2f s of wall time; A: %" PRIu64 " cycles, %" PRIu64
               " jumped over in %" PRIu64 " jumps, %" PRIu64 " ticked\n",
               argv[2], wall, sa.cycles, sa.cycles_jumped, sa.jumps, ticked);
        printf("INFO B: %" PRIu64 " cycles, %" PRIu64 " jumped in %" PRIu64 "\n", sb.cycles, sb.cycles_jumped, sb.jumps);
    }
    hlsnic_dev_close(a.d);
    hlsnic_dev_close(b.d);
    return failures ? 1 : 0;
}
