/* dev_vfio.c — the VFIO-v2-shaped migration interface of one function (hlsnic_vfio.h;
 * docs/live-migration.md): each arc of the uAPI done with the migration firmware's commands,
 * the way mlx5's variant driver maps its firmware's, and the state the function is truly in
 * after an arc that failed.
 *
 * The firmware (migration-fw, the NIC's embedded controller) is linked in with one context
 * per function, so functions migrate independently, and reaches the NIC through the HAL the
 * migration testbench uses (testbench/migration/mig_hal_tb.c, wrapped by dev_mig_fault.c). A
 * firmware command runs in the caller's thread holding the device lock: the NIC steps inside
 * it for every cycle the command takes, as the clock thread would, and the port is serviced
 * after it. Mailbox commands of the driver still in flight are answered first (the
 * firmware's context commands share ctrl's queue).
 *
 *   arc                               firmware commands
 *   RUNNING -> RUNNING_P2P            Suspend-Active
 *   RUNNING_P2P -> STOP               Suspend-Passive
 *   STOP -> RUNNING_P2P               Resume-Passive
 *   RUNNING_P2P -> RUNNING            Resume-Active
 *   STOP -> STOP_COPY                 Image-Save until the FINAL pass ends, into a new stream
 *   STOP_COPY -> STOP                 (the stream ends)
 *   RUNNING -> PRE_COPY               PreCopy-Start, the first (full) pass into a new stream
 *   PRE_COPY -> RUNNING               PreCopy-Stop (the stream ends)
 *   PRE_COPY -> PRE_COPY_P2P          Suspend-Active
 *   PRE_COPY_P2P -> PRE_COPY          Resume-Active, PreCopy-Start (the next pass is full)
 *   PRE_COPY_P2P -> RUNNING_P2P       Save-Reset: pre-copy ends, tracking off (the stream ends;
 *                                     the function stays suspended-active)
 *   RUNNING_P2P -> PRE_COPY_P2P       a new stream, empty for now: the firmware saves only
 *                                     while tracked-running or frozen, so the pre-copy data of
 *                                     this path is none and the stop-copy pass is full
 *   PRE_COPY_P2P -> STOP_COPY         Suspend-Passive, the FINAL pass into the same stream
 *   STOP -> RESUMING                  Resume-Passive, Resume-Active (the destination function
 *                                     is empty), a new stream fed to Image-Load block by block
 *   RESUMING -> STOP                  the stream ends; the load must have committed (the
 *                                     firmware is then suspended-passive) */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mig_image.h"

#define SETTLE_CYCLES 1000000u /* a driver's mailbox command in flight: its answer's bound */

unsigned hlsnic_vfio_caps(void) { return HLSNIC_MIG_CAP_STOP_COPY | HLSNIC_MIG_CAP_P2P | HLSNIC_MIG_CAP_PRE_COPY; }

/* ---- one firmware command (mu held) ---- */
int dev_fw(hlsnic_dev_t *d, unsigned fn, uint8_t op, struct mig_resp *r) {
    memset(r, 0, sizeof *r);
    if (!dev_settle_commands(d, SETTLE_CYCLES)) {
        r->status = MIG_E_TIMEOUT;
        return r->status;
    }
    struct mig_cmd c = {.opcode = op, .fn = (uint8_t)fn, .host_addr = (uintptr_t)d->blk};
    mig_fw_command(&d->mig[fn].fw, &c, r);
    dev_service(d);
    return r->status;
}

int dev_fw_errno(const struct mig_resp *r) {
    switch (r->status) {
    case MIG_OK: return 0;
    case MIG_E_BUSY: return -EBUSY;
    case MIG_E_HW: case MIG_E_NO_OP: case MIG_E_TIMEOUT: return -EIO;
    default: return -EINVAL;
    }
}

static int fw_errno_cmd(hlsnic_dev_t *d, unsigned fn, uint8_t op) {
    struct mig_resp r;
    dev_fw(d, fn, op, &r);
    return dev_fw_errno(&r);
}

