/* mig_verbs.c — a verbs program with known data, for live migration tests
 * (docs/live-migration.md, "Tests"). Two processes, each on its own NIC (hlsnic-run or any
 * RoCE device), connect over TCP on 127.0.0.1 (or HOST) like ibv_rc_pingpong. The client
 * drives every round; the server answers only through its NIC and checks at the end:
 *
 *   WRITE   the client writes a round's pattern into the server's slot (round % SLOTS)
 *   READ    the client reads that slot back: every byte must be the pattern just written
 *   SEND    the client sends a round's pattern; the server checks every byte it received
 *   FAA     fetch-and-add round+1 on the server's counter: the old value must be the sum so far
 *   CAS     compare-and-swap on a second word: old value expected, replaced by a round value
 *
 * At the end the server checks every slot (the last pattern written into it) and both atomic
 * words. Sizes vary by round (seeded), so migrations land in the middle of different ops.
 * Output: PASS / FAIL lines; exit 0 only when everything matched.
 *
 *   mig_verbs [-p PORT] [-n ROUNDS] [-s SEED] [-t TIMEOUT_EXP] [-d DEV] [HOST]
 *
 * -t is the QP's local ACK timeout exponent (default 14, what rdma-core's programs use). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { SLOTS = 8, SLOT = 16384, MAXMSG = 4096, RECVS = 16, CQ_DEPTH = 64 };
enum { OFF_SLOTS = 0, OFF_ATOM = SLOTS * SLOT, OFF_RECV = OFF_ATOM + 4096, OFF_LOCAL = OFF_RECV + RECVS * MAXMSG };
#define MR_BYTES (OFF_LOCAL + SLOT + 4096)

typedef struct {
    uint32_t qpn, psn, rkey;
    uint64_t addr;
    union ibv_gid gid;
} peer_t;

static int failures;
static void fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL mig_verbs/%s: ", what);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* the byte at i of round r's pattern: both sides compute it */
static uint8_t pat(uint64_t seed, unsigned r, unsigned kind, size_t i) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + (uint64_t)r * 0x100000001b3ull + kind * 0x51ed27ull + i / 8;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (uint8_t)(x >> (8 * (i % 8)));
}
static void fill(uint8_t *p, size_t n, uint64_t seed, unsigned r, unsigned kind) {
    for (size_t i = 0; i < n; i++) p[i] = pat(seed, r, kind, i);
}
static long first_bad(const uint8_t *p, size_t n, uint64_t seed, unsigned r, unsigned kind) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(seed, r, kind, i)) return (long)i;
    return -1;
}
/* this round's sizes (1..SLOT for WRITE/READ, 1..MAXMSG for SEND) */
static size_t wsize(uint64_t seed, unsigned r) { return 1 + (pat(seed, r, 9, 0) | pat(seed, r, 9, 1) << 8) % SLOT; }
static size_t ssize(uint64_t seed, unsigned r) { return 1 + (pat(seed, r, 10, 0) | pat(seed, r, 10, 1) << 8) % MAXMSG; }
static uint64_t cas_val(uint64_t seed, unsigned r) { return r == 0 ? 0 : 0xc0de000000000000ull ^ (seed << 20) ^ r; }

typedef struct {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    uint8_t *buf;
} res_t;

static int tcp_exchange(const char *host, int port, const peer_t *mine, peer_t *theirs) {
    int fd = -1;
    if (host) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        inet_pton(AF_INET, host, &a.sin_addr);
        for (int i = 0; i < 100; i++) { /* the server may start later: 10 s */
            fd = socket(AF_INET, SOCK_STREAM, 0);
            if (!connect(fd, (struct sockaddr *)&a, sizeof a)) break;
            close(fd);
            fd = -1;
            usleep(100000);
        }
    } else {
        int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1)) {
            perror("mig_verbs: bind/listen");
            return -1;
        }
        fd = accept(l, NULL, NULL);
        close(l);
    }
    if (fd < 0) return -1;
    if (write(fd, mine, sizeof *mine) != sizeof *mine || recv(fd, theirs, sizeof *theirs, MSG_WAITALL) != sizeof *theirs) {
        close(fd);
        return -1;
    }
    return fd;
}

