/* hyp_trigger.c — when the hypervisor migrates the guest's function (hyp.h;
 * docs/live-migration.md, "Options"). Read once, when the provider opens the device:
 *
 *   HLSNIC_MIGRATE_AT=WHEN[,WHEN...]  WHEN = device cycles (guest device time, counted across
 *                                     migrations), seconds since the open with an `s` suffix, or
 *                                     Ethernet frames the function sent with an `f` suffix
 *                                     (counted across migrations: a point inside the traffic
 *                                     whatever the machine's speed or the peer's pace)
 *   HLSNIC_MIGRATE_CTL=PATH           a unix stream socket: a client writes "migrate\n" and
 *                                     reads one line back, "ok migration N" or "error ..."
 *   HLSNIC_MIGRATE_TIMELINE=FILE      every migration so far as JSON, rewritten after each
 *   HLSNIC_MIGRATE_FN=N               the destination's function (default: the source's)
 *   HLSNIC_MIGRATE_MODEL=M[,M...]     M = c or rtl: the destination's model for the first,
 *                                     second, ... migration (past the list, and by default:
 *                                     the model the guest runs on)
 *   HLSNIC_MIGRATE_THROTTLE=on|off    DevThrottle when pre-copy does not converge (default on)
 *
 * With none of the first two nothing runs. Otherwise one thread watches both and runs the
 * migrations one after the other. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hlsnic.h"

enum { WHEN_MAX = 64, POLL_MS = 5 };

enum when_unit { WHEN_CYCLES, WHEN_SECONDS, WHEN_FRAMES };

typedef struct {
    enum when_unit unit;
    bool fired;
    double at;
    char text[32];
} hyp_when_t;

struct hyp_ctl {
    hlsnic_fn_t *f;
    pthread_t thread;
    int stop_fd, listen_fd;
    char ctl_path[108];
    const char *timeline;
    int dst_fn;                /* -1: the source's */
    const char *models[WHEN_MAX]; /* HLSNIC_MIGRATE_MODEL: migration n's destination model */
    unsigned nmodels;
    bool throttle;
    hyp_when_t when[WHEN_MAX];
    unsigned nwhen;
    hyp_migration_t *hist;
    unsigned nhist;
    double t0;
};

static int parse_when(hlsnic_fn_t *f, const char *s, struct hyp_ctl *c) {
    char *copy = strdup(s), *save = NULL;
    if (!copy) return ENOMEM;
    int e = 0;
    for (char *w = strtok_r(copy, ",", &save); w && !e; w = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(w, &end);
        enum when_unit unit = !*end ? WHEN_CYCLES : !strcmp(end, "s") ? WHEN_SECONDS : WHEN_FRAMES;
        bool integer = !strchr(w, '.') && !strchr(w, 'e') && !strchr(w, 'E');
        if (end == w || (*end && strcmp(end, "s") && strcmp(end, "f")) || v < 0 || (unit != WHEN_SECONDS && !integer)) {
            hlsnic_log(f, "HLSNIC_MIGRATE_AT='%s': '%s' is neither device cycles (an integer), seconds (a number and 's') nor frames sent (an integer and 'f')", s, w);
            e = EINVAL;
        } else if (c->nwhen == WHEN_MAX) {
            hlsnic_log(f, "HLSNIC_MIGRATE_AT='%s': more than %d migrations", s, WHEN_MAX);
            e = EINVAL;
        } else {
            hyp_when_t *h = &c->when[c->nwhen++];
            *h = (hyp_when_t){.unit = unit, .at = v};
            snprintf(h->text, sizeof h->text, "%s", w);
        }
    }
    free(copy);
    return e;
}

/* HLSNIC_MIGRATE_MODEL: 0 or EINVAL (named on stderr) */
static int parse_models(hlsnic_fn_t *f, struct hyp_ctl *c) {
    const char *list = getenv("HLSNIC_MIGRATE_MODEL");
    if (!list || !*list) return 0;
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        const char *m = n == 1 && !strncmp(p, "c", 1) ? "c" : n == 3 && !strncmp(p, "rtl", 3) ? "rtl" : NULL;
        if (!m || c->nmodels == WHEN_MAX) {
            hlsnic_log(f, "HLSNIC_MIGRATE_MODEL='%s': %s", list, m ? "more models than migrations (64)" : "each entry is c or rtl");
            return EINVAL;
        }
        c->models[c->nmodels++] = m;
        if (!p[n]) return 0;
        p += n + 1;
    }
}

