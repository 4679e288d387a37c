/* mig_hal_tb.h — the migration firmware's HAL (migration-fw/include/mig_hal.h) over a NIC of
 * the whole-NIC testbench (testbench/nic/nic_tb), so the firmware runs beside the datapath in
 * the simulator (docs/migration.md, "The simulator HAL").
 *
 * Every op is what the embedded controller would do through the NIC's ports, and costs the
 * cycles the model takes: a context access is one NIC_CMD_CTX_READ / CTX_WRITE per 128-bit
 * port word (four of the firmware's 32-bit words), a suspend is NIC_CMD_SUSPEND_FN (answered
 * when ctrl has every marker), dirty bits are NIC_CTX_DIRTY reads, the throttle is
 * NIC_CMD_THROTTLE; while a command waits, every NIC of the testbench keeps stepping, so the
 * peers run during the migration. The firmware's own work (spend) steps the NICs too. Host
 * DMA of image blocks moves the bytes through the host memory's backdoor and steps the NICs
 * for what the host memory's port would take (see mig_hal_tb.c). announce sends a
 * gratuitous ARP from the NIC's wire port. */
#ifndef MIG_HAL_TB_H
#define MIG_HAL_TB_H

#include "mig_hal.h"
#include "../nic/nic_tb.h"

/* cycles announce waits for a free frame slot on a full wire before it fails (MIG_E_HW) */
#define MIG_HAL_TB_ANNOUNCE_WAIT 100000u

struct mig_hal_tb {
    nic_tb_t *tb;
    unsigned nic;
    /* Context sections (bit = NIC_CTX_*) the model does not answer yet: the HAL refuses
     * them (MIG_E_NO_OP) instead of sending a command ctrl would wait on forever, and reads
     * no dirty bits of them. 0 = the whole contract is built. */
    uint32_t unserved;
    /* measured */
    uint64_t port_cycles;       /* cycles spent waiting for the model's ports */
    uint64_t fw_cycles;         /* cycles the firmware charged (spend) */
    uint64_t commands;          /* NIC commands issued */
    uint64_t ctx_writes;        /* NIC_CMD_CTX_WRITE commands answered OK */
    uint64_t announces;
    uint64_t flushes;           /* flush reads (Suspend-Active), each a read round trip */
    /* the last command the NIC refused: its op, status (NIC_CMD_E*) and bad_field, so a
     * failed op names what the hardware said */
    uint8_t last_op, last_status, last_field;
    /* a SUSPEND_FN issued by suspend_request and not answered yet */
    bool suspend_pending;
    uint8_t pending_fn, pending_level;
    uint8_t level[NIC_FNS];     /* the level each function reached */
};

/* A HAL over NIC `nic` of tb (h is the HAL's context: keep it alive as long as the HAL). */
struct mig_hal mig_hal_tb(struct mig_hal_tb *h, nic_tb_t *tb, unsigned nic);

/* The NIC_CTX_* section the firmware's (table, section) is, or 0 if none. */
unsigned mig_hal_tb_section(unsigned table, unsigned section);

/* One 128-bit port word of a context access, as the NIC command that moves it: word k of
 * section sect of (fn, row); for a write, w4 holds the word's four 32-bit firmware words
 * (w4[0] least significant). Shared with the platform's firmware (testbench/platform/nic). */
nic_cmd_t mig_ctx_word_cmd(bool write, unsigned fn, unsigned row, unsigned sect, unsigned k, const uint32_t *w4);

/* The four 32-bit firmware words of a CTX_READ answer, least significant first. */
void mig_ctx_word_take(const nic_cmd_resp_t *r, uint32_t *w4);

/* A gratuitous ARP for (mac, ip): an ARP request with sender and target IP both ip, to the
 * broadcast address (what tshark shows as "Gratuitous ARP"). 42 bytes; returns the length. */
size_t mig_garp_frame(uint8_t *frame, uint64_t mac, uint32_t ip);

#endif /* MIG_HAL_TB_H */
