/* vfio_rules_test.c — the device's VFIO interface held to the rules Linux's uAPI states
 * (include/uapi/linux/vfio.h; docs/live-migration.md "Tests"), one part per rule:
 *
 *   enomsg  pre-copy's temporary end reads as ENOMSG, STOP_COPY's end as read() == 0, never ENOMSG
 *   failed  a failed arc leaves the state the function is truly in: PRE_COPY_P2P -> STOP_COPY
 *           broken after its Suspend-Passive is STOP (and walks back to RUNNING); RUNNING ->
 *           PRE_COPY broken in its first pass is RUNNING; an announce that fails after
 *           Resume-Active is RUNNING
 *   p2p     PRE_COPY_P2P -> RUNNING_P2P ends pre-copy: a stop-copy opened from RUNNING_P2P
 *           carries a full image, which an empty function loads
 *   multi   two functions of device A migrate at once into other slots of device B (fn 0 -> fn 3,
 *           fn 1 -> fn 2) with RC traffic to C; fn 2's commit breaks (ERROR) while fn 3 goes on;
 *           reset of fn 2 leaves it RUNNING and empty, the retried load then commits; reset of a
 *           source function with QPs, CQs and MRs leaves none
 *
 * usage: vfio_rules_test DIR [enomsg|failed|p2p|multi]... (no part: all); PASS/FAIL lines. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev_side.h"
#include "hlsnic_vfio.h"

enum { E = HLSNIC_MIG_ERROR, S = HLSNIC_MIG_STOP, R = HLSNIC_MIG_RUNNING, SC = HLSNIC_MIG_STOP_COPY,
       RS = HLSNIC_MIG_RESUMING, RP = HLSNIC_MIG_RUNNING_P2P, PC = HLSNIC_MIG_PRE_COPY, PP = HLSNIC_MIG_PRE_COPY_P2P };
#define NAME(s) hlsnic_mig_state_name((enum hlsnic_mig_state)(s))

typedef struct {
    uint8_t *b;
    size_t n, cap;
    int end_errno; /* how the last read ended: 0 = read() == 0, else its errno */
} stream_t;

/* Read a save stream through hlsnic_vfio_read until it has nothing more now. */
static void take(int fd, stream_t *o) {
    for (unsigned k = 0; k < 100000; k++) {
        if (o->n + 4096 > o->cap) {
            o->cap = o->cap ? 2 * o->cap : 65536;
            o->b = realloc(o->b, o->cap);
        }
        ssize_t r = hlsnic_vfio_read(fd, o->b + o->n, 4096);
        if (r <= 0) {
            o->end_errno = r == 0 ? 0 : errno;
            return;
        }
        o->n += (size_t)r;
    }
}

static bool put(int fd, const stream_t *img) {
    for (size_t at = 0; at < img->n;) {
        ssize_t w = write(fd, img->b + at, img->n - at);
        if (w <= 0) return false;
        at += (size_t)w;
    }
    return true;
}

static int state_of(hlsnic_dev_t *d, unsigned fn) {
    enum hlsnic_mig_state s = E;
    hlsnic_vfio_get_state(d, fn, &s);
    return s;
}

static hlsnic_dev_t *open_dev(const char *wire, const char *what) {
    char err[256];
    hlsnic_dev_t *d = hlsnic_dev_open(&(hlsnic_dev_config_t){.wire = wire}, err, sizeof err);
    if (!d) check(false, what, "open: %s", err);
    return d;
}

/* RUNNING -> RESUMING on fn, the image written, RESUMING -> STOP: that answer, or 1 when a
 * step before it failed */
static int load(hlsnic_dev_t *d, unsigned fn, const stream_t *img) {
    int wfd = -1, rc = hlsnic_vfio_set_state(d, fn, RS, &wfd);
    bool wrote = !rc && wfd >= 0 && put(wfd, img);
    if (wfd >= 0) close(wfd);
    return wrote ? hlsnic_vfio_set_state(d, fn, S, NULL) : 1;
}

