/* dev_vfio.c — the VFIO-v2-shaped migration interface of one function (hlsnic_vfio.h;
 * docs/live-migration.md): each arc of the uAPI done with the migration firmware's commands,
 * the way mlx5's variant driver maps its firmware's, and the data streams.
 *
 * The firmware (migration-fw, the NIC's embedded controller) is linked in and reaches the NIC
 * through the same HAL the migration testbench uses (testbench/migration/mig_hal_tb.c). A
 * firmware command runs in the caller's thread holding the device lock: the NIC steps inside
 * it for every cycle the command takes, as the clock thread would, and the port is serviced
 * after it. Mailbox commands of the driver still in flight are answered first (the firmware's
 * context commands share ctrl's queue).
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
 *   PRE_COPY_P2P -> RUNNING_P2P       (the stream ends; the function stays suspended-active)
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
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mig_image.h"

#define SETTLE_CYCLES 1000000u /* a driver's mailbox command in flight: its answer's bound */

unsigned hlsnic_vfio_caps(void) { return HLSNIC_MIG_CAP_STOP_COPY | HLSNIC_MIG_CAP_P2P | HLSNIC_MIG_CAP_PRE_COPY; }

/* ---- one firmware command (mu held) ---- */
static int fw(hlsnic_dev_t *d, unsigned fn, uint8_t op, uint8_t flags, struct mig_resp *r) {
    memset(r, 0, sizeof *r);
    if (!dev_settle_commands(d, SETTLE_CYCLES)) {
        r->status = MIG_E_TIMEOUT;
        return r->status;
    }
    struct mig_cmd c = {.opcode = op, .fn = (uint8_t)fn, .flags = flags, .host_addr = (uintptr_t)d->blk};
    mig_fw_command(&d->fw, &c, r);
    dev_service(d);
    return r->status;
}

/* a firmware refusal as the uAPI's errno */
static int fw_errno(const struct mig_resp *r) {
    switch (r->status) {
    case MIG_OK: return 0;
    case MIG_E_BUSY: return -EBUSY;
    case MIG_E_HW: case MIG_E_NO_OP: case MIG_E_TIMEOUT: return -EIO;
    default: return -EINVAL;
    }
}

static int fw_errno_cmd(hlsnic_dev_t *d, unsigned fn, uint8_t op) {
    struct mig_resp r;
    fw(d, fn, op, 0, &r);
    return fw_errno(&r);
}

/* ---- the save stream ---- */
static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* A stream socket pair: the caller reads *data_fd (non-blocking: at a temporary end of
 * pre-copy data a read answers EAGAIN), the device sends on the other end with MSG_NOSIGNAL,
 * so a caller that closed its end early costs an error, never a SIGPIPE. save_peek is the
 * device's own copy of the caller's end: the bytes not read yet (FIONREAD), whatever the
 * caller closed. */
static int open_save_stream(dev_mig_fn_t *m, int *data_fd) {
    int p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p)) return -errno;
    (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
    shutdown(p[0], SHUT_WR);
    shutdown(p[1], SHUT_RD);
    m->save_peek = fcntl(p[0], F_DUPFD_CLOEXEC, 0);
    if (m->save_peek < 0) {
        int e = -errno;
        close(p[0]);
        close(p[1]);
        return e;
    }
    m->save_wfd = p[1];
    m->written = m->initial = 0;
    *data_fd = p[0];
    return 0;
}

static void end_save_stream(dev_mig_fn_t *m) {
    close_fd(&m->save_wfd); /* the reader sees the end of the stream (read() == 0) */
    close_fd(&m->save_peek);
}

