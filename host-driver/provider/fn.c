/* fn.c — the process's device and PCIe function (hlsnic.h): what a kernel driver's PCI probe,
 * command interface and interrupt handler do. One hlsnic_dev per process, opened by the
 * first context and closed with the last (docs/host-driver.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hlsnic.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static hlsnic_fn_t *g_fn;

_Static_assert(sizeof(nic_cmd_t) <= NIC_BAR_CMD_MAX, "nic_cmd_t must fit the mailbox");
_Static_assert(sizeof(nic_cmd_resp_t) <= NIC_BAR_RESP_MAX, "nic_cmd_resp_t must fit the mailbox");

void hlsnic_log(hlsnic_fn_t *f, const char *fmt, ...) {
    (void)f;
    va_list ap;
    va_start(ap, fmt);
    fputs("hlsnic: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static const char *cmd_name(unsigned op) {
    static const char *n[] = {"NOP", "SET_FN", "CREATE_CQ", "DESTROY_CQ", "CREATE_QP", "MODIFY_QP",
                              "QUERY_QP", "DESTROY_QP", "REG_MR", "DEREG_MR", "QUIESCE_QP"};
    return op < sizeof n / sizeof n[0] ? n[op] : "?";
}

uint64_t hlsnic_bar_read(hlsnic_fn_t *f, uint32_t off) {
    hyp_gate_enter(&f->gate);
    uint64_t v = hlsnic_mmio_read64(f->dev, f->fn, off);
    hyp_gate_exit(&f->gate);
    return v;
}

void hlsnic_bar_write(hlsnic_fn_t *f, uint32_t off, uint64_t v) {
    hyp_gate_enter(&f->gate);
    hlsnic_mmio_write64(f->dev, f->fn, off, v);
    hyp_gate_exit(&f->gate);
}

/* A whole command is inside the gate: a migration never moves the function between GO and
 * the answer (the destination would not know the command). */
static int cmd_gated(hlsnic_fn_t *f, nic_cmd_t *c, nic_cmd_resp_t *resp, const char *what);
int hlsnic_cmd(hlsnic_fn_t *f, nic_cmd_t *c, nic_cmd_resp_t *resp, const char *what) {
    hyp_gate_enter(&f->gate);
    int e = cmd_gated(f, c, resp, what);
    hyp_gate_exit(&f->gate);
    return e;
}

static int cmd_gated(hlsnic_fn_t *f, nic_cmd_t *c, nic_cmd_resp_t *resp, const char *what) {
    nic_cmd_resp_t r;
    memset(&r, 0, sizeof r);
    c->fn = (nic_fn_t)f->fn;
    pthread_mutex_lock(&f->cmd_lock);
    hlsnic_mmio_write_burst(f->dev, f->fn, NIC_BAR_CMD, c, sizeof *c);
    hlsnic_mmio_write64(f->dev, f->fn, NIC_BAR_CMD_GO, 1);
    /* A command takes a few device cycles; the clock thread runs it. Spin briefly, then
     * yield, then sleep: bounded by 10 s of wall clock (a dead device is an error, EIO). */
    double t0 = 0;
    uint64_t st = 0;
    for (unsigned i = 0;; i++) {
        st = hlsnic_mmio_read64(f->dev, f->fn, NIC_BAR_CMD_STATUS);
        if ((st & NIC_CMD_STATUS_DONE) && !(st & NIC_CMD_STATUS_BUSY)) break;
        if (i < 64) continue;
        if (i < 1024) { sched_yield(); continue; }
        if (t0 == 0) t0 = now_s();
        if (now_s() - t0 > 10.0) {
            pthread_mutex_unlock(&f->cmd_lock);
            hlsnic_log(f, "%s: device command %s not answered in 10 s (status 0x%llx): device dead?",
                       what, cmd_name(c->op), (unsigned long long)st);
            return EIO;
        }
        usleep(50);
    }
    hlsnic_mmio_read_burst(f->dev, f->fn, NIC_BAR_RESP, &r, sizeof r);
    pthread_mutex_unlock(&f->cmd_lock);
    if (resp) *resp = r;
    int e = hlsnic_cmd_errno(r.status);
    if (f->debug)
        hlsnic_log(f, "%s: %s num 0x%x mask 0x%x -> status %u bad_field %u", what, cmd_name(c->op),
                   c->num, c->mask, r.status, r.bad_field);
    return e;
}

