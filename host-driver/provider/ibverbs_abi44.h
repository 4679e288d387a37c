/* ibverbs_abi44.h — the private provider ABI of libibverbs 44 (rdma-core 44.x,
 * IBVERBS_PRIVATE_34), declared here because Debian 12 does not install infiniband/driver.h.
 *
 * Written from the layouts in rdma-core v44.0 libibverbs/driver.h (field order and types
 * only; names kept so the structures read like the original). These structures have no
 * version field and changed between rdma-core releases without a new private ABI number, so
 * this header is valid ONLY for libibverbs.so.1.14.44.*: host-driver/Makefile refuses to build
 * against another libibverbs-dev, and the provider's constructor refuses to register with
 * another library at run time (docs/host-driver.md "ABI pinning"). */
#ifndef HLSNIC_IBVERBS_ABI44_H
#define HLSNIC_IBVERBS_ABI44_H

#include <infiniband/verbs.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define HLSNIC_IBVERBS_PABI 34        /* IBVERBS_PABI_VERSION of rdma-core 44 */
#define HLSNIC_IBVERBS_RELEASE "44"   /* PACKAGE_VERSION major of rdma-core 44 */

/* ccan/list.h's list_node: two pointers. */
struct hlsnic_abi_list_node {
    struct hlsnic_abi_list_node *next, *prev;
};

/* Opaque here: the provider only hands it back to ibv_read_ibdev_sysfs_file. */
struct verbs_sysfs_dev;

enum { /* verbs_match_ent.kind */
    VERBS_MATCH_SENTINEL = 0,
    VERBS_MATCH_PCI = 1,
    VERBS_MATCH_MODALIAS = 2,
    VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
    void *driver_data;
    union {
        const char *modalias;
        uint64_t driver_id;
    } u;
    uint16_t vendor;
    uint16_t device;
    uint8_t kind;
};

struct verbs_device;

struct verbs_device_ops {
    const char *name;
    uint32_t match_min_abi_version;
    uint32_t match_max_abi_version;
    const struct verbs_match_ent *match_table;
    const struct verbs_device_ops **static_providers;
    bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
    struct verbs_context *(*alloc_context)(struct ibv_device *device, int cmd_fd, void *private_data);
    struct verbs_context *(*import_context)(struct ibv_device *device, int cmd_fd);
    struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
    void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
    struct ibv_device device; /* must be first */
    const struct verbs_device_ops *ops;
    atomic_int refcount;
    struct hlsnic_abi_list_node entry;
    struct verbs_sysfs_dev *sysfs;
    uint64_t core_support;
};

enum ibv_mr_type {
    IBV_MR_TYPE_MR,
    IBV_MR_TYPE_NULL_MR,
    IBV_MR_TYPE_IMPORTED_MR,
    IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
    struct ibv_mr ibv_mr;
    enum ibv_mr_type mr_type;
    int access;
};

struct verbs_xrcd;
struct verbs_qp {
    union {
        struct ibv_qp qp;
        struct ibv_qp_ex qp_ex;
    };
    uint32_t comp_mask;
    struct verbs_xrcd *xrcd;
};

struct verbs_cq {
    union {
        struct ibv_cq cq;
        struct ibv_cq_ex cq_ex;
    };
};

