/* dev_port.c — the device's Ethernet port: one frame per datagram (destination MAC onward,
 * no FCS, no padding), QEMU's -netdev dgram format (docs/device.md, docs/interop.md):
 *
 *   unix:LOCAL_PATH,REMOTE_PATH     AF_UNIX datagram socket bound to LOCAL_PATH, sends to REMOTE_PATH
 *   udp:HOST:PORT,HOST:PORT         UDP socket bound to the first address, sends to the second
 *                                   (HOST a name or a numeric address; IPv6 as [addr])
 *
 * The string is split at its first comma (the local address holds none). The socket is
 * non-blocking and never connected: the peer may bind after us, and the clock thread must
 * never wait on it — a frame the socket will not take is dropped, as a full link would. */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* "HOST:PORT" or "[HOST]:PORT" -> an address; 0, or -1 with the reason in err. */
static int parse_inet(const char *wire, const char *s, struct sockaddr_storage *sa, socklen_t *len, char *err,
                      size_t errlen) {
    char host[256], port[32];
    const char *colon;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':') {
            snprintf(err, errlen, "wire %s: '%s': want [IPV6]:PORT", wire, s);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(close - s - 1), s + 1);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon || colon == s) {
            snprintf(err, errlen, "wire %s: '%s': want HOST:PORT", wire, s);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(colon - s), s);
    }
    snprintf(port, sizeof port, "%s", colon + 1);
    char *end;
    long pn = strtol(port, &end, 10);
    if (!port[0] || *end || pn < 0 || pn > 65535) {
        snprintf(err, errlen, "wire %s: '%s': port '%s' is not a number 0..65535", wire, s, port);
        return -1;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *ai;
    int r = getaddrinfo(host, port, &hints, &ai);
    if (r) {
        snprintf(err, errlen, "wire %s: host '%s': %s", wire, host, gai_strerror(r));
        return -1;
    }
    memcpy(sa, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

static int parse_unix(const char *wire, const char *path, struct sockaddr_storage *sa, socklen_t *len, char *err,
                      size_t errlen) {
    struct sockaddr_un *un = (struct sockaddr_un *)sa;
    if (!path[0] || strlen(path) >= sizeof un->sun_path) {
        snprintf(err, errlen, "wire %s: unix path '%s' is empty or longer than %zu bytes", wire, path,
                 sizeof un->sun_path - 1);
        return -1;
    }
    memset(un, 0, sizeof *un);
    un->sun_family = AF_UNIX;
    strcpy(un->sun_path, path);
    *len = (socklen_t)sizeof *un;
    return 0;
}

int dev_port_open(dev_port_t *p, const char *wire, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    p->fd = -1;
    if (!wire) return 0;
    bool is_unix = !strncmp(wire, "unix:", 5), is_udp = !strncmp(wire, "udp:", 4);
    if (!is_unix && !is_udp) {
        snprintf(err, errlen, "wire '%s': want unix:LOCAL_PATH,REMOTE_PATH or udp:HOST:PORT,HOST:PORT", wire);
        return -1;
    }
    const char *rest = wire + (is_unix ? 5 : 4), *comma = strchr(rest, ',');
    if (!comma) {
        snprintf(err, errlen, "wire %s: no ',' between the local and the remote address", wire);
        return -1;
    }
    char local[512];
    if ((size_t)(comma - rest) >= sizeof local) {
        snprintf(err, errlen, "wire %s: local address too long", wire);
        return -1;
    }
    snprintf(local, sizeof local, "%.*s", (int)(comma - rest), rest);
    struct sockaddr_storage la;
    socklen_t llen;
    int r = is_unix ? parse_unix(wire, local, &la, &llen, err, errlen) : parse_inet(wire, local, &la, &llen, err, errlen);
    if (!r) r = is_unix ? parse_unix(wire, comma + 1, &p->remote, &p->remote_len, err, errlen)
                        : parse_inet(wire, comma + 1, &p->remote, &p->remote_len, err, errlen);
    if (r) return -1;
    if (is_udp && la.ss_family != p->remote.ss_family) {
        snprintf(err, errlen, "wire %s: local and remote are not the same address family", wire);
        return -1;
    }
    p->fd = socket(la.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        snprintf(err, errlen, "wire %s: socket: %s", wire, strerror(errno));
        return -1;
    }
    if (bind(p->fd, (struct sockaddr *)&la, llen)) {
        snprintf(err, errlen, "wire %s: bind %s: %s", wire, local, strerror(errno));
        close(p->fd);
        p->fd = -1;
        return -1;
    }
    /* Room for bursts: a 4 KiB-MTU READ response train without drops. A UDP wire has no
     * flow control, and the two NICs are simulated in different processes at their own
     * speeds: a receiver busy with other work (a pre-copy pass of a live migration) falls
     * behind its sender, and whatever the socket cannot hold is lost on a wire that should
     * not lose frames. So with CAP_NET_ADMIN over the network namespace (root outside a
     * user namespace: hlsnic-run keeps it, docs/host-driver.md) the receive queue goes past
     * net.core.rmem_max (SO_RCVBUFFORCE, 64 MiB: a few thousand full frames); otherwise it
     * is what rmem_max allows (208 KiB on a stock kernel). */
    int sz = 4 << 20, big = 64 << 20;
    if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big))
        setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    if (is_unix) snprintf(p->local_path, sizeof p->local_path, "%s", local);
    return 0;
}