/* ---- enomsg ---- */
static void test_enomsg(void) {
    hlsnic_dev_t *d = open_dev(NULL, "enomsg: open");
    if (!d) return;
    int fd = -1;
    stream_t img = {0};
    int rc = hlsnic_vfio_set_state(d, 1, PC, &fd);
    take(fd, &img);
    size_t first = img.n;
    uint64_t ib = 1, db = 1;
    int rci = hlsnic_vfio_precopy_info(d, 1, &ib, &db);
    img.end_errno = -1;
    take(fd, &img);
    check(!rc && first > 0 && rci == 0 && ib == 0 && db == 0 && img.n == first && img.end_errno == ENOMSG,
          "enomsg: PRE_COPY read to its temporary end answers ENOMSG (PRECOPY_INFO 0 / 0), again after the query",
          "rc %d first %zu info %d initial %lu dirty %lu then %zu bytes, errno %d (%s)", rc, first, rci,
          (unsigned long)ib, (unsigned long)db, img.n, img.end_errno, strerror(img.end_errno));
    rc = hlsnic_vfio_set_state(d, 1, SC, NULL);
    take(fd, &img);
    int end1 = img.end_errno;
    take(fd, &img);
    check(!rc && img.n > first && end1 == 0 && img.end_errno == 0,
          "enomsg: STOP_COPY's end is read() == 0, twice, never ENOMSG", "rc %d bytes %zu ends %d %d", rc, img.n, end1,
          img.end_errno);
    close(fd);
    free(img.b);
    hlsnic_dev_close(d);
}

/* ---- failed arcs ---- */
static void test_failed(void) {
    hlsnic_dev_t *d = open_dev(NULL, "failed: open");
    if (!d) return;
    int fd = -1, fd2 = -1;
    stream_t img = {0};
    /* the Image-Save after Suspend-Passive breaks: the function is frozen, its stream cut */
    int rc = hlsnic_vfio_set_state(d, 1, PC, &fd);
    take(fd, &img);
    int rc2 = hlsnic_vfio_set_state(d, 1, PP, NULL);
    hlsnic_vfio_test_fail_hal(d, 1, HLSNIC_TEST_HAL_CTX_READ, 0);
    int rc3 = hlsnic_vfio_set_state(d, 1, SC, NULL);
    int st = state_of(d, 1);
    check(!rc && !rc2 && rc3 == -EIO && st == S,
          "failed: PRE_COPY_P2P -> STOP_COPY breaking after its Suspend-Passive answers EIO and reports STOP (frozen)",
          "->PC %d ->PP %d ->SC %d state %s", rc, rc2, rc3, NAME(st));
    close(fd);
    rc = hlsnic_vfio_set_state(d, 1, R, NULL);
    check(!rc && state_of(d, 1) == R, "failed: from there the walk back to RUNNING works", "->RUNNING %d state %s", rc,
          NAME(state_of(d, 1)));
    /* the save starts over: a later stop-copy is a whole image an empty function loads */
    stream_t full = {0};
    rc = hlsnic_vfio_set_state(d, 1, SC, &fd);
    take(fd, &full);
    close(fd);
    rc2 = load(d, 2, &full);
    check(!rc && full.end_errno == 0 && !rc2, "failed: RUNNING -> STOP_COPY after it gives an image function 2 loads",
          "->SC %d end %d, %zu bytes, load %d", rc, full.end_errno, full.n, rc2);
    /* RUNNING -> PRE_COPY whose first pass breaks after PreCopy-Start: tracking off again */
    int back = hlsnic_vfio_set_state(d, 1, R, NULL);
    hlsnic_vfio_test_fail_hal(d, 1, HLSNIC_TEST_HAL_CTX_READ, 0);
    rc = hlsnic_vfio_set_state(d, 1, PC, &fd);
    st = state_of(d, 1);
    rc2 = hlsnic_vfio_set_state(d, 1, PC, &fd2);
    check(!back && rc == -EIO && fd < 0 && st == R && !rc2 && fd2 >= 0,
          "failed: RUNNING -> PRE_COPY breaking in its first pass answers EIO, no stream, RUNNING; PRE_COPY then opens",
          "->PC %d fd %d state %s, again %d fd %d", rc, fd, NAME(st), rc2, fd2);
    if (fd2 >= 0) close(fd2);
    /* function 2, loaded: its Resume-Active runs it, then the announce fails */
    hlsnic_vfio_test_fail_hal(d, 2, HLSNIC_TEST_HAL_ANNOUNCE, 0);
    rc = hlsnic_vfio_set_state(d, 2, R, NULL);
    st = state_of(d, 2);
    check(rc == -EIO && st == R, "failed: an announce failing after Resume-Active answers EIO and reports RUNNING (it runs)",
          "->RUNNING %d state %s", rc, NAME(st));
    hlsnic_vfio_reset(d, 1);
    free(img.b);
    free(full.b);
    hlsnic_dev_close(d);
}

