/* dev_internal.h — what the files of testbench/device share (docs/device.md). Not a contract:
 * the driver sees hlsnic_dev.h only.
 *
 *   hlsnic_dev.c   open/close, the clock thread, statistics
 *   dev_mmio.c     BAR0 decode: ID registers, command mailbox, doorbells, events, statistics
 *   dev_dma.c      the DMA mapping table and host memory as hostmem's backend
 *   dev_port.c     the Ethernet port: wire strings, the datagram socket
 *   dev_wire.c     the port handed to another device or attached later (live migration)
 *   dev_model.c    which composed model (C / RTL) and its interface text, built in
 *   dev_mig_fsm.c  the VFIO uAPI v2 state machine (next arc), pure
 *   dev_vfio.c     the VFIO-shaped migration interface: arcs -> firmware commands, states
 *   dev_mig_stream.c  the data streams of a transfer (save socket, load pipe and its loader)
 *   dev_mig_reset.c   VFIO_DEVICE_RESET of one function: back to RUNNING with no objects
 *   dev_mig_fault.c   the firmware's HAL over this NIC, with the failure test hook
 *   dev_dirty.c    DMA dirty-page logging of the device's writes */
#ifndef HLSNIC_DEV_INTERNAL_H
#define HLSNIC_DEV_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hlsnic_dev.h"
#include "hlsnic_vfio.h"
#include "mig_fw.h"
#include "mig_hal_tb.h"
#include "nic_bar.h"
#include "nic_if.h"
#include "../nic/nic_tb.h"
#include "../nic/clock_jump.h"
#include "../lib/pcap.h"
#include "../../rtl-gen/wrap/iface_read.h"

_Static_assert(sizeof(nic_cmd_t) <= NIC_BAR_CMD_MAX, "nic_cmd_t does not fit the BAR's command window");
_Static_assert(sizeof(nic_cmd_resp_t) <= NIC_BAR_RESP_MAX, "nic_cmd_resp_t does not fit the response window");

#define DEV_FRAME_MAX 65536u /* largest datagram read; the NIC itself takes up to 9216 bytes */

/* ---- one PCIe function's BAR state ---- */
typedef struct {
    uint8_t cmd[NIC_BAR_CMD_MAX];   /* the mailbox as software wrote it */
    uint8_t resp[NIC_BAR_RESP_MAX]; /* the last command's answer */
    bool busy, done;                /* NIC_CMD_STATUS_BUSY / _DONE */
    uint8_t status, bad_field;      /* of the last answered command */
    uint64_t ev[NIC_BAR_EVENT_DEPTH];
    unsigned ev_head, ev_n;
    uint64_t ev_lost;
    bool irq_masked;
    int irq_fd;                     /* eventfd: the function's MSI-X vector 0 */
} dev_fn_t;

/* ---- the Ethernet port ---- */
typedef struct {
    int fd;                          /* -1: no port, frames are dropped */
    struct sockaddr_storage remote;
    socklen_t remote_len;
    char local_path[108];            /* unix: unlinked at close */
    bool stalled;                    /* the last frame was lost to a full peer: do not wait again
                                        until a send succeeds (dev_port_send) */
    uint64_t drop[16];               /* test hook: numbers of received datagrams to drop */
    unsigned ndrop;
    uint64_t received;               /* datagrams received so far */
} dev_port_t;

typedef struct {
    uint64_t addr, len;
} dev_map_t;

/* ---- migration of one function (dev_vfio.c) ---- */
typedef struct {
    enum hlsnic_mig_state state;
    /* the firmware's context for this function: each function migrates on its own, so no
     * function's migration (or ERROR) holds up another's */
    struct mig_fw fw;
    /* save stream (STOP_COPY, PRE_COPY*): the device writes save_wfd; save_peek is its own copy
     * of the reader's end, for the bytes not read yet (FIONREAD) */
    int save_wfd, save_peek;
    uint64_t written, initial;       /* bytes into the stream; of them, the first (full) pass */
    /* load stream (RESUMING): the loader thread reads load_rfd until load_stop is signalled */
    int load_rfd, load_stop;
    pthread_t loader;
    bool loader_started;
    int load_err;                    /* 0, or the negative errno the load ends with */
    bool committed;                  /* the FINAL pass's end block was loaded */
} dev_mig_fn_t;

