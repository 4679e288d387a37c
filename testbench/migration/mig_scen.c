/* mig_scen.c — the live-migration scenario driver; mig_scen.h says what a run does.
 *
 * The PF driver is a state machine advanced once per scenario tick (every 16 cycles), one
 * firmware command or one image block per tick, so the VM keeps posting and polling during
 * pre-copy; from Suspend-Active to the VM's resume on A' the VM is held (the hypervisor's
 * stop-and-copy), the NICs keep running. An image block moves from A's host buffer to A''s
 * through the hypervisor (free in cycles here: the network between the hosts is not
 * modelled); each firmware command costs what the model took (mig_hal_tb). */
#include "mig_scen.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mig_fw.h"
#include "mig_hal_tb.h"
#include "mig_image.h"
#include "mig_points.h"
#include "../scenario/scen_priv.h"

enum { NIC_A = 0, NIC_B = 1, NIC_A2 = 2, FN = 0 };
#define IMG_A 0x70000000ull   /* the PF driver's image buffers: on A ... */
#define IMG_B 0x78000000ull   /* ... and on A' (not in the VM's memory, so the move keeps them) */
#define RING 64u              /* blocks per buffer */
/* The peer resends what the suspended function dropped this soon after Resume-Active (its resume
 * NAK, docs/migration.md 2), not after its first ACK timeout of 2^7 x 1024 cycles. */
#define MIG_PEER_RESEND_WITHIN 8192u

enum step { S_WAIT, S_PRECOPY, S_SUSPEND, S_FINAL, S_RESUME, S_DONE };

/* A late pair's connection set-up, as its two hosts do it, one MODIFY_QP a step: both INIT,
 * both RTR, then the peer (B) reaches RTS first and may send to A while A is still in RTR. */
static const struct { unsigned side; uint8_t to; } setup_steps[] = {
    {0, NIC_QPS_INIT}, {1, NIC_QPS_INIT}, {0, NIC_QPS_RTR}, {1, NIC_QPS_RTR}, {1, NIC_QPS_RTS}, {0, NIC_QPS_RTS},
};
enum { SETUP_BOTH_INIT = 2, SETUP_STEPS = sizeof setup_steps / sizeof *setup_steps };

typedef struct {
    const mig_scen_opts_t *o;
    const char *name;
    scen_t *s;
    nic_tb_t *tb;
    struct mig_hal_tb ha, hb;
    struct mig_fw fa, fb;
    enum step step;
    uint64_t start;
    unsigned blk, passes, final_blocks;
    bool faulted, aborted;
    int failures;
    /* figures (cycles) */
    uint64_t t_susp_active, t_susp_passive, hold_at, resumed_at, moved_at;
    uint64_t active_at;       /* Resume-Active on A' issued: the resume NAKs go out from here */
    uint64_t image_bytes, stopcopy_bytes, full_pass_bytes, qp_record_bytes, qp_records;
    uint64_t downtime;        /* device cycles of the commands from Suspend-Active on */
    uint64_t precopy_at, precopy_wire_bytes; /* wire bytes sent so far at PreCopy-Start, then during pre-copy */
    /* late pairs (opts.late_qps): their side-0 endpoints, the set-up steps done, and how far
     * the set-up has gone when the VM is held (seeded: caught in INIT, RTR, or set up) */
    int late_ep[MIG_SCEN_MAX_QPS];
    unsigned late, setup_done, setup_at_suspend;
    bool setup_early;         /* those steps right at PreCopy-Start, not just before the hold */
    /* the point: the second half of each busy pair's work is posted when pre-copy has
     * converged, and the PF suspends `settle` cycles later, so that messages are in flight */
    uint64_t settle, suspend_at;
    bool released;
    mig_points_image_t image; /* the newest QP records the transfer carried */
    unsigned points[MIG_POINTS];
    bool classified;
} mig_t;