static int connect_qp(res_t *r, const peer_t *me, const peer_t *p, int timeout) {
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC};
    if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = p->qpn;
    a.rq_psn = p->psn;
    a.max_dest_rd_atomic = 4;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = p->gid;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = 1;
    if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) return -1;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = (uint8_t)timeout;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = me->psn;
    a.max_rd_atomic = 4;
    return ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                        IBV_QP_MAX_QP_RD_ATOMIC);
}

/* one completion, bounded by 30 minutes of wall time (a migration's lost frame costs the peer
 * one ACK timeout) */
static bool wait_wc(res_t *r, uint64_t wr_id, const char *what, struct ibv_wc *out) {
    time_t t0 = time(NULL);
    struct ibv_wc wc;
    for (;;) {
        int n = ibv_poll_cq(r->cq, 1, &wc);
        if (n < 0) {
            fail(what, "ibv_poll_cq failed");
            return false;
        }
        if (n == 0) {
            if (time(NULL) - t0 > 1800) {
                fail(what, "no completion in 30 minutes");
                return false;
            }
            continue;
        }
        if (wc.status != IBV_WC_SUCCESS) {
            fail(what, "completion status %s (wr_id %" PRIu64 ")", ibv_wc_status_str(wc.status), wc.wr_id);
            return false;
        }
        if (wc.wr_id != wr_id) {
            fail(what, "completion for wr_id %" PRIu64 ", expected %" PRIu64, wc.wr_id, wr_id);
            return false;
        }
        if (out) *out = wc;
        return true;
    }
}

static int post_recv(res_t *r, unsigned i) {
    struct ibv_sge s = {.addr = (uintptr_t)r->buf + OFF_RECV + (i % RECVS) * MAXMSG, .length = MAXMSG, .lkey = r->mr->lkey};
    struct ibv_recv_wr w = {.wr_id = 1000000 + i, .sg_list = &s, .num_sge = 1}, *bad;
    return ibv_post_recv(r->qp, &w, &bad);
}

static bool op(res_t *r, enum ibv_wr_opcode opc, uint64_t id, size_t off, size_t len, uint64_t raddr, uint32_t rkey,
               uint64_t add_or_cmp, uint64_t swap, const char *what) {
    struct ibv_sge s = {.addr = (uintptr_t)r->buf + off, .length = (uint32_t)len, .lkey = r->mr->lkey};
    struct ibv_send_wr w = {.wr_id = id, .sg_list = &s, .num_sge = 1, .opcode = opc, .send_flags = IBV_SEND_SIGNALED}, *bad;
    if (opc == IBV_WR_ATOMIC_FETCH_AND_ADD || opc == IBV_WR_ATOMIC_CMP_AND_SWP) {
        w.wr.atomic.remote_addr = raddr;
        w.wr.atomic.rkey = rkey;
        w.wr.atomic.compare_add = add_or_cmp;
        w.wr.atomic.swap = swap;
    } else if (opc != IBV_WR_SEND) {
        w.wr.rdma.remote_addr = raddr;
        w.wr.rdma.rkey = rkey;
    }
    if (ibv_post_send(r->qp, &w, &bad)) {
        fail(what, "ibv_post_send: %s", strerror(errno));
        return false;
    }
    return wait_wc(r, id, what, NULL);
}

