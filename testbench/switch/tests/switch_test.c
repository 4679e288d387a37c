/* switch_test — hlsnic-switch as a black box: three hosts on unix-datagram wires and one on UDP,
 * checked for learning, flooding, filtering, drops, byte-exact frames, the pcap, clean shutdown,
 * and argument errors. Prints PASS/FAIL lines; exit 1 on any failure.
 *   switch_test SWITCH_BINARY TMPDIR */
#define _GNU_SOURCE
#include "pcap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;
static void check(bool ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *name, const char *fmt, ...) {
    if (ok) {
        printf("PASS switch/%s\n", name);
    } else {
        va_list ap;
        va_start(ap, fmt);
        printf("FAIL switch/%s: ", name);
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        failures++;
    }
    fflush(stdout);
}

static const char *sw_bin, *dir;
#define NHOSTS 4 /* hosts 0..2 on unix wires, host 3 on UDP */
static int host_fd[NHOSTS];
static struct sockaddr_storage host_to_switch[NHOSTS];
static socklen_t host_to_switch_len[NHOSTS];
static char sw_local[3][108], host_local[3][108], pcap_path[200], stderr_path[200];
static int udp_sw_port, udp_host_port;

static void unix_addr(struct sockaddr_un *a, const char *path) {
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof a->sun_path, "%s", path);
}

/* a free UDP port on 127.0.0.1: bind port 0 and ask (the socket is kept for the host side) */
static int udp_bound(int *port) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a)) return -1;
    socklen_t l = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &l);
    *port = ntohs(a.sin_port);
    return fd;
}

static pid_t start_switch(char *const extra[], int nextra) {
    char specs[NHOSTS][300];
    for (int h = 0; h < 3; h++) snprintf(specs[h], sizeof specs[h], "unix:%s,%s", sw_local[h], host_local[h]);
    snprintf(specs[3], sizeof specs[3], "udp:127.0.0.1:%d,127.0.0.1:%d", udp_sw_port, udp_host_port);
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)sw_bin;
    for (int i = 0; i < nextra; i++) argv[n++] = extra[i];
    for (int h = 0; h < NHOSTS; h++) argv[n++] = specs[h];
    argv[n] = NULL;
    int out[2];
    if (pipe(out)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        int e = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (e >= 0) dup2(e, 2);
        execv(sw_bin, argv);
        _exit(127);
    }
    close(out[1]);
    /* wait (bounded) for the "ready" line */
    char buf[256] = {0};
    struct pollfd p = {.fd = out[0], .events = POLLIN};
    ssize_t got = 0;
    if (poll(&p, 1, 5000) == 1) got = read(out[0], buf, sizeof buf - 1);
    close(out[0]);
    if (got <= 0 || !strstr(buf, "ready")) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static int send_frame(int h, const uint8_t *f, size_t len) {
    return sendto(host_fd[h], f, len, 0, (struct sockaddr *)&host_to_switch[h], host_to_switch_len[h]) == (ssize_t)len
               ? 0 : -1;
}
/* one frame for host h within ms milliseconds: its length, or -1 */
static ssize_t recv_frame(int h, uint8_t *buf, size_t cap, int ms) {
    struct pollfd p = {.fd = host_fd[h], .events = POLLIN};
    if (poll(&p, 1, ms) != 1) return -1;
    return recv(host_fd[h], buf, cap, MSG_DONTWAIT);
}
static void drain_all(void) {
    uint8_t b[10000];
    for (int h = 0; h < NHOSTS; h++)
        while (recv_frame(h, b, sizeof b, 50) >= 0) {}
}

static const uint8_t MAC_A[6] = {0x02, 0, 0, 0, 0, 0xa}, MAC_B[6] = {0x02, 0, 0, 0, 0, 0xb},
                     MAC_C[6] = {0x02, 0, 0, 0, 0, 0xc}, MAC_D[6] = {0x02, 0, 0, 0, 0, 0xd},
                     MAC_UNKNOWN[6] = {0x02, 0, 0, 0, 0, 0xee}, BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
                     MCAST[6] = {0x01, 0x00, 0x5e, 0, 0, 1};

