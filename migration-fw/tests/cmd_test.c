/* cmd_test.c — the mailbox: every command in every state, one function at a time, unknown
 * opcodes and functions, suspend timeout, DevThrottle, abort from every phase. */
#include "fixture.h"
#include "mig_libc.h"

#define IMG 0x8000u /* where test images sit in host memory */

/* the allowed matrix, written out independently of mig_cmd.c's descriptor table */
static const uint8_t allowed[MIG_CMD_OPCODES][MIG_STATES] = {
    /*                             RUN PRE SA  SP  LOAD */
    [MIG_CMD_QUERY_TAG] =        { 1,  1,  1,  1,  1 },
    [MIG_CMD_QUERY_BLOCK_SIZE] = { 1,  1,  1,  1,  1 },
    [MIG_CMD_QUERY_SIZE_LEFT] =  { 0,  1,  1,  1,  0 },
    [MIG_CMD_PRECOPY_START] =    { 1,  0,  0,  0,  0 },
    [MIG_CMD_PRECOPY_STOP] =     { 0,  1,  0,  0,  0 },
    [MIG_CMD_DEV_THROTTLE] =     { 1,  1,  1,  1,  0 },
    [MIG_CMD_SUSPEND_ACTIVE] =   { 1,  1,  0,  0,  0 },
    [MIG_CMD_SUSPEND_PASSIVE] =  { 0,  0,  1,  0,  0 },
    [MIG_CMD_RESUME_PASSIVE] =   { 0,  0,  0,  1,  0 },
    [MIG_CMD_RESUME_ACTIVE] =    { 0,  0,  1,  0,  1 },
    [MIG_CMD_IMAGE_SAVE] =       { 0,  1,  0,  1,  0 },
    [MIG_CMD_IMAGE_LOAD] =       { 1,  0,  0,  0,  1 },
    [MIG_CMD_SAVE_RESET] =       { 0,  0,  1,  1,  0 },
};
/* where an allowed command leaves the function */
static const uint8_t after[MIG_CMD_OPCODES][MIG_STATES] = {
    [MIG_CMD_PRECOPY_START] = { MIG_ST_PRECOPY },
    [MIG_CMD_PRECOPY_STOP] = { 0, MIG_ST_RUNNING },
    [MIG_CMD_SUSPEND_ACTIVE] = { MIG_ST_SUSPENDED_ACTIVE, MIG_ST_SUSPENDED_ACTIVE },
    [MIG_CMD_SUSPEND_PASSIVE] = { 0, 0, MIG_ST_SUSPENDED_PASSIVE },
    [MIG_CMD_RESUME_PASSIVE] = { 0, 0, 0, MIG_ST_SUSPENDED_ACTIVE },
    [MIG_CMD_RESUME_ACTIVE] = { 0, 0, MIG_ST_RUNNING, 0, MIG_ST_RUNNING },
    [MIG_CMD_IMAGE_LOAD] = { MIG_ST_LOADING, 0, 0, 0, MIG_ST_LOADING },
};
static const char *const state_names[MIG_STATES] = { "RUNNING", "PRECOPY", "SUSPENDED_ACTIVE",
                                                     "SUSPENDED_PASSIVE", "LOADING" };

/* a valid image's blocks at IMG in the destination's host memory */
static unsigned image_blocks;
static void make_image(void)
{
    rig_init(&t_src);
    fill_fn(&t_src.nic, 2, 4, 2, 5);
    image_blocks = save_final(&t_src, 2, IMG);
}

static void drive(struct rig *r, unsigned fn, unsigned state)
{
    struct mig_resp resp;
    rig_init(r);
    copy_blocks(&t_src, r, IMG, image_blocks);
    if (state == MIG_ST_PRECOPY) run(r, MIG_CMD_PRECOPY_START, fn, 0, 0, &resp);
    if (state == MIG_ST_SUSPENDED_ACTIVE || state == MIG_ST_SUSPENDED_PASSIVE)
        run(r, MIG_CMD_SUSPEND_ACTIVE, fn, 0, 0, &resp);
    if (state == MIG_ST_SUSPENDED_PASSIVE) run(r, MIG_CMD_SUSPEND_PASSIVE, fn, 0, 0, &resp);
    if (state == MIG_ST_LOADING) run(r, MIG_CMD_IMAGE_LOAD, fn, IMG, 0, &resp);
}