int hlsnic_resolve_mac(void *arg, uint32_t ip, uint64_t *mac) {
    hlsnic_fn_t *f = arg;
    const char *why = NULL;
    int e = hlsnic_neigh_lookup(f->neigh, ip, mac, &why);
    if (e == 0) return 0;
    if (e == EINVAL) {
        hlsnic_log(f, "%s", why);
        return e;
    }
    *mac = hlsnic_mac_of_ip(ip); /* the default rule (docs/host-driver.md) */
    return 0;
}

void *hlsnic_dma_alloc(hlsnic_fn_t *f, size_t bytes, enum hyp_ram_kind kind) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (hyp_ram_map(&f->ram, &f->dev, p, bytes, kind)) {
        int e = errno;
        munmap(p, bytes);
        errno = e;
        return NULL;
    }
    return p;
}

void hlsnic_dma_free(hlsnic_fn_t *f, void *p, size_t bytes) {
    if (!p) return;
    if (hyp_ram_unmap(&f->ram, &f->dev, p, bytes))
        hlsnic_log(f, "dma_unmap %p+%zu failed: %s", p, bytes, strerror(errno));
    munmap(p, bytes);
}

int hlsnic_mr_slot_alloc(hlsnic_fn_t *f, unsigned *slot, uint32_t *key) {
    pthread_mutex_lock(&f->tab_lock);
    for (unsigned s = 0; s < NIC_MR_PER_FN; s++) {
        if (f->mr_used[s]) continue;
        f->mr_used[s] = 1;
        /* key = (index << 8) | tag, index % 64 = slot (nic_if.h); the generation in the upper
         * index bits and the tag make a stale key of a reused slot miss. */
        uint32_t gen = ++f->mr_gen[s] & 0x3ffff;
        if (gen == 0) gen = f->mr_gen[s] = 1;
        uint32_t index = gen << NIC_MR_SLOT_BITS | s;
        *key = index << 8 | (uint8_t)(0x5a ^ gen);
        *slot = s;
        pthread_mutex_unlock(&f->tab_lock);
        return 0;
    }
    pthread_mutex_unlock(&f->tab_lock);
    return ENOMEM;
}

void hlsnic_mr_slot_free(hlsnic_fn_t *f, unsigned slot) {
    pthread_mutex_lock(&f->tab_lock);
    f->mr_used[slot] = 0;
    pthread_mutex_unlock(&f->tab_lock);
}

/* ---- the event thread: the interrupt handler ---- */

/* Events go to the program on SOCK_SEQPACKET sockets (the async fd, completion channels): one
 * message per event, sent under the context's chan_lock without blocking (a full socket drops
 * the event, never blocks the interrupt handler). An event counts as delivered when the program
 * reads it (hlsnic_async_event, hlsnic_cq_event), as in the kernel. */
void hlsnic_event_send(struct hlsnic_context *ctx, int wfd, const void *ev, size_t len) {
    pthread_mutex_lock(&ctx->chan_lock);
    ssize_t w = send(wfd, ev, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)w;
    pthread_mutex_unlock(&ctx->chan_lock);
}

/* At destroy: take the object's unread events off an event socket, keep the others in their
 * order (the kernel's uverbs release does the same). Every event record starts with the
 * object's handle (ib_uverbs_comp_event_desc.cq_handle, ib_uverbs_async_event_desc.element).
 * The object is out of the tables already, so the event thread sends nothing more for it. */
