/* provider.c — libhlsnic-rdmav34.so: registration with libibverbs 44, the device and
 * context objects, query_device(_ex) and query_port. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hlsnic.h"

/* ---- device ---- */
struct hlsnic_device {
    struct verbs_device vdev;
};

static struct verbs_device *hlsnic_alloc_device(struct verbs_sysfs_dev *sysfs) {
    (void)sysfs;
    struct hlsnic_device *d = calloc(1, sizeof *d);
    return d ? &d->vdev : NULL;
}

static void hlsnic_uninit_device(struct verbs_device *vdev) { free(vdev); }

/* ---- queries ---- */
static int hlsnic_query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *input,
                                  struct ibv_device_attr_ex *out, size_t out_size) {
    hlsnic_fn_t *f = to_ctx(c)->f;
    if (input && input->comp_mask) return EINVAL;
    if (out_size < sizeof out->orig_attr) return EINVAL;
    struct ibv_device_attr_ex a;
    memset(&a, 0, sizeof a);
    struct ibv_device_attr *o = &a.orig_attr;
    snprintf(o->fw_ver, sizeof o->fw_ver, "hlsnic %u", NIC_BAR_VERSION);
    o->node_guid = ibv_get_device_guid(c->device);
    o->sys_image_guid = o->node_guid;
    o->max_mr_size = UINT64_MAX;
    o->page_size_cap = 4096;
    o->vendor_id = 0;        /* no IEEE OUI: perftest and others then take their generic paths */
    o->vendor_part_id = 0;
    o->hw_ver = NIC_BAR_VERSION;
    o->max_qp = NIC_QP_PER_FN;
    o->max_qp_wr = 1 << f->max_ring_log;
    o->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN; /* the responder sends RNR NAKs */
    o->max_sge = HLSNIC_MAX_SGE;
    o->max_sge_rd = HLSNIC_MAX_SGE;
    o->max_cq = NIC_CQ_PER_FN;
    o->max_cqe = 1 << f->max_ring_log;
    o->max_mr = NIC_MR_PER_FN;
    o->max_pd = INT32_MAX;
    o->max_qp_rd_atom = HLSNIC_MAX_DEST_RD_ATOMIC; /* as target: the responder's replay cache */
    o->max_ee_rd_atom = 0;
    o->max_res_rd_atom = HLSNIC_MAX_DEST_RD_ATOMIC * NIC_QP_PER_FN;
    o->max_qp_init_rd_atom = HLSNIC_MAX_RD_ATOMIC;
    o->max_ee_init_rd_atom = 0;
    o->atomic_cap = IBV_ATOMIC_HCA; /* the responder executes atomics; atomic w.r.t. this NIC */
    o->max_pkeys = 1;
    o->local_ca_ack_delay = 15;
    o->phys_port_cnt = 1;
    a.hca_core_clock = 250000; /* kHz: the device clock (nic_bar.h NIC_BAR_CYCLES) */
    size_t n = out_size < sizeof a ? out_size : sizeof a;
    memcpy(out, &a, n);
    if (out_size > sizeof a) memset((char *)out + sizeof a, 0, out_size - sizeof a);
    return 0;
}

static int hlsnic_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *pa) {
    hlsnic_fn_t *f = to_ctx(c)->f;
    if (port != HLSNIC_PORT) return EINVAL;
    memset(pa, 0, sizeof *pa);
    pa->state = IBV_PORT_ACTIVE;
    pa->max_mtu = (enum ibv_mtu)f->max_mtu;
    pa->active_mtu = (enum ibv_mtu)f->active_mtu;
    pa->gid_tbl_len = 1;
    pa->port_cap_flags = 0;
    pa->max_msg_sz = 0x80000000u;
    pa->pkey_tbl_len = 1;
    pa->active_width = 2;   /* 4X */
    pa->active_speed = 32;  /* EDR: 4 x 25 Gb/s ~ the datapath's 128 Gb/s at 250 MHz */
    pa->phys_state = 5;     /* LinkUp */
    pa->link_layer = IBV_LINK_LAYER_ETHERNET;
    return 0;
}

static void hlsnic_free_context(struct ibv_context *c);

static const struct verbs_context_ops hlsnic_ctx_ops = {
    .alloc_pd = hlsnic_alloc_pd,
    .async_event = hlsnic_async_event,
    .cq_event = hlsnic_cq_event,
    .create_cq = hlsnic_create_cq,
    .create_qp = hlsnic_create_qp,
    .dealloc_pd = hlsnic_dealloc_pd,
    .dereg_mr = hlsnic_dereg_mr,
    .destroy_cq = hlsnic_destroy_cq,
    .destroy_qp = hlsnic_destroy_qp,
    .free_context = hlsnic_free_context,
    .modify_qp = hlsnic_modify_qp,
    .poll_cq = hlsnic_poll_cq,
    .post_recv = hlsnic_post_recv,
    .post_send = hlsnic_post_send,
    .query_device_ex = hlsnic_query_device_ex,
    .query_port = hlsnic_query_port,
    .query_qp = hlsnic_query_qp,
    .reg_mr = hlsnic_reg_mr,
    .req_notify_cq = hlsnic_req_notify_cq,
};

