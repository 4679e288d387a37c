/* mig_cmd_throttle.c — DevThrottle (DA9): limit the rate at which the function writes host
 * memory, so pre-copy converges on a busy function. The rate travels in the image's function
 * record and is set again on the destination. value[0] answers the function's host-write
 * byte counter, so the PF can see the effect. */
#include "mig_cmds.h"

int mig_cmd_dev_throttle(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    int rc = mig_hal_throttle_set(&fw->hal, cmd->fn, cmd->rate);
    if (rc != MIG_OK)
        return mig_hal_fail(resp, rc, MIG_HAL_OP_THROTTLE_SET);
    fw->throttle[cmd->fn] = cmd->rate;
    rc = mig_hal_counter_read(&fw->hal, cmd->fn, MIG_COUNTER_HOST_WRITE_BYTES, &resp->value[0]);
    if (rc != MIG_OK)
        return mig_hal_fail(resp, rc, MIG_HAL_OP_COUNTER_READ);
    return MIG_OK;
}
