/* hlsnic-switch — a learning Ethernet switch between datagram-socket wires (docs/host-driver.md).
 *
 *   hlsnic-switch [--pcap FILE] [--max-frames N] [--timeout SEC] [--age SEC] [-q] PORT PORT...
 *
 * PORT is the switch's end of one wire, in the simulated NIC's own format (HLSNIC_WIRE,
 * testbench/device/hlsnic_dev.h, QEMU's -netdev dgram): "unix:LOCAL,REMOTE" (bind the datagram
 * socket LOCAL, send to REMOTE) or "udp:HOST:PORT,HOST:PORT". A NIC on that wire uses the mirror
 * spec (its LOCAL is our REMOTE). One Ethernet frame per datagram, destination MAC onward, no FCS.
 *
 * Forwarding (IEEE 802.1D transparent bridge, no spanning tree): the source MAC of every accepted
 * frame is learned on its ingress port (a station that moves is re-learned on its new port);
 * a unicast to a learned MAC goes to that port only (dropped if that is the ingress port);
 * broadcast, multicast and unknown unicast are flooded to every other port. Entries not seen for
 * --age seconds (default 300) are forgotten. Dropped, and counted: runts (< 14 bytes),
 * frames over 9216 bytes, frames with a multicast source MAC, and frames for a peer that is not
 * there (no socket bound at REMOTE yet).
 *
 * Output buffers: a peer whose socket queue is full (a unix datagram socket holds only
 * net.unix.max_dgram_qlen = 10 datagrams by default) does not lose the frame: each port has an
 * output queue of 128 frames, retried every millisecond, in order, as a switch's egress buffer
 * holds frames for a slow port. Only a full output queue drops (counted): the switch never blocks.
 *
 * Bounded: at most 16 ports, a 1024-entry MAC table, 128 queued frames per port. Ends cleanly (exit 0,
 * pcap closed, its unix socket files removed, counters on stderr) on SIGTERM or SIGINT, after
 * --max-frames received frames, or after --timeout seconds. Prints "hlsnic-switch: ready" on
 * stdout once every port is bound. Exit 2 on bad arguments or a port that cannot be opened.
 * Not a cycle model: it runs in wall-clock time; the pcap's timestamps are CLOCK_REALTIME. */
#define _GNU_SOURCE
#include "pcap.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 16
#define MAX_FRAME 9216u  /* the largest frame the NIC and testbench/lib/wire.h accept (jumbo) */
#define MIN_FRAME 14u    /* destination MAC, source MAC, EtherType */
#define MAC_TABLE 1024u  /* power of two; full -> no more learning (frames are flooded) */
#define OUT_QUEUE 128u   /* frames an output port holds while its peer's socket is full */

typedef struct {
    uint8_t *data;
    uint32_t len;
} queued_t;

