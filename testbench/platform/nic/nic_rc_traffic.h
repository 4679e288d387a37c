/* nic_rc_traffic.h — an RC connection between two NIC functions, driven as a host driver
 * drives it (nic_host.h), and the traffic the platform tests and benchmarks run over it:
 * SEND, SEND with immediate, RDMA WRITE, RDMA READ, compare-and-swap, fetch-and-add, each
 * checked by its CQEs and by every byte of both memory regions in host memory; and a bulk
 * WRITE for goodput. One PASS/FAIL line per check, named "PREFIX/what".
 *
 * Plain C testbench code; C++ may include this header. */
#ifndef NIC_RC_TRAFFIC_H
#define NIC_RC_TRAFFIC_H

#include <stdint.h>

#include "nic_host_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *prefix;          /* of every PASS/FAIL name */
    nic_host_ops_t ops[2];       /* side A, side B */
    unsigned fn[2];              /* each side's PCIe function */
    uint64_t base[2];            /* each side's rings and MR in host memory, from here on */
    uint64_t mr_len;             /* bytes of each side's MR */
    unsigned pmtu;               /* enum ibv_mtu: 3 = 1024 */
    unsigned seed;               /* data patterns */
    /* nonzero: side k's MR is at this bus address (a peer device's BAR: the NIC's DMA into it
     * is peer-to-peer), not in host memory; the CPU neither fills nor checks it */
    uint64_t mr_at[2];
} nic_rc_setup_t;

typedef struct nic_rc nic_rc_t;

/* Both sides' objects created and the QPs connected; NULL after a FAIL line. */
nic_rc_t *nic_rc_new(const nic_rc_setup_t *s);
void nic_rc_free(nic_rc_t *rc);
/* The verbs, one after another, every CQE and every MR byte checked: the failures. */
int nic_rc_verbs(nic_rc_t *rc);
/* A posts `count` signaled WRITEs of `size` bytes to B at once; *cycles = NIC cycles from
 * before the first doorbell to A's last CQE seen, *bytes = payload bytes that arrived equal.
 * The failures (a CQE missing or in error, a byte wrong). */
int nic_rc_bulk_write(nic_rc_t *rc, unsigned count, unsigned size, uint64_t *cycles, uint64_t *bytes);

/* Side k posts a signaled WRITE of len bytes from its MR at local_off to the other side's MR
 * at remote_off and returns at once: the WQE's wr_id. */
uint64_t nic_rc_start_write(nic_rc_t *rc, int side, uint64_t local_off, uint32_t len, uint64_t remote_off);
/* Wait for side k's next send CQE: 1 if it is wr_id and successful, else 0 and a FAIL line. */
int nic_rc_wait_send(nic_rc_t *rc, int side, uint64_t wr_id, const char *name);
/* What side k's MR must hold now (mr_len bytes). */
const uint8_t *nic_rc_expected(const nic_rc_t *rc, int side);

#ifdef __cplusplus
}
#endif

#endif