enum { EVENTS_DRAIN_MAX = 1 << 16, EVENT_MAX_BYTES = 16 }; /* more than a socket's buffer holds */
void hlsnic_events_discard(struct hlsnic_context *ctx, int rfd, int wfd, size_t len, uint64_t handle) {
    uint8_t (*keep)[EVENT_MAX_BYTES] = NULL, ev[EVENT_MAX_BYTES];
    size_t nkeep = 0, cap = 0;
    if (len > EVENT_MAX_BYTES || rfd < 0) return;
    pthread_mutex_lock(&ctx->chan_lock);
    for (unsigned n = 0; n < EVENTS_DRAIN_MAX; n++) {
        if (recv(rfd, ev, len, MSG_DONTWAIT) != (ssize_t)len) break;
        uint64_t h;
        memcpy(&h, ev, sizeof h);
        if (h == handle) continue;
        if (nkeep == cap) {
            size_t c = cap ? 2 * cap : 16;
            uint8_t (*k)[EVENT_MAX_BYTES] = realloc(keep, c * sizeof *k);
            if (!k) continue; /* out of memory: that event is lost, the program's objects stay usable */
            keep = k;
            cap = c;
        }
        memcpy(keep[nkeep++], ev, len);
    }
    for (size_t i = 0; i < nkeep; i++) {
        ssize_t w = send(wfd, keep[i], len, MSG_DONTWAIT | MSG_NOSIGNAL);
        (void)w;
    }
    pthread_mutex_unlock(&ctx->chan_lock);
    free(keep);
}

/* ibv_get_async_event read one: now it is delivered, and destroy waits for its ack. */
void hlsnic_async_event(struct ibv_context *c, struct ibv_async_event *ev) {
    (void)c;
    switch (ev->event_type) {
    case IBV_EVENT_CQ_ERR: {
        struct ibv_cq *cq = ev->element.cq;
        pthread_mutex_lock(&cq->mutex);
        to_cq(cq)->async_reported++;
        pthread_mutex_unlock(&cq->mutex);
        break;
    }
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_SQ_DRAINED: {
        struct ibv_qp *qp = ev->element.qp;
        pthread_mutex_lock(&qp->mutex);
        to_qp(qp)->async_reported++;
        pthread_mutex_unlock(&qp->mutex);
        break;
    }
    default: break; /* the provider sends no other kind */
    }
}

static void qp_async(struct hlsnic_qp *qp, enum ibv_event_type type) {
    struct ib_uverbs_async_event_desc d = {.element = (uintptr_t)&qp->vqp.qp, .event_type = type};
    hlsnic_event_send(qp->ctx, qp->ctx->async_wfd, &d, sizeof d);
}

