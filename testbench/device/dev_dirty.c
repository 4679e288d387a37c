/* dev_dirty.c — DMA dirty-page logging: which pages of host memory the NIC wrote, in the
 * shape of VFIO_DEVICE_FEATURE_DMA_LOGGING_START / REPORT / STOP (hlsnic_vfio.h;
 * docs/live-migration.md).
 *
 * The log is kept where the writes happen: dev_dma_write (hostmem's backend) calls
 * dev_dirty_note for every write it applies, under the device lock, so a write is in the log
 * before any REPORT can run (REPORT takes the same lock). One bit per page of each range, at
 * the page size START settled; a write outside every range is not logged (the hypervisor
 * asked only for these). */
#include "dev_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool pow2_page(uint64_t p) { return p >= 4096 && !(p & (p - 1)); }
static unsigned log2u64(uint64_t p) { return (unsigned)__builtin_ctzll(p); }

static void set_bit(uint64_t *bits, uint64_t i) { bits[i / 64] |= 1ull << (i % 64); }
static bool test_bit(const uint64_t *bits, uint64_t i) { return bits[i / 64] >> (i % 64) & 1; }
static void clear_bit(uint64_t *bits, uint64_t i) { bits[i / 64] &= ~(1ull << (i % 64)); }

static void free_ranges(dev_dirty_t *l) {
    for (unsigned i = 0; i < l->n; i++) free(l->r[i].bits);
    free(l->r);
    l->r = NULL;
    l->n = 0;
    l->active = false;
}

void dev_dirty_free(hlsnic_dev_t *d) { free_ranges(&d->dirty); }

void dev_dirty_note(hlsnic_dev_t *d, uint64_t addr, size_t len) {
    dev_dirty_t *l = &d->dirty;
    if (!l->active || !len) return;
    uint64_t end = addr + len; /* dev_dma_write refused wrapping accesses */
    if (l->skip_armed && addr >> l->shift <= l->skip_page && (end - 1) >> l->shift >= l->skip_page) {
        l->skip_armed = false; /* the test hook: this one write goes unlogged */
        return;
    }
    if (addr < l->skip_hi && end > l->skip_lo) return; /* the test hook: the range goes unlogged */
    for (unsigned i = 0; i < l->n; i++) {
        const dev_log_range_t *r = &l->r[i];
        uint64_t a = addr > r->iova ? addr : r->iova, b = end < r->iova + r->length ? end : r->iova + r->length;
        for (uint64_t p = (a - r->iova) >> l->shift; a < b && p <= (b - 1 - r->iova) >> l->shift; p++) set_bit(r->bits, p);
    }
}

int hlsnic_dma_logging_start(hlsnic_dev_t *d, const hlsnic_dma_range_t *ranges, unsigned n, uint64_t *page_size) {
    if (!n || !ranges || !page_size || !pow2_page(*page_size)) return -EINVAL;
    if (n > HLSNIC_DMA_LOG_MAX_RANGES) return -E2BIG;
    uint64_t ps = *page_size;
    for (unsigned i = 0; i < n; i++) {
        const hlsnic_dma_range_t *a = &ranges[i];
        if (a->iova % ps || a->length % ps || !a->length) return -EINVAL;
        if (a->iova + a->length < a->iova) return -EOVERFLOW;
        for (unsigned j = 0; j < i; j++)
            if (a->iova < ranges[j].iova + ranges[j].length && ranges[j].iova < a->iova + a->length) return -EINVAL;
    }
    dev_log_range_t *r = calloc(n, sizeof *r);
    if (!r) return -ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        r[i].iova = ranges[i].iova;
        r[i].length = ranges[i].length;
        uint64_t pages = ranges[i].length / ps;
        if (!(r[i].bits = calloc((pages + 63) / 64, 8))) {
            for (unsigned j = 0; j < i; j++) free(r[j].bits);
            free(r);
            return -ENOMEM;
        }
    }
    dev_lock(d);
    int rc = 0;
    if (d->dirty.active) {
        rc = -EBUSY;
        for (unsigned i = 0; i < n; i++) free(r[i].bits);
        free(r);
    } else {
        d->dirty = (dev_dirty_t){.active = true, .shift = log2u64(ps), .r = r, .n = n};
    }
    pthread_mutex_unlock(&d->mu);
    return rc;
}

/* Report pages [iova, iova + length) at page size ps into bitmap, clearing the log's pages that
 * lie wholly inside the window (one that sticks out keeps its bit: over-reporting later is
 * allowed, losing a write is not). */
int hlsnic_dma_logging_report(hlsnic_dev_t *d, uint64_t iova, uint64_t length, uint64_t page_size, uint64_t *bitmap) {
    if (!pow2_page(page_size) || !bitmap) return -EINVAL;
    if (iova + length < iova) return -EOVERFLOW;
    uint64_t bits = (length + page_size - 1) / page_size, end = iova + length;
    memset(bitmap, 0, (bits + 63) / 64 * 8);
    dev_lock(d);
    dev_dirty_t *l = &d->dirty;
    int rc = l->active ? 0 : -EINVAL;
    uint64_t lp = 1ull << l->shift;
    for (unsigned i = 0; rc == 0 && i < l->n; i++) {
        dev_log_range_t *r = &l->r[i];
        uint64_t a = iova > r->iova ? iova : r->iova, b = end < r->iova + r->length ? end : r->iova + r->length;
        if (a >= b) continue;
        for (uint64_t p = (a - r->iova) >> l->shift; p <= (b - 1 - r->iova) >> l->shift; p++) {
            if (!test_bit(r->bits, p)) continue;
            uint64_t pa = r->iova + p * lp, pb = pa + lp;
            uint64_t ca = pa > iova ? pa : iova, cb = pb < end ? pb : end;
            for (uint64_t q = (ca - iova) / page_size; q <= (cb - 1 - iova) / page_size; q++) set_bit(bitmap, q);
            if (pa >= iova && pb <= end) clear_bit(r->bits, p);
        }
    }
    pthread_mutex_unlock(&d->mu);
    return rc;
}

int hlsnic_dma_logging_stop(hlsnic_dev_t *d) {
    dev_lock(d);
    int rc = d->dirty.active ? 0 : -EINVAL;
    free_ranges(&d->dirty);
    d->dirty.skip_armed = false;
    d->dirty.skip_lo = d->dirty.skip_hi = 0;
    pthread_mutex_unlock(&d->mu);
    return rc;
}

void hlsnic_dma_logging_test_skip(hlsnic_dev_t *d, uint64_t iova) {
    dev_lock(d);
    d->dirty.skip_armed = d->dirty.active;
    d->dirty.skip_page = iova >> d->dirty.shift;
    pthread_mutex_unlock(&d->mu);
}

void hlsnic_dma_logging_test_skip_range(hlsnic_dev_t *d, uint64_t iova, uint64_t length) {
    dev_lock(d);
    bool on = d->dirty.active && length && iova + length > iova;
    d->dirty.skip_lo = on ? iova : 0;
    d->dirty.skip_hi = on ? iova + length : 0;
    pthread_mutex_unlock(&d->mu);
}
