/* mig_timeline.c — the timeline JSON read back (mig_timeline.h). The writer is ours
 * (host-driver/provider/hyp_timeline.c), so the reader follows its layout key by key instead
 * of being a general JSON parser; anything else is refused with the offset where it stopped. */
#include "mig_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *file, char *why, size_t whylen) {
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(why, whylen, "%s: %s", file, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t r; b && (r = fread(b + n, 1, cap - n - 1, f)) > 0;) {
        n += r;
        if (n + 1 == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    if (!b) snprintf(why, whylen, "%s: out of memory", file);
    else b[n] = 0;
    return b;
}

/* the unsigned number after "key": at or after p and before end, or false */
static bool number_after(const char *p, const char *end, const char *key, uint64_t *v) {
    const char *k = strstr(p, key);
    if (!k || k >= end) return false;
    char *e;
    *v = strtoull(k + strlen(key), &e, 10);
    return e != k + strlen(key);
}

static bool parse_phase(const char *p, mig_phase_t *ph) {
    unsigned long long c0, c1, ib, gb, dc;
    double m0, m1;
    int used = 0;
    if (sscanf(p, "{\"name\": \"%31[^\"]\", \"cycles\": [%llu, %llu], \"ms\": [%lf, %lf], \"image_bytes\": %llu, \"guest_bytes\": %llu, \"dest_cycles\": %llu}%n",
               ph->name, &c0, &c1, &m0, &m1, &ib, &gb, &dc, &used) != 8 || !used)
        return false;
    ph->cyc0 = c0, ph->cyc1 = c1, ph->image_bytes = ib, ph->guest_bytes = gb, ph->dest_cycles = dc;
    return true;
}

int mig_timeline_read(const char *file, mig_record_t *out, unsigned cap, char *why, size_t whylen) {
    char *b = slurp(file, why, whylen);
    if (!b) return -1;
    int n = 0;
    const char *bad = NULL, *what = "";
    if (strncmp(b, "{\"migrations\": [", 16)) bad = b, what = "not a migration timeline (no {\"migrations\": [)";
    for (const char *p = strstr(b, "{\"n\": "); p && !bad; n++) {
        const char *next = strstr(p + 1, "{\"n\": "), *end = next ? next : b + strlen(b);
        if ((unsigned)n == cap) { bad = p, what = "more migrations than the reader keeps"; break; }
        mig_record_t *m = &out[n];
        memset(m, 0, sizeof *m);
        uint64_t v;
        static const char paused_key[] = "\"paused\": {\"cycles\": [";
        const char *ok = strstr(p, "\"ok\": "), *paused = strstr(p, paused_key);
        if (!number_after(p, end, "{\"n\": ", &v)) { bad = p, what = "migration number"; break; }
        m->n = (unsigned)v;
        if (!ok || ok >= end) { bad = p, what = "\"ok\""; break; }
        m->ok = !strncmp(ok + 6, "true", 4);
        unsigned long long a, z;
        if (!paused || paused >= end || sscanf(paused + strlen(paused_key), "%llu, %llu]", &a, &z) != 2) { bad = p, what = "\"paused\" cycles"; break; }
        m->paused0 = a, m->paused1 = z;
        if (!number_after(p, end, "\"dest_cycle_base\": ", &m->dest_cycle_base)) {
            bad = p, what = "\"dest_cycle_base\" (a timeline from before the field existed?)";
            break;
        }
        const char *ph = strstr(p, "\"phases\": [");
        if (!ph || ph >= end) { bad = p, what = "\"phases\""; break; }
        for (const char *q = strstr(ph, "{\"name\": "); q && q < end; q = strstr(q + 1, "{\"name\": ")) {
            if (m->nph == sizeof m->ph / sizeof m->ph[0]) { bad = q, what = "more phases than the reader keeps"; break; }
            if (!parse_phase(q, &m->ph[m->nph++])) { bad = q, what = "a phase that is not {name, cycles, ms, image_bytes, guest_bytes, dest_cycles}"; break; }
        }
        p = next;
    }
    if (bad) snprintf(why, whylen, "%s: byte %ld: %s", file, (long)(bad - b), what);
    free(b);
    return bad ? -1 : n;
}
