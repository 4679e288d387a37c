/* mig_timeline.h — read the hypervisor's migration timeline (hlsnic-run --migrate-timeline
 * FILE; format: docs/live-migration.md, "Timeline") back into C, for the migration bench and
 * its plot. Plain C testbench code. */
#ifndef MIG_TIMELINE_H
#define MIG_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char name[32];
    uint64_t cyc0, cyc1; /* guest device time */
    uint64_t image_bytes, guest_bytes;
    uint64_t dest_cycles; /* the destination's own clock in the phase */
} mig_phase_t;

typedef struct {
    unsigned n;
    bool ok;
    uint64_t paused0, paused1;  /* the guest's downtime, cycles */
    uint64_t dest_cycle_base;   /* the destination's cycle 0 in guest device time */
    mig_phase_t ph[48];
    unsigned nph;
} mig_record_t;

/* Parse FILE into at most cap records. The number read, or -1 with the reason (file and
 * byte offset) in why. */
int mig_timeline_read(const char *file, mig_record_t *out, unsigned cap, char *why, size_t whylen);

#endif
