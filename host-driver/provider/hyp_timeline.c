/* hyp_timeline.c — what each migration did, phase by phase (hyp.h): one stderr line per
 * phase as it ends, a summary line, and the whole history as JSON for tools and plots
 * (format: docs/live-migration.md, "Timeline"). Cycles are the guest's device time: the
 * cycles of every device its function ran on, one after the other; dest_cycle_base is where
 * the destination's own count (its pcap's timestamps) starts in it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hyp.h"

void hyp_timeline_phase(hyp_migration_t *m, const hyp_phase_t *p) {
    if (m->nph < sizeof m->ph / sizeof m->ph[0]) m->ph[m->nph++] = *p;
    fprintf(stderr,
            "hlsnic-hyp: migration %u: %-14s cycles %llu..%llu (+%llu), wall %.1f..%.1f ms (+%.1f), image %llu B, guest pages %llu B, destination +%llu cycles\n",
            m->n, p->name, (unsigned long long)p->cyc0, (unsigned long long)p->cyc1, (unsigned long long)(p->cyc1 - p->cyc0),
            p->ms0, p->ms1, p->ms1 - p->ms0, (unsigned long long)p->device_bytes, (unsigned long long)p->guest_bytes,
            (unsigned long long)p->dest_cycles);
}

void hyp_timeline_end(hyp_migration_t *m) {
    fprintf(stderr, "hlsnic-hyp: migration %u (trigger %s): %s; guest paused %llu cycles, %.1f ms; image %llu B\n", m->n,
            m->trigger, m->result, (unsigned long long)(m->down_cyc1 - m->down_cyc0), m->down_ms1 - m->down_ms0,
            (unsigned long long)m->image_bytes);
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

int hyp_timeline_json(const char *file, const hyp_migration_t *all, unsigned n) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    if (!f) return -errno;
    fprintf(f, "{\"migrations\": [");
    for (unsigned i = 0; i < n; i++) {
        const hyp_migration_t *m = &all[i];
        fprintf(f, "%s\n {\"n\": %u, \"trigger\": ", i ? "," : "", m->n);
        json_str(f, m->trigger);
        fprintf(f, ", \"result\": ");
        json_str(f, m->result);
        fprintf(f, ", \"ok\": %s, \"image_bytes\": %llu, \"paused\": {\"cycles\": [%llu, %llu], \"ms\": [%.3f, %.3f]},\n"
                   "  \"dest_cycle_base\": %llu,\n  \"precopy\": {\"converged\": %s, \"throttle_from\": %llu, \"passes\": [",
                strcmp(m->result, "ok") ? "false" : "true", (unsigned long long)m->image_bytes, (unsigned long long)m->down_cyc0,
                (unsigned long long)m->down_cyc1, m->down_ms0, m->down_ms1, (unsigned long long)m->dest_cycle_base,
                m->converged ? "true" : "false", (unsigned long long)m->throttle_from);
        for (unsigned k = 0; k < m->npass; k++) {
            const hyp_pass_t *p = &m->pass[k];
            fprintf(f, "%s\n   {\"pass\": %u, \"left_bytes\": %llu, \"throttle\": %u, \"write_rate\": %llu, \"throttle_next\": %u}",
                    k ? "," : "", p->n, (unsigned long long)p->left, p->throttle, (unsigned long long)p->write_rate, p->throttle_next);
        }
        fprintf(f, "]},\n  \"phases\": [");
        for (unsigned k = 0; k < m->nph; k++) {
            const hyp_phase_t *p = &m->ph[k];
            fprintf(f, "%s\n   {\"name\": ", k ? "," : "");
            json_str(f, p->name);
            fprintf(f, ", \"cycles\": [%llu, %llu], \"ms\": [%.3f, %.3f], \"image_bytes\": %llu, \"guest_bytes\": %llu, \"dest_cycles\": %llu}",
                    (unsigned long long)p->cyc0, (unsigned long long)p->cyc1, p->ms0, p->ms1,
                    (unsigned long long)p->device_bytes, (unsigned long long)p->guest_bytes, (unsigned long long)p->dest_cycles);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n]}\n");
    int bad = ferror(f);
    if (fclose(f) || bad) return -EIO;
    return rename(tmp, file) ? -errno : 0;
}
