/* dev_mig_reset.c — VFIO_DEVICE_RESET of one function (hlsnic_vfio_reset): whatever its
 * migration state, even ERROR, the function ends RUNNING with no QP, CQ or MR, as a
 * function-level reset leaves a VF. The model has no reset line per function, so the device
 * does what one would: it freezes the function (suspend-passive: nothing of it in flight in
 * the datapath), clears every QP, CQ and MR row of it through the context port — the inverse
 * of a load into an empty function, the same rows and sections — turns its throttle off, and
 * resumes it. The function record (MAC, IP) stays: the address the function was given. */
#include "dev_internal.h"

#include <errno.h>

static const unsigned object_tables[] = {MIG_TABLE_QP, MIG_TABLE_CQ, MIG_TABLE_MR};

/* from any firmware state to suspended-passive: at most four commands */
static int freeze(hlsnic_dev_t *d, unsigned fn) {
    struct mig_resp r = {0};
    dev_fw(d, fn, MIG_CMD_QUERY_TAG, &r);
    for (unsigned k = 0; k < 4 && r.state != MIG_ST_SUSPENDED_PASSIVE; k++) {
        static const uint8_t step[MIG_STATES] = {
            [MIG_ST_RUNNING] = MIG_CMD_SUSPEND_ACTIVE,  [MIG_ST_PRECOPY] = MIG_CMD_PRECOPY_STOP,
            [MIG_ST_SUSPENDED_ACTIVE] = MIG_CMD_SUSPEND_PASSIVE, [MIG_ST_LOADING] = MIG_CMD_RESUME_ACTIVE,
        };
        if (r.state >= MIG_STATES || dev_fw(d, fn, step[r.state], &r) != MIG_OK) return -EIO;
    }
    return r.state == MIG_ST_SUSPENDED_PASSIVE ? 0 : -EIO;
}

static int clear_objects(hlsnic_dev_t *d, unsigned fn) {
    struct mig_fw *fw = &d->mig[fn].fw;
    static const mig_row_t empty;
    struct mig_resp r = {0};
    for (unsigned i = 0; i < sizeof object_tables / sizeof *object_tables; i++) {
        unsigned t = object_tables[i];
        for (unsigned row = 0; row < fw->caps.rows[t]; row++) {
            bool valid;
            if (mig_row_valid(fw, t, fn, row, &valid, &r) != MIG_OK) return -EIO;
            if (valid && mig_row_write(fw, t, fn, row, empty, &r) != MIG_OK) return -EIO;
        }
    }
    return 0;
}

static int fw_ok(int status) { return status == MIG_OK ? 0 : -EIO; }

int dev_mig_reset_fn(hlsnic_dev_t *d, unsigned fn) {
    struct mig_resp r;
    int rc = freeze(d, fn);
    if (!rc) rc = fw_ok(dev_fw(d, fn, MIG_CMD_SAVE_RESET, &r));
    if (!rc) rc = fw_ok(dev_fw(d, fn, MIG_CMD_DEV_THROTTLE, &r)); /* rate 0: off */
    if (!rc) rc = clear_objects(d, fn);
    if (!rc) rc = fw_ok(dev_fw(d, fn, MIG_CMD_RESUME_PASSIVE, &r));
    if (!rc) rc = fw_ok(dev_fw(d, fn, MIG_CMD_RESUME_ACTIVE, &r));
    if (rc) return rc;
    dev_fn_t *f = &d->fn[fn]; /* the events of objects that are gone */
    f->ev_head = f->ev_n = 0;
    f->ev_lost = 0;
    return 0;
}
