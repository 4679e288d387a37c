/* hyp_ram.c — the guest memory the device may reach (hyp.h): every range the guest's driver
 * DMA-maps (on a real host the IOMMU mappings the hypervisor made for the guest's RAM). The
 * hypervisor needs the list to log and copy that memory and to map it again on the
 * destination device. While a migration runs the list is frozen: a map or unmap waits until
 * it ends (QEMU likewise refuses memory hotplug during a migration), so the ranges logged,
 * shadowed and compared stay valid. */
#include <errno.h>
#include <stdlib.h>

#include "hyp.h"

void hyp_ram_init(hyp_ram_t *r) {
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->m = NULL;
    r->n = r->cap = 0;
    r->frozen = false;
}

static void wait_thawed(hyp_ram_t *r) {
    while (r->frozen) pthread_cond_wait(&r->cv, &r->mu);
}

/* *d is read under r->mu after the thaw: the migration swaps the device while frozen. */
int hyp_ram_map(hyp_ram_t *r, hlsnic_dev_t *const *d, const void *va, size_t len, enum hyp_ram_kind kind) {
    pthread_mutex_lock(&r->mu);
    wait_thawed(r);
    if (r->n == r->cap) {
        size_t c = r->cap ? 2 * r->cap : 16;
        hyp_map_t *m = realloc(r->m, c * sizeof *m);
        if (!m) {
            pthread_mutex_unlock(&r->mu);
            errno = ENOMEM;
            return -1;
        }
        r->m = m;
        r->cap = c;
    }
    int rc = hlsnic_dev_dma_map(*d, va, len);
    if (rc == 0) r->m[r->n++] = (hyp_map_t){(uintptr_t)va, len, kind};
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int hyp_ram_unmap(hyp_ram_t *r, hlsnic_dev_t *const *d, const void *va, size_t len) {
    pthread_mutex_lock(&r->mu);
    wait_thawed(r);
    int rc = hlsnic_dev_dma_unmap(*d, va, len);
    if (rc == 0)
        for (size_t i = 0; i < r->n; i++)
            if (r->m[i].va == (uintptr_t)va && r->m[i].len == len) {
                r->m[i] = r->m[--r->n];
                break;
            }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void hyp_ram_freeze(hyp_ram_t *r) {
    pthread_mutex_lock(&r->mu);
    r->frozen = true;
    pthread_mutex_unlock(&r->mu);
}

void hyp_ram_thaw(hyp_ram_t *r) {
    pthread_mutex_lock(&r->mu);
    r->frozen = false;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

int hyp_ram_map_all(hyp_ram_t *r, hlsnic_dev_t *d) {
    for (size_t i = 0; i < r->n; i++)
        if (hlsnic_dev_dma_map(d, (const void *)r->m[i].va, r->m[i].len)) return -errno;
    return 0;
}