/* ---- p2p: PRE_COPY_P2P -> RUNNING_P2P ends pre-copy ---- */
static void test_p2p(void) {
    hlsnic_dev_t *d = open_dev(NULL, "p2p: open");
    if (!d) return;
    int fd = -1, fd2 = -1;
    stream_t pre = {0}, img = {0};
    int rc = hlsnic_vfio_set_state(d, 1, PC, &fd);
    take(fd, &pre);
    int rc2 = hlsnic_vfio_set_state(d, 1, PP, NULL);
    rc2 |= hlsnic_vfio_set_state(d, 1, RP, NULL); /* PRE_COPY_P2P -> RUNNING_P2P: its stream ends */
    take(fd, &pre);
    close(fd);
    int rc3 = hlsnic_vfio_set_state(d, 1, PP, &fd2); /* RUNNING_P2P -> PRE_COPY_P2P: a new stream */
    int rc4 = hlsnic_vfio_set_state(d, 1, SC, NULL);
    take(fd2, &img);
    close(fd2);
    check(!rc && !rc2 && pre.end_errno == 0 && !rc3 && !rc4 && img.end_errno == 0 && img.n > 0,
          "p2p: PRE_COPY -> PRE_COPY_P2P -> RUNNING_P2P ends the first stream; -> PRE_COPY_P2P -> STOP_COPY fills a new one",
          "%d %d end %d; %d %d end %d bytes %zu", rc, rc2, pre.end_errno, rc3, rc4, img.end_errno, img.n);
    hlsnic_dev_t *dst = open_dev(NULL, "p2p: open the destination");
    rc = dst ? load(dst, 2, &img) : 1;
    check(!rc, "p2p: that stop-copy is a full image (pre-copy ended at RUNNING_P2P): another device's function 2 loads it",
          "RESUMING -> STOP %d (%s)", rc, strerror(-rc));
    free(pre.b);
    free(img.b);
    hlsnic_dev_close(dst);
    hlsnic_dev_close(d);
}

/* ---- multi: two functions at once, into other slots, one failing ---- */
/* the QP of side s on (d, fn): the mailbox's QUERY_QP status (0 = there, NIC_CMD_ENOENT = gone) */
static int query_qp(hlsnic_dev_t *d, unsigned fn, const side_t *s) {
    side_t at = *s;
    at.d = d;
    at.fn = fn;
    return command(&at, (nic_cmd_t){.op = NIC_CMD_QUERY_QP, .num = s->qpn}, NULL);
}

/* its CQs and MR: CREATE_CQ / REG_MR of the same numbers find the rows free (then undone) */
static bool cqs_and_mr_gone(hlsnic_dev_t *d, unsigned fn, const side_t *s) {
    side_t at = *s;
    at.d = d;
    at.fn = fn;
    bool ok = true;
    for (int q = SCQ; q <= RCQ; q++) {
        ok &= command(&at, (nic_cmd_t){.op = NIC_CMD_CREATE_CQ, .num = (uint32_t)q, .base = (uintptr_t)s->cq[q], .log = CQ_LOG},
                      NULL) == NIC_CMD_OK;
        command(&at, (nic_cmd_t){.op = NIC_CMD_DESTROY_CQ, .num = (uint32_t)q}, NULL);
    }
    ok &= command(&at, (nic_cmd_t){.op = NIC_CMD_REG_MR, .num = s->key, .base = (uintptr_t)s->mr, .len = MR_LEN, .pd = 7,
                                   .access = ACC},
                  NULL) == NIC_CMD_OK;
    command(&at, (nic_cmd_t){.op = NIC_CMD_DEREG_MR, .num = s->key}, NULL);
    return ok;
}

