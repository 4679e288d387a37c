/* dev_mig_ext.c — the device's migration features beyond the VFIO uAPI (hlsnic_vfio.h, end;
 * docs/live-migration.md, "Device features beyond the uAPI").
 *
 * The paper's QueryTag and DevThrottle (seed 004, DA7 and DA9) and a destination's
 * switch-over acknowledgement have no uAPI ioctl: Linux's place for them is a device-specific
 * VFIO_DEVICE_FEATURE (a feature number with GET / SET), the way mlx5 and pds add their own.
 * Each call here is one such feature: GET the tag, GET or SET the throttle, GET the
 * destination's acknowledgement. Like dev_vfio.c, a firmware command runs in the caller's
 * thread holding the device lock (the NIC steps inside it). */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

static bool ext_fn_ok(hlsnic_dev_t *d, unsigned fn) { return d && fn < NIC_FNS && d->fw_ready; }

/* one firmware command with a rate (mu held); the answer's status */
static int ext_fw(hlsnic_dev_t *d, unsigned fn, uint8_t op, uint32_t rate, struct mig_resp *r) {
    memset(r, 0, sizeof *r);
    if (!dev_settle_commands(d, 1000000u)) return -EIO; /* a driver's command never answered */
    struct mig_cmd c = {.opcode = op, .fn = (uint8_t)fn, .rate = rate};
    mig_fw_command(&d->mig[fn].fw, &c, r);
    dev_service(d);
    return r->status == MIG_OK ? 0 : r->status == MIG_E_BUSY ? -EBUSY : r->status == MIG_E_STATE ? -EINVAL : -EIO;
}

int hlsnic_vfio_mig_tag(hlsnic_dev_t *d, unsigned fn, hlsnic_mig_tag_t *tag) {
    if (!ext_fn_ok(d, fn) || !tag) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_lock(d);
    struct mig_resp r;
    int rc = ext_fw(d, fn, MIG_CMD_QUERY_TAG, 0, &r);
    pthread_mutex_unlock(&d->mu);
    pthread_mutex_unlock(&d->vfio_mu);
    if (!rc) *tag = (hlsnic_mig_tag_t){.layout = (uint32_t)r.value[0], .feature = (uint32_t)r.value[1], .capacity = (uint32_t)r.value[2]};
    return rc;
}

/* DA7, as the firmware's loader applies it (migration-fw/src/mig_load.c, check_header) */
int hlsnic_mig_tag_check(const hlsnic_mig_tag_t *src, const hlsnic_mig_tag_t *dst, char *why, size_t cap) {
    static const char *const table[] = {"QP", "CQ", "MR"};
    if (src->layout != dst->layout) {
        snprintf(why, cap, "image layout version %u, the destination's %u (must be equal)", src->layout, dst->layout);
        return -EINVAL;
    }
    if (src->feature > dst->feature) {
        snprintf(why, cap, "feature version %u, the destination's only %u", src->feature, dst->feature);
        return -EINVAL;
    }
    for (unsigned t = 0; t < 3; t++) {
        unsigned s = (src->capacity >> (8 * t)) & 0xff, w = (dst->capacity >> (8 * t)) & 0xff;
        if (s > w) {
            snprintf(why, cap, "%s rows per function %u, the destination's only %u", table[t], 1u << s, 1u << w);
            return -EINVAL;
        }
    }
    return 0;
}

int hlsnic_vfio_dev_throttle(hlsnic_dev_t *d, unsigned fn, uint32_t rate, uint64_t *host_write_bytes) {
    if (!ext_fn_ok(d, fn)) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_lock(d);
    struct mig_resp r;
    int rc = ext_fw(d, fn, MIG_CMD_DEV_THROTTLE, rate, &r);
    pthread_mutex_unlock(&d->mu);
    pthread_mutex_unlock(&d->vfio_mu);
    if (!rc && host_write_bytes) *host_write_bytes = r.value[0];
    return rc;
}

int hlsnic_vfio_dev_throttle_get(hlsnic_dev_t *d, unsigned fn, uint32_t *rate, uint64_t *host_write_bytes) {
    if (!ext_fn_ok(d, fn) || !rate || !host_write_bytes) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_lock(d);
    *rate = d->mig[fn].fw.throttle[fn];
    int rc = mig_hal_counter_read(&d->mig[fn].fw.hal, fn, MIG_COUNTER_HOST_WRITE_BYTES, host_write_bytes);
    pthread_mutex_unlock(&d->mu);
    pthread_mutex_unlock(&d->vfio_mu);
    return rc == MIG_OK ? 0 : -EIO;
}

int hlsnic_vfio_switchover_ack(hlsnic_dev_t *d, unsigned fn, hlsnic_mig_load_t *st) {
    if (!ext_fn_ok(d, fn) || !st) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_mig_fn_t *m = &d->mig[fn];
    int rc = -EINVAL, unread = 0;
    if (m->state == HLSNIC_MIG_RESUMING) {
        if (m->load_rfd < 0 || ioctl(m->load_rfd, FIONREAD, &unread) || unread < 0) unread = 0;
        dev_lock(d);
        const struct mig_load *l = &m->fw.load;
        bool loading = m->fw.state[fn] == MIG_ST_LOADING;
        *st = (hlsnic_mig_load_t){.loading = loading, .full_pass = loading && l->have_full, .passes = loading ? l->pass : 0,
                                  .unread = (uint64_t)unread};
        /* acknowledged: a full pass staged and checked, and the load at a pass boundary */
        rc = st->full_pass && l->expect == MIG_BLK_HDR && l->seq == 0 ? 0 : -EAGAIN;
        pthread_mutex_unlock(&d->mu);
    }
    pthread_mutex_unlock(&d->vfio_mu);
    return rc;
}

int hlsnic_vfio_test_qp_rows(hlsnic_dev_t *d, unsigned rows) {
    if (!d || !d->fw_ready || !rows || (rows & (rows - 1)) || rows > d->mig[0].fw.caps.rows[MIG_TABLE_QP]) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_lock(d);
    for (unsigned fn = 0; fn < NIC_FNS; fn++) /* every function's firmware context sees the profile */
        d->mig[fn].fw.caps.rows[MIG_TABLE_QP] = (uint16_t)rows;
    pthread_mutex_unlock(&d->mu);
    pthread_mutex_unlock(&d->vfio_mu);
    return 0;
}