/* ---- context ---- */
static struct verbs_context *hlsnic_alloc_context(struct ibv_device *ibdev, int cmd_fd, void *priv) {
    (void)priv;
    struct verbs_device *vdev = (struct verbs_device *)ibdev;
    struct hlsnic_context *ctx = _verbs_init_and_alloc_context(
        ibdev, cmd_fd, sizeof *ctx, &((struct hlsnic_context *)NULL)->vctx, HLSNIC_RDMA_DRIVER_UNKNOWN);
    if (!ctx) return NULL;
    ctx->async_wfd = -1;
    pthread_mutex_init(&ctx->chan_lock, NULL);
    int err = 0;
    ctx->f = hlsnic_fn_get(vdev->sysfs, &err);
    if (!ctx->f) goto fail;
    /* The async event fd: what the kernel's uverbs file would be. The driver's event thread
     * sends ib_uverbs_async_event_desc records, one message each, on a SOCK_SEQPACKET pair
     * (a full socket drops, never blocks); destroy takes an object's unread ones off. */
    int p[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p)) {
        err = errno;
        hlsnic_fn_put(ctx->f);
        goto fail;
    }
    ctx->vctx.context.async_fd = p[0];
    ctx->async_wfd = p[1];
    shutdown(p[0], SHUT_WR); /* the program's end only reads */
    shutdown(p[1], SHUT_RD);
    verbs_set_ops(&ctx->vctx, &hlsnic_ctx_ops);
    return &ctx->vctx;
fail:
    verbs_uninit_context(&ctx->vctx);
    free(ctx);
    errno = err ? err : ENODEV;
    return NULL;
}

static void hlsnic_free_context(struct ibv_context *c) {
    struct hlsnic_context *ctx = to_ctx(c);
    hlsnic_close_channels(ctx);
    if (ctx->async_wfd >= 0) close(ctx->async_wfd);
    hlsnic_fn_put(ctx->f);
    verbs_uninit_context(&ctx->vctx); /* closes cmd_fd and async_fd */
    free(ctx);
}

/* ---- registration ---- */
/* The device is found by its name (class/infiniband/hlsnic*), the way rxe and siw are:
 * there is no kernel driver id or PCI modalias for it. */
static const struct verbs_match_ent hlsnic_match[] = {
    {.u.modalias = "rdma_device:*Nhlsnic*", .kind = VERBS_MATCH_MODALIAS},
    {.kind = VERBS_MATCH_SENTINEL},
};

static const struct verbs_device_ops hlsnic_dev_ops = {
    .name = "hlsnic",
    .match_min_abi_version = 0,
    .match_max_abi_version = INT_MAX,
    .match_table = hlsnic_match,
    .alloc_device = hlsnic_alloc_device,
    .uninit_device = hlsnic_uninit_device,
    .alloc_context = hlsnic_alloc_context,
};

/* The structures in ibverbs_abi44.h are those of libibverbs 44 only: refuse any other
 * (docs/host-driver.md "ABI pinning"). Returns NULL when fine, else what was found. */
const char *hlsnic_check_libibverbs(char *buf, size_t len) {
    Dl_info info;
    if (!dladdr((void *)ibv_get_device_list, &info) || !info.dli_fname) return "no libibverbs found by dladdr";
    char real[PATH_MAX];
    if (!realpath(info.dli_fname, real)) snprintf(real, sizeof real, "%s", info.dli_fname);
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    if (strncmp(base, "libibverbs.so.1.14." HLSNIC_IBVERBS_RELEASE ".", 22) != 0) {
        snprintf(buf, len, "%s", real);
        return buf;
    }
    return NULL;
}

static __attribute__((constructor)) void hlsnic_register(void) {
    char buf[PATH_MAX];
    const char *bad = hlsnic_check_libibverbs(buf, sizeof buf);
    if (bad) {
        fprintf(stderr, "hlsnic: built for libibverbs %s (rdma-core %s, IBVERBS_PRIVATE_%d), found %s; not registering\n",
                HLSNIC_IBVERBS_RELEASE, HLSNIC_IBVERBS_RELEASE, HLSNIC_IBVERBS_PABI, bad);
        return;
    }
    verbs_register_driver_34(&hlsnic_dev_ops);
}
