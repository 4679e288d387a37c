/* nic_fw.h — the migration firmware (migration-fw) of one platform NIC: the embedded
 * controller beside the datapath, with a HAL (mig_hal.h) whose waits are the platform's.
 *
 * Every op is what the controller does through the NIC's ports: a context access is one
 * CTX_READ / CTX_WRITE command per 128-bit port word on ctrl's command queue (shared, in
 * order, with the functions' mailboxes: nic_bar_regs_fw_push), a suspend is SUSPEND_FN,
 * dirty bits are NIC_CTX_DIRTY reads, the throttle is THROTTLE. While a command waits, the
 * caller's wait_cycles runs: on the platform a SystemC wait, during which the NIC clock keeps
 * stepping every NIC. Image blocks go to host memory through the caller's host_write (on the
 * platform: MWr TLPs from the NIC's endpoint through the switch tree); host_read likewise
 * (NULL: the op answers MIG_E_NO_OP). Not on this HAL, answering MIG_E_NO_OP as mig_hal.h
 * defines for a NULL op: the dirty bits (no pre-copy on the platform yet: PreCopy-Start is
 * refused), counter_read (the NIC's DMA goes through the fabric, not a hostmem whose byte
 * counters it could read) and announce (the source never announces).
 *
 * Plain C testbench code (clang-19: the NIC's headers use _BitInt); C++ may include this
 * header. */
#ifndef NIC_FW_H
#define NIC_FW_H

#include <stdint.h>

#include "mig_cmd.h"
#include "nic_models.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mig_image.h's block size and the pass flag FINAL, for C++ (mig_image.h is C only) */
#define NIC_FW_BLOCK_SIZE 512u
#define NIC_FW_IMG_FINAL 2u

typedef struct {
    void *ctx;
    void (*wait_cycles)(void *ctx, uint32_t cycles);
    int (*host_write)(void *ctx, uint64_t addr, const uint8_t *buf, uint32_t len); /* MIG_OK / MIG_E_* */
    int (*host_read)(void *ctx, uint64_t addr, uint8_t *buf, uint32_t len);
    /* Suspend-Active's flush read of function fn's posted writes (mig_hal.h flush_writes):
     * returns once every zero-length read is answered */
    int (*flush_writes)(void *ctx, unsigned fn);
} nic_fw_env_t;

typedef struct nic_fw nic_fw_t;

nic_fw_t *nic_fw_new(nic_models_t *m, unsigned nic, const nic_fw_env_t *env);
void nic_fw_free(nic_fw_t *f);
/* One mailbox command, run to its end in the caller's thread (the first one initialises the
 * firmware, mig_fw_init; a failed init answers every command with its status). */
void nic_fw_command(nic_fw_t *f, const struct mig_cmd *c, struct mig_resp *r);
/* cycles spent waiting for the NIC's ports, commands put on ctrl's queue */
uint64_t nic_fw_port_cycles(const nic_fw_t *f);
uint64_t nic_fw_commands(const nic_fw_t *f);

#ifdef __cplusplus
}
#endif

#endif
