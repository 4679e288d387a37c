/* suspend.pml: the two-phase multi-device suspend over a PCIe switch, for spin
 * (docs/pcie-platform.md). NDEV devices (2 or 3) under one switch whose upstream port leads
 * to the root port; every device writes into its peers' BARs while the hypervisor suspends
 * them all. The property: no P2P write is lost (reaches a device after its state was
 * captured) or missing from its target's image at the end.
 *
 * Build options (-D): NDEV, NWRITES; ONE_PHASE (the hypervisor's order); NO_A2A, NO_B2A,
 * NO_D2A (drop an ordering rule); HOST_IDO (the host's writes carry IDO: they may pass other
 * requesters' posted writes); PER_PORT_SWITCH, PEER_READ (the other switch kind and its cure).
 */

#ifndef NDEV
#define NDEV 2          /* devices under the switch */
#endif
#ifndef NWRITES
#define NWRITES 3       /* P2P writes each device starts at most: one more than a queue holds */
#endif
#define ROOT NDEV       /* node (and switch port) of the root port */
#define NPORT (NDEV + 1)

/* suspend levels: the device's suspend register (written) and status register (read) */
#define LVL_RUN        0
#define LVL_SA_PENDING 1
#define LVL_SA         2
#define LVL_SP         3

/* where a TLP was queued, for the trail reader */
#define WHERE_TO_SWITCH   1     /* on node port's hop into the switch */
#define WHERE_PAIR        2     /* in the per-port switch's (ingress, egress) buffer: port = in * NPORT + out */
#define WHERE_FROM_SWITCH 3     /* on the switch's egress hop to node port */

#include "tlp.pml"
#include "switch.pml"
#include "device.pml"
#include "hypervisor.pml"

init {
    byte p, q;
    atomic {
        printf("EV topology %d %d\n", NDEV, NWRITES);
        START_SWITCH();
        p = 0;
        do :: p < NDEV -> run Device(p); p++ :: else -> break od;
        run Hypervisor()
    }
}
