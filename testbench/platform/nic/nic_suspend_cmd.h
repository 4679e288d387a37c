/* nic_suspend_cmd.h — the PF driver's SUSPEND_FN command (docs/nic-host-interface.md section
 * 4, docs/migration.md section 2) as the words it writes into the mailbox, for the C++
 * hypervisor, which cannot build a nic_cmd_t (the NIC's headers use _BitInt).
 *
 * Plain C testbench code; C++ may include this header. */
#ifndef NIC_SUSPEND_CMD_H
#define NIC_SUSPEND_CMD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mailbox words (little-endian, from NIC_BAR_CMD on) of SUSPEND_FN for function fn to
 * level (1 Suspend-Active, 2 Suspend-Passive); at most max words; returns how many. */
unsigned nic_suspend_cmd_words(unsigned fn, unsigned level, uint64_t *words, unsigned max);

#ifdef __cplusplus
}
#endif

#endif
