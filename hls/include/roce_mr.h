/* roce_mr.h — a memory region row and the checks on it (IBTA vol. 1 10.6: memory
 * registration and protection).
 *
 * ctrl keeps the master MR table; the requester (lkey checks) and the responder (rkey and
 * receive-buffer lkey checks) keep copies of it, all three with this row. The migration
 * firmware refuses what ctrl's REG_MR refuses with the same rule functions. Plain C. */
#ifndef ROCE_MR_H
#define ROCE_MR_H

#include "hls_inline.h"

enum { /* access flags: enum ibv_access_flags (local read is always allowed: ibv_reg_mr(3)) */
    NIC_ACC_LOCAL_WRITE = 1, NIC_ACC_REMOTE_WRITE = 2, NIC_ACC_REMOTE_READ = 4,
    NIC_ACC_REMOTE_ATOMIC = 8,
};
#define NIC_ACC_ALL 0xFu

/* An HLS_MEM word, so no padding; zero (valid 0) is "no MR", the power-up value. Its
 * context-port image is nic_ctx.h's NIC_CTX_CTRL_MR (ctrl_ctx.h pins the offsets). */
typedef struct {
    uint64_t base;            /* first byte (IOVA = VA) */
    uint64_t len;             /* bytes, > 0 */
    uint32_t key;             /* lkey = rkey: low 8 bits software's tag, the rest the slot */
    uint32_t pd;
    uint8_t access;           /* NIC_ACC_* */
    uint8_t valid;
    uint16_t rsvd0;
    uint32_t rsvd1;
} nic_mr_row_t;
_Static_assert(sizeof(nic_mr_row_t) == 32, "nic_mr_row_t must have no padding");

/* REG_MR's access rule (the Register Memory Region verb, IBTA vol. 1 chapter 11, as
 * ibv_reg_mr(3) states it): only known flags, and remote write or remote atomic access only
 * together with local write. */
HLS_INLINE bool mr_reg_access_ok(unsigned acc) {
    bool remote_writes = (acc & (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_ATOMIC)) != 0;
    return (acc & ~NIC_ACC_ALL) == 0 && (!remote_writes || (acc & NIC_ACC_LOCAL_WRITE) != 0);
}

/* REG_MR's range rule: a region of at least one byte whose end fits in 64 bits. */
HLS_INLINE bool mr_reg_range_ok(uint64_t base, uint64_t len) { return len != 0 && base + len >= base; }

/* The protection checks of an access of len bytes at va through key (10.6.3.2 lkey,
 * 9.7.4.1.5 rkey; rxe lookup_mr + mr_check_range): a valid region with this exact key in
 * the QP's protection domain pd, every flag of acc granted (acc 0: a local read), and
 * [va, va + len) inside [base, base + len). Written without va + len, so a range past 2^64
 * fails instead of wrapping. A zero-length access touches no memory and is not checked
 * (rxe: a zero-length RDMA has no rkey check; an empty SGE list reads nothing). */
HLS_INLINE bool mr_check(const nic_mr_row_t *m, uint32_t key, uint32_t pd, uint64_t va, uint64_t len,
                         unsigned acc) {
    if (len == 0) return true;
    if (!m->valid || m->key != key || m->pd != pd) return false;
    if ((m->access & acc) != acc) return false;
    if (va < m->base) return false;
    uint64_t off = va - m->base;
    return off <= m->len && len <= m->len - off;
}

#endif /* ROCE_MR_H */