static void every_command_every_state(void)
{
    struct rig *r = &t_dst;
    struct mig_resp resp;
    unsigned bad = 0, checked = 0;
    make_image();
    for (unsigned s = 0; s < MIG_STATES; s++)
        for (uint8_t op = 1; op < MIG_CMD_OPCODES; op++) {
            drive(r, 1, s);
            if (r->fw.state[1] != s) { t_fail("drive", state_names[s], r->fw.state[1], s); bad++; continue; }
            /* the block a LOADING function expects next is block 1; in RUNNING, block 0 */
            uint64_t addr = IMG + (s == MIG_ST_LOADING ? MIG_BLOCK_SIZE : 0);
            int st = run(r, op, 1, addr, 0, &resp);
            checked++;
            if (!allowed[op][s]) {
                if (st != MIG_E_STATE || resp.reason != MIG_R_STATE || resp.value[0] != s || resp.state != s) {
                    t_fail(state_names[s], "not refused with MIG_E_STATE naming the state", op, st);
                    bad++;
                }
            } else if (st != MIG_OK) {
                t_fail(state_names[s], "allowed command failed", op, st * 100 + resp.reason);
                bad++;
            } else if (after[op][s] || op == MIG_CMD_PRECOPY_STOP || op == MIG_CMD_RESUME_ACTIVE) {
                if (resp.state != after[op][s]) { t_fail(state_names[s], "wrong next state", op, resp.state); bad++; }
            } else if (resp.state != s) {
                t_fail(state_names[s], "state changed", op, resp.state);
                bad++;
            }
        }
    if (!bad) t_pass("commands: 13 commands x 5 states: allowed ones move to the right state, others MIG_E_STATE naming it");
    (void)checked;
}

static void mailbox_errors(void)
{
    struct rig *r = &t_dst;
    struct mig_resp resp;
    rig_init(r);
    bool ok = run(r, 0, 0, 0, 0, &resp) == MIG_E_OPCODE && resp.reason == MIG_R_OPCODE;
    ok &= run(r, 200, 0, 0, 0, &resp) == MIG_E_OPCODE;
    ok &= run(r, MIG_CMD_QUERY_TAG, 4, 0, 0, &resp) == MIG_E_ARG && resp.reason == MIG_R_FN;
    ok &= run(r, MIG_CMD_SUSPEND_ACTIVE, 0, 0, 0, &resp) == MIG_OK;
    ok &= run(r, MIG_CMD_PRECOPY_START, 3, 0, 0, &resp) == MIG_E_BUSY && resp.reason == MIG_R_FN &&
          resp.value[0] == 0 && resp.state == MIG_ST_RUNNING;
    ok &= run(r, MIG_CMD_QUERY_TAG, 3, 0, 0, &resp) == MIG_OK && resp.value[0] == MIG_LAYOUT_VERSION &&
          resp.value[1] == MIG_FEATURE_VERSION && resp.value[2] == (4u | 4u << 8 | 6u << 16);
    ok &= run(r, MIG_CMD_QUERY_BLOCK_SIZE, 3, 0, 0, &resp) == MIG_OK && resp.value[0] == MIG_BLOCK_SIZE;
    if (ok) t_pass("commands: unknown opcode, bad function, busy while another function migrates; queries answer");
    else t_fail("mailbox errors", "status", resp.status, resp.reason);
}

static void suspend_timeout(void)
{
    struct rig *r = &t_dst;
    struct mig_resp resp;
    rig_init(r);
    r->nic.never_settle = true;
    int st = run(r, MIG_CMD_SUSPEND_ACTIVE, 1, 0, 0, &resp);
    bool ok = st == MIG_E_TIMEOUT && resp.reason == MIG_R_SUSPEND && resp.value[0] == MIG_LEVEL_ACTIVE &&
              resp.state == MIG_ST_RUNNING && r->nic.target[1] == MIG_LEVEL_RUN && r->fw.active_fn == -1;
    ok &= r->nic.fw_cycles >= 10000u * 8u; /* the bounded poll was charged */
    r->nic.never_settle = false;
    ok &= run(r, MIG_CMD_SUSPEND_ACTIVE, 1, 0, 0, &resp) == MIG_OK && r->nic.level[1] == MIG_LEVEL_ACTIVE;
    if (ok) t_pass("commands: a suspend that never settles times out, says so, and leaves the function RUNNING");
    else t_fail("suspend timeout", "status", st, resp.reason);
}

