/* hyp_precopy_test.c — what the hypervisor decides before it stops the guest (hyp.h), on real
 * devices without a guest: the migration tag check (DA7), DevThrottle's GET and SET, the
 * convergence policy (hyp_converge.c) pass by pass, and the destination's switch-over
 * acknowledgement of pre-copy data (hyp_dest_check.c). The whole migration under running
 * programs is host-driver/tests/migrate-run (group converge). PASS/FAIL lines; exit 1 on any
 * failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hlsnic_vfio.h"
#include "hyp.h"

static int failures;
static void check(int ok, const char *name, const char *why) {
    if (ok) printf("PASS hyp-precopy/%s\n", name);
    else {
        printf("FAIL hyp-precopy/%s: %s\n", name, why);
        failures++;
    }
}

static hlsnic_dev_t *dev(void) {
    char err[256];
    hlsnic_dev_t *d = hlsnic_dev_open(&(hlsnic_dev_config_t){0}, err, sizeof err);
    if (!d) check(0, "a device opens", err);
    return d;
}

/* ---- the tag (DA7): the rule alone, then two devices' QueryTag ---- */
static void test_tag(void) {
    char why[300] = "";
    const hlsnic_mig_tag_t src = {1, 2, 0x060404};
    static const struct {
        hlsnic_mig_tag_t dst;
        const char *want; /* NULL: taken */
    } cases[] = {
        {{1, 2, 0x060404}, NULL},
        {{1, 3, 0x070505}, NULL},
        {{2, 2, 0x060404}, "image layout version 1, the destination's 2 (must be equal)"},
        {{1, 1, 0x060404}, "feature version 2, the destination's only 1"},
        {{1, 2, 0x060403}, "QP rows per function 16, the destination's only 8"},
        {{1, 2, 0x060304}, "CQ rows per function 16, the destination's only 8"},
        {{1, 2, 0x050404}, "MR rows per function 64, the destination's only 32"},
    };
    int bad = 0;
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        why[0] = 0;
        int rc = hlsnic_mig_tag_check(&src, &cases[i].dst, why, sizeof why);
        if (cases[i].want ? rc != -EINVAL || strcmp(why, cases[i].want) : rc != 0) {
            printf("  case %u: rc %d, '%s'\n", i, rc, why);
            bad++;
        }
    }
    check(!bad, "tag rule: equal or larger destination taken; layout, feature, each table's rows named", "a case differed");
    hlsnic_dev_t *a = dev(), *b = dev();
    if (!a || !b) goto out;
    hlsnic_mig_tag_t t;
    int rc = hlsnic_vfio_mig_tag(a, 0, &t);
    check(!rc && t.layout == 1 && t.feature == 1 && t.capacity == 0x060404, "QueryTag: layout 1, feature 1, 16 QP / 16 CQ / 64 MR rows",
          "another tag");
    rc = hyp_dest_tag_check(a, 0, b, 3, why, sizeof why);
    check(!rc && strstr(why, "destination layout 1 feature 1 capacity 0x060404"), "tag check: function 0 to function 3 of the same model", why);
    rc = hlsnic_vfio_test_qp_rows(b, 8);
    int rc2 = hyp_dest_tag_check(a, 0, b, 3, why, sizeof why);
    check(!rc && rc2 == -1 && strstr(why, "the destination's migration tag does not take the source's image: QP rows per function 16, the destination's only 8"),
          "tag check: a destination of half the QP rows is refused, the difference named", why);
    check(hlsnic_vfio_test_qp_rows(b, 3) == -EINVAL && hlsnic_vfio_test_qp_rows(b, 16) == -EINVAL,
          "test hook: a row count that is not a smaller power of two is refused", "accepted");
out:
    if (a) hlsnic_dev_close(a);
    if (b) hlsnic_dev_close(b);
}