typedef struct {
    const char *spec;
    int fd;
    struct sockaddr_storage remote;
    socklen_t remote_len;
    char unix_local[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* to unlink at exit */
    uint64_t rx, tx, tx_refused, queued, queue_full, queue_high;
    queued_t q[OUT_QUEUE]; /* ring: q_head is the oldest */
    unsigned q_head, q_n;
} port_t;

typedef struct {
    uint64_t mac_plus1; /* 0 = empty */
    unsigned port;
    double last_seen;
} mac_entry_t;

typedef struct {
    uint64_t rx, forwarded, flooded, filtered, runts, oversize, bad_source, learned, moved, aged;
} counters_t;

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static uint64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- port specs ------------------------------------------------------------------------- */
static int parse_unix(const char *path, struct sockaddr_un *a, socklen_t *len, const char *spec) {
    if (!*path || strlen(path) >= sizeof a->sun_path) {
        fprintf(stderr, "hlsnic-switch: port '%s': unix path '%s' is empty or longer than %zu bytes\n",
                spec, path, sizeof a->sun_path - 1);
        return -1;
    }
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    strcpy(a->sun_path, path);
    *len = (socklen_t)sizeof *a;
    return 0;
}
static int parse_udp(const char *hostport, struct sockaddr_storage *a, socklen_t *len, const char *spec) {
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        fprintf(stderr, "hlsnic-switch: port '%s': '%s' is not HOST:PORT\n", spec, hostport);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = 0;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res;
    int e = getaddrinfo(host, colon + 1, &hints, &res);
    if (e) {
        fprintf(stderr, "hlsnic-switch: port '%s': cannot resolve '%s': %s\n", spec, hostport, gai_strerror(e));
        return -1;
    }
    memcpy(a, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static int port_open(port_t *p, const char *spec) {
    p->spec = spec;
    p->fd = -1;
    char buf[1024];
    if (strlen(spec) >= sizeof buf) {
        fprintf(stderr, "hlsnic-switch: port '%.40s...': too long\n", spec);
        return -1;
    }
    strcpy(buf, spec);
    bool is_unix = strncmp(buf, "unix:", 5) == 0, is_udp = strncmp(buf, "udp:", 4) == 0;
    char *rest = buf + (is_unix ? 5 : 4), *comma = strchr(rest, ',');
    if ((!is_unix && !is_udp) || !comma) {
        fprintf(stderr, "hlsnic-switch: port '%s': expected unix:LOCAL,REMOTE or udp:HOST:PORT,HOST:PORT\n", spec);
        return -1;
    }
    *comma = 0;
    const char *local = rest, *remote = comma + 1;
    struct sockaddr_storage la;
    socklen_t llen;
    if (is_unix) {
        if (parse_unix(local, (struct sockaddr_un *)&la, &llen, spec) ||
            parse_unix(remote, (struct sockaddr_un *)&p->remote, &p->remote_len, spec))
            return -1;
        if (!strcmp(local, remote)) {
            fprintf(stderr, "hlsnic-switch: port '%s': LOCAL and REMOTE are the same path\n", spec);
            return -1;
        }
    } else if (parse_udp(local, &la, &llen, spec) || parse_udp(remote, &p->remote, &p->remote_len, spec)) {
        return -1;
    }
    p->fd = socket(is_unix ? AF_UNIX : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        fprintf(stderr, "hlsnic-switch: port '%s': socket: %s\n", spec, strerror(errno));
        return -1;
    }
    if (bind(p->fd, (struct sockaddr *)&la, llen)) {
        fprintf(stderr, "hlsnic-switch: port '%s': bind %s: %s\n", spec, local, strerror(errno));
        close(p->fd);
        p->fd = -1;
        return -1;
    }
    if (is_unix) strcpy(p->unix_local, local);
    return 0;
}

/* ---- MAC table ------------------------------------------------------------------------------- */
static uint64_t mac_at(const uint8_t *f) {
    uint64_t m = 0;
    for (int i = 0; i < 6; i++) m = (m << 8) | f[i];
    return m;
}
static uint32_t mac_hash(uint64_t mac) {
    mac ^= mac >> 31;
    mac *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(mac >> 40) & (MAC_TABLE - 1);
}
/* The entry holding mac, or the empty slot where it would go, or NULL if the table is full. */
static mac_entry_t *mac_find(mac_entry_t *t, uint64_t mac) {
    for (uint32_t i = mac_hash(mac), k = 0; k < MAC_TABLE; k++, i = (i + 1) & (MAC_TABLE - 1))
        if (t[i].mac_plus1 == 0 || t[i].mac_plus1 == mac + 1) return &t[i];
    return NULL;
}

/* Send one frame to port p's peer: 1 sent, 0 the peer's queue is full (try again), -1 dropped
 * (no peer bound there, or another error of that peer). */
static int port_send(port_t *p, const uint8_t *f, size_t len) {
    ssize_t r = sendto(p->fd, f, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&p->remote, p->remote_len);
    if (r == (ssize_t)len) {
        p->tx++;
        return 1;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) return 0;
    p->tx_refused++;
    return -1;
}
/* Forward one frame to port p: behind what it already holds, or at once. */
static void port_forward(port_t *p, const uint8_t *f, size_t len) {
    if (p->q_n == 0 && port_send(p, f, len) != 0) return;
    if (p->q_n == OUT_QUEUE) {
        p->queue_full++;
        return;
    }
    queued_t *e = &p->q[(p->q_head + p->q_n) % OUT_QUEUE];
    if (!(e->data = malloc(len))) {
        p->queue_full++;
        return;
    }
    memcpy(e->data, f, len);
    e->len = (uint32_t)len;
    p->q_n++;
    p->queued++;
    if (p->q_n > p->queue_high) p->queue_high = p->q_n;
}
/* Send what port p holds, oldest first, until its peer is full again. */
static void port_drain(port_t *p) {
    while (p->q_n) {
        queued_t *e = &p->q[p->q_head];
        if (port_send(p, e->data, e->len) == 0) return;
        free(e->data);
        p->q_head = (p->q_head + 1) % OUT_QUEUE;
        p->q_n--;
    }
}

static void usage(const char *why) {
    fprintf(stderr, "hlsnic-switch: %s\nusage: hlsnic-switch [--pcap FILE] [--max-frames N] [--timeout SEC] "
                    "[--age SEC] [-q] PORT PORT... (PORT = unix:LOCAL,REMOTE | udp:HOST:PORT,HOST:PORT)\n", why);
    exit(2);
}
static double number_arg(const char *opt, const char *v) {
    char *end;
    errno = 0;
    double x = v ? strtod(v, &end) : 0;
    if (!v || errno || end == v || *end || x < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s needs a non-negative number, got '%s'", opt, v ? v : "(nothing)");
        usage(msg);
    }
    return x;
}

int main(int argc, char **argv) {
    const char *pcap_path = NULL;
    double timeout = 0, age = 300;
    uint64_t max_frames = 0;
    bool quiet = false;
    const char *specs[MAX_PORTS];
    unsigned nports = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--pcap")) {
            if (++i >= argc) usage("--pcap needs a file");
            pcap_path = argv[i];
        } else if (!strcmp(a, "--max-frames")) {
            max_frames = (uint64_t)number_arg(a, i + 1 < argc ? argv[++i] : NULL);
        } else if (!strcmp(a, "--timeout")) {
            timeout = number_arg(a, i + 1 < argc ? argv[++i] : NULL);
        } else if (!strcmp(a, "--age")) {
            age = number_arg(a, i + 1 < argc ? argv[++i] : NULL);
        } else if (!strcmp(a, "-q")) {
            quiet = true;
        } else if (a[0] == '-') {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown option '%s'", a);
            usage(msg);
        } else {
            if (nports == MAX_PORTS) usage("more than 16 ports");
            specs[nports++] = a;
        }
    }
    if (nports < 2) usage("a switch needs at least two ports");

    static port_t ports[MAX_PORTS];
    for (unsigned p = 0; p < nports; p++) {
        if (port_open(&ports[p], specs[p])) {
            for (unsigned q = 0; q < p; q++) {
                close(ports[q].fd);
                if (ports[q].unix_local[0]) unlink(ports[q].unix_local);
            }
            return 2;
        }
    }
    pcap_writer_t *pc = NULL;
    if (pcap_path && !(pc = pcap_open(pcap_path))) {
        fprintf(stderr, "hlsnic-switch: --pcap %s: %s\n", pcap_path, strerror(errno));
        for (unsigned q = 0; q < nports; q++) {
            close(ports[q].fd);
            if (ports[q].unix_local[0]) unlink(ports[q].unix_local);
        }
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    static mac_entry_t table[MAC_TABLE];
    static uint8_t frame[MAX_FRAME + 1];
    counters_t c = {0};
    struct pollfd pfd[MAX_PORTS];
    for (unsigned p = 0; p < nports; p++) pfd[p] = (struct pollfd){.fd = ports[p].fd, .events = POLLIN};
    printf("hlsnic-switch: ready, %u ports\n", nports);
    fflush(stdout);

    const double start = now_s();
    const char *why = "signal";
    while (!stop_signal) {
        if (max_frames && c.rx >= max_frames) { why = "--max-frames reached"; break; }
        if (timeout > 0 && now_s() - start >= timeout) { why = "--timeout reached"; break; }
        /* retry held frames every millisecond; otherwise wake every 100 ms to notice the
         * timeout (signals interrupt poll anyway) */
        unsigned held = 0;
        for (unsigned p = 0; p < nports; p++) {
            port_drain(&ports[p]);
            held += ports[p].q_n;
        }
        int n = poll(pfd, nports, held ? 1 : 100);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "hlsnic-switch: poll: %s\n", strerror(errno));
            why = "poll error";
            break;
        }
        for (unsigned in = 0; in < nports && n > 0; in++) {
            if (!(pfd[in].revents & POLLIN)) continue;
            ssize_t got = recv(ports[in].fd, frame, sizeof frame, MSG_TRUNC | MSG_DONTWAIT);
            if (got < 0) continue; /* EAGAIN, or an error we cannot attribute to a frame */
            c.rx++;
            ports[in].rx++;
            if ((size_t)got < MIN_FRAME) { c.runts++; continue; }
            if ((size_t)got > MAX_FRAME) { c.oversize++; continue; }
            if (frame[6] & 1) { c.bad_source++; continue; }
            double t = now_s();
            uint64_t src = mac_at(frame + 6), dst = mac_at(frame);
            mac_entry_t *e = mac_find(table, src);
            if (e) {
                if (!e->mac_plus1) {
                    e->mac_plus1 = src + 1;
                    c.learned++;
                } else if (e->port != in) {
                    c.moved++;
                }
                e->port = in;
                e->last_seen = t;
            }
            int out = -1; /* -1: flood */
            if (!(frame[0] & 1)) {
                mac_entry_t *d = mac_find(table, dst);
                if (d && d->mac_plus1) {
                    if (age > 0 && t - d->last_seen > age) {
                        /* stale: forget it (re-insert the run after it so lookups still work) */
                        d->mac_plus1 = 0;
                        c.aged++;
                        uint32_t i = (uint32_t)(d - table);
                        for (uint32_t j = (i + 1) & (MAC_TABLE - 1); table[j].mac_plus1; j = (j + 1) & (MAC_TABLE - 1)) {
                            mac_entry_t moved = table[j];
                            table[j].mac_plus1 = 0;
                            *mac_find(table, moved.mac_plus1 - 1) = moved;
                        }
                    } else {
                        out = (int)d->port;
                    }
                }
            }
            if (out == (int)in) { c.filtered++; continue; }
            if (out < 0) c.flooded++;
            c.forwarded++;
            if (pc) pcap_write(pc, frame, (size_t)got, realtime_ns());
            for (unsigned q = 0; q < nports; q++) {
                if (q == in || (out >= 0 && (unsigned)out != q)) continue;
                port_forward(&ports[q], frame, (size_t)got);
            }
        }
    }
    if (stop_signal) why = stop_signal == SIGTERM ? "SIGTERM" : "SIGINT";
    int rc = 0;
    if (pc && pcap_close(pc)) {
        fprintf(stderr, "hlsnic-switch: --pcap %s: write error\n", pcap_path);
        rc = 1;
    }
    uint64_t left = 0;
    for (unsigned p = 0; p < nports; p++) {
        port_drain(&ports[p]); /* a last chance for what is held; the rest is dropped */
        left += ports[p].q_n;
        for (; ports[p].q_n; ports[p].q_n--, ports[p].q_head = (ports[p].q_head + 1) % OUT_QUEUE)
            free(ports[p].q[ports[p].q_head].data);
        close(ports[p].fd);
        if (ports[p].unix_local[0]) unlink(ports[p].unix_local);
    }
    if (!quiet) {
        fprintf(stderr,
                "hlsnic-switch: stopped (%s): %llu frames in, %llu forwarded (%llu flooded), %llu filtered, "
                "dropped %llu runts, %llu oversize, %llu multicast-source, %llu held at stop; %llu MACs learned, "
                "%llu moved, %llu aged\n",
                why, (unsigned long long)c.rx, (unsigned long long)c.forwarded, (unsigned long long)c.flooded,
                (unsigned long long)c.filtered, (unsigned long long)c.runts, (unsigned long long)c.oversize,
                (unsigned long long)c.bad_source, (unsigned long long)left, (unsigned long long)c.learned,
                (unsigned long long)c.moved, (unsigned long long)c.aged);
        for (unsigned p = 0; p < nports; p++)
            fprintf(stderr,
                    "hlsnic-switch: port %u %s: %llu in, %llu out, %llu waited in the output queue (at most %llu at "
                    "once), %llu dropped (queue full), %llu refused (no peer)\n",
                    p, ports[p].spec, (unsigned long long)ports[p].rx, (unsigned long long)ports[p].tx,
                    (unsigned long long)ports[p].queued, (unsigned long long)ports[p].queue_high,
                    (unsigned long long)ports[p].queue_full, (unsigned long long)ports[p].tx_refused);
    }
    return rc;
}
