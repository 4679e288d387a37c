/* map.h — pure translations between libibverbs' structures and the NIC's (nic_if.h).
 *
 * No device, no libibverbs calls, no global state: every function here is unit-tested by
 * tests/map_test.c. A function that refuses its input returns an errno value (EINVAL, ...)
 * and, through `why`, a constant string naming the argument that was wrong. */
#ifndef HLSNIC_MAP_H
#define HLSNIC_MAP_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

#include "nic_if.h"

/* Limits the provider reports and enforces (docs/host-driver.md "limits"). */
enum {
    HLSNIC_MAX_SGE = 1,             /* the WQE formats carry one buffer */
    HLSNIC_MAX_INLINE = 512,        /* bytes per SQ slot in the QP's inline buffer */
    HLSNIC_MAX_RD_ATOMIC = NIC_MAX_RD_ATOMIC,          /* as initiator (requester window) */
    HLSNIC_MAX_DEST_RD_ATOMIC = NIC_MAX_DEST_RD_ATOMIC, /* as target (responder replay cache) */
    HLSNIC_MAX_RING_LOG = 15,       /* ctrl: 16-bit doorbell indexes */
    HLSNIC_PORT = 1,
};

/* What the driver remembers of a QP between modify calls (beyond what the NIC holds). */
typedef struct {
    uint8_t state;            /* NIC_QPS_*: the driver's view of the current state */
    uint32_t qpn;
    uint32_t dest_qpn;        /* last DEST_QPN set (for the UDP source port of a later AV) */
    uint8_t en_sqd_async_notify;
    uint8_t hop_limit, traffic_class, sl;
    uint32_t flow_label;
} hlsnic_qp_shadow_t;

/* The destination MAC for an IPv4 address (the neighbour table). */
typedef int (*hlsnic_resolve_fn)(void *arg, uint32_t ip, uint64_t *mac);

/* ibv_modify_qp -> NIC_CMD_MODIFY_QP. The NIC holds and checks every attribute with a
 * NIC_QPA_* bit (required/optional per transition, values); the driver checks and drops the
 * two it has no field for (EN_SQD_ASYNC_NOTIFY on RTS->SQD, PATH_MIG_STATE = MIGRATED where
 * Linux allows it), refuses QKEY, ALT_PATH, CAP and RATE_LIMIT, and turns the AV into the
 * destination IP, MAC (resolve) and UDP source port. On success updates *sh's remembered
 * values (not its state: the caller does that once the NIC accepted the command). */
int hlsnic_map_modify_qp(const struct ibv_qp_attr *attr, int mask, hlsnic_qp_shadow_t *sh,
                         unsigned max_pmtu, hlsnic_resolve_fn resolve, void *resolve_arg,
                         nic_cmd_t *cmd, const char **why);

/* The RoCEv2 UDP source port: from the flow label, or (label 0) from the QP numbers, as
 * Linux's rdma_flow_label_to_udp_sport(rdma_calc_flow_label()) does. */
uint16_t hlsnic_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);

/* NIC_QPS_* state of libibverbs' enum ibv_qp_state (same values); >6 is not a state. */
int hlsnic_valid_state(int s);

/* ibv access flags -> NIC_ACC_* for an MR. EINVAL for MW_BIND, ZERO_BASED, ON_DEMAND and
 * unknown bits, and for REMOTE_WRITE / REMOTE_ATOMIC without LOCAL_WRITE (ibv_reg_mr(3)).
 * The optional range (IBV_ACCESS_OPTIONAL_RANGE: RELAXED_ORDERING...) is ignored. */
int hlsnic_map_mr_access(int access, uint8_t *nic_access, const char **why);
/* ibv_qp_attr.qp_access_flags -> NIC_ACC_* for a QP (REMOTE_* only; LOCAL_WRITE ignored). */
int hlsnic_map_qp_access(int access, uint8_t *nic_access, const char **why);
int hlsnic_unmap_access(uint8_t nic_access);

/* ibv_send_wr -> SQ WQE (everything except an inline copy: for IBV_SEND_INLINE the caller
 * copies the data and sets local_addr/lkey). EINVAL: opcode not supported, num_sge >
 * HLSNIC_MAX_SGE, atomic length not 8, inline too long, inline on an opcode that reads into
 * a local buffer, send flags not supported (FENCE, IP_CSUM). */
int hlsnic_map_send_wr(const struct ibv_send_wr *wr, int sq_sig_all, uint32_t max_inline,
                       nic_sq_wqe_t *wqe, const char **why);
/* Total bytes of wr's gather list (for inline). */
uint64_t hlsnic_sge_bytes(const struct ibv_send_wr *wr);

/* ibv_recv_wr -> RQ WQE. EINVAL for num_sge > HLSNIC_MAX_SGE. */
int hlsnic_map_recv_wr(const struct ibv_recv_wr *wr, nic_rq_wqe_t *wqe, const char **why);

/* CQE -> work completion (imm_data in network order, as libibverbs passes it on).
 * src_qp is the QP's destination QPN (RC). */
void hlsnic_map_cqe(const nic_cqe_t *cqe, uint32_t src_qp, struct ibv_wc *wc);

/* Smallest log2 ring size holding `entries` (at least 1 entry): -1 when above max_log. */
int hlsnic_ring_log(uint32_t entries, unsigned max_log);

/* "aa:bb:cc:dd:ee:ff" -> 48-bit value (first byte most significant, as nic_if.h keeps MACs).
 * EINVAL unless six hex bytes; multicast or zero addresses are refused too. */
int hlsnic_parse_mac(const char *s, uint64_t *mac);
/* The MAC for ip in a neighbour list "IP=MAC[,IP=MAC...]": 0 found, ENOENT not listed,
 * EINVAL malformed (with *why naming the entry). */
int hlsnic_neigh_lookup(const char *list, uint32_t ip, uint64_t *mac, const char **why);
/* The default MAC rule: 02:00 followed by the IPv4 address bytes. */
uint64_t hlsnic_mac_of_ip(uint32_t ip);
/* "0000:0000:0000:0000:0000:ffff:0a00:0001" (sysfs GID text) or a raw GID -> IPv4.
 * EINVAL unless an IPv4-mapped GID. */
int hlsnic_gid_text_ipv4(const char *text, uint32_t *ip);
int hlsnic_gid_ipv4(const union ibv_gid *gid, uint32_t *ip);
void hlsnic_ipv4_gid(uint32_t ip, union ibv_gid *gid);

/* NIC command status -> errno (0 for NIC_CMD_OK). */
int hlsnic_cmd_errno(unsigned status);

#endif /* HLSNIC_MAP_H */
