/* mig_cmd.c — the mailbox: one descriptor per command (the states it is allowed in, whether
 * it takes the one migration slot), dispatch, and the response's common fields. */
#include "mig_cmds.h"

#include "mig_cost.h"
#include "mig_libc.h"

#define ST(s) (1u << MIG_ST_##s)
#define ANY (ST(RUNNING) | ST(PRECOPY) | ST(SUSPENDED_ACTIVE) | ST(SUSPENDED_PASSIVE) | ST(LOADING))

struct mig_cmd_desc {
    uint8_t states;             /* bit per enum mig_state the command is allowed in */
    bool query;                 /* reads only: allowed while another function migrates */
    mig_handler_fn *run;
};

static const struct mig_cmd_desc commands[MIG_CMD_OPCODES] = {
    [MIG_CMD_QUERY_TAG] = { ANY, true, mig_cmd_query_tag },
    [MIG_CMD_QUERY_BLOCK_SIZE] = { ANY, true, mig_cmd_query_block_size },
    [MIG_CMD_QUERY_SIZE_LEFT] = { ST(PRECOPY) | ST(SUSPENDED_ACTIVE) | ST(SUSPENDED_PASSIVE),
                                  false, mig_cmd_query_size_left },
    [MIG_CMD_PRECOPY_START] = { ST(RUNNING), false, mig_cmd_precopy_start },
    [MIG_CMD_PRECOPY_STOP] = { ST(PRECOPY), false, mig_cmd_precopy_stop },
    [MIG_CMD_DEV_THROTTLE] = { ST(RUNNING) | ST(PRECOPY) | ST(SUSPENDED_ACTIVE) | ST(SUSPENDED_PASSIVE),
                               false, mig_cmd_dev_throttle },
    [MIG_CMD_SUSPEND_ACTIVE] = { ST(RUNNING) | ST(PRECOPY), false, mig_cmd_suspend_active },
    [MIG_CMD_SUSPEND_PASSIVE] = { ST(SUSPENDED_ACTIVE), false, mig_cmd_suspend_passive },
    [MIG_CMD_RESUME_PASSIVE] = { ST(SUSPENDED_PASSIVE), false, mig_cmd_resume_passive },
    [MIG_CMD_RESUME_ACTIVE] = { ST(SUSPENDED_ACTIVE) | ST(LOADING), false, mig_cmd_resume_active },
    [MIG_CMD_IMAGE_SAVE] = { ST(PRECOPY) | ST(SUSPENDED_PASSIVE), false, mig_cmd_image_save },
    [MIG_CMD_IMAGE_LOAD] = { ST(RUNNING) | ST(LOADING), false, mig_cmd_image_load },
    [MIG_CMD_SAVE_RESET] = { ST(SUSPENDED_ACTIVE) | ST(SUSPENDED_PASSIVE), false, mig_cmd_save_reset },
};

void mig_fw_command(struct mig_fw *fw, const struct mig_cmd *cmd, struct mig_resp *resp)
{
    mig_memset(resp, 0, sizeof *resp);
    mig_hal_spend(&fw->hal, MIG_COST_COMMAND);
    const struct mig_cmd_desc *d = cmd->opcode < MIG_CMD_OPCODES ? &commands[cmd->opcode] : 0;
    if (!d || !d->run) {
        mig_fail(resp, MIG_E_OPCODE, MIG_R_OPCODE, cmd->opcode, 0);
    } else if (cmd->fn >= fw->caps.fns) {
        mig_fail(resp, MIG_E_ARG, MIG_R_FN, cmd->fn, fw->caps.fns);
        return; /* no state to report */
    } else if (!d->query && fw->active_fn >= 0 && fw->active_fn != cmd->fn) {
        mig_fail(resp, MIG_E_BUSY, MIG_R_FN, (uint64_t)fw->active_fn, cmd->fn);
    } else if (!(d->states & (1u << fw->state[cmd->fn]))) {
        mig_fail(resp, MIG_E_STATE, MIG_R_STATE, fw->state[cmd->fn], 0);
    } else {
        d->run(fw, cmd, resp);
    }
    if (cmd->fn < fw->caps.fns) resp->state = fw->state[cmd->fn];
}