/* ---- test hook: one HAL op of one function fails after `skip` more calls ---- */
typedef struct {
    bool armed;
    enum hlsnic_test_hal_op op;
    unsigned fn, skip;
} dev_hal_fault_t;

/* ---- DMA dirty-page logging (dev_dirty.c) ---- */
typedef struct {
    uint64_t iova, length;
    uint64_t *bits;                  /* a bit per page of the range */
} dev_log_range_t;
typedef struct {
    bool active;
    unsigned shift;                  /* log2 page size */
    dev_log_range_t *r;
    unsigned n;
    bool skip_armed;                 /* test hook: the next write to skip_page is not logged */
    uint64_t skip_page;
    uint64_t skip_lo, skip_hi;       /* test hook: no write into [skip_lo, skip_hi) is logged */
} dev_dirty_t;

/* ---- the chosen model ---- */
typedef struct {
    nic_tb_model_t m;
    nic_tb_mode_t mode;
    int iface_fd;                    /* memfd holding the built-in .iface (m.iface names it) */
    char iface_path[64];
} dev_model_t;

struct hlsnic_dev {
    pthread_mutex_t mu;              /* everything below; the clock thread holds it per batch */
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    atomic_uint waiters;             /* MMIO callers waiting for mu: the clock thread yields */
    int wake_fd;                     /* eventfd: MMIO gave the NIC work, stop sleeping */
    unsigned batch, idle_us;
    /* the idle jump (testbench/nic/clock_jump.h): NULL when off */
    clock_jump_t *jump;
    unsigned grace_us;               /* wall time the wire must be silent first (at least) */
    double idle_since_us;            /* when the current idle stretch began; 0: busy */
    uint64_t step_cycles;            /* cycles stepped and the wall time it took, for the */
    double step_us;                  /* device's own speed (the grace scales with it) */

    dev_model_t model;
    nic_tb_t *tb;
    ifc_t *ifc;                      /* our own copy of the interface, for leaf offsets */
    int cq_db_arm_off;               /* byte offset of nic_db_t.arm in the cq_db item, or -1 */
    unsigned cq_db_size;

    dev_port_t port;
    pcap_writer_t *pcap;
    uint8_t *frame;                  /* DEV_FRAME_MAX receive buffer */

    dev_fn_t fn[NIC_FNS];
    uint8_t cmd_owner[NIC_FNS];      /* functions of the commands in flight, oldest first */
    unsigned cmd_n;

    dev_map_t *maps;
    size_t nmaps, cap_maps;

    /* migration: the firmware linked in as the embedded controller (a context per function,
     * dev_mig_fn_t), its HAL over this NIC */
    pthread_mutex_t vfio_mu;         /* one VFIO call at a time (taken before mu, never after) */
    struct mig_hal_tb hal;
    const struct mig_hal_ops *hal_tb_ops; /* the testbench's ops, which hal_ops wraps */
    struct mig_hal_ops hal_ops;
    dev_hal_fault_t hal_fault;       /* test hook: the next failing HAL op (dev_mig_fault.c) */
    bool fw_ready;
    uint8_t *blk;                    /* the PF driver's image block buffer (DMA-mapped) */
    dev_mig_fn_t mig[NIC_FNS];
    dev_dirty_t dirty;

    hlsnic_dev_stats_t st;           /* cycles is filled in when read */
    uint64_t tx_dropped;             /* frames the socket would not take */
    uint64_t mmio_errors;
    char fault[256];
    bool has_fault;
    char mmio_err[256];
    bool has_mmio_err;
};

/* hlsnic_dev.c: take d->mu from an API call (the clock thread lets waiting callers in). */
void dev_lock(hlsnic_dev_t *d);
/* mu held, outside the clock thread: move frames between the socket and the NIC and take the
 * NIC's answers and events (what a clock-thread batch does around its steps). */
