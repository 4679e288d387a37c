/* nic_bar_regs.h — BAR0 of one NIC in a nic_tb harness, as register reads and writes
 * (hls/include/nic_bar.h; docs/nic-host-interface.md section 2): the command mailbox (CMD
 * bytes, CMD_GO, CMD_STATUS, RESP bytes), the three doorbells, and the identification
 * registers. testbench/platform's NIC endpoint calls it for each MMIO TLP; the direct
 * (no-PCIe) host of the goodput comparison calls it straight.
 *
 * Offsets are within the NIC's memory window: function fn's BAR0 is at fn * NIC_BAR_SIZE.
 * The device writes the function into every command and doorbell (a function names only its
 * own objects). Not modelled: EVENT, EVENT_LOST, IRQ_MASK and the statistics registers; an
 * access to them, or anywhere without a register, reads all ones, drops the write, and is
 * recorded as an error naming the offset (nic_bar_regs_error).
 *
 * Plain C testbench code. */
#ifndef NIC_BAR_REGS_H
#define NIC_BAR_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../nic/nic_tb.h"

typedef struct nic_bar_regs nic_bar_regs_t;

nic_bar_regs_t *nic_bar_regs_new(nic_tb_t *tb, unsigned nic);
void nic_bar_regs_free(nic_bar_regs_t *r);
/* One aligned 64-bit register access at offset off of the NIC's window. */
void nic_bar_regs_write(nic_bar_regs_t *r, uint64_t off, uint64_t value);
uint64_t nic_bar_regs_read(nic_bar_regs_t *r, uint64_t off);
/* Accesses that hit no register so far, and the first one as text (NULL if none). */
unsigned nic_bar_regs_errors(const nic_bar_regs_t *r);
const char *nic_bar_regs_error(const nic_bar_regs_t *r);

#endif
