/* nic_dest.h — the destination of a migration: fresh NICs in a nic_tb harness (two NICs on
 * their Ethernet wire, each with its own ideal host memory holding what the VM's memory held
 * at the stop-and-copy), each with its migration firmware over the migration testbench's HAL
 * (testbench/migration/mig_hal_tb.h). A saved function image is loaded block by block with
 * IMAGE_LOAD from a host buffer, as the destination's PF driver does, then resumed
 * (Resume-Passive, Resume-Active); the NICs then run on, and the traffic the source had in
 * flight finishes here.
 *
 * Plain C testbench code; C++ may include this header. */
#ifndef NIC_DEST_H
#define NIC_DEST_H

#include <stddef.h>
#include <stdint.h>

#include "nic_models.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nic_dest nic_dest_t;

/* NULL with a message on stderr (see nic_models_new). */
nic_dest_t *nic_dest_new(const char *iface, const char *mode, unsigned nics);
void nic_dest_free(nic_dest_t *d);
hostmem_t *nic_dest_mem(nic_dest_t *d, unsigned nic);
/* Loads the n 512-byte blocks of an image into function fn of NIC nic, each through the host
 * buffer at buf_addr. 0 when the last block committed the load; else -1 and *why names the
 * block and the firmware's refusal. */
int nic_dest_load(nic_dest_t *d, unsigned nic, unsigned fn, const uint8_t *blocks, unsigned n, uint64_t buf_addr,
                  char *why, size_t why_len);
/* Resume-Passive then Resume-Active of a loaded function: 0, or -1 and *why. */
int nic_dest_resume(nic_dest_t *d, unsigned nic, unsigned fn, char *why, size_t why_len);
/* An image block's CRC computed again after a change (the checker's own test: a changed
 * block the firmware's CRC check does not catch). */
void nic_dest_reseal(uint8_t *block);
void nic_dest_run(nic_dest_t *d, uint64_t cycles);
uint64_t nic_dest_cycles(const nic_dest_t *d);

#ifdef __cplusplus
}
#endif

#endif
