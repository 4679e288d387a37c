/* tlp.pml: TLPs, the three queues of a link direction, and the PCIe ordering rules that
 * decide which queued TLP may leave next (PCIe base spec, "Ordering Rules", table
 * "Ordering Rules Summary"; no Relaxed Ordering, no ID-based Ordering except HOST_IDO's on
 * the host's writes, one traffic class).
 *
 * A queue models the whole of one direction of one hop for one class: the transmitter's
 * buffer, the wire and the receiver's buffer. Each of them lets a TLP leave before earlier
 * ones only as the rules below allow, and one queue choosing freely among the TLPs the rules
 * let leave reaches every order that a chain of such buffers reaches: folding them keeps
 * every order the hop allows and loses only latency. QCAP entries per queue are the hop's
 * flow-control credits: a transmitter whose queue is full waits, as it would for a credit;
 * QCAP bounds the TLPs in flight per hop and class, and so the model.
 */

#ifndef QCAP
#define QCAP 2          /* credits (TLPs) per class per hop (switch.pml needs 2) */
#endif

/* classes: one queue each */
#define CLS_P   0       /* posted: memory writes */
#define CLS_NP  1       /* non-posted: memory reads */
#define CLS_CPL 2       /* completions */

/* TLP kinds (the trail reader takes these names from this file) */
#define TLP_P2P_WR     1   /* MWr, device -> peer device's BAR: the data under test */
#define TLP_SUSPEND_WR 2   /* MWr, host -> device's suspend register (val = level asked) */
#define TLP_STATUS_RD  3   /* MRd, host -> device's suspend status register */
#define TLP_STATUS_CPL 4   /* CplD, device -> host: the status (val = level) */
#define TLP_PEER_RD    5   /* MRd of zero bytes, device -> peer (the per-port switch's cure) */
#define TLP_PEER_CPL   6   /* Cpl, peer -> device: answers TLP_PEER_RD */

/* ahead = posted TLPs that entered this hop before this NP / CPL TLP and are still queued
 * on it: the rule "may not pass posted" is "leave only when ahead is 0" */
typedef tlp { byte kind; byte src; byte dst; byte val; byte ahead }
typedef queue { tlp e[QCAP]; byte n }
typedef hop { queue q[3] }

/* Scratch for moving one TLP inside one d_step: never part of a state. */
hidden tlp pkt;
hidden byte scan;

#define ROOM(H, c)  (H.q[c].n < QCAP)

/* Posted TLP number i of hop H may leave (A2a: a posted request must not pass a posted
 * request). NO_A2A (the load-bearing check) lets any queued posted TLP leave first. */
#ifdef NO_A2A
#define POSTED_MAY_LEAVE(H, i)  (H.q[CLS_P].n > i)
#elif defined(HOST_IDO)
/* ID-based Ordering on the host's writes (A2b): the host's write may pass posted TLPs of
 * other requesters, not its own. Written for QCAP 2: the second entry passes the first. */
#if QCAP != 2
#error HOST_IDO is written for QCAP 2
#endif
#define POSTED_MAY_LEAVE(H, i) \
    (H.q[CLS_P].n > i && (i == 0 || (i == 1 && H.q[CLS_P].e[1].src == ROOT && H.q[CLS_P].e[0].src != ROOT)))
#else
#define POSTED_MAY_LEAVE(H, i)  (i == 0 && H.q[CLS_P].n > 0)
#endif

/* An NP or CPL TLP may leave when no posted TLP that entered the hop before it is still
 * queued (B2a/C2a: a non-posted request, D2a: a completion, must not pass a posted request).
 * Otherwise anything goes: a completion passes a non-posted request and the reverse
 * (B4/C4/D3), non-posted requests pass each other (B3/C3) and so do completions (D4; each
 * read here has one completion, so D5b never applies), and a posted request passes both
 * (A3/A4: must be able to, or the fabric could deadlock). The load-bearing checks drop
 * B2a/C2a (NO_B2A) or D2a (NO_D2A). */
#ifdef NO_B2A
#define NP_MAY_PASS_POSTED 1
#else
#define NP_MAY_PASS_POSTED 0
#endif
#ifdef NO_D2A
#define CPL_MAY_PASS_POSTED 1
#else
#define CPL_MAY_PASS_POSTED 0
#endif

/* TLP i of class c of hop H may leave now. */
#define ORDERED_MAY_LEAVE(H, c, i) \
    (H.q[c].n > i && ((c == CLS_NP -> NP_MAY_PASS_POSTED : CPL_MAY_PASS_POSTED) || H.q[c].e[i].ahead == 0))
#define MAY_LEAVE(H, c, i)  (c == CLS_P -> POSTED_MAY_LEAVE(H, i) : ORDERED_MAY_LEAVE(H, c, i))

/* Append pkt to class c of hop H (the caller checked ROOM). */
inline put(H, c) {
    H.q[c].e[H.q[c].n].kind = pkt.kind;
    H.q[c].e[H.q[c].n].src = pkt.src;
    H.q[c].e[H.q[c].n].dst = pkt.dst;
    H.q[c].e[H.q[c].n].val = pkt.val;
    if
    :: c == CLS_P -> H.q[c].e[H.q[c].n].ahead = 0
    :: else -> H.q[c].e[H.q[c].n].ahead = H.q[CLS_P].n
    fi;
    H.q[c].n++
}

/* Remove entry i of class c of hop H into pkt; entries behind it move up. A posted TLP
 * leaving is no longer ahead of the NP / CPL TLPs that entered after it. */
inline take(H, c, i) {
    pkt.kind = H.q[c].e[i].kind;
    pkt.src = H.q[c].e[i].src;
    pkt.dst = H.q[c].e[i].dst;
    pkt.val = H.q[c].e[i].val;
    pkt.ahead = 0;
    scan = i;
    do
    :: scan + 1 < H.q[c].n ->
        H.q[c].e[scan].kind = H.q[c].e[scan + 1].kind;
        H.q[c].e[scan].src = H.q[c].e[scan + 1].src;
        H.q[c].e[scan].dst = H.q[c].e[scan + 1].dst;
        H.q[c].e[scan].val = H.q[c].e[scan + 1].val;
        H.q[c].e[scan].ahead = H.q[c].e[scan + 1].ahead;
        scan++
    :: else -> break
    od;
    H.q[c].n--;
    H.q[c].e[H.q[c].n].kind = 0;
    H.q[c].e[H.q[c].n].src = 0;
    H.q[c].e[H.q[c].n].dst = 0;
    H.q[c].e[H.q[c].n].val = 0;
    H.q[c].e[H.q[c].n].ahead = 0;
    if
    :: c == CLS_P ->
        scan = 0;
        do
        :: scan < H.q[CLS_NP].n ->
            if :: H.q[CLS_NP].e[scan].ahead > i -> H.q[CLS_NP].e[scan].ahead-- :: else fi; scan++
        :: else -> break
        od;
        scan = 0;
        do
        :: scan < H.q[CLS_CPL].n ->
            if :: H.q[CLS_CPL].e[scan].ahead > i -> H.q[CLS_CPL].e[scan].ahead-- :: else fi; scan++
        :: else -> break
        od
    :: else
    fi;
    scan = 0
}

/* The trail reader's record of a TLP entering a queue: where, then the TLP. */
#define LOG_TLP(where, port, c) \
    printf("EV queue %d %d %d %d %d %d %d\n", where, port, c, pkt.kind, pkt.src, pkt.dst, pkt.val)