/* ---- the arcs ---- */
static int fw_state(hlsnic_dev_t *d, unsigned fn) {
    struct mig_resp r;
    dev_fw(d, fn, MIG_CMD_QUERY_TAG, &r);
    return r.state;
}

/* After an arc failed: the state the function is in, read from its firmware context and its
 * streams (mu held). A stream no such state keeps is ended; a suspended function whose save
 * did not go through starts its save over, so a later stop-copy is a full image. ERROR when
 * the firmware's state and the streams name no state of the uAPI, or the clean-up fails. */
static enum hlsnic_mig_state true_state(hlsnic_dev_t *d, unsigned fn) {
    dev_mig_fn_t *m = &d->mig[fn];
    bool saving = m->save_wfd >= 0;
    switch (fw_state(d, fn)) {
    case MIG_ST_RUNNING: /* running and untracked: whatever stream there was is over */
        dev_save_end(m);
        return HLSNIC_MIG_RUNNING;
    case MIG_ST_PRECOPY:
        if (saving) return HLSNIC_MIG_PRE_COPY;
        return fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_STOP) ? HLSNIC_MIG_ERROR : HLSNIC_MIG_RUNNING;
    case MIG_ST_SUSPENDED_ACTIVE:
        if (saving) return HLSNIC_MIG_PRE_COPY_P2P;
        return fw_errno_cmd(d, fn, MIG_CMD_SAVE_RESET) ? HLSNIC_MIG_ERROR : HLSNIC_MIG_RUNNING_P2P;
    case MIG_ST_SUSPENDED_PASSIVE: /* frozen: STOP, its stream (if any) cut off */
        dev_save_end(m);
        return fw_errno_cmd(d, fn, MIG_CMD_SAVE_RESET) ? HLSNIC_MIG_ERROR : HLSNIC_MIG_STOP;
    default: return HLSNIC_MIG_ERROR; /* LOADING is RESUMING only with its stream: not after a failure */
    }
}

/* The firmware gives the function up from a load: back to RUNNING, empty. */
static void fw_abandon_load(hlsnic_dev_t *d, unsigned fn) {
    switch (fw_state(d, fn)) {
    case MIG_ST_SUSPENDED_PASSIVE:
        if (fw_errno_cmd(d, fn, MIG_CMD_RESUME_PASSIVE)) return;
        /* fall through */
    case MIG_ST_SUSPENDED_ACTIVE:
    case MIG_ST_LOADING: fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE); return;
    default: return;
    }
}

/* One arc cur -> next. 0, with *data_fd set when it opened a stream; or a negative errno,
 * with *to_error set when the function is to be reported in ERROR whatever it runs as (a
 * refused load). mu not held (the RESUMING -> STOP arc waits for the loader, which takes it). */
