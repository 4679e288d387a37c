/* hyp_shadow.c — the shadow copy of the guest's device-reachable memory (hyp.h).
 *
 * A hypervisor trusts the device's dirty log to tell which guest pages the device wrote
 * behind the vCPUs' backs. Here the guest stays in this process, so the log can be checked
 * instead of trusted: the shadow starts as a full copy, takes a page from real memory only
 * when the log reports it, and is compared with real memory at switch-over. A page the device
 * wrote but did not log differs; the comparison names it (docs/live-migration.md, "The shadow
 * check"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hlsnic_vfio.h"
#include "hyp.h"

static int by_va(const void *a, const void *b) {
    const hyp_shadow_range_t *x = a, *y = b;
    return x->va < y->va ? -1 : x->va > y->va;
}

/* The page-aligned ranges of the mappings, merged where they overlap (not where they only
 * touch: a CQ ring next to an MR keeps its own range, so it stays "device only"). */
static int gather(hyp_shadow_t *s, const hyp_ram_t *ram) {
    hyp_shadow_range_t *r = calloc(ram->n ? ram->n : 1, sizeof *r);
    if (!r) return -ENOMEM;
    for (size_t i = 0; i < ram->n; i++) {
        uintptr_t a = ram->m[i].va & ~(uintptr_t)(HYP_PAGE - 1);
        uintptr_t b = (ram->m[i].va + ram->m[i].len + HYP_PAGE - 1) & ~(uintptr_t)(HYP_PAGE - 1);
        r[i] = (hyp_shadow_range_t){.va = a, .len = b - a, .device_only = ram->m[i].kind == HYP_RAM_DEVICE_ONLY,
                                    .program = ram->m[i].kind == HYP_RAM_SHARED};
    }
    qsort(r, ram->n, sizeof *r, by_va);
    unsigned n = 0;
    for (size_t i = 0; i < ram->n; i++) {
        if (n && r[i].va < r[n - 1].va + r[n - 1].len) {
            hyp_shadow_range_t *p = &r[n - 1];
            uintptr_t end = r[i].va + r[i].len > p->va + p->len ? r[i].va + r[i].len : p->va + p->len;
            p->len = end - p->va;
            p->device_only = p->device_only && r[i].device_only;
            p->program = p->program || r[i].program;
        } else {
            r[n++] = r[i];
        }
    }
    s->r = r;
    s->n = n;
    return n > HLSNIC_DMA_LOG_MAX_RANGES ? -E2BIG : 0;
}

int hyp_shadow_build(hyp_shadow_t *s, const hyp_ram_t *ram, uint64_t *bytes) {
    memset(s, 0, sizeof *s);
    int rc = gather(s, ram);
    size_t most = 0;
    *bytes = 0;
    for (unsigned i = 0; rc == 0 && i < s->n; i++) {
        if (!(s->r[i].copy = malloc(s->r[i].len))) rc = -ENOMEM;
        *bytes += s->r[i].len;
        if (s->r[i].len > most) most = s->r[i].len;
    }
    size_t words = (most / HYP_PAGE + 63) / 64 + 1;
    if (rc == 0 && (!(s->bitmap = calloc(words, 8)) || !(s->diff = calloc(words, 8)))) rc = -ENOMEM;
    if (rc) hyp_shadow_free(s);
    return rc;
}

void hyp_shadow_free(hyp_shadow_t *s) {
    for (unsigned i = 0; i < s->n; i++) free(s->r[i].copy);
    free(s->r);
    free(s->bitmap);
    free(s->diff);
    memset(s, 0, sizeof *s);
}

/* The log first, then the copy (as a hypervisor starts dirty logging before it copies RAM):
 * a device write that lands while the copy is taken is in the log, and one before it is in the
 * copy. Copied first, a CQE written between the copy and the START was in neither, and the
 * shadow check called it the device's unlogged write (seen once in mig_verbs random). */
