/* hyp.h — the hypervisor beside the guest (docs/live-migration.md, "The hypervisor driver").
 *
 * The program is the guest, its memory the guest's RAM and the in-process device its
 * pass-through PCIe function. What a hypervisor does around such a function lives here, next
 * to the provider (the guest's driver), and uses only what a hypervisor has:
 *
 *   hyp_gate.c      the guest's "vCPUs": every provider access to the device (MMIO, DMA map,
 *                   CQ polling) passes a gate that the hypervisor closes to pause the guest
 *   hyp_ram.c       the guest memory the device may reach (the IOMMU mappings), frozen while a
 *                   migration runs, and the dirty-log ranges made from it
 *   hyp_shadow.c    the shadow copy of that memory, updated only from the device's dirty log,
 *                   compared with the real memory at switch-over
 *   hyp_migrate.c   one migration: pre-copy, QEMU's stop order, the image into a new device
 *   hyp_devices.c   the work on the two devices: the source's stream, the destination prepared
 *                   (no port, mapped, RESUMING) and fed, the wire handed to it
 *   hyp_dest_check.c  the destination checked before the guest stops: its migration tag takes
 *                   the source's (before pre-copy), its switch-over acknowledgement (after it)
 *   hyp_converge.c  when pre-copy has converged, counted in bytes; DevThrottle when it does not
 *   hyp_timeline.c  the phases of each migration on stderr and as JSON
 *   hyp_trigger.c   when to migrate: HLSNIC_MIGRATE_AT, the control socket
 *
 * The device is reached only through hlsnic_dev.h and hlsnic_vfio.h. */
#ifndef HLSNIC_HYP_H
#define HLSNIC_HYP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlsnic_dev.h"

/* ---- hyp_gate.c: pausing the guest as a VM's vCPUs are paused ---- */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned inside; /* guest threads between enter and exit */
    bool paused;
} hyp_gate_t;
void hyp_gate_init(hyp_gate_t *g);
/* A guest thread about to touch the device: waits while the guest is paused. Nests (a
 * thread already inside passes). */
void hyp_gate_enter(hyp_gate_t *g);
void hyp_gate_exit(hyp_gate_t *g);
/* The hypervisor: no guest thread is inside when pause returns, none enters until resume. */
void hyp_gate_pause(hyp_gate_t *g);
void hyp_gate_resume(hyp_gate_t *g);

/* ---- hyp_ram.c: the guest memory the device may reach ---- */
enum hyp_ram_kind {
    HYP_RAM_SHARED,      /* the program's MRs: the CPU and the device write them */
    HYP_RAM_CPU,         /* SQ / RQ rings, inline buffers: only the CPU writes them */
    HYP_RAM_DEVICE_ONLY, /* CQ rings: only the device writes them */
};
typedef struct {
    uintptr_t va;
    size_t len;
    enum hyp_ram_kind kind;
} hyp_map_t;
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    hyp_map_t *m;
    size_t n, cap;
    bool frozen; /* a migration runs: maps and unmaps wait */
} hyp_ram_t;
void hyp_ram_init(hyp_ram_t *r);
/* Map / unmap on device d and record it (waits while frozen). 0 or -1 with errno. */
int hyp_ram_map(hyp_ram_t *r, hlsnic_dev_t *const *d, const void *va, size_t len, enum hyp_ram_kind kind);
int hyp_ram_unmap(hyp_ram_t *r, hlsnic_dev_t *const *d, const void *va, size_t len);
void hyp_ram_freeze(hyp_ram_t *r);
void hyp_ram_thaw(hyp_ram_t *r);
/* Frozen: map every recorded range on device d (the destination). 0 or -errno. */
int hyp_ram_map_all(hyp_ram_t *r, hlsnic_dev_t *d);

/* ---- hyp_shadow.c ---- */
#define HYP_PAGE 4096u
typedef struct {
    uintptr_t va;     /* page-aligned */
    size_t len;       /* whole pages */
    bool device_only; /* every mapping in it is HYP_RAM_DEVICE_ONLY */
    bool program;     /* it holds program memory (HYP_RAM_SHARED: MRs) */
    uint8_t *copy;
} hyp_shadow_range_t;
typedef struct {
    hyp_shadow_range_t *r;
    unsigned n;
    uint64_t *bitmap, *diff; /* scratch: the largest range's pages */
} hyp_shadow_t;
/* The page-aligned union of the frozen mappings, room for a full copy of it (bytes: its size).
 * 0 or -errno (-E2BIG: more ranges than the device logs). */
int hyp_shadow_build(hyp_shadow_t *s, const hyp_ram_t *ram, uint64_t *bytes);
void hyp_shadow_free(hyp_shadow_t *s);
/* DMA logging over the shadow's ranges on d, then the full copy. */
int hyp_shadow_log_start(hyp_shadow_t *s, hlsnic_dev_t *d);
/* What one synchronisation moved or found. */
typedef struct {
    uint64_t logged_bytes; /* pages the dirty log reported, copied */
    uint64_t vcpu_bytes;   /* pages the guest's CPU changed (not device-only), copied */
    unsigned unlogged;     /* pages that changed with no one allowed to change them unlogged */
    unsigned ambiguous;    /* strict: program memory changed unlogged (the device or a program thread) */
} hyp_sync_t;
/* Bring the shadow up to date: pages that differ from real memory are noted, then every
 * range is REPORTed; reported pages are copied. A page that differs but was not reported is
 * counted in unlogged (named in why) in a CQ ring, or when `strict` (the guest is paused) in
 * the provider's rings; counted in ambiguous (copied, named) when strict in program memory;
 * otherwise it is the guest CPU's write (copied). 0 or -errno of a REPORT. */
