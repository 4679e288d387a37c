/* hyp_converge.c — when pre-copy has converged, and DevThrottle when it does not (hyp.h;
 * seed 004 algorithm 2 and DA9; docs/live-migration.md, "Convergence and DevThrottle").
 *
 * Everything is counted, nothing timed: a pass's "left" is the bytes it had to move (image
 * bytes read from the device's stream plus guest pages copied into the shadow), i.e. what a
 * stop at its start would have moved; the device's write rate is its host-write byte counter
 * over its own cycles. Pre-copy has converged when the first (full) pass is read and a pass
 * from the second on left at most HYP_REMAINDER. From the third pass on (the first two are not
 * alike: the first follows the full copy without a gap) a pass that did not at least halve
 * the one before it, and whose guest pages were mostly the device's (its dirty log's), means
 * the device dirties memory as fast as pre-copy moves it: it is throttled (an RDMA WRITE into
 * the guest uses no vCPU, so throttling vCPUs would not help), first to the rate
 * at which a gap between passes writes at most half the remainder (or half its measured rate
 * when that is lower), then to half the rate in force each time a pass still does not halve. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hlsnic_vfio.h"
#include "hyp.h"

/* the rate at which HYP_GAP_CYCLES of device time write at most half the remainder */
#define TARGET_RATE ((uint32_t)((uint64_t)HYP_REMAINDER / 2 * 1024 / HYP_GAP_CYCLES))
#define FLOOR_RATE 64u /* bytes per 1024 cycles: below this a throttle starves the guest */

static uint64_t dev_cycles(hlsnic_dev_t *d) {
    hlsnic_dev_stats_t st;
    hlsnic_dev_stats(d, &st);
    return st.cycles;
}

int hyp_converge_begin(hyp_converge_t *c, hlsnic_dev_t *d, unsigned fn, bool throttle_allowed) {
    memset(c, 0, sizeof *c);
    c->allowed = throttle_allowed;
    c->cyc = dev_cycles(d);
    return hlsnic_vfio_dev_throttle_get(d, fn, &c->rate, &c->written);
}

static void pass_line(const hyp_migration_t *m, const hyp_pass_t *p) {
    char now[48] = "off", next[64] = "";
    if (p->throttle) snprintf(now, sizeof now, "%u B/1024 cycles", p->throttle);
    if (p->throttle_next != p->throttle) snprintf(next, sizeof next, " -> throttle %u B/1024 cycles", p->throttle_next);
    fprintf(stderr, "hlsnic-hyp: migration %u: pre-copy-%u left %llu B, throttle %s, device wrote %llu B/1024 cycles%s\n", m->n,
            p->n, (unsigned long long)p->left, now, (unsigned long long)p->write_rate, next);
}

int hyp_converge_pass(hyp_converge_t *c, hyp_migration_t *m, hlsnic_dev_t *d, unsigned fn, bool first_read, uint64_t left,
                      uint64_t device_bytes) {
    uint64_t written = 0, cyc = dev_cycles(d);
    uint32_t rate = 0;
    int rc = hlsnic_vfio_dev_throttle_get(d, fn, &rate, &written);
    if (rc) return rc;
    hyp_pass_t *p = &m->pass[m->npass < HYP_PASSES_MAX ? m->npass++ : HYP_PASSES_MAX - 1];
    *p = (hyp_pass_t){.n = ++c->passes, .left = left, .throttle = c->rate};
    p->write_rate = cyc > c->cyc ? (written - c->written) * 1024 / (cyc - c->cyc) : 0;
    c->written = written, c->cyc = cyc;
    bool converged = first_read && p->n >= 2 && left <= HYP_REMAINDER;
    bool shrank = p->n < 3 || left * 2 <= c->left, device_made = device_bytes * 2 >= left;
    c->left = left;
    uint32_t want = c->rate;
    if (!converged && !shrank && device_made && c->allowed) {
        uint32_t half = (uint32_t)(p->write_rate / 2);
        want = c->rate ? c->rate / 2 : half < TARGET_RATE ? half : TARGET_RATE;
        if (want < FLOOR_RATE) want = FLOOR_RATE;
    }
    if (want != c->rate) {
        if ((rc = hlsnic_vfio_dev_throttle(d, fn, want, NULL))) return rc;
        if (!m->throttle_from) m->throttle_from = p->write_rate;
        c->rate = want;
    }
    p->throttle_next = c->rate;
    pass_line(m, p);
    m->converged = converged;
    return converged;
}

void hyp_converge_report(const hyp_migration_t *m) {
    if (!m->npass) return;
    const hyp_pass_t *last = &m->pass[m->npass - 1];
    char thr[160] = "no throttle";
    if (last->throttle)
        snprintf(thr, sizeof thr, "throttled to %u B/1024 cycles: the device wrote %llu B/1024 cycles before, %llu in the last pass",
                 last->throttle, (unsigned long long)m->throttle_from, (unsigned long long)last->write_rate);
    fprintf(stderr, "hlsnic-hyp: migration %u: pre-copy %s %u pass(es), %llu B left (%s %u B); %s\n", m->n,
            m->converged ? "converged in" : "did not converge in", last->n, (unsigned long long)last->left,
            m->converged ? "at most" : "more than", HYP_REMAINDER, thr);
}