/* ---- DevThrottle and the convergence policy, on an idle device ---- */
static void test_converge(void) {
    hlsnic_dev_t *d = dev();
    if (!d) return;
    uint32_t rate = 99;
    uint64_t w0 = 0, w1 = 1;
    int a = hlsnic_vfio_dev_throttle(d, 0, 1000, &w0), b = hlsnic_vfio_dev_throttle_get(d, 0, &rate, &w1);
    check(!a && !b && rate == 1000 && w1 == w0, "DevThrottle: SET then GET answers the rate and the same host-write counter", "differs");
    hlsnic_vfio_dev_throttle(d, 0, 0, NULL);
    hyp_migration_t *m = calloc(1, sizeof *m);
    hyp_converge_t c;
    /* passes as (left, of it the device's pages, first pass read): the policy's answers */
    static const struct {
        uint64_t left, device;
        bool first_read;
        int want;        /* 1: converged */
        uint32_t rate;   /* DevThrottle in force after the pass */
    } pass[] = {
        {300000, 250000, false, 0, 0},   /* 1: the full pass; no comparison yet */
        {260000, 250000, true, 0, 0},    /* 2: no comparison with pass 1 (no gap before it) */
        {250000, 250000, true, 0, 64},   /* 3: did not halve, the device made it: throttled (idle: half of 0 -> floor) */
        {200000, 20000, true, 0, 64},    /* 4: did not halve, but the CPU made it: unchanged */
        {90000, 90000, true, 0, 64},     /* 5: halved: unchanged */
        {65536, 65536, true, 1, 64},     /* 6: at most the remainder: converged */
    };
    int rc = hyp_converge_begin(&c, d, 0, true), bad = 0;
    for (unsigned i = 0; !rc && i < sizeof pass / sizeof *pass; i++) {
        int got = hyp_converge_pass(&c, m, d, 0, pass[i].first_read, pass[i].left, pass[i].device);
        hlsnic_vfio_dev_throttle_get(d, 0, &rate, &w1);
        if (got != pass[i].want || rate != pass[i].rate || m->pass[i].throttle_next != rate) {
            printf("  pass %u: answered %d, rate %u\n", i + 1, got, rate);
            bad++;
        }
    }
    check(!rc && !bad && m->npass == 6 && m->converged, "converge: throttled only after a non-halving pass the device made; converged at the remainder",
          "a pass differed");
    hyp_converge_report(m);
    /* not allowed (--migrate-throttle off): the same passes never throttle, and a first pass
     * not read yet never converges */
    hlsnic_vfio_dev_throttle(d, 0, 0, NULL);
    memset(m, 0, sizeof *m);
    rc = hyp_converge_begin(&c, d, 0, false);
    bad = 0;
    for (unsigned i = 0; !rc && i < sizeof pass / sizeof *pass; i++) {
        int got = hyp_converge_pass(&c, m, d, 0, false, pass[i].left, pass[i].device);
        hlsnic_vfio_dev_throttle_get(d, 0, &rate, &w1);
        bad += got != 0 || rate != 0;
    }
    check(!rc && !bad && !m->converged, "converge: without DevThrottle nothing is throttled; an unread first pass never converges", "differs");
    free(m);
    hlsnic_dev_close(d);
}

/* ---- the switch-over acknowledgement: a pre-copy pass of function 1 of one device into
 * function 3 of another ---- */
static long read_precopy(int fd, uint8_t *b, size_t cap) {
    size_t n = 0;
    for (unsigned i = 0; i < 200; i++) {
        ssize_t r = read(fd, b + n, cap - n);
        if (r > 0) n += (size_t)r;
        else if (r < 0 && errno == EAGAIN) break;
        else return -1;
    }
    return (long)n;
}

static void test_ack(void) {
    hlsnic_dev_t *s = dev(), *t = dev(), *u = dev();
    uint8_t img[16384];
    char why[300] = "";
    int sfd = -1, tfd = -1, ufd = -1;
    if (!s || !t || !u) goto out;
    int rc = hlsnic_vfio_set_state(s, 1, HLSNIC_MIG_PRE_COPY, &sfd);
    long n = rc ? -1 : read_precopy(sfd, img, sizeof img);
    int r1 = hlsnic_vfio_set_state(t, 3, HLSNIC_MIG_RESUMING, &tfd), r2 = hlsnic_vfio_set_state(u, 3, HLSNIC_MIG_RESUMING, &ufd);
    hlsnic_mig_load_t st;
    int before = hlsnic_vfio_switchover_ack(t, 3, &st);
    check(!rc && n >= 3 * 512 && !r1 && !r2 && before == -EAGAIN && !st.loading, "ack: nothing written yet: not acknowledged", "acknowledged");
    if (n < 3 * 512 || r1 || r2) goto out;
    int w = write(tfd, img, (size_t)n) == n;
    int ack = hyp_dest_ack_wait(t, 3, (uint64_t)n, why, sizeof why);
    hlsnic_vfio_switchover_ack(t, 3, &st);
    check(w && !ack && st.loading && st.full_pass && st.passes == 1, "ack: a full pre-copy pass staged: acknowledged", why);
    img[40] ^= 0x10; /* the header block's CRC fails */
    w = write(ufd, img, (size_t)n) == n;
    ack = hyp_dest_ack_wait(u, 3, (uint64_t)n, why, sizeof why);
    char want[160];
    snprintf(want, sizeof want, "the destination did not acknowledge the switch-over: it refused the pre-copy data (%ld B written, nothing staged)", n);
    check(w && ack == -1 && !strcmp(why, want), "ack: a refused pre-copy pass is named, not waited for", why);
    check(hlsnic_vfio_switchover_ack(s, 1, &st) == -EINVAL, "ack: asked of a function not RESUMING: EINVAL", "answered");
out:
    for (int *fd = (int[]){sfd, tfd, ufd}, i = 0; i < 3; i++)
        if (fd[i] >= 0) close(fd[i]);
    if (s) hlsnic_dev_close(s);
    if (t) hlsnic_dev_close(t);
    if (u) hlsnic_dev_close(u);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_tag();
    test_converge();
    test_ack();
    return failures ? 1 : 0;
}
