/* hlsnic_dev.c — the simulated NIC as an in-process PCIe device: open/close, the clock
 * thread, statistics (hlsnic_dev.h; docs/device.md).
 *
 * One device = one composed NIC in a whole-NIC harness of one (testbench/nic/nic_tb) whose
 * host memory is this process's memory (dev_dma.c as hostmem's backend) and whose wire is
 * drained into a datagram socket (dev_port.c). The clock thread runs the model in batches of
 * `batch` cycles holding d->mu; MMIO calls take d->mu between batches. */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_CYCLE 4u /* 250 MHz: pcap timestamps */

void dev_lock(hlsnic_dev_t *d) {
    atomic_fetch_add(&d->waiters, 1);
    pthread_mutex_lock(&d->mu);
    atomic_fetch_sub(&d->waiters, 1);
}

/* ---- the Ethernet port, from the clock thread (d->mu held) ---- */
static void frames_in(hlsnic_dev_t *d) {
    for (unsigned n = 0; n < 1024; n++) { /* bounded: the rest waits for the next batch */
        /* The NIC's receive queue is full: leave the frames in the socket's buffer (4 MiB),
         * which stands for the wire in flight while the model runs slower than real time;
         * the kernel drops (and counts) only when that overflows. */
        if (nic_tb_rx_full(d->tb, 0)) return;
        long len = dev_port_recv(&d->port, d->frame, DEV_FRAME_MAX);
        if (len < 0) return;
        if (len == 0 || len > (long)DEV_FRAME_MAX || dev_port_drop_next(&d->port)) {
            d->st.rx_dropped++; /* empty, cut, or lost on purpose (the test hook) */
            continue;
        }
        if (d->pcap) pcap_write(d->pcap, d->frame, (size_t)len, nic_tb_now(d->tb) * NS_PER_CYCLE);
        nic_tb_inject(d->tb, 0, d->frame, (size_t)len);
        d->st.rx_frames++;
    }
}

/* The NIC's frames come out of port 1 of the harness's zero-delay wire. */
static void frames_out(hlsnic_dev_t *d) {
    size_t len;
    while (wire_recv(nic_tb_wire(d->tb), 1, d->frame, DEV_FRAME_MAX, &len, nic_tb_now(d->tb)) == 1) {
        d->st.tx_frames++;
        if (d->pcap) pcap_write(d->pcap, d->frame, len, nic_tb_now(d->tb) * NS_PER_CYCLE);
        if (!dev_port_send(&d->port, d->frame, len)) d->tx_dropped++;
    }
}

void dev_service(hlsnic_dev_t *d) {
    frames_in(d);
    frames_out(d);
    dev_collect(d);
}

bool dev_settle_commands(hlsnic_dev_t *d, unsigned max) {
    for (unsigned i = 0; i < max && d->cmd_n; i++) {
        nic_tb_step(d->tb);
        frames_out(d);
        dev_collect(d);
    }
    return d->cmd_n == 0;
}

/* Sleep until MMIO wakes us, a frame arrives on port_fd (the port's socket as it was under the
 * lock: hlsnic_dev_wire_move may hand it away, and then wakes us), or `us` pass. */
