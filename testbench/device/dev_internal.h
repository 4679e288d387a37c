/* dev_internal.h — what the files of testbench/device share (docs/device.md). Not a contract:
 * the driver sees hlsnic_dev.h only.
 *
 *   hlsnic_dev.c   open/close, the clock thread, statistics
 *   dev_mmio.c     BAR0 decode: ID registers, command mailbox, doorbells, events, statistics
 *   dev_dma.c      the DMA mapping table and host memory as hostmem's backend
 *   dev_port.c     the Ethernet port: wire strings, the datagram socket
 *   dev_model.c    which composed model (C / RTL) and its interface text, built in */
#ifndef HLSNIC_DEV_INTERNAL_H
#define HLSNIC_DEV_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hlsnic_dev.h"
#include "nic_bar.h"
#include "nic_if.h"
#include "../nic/nic_tb.h"
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
} dev_port_t;

typedef struct {
    uint64_t addr, len;
} dev_map_t;

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

/* dev_mmio.c */
void dev_mmio_error(hlsnic_dev_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Answers and events the NIC produced since the last call (clock thread, mu held). */
void dev_collect(hlsnic_dev_t *d);
/* A command or doorbell is queued or a command is in flight. */
bool dev_mmio_pending(const hlsnic_dev_t *d);

/* dev_dma.c */
int dev_dma_read(void *ctx, uint64_t addr, void *buf, size_t len);
int dev_dma_write(void *ctx, uint64_t addr, const void *data, size_t len);

/* dev_port.c: 0, or -1 with the reason in err */
int dev_port_open(dev_port_t *p, const char *wire, char *err, size_t errlen);
void dev_port_close(dev_port_t *p);
/* Send one frame; false if the socket did not take it (full, peer absent). */
bool dev_port_send(dev_port_t *p, const uint8_t *frame, size_t len);
/* Receive one datagram without blocking: its length (0: an empty datagram; more than cap:
 * it was cut), or -1 when none waits. */
long dev_port_recv(dev_port_t *p, uint8_t *buf, size_t cap);

/* dev_model.c: 0, or -1 with the reason in err */
int dev_model_open(dev_model_t *m, const char *name, char *err, size_t errlen);
void dev_model_close(dev_model_t *m);

#endif /* HLSNIC_DEV_INTERNAL_H */
