/* dev_mig_fsm.c — the VFIO migration uAPI v2 state machine: which arc comes next on the way
 * from one device state to another (hlsnic_vfio.h, docs/live-migration.md).
 *
 * The uAPI (include/uapi/linux/vfio.h) lists the arcs a driver implements and says that any
 * other change is a sequence of them, the shortest one that does not pass through a state that
 * saves or loads (STOP_COPY, RESUMING, PRE_COPY*) unless it ends there; STOP_COPY never goes
 * back to pre-copy. With every optional feature on, the first hop of each such path is the
 * table below (row: from, column: to). A driver without P2P or PRE_COPY skips the states it
 * lacks: from the hop it cannot take, the walk goes on towards the same goal. */
#include <errno.h>

#include "hlsnic_vfio.h"

enum { E = HLSNIC_MIG_ERROR, S = HLSNIC_MIG_STOP, R = HLSNIC_MIG_RUNNING, SC = HLSNIC_MIG_STOP_COPY,
       RS = HLSNIC_MIG_RESUMING, RP = HLSNIC_MIG_RUNNING_P2P, PC = HLSNIC_MIG_PRE_COPY, PP = HLSNIC_MIG_PRE_COPY_P2P };

/* first hop [from][to]; E = no way (the request is refused) */
static const unsigned char hop[HLSNIC_MIG_STATES][HLSNIC_MIG_STATES] = {
    /* to:          ERROR STOP  RUN  S_COPY RESUME R_P2P PRE  PRE_P2P */
    [E]  = {        E,    E,    E,   E,     E,     E,    E,   E  },
    [S]  = {        E,    S,    RP,  SC,    RS,    RP,   RP,  RP },
    [R]  = {        E,    RP,   R,   RP,    RP,    RP,   PC,  RP },
    [SC] = {        E,    S,    S,   SC,    S,     S,    E,   E  },
    [RS] = {        E,    S,    S,   S,     RS,    S,    S,   S  },
    [RP] = {        E,    S,    R,   S,     S,     RP,   R,   PP },
    [PC] = {        E,    R,    R,   PP,    R,     R,    PC,  PP },
    [PP] = {        E,    RP,   RP,  SC,    RP,    RP,   PC,  PP },
};

/* the features a state needs (ERROR: none can name it as a goal) */
static unsigned needs(unsigned s) {
    switch (s) {
    case RP: return HLSNIC_MIG_CAP_STOP_COPY | HLSNIC_MIG_CAP_P2P;
    case PC: return HLSNIC_MIG_CAP_STOP_COPY | HLSNIC_MIG_CAP_PRE_COPY;
    case PP: return HLSNIC_MIG_CAP_STOP_COPY | HLSNIC_MIG_CAP_P2P | HLSNIC_MIG_CAP_PRE_COPY;
    default: return HLSNIC_MIG_CAP_STOP_COPY;
    }
}
static int have(unsigned caps, unsigned s) { return (needs(s) & caps) == needs(s); }

int hlsnic_mig_next_state(unsigned caps, enum hlsnic_mig_state cur, enum hlsnic_mig_state want,
                          enum hlsnic_mig_state *next) {
    if ((unsigned)cur >= HLSNIC_MIG_STATES || (unsigned)want >= HLSNIC_MIG_STATES || !have(caps, cur) ||
        !have(caps, want))
        return -EINVAL;
    unsigned n = hop[cur][want];
    /* a state this driver lacks is stepped over; each hop is one step nearer want, so at
     * most HLSNIC_MIG_STATES of them */
    for (unsigned k = 0; k < HLSNIC_MIG_STATES && n != E && !have(caps, n); k++) n = hop[n][want];
    if (n == E || !have(caps, n)) return -EINVAL;
    *next = (enum hlsnic_mig_state)n;
    return 0;
}

const char *hlsnic_mig_state_name(enum hlsnic_mig_state s) {
    static const char *const names[HLSNIC_MIG_STATES] = {"ERROR", "STOP", "RUNNING", "STOP_COPY",
                                                         "RESUMING", "RUNNING_P2P", "PRE_COPY", "PRE_COPY_P2P"};
    return (unsigned)s < HLSNIC_MIG_STATES ? names[s] : "?";
}
