/* hlsnic_vfio.h — the device's migration interface in the shape of Linux's VFIO migration
 * uAPI v2 (include/uapi/linux/vfio.h), for a hypervisor driver in the same process
 * (docs/live-migration.md, "The VFIO-v2 interface of the simulated device").
 *
 * What a variant driver (mlx5's vfio-pci) gives QEMU through ioctls, here as calls on one PCIe
 * function of an hlsnic_dev_t:
 *   - the device state of the function (HLSNIC_MIG_*, the uAPI's values) and set_state, which
 *     walks the uAPI's arcs, each one done with the migration firmware's commands;
 *   - the data stream of a transfer: a real file descriptor (a socket to read, a pipe to
 *     write) handed out by the arcs that open one (STOP -> STOP_COPY, RUNNING -> PRE_COPY,
 *     RUNNING_P2P -> PRE_COPY_P2P, STOP -> RESUMING), read in STOP_COPY / PRE_COPY(_P2P)
 *     (hlsnic_vfio_read: the kernel's ENOMSG at pre-copy's temporary end) and written in
 *     RESUMING;
 *   - reset of the function (VFIO_DEVICE_RESET): RUNNING, its objects gone;
 *   - the pre-copy info query and the stop-copy size;
 *   - DMA dirty-page logging of the device's writes to host memory (START / REPORT / STOP).
 * Errors are the uAPI's: a negative errno. Not HLS-C: plain C, like hlsnic_dev.h. */
#ifndef HLSNIC_VFIO_H
#define HLSNIC_VFIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hlsnic_dev.h"

/* enum vfio_device_mig_state: the same numbers */
enum hlsnic_mig_state {
    HLSNIC_MIG_ERROR = 0,
    HLSNIC_MIG_STOP = 1,
    HLSNIC_MIG_RUNNING = 2,
    HLSNIC_MIG_STOP_COPY = 3,
    HLSNIC_MIG_RESUMING = 4,
    HLSNIC_MIG_RUNNING_P2P = 5,
    HLSNIC_MIG_PRE_COPY = 6,
    HLSNIC_MIG_PRE_COPY_P2P = 7,
};
#define HLSNIC_MIG_STATES 8

/* what a driver advertises (VFIO_MIGRATION_*): STOP_COPY is required, the others optional */
enum {
    HLSNIC_MIG_CAP_STOP_COPY = 1u << 0,
    HLSNIC_MIG_CAP_P2P = 1u << 1,
    HLSNIC_MIG_CAP_PRE_COPY = 1u << 2,
};

/* The next arc on the way from cur to want for a driver with capabilities caps, as the
 * kernel's vfio_mig_get_next_state computes it: the uAPI's shortest path that never passes
 * through a saving state it does not end in, skipping states caps lacks. 0 and *next, or
 * -EINVAL (want is ERROR, a state caps lacks, STOP_COPY -> PRE_COPY(_P2P), anything from
 * ERROR). cur == want answers *next = cur. Pure: no device. */
int hlsnic_mig_next_state(unsigned caps, enum hlsnic_mig_state cur, enum hlsnic_mig_state want,
                          enum hlsnic_mig_state *next);
const char *hlsnic_mig_state_name(enum hlsnic_mig_state s);

/* ---- one function of a device (the VF a hypervisor passes through) ---- */
/* The capabilities this device advertises: STOP_COPY | P2P | PRE_COPY. */
unsigned hlsnic_vfio_caps(void);

/* VFIO_DEVICE_FEATURE_MIG_DEVICE_STATE, GET. */
int hlsnic_vfio_get_state(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state *state);

/* VFIO_DEVICE_FEATURE_MIG_DEVICE_STATE, SET: walk the arcs to `want`. 0, with *data_fd the
 * new transfer's stream when the last arc opened one (else -1; the caller closes it). An
 * illegal request answers -EINVAL and changes nothing. An arc that fails answers its error
 * and leaves the state the function is truly in (GET reports it; it may be off the path,
 * e.g. STOP after a stop-copy that broke once the function was frozen), or ERROR when no
 * state names it or the load was refused. Leaving ERROR takes hlsnic_vfio_reset. Every
 * function of a device migrates on its own: several at once, and one in ERROR holds up none. */
