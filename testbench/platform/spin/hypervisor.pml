/* hypervisor.pml: the host side of the multi-device suspend, through the root port.
 * A suspend request is an MMIO write (posted) of the device's suspend register; the
 * confirmation is the host reading the device's status register (non-posted read and its
 * completion) until it shows the level asked for, as the PF driver polls. The read cannot
 * pass the write on the way down (B2a), and the completion cannot pass the device's earlier
 * posted writes on the way up (D2a).
 *
 *   default    two-phase: Suspend-Active to every device, confirm each, then
 *              Suspend-Passive to every device, confirm each (stop-and-copy, DESIGN.md s. 6)
 *   ONE_PHASE  each device Suspend-Active then Suspend-Passive, confirmed, before the next
 */

byte status_seen;    /* the last status the host read (0 between polls) */

inline suspend_request(dev, lvl) {
    d_step { ROOM(to_switch[ROOT], CLS_P) ->
        pkt.kind = TLP_SUSPEND_WR; pkt.src = ROOT; pkt.dst = dev; pkt.val = lvl;
        put(to_switch[ROOT], CLS_P);
        LOG_TLP(WHERE_TO_SWITCH, ROOT, CLS_P) }
}

inline confirm(dev, lvl) {
    do
    :: d_step { ROOM(to_switch[ROOT], CLS_NP) ->
            pkt.kind = TLP_STATUS_RD; pkt.src = ROOT; pkt.dst = dev; pkt.val = 0;
            put(to_switch[ROOT], CLS_NP);
            LOG_TLP(WHERE_TO_SWITCH, ROOT, CLS_NP) };
       d_step { MAY_LEAVE(from_switch[ROOT], CLS_CPL, 0) ->
            take(from_switch[ROOT], CLS_CPL, 0);
            assert(pkt.kind == TLP_STATUS_CPL && pkt.src == dev);
            status_seen = pkt.val;
            printf("EV status %d %d\n", dev, status_seen) };
       if
       :: status_seen == lvl -> status_seen = 0; break
       :: else -> status_seen = 0
       fi
    od
}

/* Every device's image holds every P2P write sent to it. */
inline check_images() {
    dev = 0;
    do
    :: dev < NDEV ->
        printf("EV image %d %d %d\n", dev, image[dev], issued_to[dev]);
        assert(image[dev] == issued_to[dev]);
        dev++
    :: else -> break
    od
}

proctype Hypervisor()
{
    byte dev;
#ifdef ONE_PHASE
    do
    :: dev < NDEV ->
        suspend_request(dev, LVL_SA); confirm(dev, LVL_SA);
        suspend_request(dev, LVL_SP); confirm(dev, LVL_SP);
        dev++
    :: else -> break
    od;
#else
    do :: dev < NDEV -> suspend_request(dev, LVL_SA); dev++ :: else -> break od;
    dev = 0;
    do :: dev < NDEV -> confirm(dev, LVL_SA); dev++ :: else -> break od;
    dev = 0;
    do :: dev < NDEV -> suspend_request(dev, LVL_SP); dev++ :: else -> break od;
    dev = 0;
    do :: dev < NDEV -> confirm(dev, LVL_SP); dev++ :: else -> break od;
#endif
    check_images();
    printf("EV done\n")
}