static void doze(hlsnic_dev_t *d, int port_fd, unsigned us) {
    struct pollfd p[2] = {{.fd = d->wake_fd, .events = POLLIN}, {.fd = port_fd, .events = POLLIN}};
    struct timespec t = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
    if (ppoll(p, port_fd >= 0 ? 2 : 1, &t, NULL) > 0 && (p[0].revents & POLLIN)) {
        uint64_t v;
        ssize_t r = read(d->wake_fd, &v, sizeof v);
        (void)r;
    }
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

/* While the NIC is idle the thread runs IDLE_CYCLES per batch and sleeps between batches at
 * least idle_us and at least IDLE_DUTY times as long as the batch took, so an idle device
 * costs at most about 1/(1+IDLE_DUTY) of a core whatever the model's speed (the composed C
 * model runs some 10^4..3*10^5 cycles per second). Time inside the NIC (ACK and RNR timers) keeps
 * running, only slower: an RNR wait while both sides are idle still ends. */
#define IDLE_CYCLES 16u
#define YIELD_CYCLES 16u
#define IDLE_DUTY 4u

/* ---- the idle jump (testbench/nic/clock_jump.h; docs/device.md) ----
 * A frame from the peer is an external event the device cannot foresee: the peer runs its own
 * clock in another process, at its own speed. So the device jumps only after the wire has been
 * silent for a while of wall time, at least grace_us and at least as long as this device
 * needs to run JUMP_GRACE_CYCLES (a peer as fast as we are answers within that), and only
 * right after the socket was found empty. What stays exact: this device's cycles given the
 * cycle each input frame was delivered at. A peer slower than that may, at worst, make the
 * device time out where ticking would not have (a resend RC absorbs), never skip a frame. */
#define JUMP_GRACE_CYCLES (1u << 18)

static double jump_grace_us(const hlsnic_dev_t *d) {
    double own = d->step_cycles ? JUMP_GRACE_CYCLES * d->step_us / (double)d->step_cycles : 0;
    return own > d->grace_us ? own : d->grace_us;
}

/* HLSNIC_JUMP_GRACE_MS, when set: the grace's wall-time floor for a peer much slower than
 * this device (an RTL peer of a C-model device: a migration's pause there lasts seconds). */
static int jump_grace_env(unsigned *grace_us, char *err, size_t errlen) {
    const char *v = getenv("HLSNIC_JUMP_GRACE_MS");
    if (!v) return 0;
    char *end;
    errno = 0;
    unsigned long ms = strtoul(v, &end, 10);
    if (!*v || *end || errno || *v == '-' || ms == 0 || ms > 600000) {
        snprintf(err, errlen, "HLSNIC_JUMP_GRACE_MS '%s': want milliseconds 1..600000", v);
        return -1;
    }
    *grace_us = (unsigned)ms * 1000u;
    return 0;
}

/* clock_jump_try's tick: one cycle as a batch runs it; stop when an MMIO caller waits */
static bool jump_tick(void *arg) {
    hlsnic_dev_t *d = arg;
    if (atomic_load(&d->waiters)) return false;
    nic_tb_step(d->tb);
    frames_out(d);
    return true;
}

/* mu held, the NIC idle for grace: look at the wire once more, then jump if nothing came */
static void try_jump(hlsnic_dev_t *d) {
    frames_in(d);
    if (nic_tb_rx_queued(d->tb, 0) || dev_mmio_pending(d)) return;
    uint64_t s = clock_jump_try(d->jump, UINT64_MAX, jump_tick, d);
    if (s) {
        d->st.jumps++;
        d->st.cycles_jumped += s;
    }
    dev_collect(d);
}

static void *clock_main(void *arg) {
    hlsnic_dev_t *d = arg;
    bool idle = false;
    while (!atomic_load(&d->stop)) {
        double t_start = now_us();
        pthread_mutex_lock(&d->mu);
        uint64_t t0 = nic_tb_transfers(d->tb, 0);
        frames_in(d);
        unsigned n = idle && d->batch > IDLE_CYCLES ? IDLE_CYCLES : d->batch;
        /* No lock between devices: each NIC's C model has its own edge queue (hls.h) and each
         * verilated model its own VerilatedContext (rtl_glue.h), so the clock threads of
         * several devices in one process step side by side. */
        unsigned stepped = 0;
        for (unsigned i = 0; i < n; i++) {
            nic_tb_step(d->tb);
            stepped++;
            frames_out(d);
            /* an MMIO caller waits: end the batch early (after at least YIELD_CYCLES) so an
             * access waits tens of cycles of model time, not a whole batch */
            if (i % YIELD_CYCLES == YIELD_CYCLES - 1 && atomic_load(&d->waiters)) break;
        }
        dev_collect(d);
        /* Idle: nothing moved on any top-level stream for a whole batch and nothing waits to
         * move (no command, doorbell, frame or DMA). */
        idle = nic_tb_transfers(d->tb, 0) == t0 && !dev_mmio_pending(d) && !nic_tb_rx_queued(d->tb, 0) &&
               hostmem_idle(nic_tb_mem(d->tb, 0));
        double t_end = now_us();
        d->step_cycles += stepped;
        d->step_us += t_end - t_start;
        if (!idle) d->idle_since_us = 0;
        else if (!d->idle_since_us) d->idle_since_us = t_end;
        else if (d->jump && t_end - d->idle_since_us >= jump_grace_us(d)) try_jump(d);
        int port_fd = d->port.fd;
        pthread_mutex_unlock(&d->mu);
        if (idle) {
            double took = now_us() - t_start, us = took * IDLE_DUTY;
            doze(d, port_fd, us > d->idle_us ? (unsigned)(us < 1e6 ? us : 1e6) : d->idle_us);
        } else {
            /* let MMIO callers in before the next batch (mutexes are not fair) */
            for (unsigned k = 0; k < 64 && atomic_load(&d->waiters); k++) sched_yield();
        }
    }
    return NULL;
}

/* ---- open / close ---- */
static int find_in_leaf(const ifc_t *f, const char *name) {
    for (unsigned i = 0; i < f->n_in; i++)
        if (!strcmp(f->in[i].name, name)) return (int)i;
    return -1;
}

/* Where nic_db_t.arm sits in a cq_db item, if this model's cq_db has it: offsets of the
 * stream's data leaves relative to the lowest one (nic_tb's item layout). */
static void find_arm(hlsnic_dev_t *d) {
    d->cq_db_arm_off = -1;
    unsigned base = ~0u;
    for (unsigned i = 0; i < d->ifc->n_in; i++)
        if (!strncmp(d->ifc->in[i].name, "cqw_cq_db_data_", 15) && d->ifc->in[i].offset < base)
            base = d->ifc->in[i].offset;
    int k = find_in_leaf(d->ifc, "cqw_cq_db_data_arm");
    if (k >= 0 && base != ~0u && d->ifc->in[k].offset - base < 64 && d->ifc->in[k].width >= 2)
        d->cq_db_arm_off = (int)(d->ifc->in[k].offset - base);
}

hlsnic_dev_t *hlsnic_dev_open(const hlsnic_dev_config_t *cfg, char *err, size_t errlen) {
    char scratch[256];
    if (!err || !errlen) {
        err = scratch;
        errlen = sizeof scratch;
    }
    err[0] = 0;
    hlsnic_dev_config_t none = {0};
    if (!cfg) cfg = &none;
    hlsnic_dev_t *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_init(&d->vfio_mu, NULL);
    d->wake_fd = -1;
    d->port.fd = -1;
    d->model.iface_fd = -1;
    for (unsigned f = 0; f < NIC_FNS; f++) d->fn[f].irq_fd = -1;
    d->batch = cfg->batch_cycles ? cfg->batch_cycles : 256;
    d->idle_us = cfg->idle_sleep_us ? cfg->idle_sleep_us : 50;
    d->grace_us = cfg->clock_jump_grace_us ? cfg->clock_jump_grace_us : 50000;
    if (!cfg->clock_jump_grace_us && jump_grace_env(&d->grace_us, err, errlen)) goto fail;

    if (dev_model_open(&d->model, cfg->model, err, errlen)) goto fail;
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.nics = 1;
    c.mode = d->model.mode;
    c.wire.bytes_per_cycle = 0; /* the socket is the link: frames leave the cycle they end */
    c.mem.backend = (hostmem_backend_t){.ctx = d, .read = dev_dma_read, .write = dev_dma_write};
    d->tb = nic_tb_new(&d->model.m, &c);
    if (!d->tb) {
        snprintf(err, errlen, "model %s: the NIC harness did not start (its reason is on stderr)",
                 cfg->model ? cfg->model : "c");
        goto fail;
    }
    static const char *const need[] = {"ctrl_cmd", "ctrl_cmd_resp", "ctrl_async", "req_sq_db",
                                       "resp_rq_db", "cqw_cq_db", "tx_frame", "rx_frame"};
    for (unsigned i = 0; i < sizeof need / sizeof *need; i++)
        if (!nic_tb_has_stream(d->tb, need[i])) {
            snprintf(err, errlen, "model %s: the NIC has no %s stream", cfg->model ? cfg->model : "c", need[i]);
            goto fail;
        }
    d->ifc = ifc_read(d->model.iface_path);
    if (!d->ifc) {
        snprintf(err, errlen, "model: the built-in interface did not parse (see stderr)");
        goto fail;
    }
    find_arm(d);
    if (!(d->frame = malloc(DEV_FRAME_MAX))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (dev_port_open(&d->port, cfg->wire, err, errlen)) goto fail;
    if (dev_port_set_drops(&d->port, cfg->drop_rx ? cfg->drop_rx : getenv("HLSNIC_DROP_RX"), err, errlen)) goto fail;
    if (!cfg->no_clock_jump && !(d->jump = clock_jump_new(d->tb, err, errlen))) goto fail;
    if (cfg->pcap && !(d->pcap = pcap_open(cfg->pcap))) {
        snprintf(err, errlen, "pcap %s: %s", cfg->pcap, strerror(errno));
        goto fail;
    }
    if ((d->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        goto fail;
    }
    for (unsigned f = 0; f < NIC_FNS; f++)
        if ((d->fn[f].irq_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
            snprintf(err, errlen, "eventfd for fn %u's interrupt: %s", f, strerror(errno));
            goto fail;
        }
    if (dev_vfio_open(d, err, errlen)) goto fail;
    int r = pthread_create(&d->thread, NULL, clock_main, d);
    if (r) {
        snprintf(err, errlen, "clock thread: %s", strerror(r));
        goto fail;
    }
    d->thread_started = true;
    return d;
fail:
    hlsnic_dev_close(d);
    return NULL;
}

void hlsnic_dev_close(hlsnic_dev_t *d) {
    if (!d) return;
    if (d->thread_started) {
        atomic_store(&d->stop, true);
        uint64_t one = 1;
        ssize_t w = write(d->wake_fd, &one, sizeof one);
        (void)w;
        pthread_join(d->thread, NULL);
    }
    dev_vfio_close(d);
    dev_dirty_free(d);
    if (d->pcap) pcap_close(d->pcap);
    dev_port_close(&d->port);
    if (d->wake_fd >= 0) close(d->wake_fd);
    for (unsigned f = 0; f < NIC_FNS; f++)
        if (d->fn[f].irq_fd >= 0) close(d->fn[f].irq_fd);
    if (d->ifc) ifc_free(d->ifc);
    clock_jump_free(d->jump);
    nic_tb_free(d->tb);
    dev_model_close(&d->model);
    free(d->frame);
    free(d->maps);
    pthread_mutex_destroy(&d->mu);
    pthread_mutex_destroy(&d->vfio_mu);
    free(d);
}

/* ---- diagnostics ---- */
void hlsnic_dev_stats(hlsnic_dev_t *d, hlsnic_dev_stats_t *s) {
    dev_lock(d);
    *s = d->st;
    s->cycles = nic_tb_now(d->tb);
    s->tx_dropped = d->tx_dropped;
    s->mmio_errors = d->mmio_errors;
    pthread_mutex_unlock(&d->mu);
}

/* The texts are written once (the first fault / error) and never change after: safe to
 * return without the lock. */
const char *hlsnic_dev_first_fault(hlsnic_dev_t *d) {
    dev_lock(d);
    const char *s = d->has_fault ? d->fault : NULL;
    pthread_mutex_unlock(&d->mu);
    return s;
}

const char *hlsnic_dev_mmio_error(hlsnic_dev_t *d) {
    dev_lock(d);
    const char *s = d->has_mmio_err ? d->mmio_err : NULL;
    pthread_mutex_unlock(&d->mu);
    return s;
}
