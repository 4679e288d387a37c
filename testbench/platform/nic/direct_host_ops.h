/* direct_host_ops.h — the host driver's operations without the PCIe model (the goodput
 * baseline): register accesses call the NIC's BAR registers at once, host memory is the NIC's
 * own ideal hostmem (read latency 1 cycle, testbench/lib/hostmem.h defaults), a pause steps
 * the NICs' clock (4 ns a cycle).
 *
 * Plain C testbench code. */
#ifndef DIRECT_HOST_OPS_H
#define DIRECT_HOST_OPS_H

#include "nic_host_ops.h"
#include "nic_models.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    nic_models_t *models;
    unsigned nic;
} direct_host_t;

nic_host_ops_t direct_host_ops(direct_host_t *h);

#ifdef __cplusplus
}
#endif

#endif