static int arc(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state cur, enum hlsnic_mig_state next, int *data_fd,
               bool *to_error) {
    dev_mig_fn_t *m = &d->mig[fn];
    int rc = 0;
    if (cur == HLSNIC_MIG_RESUMING) { /* -> STOP */
        dev_load_end(m);
        dev_lock(d);
        if (!m->committed) {
            /* refused, or the image never ended: the uAPI's ERROR for bad data; reset leaves it */
            rc = m->load_err ? m->load_err : -EINVAL;
            fw_abandon_load(d, fn);
            *to_error = true;
        }
        pthread_mutex_unlock(&d->mu);
        return rc;
    }
    dev_lock(d);
    switch ((unsigned)cur << 4 | next) {
    case HLSNIC_MIG_RUNNING << 4 | HLSNIC_MIG_RUNNING_P2P:
    case HLSNIC_MIG_PRE_COPY << 4 | HLSNIC_MIG_PRE_COPY_P2P: rc = fw_errno_cmd(d, fn, MIG_CMD_SUSPEND_ACTIVE); break;
    case HLSNIC_MIG_RUNNING_P2P << 4 | HLSNIC_MIG_STOP: rc = fw_errno_cmd(d, fn, MIG_CMD_SUSPEND_PASSIVE); break;
    case HLSNIC_MIG_STOP << 4 | HLSNIC_MIG_RUNNING_P2P: rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_PASSIVE); break;
    case HLSNIC_MIG_RUNNING_P2P << 4 | HLSNIC_MIG_RUNNING: rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE); break;
    case HLSNIC_MIG_STOP << 4 | HLSNIC_MIG_STOP_COPY:
        if (!(rc = dev_save_open(m, data_fd))) rc = dev_save_pass(d, fn, true);
        dev_save_end(m); /* the whole image is in the socket, or it broke: either way no more comes */
        break;
    case HLSNIC_MIG_STOP_COPY << 4 | HLSNIC_MIG_STOP: dev_save_end(m); break;
    case HLSNIC_MIG_RUNNING << 4 | HLSNIC_MIG_PRE_COPY:
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_START))) break;
        if (!(rc = dev_save_open(m, data_fd)) && !(rc = dev_save_pass(d, fn, false))) m->initial = m->written;
        else dev_save_end(m);
        break;
    case HLSNIC_MIG_RUNNING_P2P << 4 | HLSNIC_MIG_PRE_COPY_P2P: rc = dev_save_open(m, data_fd); break;
    case HLSNIC_MIG_PRE_COPY << 4 | HLSNIC_MIG_RUNNING:
        if (!(rc = fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_STOP))) dev_save_end(m);
        break;
    case HLSNIC_MIG_PRE_COPY_P2P << 4 | HLSNIC_MIG_PRE_COPY:
        if (!(rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE))) rc = fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_START);
        break;
    case HLSNIC_MIG_PRE_COPY_P2P << 4 | HLSNIC_MIG_RUNNING_P2P:
        if (!(rc = fw_errno_cmd(d, fn, MIG_CMD_SAVE_RESET))) dev_save_end(m);
        break;
    case HLSNIC_MIG_PRE_COPY_P2P << 4 | HLSNIC_MIG_STOP_COPY:
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_SUSPEND_PASSIVE))) break;
        rc = dev_save_pass(d, fn, true);
        dev_save_end(m); /* complete or broken: either way no more comes */
        break;
    case HLSNIC_MIG_STOP << 4 | HLSNIC_MIG_RESUMING:
        if (!(rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_PASSIVE)) && !(rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE)))
            rc = dev_load_open(d, fn, data_fd);
        break;
    default: rc = -EINVAL; /* the state machine never asks for another arc */
    }
    if (rc) {
        dev_close_fd(data_fd);
        m->state = true_state(d, fn);
    }
    pthread_mutex_unlock(&d->mu);
    return rc;
}

/* ---- the API ---- */
static bool fn_ok(hlsnic_dev_t *d, unsigned fn) { return d && fn < NIC_FNS && d->fw_ready; }

int hlsnic_vfio_get_state(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state *state) {
    if (!fn_ok(d, fn) || !state) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    *state = d->mig[fn].state;
    pthread_mutex_unlock(&d->vfio_mu);
    return 0;
}

int hlsnic_vfio_set_state(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state want, int *data_fd) {
    int fd_out = -1, rc = 0;
    if (data_fd) *data_fd = -1;
    if (!fn_ok(d, fn)) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_mig_fn_t *m = &d->mig[fn];
    if (want == HLSNIC_MIG_ERROR) rc = -EINVAL; /* ERROR can never be asked for */
    while (!rc && m->state != want) {
        enum hlsnic_mig_state next;
        if ((rc = hlsnic_mig_next_state(hlsnic_vfio_caps(), m->state, want, &next))) break;
        bool to_error = false;
        int fd = -1;
        /* a failed arc has set m->state to the state the function is truly in */
        if ((rc = arc(d, fn, m->state, next, &fd, &to_error))) {
            if (to_error) m->state = HLSNIC_MIG_ERROR;
            break;
        }
        m->state = next;
        if (fd >= 0) fd_out = fd; /* only the last arc of a walk opens a stream */
    }
    pthread_mutex_unlock(&d->vfio_mu);
    if (rc) dev_close_fd(&fd_out);
    if (data_fd) *data_fd = fd_out;
    else dev_close_fd(&fd_out);
    return rc;
}