int hyp_shadow_sync(hyp_shadow_t *s, hlsnic_dev_t *d, bool strict, hyp_sync_t *out, char *why, size_t cap);

/* ---- hyp_devices.c (the calls that need the provider's function are in hlsnic.h) ---- */
typedef struct {
    uint8_t *b;
    size_t n, cap;
} hyp_buf_t; /* the migration stream as read from the source */
/* Append what the stream holds now (to_end: until the device closes it, at most 60 s).
 * Bytes read, or -errno. */
long hyp_stream_read(int fd, hyp_buf_t *img, bool to_end);

/* ---- hyp_dest_check.c (the destination's function dfn, the source's sfn) ---- */
/* The destination's QueryTag against the source's (DA7): 0 with both tags in why, or -1 with
 * the first difference and both tags in why. */
int hyp_dest_tag_check(hlsnic_dev_t *src, unsigned sfn, hlsnic_dev_t *dst, unsigned dfn, char *why, size_t cap);
/* Wait (at most HYP_ACK_WAIT_MS) for the destination's switch-over acknowledgement of the
 * `written` pre-copy bytes: 0, or -1 with why (refused, or not staged in time). */
int hyp_dest_ack_wait(hlsnic_dev_t *dst, unsigned dfn, uint64_t written, char *why, size_t cap);

/* ---- hyp_converge.c: pre-copy convergence by counters, DevThrottle (seed 004 algorithm 2) ---- */
enum {
    HYP_PRECOPY_MAX = 8,         /* pre-copy passes at most */
    HYP_REMAINDER = 64 * 1024,   /* a pass that left no more than this bytes: converged */
    HYP_GAP_CYCLES = 20000,      /* device cycles the guest runs between two passes */
    HYP_ACK_WAIT_MS = 3000,      /* the destination's switch-over acknowledgement, at most */
};
typedef struct {
    unsigned n;                  /* pre-copy-N */
    uint64_t left;               /* bytes the pass moved: image + guest pages dirty at its start */
    uint32_t throttle;           /* DevThrottle in force during the pass (B/1024 cycles, 0: off) */
    uint64_t write_rate;         /* bytes the device wrote to host memory per 1024 cycles, in it */
    uint32_t throttle_next;      /* DevThrottle set after it */
} hyp_pass_t;
#define HYP_PASSES_MAX 16
typedef struct {
    bool allowed;                /* DevThrottle may be used (HLSNIC_MIGRATE_THROTTLE) */
    uint32_t rate;               /* in force */
    unsigned passes;
    uint64_t left;               /* of the last pass */
    uint64_t written, cyc;       /* the device's host-write counter and cycles at its end */
} hyp_converge_t;
struct hyp_migration;
/* Before the first pass: the counters' start. 0 or -errno. */
int hyp_converge_begin(hyp_converge_t *c, hlsnic_dev_t *d, unsigned fn, bool throttle_allowed);
/* A pass ended having moved `left` bytes, device_bytes of them guest pages in the device's
 * dirty log (first_read: the full pass is read): recorded in m->pass[] with its line on
 * stderr; DevThrottle set when it did not shrink enough and the device made most of it. 1:
 * converged, 0: go on, or -errno of DevThrottle. */
int hyp_converge_pass(hyp_converge_t *c, struct hyp_migration *m, hlsnic_dev_t *d, unsigned fn, bool first_read, uint64_t left,
                      uint64_t device_bytes);
/* One stderr line: converged or not, bytes left, the throttle and its effect. */
void hyp_converge_report(const struct hyp_migration *m);

/* ---- hyp_timeline.c ---- */
typedef struct {
    char name[32];
    uint64_t cyc0, cyc1;       /* guest device time (cycles of every device it ran on) */
    double ms0, ms1;           /* wall time since the hypervisor started */
    uint64_t device_bytes;     /* image bytes moved in this phase */
    uint64_t guest_bytes;      /* guest pages copied into the shadow in this phase */
    uint64_t dest_cycles;      /* cycles the destination's clock ran in this phase (it runs
                                  beside the source from its open to the switch-over) */
} hyp_phase_t;
typedef struct hyp_migration {
    unsigned n;                /* 1, 2, ... */
    char trigger[64];
    unsigned dst_fn;           /* the destination's function (HLSNIC_MIGRATE_FN; default the source's) */
    const char *dst_model;     /* the destination's model, "c" or "rtl" (HLSNIC_MIGRATE_MODEL);
                                  NULL: the source's */
    bool throttle_allowed;     /* HLSNIC_MIGRATE_THROTTLE is not off */
    char result[512];          /* "ok" or what failed */
    hyp_phase_t ph[48];
    unsigned nph;
    uint64_t image_bytes;
    uint64_t down_cyc0, down_cyc1; /* the guest paused */
    uint64_t dest_cycle_base;      /* guest device time at the destination's cycle 0 (0: none) */
    double down_ms0, down_ms1;
    hyp_pass_t pass[HYP_PASSES_MAX]; /* pre-copy, pass by pass */
    unsigned npass;
    bool converged;
    uint64_t throttle_from;    /* the device's write rate in the pass before the first throttle */
} hyp_migration_t;
void hyp_timeline_phase(hyp_migration_t *m, const hyp_phase_t *p); /* record + stderr line */
void hyp_timeline_end(hyp_migration_t *m);                          /* stderr summary */
/* Rewrite FILE with every migration so far as JSON. 0 or -errno. */
int hyp_timeline_json(const char *file, const hyp_migration_t *all, unsigned n);

#endif /* HLSNIC_HYP_H */
