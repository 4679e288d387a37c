/* switch.pml: the tree. One switch; its ports 0 .. NDEV-1 lead down to the devices, port
 * ROOT (= NDEV) up to the root port. Every TLP is routed by its destination node, which is
 * the port it leaves by (devices by BAR address, the root by address or requester ID:
 * the model names the node, not the address).
 *
 *   to_switch[p]    node p -> switch port p (device p's upstream hop, or the root port's
 *                   downstream hop for p = ROOT)
 *   from_switch[p]  switch port p -> node p
 *
 * Two kinds of switch (DESIGN.md section 7):
 *   default          the PCI-to-PCI bridge picture: a TLP leaves its ingress queue straight
 *                    into its egress port's queue, so one ingress port's posted writes keep
 *                    their order whichever egress ports they leave by.
 *   PER_PORT_SWITCH  a buffer per (ingress, egress) pair: the ingress port sorts TLPs into
 *                    them in order, each egress port takes from any of its buffers. Order holds
 *                    per pair only, so a device's completion to the host can leave before its
 *                    own P2P write still waiting for a busy egress port.
 */

hop to_switch[NPORT];
hop from_switch[NPORT];

#define TO_EGRESS(dst)  from_switch[dst]

/* One option of a forwarder: TLP i of class c leaves hop SRC for hop NEXT(its dst). */
#define MOVE(SRC, c, i, NEXT, where, port) \
    :: d_step { MAY_LEAVE(SRC, c, i) && ROOM(NEXT(SRC.q[c].e[i].dst), c) -> \
                take(SRC, c, i); put(NEXT(pkt.dst), c); LOG_TLP(where, port, c) }

/* Every TLP of hop SRC that may leave (QCAP = 2: entries 0 and 1 of each class). */
#define MOVE_ANY(SRC, NEXT, where, port) \
    MOVE(SRC, CLS_P, 0, NEXT, where, port) MOVE(SRC, CLS_P, 1, NEXT, where, port) \
    MOVE(SRC, CLS_NP, 0, NEXT, where, port) MOVE(SRC, CLS_NP, 1, NEXT, where, port) \
    MOVE(SRC, CLS_CPL, 0, NEXT, where, port) MOVE(SRC, CLS_CPL, 1, NEXT, where, port)

#if QCAP != 2
#error "switch.pml: MOVE_ANY enumerates queue entries 0 and 1: QCAP must be 2"
#endif

#ifndef PER_PORT_SWITCH

/* Ingress port p: each TLP goes straight to its egress port's queue. */
proctype Ingress(byte p)
{
end:
    do
    MOVE_ANY(to_switch[p], TO_EGRESS, WHERE_FROM_SWITCH, pkt.dst)
    od
}

#define START_SWITCH() \
    p = 0; do :: p < NPORT -> run Ingress(p); p++ :: else -> break od

#else

/* pair[in * NPORT + out]: the buffer of TLPs that came in by port in and leave by port out */
hop pair[NPORT * NPORT];

#define PAIR_OF(in, out)  pair[(in) * NPORT + (out)]
#define TO_PAIR(dst)      PAIR_OF(p, dst)
#define TO_OUT(dst)       from_switch[out]

/* Ingress port p: sorts its TLPs, in the order the rules allow, into its per-egress buffers. */
proctype Ingress(byte p)
{
end:
    do
    MOVE_ANY(to_switch[p], TO_PAIR, WHERE_PAIR, p * NPORT + pkt.dst)
    od
}

/* The buffer (in, out) drains into egress port out, interleaved with the other buffers of out. */
proctype PairEgress(byte in; byte out)
{
end:
    do
    MOVE_ANY(PAIR_OF(in, out), TO_OUT, WHERE_FROM_SWITCH, out)
    od
}

#define START_SWITCH() \
    p = 0; \
    do \
    :: p < NPORT -> \
        run Ingress(p); \
        q = 0; \
        do \
        :: q < NPORT -> if :: q != p -> run PairEgress(p, q) :: else fi; q++ \
        :: else -> break \
        od; \
        p++ \
    :: else -> break \
    od

#endif