/* The socket and where it sends; the drop list and its count stay with their device. */
void dev_port_move(dev_port_t *from, dev_port_t *to) {
    to->fd = from->fd;
    to->remote = from->remote;
    to->remote_len = from->remote_len;
    memcpy(to->local_path, from->local_path, sizeof to->local_path);
    to->stalled = from->stalled;
    from->fd = -1;
    from->local_path[0] = 0;
    from->stalled = false;
}

void dev_port_close(dev_port_t *p) {
    if (p->fd >= 0) close(p->fd);
    if (p->local_path[0]) unlink(p->local_path);
    p->fd = -1;
    p->local_path[0] = 0;
}

/* A unix datagram socket holds only net.unix.max_dgram_qlen (default 10) datagrams at the
 * receiver: a burst from the NIC fills it within microseconds while the peer (QEMU, another
 * device) drains it a moment later. A link does not lose what its receiver takes a moment
 * later, so a full receiver (EAGAIN) is waited out, up to PORT_WAIT_US per frame. A receiver
 * that stays full that long, or is absent (ECONNREFUSED, ENOENT), loses the frame, and the
 * port then stops waiting until a send succeeds again, so a dead peer costs one wait, not one
 * per frame. */
#define PORT_WAIT_US 20000u
#define PORT_RETRY_US 20u

bool dev_port_send(dev_port_t *p, const uint8_t *frame, size_t len) {
    if (p->fd < 0) return false;
    for (unsigned waited = 0;; waited += PORT_RETRY_US) {
        if (sendto(p->fd, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&p->remote, p->remote_len) ==
            (ssize_t)len) {
            p->stalled = false;
            return true;
        }
        bool full = errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS;
        if (!full || p->stalled || waited >= PORT_WAIT_US) {
            if (full) p->stalled = true;
            return false;
        }
        struct timespec t = {.tv_sec = 0, .tv_nsec = PORT_RETRY_US * 1000L};
        nanosleep(&t, NULL);
    }
}

long dev_port_recv(dev_port_t *p, uint8_t *buf, size_t cap) {
    if (p->fd < 0) return -1;
    ssize_t k = recv(p->fd, buf, cap, MSG_DONTWAIT | MSG_TRUNC);
    return k >= 0 ? (long)k : -1; /* k may exceed cap: MSG_TRUNC reports the datagram's length */
}

int dev_port_set_drops(dev_port_t *p, const char *spec, char *err, size_t errlen) {
    p->ndrop = 0;
    for (const char *s = spec; s && *s;) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(s, &end, 10);
        if (end == s || errno || n == 0 || (*end && *end != ',') || *s == '-' || *s == '+') {
            snprintf(err, errlen, "drop_rx '%s': '%.*s' is not a frame number (1, 2, ...)", spec,
                     (int)strcspn(s, ","), s);
            return -1;
        }
        if (p->ndrop == sizeof p->drop / sizeof *p->drop) {
            snprintf(err, errlen, "drop_rx '%s': more than %zu frames", spec, sizeof p->drop / sizeof *p->drop);
            return -1;
        }
        p->drop[p->ndrop++] = n;
        s = *end ? end + 1 : end;
    }
    return 0;
}

bool dev_port_drop_next(dev_port_t *p) {
    p->received++;
    for (unsigned i = 0; i < p->ndrop; i++)
        if (p->drop[i] == p->received) return true;
    return false;
}