static uint64_t unread(const dev_mig_fn_t *m) {
    int n = 0;
    return m->save_peek >= 0 && ioctl(m->save_peek, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

/* Save one pass into the stream (mu held): Image-Save until the pass's end block, or nothing
 * when pre-copy has nothing new. 0 or a negative errno. */
static int save_pass(hlsnic_dev_t *d, unsigned fn, bool want_final) {
    dev_mig_fn_t *m = &d->mig[fn];
    for (unsigned k = 0; k < 4096; k++) { /* a pass is at most a few dozen blocks */
        struct mig_resp r;
        if (fw(d, fn, MIG_CMD_IMAGE_SAVE, 0, &r) != MIG_OK) return fw_errno(&r);
        if (r.answer == MIG_SAVE_NOTHING_NOW) return 0;
        /* a socket buffer holds several passes; the reader being that far behind is an error */
        if (send(m->save_wfd, d->blk, MIG_BLOCK_SIZE, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)MIG_BLOCK_SIZE) return -EIO;
        m->written += MIG_BLOCK_SIZE;
        if (r.answer == MIG_SAVE_PASS_END && (!want_final || (r.value[2] & MIG_IMG_FINAL))) return 0;
    }
    return -EIO;
}

/* ---- the load stream: a thread feeds the firmware block by block as the caller writes ---- */
static void load_block(hlsnic_dev_t *d, unsigned fn, const uint8_t *b) {
    dev_mig_fn_t *m = &d->mig[fn];
    if (m->load_err) return; /* refused already: the rest is read and dropped */
    if (m->committed) {
        m->load_err = -EINVAL; /* data after the image's end */
        return;
    }
    dev_lock(d);
    memcpy(d->blk, b, MIG_BLOCK_SIZE);
    struct mig_resp r;
    fw(d, fn, MIG_CMD_IMAGE_LOAD, 0, &r);
    pthread_mutex_unlock(&d->mu);
    if (r.status != MIG_OK) m->load_err = fw_errno(&r);
    else if (r.answer == MIG_LOAD_COMMITTED) m->committed = true;
}

typedef struct {
    hlsnic_dev_t *d;
    unsigned fn;
} loader_arg_t;

static void *loader_main(void *arg) {
    loader_arg_t a = *(loader_arg_t *)arg;
    free(arg);
    dev_mig_fn_t *m = &a.d->mig[a.fn];
    uint8_t b[MIG_BLOCK_SIZE];
    size_t have = 0;
    bool stopping = false;
    for (;;) {
        struct pollfd p[2] = {{.fd = m->load_rfd, .events = POLLIN}, {.fd = m->load_stop, .events = POLLIN}};
        if (!stopping && poll(p, 2, -1) < 0 && errno != EINTR) break;
        if (p[1].revents & POLLIN) stopping = true; /* take what was written, then end */
        ssize_t n = read(m->load_rfd, b + have, sizeof b - have);
        if (n == 0) break; /* the writer closed the stream */
        if (n < 0) {
            if (errno == EAGAIN && stopping) break;
            if (errno == EAGAIN || errno == EINTR) continue;
            m->load_err = -EIO;
            break;
        }
        have += (size_t)n;
        if (have == sizeof b) {
            load_block(a.d, a.fn, b);
            have = 0;
        }
    }
    if (have && !m->load_err) m->load_err = -EINVAL; /* a block cut short */
    return NULL;
}

static int open_load_stream(hlsnic_dev_t *d, unsigned fn, int *data_fd) {
    dev_mig_fn_t *m = &d->mig[fn];
    int p[2];
    if (pipe2(p, O_CLOEXEC)) return -errno;
    (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
    m->load_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    loader_arg_t *a = malloc(sizeof *a);
    m->load_err = 0;
    m->committed = false;
    m->load_rfd = p[0];
    if (m->load_stop < 0 || !a) goto fail;
    *a = (loader_arg_t){d, fn};
    if (pthread_create(&m->loader, NULL, loader_main, a)) goto fail;
    m->loader_started = true;
    *data_fd = p[1];
    return 0;
fail:
    free(a);
    close_fd(&m->load_stop);
    close_fd(&m->load_rfd);
    close(p[1]);
    return -ENOMEM;
}

/* the caller is done writing: the loader takes what is in the pipe and ends (mu not held) */
static void end_load_stream(dev_mig_fn_t *m) {
    if (!m->loader_started) return;
    uint64_t one = 1;
    ssize_t w = write(m->load_stop, &one, sizeof one);
    (void)w;
    pthread_join(m->loader, NULL);
    m->loader_started = false;
    close_fd(&m->load_stop);
    close_fd(&m->load_rfd);
}

/* ---- the arcs ---- */
static int fw_state(hlsnic_dev_t *d, unsigned fn) {
    struct mig_resp r;
    fw(d, fn, MIG_CMD_QUERY_TAG, 0, &r);
    return r.state;
}

/* The firmware gives the function up from wherever it is: RUNNING, tracking off. */
static int fw_abort(hlsnic_dev_t *d, unsigned fn) {
    int rc = 0;
    switch (fw_state(d, fn)) {
    case MIG_ST_PRECOPY: return fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_STOP);
    case MIG_ST_SUSPENDED_PASSIVE:
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_PASSIVE))) return rc;
        /* fall through */
    case MIG_ST_SUSPENDED_ACTIVE:
    case MIG_ST_LOADING: return fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE);
    default: return 0;
    }
}

