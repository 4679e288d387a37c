/* mig_cmd_precopy.c — PreCopy-Start/Stop: dirty tracking on and off. While it is on, each
 * save pass after the first carries only the rows written since the pass before (DA8).
 * Save-Reset starts the save over for a suspended function: pre-copy ended while it stays
 * suspended-active (VFIO's PRE_COPY_P2P -> RUNNING_P2P), or a pass the PF could not deliver
 * abandoned; either way the next pass must be a full image. */
#include "mig_cmds.h"

static int track(struct mig_fw *fw, unsigned fn, bool on, struct mig_resp *resp)
{
    int rc = mig_hal_dirty_track(&fw->hal, fn, on);
    if (rc != MIG_OK)
        return mig_hal_fail(resp, rc, MIG_HAL_OP_DIRTY_TRACK);
    return MIG_OK;
}

int mig_cmd_precopy_start(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    int rc = track(fw, cmd->fn, true, resp);
    if (rc != MIG_OK) return rc;
    mig_save_reset(fw);
    fw->save.tracked = true;
    return mig_state_cas(fw, cmd->fn, MIG_ST_RUNNING, MIG_ST_PRECOPY, resp);
}

int mig_cmd_precopy_stop(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    int rc = track(fw, cmd->fn, false, resp);
    if (rc != MIG_OK) return rc;
    mig_save_reset(fw);
    return mig_state_cas(fw, cmd->fn, MIG_ST_PRECOPY, MIG_ST_RUNNING, resp);
}

int mig_cmd_save_reset(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    int rc = mig_precopy_off(fw, cmd->fn, resp);
    if (rc == MIG_OK) mig_save_reset(fw); /* untracked too: a pass cut short starts over */
    return rc;
}

/* used by Resume-Active: the source runs again untracked */
int mig_precopy_off(struct mig_fw *fw, unsigned fn, struct mig_resp *resp)
{
    if (!fw->save.tracked) return MIG_OK;
    int rc = track(fw, fn, false, resp);
    if (rc == MIG_OK) mig_save_reset(fw);
    return rc;
}
