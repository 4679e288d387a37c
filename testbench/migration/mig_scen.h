/* mig_scen.h — the live-migration scenario driver (docs/migration.md section 8).
 *
 * Three NICs on a learning switch: A (NIC 0) hosts side 0 of a scenario (testbench/scenario),
 * B (NIC 1) the peer, A' (NIC 2) is empty. Scenario traffic runs on several RC QP pairs of
 * function 0 (every opcode, 1 B .. max_len, RNR cases); at a seeded cycle the PF driver
 * migrates the function with the firmware on A and on A' (mig_hal_tb): PreCopy-Start,
 * pre-copy passes (each block saved on A is loaded on A' at once), the VM paused,
 * Suspend-Active, Suspend-Passive, the final pass, the VM's memory copied
 * (nic_tb_move_host), the load committed, Resume-Passive and Resume-Active on A' (announce),
 * A removed, the VM resumed on A'. The scenario's golden model checks every completion and
 * every byte on both sides; the driver checks the peer (no async event, every QP in RTS),
 * prints where the migration point fell for each moved QP (mig_points.c) and counts the
 * resends the migration caused from the pcaps (mig_resend.c). The point is steered: the last
 * late_qps pairs connect during the migration, and each busy pair's second half of work is
 * posted when pre-copy has converged, a seeded 0..5999 cycles before the VM is held.
 *
 * A fault or an abort instead makes the PF give up at the named phase: the source resumes
 * (PreCopy-Stop, or Resume-Passive / Resume-Active on A), the destination abandons its load,
 * and the traffic must still complete on A. */
#ifndef MIG_SCEN_H
#define MIG_SCEN_H

#include <stdbool.h>
#include <stdint.h>

#include "../nic/nic_tb.h"

#define MIG_SCEN_MAX_QPS 16       /* QP pairs of the migrated function: its QP slots */

enum mig_fault {
    MIG_FAULT_NONE = 0,
    MIG_FAULT_ABORT,          /* the PF aborts at `abort_phase` */
    MIG_FAULT_CORRUPT,        /* a bit of a pre-copy block flipped in transit: MIG_E_CORRUPT */
    MIG_FAULT_TRUNCATED,      /* the PF says LAST on a block that is not the final end */
    MIG_FAULT_TAG,            /* the image header's layout version changed (CRC fixed) */
    MIG_FAULT_NOT_EMPTY,      /* the destination function already has a CQ */
    MIG_FAULT_COLLIDE,        /* two CQ records of one pass name the same slot (CRC fixed) */
    MIG_FAULT_HW_REFUSES,     /* the source NIC does not serve a section (opts.unserved): the
                                 save answers MIG_E_NO_OP naming ctx_read */
};

enum mig_phase {              /* where an abort happens */
    MIG_PHASE_PRECOPY = 0,
    MIG_PHASE_SUSPENDED_ACTIVE,
    MIG_PHASE_SUSPENDED_PASSIVE,
    MIG_PHASE_FINAL_PASS,     /* in the middle of the final save pass */
    MIG_PHASES
};

/* What a completed migration measured (mig_scen_opts_t.figures; docs/bench.md "migration").
 * Device cycles are the cycles the firmware's commands took on the NICs (mig_hal_tb): the
 * image blocks' trip between the hosts is free and the PF driver's 16-cycle scenario steps
 * between commands are not the device's. */
typedef struct {
    bool migrated;                /* A' resumed the function (every other field is 0 if not) */
    uint64_t suspend_active, suspend_passive;   /* cycles of each command */
    uint64_t downtime;            /* Suspend-Active .. Resume-Active on A': suspend, final save
                                     and load, resume commands, in device cycles */
    uint64_t vm_held;             /* the VM paused (scenario cycles, PF steps included) */
    uint64_t image_bytes;         /* every block of every pass */
    uint64_t full_pass_bytes;     /* the first pass (a full image) */
    uint64_t stopcopy_bytes;      /* the final pass (while suspended) */
    uint64_t qp_record_bytes, qp_records;       /* payload and records of the first pass's QP blocks */
    unsigned passes;              /* pre-copy passes */
    uint64_t precopy_cycles;      /* PreCopy-Start .. the VM held */
    uint64_t precopy_wire_bytes;  /* frame bytes every NIC sent meanwhile: the traffic pre-copy ran under */
} mig_scen_figures_t;

