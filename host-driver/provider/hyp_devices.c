/* hyp_devices.c — the hypervisor's work on the two devices of a migration (hyp.h,
 * hyp_migrate.c): reading the source's stream, opening and loading the destination, sending
 * the source back to RUNNING after a failure, taking the source's pending interrupts, and
 * closing a device. Only hlsnic_dev.h and hlsnic_vfio.h are used. */
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
        ssize_t r = read(fd, img->b + img->n, img->cap - img->n);
        if (r > 0) {
            img->n += (size_t)r;
            got += r;
            continue;
        }
        if (r == 0) return got; /* the device closed its end: the image is complete */
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return -errno;
        if (!to_end) return got; /* pre-copy: a temporary end */
        if (hyp_now_ms() - t0 > HYP_STREAM_TIMEOUT_MS) return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        poll(&p, 1, 100);
    }
}

static bool write_all(int fd, const uint8_t *b, size_t n) {
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* The source back to RUNNING after a failure (reset if the arcs refuse). */
void hyp_source_back(hlsnic_fn_t *f, hlsnic_dev_t *d) {
    if (hlsnic_vfio_set_state(d, f->fn, HLSNIC_MIG_RUNNING, NULL) == 0) return;
    int rc = hlsnic_vfio_reset(d, f->fn);
    if (rc) hlsnic_log(f, "migration: the source refused to return to RUNNING (reset: %s)", strerror(-rc));
}

/* The guest's interrupts the source raised and the guest had not taken when it stopped
 * (on a real host, pending MSI-X bits QEMU carries over). */
unsigned hyp_pop_events(hlsnic_fn_t *f, hlsnic_dev_t *d, uint64_t *ev, unsigned cap) {
    unsigned n = 0;
    while (n < cap) {
        uint64_t e = hlsnic_mmio_read64(d, f->fn, NIC_BAR_EVENT);
        if (!(e >> 63)) break;
        ev[n++] = e;
    }
    return n;
}

/* Open the destination on the source's wire, map the guest, load the image. NULL with the
 * reason in why. */
hlsnic_dev_t *hyp_destination(hlsnic_fn_t *f, unsigned nth, const hyp_buf_t *img, char *why, size_t cap) {
    char pcap[4096], err[256] = "";
    if (f->cfg_pcap) snprintf(pcap, sizeof pcap, "%s.mig%u", f->cfg_pcap, nth);
    /* the source's wire, or with HLSNIC_MIGRATE_WIRE the other of the two (another switch port) */
    const char *wire = f->cfg_wire_alt && !f->wire_now ? f->cfg_wire_alt : f->cfg_wire;
    hlsnic_dev_config_t cfg = {.model = f->cfg_model, .wire = wire, .pcap = f->cfg_pcap ? pcap : NULL};
    hlsnic_dev_t *d = hlsnic_dev_open(&cfg, err, sizeof err);
    if (!d) {
        snprintf(why, cap, "the destination device did not open: %s", err);
        return NULL;
    }
    int rc = hyp_ram_map_all(&f->ram, d), wfd = -1;
    if (rc) {
        snprintf(why, cap, "mapping the guest's memory on the destination: %s", strerror(-rc));
        goto fail;
    }
    if ((rc = hlsnic_vfio_set_state(d, f->fn, HLSNIC_MIG_RESUMING, &wfd)) || wfd < 0) {
        snprintf(why, cap, "destination RUNNING -> RESUMING: %s", rc ? strerror(-rc) : "no data_fd");
        goto fail;
    }
    bool wrote = write_all(wfd, img->b, img->n);
    close(wfd);
    if (!wrote) {
        snprintf(why, cap, "writing the image (%zu B) into the destination's data_fd failed", img->n);
        goto fail;
    }
    static const enum hlsnic_mig_state order[] = {HLSNIC_MIG_STOP, HLSNIC_MIG_RUNNING_P2P, HLSNIC_MIG_RUNNING};
    for (unsigned i = 0; i < 3; i++)
        if ((rc = hlsnic_vfio_set_state(d, f->fn, order[i], NULL))) {
            snprintf(why, cap, "destination -> %s: %s%s", hlsnic_mig_state_name(order[i]), strerror(-rc),
                     i == 0 ? " (the image was refused)" : "");
            goto fail;
        }
    return d;
fail:
    hyp_dev_close(d);
    return NULL;
}

/* Close a device in a thread of its own. Verilator (5.0) unregisters an RTL model's scopes
 * through the closing thread's "current context", which is the context of the last model
 * that thread built or ran — for the program's thread, the first device, freed by the first
 * migration: closing a later device there uses freed memory (seen as SIGILL / an abort in
 * VerilatedMutex::lock). A fresh thread has no current context. (The RTL glue could make
 * its own context current before destroying the model; rtl-gen/wrap/rtl_glue.h.) */
static void *close_main(void *d) {
    hlsnic_dev_close(d);
    return NULL;
}
void hyp_dev_close(hlsnic_dev_t *d) {
    pthread_t t;
    if (pthread_create(&t, NULL, close_main, d)) hlsnic_dev_close(d); /* no thread: as before */
    else pthread_join(t, NULL);
}
