/* mig_cmd_suspend.c — Suspend-Active/Passive and Resume-Passive/Active: the quiesce
 * handshake. Each is a request to the datapath and a bounded poll of its status; a timeout
 * asks for the level the function had before and leaves the migration state as it was.
 * Resume-Passive then Resume-Active brings a source back to RUNNING from any suspended
 * phase (abort); Resume-Active in LOADING abandons a load that has not committed. */
#include "mig_cmds.h"

#include "mig_cost.h"

int mig_suspend_to(struct mig_fw *fw, unsigned fn, enum mig_level level, enum mig_level undo,
                   struct mig_resp *resp)
{
    int rc = mig_hal_suspend_request(&fw->hal, fn, level);
    enum mig_level reached = MIG_LEVEL_RUN;
    for (unsigned poll = 0; rc == MIG_OK && poll < MIG_SUSPEND_POLLS; poll++) {
        mig_hal_spend(&fw->hal, MIG_COST_POLL);
        rc = mig_hal_suspend_status(&fw->hal, fn, &reached);
        if (rc == MIG_OK && reached == level) return MIG_OK;
    }
    if (rc != MIG_OK)
        return mig_hal_fail(resp, rc, MIG_HAL_OP_SUSPEND_STATUS);
    mig_hal_suspend_request(&fw->hal, fn, undo); /* best effort: the timeout is the news */
    return mig_fail(resp, MIG_E_TIMEOUT, MIG_R_SUSPEND, level, reached);
}

int mig_cmd_suspend_active(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    enum mig_state from = (enum mig_state)fw->state[cmd->fn];
    int rc = mig_suspend_to(fw, cmd->fn, MIG_LEVEL_ACTIVE, MIG_LEVEL_RUN, resp);
    if (rc != MIG_OK) return rc;
    /* the datapath has stopped the function's DMA; its last posted writes may still be on
     * the fabric: the flush read makes them land before Suspend-Active is answered (DA12) */
    rc = mig_hal_flush_writes(&fw->hal, cmd->fn);
    if (rc != MIG_OK) {
        mig_hal_suspend_request(&fw->hal, cmd->fn, MIG_LEVEL_RUN);
        return mig_hal_fail(resp, rc, MIG_HAL_OP_FLUSH_WRITES);
    }
    if (from == MIG_ST_RUNNING) mig_save_reset(fw); /* no pre-copy: the final pass is full */
    return mig_state_cas(fw, cmd->fn, from, MIG_ST_SUSPENDED_ACTIVE, resp);
}

int mig_cmd_suspend_passive(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    int rc = mig_suspend_to(fw, cmd->fn, MIG_LEVEL_PASSIVE, MIG_LEVEL_ACTIVE, resp);
    if (rc != MIG_OK) return rc;
    return mig_state_cas(fw, cmd->fn, MIG_ST_SUSPENDED_ACTIVE, MIG_ST_SUSPENDED_PASSIVE, resp);
}

int mig_cmd_resume_passive(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    int rc = mig_suspend_to(fw, cmd->fn, MIG_LEVEL_ACTIVE, MIG_LEVEL_PASSIVE, resp);
    if (rc != MIG_OK) return rc;
    return mig_state_cas(fw, cmd->fn, MIG_ST_SUSPENDED_PASSIVE, MIG_ST_SUSPENDED_ACTIVE, resp);
}

int mig_cmd_resume_active(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    unsigned fn = cmd->fn;
    if (fw->state[fn] == MIG_ST_LOADING) {
        mig_load_reset(fw); /* nothing was written: the function is as it was */
        return mig_state_cas(fw, fn, MIG_ST_LOADING, MIG_ST_RUNNING, resp);
    }
    int rc = mig_suspend_to(fw, fn, MIG_LEVEL_RUN, MIG_LEVEL_ACTIVE, resp);
    if (rc == MIG_OK) rc = mig_precopy_off(fw, fn, resp);
    if (rc != MIG_OK) return rc;
    if (fw->loaded[fn]) {
        /* the function now lives here: let the switches learn its MAC on this port */
        fw->loaded[fn] = false;
        rc = mig_hal_announce(&fw->hal, fn);
        if (rc != MIG_OK)
            mig_hal_fail(resp, rc, MIG_HAL_OP_ANNOUNCE);
    }
    int cas = mig_state_cas(fw, fn, MIG_ST_SUSPENDED_ACTIVE, MIG_ST_RUNNING, resp);
    return rc != MIG_OK ? rc : cas;
}