static void dispatch(hlsnic_fn_t *f, uint64_t ev) {
    unsigned kind = ev & 0xff, qrow = (ev >> 8) & 0xff, crow = (ev >> 16) & 0xff, detail = (ev >> 24) & 0xff;
    bool in_cqe = (ev >> 32) & 1;
    struct hlsnic_qp *qp = (qrow / NIC_QP_PER_FN == f->fn) ? f->qp[qrow % NIC_QP_PER_FN] : NULL;
    struct hlsnic_cq *cq = (crow / NIC_CQ_PER_FN == f->fn) ? f->cq[crow % NIC_CQ_PER_FN] : NULL;
    if (f->debug) hlsnic_log(f, "event kind %u qp row %u cq row %u detail %u", kind, qrow, crow, detail);
    switch (kind) {
    case NIC_EV_QP_ERR:
        if (!qp) return;
        qp->sh.state = NIC_QPS_ERR;
        /* IB vol. 1 11.6.3: an error a completion reports (retry exceeded, a NAK, a local
         * protection error) raises no affiliated event, as on mlx5 and rxe; a program that
         * never reads async events must not block in ibv_destroy_qp for one. Of the rest,
         * responder-detected access violations and invalid requests have their own events;
         * everything else is a catastrophic work queue error. */
        if (in_cqe) break;
        qp_async(qp, detail == NIC_WC_REM_INV_REQ_ERR ? IBV_EVENT_QP_REQ_ERR
                     : (detail == NIC_WC_REM_ACCESS_ERR || detail == NIC_WC_LOC_PROT_ERR) ? IBV_EVENT_QP_ACCESS_ERR
                                                                                           : IBV_EVENT_QP_FATAL);
        break;
    case NIC_EV_SQ_ERR:
        /* The CQE carries the error (IB: SQ Error state has no affiliated event). */
        if (qp) qp->sh.state = NIC_QPS_SQE;
        break;
    case NIC_EV_SQ_DRAINED:
        if (qp && qp->sh.en_sqd_async_notify) qp_async(qp, IBV_EVENT_SQ_DRAINED);
        break;
    case NIC_EV_CQ_ERR:
        if (cq) {
            struct ib_uverbs_async_event_desc d = {.element = (uintptr_t)&cq->vcq.cq, .event_type = IBV_EVENT_CQ_ERR};
            hlsnic_event_send(cq->ctx, cq->ctx->async_wfd, &d, sizeof d);
        }
        break;
    case NIC_EV_CQ_COMP:
        /* delivered (and counted) only when the program reads it: hlsnic_cq_event */
        if (cq && cq->chan_wfd >= 0) {
            struct ib_uverbs_comp_event_desc d = {.cq_handle = (uintptr_t)&cq->vcq.cq};
            hlsnic_event_send(cq->ctx, cq->chan_wfd, &d, sizeof d);
        }
        break;
    default:
        hlsnic_log(f, "unknown device event kind %u (raw 0x%llx) ignored", kind, (unsigned long long)ev);
    }
}

void hlsnic_event_dispatch(hlsnic_fn_t *f, uint64_t ev) {
    pthread_mutex_lock(&f->tab_lock);
    dispatch(f, ev);
    pthread_mutex_unlock(&f->tab_lock);
}

static void *event_thread(void *arg) {
    hlsnic_fn_t *f = arg;
    struct pollfd p[2] = {{.fd = f->irq_fd, .events = POLLIN}, {.fd = f->ev_stop_fd, .events = POLLIN}};
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            hlsnic_log(f, "event thread: poll: %s", strerror(errno));
            return NULL;
        }
        if (p[1].revents) return NULL;
        if (!(p[0].revents & POLLIN)) continue;
        uint64_t cnt;
        if (read(f->irq_fd, &cnt, sizeof cnt) < 0 && errno != EAGAIN) {
            hlsnic_log(f, "event thread: read irq eventfd: %s", strerror(errno));
            return NULL;
        }
        /* Pop until empty; bounded by the queue depth (new events raise the irq again). */
        for (unsigned i = 0; i <= NIC_BAR_EVENT_DEPTH; i++) {
            uint64_t ev = hlsnic_bar_read(f, NIC_BAR_EVENT);
            if (!(ev >> 63)) break;
            hlsnic_event_dispatch(f, ev);
        }
        uint64_t lost = hlsnic_bar_read(f, NIC_BAR_EVENT_LOST);
        if (lost != f->ev_lost_seen) {
            hlsnic_log(f, "device event queue overflowed: %llu events lost", (unsigned long long)(lost - f->ev_lost_seen));
            f->ev_lost_seen = lost;
        }
    }
}

int hlsnic_events_start(hlsnic_fn_t *f) {
    return pthread_create(&f->ev_thread, NULL, event_thread, f);
}

/* The thread has ended when this returns; the stop request is consumed so that a restart
 * runs. */
void hlsnic_events_stop(hlsnic_fn_t *f) {
    uint64_t v = 1;
    if (write(f->ev_stop_fd, &v, sizeof v) != sizeof v) hlsnic_log(f, "cannot stop the event thread");
    pthread_join(f->ev_thread, NULL);
    if (read(f->ev_stop_fd, &v, sizeof v) != sizeof v) hlsnic_log(f, "event thread stop request lost");
}

/* ---- open / close ---- */

static unsigned mtu_enum(unsigned bytes) {
    switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 1024: return IBV_MTU_1024;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return 0;
    }
}