static void test_multi(const char *dir) {
    char wa[256], wc[256];
    snprintf(wa, sizeof wa, "unix:%s/multia,%s/multic", dir, dir);
    snprintf(wc, sizeof wc, "unix:%s/multic,%s/multia", dir, dir);
    hlsnic_dev_t *da = open_dev(wa, "multi: open A"), *dc = da ? open_dev(wc, "multi: open C") : NULL;
    hlsnic_dev_t *db = dc ? open_dev(NULL, "multi: open B (no port)") : NULL;
    if (!db) goto out;
    /* A's functions 0 and 1, each with an RC QP to its own function of C; exponent-6 timeouts:
     * a frame sent to A's address while no device serves it is resent 65 k cycles later */
    side_t a[2] = {{.name = "A0", .d = da, .fn = 0, .mac = 0x02000a000010ull, .ip = 0x0a000010, .qpn = 0x21, .key = 0x5100, .psn = 100, .timeout = 6},
                   {.name = "A1", .d = da, .fn = 1, .mac = 0x02000a000011ull, .ip = 0x0a000011, .qpn = 0x42, .key = 0x5200, .psn = 300, .timeout = 6}};
    side_t c[2] = {{.name = "C0", .d = dc, .fn = 0, .mac = 0x02000a000020ull, .ip = 0x0a000020, .qpn = 0x63, .key = 0x6100, .psn = 500, .timeout = 6},
                   {.name = "C1", .d = dc, .fn = 1, .mac = 0x02000a000021ull, .ip = 0x0a000021, .qpn = 0x84, .key = 0x6200, .psn = 700, .timeout = 6}};
    int failed_before = failures; /* setup() answers for every check so far: count its own */
    for (int k = 0; k < 2; k++) {
        setup(&a[k], &c[k]);
        setup(&c[k], &a[k]);
        if (failures != failed_before) goto out;
        send_recv(&a[k], &c[k], k ? "multi: before: A1->C1 " : "multi: before: A0->C0 ");
    }
    /* both into pre-copy, both streams read; both destinations RESUMING at once */
    static const unsigned to[2] = {3, 2};
    int fd[2] = {-1, -1}, wfd[2] = {-1, -1}, rc[2], rl[2];
    stream_t img[2] = {{0}, {0}};
    for (int k = 0; k < 2; k++) rc[k] = hlsnic_vfio_set_state(da, a[k].fn, PC, &fd[k]);
    check(!rc[0] && !rc[1] && state_of(da, 0) == PC && state_of(da, 1) == PC,
          "multi: A's functions 0 and 1 both RUNNING -> PRE_COPY at once", "%d %d", rc[0], rc[1]);
    for (int k = 0; k < 2; k++) {
        take(fd[k], &img[k]);
        map_side(db, &a[k]);
        rl[k] = hlsnic_vfio_set_state(db, to[k], RS, &wfd[k]);
    }
    check(!rl[0] && !rl[1] && state_of(db, 3) == RS && state_of(db, 2) == RS,
          "multi: B's functions 3 and 2 both RUNNING -> RESUMING at once", "%d %d", rl[0], rl[1]);
    /* both to PRE_COPY_P2P first (QEMU's order), then both STOP_COPY */
    for (int k = 0; k < 2; k++) rc[k] = hlsnic_vfio_set_state(da, a[k].fn, PP, NULL);
    for (int k = 0; k < 2; k++) {
        rc[k] |= hlsnic_vfio_set_state(da, a[k].fn, SC, NULL);
        take(fd[k], &img[k]);
        close(fd[k]);
    }
    check(!rc[0] && !rc[1] && img[0].end_errno == 0 && img[1].end_errno == 0,
          "multi: both -> PRE_COPY_P2P -> STOP_COPY, both streams read to their end", "%d %d ends %d %d", rc[0], rc[1],
          img[0].end_errno, img[1].end_errno);
    printf("INFO multi: images A0 %zu bytes, A1 %zu bytes\n", img[0].n, img[1].n);
    /* fn 2's commit breaks after a few row writes: hardware failing in the middle of a load */
    hlsnic_vfio_test_fail_hal(db, 2, HLSNIC_TEST_HAL_CTX_WRITE, 6);
    for (int k = 0; k < 2; k++) {
        bool wrote = put(wfd[k], &img[k]);
        close(wfd[k]);
        rl[k] = wrote ? hlsnic_vfio_set_state(db, to[k], S, NULL) : 1;
    }
    check(!rl[0] && state_of(db, 3) == S, "multi: A0 -> B3: the load commits (RESUMING -> STOP)", "%d state %s", rl[0],
          NAME(state_of(db, 3)));
    check(rl[1] == -EIO && state_of(db, 2) == E, "multi: A1 -> B2: its commit breaks: EIO, state ERROR", "%d state %s", rl[1],
          NAME(state_of(db, 2)));
    /* function 2 in ERROR holds up nothing: 3 runs on; then 2 is reset, empty, and loads */
    int rp = hlsnic_vfio_set_state(db, 3, RP, NULL);
    check(!rp && state_of(db, 3) == RP, "multi: B3 STOP -> RUNNING_P2P while B2 is in ERROR", "%d", rp);
    int rr = hlsnic_vfio_reset(db, 2);
    int q = query_qp(db, 2, &a[1]);
    bool gone = cqs_and_mr_gone(db, 2, &a[1]);
    check(!rr && state_of(db, 2) == R && q == NIC_CMD_ENOENT && gone,
          "multi: reset of B2 (ERROR, half loaded): RUNNING, no QP (QUERY_QP ENOENT), its CQ and MR rows free",
          "reset %d state %s QUERY_QP %d rows free %d", rr, NAME(state_of(db, 2)), q, gone);
    rl[1] = load(db, 2, &img[1]);
    check(!rl[1], "multi: A1 -> B2 again after the reset: the load commits", "RESUMING -> STOP %d", rl[1]);
    /* the switch-over of both: B takes A's wire, both to RUNNING, traffic both ways */
    char err[256];
    int moved = hlsnic_dev_wire_move(da, db, err, sizeof err);
    int r3 = hlsnic_vfio_set_state(db, 3, R, NULL), r2 = hlsnic_vfio_set_state(db, 2, R, NULL);
    check(!moved && !r3 && !r2, "multi: B takes A's wire; B3 and B2 -> RUNNING", "move %d (%s) %d %d", moved,
          moved ? err : "", r3, r2);
    for (int k = 0; k < 2; k++) {
        a[k].d = db;
        a[k].fn = to[k];
    }
    send_recv(&a[0], &c[0], "multi: after: B3->C0 ");
    send_recv(&c[0], &a[0], "multi: after: C0->B3 ");
    send_recv(&a[1], &c[1], "multi: after: B2->C1 ");
    send_recv(&c[1], &a[1], "multi: after: C1->B2 ");
    /* the source's function 1, stopped with its QP, CQs and MR: reset leaves none */
    side_t src = a[1];
    int qb = query_qp(da, 1, &src);
    rr = hlsnic_vfio_reset(da, 1);
    q = query_qp(da, 1, &src);
    gone = cqs_and_mr_gone(da, 1, &src);
    check(qb == NIC_CMD_OK && !rr && state_of(da, 1) == R && q == NIC_CMD_ENOENT && gone,
          "multi: reset of A1 (STOP, with a QP, 2 CQs, an MR): RUNNING, QUERY_QP ENOENT, its CQ and MR rows free",
          "QUERY_QP before %d, reset %d state %s, QUERY_QP after %d, rows free %d", qb, rr, NAME(state_of(da, 1)), q, gone);
    for (int k = 0; k < 2; k++) free(img[k].b);
out:
    hlsnic_dev_close(db);
    hlsnic_dev_close(dc);
    hlsnic_dev_close(da);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: vfio_rules_test DIR [enomsg|failed|p2p|multi]...\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a killed run still shows how far it got */
    bool all = argc == 2;
    for (int i = 2; i < argc || all; i++) {
        const char *t = all ? NULL : argv[i];
        if (all || !strcmp(t, "enomsg")) test_enomsg();
        if (all || !strcmp(t, "failed")) test_failed();
        if (all || !strcmp(t, "p2p")) test_p2p();
        if (all || !strcmp(t, "multi")) test_multi(argv[1]);
        if (all) break;
    }
    return failures ? 1 : 0;
}
