/* mig_cost.h — the cycle cost model of the firmware's own work (docs/migration-fw.md).
 *
 * The firmware charges these through the HAL's spend(): in the simulator they advance the
 * NIC clock, so a migration's measured time includes the embedded core's work, not only the
 * context port's. The figures are for a small in-order rv32imc core at the NIC clock:
 * decode and dispatch of a mailbox command, then per unit of work. Accesses to the hardware
 * interface are NOT here: each HAL op costs what its port costs in the model. */
#ifndef MIG_COST_H
#define MIG_COST_H

#define MIG_COST_COMMAND 40u     /* decode, descriptor lookup, state check, response */
#define MIG_COST_FIELD 6u        /* one field moved between row words and a record (shifts) */
#define MIG_COST_CRC_BYTE 4u     /* two nibble-table lookups and xors per byte */
#define MIG_COST_RECORD_CHECK 12u/* slot, collision and reference checks of one record */
#define MIG_COST_POLL 8u         /* one suspend_status poll iteration */
#define MIG_SUSPEND_POLLS 10000u /* polls before a suspend request is reported timed out */

#endif /* MIG_COST_H */
