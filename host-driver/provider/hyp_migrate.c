/* hyp_migrate.c — one live migration of the guest's function to a new device (hyp.h;
 * docs/live-migration.md, "The hypervisor driver"), in QEMU's order and only through the
 * VFIO-shaped interface (hlsnic_vfio.h):
 *
 *   1. guest memory frozen (no new mappings), its shadow copied whole, the device's DMA dirty
 *      log started over it; the destination opened with no port (the source owns the wire),
 *      its migration tag checked against the source's (hyp_dest_check.c), the guest's memory
 *      mapped on it, RUNNING -> RESUMING: it takes the image as it comes;
 *   2. RUNNING -> PRE_COPY; passes: PRECOPY_INFO, the device's stream read and written into
 *      the destination, the dirty pages synchronised into the shadow, HYP_GAP_CYCLES of
 *      device time between two; until pre-copy converged (hyp_converge.c: counted in bytes,
 *      DevThrottle when a pass does not shrink enough) or HYP_PRECOPY_MAX passes; then the
 *      destination's switch-over acknowledgement: the pre-copy data staged and valid;
 *   3. the guest paused (its provider's MMIO and CQ polling wait); PRE_COPY_P2P, then
 *      STOP_COPY read to its end (and written on), then STOP: the source does nothing more;
 *   4. the shadow check: every page that changed since the pause must be in the dirty log;
 *   5. the destination's RESUMING -> STOP: its load validated;
 *   6. the switch-over: the source's port moved to the destination (or, with
 *      HLSNIC_MIGRATE_WIRE, the other switch port attached to it), RUNNING_P2P, RUNNING (the
 *      firmware's Resume-Active announces the function's MAC and IP with a gratuitous ARP);
 *      the guest resumed on it, interrupts it had not taken delivered; the source closed.
 * Any failure before the destination runs — the destination's too: it does not open, refuses
 * the image, does not take the wire — closes the destination and puts the source back to
 * RUNNING on its own wire: the guest runs on where it was. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hlsnic.h"
#include "hlsnic_vfio.h"

enum { GAP_WALL_MS = 500 }; /* an idle device's clock creeps (it sleeps between short batches): the gap ends anyway */