static void client(res_t *r, const peer_t *p, uint64_t seed, unsigned rounds) {
    uint64_t sum = 0;
    uint8_t *loc = r->buf + OFF_LOCAL;
    for (unsigned k = 0; k < rounds && !failures; k++) {
        char w[64];
        size_t n = wsize(seed, k), sl = k % SLOTS, m = ssize(seed, k);
        uint64_t slot = p->addr + OFF_SLOTS + sl * SLOT;
        fill(loc, n, seed, k, 1);
        snprintf(w, sizeof w, "round %u WRITE %zu", k, n);
        if (!op(r, IBV_WR_RDMA_WRITE, 10 * k + 1, OFF_LOCAL, n, slot, p->rkey, 0, 0, w)) break;
        memset(loc, 0, n);
        snprintf(w, sizeof w, "round %u READ %zu", k, n);
        if (!op(r, IBV_WR_RDMA_READ, 10 * k + 2, OFF_LOCAL, n, slot, p->rkey, 0, 0, w)) break;
        long b = first_bad(loc, n, seed, k, 1);
        if (b >= 0) fail(w, "byte %ld of %zu read back differs from what was written", b, n);
        fill(loc, m, seed, k, 2);
        snprintf(w, sizeof w, "round %u SEND %zu", k, m);
        if (!op(r, IBV_WR_SEND, 10 * k + 3, OFF_LOCAL, m, 0, 0, 0, 0, w)) break;
        uint64_t *res = (uint64_t *)loc;
        *res = ~0ull;
        snprintf(w, sizeof w, "round %u FAA +%u", k, k + 1);
        if (!op(r, IBV_WR_ATOMIC_FETCH_AND_ADD, 10 * k + 4, OFF_LOCAL, 8, p->addr + OFF_ATOM, p->rkey, k + 1, 0, w)) break;
        if (*res != sum) fail(w, "fetched %" PRIu64 ", the sum so far is %" PRIu64, *res, sum);
        sum += k + 1;
        *res = ~0ull;
        snprintf(w, sizeof w, "round %u CAS", k);
        if (!op(r, IBV_WR_ATOMIC_CMP_AND_SWP, 10 * k + 5, OFF_LOCAL, 8, p->addr + OFF_ATOM + 8, p->rkey, cas_val(seed, k),
                cas_val(seed, k + 1), w))
            break;
        if (*res != cas_val(seed, k)) fail(w, "fetched 0x%" PRIx64 ", expected 0x%" PRIx64, *res, cas_val(seed, k));
    }
    if (!failures) printf("PASS mig_verbs/client: %u rounds of WRITE, READ, SEND, FAA, CAS, every byte and atomic result checked\n", rounds);
}

static void server_recv(res_t *r, uint64_t seed, unsigned rounds) {
    for (unsigned k = 0; k < rounds && !failures; k++) {
        char w[64];
        struct ibv_wc wc;
        snprintf(w, sizeof w, "server round %u receive", k);
        if (!wait_wc(r, 1000000 + k, w, &wc)) break;
        size_t m = ssize(seed, k);
        long b = first_bad(r->buf + OFF_RECV + (k % RECVS) * MAXMSG, m, seed, k, 2);
        if (wc.byte_len != m) fail(w, "%u bytes received, %zu sent", wc.byte_len, m);
        else if (b >= 0) fail(w, "byte %ld of %zu differs", b, m);
        if (k + RECVS < rounds && post_recv(r, k + RECVS)) fail(w, "ibv_post_recv failed");
    }
}

/* after the client finished: the final memory: each slot holds the last round that wrote it, the atomics their sums */
static void server_final(res_t *r, uint64_t seed, unsigned rounds) {
    if (failures) return;
    uint64_t sum = 0;
    for (unsigned k = 0; k < rounds; k++) sum += k + 1;
    for (unsigned sl = 0; sl < SLOTS && sl < rounds; sl++) {
        unsigned last = sl + (rounds - 1 - sl) / SLOTS * SLOTS;
        long b = first_bad(r->buf + OFF_SLOTS + sl * SLOT, wsize(seed, last), seed, last, 1);
        if (b >= 0) fail("server final slots", "slot %u (round %u): byte %ld differs", sl, last, b);
    }
    uint64_t *atom = (uint64_t *)(r->buf + OFF_ATOM);
    if (atom[0] != sum) fail("server final FAA word", "%" PRIu64 ", expected %" PRIu64, atom[0], sum);
    if (atom[1] != cas_val(seed, rounds)) fail("server final CAS word", "0x%" PRIx64 ", expected 0x%" PRIx64, atom[1], cas_val(seed, rounds));
    if (!failures) printf("PASS mig_verbs/server: %u SENDs, %u slots and both atomic words checked byte for byte\n", rounds, SLOTS);
}