int hyp_shadow_log_start(hyp_shadow_t *s, hlsnic_dev_t *d) {
    if (!s->n) return 0; /* nothing mapped: nothing the device could write */
    hlsnic_dma_range_t *r = calloc(s->n, sizeof *r);
    if (!r) return -ENOMEM;
    for (unsigned i = 0; i < s->n; i++) r[i] = (hlsnic_dma_range_t){s->r[i].va, s->r[i].len};
    uint64_t ps = HYP_PAGE;
    int rc = hlsnic_dma_logging_start(d, r, s->n, &ps);
    free(r);
    for (unsigned i = 0; rc == 0 && i < s->n; i++) memcpy(s->r[i].copy, (const void *)s->r[i].va, s->r[i].len);
    return rc;
}

/* One pass over a range: which pages differ from the shadow (before the REPORT, so a write
 * that lands between the two is in the REPORT if it was logged), then the REPORT: a reported
 * page is copied (the log's work). A differing page the log did not report:
 *   - in a CQ ring (only the device writes it): the device's unlogged write, an error;
 *   - while the guest runs (not strict), elsewhere: the guest CPU's write, copied;
 *   - after the pause (strict), in the provider's rings (written only inside the gate): an
 *     error; in the program's own memory: ambiguous (the device, or a program thread writing
 *     its memory outside a verbs call, which the gate does not stop), copied and named. */
static void name_page(char *why, size_t cap, size_t *used, unsigned nth, const hyp_shadow_range_t *r, size_t p, size_t off) {
    if (nth >= 4 || *used >= cap) return;
    int w = snprintf(why + *used, cap - *used, "%spage 0x%lx (%s, first differing byte +0x%zx)", nth ? "; " : "",
                     (unsigned long)(r->va + p * HYP_PAGE),
                     r->device_only ? "a CQ ring" : r->program ? "the program's memory" : "a work queue ring", off);
    if (w > 0) *used += (size_t)w;
}

static int sync_range(hyp_shadow_range_t *r, hlsnic_dev_t *d, uint64_t *diff, uint64_t *rep, bool strict,
                      hyp_sync_t *out, char *why, size_t cap, size_t *used) {
    size_t pages = r->len / HYP_PAGE;
    memset(diff, 0, (pages + 63) / 64 * 8);
    for (size_t p = 0; p < pages; p++)
        if (memcmp((const void *)(r->va + p * HYP_PAGE), r->copy + p * HYP_PAGE, HYP_PAGE)) diff[p / 64] |= 1ull << (p % 64);
    int rc = hlsnic_dma_logging_report(d, r->va, r->len, HYP_PAGE, rep);
    if (rc) return rc;
    for (size_t p = 0; p < pages; p++) {
        const uint8_t *real = (const uint8_t *)(r->va + p * HYP_PAGE);
        uint8_t *copy = r->copy + p * HYP_PAGE;
        bool reported = rep[p / 64] >> (p % 64) & 1, differs = diff[p / 64] >> (p % 64) & 1;
        if (reported) {
            memcpy(copy, real, HYP_PAGE);
            out->logged_bytes += HYP_PAGE;
            continue;
        }
        if (!differs) continue;
        size_t off = 0;
        while (off < HYP_PAGE && real[off] == copy[off]) off++;
        if (r->device_only || (strict && !r->program)) {
            name_page(why, cap, used, out->unlogged + out->ambiguous, r, p, off);
            out->unlogged++;
            continue;
        }
        if (strict) {
            name_page(why, cap, used, out->unlogged + out->ambiguous, r, p, off);
            out->ambiguous++;
        } else {
            out->vcpu_bytes += HYP_PAGE;
        }
        memcpy(copy, real, HYP_PAGE);
    }
    return 0;
}

int hyp_shadow_sync(hyp_shadow_t *s, hlsnic_dev_t *d, bool strict, hyp_sync_t *out, char *why, size_t cap) {
    size_t used = 0;
    memset(out, 0, sizeof *out);
    if (cap) why[0] = 0;
    for (unsigned i = 0; i < s->n; i++) {
        int rc = sync_range(&s->r[i], d, s->diff, s->bitmap, strict, out, why, cap, &used);
        if (rc) return rc;
    }
    return 0;
}