int hlsnic_vfio_set_state(hlsnic_dev_t *d, unsigned fn, enum hlsnic_mig_state want, int *data_fd);

/* VFIO_DEVICE_RESET of the function: whatever the state, ERROR included, its transfer ends
 * and it is RUNNING with no QP, CQ or MR (its rows cleared while it was frozen), its throttle
 * off and its queued events dropped; its MAC and IP stay. 0, or -EIO (the state is then
 * ERROR). */
int hlsnic_vfio_reset(hlsnic_dev_t *d, unsigned fn);

/* read(2) on a save stream's data_fd as the kernel's migration file answers it: bytes read;
 * 0 at the end of the stream (STOP_COPY's whole image read, or the stream ended); -1 with
 * errno ENOMSG at pre-copy's temporary end (nothing to read now: ask PRECOPY_INFO, which
 * saves the next pass); otherwise read's own errors. A plain read() of the fd gives the same
 * bytes and EAGAIN where this gives ENOMSG (no socket can answer ENOMSG). */
ssize_t hlsnic_vfio_read(int data_fd, void *buf, size_t len);

/* VFIO_MIG_GET_PRECOPY_INFO, only in PRE_COPY / PRE_COPY_P2P (-EINVAL otherwise):
 * initial_bytes = bytes of the first (full) pass not read yet; dirty_bytes = the rest of the
 * stream not read yet. When the stream has been read to its end, the call first saves the
 * next pass of the rows written since (nothing when none was): new data appears only here,
 * as with mlx5. */
int hlsnic_vfio_precopy_info(hlsnic_dev_t *d, unsigned fn, uint64_t *initial_bytes, uint64_t *dirty_bytes);

/* VFIO_DEVICE_FEATURE_MIG_DATA_SIZE: bytes a stop-copy would carry now (never fewer: a full
 * pass of the function's rows, as the firmware counts them, plus its header and end blocks). */
int hlsnic_vfio_data_size(hlsnic_dev_t *d, unsigned fn, uint64_t *stop_copy_length);

/* ---- DMA dirty-page logging (VFIO_DEVICE_FEATURE_DMA_LOGGING_*) ----
 * Device-wide (every write the NIC makes to host memory, whichever function; logging more
 * than one VF's writes only over-reports, which the uAPI allows). */
typedef struct {
    uint64_t iova, length;
} hlsnic_dma_range_t;
#define HLSNIC_DMA_LOG_MAX_RANGES 256u /* the kernel's: a page of ranges */

/* START: ranges (disjoint, aligned to *page_size, a power of two >= 4096) are logged from now
 * on. -EINVAL (no range, misaligned, overlapping, bad page size), -E2BIG (too many ranges),
 * -EOVERFLOW (a range wraps), -EBUSY (already started), -ENOMEM. */
int hlsnic_dma_logging_start(hlsnic_dev_t *d, const hlsnic_dma_range_t *ranges, unsigned n, uint64_t *page_size);
/* REPORT: bit i of bitmap (64-bit words, least significant bit first) = the page
 * [iova + i * page_size, +page_size) was written since the last report; the log of the pages
 * reported is cleared. page_size: a power of two >= 4096 (-EINVAL), iova + length must not
 * wrap (-EOVERFLOW); not started: -EINVAL. */
int hlsnic_dma_logging_report(hlsnic_dev_t *d, uint64_t iova, uint64_t length, uint64_t page_size, uint64_t *bitmap);
/* STOP. 0, or -EINVAL when not started. */
int hlsnic_dma_logging_stop(hlsnic_dev_t *d);

/* Test hook, for the test that proves the log is checked (never for a driver): the next DMA
 * write that touches the page holding `iova` is applied but not logged. */