int main(int argc, char **argv) {
    int port = 18600, timeout = 14, opt;
    unsigned rounds = 20;
    uint64_t seed = 1;
    const char *devname = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while ((opt = getopt(argc, argv, "p:n:s:t:d:")) != -1) {
        switch (opt) {
        case 'p': port = atoi(optarg); break;
        case 'n': rounds = (unsigned)strtoul(optarg, NULL, 0); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 't': timeout = atoi(optarg); break;
        case 'd': devname = optarg; break;
        default:
            fprintf(stderr, "usage: mig_verbs [-p PORT] [-n ROUNDS] [-s SEED] [-t TIMEOUT_EXP] [-d DEV] [HOST]\n");
            return 2;
        }
    }
    const char *host = optind < argc ? argv[optind] : NULL;
    if (rounds == 0 || timeout < 1 || timeout > 31) {
        fprintf(stderr, "mig_verbs: -n must be > 0 and -t 1..31\n");
        return 2;
    }
    struct ibv_device **list = ibv_get_device_list(NULL);
    struct ibv_device *dev = NULL;
    for (int i = 0; list && list[i]; i++)
        if (!devname || !strcmp(ibv_get_device_name(list[i]), devname)) dev = list[i];
    res_t r = {0};
    if (!dev || !(r.ctx = ibv_open_device(dev))) {
        fail("setup", "no RDMA device%s%s", devname ? " named " : "", devname ? devname : "");
        return 1;
    }
    r.buf = aligned_alloc(4096, MR_BYTES);
    memset(r.buf, 0, MR_BYTES);
    r.pd = ibv_alloc_pd(r.ctx);
    r.mr = r.pd ? ibv_reg_mr(r.pd, r.buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                                        IBV_ACCESS_REMOTE_ATOMIC) : NULL;
    r.cq = ibv_create_cq(r.ctx, CQ_DEPTH, NULL, NULL, 0);
    struct ibv_qp_init_attr qa = {.send_cq = r.cq, .recv_cq = r.cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 16, .max_recv_wr = RECVS, .max_send_sge = 1, .max_recv_sge = 1}};
    r.qp = r.mr && r.cq ? ibv_create_qp(r.pd, &qa) : NULL;
    peer_t me = {0}, p;
    if (!r.qp || ibv_query_gid(r.ctx, 1, 0, &me.gid)) {
        fail("setup", "PD/MR/CQ/QP or GID: %s", strerror(errno));
        return 1;
    }
    srand48((long)seed ^ getpid());
    me.qpn = r.qp->qp_num;
    me.psn = (uint32_t)lrand48() & 0xffffff;
    me.rkey = r.mr->rkey;
    me.addr = (uintptr_t)r.buf;
    if (!host) ((uint64_t *)(r.buf + OFF_ATOM))[1] = cas_val(seed, 0);
    int fd = tcp_exchange(host, port, &me, &p);
    if (fd < 0 || connect_qp(&r, &me, &p, timeout)) {
        fail("setup", "exchange or QP connection failed (%s)", strerror(errno));
        return 1;
    }
    /* the receives are posted before the sync below lets the client send */
    for (unsigned i = 0; !host && i < RECVS && i < rounds; i++)
        if (post_recv(&r, i)) fail("setup", "ibv_post_recv: %s", strerror(errno));
    char go = 'g';
    if (write(fd, &go, 1) != 1 || read(fd, &go, 1) != 1) fail("setup", "sync");
    if (host) client(&r, &p, seed, rounds);
    else server_recv(&r, seed, rounds);
    /* both sides are done before either checks the end state or tears down */
    char done = failures ? 'f' : 'd';
    if (write(fd, &done, 1) != 1 || read(fd, &done, 1) != 1) fail("teardown", "the peer went away");
    if (!host) server_final(&r, seed, rounds);
    close(fd);
    ibv_destroy_qp(r.qp);
    ibv_destroy_cq(r.cq);
    ibv_dereg_mr(r.mr);
    ibv_dealloc_pd(r.pd);
    ibv_close_device(r.ctx);
    ibv_free_device_list(list);
    free(r.buf);
    return failures ? 1 : 0;
}
