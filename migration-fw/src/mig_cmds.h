/* mig_cmds.h — the command handlers, one file per family (private to src/). A handler runs
 * after mig_cmd.c checked the function number, the state against the descriptor and the
 * one-function-at-a-time rule; it returns a mig_status and fills resp. */
#ifndef MIG_CMDS_H
#define MIG_CMDS_H

#include "mig_fw.h"

typedef int mig_handler_fn(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp);

mig_handler_fn mig_cmd_query_tag, mig_cmd_query_block_size, mig_cmd_query_size_left;
mig_handler_fn mig_cmd_precopy_start, mig_cmd_precopy_stop, mig_cmd_save_reset;
mig_handler_fn mig_cmd_dev_throttle;
mig_handler_fn mig_cmd_suspend_active, mig_cmd_suspend_passive;
mig_handler_fn mig_cmd_resume_passive, mig_cmd_resume_active;
mig_handler_fn mig_cmd_image_save, mig_cmd_image_load;

/* move fn to a quiesce level and wait for it (bounded); on timeout ask for `undo` again */
int mig_suspend_to(struct mig_fw *fw, unsigned fn, enum mig_level level, enum mig_level undo,
                   struct mig_resp *resp);
/* dirty tracking off and the save iterator reset, if pre-copy had turned tracking on */
int mig_precopy_off(struct mig_fw *fw, unsigned fn, struct mig_resp *resp);

#endif /* MIG_CMDS_H */
