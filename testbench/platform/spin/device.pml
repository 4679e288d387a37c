/* device.pml: an endpoint that writes into its peers' BARs and obeys the suspend register
 * (docs/migration.md section 2, DESIGN.md section 6):
 *
 *   RUN          starts P2P writes of its own (at most NWRITES), applies incoming ones
 *   SA_PENDING   Suspend-Active received: starts nothing new, but the write already in hand
 *                still goes out (a packet already leaving completes); applies incoming writes
 *   SA           Suspend-Active done: every write it started is on its upstream hop; still a
 *                working PCIe target (DA12): applies incoming writes, answers reads
 *   SP           Suspend-Passive: state captured (image = writes applied so far); an incoming
 *                write now is lost to the image (dropped, or applied after the capture)
 *
 * The status register reads back the level; the host polls it until the level it asked for.
 * With PEER_READ, Suspend-Active also reads zero bytes from every peer written since the
 * last such read before it reports SA: the read cannot pass those writes on any hop, so its
 * completion proves they arrived (the cure for the per-port switch, DESIGN.md section 7).
 */

byte level[NDEV];       /* LVL_* */
byte in_hand[NDEV];     /* 1 + target of the P2P write started but not yet sent, 0: none */
byte started[NDEV];     /* P2P writes this device started */
byte issued_to[NDEV];   /* P2P writes sent towards this device */
byte applied[NDEV];     /* P2P writes this device applied */
byte image[NDEV];       /* applied[] at the capture (Suspend-Passive) */
#ifdef PEER_READ
byte unflushed[NDEV];   /* bit per peer written since the last zero-byte read to it */
bool reading[NDEV];     /* a zero-byte read is out, its completion not yet back */
#endif

/* Apply the posted TLP pkt that reached device d. */
inline receive_posted(d) {
    if
    :: pkt.kind == TLP_P2P_WR && level[d] == LVL_SP ->
        printf("EV lost %d %d %d\n", d, pkt.src, pkt.val);
        assert(level[d] != LVL_SP)      /* the property: a P2P write reached a captured device */
    :: pkt.kind == TLP_P2P_WR && level[d] != LVL_SP ->
        applied[d]++;
        printf("EV apply %d %d %d %d\n", d, pkt.src, pkt.val, applied[d])
    :: pkt.kind == TLP_SUSPEND_WR && pkt.val == LVL_SA && level[d] == LVL_RUN ->
        level[d] = LVL_SA_PENDING;
        printf("EV level %d %d\n", d, level[d])
    :: pkt.kind == TLP_SUSPEND_WR && pkt.val == LVL_SP && level[d] == LVL_SA ->
        level[d] = LVL_SP;
        image[d] = applied[d];
        printf("EV capture %d %d\n", d, image[d])
    :: else ->
        printf("EV bad %d %d %d %d\n", d, pkt.kind, pkt.src, pkt.val);
        assert(false)                   /* a TLP or a level change this model never sends */
    fi
}

/* Answer the read pkt that reached device d: status register, or a peer's zero-byte read. */
inline answer_read(d) {
    if
    :: pkt.kind == TLP_STATUS_RD -> pkt.kind = TLP_STATUS_CPL; pkt.val = level[d]
    :: pkt.kind == TLP_PEER_RD -> pkt.kind = TLP_PEER_CPL; pkt.val = 0
    fi;
    pkt.dst = pkt.src;
    pkt.src = d;
    put(to_switch[d], CLS_CPL);
    LOG_TLP(WHERE_TO_SWITCH, d, CLS_CPL)
}

/* Device d picks the target of its next P2P write: any other device. */
inline pick_peer(d) {
    if
    :: d != 0 -> in_hand[d] = 1
    :: d != 1 -> in_hand[d] = 2
#if NDEV > 2
    :: d != 2 -> in_hand[d] = 3
#endif
    fi;
    printf("EV start %d %d %d\n", d, in_hand[d] - 1, d * NWRITES + started[d])
}

#if NDEV > 3
#error "device.pml: pick_peer names devices 0..2: NDEV must be 2 or 3"
#endif

#ifdef PEER_READ
#define FLUSHED(d)  (unflushed[d] == 0 && !reading[d])
#else
#define FLUSHED(d)  true
#endif

proctype Device(byte d)
{
end:
    do
    :: atomic { level[d] == LVL_RUN && started[d] < NWRITES && in_hand[d] == 0 -> pick_peer(d) }
    :: d_step { in_hand[d] != 0 && ROOM(to_switch[d], CLS_P) ->
            pkt.kind = TLP_P2P_WR; pkt.src = d; pkt.dst = in_hand[d] - 1; pkt.val = d * NWRITES + started[d];
            put(to_switch[d], CLS_P);
            LOG_TLP(WHERE_TO_SWITCH, d, CLS_P);
            issued_to[pkt.dst]++;
            started[d]++;
#ifdef PEER_READ
            unflushed[d] = unflushed[d] | (1 << pkt.dst);
#endif
            in_hand[d] = 0 }
#ifdef PEER_READ
    :: d_step { level[d] == LVL_SA_PENDING && in_hand[d] == 0 && unflushed[d] != 0 && !reading[d] &&
                ROOM(to_switch[d], CLS_NP) ->
            pkt.kind = TLP_PEER_RD; pkt.src = d; pkt.val = 0;
            pkt.dst = 0;
            do :: (unflushed[d] & (1 << pkt.dst)) == 0 -> pkt.dst++ :: else -> break od;
            unflushed[d] = unflushed[d] & ~(1 << pkt.dst);
            reading[d] = true;
            put(to_switch[d], CLS_NP);
            LOG_TLP(WHERE_TO_SWITCH, d, CLS_NP) }
    :: d_step { MAY_LEAVE(from_switch[d], CLS_CPL, 0) -> take(from_switch[d], CLS_CPL, 0);
            assert(pkt.kind == TLP_PEER_CPL && reading[d]);
            reading[d] = false;
            printf("EV flushed %d %d\n", d, pkt.src) }
#endif
    :: d_step { level[d] == LVL_SA_PENDING && in_hand[d] == 0 && FLUSHED(d) ->
            level[d] = LVL_SA;
            printf("EV level %d %d\n", d, level[d]) }
    :: d_step { MAY_LEAVE(from_switch[d], CLS_P, 0) -> take(from_switch[d], CLS_P, 0); receive_posted(d) }
    :: d_step { MAY_LEAVE(from_switch[d], CLS_P, 1) -> take(from_switch[d], CLS_P, 1); receive_posted(d) }
    :: d_step { MAY_LEAVE(from_switch[d], CLS_NP, 0) && ROOM(to_switch[d], CLS_CPL) ->
            take(from_switch[d], CLS_NP, 0); answer_read(d) }
    :: d_step { MAY_LEAVE(from_switch[d], CLS_NP, 1) && ROOM(to_switch[d], CLS_CPL) ->
            take(from_switch[d], CLS_NP, 1); answer_read(d) }
    od
}
