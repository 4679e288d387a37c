/* nic_fw_mailbox.h — the migration firmware's mailbox in the PF's BAR0 (function 0's window of
 * each platform NIC): the PF driver writes a struct mig_cmd (migration-fw/include/mig_cmd.h)
 * at FW_CMD, any value to FW_GO, polls FW_STATUS until DONE, then reads the struct mig_resp
 * at FW_RESP. hls/include/nic_bar.h has no migration mailbox yet; these offsets lie in a
 * range it leaves free, and are the platform's choice until it has one.
 *
 * Plain C testbench code; C++ may include this header. */
#ifndef NIC_FW_MAILBOX_H
#define NIC_FW_MAILBOX_H

#define NIC_FW_CMD 0x3000u        /* struct mig_cmd bytes (16) */
#define NIC_FW_CMD_MAX 0x20u
#define NIC_FW_GO 0x3100u         /* write: run the command */
#define NIC_FW_STATUS 0x3108u     /* read: NIC_FW_BUSY | NIC_FW_DONE */
#define NIC_FW_RESP 0x3200u       /* struct mig_resp bytes (32) */
#define NIC_FW_RESP_MAX 0x20u
enum { NIC_FW_BUSY = 1 << 0, NIC_FW_DONE = 1 << 1 };

#endif
