/* verbs_mr.c — protection domains and memory regions.
 * A PD is a number the NIC compares (MR PD == QP PD); an MR is a row of the function's MR
 * table plus a DMA mapping of its range (what pinning + IOMMU mapping do on a real host). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hlsnic.h"

struct ibv_pd *hlsnic_alloc_pd(struct ibv_context *c) {
    hlsnic_fn_t *f = to_ctx(c)->f;
    struct hlsnic_pd *pd = calloc(1, sizeof *pd);
    if (!pd) {
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_lock(&f->tab_lock);
    pd->pdn = f->next_pd++;
    if (f->next_pd == 0) f->next_pd = 1;
    pthread_mutex_unlock(&f->tab_lock);
    pd->ibv_pd.handle = pd->pdn;
    return &pd->ibv_pd;
}

int hlsnic_dealloc_pd(struct ibv_pd *pd) {
    /* The NIC keeps no PD table, but the kernel refuses to free a PD that MRs or QPs still
     * use (EBUSY), and programs rely on it. */
    if (__atomic_load_n(&to_pd(pd)->users, __ATOMIC_ACQUIRE)) return EBUSY;
    free(to_pd(pd));
    return 0;
}

struct ibv_mr *hlsnic_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, int access) {
    hlsnic_fn_t *f = to_ctx(pd->context)->f;
    const char *why = NULL;
    uint8_t acc;
    int e;
    if (iova != (uint64_t)(uintptr_t)addr) {
        hlsnic_log(f, "reg_mr: iova 0x%llx differs from addr %p: the device's IOVA is the virtual address",
                   (unsigned long long)iova, addr);
        errno = EINVAL;
        return NULL;
    }
    if (len == 0 || !addr) {
        errno = EINVAL;
        return NULL;
    }
    if ((e = hlsnic_map_mr_access(access, &acc, &why))) {
        if (f->debug) hlsnic_log(f, "reg_mr: %s", why);
        errno = e;
        return NULL;
    }
    struct hlsnic_mr *mr = calloc(1, sizeof *mr);
    if (!mr) {
        errno = ENOMEM;
        return NULL;
    }
    uint32_t key;
    if ((e = hlsnic_mr_slot_alloc(f, &mr->slot, &key))) goto fail_free;
    if (hyp_ram_map(&f->ram, &f->dev, addr, len, HYP_RAM_SHARED)) {
        e = errno ? errno : ENOMEM;
        goto fail_slot;
    }
    mr->addr = addr;
    mr->len = len;
    nic_cmd_t c = {.op = NIC_CMD_REG_MR, .num = key, .base = (uintptr_t)addr, .len = len,
                   .pd = to_pd(pd)->pdn, .access = acc};
    if ((e = hlsnic_cmd(f, &c, NULL, "reg_mr"))) goto fail_map;
    mr->vmr.mr_type = IBV_MR_TYPE_MR;
    mr->vmr.access = access;
    mr->vmr.ibv_mr.lkey = mr->vmr.ibv_mr.rkey = key;
    mr->vmr.ibv_mr.handle = key;
    __atomic_add_fetch(&to_pd(pd)->users, 1, __ATOMIC_RELEASE);
    return &mr->vmr.ibv_mr;
fail_map:
    hyp_ram_unmap(&f->ram, &f->dev, addr, len);
fail_slot:
    hlsnic_mr_slot_free(f, mr->slot);
fail_free:
    free(mr);
    errno = e;
    return NULL;
}

int hlsnic_dereg_mr(struct verbs_mr *vmr) {
    struct hlsnic_mr *mr = (struct hlsnic_mr *)vmr;
    hlsnic_fn_t *f = to_ctx(vmr->ibv_mr.context)->f;
    nic_cmd_t c = {.op = NIC_CMD_DEREG_MR, .num = vmr->ibv_mr.lkey};
    int e = hlsnic_cmd(f, &c, NULL, "dereg_mr");
    if (e) return e;
    /* The NIC no longer accepts the key: only now may the range be unmapped. */
    hyp_ram_unmap(&f->ram, &f->dev, mr->addr, mr->len);
    hlsnic_mr_slot_free(f, mr->slot);
    __atomic_sub_fetch(&to_pd(vmr->ibv_mr.pd)->users, 1, __ATOMIC_RELEASE);
    free(mr);
    return 0;
}
