/* hlsnic.h — the provider's objects and the calls between its files.
 *
 *   provider.c   registration, version check, device/context, query_device/port
 *   fn.c         the process's one device and PCIe function: open from the environment,
 *                command mailbox, object numbering, the event ("interrupt") thread
 *   verbs_mr.c   PD, MR        verbs_cq.c   CQ, completion channels, poll, notify
 *   verbs_qp.c   QP create/modify/query/destroy      post.c   post_send, post_recv
 *   map.c        pure translations (map.h)
 *   hyp_*.c      the hypervisor beside the guest: live migration of the function (hyp.h)
 */
#ifndef HLSNIC_PROVIDER_H
#define HLSNIC_PROVIDER_H

#include <pthread.h>
#include <stdint.h>

#include "hlsnic_dev.h"
#include "hyp.h"
#include "ibverbs_abi44.h"
#include "map.h"
#include "nic_bar.h"

struct hlsnic_qp;
struct hlsnic_cq;
struct hlsnic_context;

/* The process's device and the PCIe function it drives: shared by every context. */
typedef struct {
    pthread_mutex_t cmd_lock;  /* one mailbox command at a time */
    pthread_mutex_t tab_lock;  /* the object tables below, and event delivery */
    int refs;                  /* open contexts */
    /* The device: replaced by a live migration (hyp_migrate.c) while the guest is paused, so
     * read it only inside the gate (hlsnic_bar_*, hlsnic_cmd, poll_cq) or with ram's lock. */
    hlsnic_dev_t *dev;
    hyp_gate_t gate;           /* the guest's "vCPUs": closed during a migration's stop phase */
    hyp_ram_t ram;             /* what the device may reach (every DMA mapping) */
    struct hyp_ctl *hyp;       /* migration triggers and history (hyp_trigger.c), or NULL */
    const char *cfg_model, *cfg_wire, *cfg_pcap; /* how the device was opened (the destination too) */
    const char *cfg_wire_alt;  /* HLSNIC_MIGRATE_WIRE: migrations alternate between the two wires */
    unsigned wire_now;         /* 0: cfg_wire, 1: cfg_wire_alt */
    uint64_t cycle_base;       /* cycles of the devices the function ran on before this one */
    uint64_t frame_base;       /* frames those devices sent (a --migrate-at point in frames) */
    unsigned fn;
    uint64_t mac;
    uint32_t ip;
    unsigned active_mtu;       /* enum ibv_mtu of the port */
    unsigned max_mtu;          /* enum ibv_mtu the NIC supports (CAPS) */
    unsigned max_ring_log;     /* CAPS */
    const char *neigh;         /* HLSNIC_NEIGH or NULL */
    int debug;
    struct hlsnic_qp *qp[NIC_QP_PER_FN];
    uint32_t qp_gen[NIC_QP_PER_FN];
    struct hlsnic_cq *cq[NIC_CQ_PER_FN];
    uint32_t cq_gen[NIC_CQ_PER_FN];
    uint8_t mr_used[NIC_MR_PER_FN];
    uint32_t mr_gen[NIC_MR_PER_FN];
    uint32_t next_pd;
    pthread_t ev_thread;
    int ev_stop_fd;            /* eventfd: wakes the event thread to exit */
    int irq_fd;
    uint64_t ev_lost_seen;
} hlsnic_fn_t;

typedef struct {
    struct ibv_comp_channel *ch;
    int rfd, wfd;              /* the socket pair that replaced the channel's fd (read, send) */
} hlsnic_chan_t;

struct hlsnic_context {
    struct verbs_context vctx;
    hlsnic_fn_t *f;
    int async_wfd;             /* sending end of the async_fd socket pair */
    pthread_mutex_t chan_lock; /* the channels below, and sends on every event socket */
    hlsnic_chan_t *chans;
    int nchans, chans_cap;
};

struct hlsnic_pd {
    struct ibv_pd ibv_pd;
    uint32_t pdn;
    int users; /* MRs and QPs on this PD (atomic): dealloc_pd is EBUSY while any is left */
};

struct hlsnic_mr {
    struct verbs_mr vmr;
    unsigned slot;
    void *addr;
    size_t len;
    int mapped;
};

struct hlsnic_cq {
    struct verbs_cq vcq;
    struct hlsnic_context *ctx;
    uint32_t cqn;
    unsigned slot;
    unsigned log;
    uint8_t *ring;
    size_t ring_bytes;
    pthread_mutex_t lock;      /* the consumer index and the CQ doorbell */
    uint32_t ci;               /* CQEs consumed (not reduced modulo the ring) */
    int chan_wfd;              /* completion channel write end, or -1 */
    uint32_t comp_reported, async_reported; /* events the program read (destroy waits for acks) */
};

struct hlsnic_qp {
    struct verbs_qp vqp;
    struct hlsnic_context *ctx;
    hlsnic_qp_shadow_t sh;     /* state and what the NIC does not hold */
    unsigned slot;
    uint32_t pdn;
    struct hlsnic_cq *scq, *rcq;
    int sq_sig_all;
    struct ibv_qp_cap cap;
    unsigned sq_log, rq_log;
    uint8_t *sq, *rq, *inl;    /* rings and the inline buffer (HLSNIC_MAX_INLINE per SQ slot) */
    size_t sq_bytes, rq_bytes, inl_bytes;
    uint8_t *sq_signaled;      /* per SQ slot: the WQE asked for a completion */
    uint32_t inl_key;          /* MR covering the inline buffer */
    unsigned inl_mr_slot;
    pthread_mutex_t sq_lock, rq_lock; /* the rings and their doorbells */
    uint32_t sq_pi, sq_ci, rq_pi, rq_ci; /* producer / retired counters (not reduced) */
    uint32_t async_reported;   /* async events the program read (destroy waits for acks) */
};