/* One arc cur -> next. 0, with *data_fd set when it opened a stream; or a negative errno with
 * *to_error set when the function is left in no state the uAPI can name. mu not held (the
 * RESUMING -> STOP arc waits for the loader, which takes it). */
static int arc(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state cur, enum hlsnic_mig_state next, int *data_fd,
               bool *to_error) {
    dev_mig_fn_t *m = &d->mig[fn];
    int rc = 0;
    if (cur == HLSNIC_MIG_RESUMING) { /* -> STOP */
        end_load_stream(m);
        dev_lock(d);
        if (!m->committed) {
            rc = m->load_err ? m->load_err : -EINVAL; /* refused, or the image never ended */
            fw_abort(d, fn);                          /* nothing was written: back to RUNNING */
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
        if (!(rc = open_save_stream(m, data_fd)) && (rc = save_pass(d, fn, true))) {
            end_save_stream(m);
            close_fd(data_fd);
        }
        if (!rc) end_save_stream(m); /* the whole image is in the pipe: its end follows */
        break;
    case HLSNIC_MIG_STOP_COPY << 4 | HLSNIC_MIG_STOP:
    case HLSNIC_MIG_PRE_COPY_P2P << 4 | HLSNIC_MIG_RUNNING_P2P: end_save_stream(m); break;
    case HLSNIC_MIG_RUNNING << 4 | HLSNIC_MIG_PRE_COPY:
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_START))) break;
        if (!(rc = open_save_stream(m, data_fd)) && !(rc = save_pass(d, fn, false))) {
            m->initial = m->written;
            break;
        }
        if (*data_fd >= 0) {
            end_save_stream(m);
            close_fd(data_fd);
        }
        fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_STOP); /* back where it was */
        break;
    case HLSNIC_MIG_RUNNING_P2P << 4 | HLSNIC_MIG_PRE_COPY_P2P: rc = open_save_stream(m, data_fd); break;
    case HLSNIC_MIG_PRE_COPY << 4 | HLSNIC_MIG_RUNNING:
        rc = fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_STOP);
        if (!rc) end_save_stream(m);
        break;
    case HLSNIC_MIG_PRE_COPY_P2P << 4 | HLSNIC_MIG_PRE_COPY:
        if (!(rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE)) && (rc = fw_errno_cmd(d, fn, MIG_CMD_PRECOPY_START)))
            *to_error = true; /* running, but not tracked: neither state */
        break;
    case HLSNIC_MIG_PRE_COPY_P2P << 4 | HLSNIC_MIG_STOP_COPY:
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_SUSPEND_PASSIVE))) break;
        rc = save_pass(d, fn, true);
        end_save_stream(m); /* complete or broken: either way no more comes */
        break;
    case HLSNIC_MIG_STOP << 4 | HLSNIC_MIG_RESUMING:
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_PASSIVE))) break;
        if ((rc = fw_errno_cmd(d, fn, MIG_CMD_RESUME_ACTIVE)) || (rc = open_load_stream(d, fn, data_fd))) *to_error = true;
        break;
    default: rc = -EINVAL; /* the state machine never asks for another arc */
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

