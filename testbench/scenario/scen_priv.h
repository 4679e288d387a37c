/* scen_priv.h — the run state shared by scen_golden.c and scen_drive.c (not for scenarios). */
#ifndef SCEN_PRIV_H
#define SCEN_PRIV_H

#include "scen.h"

#define SCEN_CQ_LOG 12            /* per function: one send CQ and one recv CQ of 4096 CQEs */
#define SCEN_SCQ 1
#define SCEN_RCQ 2

struct scen {
    scen_opts_t o;
    nic_tb_t *tb;
    prng_t rng;                   /* scenario generation */
    uint64_t guard_seed;
    uint8_t *gold[2];             /* golden image of each NIC's arena */
    uint64_t bump[2];             /* next free arena offset */
    uint64_t ring_bump[2];
    scen_ep_t ep[SCEN_MAX_EPS];
    int nep;
    bool fn_up[2][NIC_FNS];
    uint64_t **cqe_cycle;         /* per endpoint, per op */
    uint64_t done_cycle;
    unsigned async_seen[2];
    uint8_t async_detail[2][8];
    int giveup_ep;                /* give-up claim (scen_opts_t.giveup_ok): endpoint or -1, */
    unsigned giveup_op;           /* its op and the error CQE's cycle */
    uint64_t giveup_cycle;
    unsigned host[2];             /* the NIC each side runs on (scen_move_side) */
    bool paused;                  /* scen_hold_vm */
    bool stopped;                 /* scen_stop */
};

/* MAC / IP / PD / arena MR key of NIC n's function fn. */
static inline uint64_t scen_mac(unsigned n, nic_fn_t fn) { return 0x020000000000ull | ((uint64_t)(n + 1) << 8) | (unsigned)fn; }
static inline uint32_t scen_ip(unsigned n, nic_fn_t fn) { return 0x0a000000u | ((n + 1) << 8) | ((unsigned)fn + 1); }
static inline uint32_t scen_pd(nic_fn_t fn) { return 0x10 + (unsigned)fn; }
#define SCEN_ARENA_KEY 0x0107u    /* MR slot 1, tag 7, in every function */
#define SCEN_ACC_ALL (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)

#endif
