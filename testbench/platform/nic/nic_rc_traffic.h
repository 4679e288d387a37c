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

#ifdef __cplusplus
}
#endif

#endif