static size_t make_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src, size_t len, unsigned seed) {
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x88, f[13] = 0xb5; /* local experimental EtherType */
    for (size_t i = 14; i < len; i++) f[i] = (uint8_t)(i * 131u + seed * 7u);
    return len;
}

/* Send from host `from`, then require exactly the hosts in `want_mask` to get it, byte-exact. */
static void expect_delivery(const char *name, int from, const uint8_t *dst, const uint8_t *src, size_t len,
                            unsigned want_mask) {
    static uint8_t f[10000], r[10000];
    static unsigned seed;
    make_frame(f, dst, src, len, ++seed);
    if (send_frame(from, f, len)) {
        check(false, name, "host %d could not send: %s", from, strerror(errno));
        return;
    }
    unsigned got_mask = 0;
    bool exact = true;
    for (int h = 0; h < NHOSTS; h++) {
        ssize_t n = recv_frame(h, r, sizeof r, (want_mask >> h) & 1 ? 2000 : 150);
        if (n >= 0) {
            got_mask |= 1u << h;
            if ((size_t)n != len || memcmp(r, f, len)) exact = false;
        }
    }
    check(got_mask == want_mask && exact, name, "delivered to hosts mask 0x%x, expected 0x%x%s", got_mask,
          want_mask, exact ? "" : "; a copy differs from what was sent");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: switch_test SWITCH_BINARY TMPDIR\n");
        return 2;
    }
    sw_bin = argv[1], dir = argv[2];
    signal(SIGPIPE, SIG_IGN);
    for (int h = 0; h < 3; h++) {
        snprintf(sw_local[h], sizeof sw_local[h], "%s/sw%d", dir, h);
        snprintf(host_local[h], sizeof host_local[h], "%s/host%d", dir, h);
        struct sockaddr_un a;
        unix_addr(&a, host_local[h]);
        host_fd[h] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (host_fd[h] < 0 || bind(host_fd[h], (struct sockaddr *)&a, sizeof a)) {
            printf("FAIL switch/setup: bind %s: %s\n", host_local[h], strerror(errno));
            return 1;
        }
        unix_addr((struct sockaddr_un *)&host_to_switch[h], sw_local[h]);
        host_to_switch_len[h] = sizeof(struct sockaddr_un);
    }
    host_fd[3] = udp_bound(&udp_host_port);
    int probe = udp_bound(&udp_sw_port); /* reserve a port number, then free it for the switch */
    if (host_fd[3] < 0 || probe < 0) {
        printf("FAIL switch/setup: no UDP socket on 127.0.0.1\n");
        return 1;
    }
    close(probe);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)udp_sw_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    memcpy(&host_to_switch[3], &sa, sizeof sa);
    host_to_switch_len[3] = sizeof sa;
    snprintf(pcap_path, sizeof pcap_path, "%s/switch.pcap", dir);
    snprintf(stderr_path, sizeof stderr_path, "%s/switch.stderr", dir);

    char *extra[] = {"--pcap", pcap_path, "--timeout", "60"};
    pid_t pid = start_switch(extra, 4);
    check(pid > 0, "start", "the switch did not print 'ready' within 5 s (see %s)", stderr_path);
    if (pid <= 0) return 1;
    unsigned forwarded = 0; /* frames the pcap must hold */

    /* hosts: A on 0, B on 1, C on 2, D on 3 (UDP) */
    expect_delivery("broadcast-floods", 0, BCAST, MAC_A, 60, 0xe), forwarded++;
    expect_delivery("learned-unicast", 1, MAC_A, MAC_B, 60, 0x1), forwarded++;
    expect_delivery("learned-unicast-back", 0, MAC_B, MAC_A, 1500, 0x2), forwarded++;
    expect_delivery("unknown-unicast-floods", 2, MAC_UNKNOWN, MAC_C, 64, 0xb), forwarded++;
    expect_delivery("multicast-floods", 1, MCAST, MAC_B, 100, 0xd), forwarded++;
    expect_delivery("udp-port-floods", 3, BCAST, MAC_D, 60, 0x7), forwarded++;
    expect_delivery("unix-to-udp", 0, MAC_D, MAC_A, 200, 0x8), forwarded++;
    expect_delivery("udp-to-unix", 3, MAC_C, MAC_D, 200, 0x4), forwarded++;
    expect_delivery("jumbo-9216-exact", 1, MAC_C, MAC_B, 9216, 0x4), forwarded++;
    expect_delivery("min-frame-14", 2, MAC_B, MAC_C, 14, 0x2), forwarded++;
    /* A moves from port 0 to port 2: re-learned there */
    expect_delivery("station-moves", 2, BCAST, MAC_A, 60, 0xb), forwarded++;
    expect_delivery("moved-station-reached", 1, MAC_A, MAC_B, 60, 0x4), forwarded++;
    /* filtered: destination is on the ingress port */
    expect_delivery("same-port-filtered", 2, MAC_A, MAC_C, 60, 0x0);
    expect_delivery("runt-dropped", 0, MAC_B, MAC_A, 13, 0x0);
    expect_delivery("oversize-dropped", 0, MAC_B, MAC_A, 9217, 0x0);
    expect_delivery("multicast-source-dropped", 0, BCAST, MCAST, 60, 0x0);
    /* a burst: 200 frames in order, none lost between two unix hosts at this rate */
    {
        uint8_t f[256], r[256];
        unsigned ok = 0, in_order = 1;
        for (unsigned i = 0; i < 200; i++) {
            make_frame(f, MAC_B, MAC_C, 100, 0);
            f[14] = (uint8_t)i;
            if (send_frame(2, f, 100)) break;
            ssize_t n = recv_frame(1, r, sizeof r, 2000);
            if (n == 100) {
                ok++;
                if (r[14] != (uint8_t)i) in_order = 0;
            }
        }
        forwarded += 200;
        check(ok == 200 && in_order, "burst-200-in-order", "%u of 200 arrived, in order: %u", ok, in_order);
    }
    /* a peer that does not read: its socket takes only net.unix.max_dgram_qlen (10) datagrams;
     * the switch holds the rest in the port's output queue (128) and delivers all, in order,
     * once the peer reads. 100 frames: none lost. */
    {
        uint8_t f[256], r[256];
        unsigned sent = 0, ok = 0, in_order = 1;
        for (unsigned i = 0; i < 100; i++) {
            make_frame(f, MAC_B, MAC_C, 120, 0);
            f[14] = (uint8_t)i;
            if (send_frame(2, f, 120) == 0) sent++;
        }
        usleep(200000); /* the switch has forwarded what it could and holds the rest */
        for (unsigned i = 0; i < 100; i++) {
            ssize_t n = recv_frame(1, r, sizeof r, 2000);
            if (n != 120) break;
            ok++;
            if (r[14] != (uint8_t)i) in_order = 0;
        }
        forwarded += sent;
        check(sent == 100 && ok == 100 && in_order, "slow-peer-no-loss-in-order",
              "%u sent, %u of them received, in order: %u", sent, ok, in_order);
    }
    drain_all();

    /* clean stop on SIGTERM: exit 0 within 2 s, socket files gone, counters reported */
    kill(pid, SIGTERM);
    int status = -1;
    pid_t w = 0;
    for (int i = 0; i < 200 && (w = waitpid(pid, &status, WNOHANG)) == 0; i++) usleep(10000);
    if (w == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    check(w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "sigterm-clean-exit",
          "status 0x%x after SIGTERM (waited %s)", status, w == pid ? "<2 s" : "2 s, then SIGKILL");
    struct stat st;
    check(stat(sw_local[0], &st) && stat(sw_local[2], &st), "sockets-removed", "%s still exists", sw_local[0]);
    FILE *ef = fopen(stderr_path, "r");
    char line[512], want[64];
    bool counted = false;
    snprintf(want, sizeof want, "%u forwarded", forwarded);
    while (ef && fgets(line, sizeof line, ef)) counted |= strstr(line, "stopped (SIGTERM)") && strstr(line, want);
    if (ef) fclose(ef);
    check(counted, "counters", "no 'stopped (SIGTERM): ... %s' line in %s", want, stderr_path);

    /* the pcap holds every forwarded frame, once */
    pcap_reader_t *pr = pcap_open_read(pcap_path);
    unsigned frames = 0, jumbo = 0;
    if (pr) {
        uint8_t b[10000];
        size_t len;
        int r;
        while ((r = pcap_next(pr, b, sizeof b, &len, NULL)) == 1) {
            frames++;
            jumbo += len == 9216;
        }
        pcap_close_read(pr);
        if (r < 0) frames = 0;
    }
    check(pr && frames == forwarded && jumbo == 1, "pcap", "pcap has %u frames (%u of 9216 bytes), expected %u (1)",
          frames, jumbo, forwarded);

    /* --max-frames bounds a run: the switch exits 0 by itself after 3 frames */
    char *bounded[] = {"--max-frames", "3", "-q"};
    pid = start_switch(bounded, 3);
    if (pid > 0) {
        uint8_t f[64];
        make_frame(f, BCAST, MAC_A, 64, 1);
        for (int i = 0; i < 3; i++) send_frame(0, f, 64);
        status = -1;
        for (int i = 0; i < 300 && (w = waitpid(pid, &status, WNOHANG)) == 0; i++) usleep(10000);
        if (w == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
        check(w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "max-frames-exit",
              "status 0x%x (%s)", status, w == pid ? "exited" : "still running after 3 s");
    } else {
        check(false, "max-frames-exit", "the switch did not start");
    }
    drain_all();

    /* argument errors: exit 2 and a message naming the culprit */
    struct {
        const char *name, *a1, *a2, *expect;
    } bad[] = {
        {"bad-spec", "tcp:1,2", "unix:/nonexistent-hlsnic/x,/nonexistent-hlsnic/y", "tcp:1,2"},
        {"one-port", "unix:/nonexistent-hlsnic/x,/nonexistent-hlsnic/y", NULL, "at least two ports"},
        {"bind-fails", "unix:/nonexistent-dir/s,/nonexistent-hlsnic/y", "unix:/nonexistent-hlsnic/x,/nonexistent-hlsnic/y", "bind /nonexistent-dir/s"},
        {"same-path", "unix:/nonexistent-hlsnic/x,/nonexistent-hlsnic/x", "unix:/nonexistent-hlsnic/z,/nonexistent-hlsnic/y", "same path"},
        {"bad-udp", "udp:127.0.0.1,127.0.0.1:5", "unix:/nonexistent-hlsnic/x,/nonexistent-hlsnic/y", "not HOST:PORT"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cmd[600], name[64], out[1024] = {0};
        snprintf(cmd, sizeof cmd, "'%s' '%s' %s%s%s 2>&1; echo \"rc=$?\"", sw_bin, bad[i].a1, bad[i].a2 ? "'" : "",
                 bad[i].a2 ? bad[i].a2 : "", bad[i].a2 ? "'" : "");
        FILE *p = popen(cmd, "r");
        size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
        if (p) pclose(p);
        out[n] = 0;
        snprintf(name, sizeof name, "error-%s", bad[i].name);
        check(strstr(out, "rc=2") && strstr(out, bad[i].expect), name, "expected exit 2 naming '%s', got: %s",
              bad[i].expect, out);
    }
    return failures ? 1 : 0;
}