static void throttle(void)
{
    struct rig *r = &t_dst;
    struct mig_resp resp;
    rig_init(r);
    r->nic.counter[2][MIG_COUNTER_HOST_WRITE_BYTES] = 123456;
    bool ok = run(r, MIG_CMD_DEV_THROTTLE, 2, 0, 0, &resp) == MIG_OK; /* rate 0: off */
    struct mig_cmd c = { .opcode = MIG_CMD_DEV_THROTTLE, .fn = 2, .rate = 4096 };
    mig_fw_command(&r->fw, &c, &resp);
    ok &= resp.status == MIG_OK && r->nic.throttle[2] == 4096 && resp.value[0] == 123456 && r->nic.throttle[1] == 0;
    if (ok) t_pass("commands: DevThrottle passes the rate to the function and answers its host-write counter");
    else t_fail("throttle", "rate", r->nic.throttle[2], resp.value[0]);
}

/* abort from every phase of a source's migration: Resume-Passive / Resume-Active (or
 * PreCopy-Stop) bring it back to RUNNING, untouched and ready to migrate again */
static void abort_every_phase(void)
{
    struct rig *r = &t_dst;
    struct mig_resp resp;
    static const char *const phase[] = { "pre-copy", "pre-copy mid-pass", "suspended-active",
                                         "suspended-passive", "mid-final-save" };
    bool all = true;
    for (unsigned p = 0; p < 5; p++) {
        rig_init(r);
        fill_fn(&r->nic, 0, 6, 3, 8);
        static struct stub_nic before; /* 330 KB: not on the 64 KiB rv32 stack */
        before = r->nic;
        bool ok = true;
        if (p <= 1) {
            ok &= run(r, MIG_CMD_PRECOPY_START, 0, 0, 0, &resp) == MIG_OK;
            if (p == 1) ok &= run(r, MIG_CMD_IMAGE_SAVE, 0, IMG, 0, &resp) == MIG_OK;
            ok &= run(r, MIG_CMD_PRECOPY_STOP, 0, 0, 0, &resp) == MIG_OK;
        } else {
            ok &= run(r, MIG_CMD_PRECOPY_START, 0, 0, 0, &resp) == MIG_OK;
            ok &= run(r, MIG_CMD_SUSPEND_ACTIVE, 0, 0, 0, &resp) == MIG_OK;
            if (p >= 3) ok &= run(r, MIG_CMD_SUSPEND_PASSIVE, 0, 0, 0, &resp) == MIG_OK;
            if (p == 4) for (unsigned i = 0; i < 3; i++) ok &= run(r, MIG_CMD_IMAGE_SAVE, 0, IMG, 0, &resp) == MIG_OK;
            if (p >= 3) ok &= run(r, MIG_CMD_RESUME_PASSIVE, 0, 0, 0, &resp) == MIG_OK;
            ok &= run(r, MIG_CMD_RESUME_ACTIVE, 0, 0, 0, &resp) == MIG_OK;
        }
        ok &= resp.state == MIG_ST_RUNNING && r->nic.level[0] == MIG_LEVEL_RUN && !r->nic.tracking[0] &&
              r->fw.active_fn == -1 && fn_equal(&before, 0, &r->nic, 0) && r->nic.announces[0] == 0;
        /* and it can migrate afterwards: the next save starts a fresh pass at block 0 */
        unsigned n = save_final(r, 0, IMG);
        ok &= n > 3 && mig_get_le(block_at(r, IMG, 0) + MIG_BH_SEQ, 4) == 0 &&
              block_at(r, IMG, 0)[MIG_BH_KIND] == MIG_BLK_HDR;
        if (!ok) { t_fail("abort", phase[p], resp.status, resp.state); all = false; }
    }
    if (all) t_pass("commands: abort from pre-copy, mid-pass, suspended-active, suspended-passive, mid-save returns the source to RUNNING unchanged");
}

void cmd_tests(void)
{
    every_command_every_state();
    mailbox_errors();
    suspend_timeout();
    throttle();
    abort_every_phase();
}