static hlsnic_fn_t *fn_open(struct verbs_sysfs_dev *sysfs, int *err) {
    hlsnic_fn_t *f = calloc(1, sizeof *f);
    if (!f) { *err = ENOMEM; return NULL; }
    pthread_mutex_init(&f->cmd_lock, NULL);
    pthread_mutex_init(&f->tab_lock, NULL);
    hyp_gate_init(&f->gate);
    hyp_ram_init(&f->ram);
    f->ev_stop_fd = f->irq_fd = -1;
    f->debug = getenv("HLSNIC_DEBUG") && strcmp(getenv("HLSNIC_DEBUG"), "0") != 0;
    f->neigh = getenv("HLSNIC_NEIGH");
    *err = EINVAL;

    /* This function's IPv4 address: GID 0 of port 1, as libibverbs reports it. */
    char gid[64];
    int n = ibv_read_ibdev_sysfs_file(gid, sizeof gid, sysfs, "ports/1/gids/0");
    if (n <= 0) {
        hlsnic_log(f, "cannot read ports/1/gids/0 of the device's sysfs entry (the launcher writes it)");
        goto fail;
    }
    if (hlsnic_gid_text_ipv4(gid, &f->ip) || f->ip == 0) {
        hlsnic_log(f, "ports/1/gids/0 is '%s': not an IPv4-mapped GID (::ffff:a.b.c.d)", gid);
        goto fail;
    }
    const char *s = getenv("HLSNIC_MAC");
    if (s) {
        if (hlsnic_parse_mac(s, &f->mac)) {
            hlsnic_log(f, "HLSNIC_MAC='%s': not a unicast aa:bb:cc:dd:ee:ff address", s);
            goto fail;
        }
    } else {
        f->mac = hlsnic_mac_of_ip(f->ip);
    }
    if (f->neigh) { /* validate the whole list now: a typo should fail the open, not a modify */
        uint64_t m;
        const char *why = NULL;
        if (hlsnic_neigh_lookup(f->neigh, 0xffffffffu, &m, &why) == EINVAL) {
            hlsnic_log(f, "%s (HLSNIC_NEIGH='%s')", why, f->neigh);
            goto fail;
        }
    }
    s = getenv("HLSNIC_FN");
    if (s) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (!*s || *end || v >= NIC_FNS) {
            hlsnic_log(f, "HLSNIC_FN='%s': not a function number 0..%d", s, NIC_FNS - 1);
            goto fail;
        }
        f->fn = (unsigned)v;
    }
    unsigned mtu_bytes = 1024; /* a standard 1500-byte Ethernet link, as rxe */
    s = getenv("HLSNIC_MTU");
    if (s) {
        mtu_bytes = (unsigned)strtoul(s, NULL, 10);
        if (!mtu_enum(mtu_bytes)) {
            hlsnic_log(f, "HLSNIC_MTU='%s': not 256, 512, 1024, 2048 or 4096", s);
            goto fail;
        }
    }

    f->cfg_model = getenv("HLSNIC_MODEL");
    f->cfg_wire = getenv("HLSNIC_WIRE");
    f->cfg_pcap = getenv("HLSNIC_PCAP");
    f->cfg_wire_alt = getenv("HLSNIC_MIGRATE_WIRE");
    if (f->cfg_wire_alt && !*f->cfg_wire_alt) f->cfg_wire_alt = NULL;
    hlsnic_dev_config_t cfg = {.model = f->cfg_model, .wire = f->cfg_wire, .pcap = f->cfg_pcap};
    char why[256] = "";
    f->dev = hlsnic_dev_open(&cfg, why, sizeof why);
    if (!f->dev) {
        hlsnic_log(f, "cannot open the device: %s", why[0] ? why : "unknown reason");
        *err = ENODEV;
        goto fail;
    }
    *err = ENODEV;
    uint64_t id = hlsnic_mmio_read64(f->dev, f->fn, NIC_BAR_ID);
    if ((uint32_t)id != NIC_BAR_MAGIC || (id >> 32) != NIC_BAR_VERSION) {
        hlsnic_log(f, "BAR0 ID is 0x%llx: not an hlsnic version %u device", (unsigned long long)id, NIC_BAR_VERSION);
        goto fail;
    }
    uint64_t caps = hlsnic_mmio_read64(f->dev, f->fn, NIC_BAR_CAPS);
    unsigned fns = caps & 0xff, qps = (caps >> 8) & 0xff, cqs = (caps >> 16) & 0xff, mrs = (caps >> 24) & 0xff;
    f->max_ring_log = (caps >> 40) & 0xff;
    f->max_mtu = (caps >> 48) & 0xff;
    if (f->fn >= fns || qps != NIC_QP_PER_FN || cqs != NIC_CQ_PER_FN || mrs != NIC_MR_PER_FN ||
        f->max_ring_log == 0 || f->max_mtu < IBV_MTU_256 || f->max_mtu > IBV_MTU_4096) {
        hlsnic_log(f, "BAR0 CAPS 0x%llx does not match this driver (nic_if.h: %d QPs, %d CQs, %d MRs per function, function %u)",
                   (unsigned long long)caps, NIC_QP_PER_FN, NIC_CQ_PER_FN, NIC_MR_PER_FN, f->fn);
        goto fail;
    }
    if (f->max_ring_log > HLSNIC_MAX_RING_LOG) f->max_ring_log = HLSNIC_MAX_RING_LOG;
    f->active_mtu = mtu_enum(mtu_bytes);
    if (f->active_mtu > f->max_mtu) f->active_mtu = f->max_mtu;

    nic_cmd_t c = {.op = NIC_CMD_SET_FN, .mac = f->mac, .ip = f->ip};
    *err = hlsnic_cmd(f, &c, NULL, "open");
    if (*err) {
        hlsnic_log(f, "SET_FN (MAC %012llx, IP 0x%08x) refused: %s", (unsigned long long)f->mac, f->ip, strerror(*err));
        goto fail;
    }
    f->irq_fd = hlsnic_dev_irq_fd(f->dev, f->fn);
    f->ev_stop_fd = eventfd(0, EFD_CLOEXEC);
    if (f->irq_fd < 0 || f->ev_stop_fd < 0) {
        hlsnic_log(f, "interrupt eventfd unavailable");
        *err = EIO;
        goto fail;
    }
    /* Unmask the function's interrupt. */
    hlsnic_mmio_write64(f->dev, f->fn, NIC_BAR_IRQ_MASK, 0);
    f->ev_lost_seen = hlsnic_mmio_read64(f->dev, f->fn, NIC_BAR_EVENT_LOST);
    if ((*err = hlsnic_events_start(f))) goto fail;
    f->next_pd = 1;
    if ((*err = hyp_ctl_start(f))) {
        hlsnic_events_stop(f);
        goto fail;
    }
    *err = 0;
    return f;
fail:
    if (f->ev_stop_fd >= 0) close(f->ev_stop_fd);
    if (f->dev) hlsnic_dev_close(f->dev);
    free(f);
    return NULL;
}

hlsnic_fn_t *hlsnic_fn_get(struct verbs_sysfs_dev *sysfs, int *err) {
    pthread_mutex_lock(&g_lock);
    if (!g_fn) g_fn = fn_open(sysfs, err);
    if (g_fn) g_fn->refs++;
    hlsnic_fn_t *f = g_fn;
    pthread_mutex_unlock(&g_lock);
    return f;
}

void hlsnic_fn_put(hlsnic_fn_t *f) {
    pthread_mutex_lock(&g_lock);
    if (--f->refs == 0) {
        hyp_ctl_stop(f); /* a migration in progress ends first */
        hlsnic_events_stop(f);
        close(f->ev_stop_fd);
        hlsnic_dev_close(f->dev); /* perhaps a migration's destination, not the device this thread opened */
        free(f);
        g_fn = NULL;
    }
    pthread_mutex_unlock(&g_lock);
}
