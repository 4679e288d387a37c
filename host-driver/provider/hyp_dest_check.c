/* hyp_dest_check.c — the destination checked before the guest is stopped (hyp.h;
 * docs/live-migration.md, "Checks before the stop"). A destination that cannot take the image
 * would otherwise say so only at RESUMING -> STOP, after the stop-copy: the guest paused for
 * nothing. So:
 *   - before pre-copy, its migration tag (QueryTag, DA7) must take the source's: the same image
 *     layout, a feature version and every table's rows per function not lower;
 *   - after pre-copy, before the source stops, it must acknowledge the switch-over (QEMU's
 *     switchover-ack): the pre-copy data written into it holds a full pass that its firmware
 *     checked and staged. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hlsnic_vfio.h"
#include "hyp.h"

enum { ACK_POLL_US = 1000, REFUSED_AFTER_MS = 100 };

int hyp_dest_tag_check(hlsnic_dev_t *src, unsigned sfn, hlsnic_dev_t *dst, unsigned dfn, char *why, size_t cap) {
    hlsnic_mig_tag_t s, d;
    char diff[160];
    int rc = hlsnic_vfio_mig_tag(src, sfn, &s);
    if (rc || (rc = hlsnic_vfio_mig_tag(dst, dfn, &d))) {
        snprintf(why, cap, "QueryTag of the %s: %s", rc ? "destination" : "source", strerror(-rc));
        return -1;
    }
    bool ok = !hlsnic_mig_tag_check(&s, &d, diff, sizeof diff);
    snprintf(why, cap, "%s%s%s(source layout %u feature %u capacity 0x%06x, destination layout %u feature %u capacity 0x%06x)",
             ok ? "" : "the destination's migration tag does not take the source's image: ", ok ? "" : diff, ok ? "" : " ",
             s.layout, s.feature, s.capacity, d.layout, d.feature, d.capacity);
    return ok ? 0 : -1;
}

static double mono_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int hyp_dest_ack_wait(hlsnic_dev_t *dst, unsigned dfn, uint64_t written, char *why, size_t cap) {
    hlsnic_mig_load_t st = {0};
    double t0 = mono_ms(), idle_since = 0;
    for (;;) {
        int rc = hlsnic_vfio_switchover_ack(dst, dfn, &st);
        if (!rc) return 0;
        if (rc != -EAGAIN) {
            snprintf(why, cap, "the destination's switch-over acknowledgement: %s", strerror(-rc));
            return -1;
        }
        double now = mono_ms();
        /* everything written was taken and the firmware is not loading: a block was refused
         * (held a while, so a block between the loader's read and the firmware is not taken
         * for a refusal) */
        bool refused = written && !st.unread && !st.loading;
        idle_since = refused ? (idle_since ? idle_since : now) : 0;
        if (refused && now - idle_since >= REFUSED_AFTER_MS) {
            snprintf(why, cap, "the destination did not acknowledge the switch-over: it refused the pre-copy data (%llu B written, nothing staged)",
                     (unsigned long long)written);
            return -1;
        }
        if (now - t0 >= HYP_ACK_WAIT_MS) {
            snprintf(why, cap, "the destination did not acknowledge the switch-over within %d ms: %llu B written, %llu B not taken yet, %u pass(es) staged, %s",
                     HYP_ACK_WAIT_MS, (unsigned long long)written, (unsigned long long)st.unread, st.passes,
                     st.full_pass ? "a pass under way" : "no full pass");
            return -1;
        }
        struct timespec ts = {0, ACK_POLL_US * 1000};
        nanosleep(&ts, NULL);
    }
}
