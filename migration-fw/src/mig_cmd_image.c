/* mig_cmd_image.c — ImageBlock-Save and ImageBlock-Load: one block per command, so transfer
 * and load overlap (the PF can forward block n while block n+1 is being saved). */
#include "mig_cmds.h"

int mig_cmd_image_save(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    return mig_save_next(fw, cmd->fn, cmd->host_addr, resp);
}

int mig_cmd_image_load(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    return mig_load_block(fw, cmd->fn, cmd->host_addr, (cmd->flags & MIG_LOAD_LAST) != 0, resp);
}