/* Every op a provider can supply, in rdma-core 44's (alphabetical) order. */
struct verbs_context_ops {
    int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
                     struct ibv_sge *sg_list, uint32_t num_sges);
    struct ibv_dm *(*alloc_dm)(struct ibv_context *context, struct ibv_alloc_dm_attr *attr);
    struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
    struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
    struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *context,
                                          struct ibv_parent_domain_init_attr *attr);
    struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
    struct ibv_td *(*alloc_td)(struct ibv_context *context, struct ibv_td_init_attr *init_attr);
    void (*async_event)(struct ibv_context *context, struct ibv_async_event *event);
    int (*attach_counters_point_flow)(struct ibv_counters *counters,
                                      struct ibv_counter_attach_attr *attr, struct ibv_flow *flow);
    int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
    int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind);
    int (*close_xrcd)(struct ibv_xrcd *xrcd);
    void (*cq_event)(struct ibv_cq *cq);
    struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
    struct ibv_counters *(*create_counters)(struct ibv_context *context,
                                            struct ibv_counters_init_attr *init_attr);
    struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
                                struct ibv_comp_channel *channel, int comp_vector);
    struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
                                      struct ibv_cq_init_attr_ex *init_attr);
    struct ibv_flow *(*create_flow)(struct ibv_qp *qp, struct ibv_flow_attr *flow_attr);
    struct ibv_flow_action *(*create_flow_action_esp)(struct ibv_context *context,
                                                      struct ibv_flow_action_esp_attr *attr);
    struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
    struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
                                   struct ibv_qp_init_attr_ex *qp_init_attr_ex);
    struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
                                                      struct ibv_rwq_ind_table_init_attr *init_attr);
    struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr);
    struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
                                     struct ibv_srq_init_attr_ex *srq_init_attr_ex);
    struct ibv_wq *(*create_wq)(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr);
    int (*dealloc_mw)(struct ibv_mw *mw);
    int (*dealloc_pd)(struct ibv_pd *pd);
    int (*dealloc_td)(struct ibv_td *td);
    int (*dereg_mr)(struct verbs_mr *vmr);
    int (*destroy_ah)(struct ibv_ah *ah);
    int (*destroy_counters)(struct ibv_counters *counters);
    int (*destroy_cq)(struct ibv_cq *cq);
    int (*destroy_flow)(struct ibv_flow *flow);
    int (*destroy_flow_action)(struct ibv_flow_action *action);
    int (*destroy_qp)(struct ibv_qp *qp);
    int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
    int (*destroy_srq)(struct ibv_srq *srq);
    int (*destroy_wq)(struct ibv_wq *wq);
    int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
    void (*free_context)(struct ibv_context *context);
    int (*free_dm)(struct ibv_dm *dm);
    int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
    struct ibv_dm *(*import_dm)(struct ibv_context *context, uint32_t dm_handle);
    struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
    struct ibv_pd *(*import_pd)(struct ibv_context *context, uint32_t pd_handle);
    int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
    int (*modify_flow_action_esp)(struct ibv_flow_action *action,
                                  struct ibv_flow_action_esp_attr *attr);
    int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
    int (*modify_qp_rate_limit)(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr);
    int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask);
    int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
    struct ibv_qp *(*open_qp)(struct ibv_context *context, struct ibv_qp_open_attr *attr);
    struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
                                  struct ibv_xrcd_init_attr *xrcd_init_attr);
    int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
    int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
    int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
    int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad_op);
    int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
                         struct ibv_recv_wr **bad_recv_wr);
    int (*query_device_ex)(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
                           struct ibv_device_attr_ex *attr, size_t attr_size);
    int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
    int (*query_port)(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr);
    int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
                    struct ibv_qp_init_attr *init_attr);
    int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags);
    int (*query_rt_values)(struct ibv_context *context, struct ibv_values_ex *values);
    int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
    int (*read_counters)(struct ibv_counters *counters, uint64_t *counters_value,
                         uint32_t ncounters, uint32_t flags);
    struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset,
                                size_t length, unsigned int access);
    struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset, size_t length,
                                    uint64_t iova, int fd, int access);
    struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va,
                             int access);
    int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
    int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd, void *addr,
                    size_t length, int access);
    int (*resize_cq)(struct ibv_cq *cq, int cqe);
    int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
    void (*unimport_dm)(struct ibv_dm *dm);
    void (*unimport_mr)(struct ibv_mr *mr);
    void (*unimport_pd)(struct ibv_pd *pd);
};

/* The IBVERBS_PRIVATE_34 functions this provider calls. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd, size_t alloc_size,
                                    struct verbs_context *context_offset, uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size, struct verbs_sysfs_dev *sysfs_dev,
                              const char *fnfmt, ...) __attribute__((format(printf, 4, 5)));

/* rdma-core's enum rdma_driver_id has no entry for us: RDMA_DRIVER_UNKNOWN. */
#define HLSNIC_RDMA_DRIVER_UNKNOWN 0

#endif /* HLSNIC_IBVERBS_ABI44_H */
