/* mig_cmd_query.c — QueryTag, QueryBlockSize and the image size left (pre-copy needs it to
 * decide when to stop iterating). */
#include "mig_cmds.h"

int mig_cmd_query_tag(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    (void)cmd;
    resp->value[0] = MIG_LAYOUT_VERSION;
    resp->value[1] = MIG_FEATURE_VERSION;
    resp->value[2] = mig_capacity_version(&fw->caps);
    return MIG_OK;
}

int mig_cmd_query_block_size(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    (void)fw, (void)cmd;
    resp->value[0] = MIG_BLOCK_SIZE;
    return MIG_OK;
}

int mig_cmd_query_size_left(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    return mig_save_bytes_left(fw, cmd->fn, &resp->value[0], resp);
}