void dev_service(hlsnic_dev_t *d);
/* mu held: step the NIC until no mailbox command is in flight (at most `max` cycles);
 * false if one still is. The firmware's own commands use ctrl's queue too. */
bool dev_settle_commands(hlsnic_dev_t *d, unsigned max);

/* dev_mmio.c */
void dev_mmio_error(hlsnic_dev_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Answers and events the NIC produced since the last call (clock thread, mu held). */
void dev_collect(hlsnic_dev_t *d);
/* A command or doorbell is queued or a command is in flight. */
bool dev_mmio_pending(const hlsnic_dev_t *d);

/* dev_dma.c */
int dev_dma_read(void *ctx, uint64_t addr, void *buf, size_t len);
int dev_dma_write(void *ctx, uint64_t addr, const void *data, size_t len);

/* dev_dirty.c: log a DMA write that was applied (mu held) */
void dev_dirty_note(hlsnic_dev_t *d, uint64_t addr, size_t len);
void dev_dirty_free(hlsnic_dev_t *d);

/* dev_vfio.c: at open (before the clock thread) and close */
int dev_vfio_open(hlsnic_dev_t *d, char *err, size_t errlen);
void dev_vfio_close(hlsnic_dev_t *d);
/* dev_vfio.c: one firmware command on fn's context (mu held): its mig_status, *r its answer */
int dev_fw(hlsnic_dev_t *d, unsigned fn, uint8_t op, struct mig_resp *r);
/* a firmware refusal as the uAPI's errno */
int dev_fw_errno(const struct mig_resp *r);

/* dev_mig_stream.c (mu held unless said) */
int dev_save_open(dev_mig_fn_t *m, int *data_fd);
void dev_save_end(dev_mig_fn_t *m);
/* bytes of the save stream the caller has not read */
uint64_t dev_save_unread(const dev_mig_fn_t *m);
/* one pass into the save stream: Image-Save until its end block (want_final: the FINAL
 * pass's), or nothing when pre-copy has nothing new. 0 or a negative errno. */
int dev_save_pass(hlsnic_dev_t *d, unsigned fn, bool want_final);
int dev_load_open(hlsnic_dev_t *d, unsigned fn, int *data_fd);
/* the caller is done writing: the loader takes what is in the pipe and ends (mu not held) */
void dev_load_end(dev_mig_fn_t *m);
void dev_close_fd(int *fd);

/* dev_mig_reset.c: fn frozen, its QP, CQ and MR rows cleared, back to RUNNING (mu held) */
int dev_mig_reset_fn(hlsnic_dev_t *d, unsigned fn);

/* dev_mig_fault.c: the HAL the firmware contexts use (at open) */
struct mig_hal dev_mig_hal(hlsnic_dev_t *d);

/* dev_port.c: 0, or -1 with the reason in err */
int dev_port_open(dev_port_t *p, const char *wire, char *err, size_t errlen);
void dev_port_close(dev_port_t *p);
/* Hand the socket (and the unix path it removes at close) from one port to another that has
 * none; `from` is left without a socket. */
void dev_port_move(dev_port_t *from, dev_port_t *to);
/* Send one frame; false if the socket did not take it (full, peer absent). */
bool dev_port_send(dev_port_t *p, const uint8_t *frame, size_t len);
/* Receive one datagram without blocking: its length (0: an empty datagram; more than cap:
 * it was cut), or -1 when none waits. */
long dev_port_recv(dev_port_t *p, uint8_t *buf, size_t cap);
/* The test hook's list ("1,3"; NULL or "" for none): 0, or -1 with the reason in err. */
int dev_port_set_drops(dev_port_t *p, const char *spec, char *err, size_t errlen);
/* Count one received datagram; true if the list says to drop it. */
bool dev_port_drop_next(dev_port_t *p);

/* dev_model.c: 0, or -1 with the reason in err */
int dev_model_open(dev_model_t *m, const char *name, char *err, size_t errlen);
void dev_model_close(dev_model_t *m);

#endif /* HLSNIC_DEV_INTERNAL_H */