/* another function of this device is in a migration state: the firmware serves one at a time */
static bool other_migrating(const hlsnic_dev_t *d, unsigned fn) {
    for (unsigned f = 0; f < NIC_FNS; f++)
        if (f != fn && d->mig[f].state != HLSNIC_MIG_RUNNING) return true;
    return false;
}

int hlsnic_vfio_set_state(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state want, int *data_fd) {
    int fd_out = -1, rc = 0;
    if (data_fd) *data_fd = -1;
    if (!fn_ok(d, fn)) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_mig_fn_t *m = &d->mig[fn];
    if (want == HLSNIC_MIG_ERROR) rc = -EINVAL; /* ERROR can never be asked for */
    else if (m->state != want && other_migrating(d, fn)) rc = -EBUSY;
    while (!rc && m->state != want) {
        enum hlsnic_mig_state next;
        if ((rc = hlsnic_mig_next_state(hlsnic_vfio_caps(), m->state, want, &next))) break;
        bool to_error = false;
        int fd = -1;
        rc = arc(d, fn, m->state, next, &fd, &to_error);
        if (rc) {
            if (to_error) m->state = HLSNIC_MIG_ERROR;
            break;
        }
        m->state = next;
        if (fd >= 0) fd_out = fd; /* only the last arc of a walk opens a stream */
    }
    pthread_mutex_unlock(&d->vfio_mu);
    if (rc) close_fd(&fd_out);
    if (data_fd) *data_fd = fd_out;
    else close_fd(&fd_out);
    return rc;
}

int hlsnic_vfio_reset(hlsnic_dev_t *d, unsigned fn) {
    if (!fn_ok(d, fn)) return -EINVAL;
    pthread_mutex_lock(&d->vfio_mu);
    dev_mig_fn_t *m = &d->mig[fn];
    end_load_stream(m);
    dev_lock(d);
    end_save_stream(m);
    int rc = fw_abort(d, fn);
    pthread_mutex_unlock(&d->mu);
    if (!rc) m->state = HLSNIC_MIG_RUNNING;
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
        if (!unread(m) && m->state == HLSNIC_MIG_PRE_COPY) rc = save_pass(d, fn, false);
        uint64_t left = unread(m), consumed = m->written - left;
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
    for (unsigned f = 0; f < NIC_FNS; f++)
        d->mig[f] = (dev_mig_fn_t){.state = HLSNIC_MIG_RUNNING, .save_wfd = -1, .save_peek = -1, .load_rfd = -1,
                                   .load_stop = -1};
    d->blk = aligned_alloc(4096, 4096);
    if (!d->blk || hlsnic_dev_dma_map(d, d->blk, MIG_BLOCK_SIZE)) {
        snprintf(err, errlen, "migration: no memory for the image block buffer");
        return -1;
    }
    struct mig_hal hal = mig_hal_tb(&d->hal, d->tb, 0);
    struct mig_resp r;
    if (mig_fw_init(&d->fw, &hal, &r) != MIG_OK) {
        snprintf(err, errlen, "migration firmware: init answered status %u reason %u", r.status, r.reason);
        return -1;
    }
    d->fw_ready = true;
    return 0;
}

void dev_vfio_close(hlsnic_dev_t *d) {
    for (unsigned f = 0; f < NIC_FNS; f++) {
        end_load_stream(&d->mig[f]);
        end_save_stream(&d->mig[f]);
    }
    free(d->blk);
}
