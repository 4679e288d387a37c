/* dev_dma.c — device DMA into this process's memory (docs/device.md, "DMA").
 *
 * IOVA = virtual address, but only inside the ranges the driver mapped with
 * hlsnic_dev_dma_map (on a real host: pinned pages behind the IOMMU). An access must lie
 * wholly inside the union of the mappings; otherwise it is refused whole (hostmem answers a
 * read with one err beat and drops a write), counted, and the first one is kept as text.
 *
 * These run on the clock thread with d->mu held (hostmem calls them from nic_tb_step), and
 * mappings change only with d->mu held, so a range the driver unmapped is never touched
 * again once hlsnic_dev_dma_unmap has returned — not even by a posted write accepted before.
 *
 * Visibility to other threads (the driver polls CQEs in its memory while we write them):
 * hostmem applies posted writes in acceptance order (PCIe ordering), and each write is stored
 * here in ascending address order with release stores. So a thread that reads a byte with an
 * acquire load (or reads it and then issues a read barrier, as a driver does after seeing a
 * CQE's owner bit) sees every byte of that write below it and every earlier write whole: the
 * data a completion reports is visible before the CQE that reports it, and a CQE's bytes 0..22
 * before its owner byte (offset 23). Reads need no more than an acquire fence: what the
 * driver wrote before ringing a doorbell was published by the MMIO call's mutex. */
#include "dev_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is [addr, addr+len) covered by the union of the mappings? Mappings may overlap (two MRs on
 * one page); walk forward from addr taking the furthest end of any mapping that holds it. */
static bool covered(const hlsnic_dev_t *d, uint64_t addr, uint64_t len) {
    uint64_t cur = addr, end = addr + len;
    if (len == 0 || end < addr) return false;
    while (cur < end) {
        uint64_t best = cur;
        for (size_t i = 0; i < d->nmaps; i++) {
            const dev_map_t *m = &d->maps[i];
            if (cur >= m->addr && cur - m->addr < m->len && m->addr + m->len > best) best = m->addr + m->len;
        }
        if (best == cur) return false;
        cur = best;
    }
    return true;
}

static void fault(hlsnic_dev_t *d, const char *what, uint64_t addr, size_t len) {
    d->st.dma_faults++;
    if (d->has_fault) return;
    snprintf(d->fault, sizeof d->fault, "cycle %llu: %s 0x%llx+%zu outside every mapping",
             (unsigned long long)nic_tb_now(d->tb), what, (unsigned long long)addr, len);
    d->has_fault = true;
}

int dev_dma_read(void *ctx, uint64_t addr, void *buf, size_t len) {
    hlsnic_dev_t *d = ctx;
    if (!covered(d, addr, len)) {
        fault(d, "read", addr, len);
        return -1;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    memcpy(buf, (const void *)(uintptr_t)addr, len);
    d->st.dma_reads++;
    return 0;
}

int dev_dma_write(void *ctx, uint64_t addr, const void *data, size_t len) {
    hlsnic_dev_t *d = ctx;
    if (!covered(d, addr, len)) {
        fault(d, "write", addr, len);
        return -1;
    }
    uint8_t *dst = (uint8_t *)(uintptr_t)addr;
    const uint8_t *src = data;
    size_t i = 0;
    /* ascending, release: see the comment at the top */
    for (; i < len && ((uintptr_t)(dst + i) & 7); i++) __atomic_store_n(dst + i, src[i], __ATOMIC_RELEASE);
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        __atomic_store_n((uint64_t *)(void *)(dst + i), w, __ATOMIC_RELEASE);
    }
    for (; i < len; i++) __atomic_store_n(dst + i, src[i], __ATOMIC_RELEASE);
    d->st.dma_writes++;
    dev_dirty_note(d, addr, len); /* every write the NIC applies (VFIO DMA logging) */
    return 0;
}

/* ---- the API: the kernel's job on a real host ---- */

int hlsnic_dev_dma_map(hlsnic_dev_t *d, const void *va, size_t len) {
    uint64_t a = (uint64_t)(uintptr_t)va;
    if (!d || !len || a + len < a) {
        errno = EINVAL;
        return -1;
    }
    dev_lock(d);
    if (d->nmaps == d->cap_maps) {
        size_t cap = d->cap_maps ? 2 * d->cap_maps : 64;
        dev_map_t *m = cap <= (1u << 20) ? realloc(d->maps, cap * sizeof *m) : NULL;
        if (!m) {
            pthread_mutex_unlock(&d->mu);
            errno = ENOMEM;
            return -1;
        }
        d->maps = m;
        d->cap_maps = cap;
    }
    d->maps[d->nmaps++] = (dev_map_t){a, len};
    pthread_mutex_unlock(&d->mu);
    return 0;
}

int hlsnic_dev_dma_unmap(hlsnic_dev_t *d, const void *va, size_t len) {
    uint64_t a = (uint64_t)(uintptr_t)va;
    if (!d) {
        errno = EINVAL;
        return -1;
    }
    dev_lock(d);
    for (size_t i = d->nmaps; i-- > 0;)
        if (d->maps[i].addr == a && d->maps[i].len == len) {
            d->maps[i] = d->maps[--d->nmaps];
            pthread_mutex_unlock(&d->mu);
            return 0;
        }
    pthread_mutex_unlock(&d->mu);
    errno = ENOENT;
    return -1;
}