/* HLSNIC_MIGRATE_FN, HLSNIC_MIGRATE_MODEL and HLSNIC_MIGRATE_THROTTLE: 0 or EINVAL (named
 * on stderr) */
static int parse_policy(hlsnic_fn_t *f, struct hyp_ctl *c) {
    const char *fn = getenv("HLSNIC_MIGRATE_FN"), *thr = getenv("HLSNIC_MIGRATE_THROTTLE");
    int e = parse_models(f, c);
    if (e) return e;
    c->dst_fn = -1;
    c->throttle = true;
    if (fn && *fn) {
        char *end;
        unsigned long v = strtoul(fn, &end, 10);
        if (*end || v >= NIC_FNS || *fn == '-') {
            hlsnic_log(f, "HLSNIC_MIGRATE_FN='%s': not a function number 0..%d", fn, NIC_FNS - 1);
            return EINVAL;
        }
        c->dst_fn = (int)v;
    }
    if (thr && *thr) {
        if (strcmp(thr, "on") && strcmp(thr, "off")) {
            hlsnic_log(f, "HLSNIC_MIGRATE_THROTTLE='%s': not on or off", thr);
            return EINVAL;
        }
        c->throttle = !strcmp(thr, "on");
    }
    return 0;
}

static int open_ctl(hlsnic_fn_t *f, const char *path, struct hyp_ctl *c) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        hlsnic_log(f, "HLSNIC_MIGRATE_CTL='%s': a unix socket path is at most %zu bytes", path, sizeof a.sun_path - 1);
        return EINVAL;
    }
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 4)) {
        int e = errno;
        hlsnic_log(f, "HLSNIC_MIGRATE_CTL='%s': %s", path, strerror(e));
        if (fd >= 0) close(fd);
        return e;
    }
    c->listen_fd = fd;
    snprintf(c->ctl_path, sizeof c->ctl_path, "%s", path);
    return 0;
}

static hyp_migration_t *run_one(struct hyp_ctl *c, const char *trigger) {
    hyp_migration_t *h = realloc(c->hist, (c->nhist + 1) * sizeof *h);
    if (!h) return NULL;
    c->hist = h;
    hyp_migration_t *m = &h[c->nhist++];
    memset(m, 0, sizeof *m);
    m->n = c->nhist;
    snprintf(m->trigger, sizeof m->trigger, "%s", trigger);
    m->dst_fn = c->dst_fn < 0 ? c->f->fn : (unsigned)c->dst_fn;
    m->dst_model = m->n <= c->nmodels ? c->models[m->n - 1] : NULL;
    m->throttle_allowed = c->throttle;
    hyp_migrate(c->f, m, c->t0);
    if (c->timeline) {
        int rc = hyp_timeline_json(c->timeline, c->hist, c->nhist);
        if (rc) hlsnic_log(c->f, "migration timeline %s: %s", c->timeline, strerror(-rc));
    }
    return m;
}

