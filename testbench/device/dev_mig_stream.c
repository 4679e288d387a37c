/* dev_mig_stream.c — the data stream of one function's transfer (hlsnic_vfio.h,
 * docs/live-migration.md "The data stream"): a real file descriptor per transfer.
 *
 * Saving (PRE_COPY, PRE_COPY_P2P, STOP_COPY): a SOCK_STREAM unix socket pair; the caller reads
 * its end (non-blocking), the device sends 512-byte image blocks on the other. Loading
 * (RESUMING): a pipe the caller writes; a loader thread hands each whole block to Image-Load
 * as it comes. hlsnic_vfio_read is read(2) on a save stream as the kernel's migration file
 * answers it: ENOMSG at pre-copy's temporary end. */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mig_image.h"

void dev_close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* ---- saving ---- */
/* The device sends with MSG_NOSIGNAL, so a caller that closed its end early costs an error,
 * never a SIGPIPE. save_peek is the device's own copy of the caller's end: the bytes not read
 * yet (FIONREAD), whatever the caller closed. */
int dev_save_open(dev_mig_fn_t *m, int *data_fd) {
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

void dev_save_end(dev_mig_fn_t *m) {
    dev_close_fd(&m->save_wfd); /* the reader sees the end of the stream (read() == 0) */
    dev_close_fd(&m->save_peek);
}

uint64_t dev_save_unread(const dev_mig_fn_t *m) {
    int n = 0;
    return m->save_peek >= 0 && ioctl(m->save_peek, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

int dev_save_pass(hlsnic_dev_t *d, unsigned fn, bool want_final) {
    dev_mig_fn_t *m = &d->mig[fn];
    for (unsigned k = 0; k < 4096; k++) { /* a pass is at most a few dozen blocks */
        struct mig_resp r;
        if (dev_fw(d, fn, MIG_CMD_IMAGE_SAVE, &r) != MIG_OK) return dev_fw_errno(&r);
        if (r.answer == MIG_SAVE_NOTHING_NOW) return 0;
        /* a socket buffer holds several passes; the reader being that far behind is an error */
        if (send(m->save_wfd, d->blk, MIG_BLOCK_SIZE, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)MIG_BLOCK_SIZE) return -EIO;
        m->written += MIG_BLOCK_SIZE;
        if (r.answer == MIG_SAVE_PASS_END && (!want_final || (r.value[2] & MIG_IMG_FINAL))) return 0;
    }
    return -EIO;
}

/* The device writes a STOP_COPY stream whole, and ends it, inside the arc that opens it or
 * continues it into STOP_COPY; so a save stream still open with nothing to read is in
 * pre-copy, at its temporary end. */
ssize_t hlsnic_vfio_read(int data_fd, void *buf, size_t len) {
    ssize_t n = read(data_fd, buf, len);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) errno = ENOMSG;
    return n;
}

/* ---- loading: a thread feeds the firmware block by block as the caller writes ---- */
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
    dev_fw(d, fn, MIG_CMD_IMAGE_LOAD, &r);
    pthread_mutex_unlock(&d->mu);
    if (r.status != MIG_OK) m->load_err = dev_fw_errno(&r);
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

int dev_load_open(hlsnic_dev_t *d, unsigned fn, int *data_fd) {
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
    dev_close_fd(&m->load_stop);
    dev_close_fd(&m->load_rfd);
    close(p[1]);
    return -ENOMEM;
}

void dev_load_end(dev_mig_fn_t *m) {
    if (!m->loader_started) return;
    uint64_t one = 1;
    ssize_t w = write(m->load_stop, &one, sizeof one);
    (void)w;
    pthread_join(m->loader, NULL);
    m->loader_started = false;
    dev_close_fd(&m->load_stop);
    dev_close_fd(&m->load_rfd);
}
