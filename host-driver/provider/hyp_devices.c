/* hyp_devices.c — the hypervisor's work on the two devices of a migration (hyp.h,
 * hyp_migrate.c): reading the source's stream, preparing the destination (opened with no
 * port, mapped, RESUMING) and feeding it the image, handing it the wire once its load is
 * validated, sending the source back to RUNNING after a failure, and taking the source's
 * pending interrupts. Only hlsnic_dev.h and hlsnic_vfio.h are used. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlsnic.h"
#include "hlsnic_vfio.h"

enum { HYP_STREAM_TIMEOUT_MS = 60000 }; /* STOP_COPY's stream must end within this */

/* Read what the stream holds now (to_end: until the device closes it). Bytes read, or -errno. */
long hyp_stream_read(int fd, hyp_buf_t *img, bool to_end) {
    long got = 0;
    double t0 = hyp_now_ms();
    for (;;) {
        if (img->cap - img->n < 65536) {
            size_t c = img->cap ? 2 * img->cap : 1 << 17;
            uint8_t *b = realloc(img->b, c);
            if (!b) return -ENOMEM;
            img->b = b;
            img->cap = c;
        }
        ssize_t r = hlsnic_vfio_read(fd, img->b + img->n, img->cap - img->n);
        if (r > 0) {
            img->n += (size_t)r;
            got += r;
            continue;
        }
        if (r == 0) return got; /* the device closed its end: the image is complete */
        if (errno == EINTR) continue;
        if (errno != ENOMSG) return -errno;
        if (!to_end) return got; /* pre-copy: a temporary end */
        if (hyp_now_ms() - t0 > HYP_STREAM_TIMEOUT_MS) return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        poll(&p, 1, 100);
    }
}

/* The source back to RUNNING after a failure (reset if the arcs refuse). */
void hyp_source_back(hlsnic_fn_t *f, hlsnic_dev_t *d) {
    if (hlsnic_vfio_set_state(d, f->fn, HLSNIC_MIG_RUNNING, NULL) == 0) return;
    int rc = hlsnic_vfio_reset(d, f->fn);
    if (rc) hlsnic_log(f, "migration: the source refused to return to RUNNING (reset: %s)", strerror(-rc));
}

/* The guest's interrupts the source raised and the guest had not taken when it stopped
 * (on a real host, pending MSI-X bits QEMU carries over). An event names its QP and CQ by
 * their rows on the device (function * rows per function + slot): they are renamed to the
 * destination's function dfn, where the slots are the same (the image keeps them). */
unsigned hyp_pop_events(hlsnic_fn_t *f, hlsnic_dev_t *d, unsigned dfn, uint64_t *ev, unsigned cap) {
    unsigned n = 0;
    while (n < cap) {
        uint64_t e = hlsnic_mmio_read64(d, f->fn, NIC_BAR_EVENT);
        if (!(e >> 63)) break;
        uint64_t qrow = dfn * NIC_QP_PER_FN + ((e >> 8) & 0xff) % NIC_QP_PER_FN,
                 crow = dfn * NIC_CQ_PER_FN + ((e >> 16) & 0xff) % NIC_CQ_PER_FN;
        ev[n++] = (e & ~0xffff00ull) | qrow << 8 | crow << 16;
    }
    return n;
}

/* The destination, prepared while the source still runs: a device opened with no port (the
 * source owns the wire until the switch-over), every guest mapping mapped on it, RUNNING ->
 * RESUMING; *wfd is its data_fd, into which the hypervisor writes the image as it reads it.
 * NULL with the reason in why. model: the model to open (a test opens a bogus one). */
hlsnic_dev_t *hyp_dest_open(hlsnic_fn_t *f, unsigned nth, unsigned dfn, const char *model, int *wfd, char *why, size_t cap) {
    char pcap[4096], err[256] = "";
    *wfd = -1;
    if (f->cfg_pcap) snprintf(pcap, sizeof pcap, "%s.mig%u", f->cfg_pcap, nth);
    hlsnic_dev_config_t cfg = {.model = model, .wire = NULL, .pcap = f->cfg_pcap ? pcap : NULL};
    hlsnic_dev_t *d = hlsnic_dev_open(&cfg, err, sizeof err);
    if (!d) {
        snprintf(why, cap, "the destination device did not open: %s", err);
        return NULL;
    }
    int rc = hyp_ram_map_all(&f->ram, d);
    if (rc) {
        snprintf(why, cap, "mapping the guest's memory on the destination: %s", strerror(-rc));
        goto fail;
    }
    if ((rc = hlsnic_vfio_set_state(d, dfn, HLSNIC_MIG_RESUMING, wfd)) || *wfd < 0) {
        snprintf(why, cap, "destination function %u RUNNING -> RESUMING: %s", dfn, rc ? strerror(-rc) : "no data_fd");
        goto fail;
    }
    return d;
fail:
    if (*wfd >= 0) close(*wfd);
    *wfd = -1;
    hlsnic_dev_close(d);
    return NULL;
}

/* Write image bytes into the destination's data_fd. 0, or -errno (EPIPE: its loader ended). */
int hyp_dest_write(int wfd, const uint8_t *b, size_t n) {
    while (n) {
        ssize_t w = write(wfd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? -errno : -EIO;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The switch-over, the destination's load validated (STOP): it takes the function's wire —
 * the source's port moved to it, or with HLSNIC_MIGRATE_WIRE the other wire attached — and
 * goes RUNNING_P2P, RUNNING (its Resume-Active announces the function there). If a step
 * fails the source gets its port back: it can run on. 0, or -1 with the reason in why. */
int hyp_dest_take_over(hlsnic_fn_t *f, hlsnic_dev_t *src, hlsnic_dev_t *dst, unsigned dfn, char *why, size_t cap) {
    char err[256] = "";
    /* with two wires the destination gets the one the source is not on */
    const char *other = !f->cfg_wire_alt ? NULL : f->wire_now ? f->cfg_wire : f->cfg_wire_alt;
    bool moved = f->cfg_wire && !other; /* no --wire at all: there is no port to hand over */
    if (other ? hlsnic_dev_wire_attach(dst, other, err, sizeof err) : moved && hlsnic_dev_wire_move(src, dst, err, sizeof err)) {
        snprintf(why, cap, "the destination did not take the wire: %s", err);
        return -1;
    }
    static const enum hlsnic_mig_state order[] = {HLSNIC_MIG_RUNNING_P2P, HLSNIC_MIG_RUNNING};
    for (unsigned i = 0; i < 2; i++) {
        int rc = hlsnic_vfio_set_state(dst, dfn, order[i], NULL);
        if (rc) {
            snprintf(why, cap, "destination -> %s: %s", hlsnic_mig_state_name(order[i]), strerror(-rc));
            if (moved && hlsnic_dev_wire_move(dst, src, err, sizeof err))
                hlsnic_log(f, "migration: the source's port could not be given back: %s", err);
            return -1;
        }
    }
    return 0;
}