static void fail(mig_t *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(mig_t *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL migration %s: ", m->name);
    vprintf(fmt, ap);
    printf(" (cycle %" PRIu64 ")\n", nic_tb_now(m->tb));
    va_end(ap);
    m->failures++;
    m->step = S_DONE;
}

void mig_scen_opts_default(mig_scen_opts_t *o) {
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->qps = 4;
    o->ops = 12;
    o->max_len = 64u << 10;
    o->max_cycles = 1500000;
    o->late_qps = 1;
}

/* one firmware command; false (and a FAIL naming it) unless it answered `want` */
static bool fw(mig_t *m, bool on_a, uint8_t op, uint8_t flags, uint64_t addr, int want, struct mig_resp *r) {
    struct mig_cmd c = {.opcode = op, .fn = FN, .flags = flags, .host_addr = addr};
    uint64_t t0 = nic_tb_now(m->tb);
    mig_fw_command(on_a ? &m->fa : &m->fb, &c, r);
    if (m->step >= S_SUSPEND && m->step <= S_RESUME) m->downtime += nic_tb_now(m->tb) - t0;
    if (r->status == want) return true;
    if (m->o->fault == MIG_FAULT_HW_REFUSES && on_a && op == MIG_CMD_IMAGE_SAVE && r->status == MIG_E_NO_OP &&
        r->reason == MIG_R_HAL && r->value[0] == MIG_HAL_OP_CTX_READ && !m->faulted) {
        printf("PASS migration %s: A's save refused: a context section the NIC does not serve (MIG_E_NO_OP, HAL op ctx_read)\n", m->name);
        m->faulted = true;
        m->step = S_DONE; /* the PF gives up (tick aborts) */
        return false;
    }
    const struct mig_hal_tb *h = on_a ? &m->ha : &m->hb;
    fail(m, "%s: firmware command %u answered status %u reason %u values %" PRIu64 " %" PRIu64 " (want %d; NIC last op %u status %u field %u)",
         on_a ? "A" : "A'", op, r->status, r->reason, r->value[0], r->value[1], want, h->last_op, h->last_status, h->last_field);
    return false;
}

/* the PF gives up: the source resumes from wherever it is, the destination drops its load */
static void abort_migration(mig_t *m) {
    struct mig_resp r;
    if (m->aborted) return;
    m->aborted = true;
    struct mig_cmd q = {.opcode = MIG_CMD_QUERY_TAG, .fn = FN};
    mig_fw_command(&m->fa, &q, &r);
    switch (r.state) {
    case MIG_ST_PRECOPY: fw(m, true, MIG_CMD_PRECOPY_STOP, 0, 0, MIG_OK, &r); break;
    case MIG_ST_SUSPENDED_PASSIVE:
        if (!fw(m, true, MIG_CMD_RESUME_PASSIVE, 0, 0, MIG_OK, &r)) return;
        /* fall through */
    case MIG_ST_SUSPENDED_ACTIVE: fw(m, true, MIG_CMD_RESUME_ACTIVE, 0, 0, MIG_OK, &r); break;
    default: break;
    }
    mig_fw_command(&m->fb, &q, &r);
    if (r.state == MIG_ST_LOADING) fw(m, false, MIG_CMD_RESUME_ACTIVE, 0, 0, MIG_OK, &r);
    /* both running again; the destination as it was, never written (a load writes only at
     * commit) */
    struct mig_resp ra;
    mig_fw_command(&m->fa, &q, &ra);
    mig_fw_command(&m->fb, &q, &r);
    bool clean = ra.state == MIG_ST_RUNNING && r.state == MIG_ST_RUNNING && m->hb.ctx_writes == 0;
    printf("%s migration %s: given up; A and A' RUNNING again, no context write on A' (states %u %u, %" PRIu64 " writes)\n",
           clean ? "PASS" : "FAIL", m->name, ra.state, r.state, m->hb.ctx_writes);
    m->failures += !clean;
    scen_hold_vm(m->s, false);
    m->step = S_DONE;
}

/* the block just saved on A, moved to A''s buffer, maybe damaged on the way (a fault) */
static void transfer(mig_t *m, unsigned k, uint8_t *b) {
    hostmem_read(nic_tb_mem(m->tb, NIC_A), IMG_A + 512ull * k, b, MIG_BLOCK_SIZE);
    mig_points_take_block(&m->image, b);
    m->image_bytes += MIG_BLOCK_SIZE;
    if (m->step == S_FINAL) m->stopcopy_bytes += MIG_BLOCK_SIZE;
    if (m->step == S_PRECOPY && m->passes == 0) {
        /* the first pass is the full image: its size, and what each QP costs in it */
        m->full_pass_bytes += MIG_BLOCK_SIZE;
        if (b[MIG_BH_KIND] == MIG_BLK_QP) {
            m->qp_record_bytes += (uint64_t)b[MIG_BH_LEN] | (uint64_t)b[MIG_BH_LEN + 1] << 8;
            m->qp_records += b[MIG_BH_RECORDS];
        }
    }
}

static void put_crc(uint8_t *b) {
    uint32_t c = mig_block_crc(b);
    for (int i = 0; i < 4; i++) b[MIG_BH_CRC + i] = (uint8_t)(c >> (8 * i));
}

/* the reason the destination must give for each damaged-image fault */
static const uint8_t fault_reason[] = {
    [MIG_FAULT_CORRUPT] = MIG_R_BLOCK_CRC, [MIG_FAULT_TRUNCATED] = MIG_R_END_MISSING,
    [MIG_FAULT_TAG] = MIG_R_LAYOUT_VERSION, [MIG_FAULT_COLLIDE] = MIG_R_CQ_SLOT_COLLIDES,
};

/* a fault the PF's transfer suffers on the first pre-copy block that can carry it; the
 * status the destination must answer, or MIG_OK when this block is clean */
static int inject(mig_t *m, uint8_t *b, uint8_t *flags) {
    if (m->faulted || m->step != S_PRECOPY) return MIG_OK;
    switch (m->o->fault) {
    case MIG_FAULT_CORRUPT:
        b[100] ^= 0x10;
        m->faulted = true;
        return MIG_E_CORRUPT;
    case MIG_FAULT_TRUNCATED:
        *flags |= MIG_LOAD_LAST;
        m->faulted = true;
        return MIG_E_TRUNCATED;
    case MIG_FAULT_TAG:
        if (b[MIG_BH_KIND] != MIG_BLK_HDR) return MIG_OK;
        b[MIG_BH_BYTES + MIG_IH_LAYOUT] ^= 0x02;
        put_crc(b);
        m->faulted = true;
        return MIG_E_TAG;
    case MIG_FAULT_COLLIDE:
        if (b[MIG_BH_KIND] != MIG_BLK_CQ || b[MIG_BH_RECORDS] < 2) return MIG_OK;
        memcpy(b + MIG_BH_BYTES + MIG_CQ_RECORD_BYTES, b + MIG_BH_BYTES, MIG_CQ_RECORD_BYTES);
        put_crc(b);
        m->faulted = true;
        return MIG_E_FIT;
    default: return MIG_OK;
    }
}

/* the host CPU's view of A's memory: the send queues the classifier re-reads, at no cost */
static int backdoor_read(void *mem, uint64_t addr, uint8_t *buf, uint32_t len) {
    hostmem_read(mem, addr, buf, len);
    return MIG_OK;
}

/* where the migration point fell for each QP the image carries (mig_points.h), taken when the
 * final pass is complete: the state A' resumes from */
static void classify(mig_t *m) {
    static const struct mig_hal_ops ops = {.host_read = backdoor_read};
    struct mig_hal host = {.ops = &ops, .hw = nic_tb_mem(m->tb, NIC_A)};
    struct mig_resp r = {0};
    if (mig_points_count(&m->image, &host, m->points, &r)) {
        fail(m, "classifying the migration point: a QP's send position is not on its WQEs (status %u reason %u qpn 0x%" PRIx64 " next PSN %" PRIu64 ")",
             r.status, r.reason, r.value[0], r.value[1]);
        return;
    }
    m->classified = true;
}

/* save one block on A and load it on A'; false when the run's migration ended */
static bool move_block(mig_t *m, struct mig_resp *sv) {
    unsigned k = m->blk++ % RING;
    if (!fw(m, true, MIG_CMD_IMAGE_SAVE, 0, IMG_A + 512ull * k, MIG_OK, sv)) return false;
    if (sv->answer == MIG_SAVE_NOTHING_NOW) return true;
    uint8_t b[MIG_BLOCK_SIZE], flags = 0;
    transfer(m, k, b);
    bool final_end = sv->answer == MIG_SAVE_PASS_END && (sv->value[2] & MIG_IMG_FINAL);
    if (final_end) {
        flags |= MIG_LOAD_LAST;
        classify(m);
        /* stop-and-copy: the VM's memory moves before the load commits and A' resumes */
        if (nic_tb_move_host(m->tb, NIC_A, NIC_A2, FN)) { fail(m, "moving the VM's memory to A' failed"); return false; }
    }
    int want = inject(m, b, &flags);
    hostmem_write(nic_tb_mem(m->tb, NIC_A2), IMG_B + 512ull * k, b, MIG_BLOCK_SIZE);
    struct mig_resp ld;
    if (want != MIG_OK && m->o->fault == MIG_FAULT_NOT_EMPTY) want = MIG_OK;
    if (!fw(m, false, MIG_CMD_IMAGE_LOAD, flags, IMG_B + 512ull * k, want, &ld)) return false;
    if (want != MIG_OK) {
        bool ok = ld.reason == fault_reason[m->o->fault] && ld.state == MIG_ST_RUNNING;
        printf("%s migration %s: destination refused the damaged image: status %u reason %u (want %u) value %" PRIu64 ", state %u\n",
               ok ? "PASS" : "FAIL", m->name, ld.status, ld.reason, fault_reason[m->o->fault], ld.value[0], ld.state);
        m->failures += !ok;
        abort_migration(m);
        return false;
    }
    if (final_end && ld.answer != MIG_LOAD_COMMITTED) { fail(m, "final end block: load answered %u, want COMMITTED", ld.answer); return false; }
    if (sv->answer == MIG_SAVE_PASS_END) m->passes++;
    if (m->step == S_FINAL) m->final_blocks++;
    return true;
}

static void suspend(mig_t *m) {
    struct mig_resp r;
    scen_hold_vm(m->s, true);
    m->hold_at = nic_tb_now(m->tb);
    m->precopy_wire_bytes = wire_stats(nic_tb_wire(m->tb))->sent_bytes - m->precopy_wire_bytes;
    if (!fw(m, true, MIG_CMD_SUSPEND_ACTIVE, 0, 0, MIG_OK, &r)) return;
    m->t_susp_active = nic_tb_now(m->tb) - m->hold_at;
    m->moved_at = nic_tb_now(m->tb);
    if (m->o->fault == MIG_FAULT_ABORT && m->o->abort_phase == MIG_PHASE_SUSPENDED_ACTIVE) { abort_migration(m); return; }
    uint64_t t = nic_tb_now(m->tb);
    if (!fw(m, true, MIG_CMD_SUSPEND_PASSIVE, 0, 0, MIG_OK, &r)) return;
    m->t_susp_passive = nic_tb_now(m->tb) - t;
    if (m->o->fault == MIG_FAULT_ABORT && m->o->abort_phase == MIG_PHASE_SUSPENDED_PASSIVE) { abort_migration(m); return; }
    m->step = S_FINAL;
}

static void resume_on_destination(mig_t *m) {
    struct mig_resp r;
    if (!fw(m, false, MIG_CMD_RESUME_PASSIVE, 0, 0, MIG_OK, &r)) return;
    m->active_at = nic_tb_now(m->tb);
    if (!fw(m, false, MIG_CMD_RESUME_ACTIVE, 0, 0, MIG_OK, &r)) return;
    nic_tb_detach(m->tb, NIC_A);
    scen_move_side(m->s, 0, NIC_A2);
    scen_hold_vm(m->s, false);
    m->resumed_at = nic_tb_now(m->tb);
    m->step = S_DONE;
}

/* the VM posts its second wave of work (held since set-up) */
static void release_work(mig_t *m) {
    for (int i = 0; i < m->s->nep; i++) scen_ep(m->s, i)->sends_held = false;
    m->released = true;
}

static bool step(mig_t *m) {
    struct mig_resp r;
    switch (m->step) {
    case S_WAIT:
        if (nic_tb_now(m->tb) < m->start) return true;
        if (m->o->fault == MIG_FAULT_NOT_EMPTY &&
            nic_tb_create_cq(m->tb, NIC_A2, FN, 0x3f, 0x7c000000, 4)) { fail(m, "CREATE_CQ on A' failed"); return false; }
        m->precopy_at = nic_tb_now(m->tb);
        m->precopy_wire_bytes = wire_stats(nic_tb_wire(m->tb))->sent_bytes;
        if (!fw(m, true, MIG_CMD_PRECOPY_START, 0, 0, MIG_OK, &r)) return false;
        m->step = S_PRECOPY;
        return true;
    case S_PRECOPY:
        if (m->o->fault == MIG_FAULT_NOT_EMPTY && !m->faulted) {
            /* the first block already meets a destination that is not empty */
            m->faulted = true;
            unsigned k = m->blk++ % RING;
            uint8_t b[MIG_BLOCK_SIZE];
            if (!fw(m, true, MIG_CMD_IMAGE_SAVE, 0, IMG_A + 512ull * k, MIG_OK, &r)) return false;
            transfer(m, k, b);
            hostmem_write(nic_tb_mem(m->tb, NIC_A2), IMG_B + 512ull * k, b, MIG_BLOCK_SIZE);
            if (fw(m, false, MIG_CMD_IMAGE_LOAD, 0, IMG_B + 512ull * k, MIG_E_NOT_EMPTY, &r)) {
                bool ok = r.reason == MIG_R_DEST_CQ_IN_USE && r.value[0] == 0x3f % 16;
                printf("%s migration %s: non-empty destination refused: reason %u value %" PRIu64 " (want %u, CQ slot 15)\n",
                       ok ? "PASS" : "FAIL", m->name, r.reason, r.value[0], MIG_R_DEST_CQ_IN_USE);
                m->failures += !ok;
            }
            abort_migration(m);
            return false;
        }
        if (!move_block(m, &r)) return m->step != S_DONE;
        if (m->o->fault == MIG_FAULT_ABORT && m->o->abort_phase == MIG_PHASE_PRECOPY && m->passes >= 1) {
            abort_migration(m);
            return false;
        }
        /* pre-copy converges: nothing dirty now, or a full pass and two delta passes done */
        if (r.answer == MIG_SAVE_NOTHING_NOW || m->passes >= 3) m->step = S_SUSPEND;
        return true;
    case S_SUSPEND:
        if (!m->released) {
            release_work(m);
            m->suspend_at = nic_tb_now(m->tb) + m->settle;
        }
        if (nic_tb_now(m->tb) < m->suspend_at) return true;
        suspend(m);
        return m->step != S_DONE;
    case S_FINAL:
        if (!move_block(m, &r)) return m->step != S_DONE;
        if (m->o->fault == MIG_FAULT_ABORT && m->o->abort_phase == MIG_PHASE_FINAL_PASS && m->final_blocks == 2 &&
            r.answer != MIG_SAVE_PASS_END) {
            abort_migration(m);
            return false;
        }
        if (r.answer == MIG_SAVE_PASS_END && (r.value[2] & MIG_IMG_FINAL)) m->step = S_RESUME;
        return true;
    case S_RESUME:
        resume_on_destination(m);
        return false;
    case S_DONE:
    default: return false;
    }
}

/* The late pairs' hosts go on with their set-up while their VM runs: both INIT at
 * PreCopy-Start, then (seeded) at once or just before the VM is held as far as
 * setup_at_suspend, the rest once the VM runs again, on A' after a move. */
static void advance_setup(mig_t *m) {
    unsigned want = m->step == S_WAIT ? 0
                    : m->step == S_PRECOPY && !m->setup_early ? SETUP_BOTH_INIT
                    : m->step == S_DONE ? SETUP_STEPS : m->setup_at_suspend;
    if (m->s->paused) return;
    for (; m->setup_done < want && m->failures == 0; m->setup_done++)
        for (unsigned q = 0; q < m->late; q++) {
            int e = m->late_ep[q] + (int)setup_steps[m->setup_done].side;
            if (scen_ep(m->s, e)->state + 1 != setup_steps[m->setup_done].to || scen_qp_advance(m->s, e)) {
                fail(m, "late QP 0x%x: set-up step to state %u failed", scen_ep(m->s, e)->qpn, setup_steps[m->setup_done].to);
                return;
            }
        }
}

/* A migration that ended without A' resuming was given up (a fault, an abort, a failure):
 * the PF resumes the source, and the scenario goes on on A. */
static bool tick(scen_t *s, void *arg) {
    mig_t *m = arg;
    (void)s;
    advance_setup(m);
    bool busy = step(m);
    if (m->step == S_DONE && !m->resumed_at && !m->aborted) abort_migration(m);
    advance_setup(m);
    if (m->step == S_DONE && !m->released) release_work(m);   /* given up before the point */
    return (busy && m->step != S_DONE) || (m->late && m->setup_done < SETUP_STEPS && !m->failures);
}

/* the peer saw nothing: every QP of B still in RTS */
static void check_peer(mig_t *m) {
    unsigned bad = 0;
    for (int i = 0; i < m->s->nep; i++) {
        const scen_ep_t *e = scen_ep(m->s, i);
        if (e->nic != 1) continue;
        nic_cmd_t c = {.op = NIC_CMD_QUERY_QP, .fn = e->fn, .num = e->qpn};
        nic_cmd_resp_t r;
        if (nic_tb_cmd(m->tb, NIC_B, &c, &r) != NIC_CMD_OK || r.qp.state != NIC_QPS_RTS) bad++;
    }
    printf("%s migration %s: the peer's %u QPs are all in RTS (%u not)\n", bad ? "FAIL" : "PASS", m->name, (unsigned)m->s->nep / 2, bad);
    m->failures += bad != 0;
}

/* A function moved between implementations (mode NIC_TB_PER_NIC): it ran on A's model before
 * the move and on A''s after it, each sending frames, while the peer ran on B's. */
static void check_models(mig_t *m) {
    nic_tb_t *tb = m->tb;
    uint64_t a = nic_tb_frames_sent(tb, NIC_A), b = nic_tb_frames_sent(tb, NIC_B), a2 = nic_tb_frames_sent(tb, NIC_A2);
    bool ok = a && b && a2;
    printf("%s migration %s: moved from A (%s, %" PRIu64 " frames sent) to A' (%s, %" PRIu64 " frames sent), the peer B live (%s, %" PRIu64 " frames sent)\n",
           ok ? "PASS" : "FAIL", m->name, nic_tb_mode_name(nic_tb_mode(tb, NIC_A)), a, nic_tb_mode_name(nic_tb_mode(tb, NIC_A2)), a2,
           nic_tb_mode_name(nic_tb_mode(tb, NIC_B)), b);
    m->failures += !ok;
}

int mig_scen_run(const mig_scen_opts_t *o) {
    static const char *faults[] = {"migrate", "abort", "corrupt", "truncated", "tag", "not-empty", "collide", "hw-refuses"};
    char name[64], sent[512] = "", deliv[512] = "";
    snprintf(name, sizeof name, "%s%s seed %" PRIu64, faults[o->fault], o->fault == MIG_FAULT_ABORT ? "-at-phase" : "", o->seed);
    if (o->pcap_dir) {
        snprintf(sent, sizeof sent, "%s/mig-%s-%" PRIu64 ".pcap", o->pcap_dir, faults[o->fault], o->seed);
        snprintf(deliv, sizeof deliv, "%s/mig-%s-%" PRIu64 "-delivered.pcap", o->pcap_dir, faults[o->fault], o->seed);
    }
    mig_t *m = calloc(1, sizeof *m);
    m->o = o;
    m->name = name;
    scen_opts_t so = {.mode = o->mode, .iface = o->iface, .seed = o->seed, .pcap = o->pcap_dir ? sent : NULL,
                      .arena = 16u << 20, .nics = 3, .max_cycles = o->max_cycles, .tick = tick, .tick_arg = m, .verbose = o->verbose};
    if (o->lossy) { so.wire.p_loss = 0.003; so.wire.p_dup = 0.003; so.wire.p_reorder = 0.01; }
    if (o->pcap_dir) so.wire.pcap_delivered = deliv;
    memcpy(so.nic_mode, o->nic_mode, sizeof o->nic_mode);
    /* across implementations the RTL NIC starts as hardware may: its registers without reset
     * random, where the C model holds zeros (lock-step keeps them equal) */
    if (o->mode == NIC_TB_PER_NIC) so.rtl_scramble_seed = o->seed;
    m->s = scen_new(&so);
    if (!m->s) { free(m); printf("FAIL migration %s: scenario set-up\n", name); return 1; }
    m->tb = scen_tb(m->s);
    prng_t *g = scen_rng(m->s);
    scen_qp_opts_t qo;
    scen_qp_opts_default(&qo);
    qo.sq_log = 8;
    qo.rq_log = 8;
    /* one pair at least carries traffic from the start */
    unsigned late_qps = o->late_qps < o->qps ? o->late_qps : o->qps - 1;
    /* DA3: both sides' QPs time out in backoff mode, a first timeout of 2^7 x 1024 cycles
     * (above the round trip of a loaded link: 2^4 fired on queueing delay alone) doubling up to
     * 2^14 x 1024, so packets the suspended function dropped are resent soon and the downtime
     * never exhausts a retry count. A fixed timeout long enough never to fire without loss
     * (the scenarios' 2^12 x 1024) left both sides waiting past the run's end after a move */
    qo.backoff = true;
    qo.backoff_first = 7;
    qo.backoff_cap = 14;
    for (unsigned q = 0; q < o->qps && m->failures == 0; q++) {
        qo.pmtu = 1 + (unsigned)prng_below(g, 5);
        /* the last late_qps pairs connect during the migration */
        qo.late = q + late_qps >= o->qps;
        int e = scen_pair(m->s, FN, 0x100 + q, 0x200 + q, &qo);
        if (e < 0) { m->failures++; break; }
        if (qo.late) m->late_ep[m->late++] = e;
        for (int side = 0; side < 2; side++)
            for (unsigned k = 0; k < o->ops; k++) scen_add_random(m->s, e + side, 0x7f, q % 2 || o->max_len_all ? o->max_len : 4096);
        for (int side = 0; side < 2 && !qo.late && !o->one_wave; side++) {
            scen_ep(m->s, e + side)->sends_held = true;
            scen_ep(m->s, e + side)->hold_from = o->ops / 2;
        }
        if (q == 1) scen_ep(m->s, e + 1)->recv_hold_until = nic_tb_now(m->tb) + 3000; /* RNR NAKs on this QP */
    }
    struct mig_resp r;
    struct mig_hal ha = mig_hal_tb(&m->ha, m->tb, NIC_A), hb = mig_hal_tb(&m->hb, m->tb, NIC_A2);
    m->ha.unserved = m->hb.unserved = o->unserved;
    if (mig_fw_init(&m->fa, &ha, &r) || mig_fw_init(&m->fb, &hb, &r)) { printf("FAIL migration %s: firmware init status %u\n", name, r.status); m->failures++; }
    m->start = nic_tb_now(m->tb) + (o->start_after ? o->start_after : 200 + prng_below(g, 20000));
    /* how far the late pairs' set-up has gone at the hold: both INIT, both RTR, B in RTS and
     * A in RTR, or done */
    static const unsigned at_suspend[] = {SETUP_BOTH_INIT, 4, 5, SETUP_STEPS};
    m->setup_at_suspend = at_suspend[prng_below(g, 4)];
    m->setup_early = prng_below(g, 2);
    m->settle = o->one_wave ? 0 : prng_below(g, 6000);
    if (!m->failures) m->failures += scen_run(m->s, name);
    if (o->mode == NIC_TB_LOCKSTEP) { /* the three NICs' C models against their RTL, every cycle */
        const char *mm = nic_tb_mismatch(m->tb);
        printf("%s migration %s: lock-step C model == RTL on every output every cycle, the move included%s%s\n",
               mm ? "FAIL" : "PASS", name, mm ? ": " : "", mm ? mm : "");
        m->failures += mm != NULL;
    }
    if (o->mode == NIC_TB_PER_NIC && m->resumed_at && !m->aborted) check_models(m);
    if (m->step != S_DONE) fail(m, "the migration did not finish (step %d)", m->step);
    if (o->fault != MIG_FAULT_NONE && !m->faulted && o->fault != MIG_FAULT_ABORT) fail(m, "the fault was never injected");
    if (o->fault != MIG_FAULT_NONE && !m->aborted) fail(m, "a faulty migration was not given up");
    bool migrated = !m->aborted && m->resumed_at;
    if (!m->failures) check_peer(m);
    if (migrated && m->classified)
        printf("info migration %s: migration points: %s %u, %s %u, %s %u, %s %u\n", name, mig_point_names[0], m->points[0],
               mig_point_names[1], m->points[1], mig_point_names[2], m->points[2], mig_point_names[3], m->points[3]);
    if (migrated)
        printf("info migration %s: suspend-active %" PRIu64 " cycles, suspend-passive %" PRIu64 ", VM held %" PRIu64
               ", image %" PRIu64 " B, stop-and-copy %" PRIu64 " B, %u pre-copy passes, device downtime %" PRIu64 " cycles\n",
               name, m->t_susp_active, m->t_susp_passive, m->resumed_at - m->hold_at, m->image_bytes, m->stopcopy_bytes, m->passes, m->downtime);
    /* losses the resend count may attribute to the wire (its impairments and full buffers) */
    const wire_stats_t *ws = wire_stats(nic_tb_wire(m->tb));
    printf("info migration %s: wire sent %" PRIu64 " frames, lost %" PRIu64 ", dropped by full buffers %" PRIu64 "\n", name, ws->sent,
           ws->lost, ws->buffer_dropped);
    if (o->figures) {
        mig_scen_figures_t f = {0};
        if (migrated && !m->failures)
            f = (mig_scen_figures_t){.migrated = true, .suspend_active = m->t_susp_active, .suspend_passive = m->t_susp_passive,
                                     .downtime = m->downtime, .vm_held = m->resumed_at - m->hold_at, .image_bytes = m->image_bytes,
                                     .full_pass_bytes = m->full_pass_bytes, .stopcopy_bytes = m->stopcopy_bytes,
                                     .qp_record_bytes = m->qp_record_bytes, .qp_records = m->qp_records, .passes = m->passes,
                                     .precopy_cycles = m->hold_at - m->precopy_at, .precopy_wire_bytes = m->precopy_wire_bytes};
        *o->figures = f;
    }
    uint64_t mac = scen_mac(0, FN);
    uint32_t qpn[MIG_SCEN_MAX_QPS], dqpn[MIG_SCEN_MAX_QPS];
    unsigned nq = 0;
    for (int i = 0; i < m->s->nep && nq < MIG_SCEN_MAX_QPS; i++)
        if (scen_ep(m->s, i)->nic == 0) qpn[nq] = scen_ep(m->s, i)->qpn, dqpn[nq++] = scen_ep(m->s, scen_ep(m->s, i)->peer)->qpn;
    uint64_t moved = m->moved_at, stopped = m->hold_at, active = m->active_at;
    bool wire_dropped = ws->lost || ws->buffer_dropped;   /* read before the scenario is freed */
    scen_free(m->s);
    if (migrated && o->pcap_dir && !m->failures) {
        unsigned worst = 0, total = 0, explained = 0, before = 0, after = 0, reissued = 0, worst_re = 0;
        unsigned peer_dropped = 0, peer_taken = 0, peer_judged = 0, peer_in_round = 0;
        uint64_t peer_slowest = 0;        /* the latest first resend of a judged QP, from its ready point */
        uint32_t worst_qpn = 0;
        bool read_ok = true;
        for (unsigned q = 0; q < nq; q++) {
            mig_resends_t rs;
            mig_peer_resends_t pr;
            read_ok &= mig_count_resends(sent, deliv, mac, qpn[q], dqpn[q], moved, 0, &rs) == 0;
            read_ok &= mig_count_peer_resends(sent, deliv, mac, qpn[q], dqpn[q], stopped, active, 0, &pr) == 0;
            unsigned own = rs.resent - rs.explained;
            /* judged: a QP the peer's packets were dropped for, whose peer was not inside a
             * resend round at the stop; timed from when its READ responses were out */
            bool judged_qp = pr.dropped && !pr.in_round;
            uint64_t late = pr.first_resend == UINT64_MAX ? UINT64_MAX
                            : pr.first_resend > pr.reads_out ? pr.first_resend - pr.reads_out : 0;
            peer_dropped += pr.dropped;
            peer_taken += pr.taken;
            peer_judged += judged_qp;
            peer_in_round += pr.dropped && pr.in_round;
            if (judged_qp && late > peer_slowest) peer_slowest = late;
            char first[96] = "";
            if (pr.first_resend != UINT64_MAX)
                snprintf(first, sizeof first, ", the first %" PRIu64 " cycles after Resume-Active (%" PRIu64 " after its READ responses)",
                         pr.first_resend, late);
            printf("info migration %s: QP 0x%x: resent by A' %u (%u the migration's, at most 1), READ/atomic re-issued %u; "
                   "the peer's packets dropped while suspended %u%s%s; taken before the gate closed %u\n",
                   name, qpn[q], rs.resent, own, rs.reissued, pr.dropped, first,
                   pr.dropped && pr.in_round ? "; the peer was inside a resend round at the stop" : "", pr.taken);
            if (own > worst) worst = own, worst_qpn = qpn[q];
            total += rs.resent;
            explained += rs.explained;
            before += rs.sent_before;
            after += rs.sent_after;
            reissued += rs.reissued;
            worst_re = rs.reissued > worst_re ? rs.reissued : worst_re;
        }
        /* the pcaps must show the QPs' requests from A, or a count of 0 proves nothing */
        bool ok = read_ok && worst <= 1 && before > 0;
        bool info = o->lossy && o->lossy_bound_info;
        printf("%s migration %s: each QP resent at most one packet because of the migration (worst %u, QP 0x%x; %u resent, %u explained by the wire; requests %u from A, %u from A' from cycle %" PRIu64 ")\n",
               info ? (ok ? "info holds:" : "info exceeded:") : ok ? "PASS" : "FAIL", name, worst, worst_qpn, total, explained, before, after, moved);
        printf("info migration %s: READ/atomic requests re-issued for responses the source dropped: %u (worst QP %u)\n", name,
               reissued, worst_re);
        /* the resume NAKs bring the peer's resends at once: far below its first ACK timeout
         * (2^7 x 1024 cycles), counted from when the QP's READ responses owed at the resume
         * were out (the NAK goes after them). Checked when the wire dropped nothing: a lost
         * NAK or resend costs the timeout, and full switch buffers (1 MiB seeds) delay
         * everything. Not judged: a QP whose peer was inside a resend round at the stop; it
         * takes no second sequence NAK until that round progresses (ours, and rxe's
         * started_retry), so its timeout recovers (docs/migration.md) */
        bool quick = peer_slowest <= MIG_PEER_RESEND_WITHIN, judged = peer_judged && !wire_dropped;
        char slowest[64] = "";
        if (peer_slowest == UINT64_MAX) snprintf(slowest, sizeof slowest, "; a QP whose peer never resent after the resume");
        else if (peer_judged) snprintf(slowest, sizeof slowest, "; the slowest QP's first resend %" PRIu64 " cycles", peer_slowest);
        printf("%s migration %s: the peer resent its packets the suspended function dropped within %u cycles of Resume-Active "
               "and the QP's READ responses (%u PSNs dropped on %u QPs judged%s, %u QPs whose peer was in a resend round; "
               "%u PSNs taken before the gate closed)\n",
               !judged ? "info" : quick ? "PASS" : "FAIL", name, MIG_PEER_RESEND_WITHIN, peer_dropped, peer_judged, slowest,
               peer_in_round, peer_taken);
        m->failures += !ok && !info;
        m->failures += judged && !quick;
    }
    int f = m->failures;
    free(m);
    return f;
}