static double now_ms(void) { /* CLOCK_MONOTONIC, ms */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static uint64_t guest_cycles(hlsnic_fn_t *f, hlsnic_dev_t *d) {
    hlsnic_dev_stats_t st;
    hlsnic_dev_stats(d, &st);
    return f->cycle_base + st.cycles;
}



typedef struct {
    hlsnic_fn_t *f;
    hyp_migration_t *m;
    hyp_phase_t ph;
    hlsnic_dev_t *dst;  /* the destination once opened: its own clock is counted apart */
    uint64_t dst_cyc0;
} phase_clock_t;

static uint64_t dev_cycles(hlsnic_dev_t *d) {
    hlsnic_dev_stats_t st;
    if (!d) return 0;
    hlsnic_dev_stats(d, &st);
    return st.cycles;
}

static void phase_begin(phase_clock_t *c, const char *name, hlsnic_dev_t *d, double t_base) {
    memset(&c->ph, 0, sizeof c->ph);
    snprintf(c->ph.name, sizeof c->ph.name, "%s", name);
    c->ph.cyc0 = guest_cycles(c->f, d);
    c->ph.ms0 = now_ms() - t_base;
    c->dst_cyc0 = dev_cycles(c->dst);
}

static void phase_end(phase_clock_t *c, hlsnic_dev_t *d, double t_base) {
    c->ph.cyc1 = guest_cycles(c->f, d);
    c->ph.ms1 = now_ms() - t_base;
    if (c->dst) c->ph.dest_cycles = dev_cycles(c->dst) - c->dst_cyc0;
    hyp_timeline_phase(c->m, &c->ph);
}

static const char *state_name(enum hlsnic_mig_state s) { return hlsnic_mig_state_name(s); }

double hyp_now_ms(void) { return now_ms(); }

/* Let the guest and the device run HYP_GAP_CYCLES of device time (not wall time: what a pass
 * then finds dirty is a count of the device's own work), at most GAP_WALL_MS. */
static void precopy_gap(hlsnic_dev_t *d) {
    uint64_t c0 = dev_cycles(d);
    double t0 = now_ms();
    while (dev_cycles(d) - c0 < HYP_GAP_CYCLES && now_ms() - t0 < GAP_WALL_MS) usleep(500);
}

/* ---- tests only (docs/live-migration.md, "Failures") ---- */
/* HLSNIC_MIGRATE_TEST_DEST_FAIL: how the destination fails */
enum dest_fail { DEST_FAIL_NONE, DEST_FAIL_OPEN, DEST_FAIL_IMAGE, DEST_FAIL_IMAGE_END, DEST_FAIL_TAG, DEST_FAIL_PRE_COPY };

static enum dest_fail dest_fail_wanted(hlsnic_fn_t *f) {
    const char *v = getenv("HLSNIC_MIGRATE_TEST_DEST_FAIL");
    if (!v || !*v) return DEST_FAIL_NONE;
    if (!strcmp(v, "open")) return DEST_FAIL_OPEN;
    if (!strcmp(v, "image")) return DEST_FAIL_IMAGE;
    if (!strcmp(v, "image-end")) return DEST_FAIL_IMAGE_END;
    if (!strcmp(v, "tag")) return DEST_FAIL_TAG;
    if (!strcmp(v, "pre-copy")) return DEST_FAIL_PRE_COPY;
    hlsnic_log(f, "HLSNIC_MIGRATE_TEST_DEST_FAIL='%s': not open, image, image-end, tag or pre-copy; ignored", v);
    return DEST_FAIL_NONE;
}

/* HLSNIC_MIGRATE_TEST_CANCEL=illegal-arc: migration N asks for the ((N-1) mod 7)-th of these,
 * when its device is in `from`: the requests the uAPI refuses that a driver could make on
 * the way (ERROR is never asked for; STOP_COPY cannot go back to pre-copy). */
static const struct {
    bool dst;
    enum hlsnic_mig_state from, want;
} illegal_arcs[] = {
    {false, HLSNIC_MIG_PRE_COPY, HLSNIC_MIG_ERROR},      {false, HLSNIC_MIG_PRE_COPY_P2P, HLSNIC_MIG_ERROR},
    {false, HLSNIC_MIG_STOP_COPY, HLSNIC_MIG_PRE_COPY},  {false, HLSNIC_MIG_STOP_COPY, HLSNIC_MIG_PRE_COPY_P2P},
    {false, HLSNIC_MIG_STOP_COPY, HLSNIC_MIG_ERROR},     {false, HLSNIC_MIG_STOP, HLSNIC_MIG_ERROR},
    {true, HLSNIC_MIG_RESUMING, HLSNIC_MIG_ERROR},
};
#define N_ILLEGAL_ARCS (sizeof illegal_arcs / sizeof *illegal_arcs)

/* At a point of the migration where device d (the destination when dst) is in its state: if
 * this migration's illegal arc starts there, ask for it (a driver bug on purpose) and report
 * the answer as the migration's failure. 0 when nothing was asked. */
static int test_illegal_arc(hlsnic_fn_t *f, hyp_migration_t *m, bool on, hlsnic_dev_t *d, bool dst) {
    if (!on) return 0;
    unsigned k = (m->n - 1) % N_ILLEGAL_ARCS, fn = dst ? m->dst_fn : f->fn;
    enum hlsnic_mig_state before = HLSNIC_MIG_ERROR, after = HLSNIC_MIG_ERROR;
    hlsnic_vfio_get_state(d, fn, &before);
    if (illegal_arcs[k].dst != dst || illegal_arcs[k].from != before) return 0;
    int rc = hlsnic_vfio_set_state(d, fn, illegal_arcs[k].want, NULL);
    hlsnic_vfio_get_state(d, fn, &after);
    snprintf(m->result, sizeof m->result, "failed: the %s's %s -> %s answered %s, the device is in %s (HLSNIC_MIGRATE_TEST_CANCEL=illegal-arc)",
             dst ? "destination" : "source", state_name(before), state_name(illegal_arcs[k].want), rc ? strerror(-rc) : "success",
             state_name(after));
    return rc ? rc : -EIO;
}


/* The shadow check's answer: 0, or -EIO with the pages named in m->result. */
static int shadow_verdict(hyp_migration_t *m, const hyp_sync_t *sy, const char *why) {
    if (!sy->unlogged) return 0;
    snprintf(m->result, sizeof m->result, "failed: the device wrote %u page(s) its dirty log did not report: %s", sy->unlogged, why);
    return -EIO;
}

int hyp_migrate(hlsnic_fn_t *f, hyp_migration_t *m, double t_base) {
    hlsnic_dev_t *src = f->dev, *dst = NULL; /* only this thread replaces f->dev */
    unsigned dfn = m->dst_fn;
    phase_clock_t pc = {.f = f, .m = m};
    hyp_shadow_t sh;
    hyp_sync_t sy;
    hyp_buf_t img = {0};
    char why[400] = "";
    int rc = 0, fd = -1, wfd = -1;
    bool logging = false, paused = false, events_stopped = false, throttled = false;
    hyp_converge_t cv;
    uint64_t ev[NIC_BAR_EVENT_DEPTH];
    unsigned nev = 0;
    /* tests only (docs/live-migration.md): break the dirty log; cancel at a phase or ask an
     * illegal arc; make the destination fail */
    const char *brk = getenv("HLSNIC_MIGRATE_TEST_BREAK_LOG"), *cancel = getenv("HLSNIC_MIGRATE_TEST_CANCEL");
    if (!cancel) cancel = "";
    bool break_log = brk && strcmp(brk, "0") != 0, illegal = !strcmp(cancel, "illegal-arc");
    enum dest_fail dest_fail = dest_fail_wanted(f);

    /* 1. guest memory; the destination prepared */
    hyp_ram_freeze(&f->ram);
    phase_begin(&pc, "guest-memory", src, t_base);
    if ((rc = hyp_shadow_build(&sh, &f->ram, &pc.ph.guest_bytes))) {
        snprintf(m->result, sizeof m->result, "failed: the guest's memory (%zu mappings): %s", f->ram.n,
                 rc == -E2BIG ? "more ranges than the device's dirty log takes (256)" : strerror(-rc));
        hyp_ram_thaw(&f->ram);
        hyp_timeline_end(m);
        return rc;
    }
    if ((rc = hyp_shadow_log_start(&sh, src))) {
        snprintf(m->result, sizeof m->result, "failed: DMA logging START: %s", strerror(-rc));
        goto out;
    }
    logging = true;
    phase_end(&pc, src, t_base);
    phase_begin(&pc, "destination", src, t_base);
    const char *src_model = f->cfg_model ? f->cfg_model : "c", *dst_model = m->dst_model ? m->dst_model : src_model;
    dst = hyp_dest_open(f, m->n, dfn, dest_fail == DEST_FAIL_OPEN ? "no-such-model (HLSNIC_MIGRATE_TEST_DEST_FAIL=open)" : dst_model,
                        &wfd, why, sizeof why);
    if (!dst) {
        rc = -EIO;
        snprintf(m->result, sizeof m->result, "failed: %s", why);
        goto out;
    }
    pc.dst = dst;
    /* a destination of a smaller profile (tests): half the source's QP rows */
    if (dest_fail == DEST_FAIL_TAG) hlsnic_vfio_test_qp_rows(dst, NIC_QP_PER_FN / 2);
    if (hyp_dest_tag_check(src, f->fn, dst, dfn, why, sizeof why)) {
        rc = -EINVAL;
        snprintf(m->result, sizeof m->result, "failed: %s%s", why, dest_fail == DEST_FAIL_TAG ? " (HLSNIC_MIGRATE_TEST_DEST_FAIL=tag)" : "");
        goto out;
    }
    fprintf(stderr, "hlsnic-hyp: migration %u: destination function %u (the source's %u), model %s (the source's %s), migration tags %s\n",
            m->n, dfn, f->fn, dst_model, src_model, why);
    pc.dst_cyc0 = 0; /* its open counts */
    phase_end(&pc, src, t_base);
    const hyp_shadow_range_t *cq = NULL;
    for (unsigned i = 0; i < sh.n && !cq; i++)
        if (sh.r[i].device_only) cq = &sh.r[i];

    /* the broken log (tests): no CQE written into that ring from now on is logged, so the
     * first one the device writes is a change the log never reports (a write skipped once
     * could be covered by a later logged one to its page: the test then depended on timing) */
    if (break_log && cq) hlsnic_dma_logging_test_skip_range(src, cq->va, cq->len);

    /* 2. pre-copy, each iteration's image bytes on to the destination */
    phase_begin(&pc, "pre-copy-start", src, t_base);
    if ((rc = hlsnic_vfio_set_state(src, f->fn, HLSNIC_MIG_PRE_COPY, &fd)) || fd < 0) {
        snprintf(m->result, sizeof m->result, "failed: RUNNING -> PRE_COPY: %s", rc ? strerror(-rc) : "no data_fd");
        if (!rc) rc = -EIO;
        goto out;
    }
    phase_end(&pc, src, t_base);
    if ((rc = hyp_converge_begin(&cv, src, f->fn, m->throttle_allowed))) {
        snprintf(m->result, sizeof m->result, "failed: DevThrottle GET: %s", strerror(-rc));
        goto out;
    }
    for (unsigned it = 1; it <= HYP_PRECOPY_MAX; it++) {
        char name[32];
        snprintf(name, sizeof name, "pre-copy-%u", it);
        phase_begin(&pc, name, src, t_base);
        uint64_t initial = 0, dirty = 0;
        long got = 0;
        if ((rc = hlsnic_vfio_precopy_info(src, f->fn, &initial, &dirty)) || (got = hyp_stream_read(fd, &img, false)) < 0) {
            if (!rc) rc = (int)got;
            snprintf(m->result, sizeof m->result, "failed: pre-copy iteration %u: %s", it, strerror(-rc));
            goto out;
        }
        /* (tests) the destination gets the first pass's header with a byte flipped: its CRC fails */
        if (dest_fail == DEST_FAIL_PRE_COPY && it == 1 && got >= 512) img.b[img.n - got + 40] ^= 0x10;
        if ((rc = hyp_dest_write(wfd, img.b + img.n - got, (size_t)got))) {
            if (!rc) rc = (int)got;
            snprintf(m->result, sizeof m->result, "failed: pre-copy iteration %u: %s", it, strerror(-rc));
            goto out;
        }
        if ((rc = hyp_shadow_sync(&sh, src, false, &sy, why, sizeof why))) {
            snprintf(m->result, sizeof m->result, "failed: DMA logging REPORT: %s", strerror(-rc));
            goto out;
        }
        pc.ph.device_bytes = (uint64_t)got;
        pc.ph.guest_bytes = sy.logged_bytes + sy.vcpu_bytes;
        phase_end(&pc, src, t_base);
        if ((rc = shadow_verdict(m, &sy, why)) || (rc = test_illegal_arc(f, m, illegal, src, false))) goto out;
        if (!strcmp(cancel, "pre-copy")) {
            rc = -ECANCELED;
            snprintf(m->result, sizeof m->result, "failed: cancelled during pre-copy (HLSNIC_MIGRATE_TEST_CANCEL)");
            goto out;
        }
        int conv = hyp_converge_pass(&cv, m, src, f->fn, initial == 0, (uint64_t)got + pc.ph.guest_bytes, sy.logged_bytes);
        if (conv < 0) {
            rc = conv;
            snprintf(m->result, sizeof m->result, "failed: DevThrottle after pre-copy iteration %u: %s", it, strerror(-rc));
            goto out;
        }
        throttled = cv.rate != 0;
        /* (a broken log gets every iteration: more CQEs written while it is broken) */
        if (conv && !break_log) break;
        precopy_gap(src);
    }
    hyp_converge_report(m);

    /* the destination acknowledges the pre-copy data before the source stops (switchover-ack) */
    phase_begin(&pc, "switchover-ack", src, t_base);
    if (hyp_dest_ack_wait(dst, dfn, img.n, why, sizeof why)) {
        rc = -EIO;
        snprintf(m->result, sizeof m->result, "failed: %s%s", why, dest_fail == DEST_FAIL_PRE_COPY ? " (HLSNIC_MIGRATE_TEST_DEST_FAIL=pre-copy)" : "");
        goto out;
    }
    phase_end(&pc, src, t_base);

    /* 3. stop: the guest paused, every device to P2P first, then STOP_COPY (QEMU's order) */
    hlsnic_events_stop(f);
    events_stopped = true;
    phase_begin(&pc, "pause", src, t_base);
    hyp_gate_pause(&f->gate);
    paused = true;
    m->down_cyc0 = pc.ph.cyc0;
    m->down_ms0 = pc.ph.ms0;
    /* what the guest's CPU wrote up to now is brought over with the last logged pages */
    if ((rc = hyp_shadow_sync(&sh, src, false, &sy, why, sizeof why))) {
        snprintf(m->result, sizeof m->result, "failed: DMA logging REPORT: %s", strerror(-rc));
        goto out;
    }
    pc.ph.guest_bytes = sy.logged_bytes + sy.vcpu_bytes;
    phase_end(&pc, src, t_base);
    if ((rc = shadow_verdict(m, &sy, why))) goto out;
    phase_begin(&pc, "pre-copy-p2p", src, t_base);
    if ((rc = hlsnic_vfio_set_state(src, f->fn, HLSNIC_MIG_PRE_COPY_P2P, NULL))) {
        snprintf(m->result, sizeof m->result, "failed: PRE_COPY -> PRE_COPY_P2P: %s", strerror(-rc));
        goto out;
    }
    phase_end(&pc, src, t_base);
    if ((rc = test_illegal_arc(f, m, illegal, src, false))) goto out;
    phase_begin(&pc, "stop-copy", src, t_base);
    long got = 0;
    if ((rc = hlsnic_vfio_set_state(src, f->fn, HLSNIC_MIG_STOP_COPY, NULL)) || (got = hyp_stream_read(fd, &img, true)) < 0) {
        if (!rc) rc = (int)got;
        snprintf(m->result, sizeof m->result, "failed: PRE_COPY_P2P -> STOP_COPY and its stream: %s", strerror(-rc));
        goto out;
    }
    close(fd);
    fd = -1;
    pc.ph.device_bytes = (uint64_t)got;
    if (!strcmp(cancel, "stop-copy")) { /* the whole image was read: as if the destination went away now */
        rc = -ECANCELED;
        snprintf(m->result, sizeof m->result, "failed: cancelled during stop-copy (HLSNIC_MIGRATE_TEST_CANCEL)");
        goto out;
    }
    if ((rc = test_illegal_arc(f, m, illegal, src, false))) goto out;
    if ((rc = hlsnic_vfio_set_state(src, f->fn, HLSNIC_MIG_STOP, NULL))) {
        snprintf(m->result, sizeof m->result, "failed: STOP_COPY -> STOP: %s", strerror(-rc));
        goto out;
    }
    /* 4. the shadow check: the guest was paused, so every change since is the device's */
    if ((rc = hyp_shadow_sync(&sh, src, true, &sy, why, sizeof why))) {
        snprintf(m->result, sizeof m->result, "failed: DMA logging REPORT: %s", strerror(-rc));
        goto out;
    }
    pc.ph.guest_bytes = sy.logged_bytes + sy.ambiguous * (uint64_t)HYP_PAGE;
    phase_end(&pc, src, t_base);
    if ((rc = shadow_verdict(m, &sy, why)) || (rc = test_illegal_arc(f, m, illegal, src, false))) goto out;
    if (sy.ambiguous)
        fprintf(stderr, "hlsnic-hyp: migration %u: warning: %u page(s) of the program's memory changed while the guest was paused "
                        "and are not in the device's dirty log (the device's unlogged write, or a program thread writing outside "
                        "a verbs call); copied: %s\n", m->n, sy.ambiguous, why);
    m->image_bytes = img.n;

    /* 5. the destination loads the rest and validates the image (a test spoils its end) */
    phase_begin(&pc, "destination-load", src, t_base);
    size_t rest = (size_t)got;
    if (dest_fail == DEST_FAIL_IMAGE && rest >= 512) img.b[img.n - 512 + 40] ^= 0x10; /* the end block's CRC fails */
    if (dest_fail == DEST_FAIL_IMAGE_END && rest >= 512) rest -= 512;                 /* the image never ends */
    if ((rc = hyp_dest_write(wfd, img.b + img.n - got, rest))) {
        snprintf(m->result, sizeof m->result, "failed: writing the stop-copy image into the destination: %s", strerror(-rc));
        goto out;
    }
    if ((rc = test_illegal_arc(f, m, illegal, dst, true))) goto out;
    close(wfd);
    wfd = -1;
    if ((rc = hlsnic_vfio_set_state(dst, dfn, HLSNIC_MIG_STOP, NULL))) {
        enum hlsnic_mig_state now = HLSNIC_MIG_ERROR;
        hlsnic_vfio_get_state(dst, dfn, &now);
        snprintf(m->result, sizeof m->result, "failed: the destination refused the image (%zu B): RESUMING -> STOP answered %s, its state %s%s",
                 img.n, strerror(-rc), state_name(now), dest_fail != DEST_FAIL_NONE ? " (HLSNIC_MIGRATE_TEST_DEST_FAIL)" : "");
        goto out;
    }
    phase_end(&pc, src, t_base);

    /* 6. switch-over: the wire to the destination, which runs; the source stays STOP */
    phase_begin(&pc, "switch-over", src, t_base);
    nev = hyp_pop_events(f, src, dfn, ev, NIC_BAR_EVENT_DEPTH);
    if (hyp_dest_take_over(f, src, dst, dfn, why, sizeof why)) {
        rc = -EIO;
        snprintf(m->result, sizeof m->result, "failed: %s", why);
        goto out;
    }
    hlsnic_dma_logging_stop(src);
    logging = false;
    /* the guest's device time goes on from the source's: the destination's clock has run
     * since its open (modulo 2^64: the sum with its later cycles is what counts) */
    hlsnic_dev_stats_t ss, ds;
    hlsnic_dev_stats(src, &ss);
    hlsnic_dev_stats(dst, &ds);
    f->cycle_base += ss.cycles - ds.cycles;
    f->frame_base += ss.tx_frames - ds.tx_frames;
    m->dest_cycle_base = f->cycle_base; /* the guest time of the destination's cycle 0: the key to its pcap's times */
    f->dev = dst;
    f->fn = dfn;
    f->cfg_model = dst_model; /* the guest runs on it now: the next migration's default */
    if (f->cfg_wire_alt) f->wire_now ^= 1;
    f->irq_fd = hlsnic_dev_irq_fd(dst, f->fn);
    f->ev_lost_seen = hlsnic_mmio_read64(dst, f->fn, NIC_BAR_EVENT_LOST);
    /* the throttle travelled in the image: the guest runs at full speed again */
    if (throttled && (rc = hlsnic_vfio_dev_throttle(dst, dfn, 0, NULL)))
        hlsnic_log(f, "migration %u: the destination's DevThrottle stayed on: %s", m->n, strerror(-rc));
    phase_end(&pc, dst, t_base);
    snprintf(m->result, sizeof m->result, "ok");
    rc = 0;
out:
    if (fd >= 0) close(fd);
    if (wfd >= 0) close(wfd);
    if (rc) {
        if (dst) hlsnic_dev_close(dst); /* before the source runs again: nothing of the function left there */
        if (logging) hlsnic_dma_logging_stop(src);
        hyp_source_back(f, src);
        if (throttled && hlsnic_vfio_dev_throttle(src, f->fn, 0, NULL)) hlsnic_log(f, "migration %u: the source's DevThrottle stayed on", m->n);
        enum hlsnic_mig_state now = HLSNIC_MIG_ERROR;
        hlsnic_vfio_get_state(src, f->fn, &now);
        size_t k = strlen(m->result);
        snprintf(m->result + k, sizeof m->result - k, "; the source is %s", now == HLSNIC_MIG_RUNNING ? "RUNNING again" : state_name(now));
    }
    hyp_shadow_free(&sh);
    free(img.b);
    if (paused) {
        m->down_cyc1 = guest_cycles(f, f->dev);
        m->down_ms1 = now_ms() - t_base;
        hyp_gate_resume(&f->gate);
    }
    hyp_ram_thaw(&f->ram);
    for (unsigned i = 0; i < nev; i++) hlsnic_event_dispatch(f, ev[i]);
    if (events_stopped && hlsnic_events_start(f)) hlsnic_log(f, "migration: the event thread did not restart");
    if (!rc) hlsnic_dev_close(src); /* stopped and without a port: closed once the guest runs again */
    hyp_timeline_end(m);
    return rc;
}
