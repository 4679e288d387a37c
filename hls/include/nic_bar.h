/* nic_bar.h — the NIC's PCIe BAR0 register map: the only way software reaches the device.
 *
 * One BAR per PCIe function (PF or VF); a function sees only its own namespace: the device
 * fills in the function number of every command and doorbell from the BAR that was written,
 * so software cannot name another function's objects. Registers are little-endian, 64-bit
 * unless marked, accessed with aligned 32- or 64-bit MMIO (the command mailbox also takes
 * byte bursts, as a write-combining mapping would issue them).
 *
 * Host memory structures (WQE, CQE) and the command structures are in nic_if.h; the mailbox
 * holds a nic_cmd_t / nic_cmd_resp_t exactly as the C compiler lays it out (clang-19, x86-64:
 * the driver and the device are built from the same header). docs/nic-host-interface.md
 * describes the protocol; testbench/device implements the device side of it. */
#ifndef NIC_BAR_H
#define NIC_BAR_H

#define NIC_BAR_SIZE 0x10000u          /* 64 KiB per function */

/* ---- identification (read-only) ---- */
#define NIC_BAR_ID 0x0000u             /* NIC_BAR_MAGIC | NIC_BAR_VERSION << 32 */
#define NIC_BAR_MAGIC 0x4e534c48u      /* "HLSN" */
#define NIC_BAR_VERSION 1u
#define NIC_BAR_CAPS 0x0008u           /* NIC_CAPS_* fields below */
#define NIC_BAR_FN 0x0010u             /* this BAR's function number */
#define NIC_BAR_CYCLES 0x0018u         /* device clock cycles since reset (250 MHz) */
/* NIC_BAR_CAPS: bits 0..7 functions, 8..15 QPs per function, 16..23 CQs per function,
 * 24..31 MRs per function, 32..39 outstanding send WQEs per QP, 40..47 log2 max SQ/RQ/CQ
 * ring entries, 48..55 max path MTU (enum ibv_mtu). */

/* ---- command mailbox ---- */
#define NIC_BAR_CMD 0x0200u            /* nic_cmd_t bytes (write before GO) */
#define NIC_BAR_CMD_MAX 0x100u
#define NIC_BAR_RESP 0x0300u           /* nic_cmd_resp_t bytes (read after done) */
#define NIC_BAR_RESP_MAX 0x100u
#define NIC_BAR_CMD_GO 0x0100u         /* write (any value): execute the mailbox command */
#define NIC_BAR_CMD_STATUS 0x0108u     /* read: NIC_CMD_STATUS_* */
enum {
    NIC_CMD_STATUS_BUSY = 1 << 0,      /* the command is executing; RESP not yet valid */
    NIC_CMD_STATUS_DONE = 1 << 1,      /* RESP holds the answer of the last GO */
    /* bits 8..15: nic_cmd_resp_t.status of the last command, 16..23 its bad_field */
};

/* ---- doorbells (write-only, 64-bit) ---- */
/* bits 0..23 qpn or cqn; bits 32..47 index (SQ/RQ: producer index, CQ: consumer index);
 * CQ only: bits 56..57 arm (NIC_ARM_*): request one completion event (NIC_EV_CQ_COMP) on
 * ctrl_async for the next CQE (NEXT) or the next solicited or unsuccessful one (SOLICITED);
 * the rules are at nic_db_t in nic_if.h. The device passes the field as nic_db_t.arm. */
#define NIC_BAR_SQ_DB 0x0800u
#define NIC_BAR_RQ_DB 0x0808u
#define NIC_BAR_CQ_DB 0x0810u
enum { NIC_ARM_NONE = 0, NIC_ARM_NEXT = 1, NIC_ARM_SOLICITED = 2 };
#define NIC_DB_VALUE(num, index, arm) \
    (((uint64_t)(num) & 0xffffffu) | ((uint64_t)((index) & 0xffffu) << 32) | ((uint64_t)((arm) & 3u) << 56))

/* ---- events and interrupts ---- */
/* Reading pops the oldest event of this function (0 = none): bit 63 valid, bits 0..7 kind
 * (NIC_EV_*), 8..15 qp row, 16..23 cq row, 24..31 detail (NIC_WC_* status), 32 in_cqe
 * (nic_event_t: an error CQE already reports this QP error). Events are
 * kept in order, NIC_BAR_EVENT_DEPTH per function; when full, the oldest is kept and
 * NIC_BAR_EVENT_LOST counts the dropped ones. An event raises the function's interrupt
 * (MSI-X vector 0) unless masked. */
#define NIC_BAR_EVENT 0x0400u
#define NIC_BAR_EVENT_DEPTH 256u
#define NIC_BAR_EVENT_LOST 0x0408u     /* read: events dropped because the queue was full */
#define NIC_BAR_IRQ_MASK 0x0410u       /* read/write: bit 0 masks the interrupt */

/* ---- migration firmware mailbox (the managing function's BAR only) ---- */
/* The embedded controller (migration-fw/) serves the device migration API here: the managing
 * driver writes a struct mig_cmd (migration-fw/include/mig_cmd.h) at NIC_BAR_FW_CMD, any value
 * to NIC_BAR_FW_GO, polls NIC_BAR_FW_STATUS until DONE, then reads the struct mig_resp at
 * NIC_BAR_FW_RESP. The PCIe platform's NIC (testbench/platform/nic) serves these registers;
 * the in-process device (testbench/device) reaches its firmware through its VFIO-shaped calls
 * instead (testbench/device/hlsnic_vfio.h). */
#define NIC_BAR_FW_CMD 0x3000u         /* struct mig_cmd bytes (write before GO) */
#define NIC_BAR_FW_CMD_MAX 0x20u
#define NIC_BAR_FW_GO 0x3100u          /* write (any value): run the command */
#define NIC_BAR_FW_STATUS 0x3108u      /* read: NIC_FW_STATUS_* */
#define NIC_BAR_FW_RESP 0x3200u        /* struct mig_resp bytes (read after DONE) */
#define NIC_BAR_FW_RESP_MAX 0x20u
enum { NIC_FW_STATUS_BUSY = 1 << 0, NIC_FW_STATUS_DONE = 1 << 1 };

/* ---- statistics (read-only, since reset, whole device) ---- */
#define NIC_BAR_STAT_TX_FRAMES 0x1000u
#define NIC_BAR_STAT_RX_FRAMES 0x1008u
#define NIC_BAR_STAT_RX_DROPPED 0x1010u  /* frames the port could not take (socket side) */

#endif /* NIC_BAR_H */