typedef struct {
    const char *iface;
    nic_tb_mode_t mode;
    nic_tb_mode_t nic_mode[3]; /* mode NIC_TB_PER_NIC: the models of A, B and A' (a function
                                  moved between the C model and the RTL) */
    uint64_t seed;
    const char *pcap_dir;     /* sent and delivered pcaps of the run, or NULL (no resend count) */
    bool lossy_bound_info;    /* on a lossy wire the resend bound is reported (info), not checked */
    unsigned qps;             /* QP pairs (1..MIG_SCEN_MAX_QPS) */
    unsigned ops;             /* work requests per QP side */
    uint32_t max_len;         /* largest message (of odd QPs; even ones up to 4 KiB) */
    bool max_len_all;         /* every QP's messages up to max_len (a steadier load: mig_bench) */
    uint64_t max_cycles;      /* the run fails when its work is not done by then */
    bool lossy;               /* loss, reordering, duplication on the wire */
    enum mig_fault fault;
    enum mig_phase abort_phase;
    uint32_t unserved;        /* mig_hal_tb.unserved of both HALs (sections not answered yet) */
    uint64_t start_after;     /* cycles after set-up the migration starts; 0: seeded, 200..20199 */
    unsigned late_qps;        /* of the qps, the last late_qps pairs are connected during the
                                 migration (created in RESET; INIT at PreCopy-Start, the rest
                                 seeded around the hold, finished on A' after the move) */
    bool one_wave;            /* every work request posted from the start and the PF suspends as
                                 soon as pre-copy converged (mig_bench: pre-copy under the whole
                                 traffic); default: a second wave right before the point */
    mig_scen_figures_t *figures; /* filled by the run when not NULL */
    bool verbose;
} mig_scen_opts_t;

void mig_scen_opts_default(mig_scen_opts_t *o);
/* One run; PASS/FAIL lines; returns the number of failed checks. */
int mig_scen_run(const mig_scen_opts_t *o);

/* ---- resends (mig_resend.c) ------------------------------------------------------------ */
/* From the sent and delivered pcaps: request packets of the QP (QPN qpn at MAC mac, its
 * peer's QPN dqpn) sent after cycle `moved` that were sent before it too (resends), and how
 * many of those the wire explains (every earlier copy lost, or every response covering it,
 * sent before the resend, lost; or in a go-back-N round that began so, that A began or owed
 * on a NAK it took, or that A' began on a NAK its own lost or delayed packet drew).
 * READ and atomic requests sent again are counted apart
 * (reissued): their responses, dropped by the suspended source, are gone and must be asked
 * for again. docs/migration.md section 7 gives the rule. -1 if a pcap cannot be read. */
/* requests the QP sent before and after the move (so a count of 0 resends is not a pcap that
 * showed nothing), of those after: copies of a PSN sent before (SEND/WRITE packets), of them
 * those the wire explains, and READ/atomic requests sent again */
typedef struct { unsigned sent_before, sent_after, resent, explained, reissued; } mig_resends_t;
int mig_count_resends(const char *sent, const char *delivered, uint64_t mac, uint32_t qpn, uint32_t dqpn,
                      uint64_t moved, uint32_t ns_per_cycle, mig_resends_t *r);
/* The peer's side: its requests to QP qpn (at mac) that the wire delivered while the function
 * was suspended, cycles [stopped, resumed): `dropped` PSNs by the function's closed gate (the
 * peer sent each of them again), the first of those resends `first_resend` cycles
 * after `resumed` (Resume-Active; UINT64_MAX: none after it); `taken` PSNs the peer never sent
 * again (they passed before the gate closed); `reads_out`: cycles after the resume when the
 * READ responses the function sent the peer's QP dqpn before its resume NAK were out (0: none);
 * `in_round`: the peer was inside a resend round a sequence NAK of ours started (mig_resend.c). */
typedef struct { unsigned dropped, taken; uint64_t first_resend, reads_out; bool in_round; } mig_peer_resends_t;
int mig_count_peer_resends(const char *sent, const char *delivered, uint64_t mac, uint32_t qpn, uint32_t dqpn,
                           uint64_t stopped, uint64_t resumed, uint32_t ns_per_cycle, mig_peer_resends_t *r);

#endif /* MIG_SCEN_H */