void hlsnic_dma_logging_test_skip(hlsnic_dev_t *d, uint64_t iova);
/* The same for every DMA write that touches [iova, iova + length), until logging stops: a
 * log broken for good, so a write there is never covered by a later logged one. */
void hlsnic_dma_logging_test_skip_range(hlsnic_dev_t *d, uint64_t iova, uint64_t length);

/* Test hook, for the tests of failed arcs (never for a driver): the firmware's HAL operation
 * `op` for function fn fails (as broken hardware: MIG_E_HW to the firmware) on its call after
 * the next `skip` ones; once. -EINVAL for a bad fn or op. */
enum hlsnic_test_hal_op {
    HLSNIC_TEST_HAL_CTX_READ,       /* a context row read (Image-Save, Save-Reset's checks) */
    HLSNIC_TEST_HAL_CTX_WRITE,      /* a context row write (a load's commit, reset) */
    HLSNIC_TEST_HAL_ANNOUNCE,       /* the gratuitous ARP of Resume-Active after a load */
};
int hlsnic_vfio_test_fail_hal(hlsnic_dev_t *d, unsigned fn, enum hlsnic_test_hal_op op, unsigned skip);

/* ---- device features beyond the uAPI (dev_mig_ext.c) ----
 * The paper's QueryTag and DevThrottle (DA7, DA9) and a destination's switch-over
 * acknowledgement have no ioctl of their own in the uAPI; a variant driver would offer them as
 * device-specific VFIO_DEVICE_FEATUREs (GET / SET). Each call below is one such feature. */
#include <stdbool.h>

typedef struct {
    uint32_t layout, feature; /* image layout and feature versions */
    uint32_t capacity;        /* log2 rows per function: QP | CQ << 8 | MR << 16 */
} hlsnic_mig_tag_t;
/* GET the function's migration tag (the firmware's QueryTag), in any state. */
int hlsnic_vfio_mig_tag(hlsnic_dev_t *d, unsigned fn, hlsnic_mig_tag_t *tag);
/* Does a destination of tag dst take the images of a source of tag src (DA7: the same layout,
 * a feature version and each capacity not lower)? 0, or -EINVAL with the first difference
 * named in why. Pure: no device. */
int hlsnic_mig_tag_check(const hlsnic_mig_tag_t *src, const hlsnic_mig_tag_t *dst, char *why, size_t cap);
/* SET DevThrottle: the function may write at most `rate` bytes of host memory per 1024
 * cycles (0: no limit); the rate travels in the image. *host_write_bytes (may be NULL) = the
 * device's count of bytes written to host memory. -EINVAL while the function loads. */
int hlsnic_vfio_dev_throttle(hlsnic_dev_t *d, unsigned fn, uint32_t rate, uint64_t *host_write_bytes);
/* GET DevThrottle: the rate in force and the same counter, changing nothing. */
int hlsnic_vfio_dev_throttle_get(hlsnic_dev_t *d, unsigned fn, uint32_t *rate, uint64_t *host_write_bytes);
/* GET the switch-over acknowledgement of a destination in RESUMING: 0 when the pre-copy data
 * written so far holds a full pass that the firmware checked and staged and the load stands
 * at a pass boundary (QEMU's switchover-ack: the source may stop); -EAGAIN when not (yet);
 * -EINVAL when not RESUMING. *st says where the load stands. */
typedef struct {
    bool loading;     /* the firmware is loading (false: nothing staged, or a block refused) */
    bool full_pass;   /* a full pass is staged */
    uint32_t passes;  /* passes staged */
    uint64_t unread;  /* bytes written and not yet taken by the device's loader */
} hlsnic_mig_load_t;
int hlsnic_vfio_switchover_ack(hlsnic_dev_t *d, unsigned fn, hlsnic_mig_load_t *st);
/* Test hook (never for a driver): the function's QP table shrinks to `rows` (a power of two,
 * not more than it has): a device of a smaller profile, whose QueryTag and loader say so. */
int hlsnic_vfio_test_qp_rows(hlsnic_dev_t *d, unsigned rows);

#endif /* HLSNIC_VFIO_H */
