/* dev_mig_fault.c — the migration firmware's HAL as the device gives it to the firmware: the
 * testbench's HAL over this NIC (mig_hal_tb.c), with a test hook that makes one operation of
 * one function fail as broken hardware would (hlsnic_vfio_test_fail_hal, hlsnic_vfio.h).
 *
 * A failure injected here reaches the firmware exactly where a real one would (a context read
 * in the middle of a save, a context write in a load's commit, the announce after a
 * Resume-Active), so a test sees the firmware's own answer to it and the VFIO state the
 * device then reports. */
#include "dev_internal.h"

#include <errno.h>
#include <stddef.h>

static hlsnic_dev_t *dev_of(void *hw) { return (hlsnic_dev_t *)((char *)hw - offsetof(hlsnic_dev_t, hal)); }

/* true when this call of op on fn is the one armed to fail (mu held: every HAL call is) */
static bool fails(void *hw, enum hlsnic_test_hal_op op, unsigned fn) {
    dev_hal_fault_t *f = &dev_of(hw)->hal_fault;
    if (!f->armed || f->op != op || f->fn != fn) return false;
    if (f->skip) {
        f->skip--;
        return false;
    }
    f->armed = false;
    return true;
}

static const struct mig_hal_ops *tb_ops(void *hw) { return dev_of(hw)->hal_tb_ops; }

static int ctx_read(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, uint32_t *w, unsigned n) {
    return fails(hw, HLSNIC_TEST_HAL_CTX_READ, fn) ? MIG_E_HW : tb_ops(hw)->ctx_read(hw, t, s, fn, row, w, n);
}
static int ctx_write(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, const uint32_t *w, unsigned n) {
    return fails(hw, HLSNIC_TEST_HAL_CTX_WRITE, fn) ? MIG_E_HW : tb_ops(hw)->ctx_write(hw, t, s, fn, row, w, n);
}
static int announce(void *hw, unsigned fn) {
    return fails(hw, HLSNIC_TEST_HAL_ANNOUNCE, fn) ? MIG_E_HW : tb_ops(hw)->announce(hw, fn);
}

struct mig_hal dev_mig_hal(hlsnic_dev_t *d) {
    struct mig_hal tb = mig_hal_tb(&d->hal, d->tb, 0);
    d->hal_tb_ops = tb.ops;
    d->hal_ops = *tb.ops; /* every other op is the testbench's own */
    d->hal_ops.ctx_read = ctx_read;
    d->hal_ops.ctx_write = ctx_write;
    d->hal_ops.announce = announce;
    return (struct mig_hal){&d->hal_ops, tb.hw};
}

int hlsnic_vfio_test_fail_hal(hlsnic_dev_t *d, unsigned fn, enum hlsnic_test_hal_op op, unsigned skip) {
    if (!d || fn >= NIC_FNS || (unsigned)op > HLSNIC_TEST_HAL_ANNOUNCE) return -EINVAL;
    dev_lock(d);
    d->hal_fault = (dev_hal_fault_t){.armed = true, .op = op, .fn = fn, .skip = skip};
    pthread_mutex_unlock(&d->mu);
    return 0;
}