static inline struct hlsnic_context *to_ctx(struct ibv_context *c) {
    return (struct hlsnic_context *)((char *)c - offsetof(struct hlsnic_context, vctx.context));
}
static inline struct hlsnic_cq *to_cq(struct ibv_cq *c) { return (struct hlsnic_cq *)c; }
static inline struct hlsnic_qp *to_qp(struct ibv_qp *q) { return (struct hlsnic_qp *)q; }
static inline struct hlsnic_pd *to_pd(struct ibv_pd *p) { return (struct hlsnic_pd *)p; }

/* fn.c */
hlsnic_fn_t *hlsnic_fn_get(struct verbs_sysfs_dev *sysfs, int *err);
void hlsnic_fn_put(hlsnic_fn_t *f);
/* Execute one device command (fills in fn). 0 or an errno; `what` names the verb for logs. */
int hlsnic_cmd(hlsnic_fn_t *f, nic_cmd_t *c, nic_cmd_resp_t *resp, const char *what);
int hlsnic_resolve_mac(void *f, uint32_t ip, uint64_t *mac);
void hlsnic_log(hlsnic_fn_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One BAR register of the function, inside the gate (waits while the guest is paused). */
uint64_t hlsnic_bar_read(hlsnic_fn_t *f, uint32_t off);
void hlsnic_bar_write(hlsnic_fn_t *f, uint32_t off, uint64_t v);
/* Page-aligned, zeroed, DMA-mapped driver memory (rings, inline buffers); kind says who
 * writes it (the migration's shadow check, hyp.h). */
void *hlsnic_dma_alloc(hlsnic_fn_t *f, size_t bytes, enum hyp_ram_kind kind);
void hlsnic_dma_free(hlsnic_fn_t *f, void *p, size_t bytes);
/* MR slots: an unused row of the function's MR table, and the key naming it. */
int hlsnic_mr_slot_alloc(hlsnic_fn_t *f, unsigned *slot, uint32_t *key);
void hlsnic_mr_slot_free(hlsnic_fn_t *f, unsigned slot);

/* fn.c: the event thread (the interrupt handler), stopped and restarted around a migration's
 * stop phase; dispatch of one raw device event (tab_lock taken inside) */
int hlsnic_events_start(hlsnic_fn_t *f);
void hlsnic_events_stop(hlsnic_fn_t *f);
void hlsnic_event_dispatch(hlsnic_fn_t *f, uint64_t ev);
/* hyp_migrate.c: migrate the function to a new device now (the caller's thread is the only
 * one that replaces f->dev). 0, or -errno with the reason in m->result; the guest keeps
 * running either way (on the source when it failed). Phase times are ms since t_base
 * (hyp_now_ms's clock). */
int hyp_migrate(hlsnic_fn_t *f, hyp_migration_t *m, double t_base);
double hyp_now_ms(void);
/* hyp_devices.c: the destination (its function dfn) opened with no port, mapped and RESUMING
 * (NULL with the reason in why); image bytes written into its data_fd; once its load is
 * validated, the wire handed to it and RUNNING (-1 with the reason: the source keeps or gets
 * back its port); the source back to RUNNING after a failure; the source's pending
 * interrupts (at most cap), renamed to function dfn. */
hlsnic_dev_t *hyp_dest_open(hlsnic_fn_t *f, unsigned nth, unsigned dfn, const char *model, int *wfd, char *why, size_t cap);
int hyp_dest_write(int wfd, const uint8_t *b, size_t n);
int hyp_dest_take_over(hlsnic_fn_t *f, hlsnic_dev_t *src, hlsnic_dev_t *dst, unsigned dfn, char *why, size_t cap);
void hyp_source_back(hlsnic_fn_t *f, hlsnic_dev_t *d);
unsigned hyp_pop_events(hlsnic_fn_t *f, hlsnic_dev_t *d, unsigned dfn, uint64_t *ev, unsigned cap);
/* hyp_trigger.c: HLSNIC_MIGRATE_AT / _CTL / _TIMELINE (docs/live-migration.md). 0 or an errno. */
int hyp_ctl_start(hlsnic_fn_t *f);
void hyp_ctl_stop(hlsnic_fn_t *f);

/* verbs_* ops */
struct ibv_pd *hlsnic_alloc_pd(struct ibv_context *c);
int hlsnic_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *hlsnic_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, int access);
int hlsnic_dereg_mr(struct verbs_mr *vmr);
struct ibv_cq *hlsnic_create_cq(struct ibv_context *c, int cqe, struct ibv_comp_channel *ch, int vec);
int hlsnic_destroy_cq(struct ibv_cq *cq);
int hlsnic_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int hlsnic_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void hlsnic_cq_event(struct ibv_cq *cq);
void hlsnic_close_channels(struct hlsnic_context *ctx);
/* fn.c: event delivery (SOCK_SEQPACKET sockets, one message per event) */
void hlsnic_event_send(struct hlsnic_context *ctx, int wfd, const void *ev, size_t len);
void hlsnic_events_discard(struct hlsnic_context *ctx, int rfd, int wfd, size_t len, uint64_t handle);
void hlsnic_async_event(struct ibv_context *c, struct ibv_async_event *ev);
struct ibv_qp *hlsnic_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
int hlsnic_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int hlsnic_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init);
int hlsnic_destroy_qp(struct ibv_qp *qp);
int hlsnic_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int hlsnic_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
/* The send/recv accounting of one CQE (poll_cq): frees SQ/RQ slots. tab_lock held. */
void hlsnic_qp_retire(struct hlsnic_qp *qp, const nic_cqe_t *cqe);

#endif /* HLSNIC_PROVIDER_H */