/* One client: a line in, a line out; a client that says nothing within a second is dropped. */
static void serve_client(struct hyp_ctl *c, int cfd) {
    char line[64] = "", out[700];
    size_t n = 0;
    struct pollfd p = {.fd = cfd, .events = POLLIN};
    while (n < sizeof line - 1 && !strchr(line, '\n') && poll(&p, 1, 1000) == 1) {
        ssize_t r = read(cfd, line + n, sizeof line - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        line[n] = 0;
    }
    line[strcspn(line, "\r\n")] = 0;
    if (!strcmp(line, "migrate")) {
        hyp_migration_t *m = run_one(c, "control");
        if (!m) snprintf(out, sizeof out, "error: out of memory\n");
        else if (!strcmp(m->result, "ok")) snprintf(out, sizeof out, "ok migration %u\n", m->n);
        else snprintf(out, sizeof out, "error migration %u: %s\n", m->n, m->result);
    } else {
        snprintf(out, sizeof out, "error: unknown command '%.40s' (the only command is 'migrate')\n", line);
    }
    ssize_t w = write(cfd, out, strlen(out));
    (void)w;
}

static void *ctl_main(void *arg) {
    struct hyp_ctl *c = arg;
    struct pollfd p[2] = {{.fd = c->stop_fd, .events = POLLIN}, {.fd = c->listen_fd, .events = POLLIN}};
    for (;;) {
        int r = poll(p, c->listen_fd >= 0 ? 2 : 1, POLL_MS);
        if (r < 0 && errno != EINTR) break;
        if (p[0].revents) break;
        if (c->listen_fd >= 0 && (p[1].revents & POLLIN)) {
            int cfd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
            if (cfd >= 0) {
                serve_client(c, cfd);
                close(cfd);
            }
        }
        if (!c->nwhen) continue;
        hlsnic_dev_stats_t st;
        hlsnic_dev_stats(c->f->dev, &st);
        double now[] = {[WHEN_CYCLES] = (double)(c->f->cycle_base + st.cycles),
                        [WHEN_SECONDS] = (hyp_now_ms() - c->t0) / 1e3,
                        [WHEN_FRAMES] = (double)(c->f->frame_base + st.tx_frames)};
        for (unsigned i = 0; i < c->nwhen; i++) {
            hyp_when_t *w = &c->when[i];
            if (w->fired || now[w->unit] < w->at) continue;
            w->fired = true;
            run_one(c, w->text);
            break; /* the clock moved: look again */
        }
    }
    return NULL;
}

int hyp_ctl_start(hlsnic_fn_t *f) {
    const char *at = getenv("HLSNIC_MIGRATE_AT"), *ctl = getenv("HLSNIC_MIGRATE_CTL");
    if ((!at || !*at) && (!ctl || !*ctl)) return 0;
    struct hyp_ctl *c = calloc(1, sizeof *c);
    if (!c) return ENOMEM;
    c->f = f;
    c->listen_fd = -1;
    c->t0 = hyp_now_ms();
    c->timeline = getenv("HLSNIC_MIGRATE_TIMELINE");
    int e = parse_policy(f, c);
    if (!e && at && *at) e = parse_when(f, at, c);
    if (!e && ctl && *ctl) e = open_ctl(f, ctl, c);
    if (!e && (c->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) e = errno;
    if (!e && (e = pthread_create(&c->thread, NULL, ctl_main, c))) close(c->stop_fd);
    if (e) {
        if (c->listen_fd >= 0) {
            close(c->listen_fd);
            unlink(c->ctl_path);
        }
        free(c);
        return e;
    }
    f->hyp = c;
    return 0;
}

void hyp_ctl_stop(hlsnic_fn_t *f) {
    struct hyp_ctl *c = f->hyp;
    if (!c) return;
    uint64_t one = 1;
    if (write(c->stop_fd, &one, sizeof one) != sizeof one) hlsnic_log(f, "cannot stop the migration thread");
    pthread_join(c->thread, NULL);
    hlsnic_dev_stats_t st;
    hlsnic_dev_stats(f->dev, &st);
    unsigned pending = 0;
    for (unsigned i = 0; i < c->nwhen; i++) pending += !c->when[i].fired;
    fprintf(stderr, "hlsnic-hyp: closed after %u migration(s) at %llu cycles, %llu frames sent, %.1f s%s\n", c->nhist,
            (unsigned long long)(f->cycle_base + st.cycles), (unsigned long long)(f->frame_base + st.tx_frames),
            (hyp_now_ms() - c->t0) / 1e3,
            pending ? " (some --migrate-at points were never reached)" : "");
    close(c->stop_fd);
    if (c->listen_fd >= 0) {
        close(c->listen_fd);
        unlink(c->ctl_path);
    }
    free(c->hist);
    free(c);
    f->hyp = NULL;
}