int hlsnic_vfio_reset(hlsnic_dev_t *d, unsigned fn) {
    if (!fn_ok(d, fn)) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_mig_fn_t *m = &d->mig[fn];
    dev_load_end(m);
    dev_lock(d);
    dev_save_end(m);
    int rc = dev_mig_reset_fn(d, fn);
    m->state = rc ? HLSNIC_MIG_ERROR : HLSNIC_MIG_RUNNING;
    pthread_mutex_unlock(&d->mu);
    pthread_mutex_unlock(&d->vfio_mu);
    return rc;
}

int hlsnic_vfio_precopy_info(hlsnic_dev_t *d, unsigned fn, uint64_t *initial_bytes, uint64_t *dirty_bytes) {
    if (!fn_ok(d, fn) || !initial_bytes || !dirty_bytes) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_mig_fn_t *m = &d->mig[fn];
    int rc = 0;
    if (m->state != HLSNIC_MIG_PRE_COPY && m->state != HLSNIC_MIG_PRE_COPY_P2P) {
        rc = -EINVAL;
    } else {
        dev_lock(d);
        /* read to its end while the function runs tracked: the next pass of what changed */
        if (!dev_save_unread(m) && m->state == HLSNIC_MIG_PRE_COPY) rc = dev_save_pass(d, fn, false);
        uint64_t left = dev_save_unread(m), consumed = m->written - left;
        *initial_bytes = m->initial > consumed ? m->initial - consumed : 0;
        *dirty_bytes = left - *initial_bytes;
        pthread_mutex_unlock(&d->mu);
    }
    pthread_mutex_unlock(&d->vfio_mu);
    return rc;
}

/* A full pass of a function with every row in use: header, function, the tables' record blocks
 * (records per block = what fits the payload), end. The stop-copy pass is never longer. */
int hlsnic_vfio_data_size(hlsnic_dev_t *d, unsigned fn, uint64_t *stop_copy_length) {
    if (!fn_ok(d, fn) || !stop_copy_length) return -EINVAL;
    unsigned per_cq = MIG_PAYLOAD_MAX / MIG_CQ_RECORD_BYTES, per_mr = MIG_PAYLOAD_MAX / MIG_MR_RECORD_BYTES,
             per_qp = MIG_PAYLOAD_MAX / MIG_QP_RECORD_BYTES;
    uint64_t blocks = 3 + (NIC_CQ_PER_FN + per_cq - 1) / per_cq + (NIC_MR_PER_FN + per_mr - 1) / per_mr +
                      (NIC_QP_PER_FN + per_qp - 1) / per_qp;
    *stop_copy_length = blocks * MIG_BLOCK_SIZE;
    return 0;
}

/* ---- open / close ---- */
int dev_vfio_open(hlsnic_dev_t *d, char *err, size_t errlen) {
    d->blk = aligned_alloc(4096, 4096);
    if (!d->blk || hlsnic_dev_dma_map(d, d->blk, MIG_BLOCK_SIZE)) {
        snprintf(err, errlen, "migration: no memory for the image block buffer");
        return -1;
    }
    struct mig_hal hal = dev_mig_hal(d);
    for (unsigned f = 0; f < NIC_FNS; f++) {
        dev_mig_fn_t *m = &d->mig[f];
        *m = (dev_mig_fn_t){.state = HLSNIC_MIG_RUNNING, .save_wfd = -1, .save_peek = -1, .load_rfd = -1, .load_stop = -1};
        struct mig_resp r;
        if (mig_fw_init(&m->fw, &hal, &r) != MIG_OK) {
            snprintf(err, errlen, "migration firmware, function %u: init answered status %u reason %u", f, r.status,
                     r.reason);
            return -1;
        }
    }
    d->fw_ready = true;
    return 0;
}

void dev_vfio_close(hlsnic_dev_t *d) {
    for (unsigned f = 0; f < NIC_FNS; f++) {
        dev_load_end(&d->mig[f]);
        dev_save_end(&d->mig[f]);
    }
    free(d->blk);
}
