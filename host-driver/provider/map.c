/* map.c — translations between libibverbs and nic_if.h structures (map.h). */
#include "map.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(e, text)             \
    do {                          \
        if (why) *why = (text);   \
        return (e);               \
    } while (0)

int hlsnic_valid_state(int s) { return s >= IBV_QPS_RESET && s <= IBV_QPS_ERR; }

/* ---- access flags ---- */
enum {
    REMOTE_BITS = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
    NIC_BITS = IBV_ACCESS_LOCAL_WRITE | REMOTE_BITS,
};

int hlsnic_map_mr_access(int access, uint8_t *nic_access, const char **why) {
    unsigned a = (unsigned)access & ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE;
    a &= ~(unsigned)IBV_ACCESS_HUGETLB; /* a hint about the memory: nothing to do */
    if (a & IBV_ACCESS_MW_BIND) FAIL(EINVAL, "access: IBV_ACCESS_MW_BIND (no memory windows)");
    if (a & IBV_ACCESS_ZERO_BASED) FAIL(EINVAL, "access: IBV_ACCESS_ZERO_BASED not supported");
    if (a & IBV_ACCESS_ON_DEMAND) FAIL(EINVAL, "access: IBV_ACCESS_ON_DEMAND not supported");
    if (a & ~(unsigned)NIC_BITS) FAIL(EINVAL, "access: unknown flag bits");
    if ((a & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(a & IBV_ACCESS_LOCAL_WRITE))
        FAIL(EINVAL, "access: REMOTE_WRITE/REMOTE_ATOMIC need LOCAL_WRITE");
    *nic_access = (uint8_t)a; /* NIC_ACC_* have the ibv values */
    return 0;
}

int hlsnic_map_qp_access(int access, uint8_t *nic_access, const char **why) {
    /* A QP's access flags say what a peer may do through it; LOCAL_WRITE is meaningless on a
     * QP but commonly passed (ibv_rc_pingpong does not, perftest does): accepted. */
    if ((unsigned)access & ~(unsigned)NIC_BITS) FAIL(EINVAL, "qp_access_flags: unsupported bits");
    *nic_access = (uint8_t)(access & REMOTE_BITS);
    return 0;
}

int hlsnic_unmap_access(uint8_t nic_access) { return nic_access & REMOTE_BITS; }

/* ---- modify QP ---- */

/* Attributes the NIC holds and checks itself (ctrl: IB vol. 1 table 91 / Linux
 * qp_state_table for RC, value ranges), with the NIC_QPA_* bit of the same value. */
#define NIC_HELD                                                                              \
    (IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |  \
     IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |      \
     IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |          \
     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN)
/* Attributes the NIC does not take; the driver checks them and drops them. */
#define DROPPED (IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_PATH_MIG_STATE)

_Static_assert(IBV_QP_STATE == NIC_QPA_STATE && IBV_QP_CUR_STATE == NIC_QPA_CUR_STATE &&
                   IBV_QP_ACCESS_FLAGS == NIC_QPA_ACCESS && IBV_QP_PKEY_INDEX == NIC_QPA_PKEY_INDEX &&
                   IBV_QP_PORT == NIC_QPA_PORT && IBV_QP_AV == NIC_QPA_AV &&
                   IBV_QP_PATH_MTU == NIC_QPA_PATH_MTU && IBV_QP_TIMEOUT == NIC_QPA_TIMEOUT &&
                   IBV_QP_RETRY_CNT == NIC_QPA_RETRY_CNT && IBV_QP_RNR_RETRY == NIC_QPA_RNR_RETRY &&
                   IBV_QP_RQ_PSN == NIC_QPA_RQ_PSN && IBV_QP_MAX_QP_RD_ATOMIC == NIC_QPA_MAX_QP_RD_ATOMIC &&
                   IBV_QP_MIN_RNR_TIMER == NIC_QPA_MIN_RNR_TIMER && IBV_QP_SQ_PSN == NIC_QPA_SQ_PSN &&
                   IBV_QP_MAX_DEST_RD_ATOMIC == NIC_QPA_MAX_DEST_RD_ATOMIC &&
                   IBV_QP_DEST_QPN == NIC_QPA_DEST_QPN,
               "NIC_QPA_* must keep the ibv_qp_attr_mask values");

/* Where the dropped attributes are allowed (Linux qp_state_table, RC; neither is required). */
typedef struct {
    uint8_t from, to;
    int opt;
} rule_t;
static const rule_t rules[] = {
    {IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_RTS, IBV_QPS_SQD, IBV_QP_EN_SQD_ASYNC_NOTIFY},
    {IBV_QPS_SQD, IBV_QPS_RTS, IBV_QP_PATH_MIG_STATE},
    {IBV_QPS_SQD, IBV_QPS_SQD, IBV_QP_PATH_MIG_STATE},
};

uint16_t hlsnic_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn) {
    if (flow_label == 0) { /* rdma_calc_flow_label: hash of both QP numbers */
        uint64_t v = (uint64_t)lqpn * rqpn;
        v ^= v >> 20;
        v ^= v >> 40;
        flow_label = (uint32_t)(v & 0xfffff);
    }
    uint32_t low = flow_label & 0x3fff, high = flow_label & 0xfc000;
    low ^= high >> 14;
    return (uint16_t)(low | 0xc000); /* RoCEv2 annex A17.3.1: 0xC000..0xFFFF */
}

int hlsnic_map_modify_qp(const struct ibv_qp_attr *attr, int mask, hlsnic_qp_shadow_t *sh,
                         unsigned max_pmtu, hlsnic_resolve_fn resolve, void *resolve_arg,
                         nic_cmd_t *cmd, const char **why) {
    if (mask & IBV_QP_QKEY) FAIL(EINVAL, "attr_mask: IBV_QP_QKEY is not an RC attribute");
    if (mask & IBV_QP_ALT_PATH) FAIL(EINVAL, "attr_mask: IBV_QP_ALT_PATH (no automatic path migration)");
    if (mask & IBV_QP_CAP) FAIL(EINVAL, "attr_mask: IBV_QP_CAP (queues cannot be resized)");
    if (mask & IBV_QP_RATE_LIMIT) FAIL(EINVAL, "attr_mask: IBV_QP_RATE_LIMIT not supported");
    if (mask & ~(NIC_HELD | DROPPED)) FAIL(EINVAL, "attr_mask: unknown attribute bits");

    int cur = sh->state;
    int next = (mask & IBV_QP_STATE) ? (int)attr->qp_state : cur;
    if (!hlsnic_valid_state(next)) FAIL(EINVAL, "qp_state: not a QP state");
    if ((mask & IBV_QP_CUR_STATE) && !hlsnic_valid_state(attr->cur_qp_state)) FAIL(EINVAL, "cur_qp_state: not a QP state");
    int opt = 0;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].from == cur && rules[i].to == next) opt = rules[i].opt;
    if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY & ~opt) FAIL(EINVAL, "attr_mask: IBV_QP_EN_SQD_ASYNC_NOTIFY is allowed on RTS->SQD only");
    if (mask & IBV_QP_PATH_MIG_STATE & ~opt) FAIL(EINVAL, "attr_mask: IBV_QP_PATH_MIG_STATE not allowed on this transition");
    if ((mask & IBV_QP_PATH_MIG_STATE) && attr->path_mig_state != IBV_MIG_MIGRATED)
        FAIL(EINVAL, "path_mig_state: only IBV_MIG_MIGRATED (no alternate path)");

    memset(cmd, 0, sizeof *cmd);
    cmd->op = NIC_CMD_MODIFY_QP;
    cmd->num = sh->qpn;
    cmd->mask = (uint32_t)(mask & NIC_HELD);
    /* Without IBV_QP_STATE the NIC sees cur->cur (as the kernel does); state is sent anyway. */
    cmd->qp.state = (hls_uint(3))next;
    cmd->qp.cur_state = (hls_uint(3))((mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state : 0);
    /* Passed as given: the NIC checks the values (pkey 0, port 1, rd_atomic bounds). */
    cmd->qp.pkey_index = attr->pkey_index;
    cmd->qp.port_num = attr->port_num;
    cmd->qp.max_rd_atomic = attr->max_rd_atomic;
    cmd->qp.max_dest_rd_atomic = attr->max_dest_rd_atomic;
    if (mask & IBV_QP_ACCESS_FLAGS) {
        uint8_t a;
        int e = hlsnic_map_qp_access((int)attr->qp_access_flags, &a, why);
        if (e) return e;
        cmd->qp.access = a;
    }
    if (mask & IBV_QP_PATH_MTU) {
        if (attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096) FAIL(EINVAL, "path_mtu: not an enum ibv_mtu value");
        if ((unsigned)attr->path_mtu > max_pmtu) FAIL(EINVAL, "path_mtu: above the port's active MTU");
        cmd->qp.pmtu = (hls_uint(3))attr->path_mtu;
    }
    if (mask & IBV_QP_TIMEOUT) {
        if (attr->timeout > 31) FAIL(EINVAL, "timeout: above 31");
        cmd->qp.timeout = (hls_uint(5))attr->timeout;
    }
    if (mask & IBV_QP_RETRY_CNT) {
        if (attr->retry_cnt > 7) FAIL(EINVAL, "retry_cnt: above 7");
        cmd->qp.retry_cnt = (hls_uint(3))attr->retry_cnt;
    }
    if (mask & IBV_QP_RNR_RETRY) {
        if (attr->rnr_retry > 7) FAIL(EINVAL, "rnr_retry: above 7");
        cmd->qp.rnr_retry = (hls_uint(3))attr->rnr_retry;
    }
    if (mask & IBV_QP_MIN_RNR_TIMER) {
        if (attr->min_rnr_timer > 31) FAIL(EINVAL, "min_rnr_timer: above 31");
        cmd->qp.min_rnr_timer = (hls_uint(5))attr->min_rnr_timer;
    }
    if (mask & IBV_QP_RQ_PSN) {
        if (attr->rq_psn > 0xffffff) FAIL(EINVAL, "rq_psn: above 2^24-1");
        cmd->qp.rq_psn = (hls_u24)attr->rq_psn;
    }
    if (mask & IBV_QP_SQ_PSN) {
        if (attr->sq_psn > 0xffffff) FAIL(EINVAL, "sq_psn: above 2^24-1");
        cmd->qp.sq_psn = (hls_u24)attr->sq_psn;
    }
    uint32_t dest_qpn = sh->dest_qpn;
    if (mask & IBV_QP_DEST_QPN) {
        if (attr->dest_qp_num > 0xffffff) FAIL(EINVAL, "dest_qp_num: above 2^24-1");
        dest_qpn = attr->dest_qp_num;
        cmd->qp.dest_qpn = (hls_u24)dest_qpn;
    }
    if (mask & IBV_QP_AV) {
        const struct ibv_ah_attr *ah = &attr->ah_attr;
        uint32_t ip;
        if (!ah->is_global) FAIL(EINVAL, "ah_attr.is_global: RoCEv2 needs a GRH (is_global = 1)");
        if (ah->grh.sgid_index != 0) FAIL(EINVAL, "ah_attr.grh.sgid_index: the port has GID index 0 only");
        if (ah->port_num != 0 && ah->port_num != HLSNIC_PORT) FAIL(EINVAL, "ah_attr.port_num: the device has port 1 only");
        if (hlsnic_gid_ipv4(&ah->grh.dgid, &ip)) FAIL(EINVAL, "ah_attr.grh.dgid: not an IPv4-mapped GID (RoCEv2 over IPv4 only)");
        if (ip == 0) FAIL(EINVAL, "ah_attr.grh.dgid: IPv4 address 0.0.0.0");
        uint64_t mac;
        if (!resolve || resolve(resolve_arg, ip, &mac)) FAIL(EHOSTUNREACH, "ah_attr.grh.dgid: no neighbour entry (MAC) for this address");
        cmd->qp.dst_ip = ip;
        cmd->qp.dst_mac = mac;
        cmd->qp.udp_sport = hlsnic_udp_sport(ah->grh.flow_label & 0xfffff, sh->qpn, dest_qpn);
    }

    /* Accepted by the driver: remember what the NIC does not hold. */
    if (mask & IBV_QP_DEST_QPN) sh->dest_qpn = dest_qpn;
    if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY) sh->en_sqd_async_notify = attr->en_sqd_async_notify ? 1 : 0;
    if (mask & IBV_QP_AV) {
        sh->hop_limit = attr->ah_attr.grh.hop_limit;
        sh->traffic_class = attr->ah_attr.grh.traffic_class;
        sh->flow_label = attr->ah_attr.grh.flow_label & 0xfffff;
        sh->sl = attr->ah_attr.sl;
    }
    return 0;
}

/* ---- work requests ---- */
uint64_t hlsnic_sge_bytes(const struct ibv_send_wr *wr) {
    uint64_t n = 0;
    for (int i = 0; i < wr->num_sge; i++) n += wr->sg_list[i].length;
    return n;
}

int hlsnic_map_send_wr(const struct ibv_send_wr *wr, int sq_sig_all, uint32_t max_inline,
                       nic_sq_wqe_t *wqe, const char **why) {
    memset(wqe, 0, sizeof *wqe);
    wqe->wr_id = wr->wr_id;
    switch (wr->opcode) {
    case IBV_WR_SEND: wqe->opcode = NIC_WR_SEND; break;
    case IBV_WR_SEND_WITH_IMM: wqe->opcode = NIC_WR_SEND_IMM; break;
    case IBV_WR_RDMA_WRITE: wqe->opcode = NIC_WR_WRITE; break;
    case IBV_WR_RDMA_WRITE_WITH_IMM: wqe->opcode = NIC_WR_WRITE_IMM; break;
    case IBV_WR_RDMA_READ: wqe->opcode = NIC_WR_READ; break;
    case IBV_WR_ATOMIC_CMP_AND_SWP: wqe->opcode = NIC_WR_CAS; break;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: wqe->opcode = NIC_WR_FAA; break;
    default: FAIL(EINVAL, "opcode: not supported (SEND, SEND_WITH_IMM, RDMA_WRITE[_WITH_IMM], RDMA_READ, ATOMIC_CMP_AND_SWP/FETCH_AND_ADD)");
    }
    unsigned known = IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM;
    if (wr->send_flags & ~known) FAIL(EINVAL, "send_flags: unknown bits");
    if (wr->send_flags & IBV_SEND_IP_CSUM) FAIL(EINVAL, "send_flags: IBV_SEND_IP_CSUM is for raw packet QPs");
    if (wr->send_flags & IBV_SEND_FENCE) FAIL(EINVAL, "send_flags: IBV_SEND_FENCE not supported (the requester does not wait for earlier READs/atomics)");
    if (wr->num_sge < 0) FAIL(EINVAL, "num_sge: negative");
    int is_read = wqe->opcode == NIC_WR_READ, is_atomic = wqe->opcode == NIC_WR_CAS || wqe->opcode == NIC_WR_FAA;
    int inl = (wr->send_flags & IBV_SEND_INLINE) != 0;
    if (inl && (is_read || is_atomic)) FAIL(EINVAL, "send_flags: IBV_SEND_INLINE on an opcode that writes a local buffer");
    if (!inl && wr->num_sge > HLSNIC_MAX_SGE) FAIL(EINVAL, "num_sge: above max_send_sge (1)");
    if (inl && wr->num_sge > HLSNIC_MAX_SGE) FAIL(EINVAL, "num_sge: above max_send_sge (1)");
    if (wr->num_sge > 0 && !wr->sg_list) FAIL(EINVAL, "sg_list: NULL with num_sge > 0");
    uint64_t len = hlsnic_sge_bytes(wr);
    if (len > 0x80000000ull) FAIL(EINVAL, "sg_list: length above max_msg_sz (2^31)");
    if (inl && len > max_inline) FAIL(EINVAL, "sg_list: inline data longer than the QP's max_inline_data");
    if (is_atomic && (wr->num_sge != 1 || len != 8)) FAIL(EINVAL, "sg_list: an atomic needs one 8-byte buffer");
    if (wr->send_flags & IBV_SEND_SIGNALED || sq_sig_all) wqe->flags |= NIC_WQE_SIGNALED;
    if (wr->send_flags & IBV_SEND_SOLICITED) wqe->flags |= NIC_WQE_SOLICITED;
    if (wqe->opcode == NIC_WR_SEND_IMM || wqe->opcode == NIC_WR_WRITE_IMM) wqe->imm = ntohl(wr->imm_data);
    wqe->length = (uint32_t)len;
    if (wr->num_sge == 1 && !inl) {
        wqe->local_addr = wr->sg_list[0].addr;
        wqe->lkey = wr->sg_list[0].lkey;
    }
    switch (wqe->opcode) {
    case NIC_WR_WRITE: case NIC_WR_WRITE_IMM: case NIC_WR_READ:
        wqe->remote_addr = wr->wr.rdma.remote_addr;
        wqe->rkey = wr->wr.rdma.rkey;
        break;
    case NIC_WR_CAS: case NIC_WR_FAA:
        wqe->remote_addr = wr->wr.atomic.remote_addr;
        wqe->rkey = wr->wr.atomic.rkey;
        wqe->compare = wr->wr.atomic.compare_add; /* CAS: compare */
        wqe->swap_add = wqe->opcode == NIC_WR_CAS ? wr->wr.atomic.swap : wr->wr.atomic.compare_add;
        if (wqe->opcode == NIC_WR_FAA) wqe->compare = 0;
        break;
    }
    return 0;
}

int hlsnic_map_recv_wr(const struct ibv_recv_wr *wr, nic_rq_wqe_t *wqe, const char **why) {
    memset(wqe, 0, sizeof *wqe);
    if (wr->num_sge < 0 || wr->num_sge > HLSNIC_MAX_SGE) FAIL(EINVAL, "num_sge: above max_recv_sge (1)");
    if (wr->num_sge > 0 && !wr->sg_list) FAIL(EINVAL, "sg_list: NULL with num_sge > 0");
    wqe->wr_id = wr->wr_id;
    if (wr->num_sge == 1) {
        wqe->addr = wr->sg_list[0].addr;
        wqe->length = wr->sg_list[0].length;
        wqe->lkey = wr->sg_list[0].lkey;
    }
    return 0;
}

void hlsnic_map_cqe(const nic_cqe_t *cqe, uint32_t src_qp, struct ibv_wc *wc) {
    memset(wc, 0, sizeof *wc);
    wc->wr_id = cqe->wr_id;
    wc->status = (enum ibv_wc_status)cqe->status;
    wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
    wc->byte_len = cqe->byte_len;
    wc->qp_num = cqe->qpn & 0xffffff;
    wc->src_qp = src_qp;
    if (cqe->flags & NIC_CQE_WITH_IMM) {
        wc->wc_flags |= IBV_WC_WITH_IMM;
        wc->imm_data = htonl(cqe->imm); /* libibverbs hands imm_data on in network order */
    }
    wc->vendor_err = cqe->status; /* the device's own code is the IB status */
}

int hlsnic_ring_log(uint32_t entries, unsigned max_log) {
    unsigned log = 0;
    while ((1u << log) < entries && log <= max_log) log++;
    return log > max_log ? -1 : (int)log;
}

/* ---- addresses ---- */
int hlsnic_parse_mac(const char *s, uint64_t *mac) {
    unsigned b[6];
    char tail;
    if (!s || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
        return EINVAL;
    if (strlen(s) != 17) return EINVAL;
    uint64_t v = 0;
    for (int i = 0; i < 6; i++) v = v << 8 | b[i];
    if (v == 0 || (b[0] & 1)) return EINVAL; /* zero or multicast: not a station address */
    *mac = v;
    return 0;
}

uint64_t hlsnic_mac_of_ip(uint32_t ip) { return 0x020000000000ull | ip; }

int hlsnic_neigh_lookup(const char *list, uint32_t ip, uint64_t *mac, const char **why) {
    if (!list) return ENOENT;
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char ent[64];
        if (n == 0 || n >= sizeof ent) FAIL(EINVAL, "HLSNIC_NEIGH: an entry is empty or too long");
        memcpy(ent, p, n);
        ent[n] = 0;
        char *eq = strchr(ent, '=');
        if (!eq) FAIL(EINVAL, "HLSNIC_NEIGH: an entry has no '=' (IP=MAC)");
        *eq = 0;
        struct in_addr a;
        uint64_t m;
        if (inet_pton(AF_INET, ent, &a) != 1) FAIL(EINVAL, "HLSNIC_NEIGH: an entry's IP is not dotted IPv4");
        if (hlsnic_parse_mac(eq + 1, &m)) FAIL(EINVAL, "HLSNIC_NEIGH: an entry's MAC is not aa:bb:cc:dd:ee:ff unicast");
        if (ntohl(a.s_addr) == ip) {
            *mac = m;
            return 0;
        }
        p = end ? end + 1 : p + n;
    }
    return ENOENT;
}

int hlsnic_gid_ipv4(const union ibv_gid *gid, uint32_t *ip) {
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(gid->raw, prefix, 12) != 0) return EINVAL;
    *ip = (uint32_t)gid->raw[12] << 24 | (uint32_t)gid->raw[13] << 16 | (uint32_t)gid->raw[14] << 8 | gid->raw[15];
    return 0;
}

void hlsnic_ipv4_gid(uint32_t ip, union ibv_gid *gid) {
    memset(gid, 0, sizeof *gid);
    gid->raw[10] = gid->raw[11] = 0xff;
    gid->raw[12] = (uint8_t)(ip >> 24);
    gid->raw[13] = (uint8_t)(ip >> 16);
    gid->raw[14] = (uint8_t)(ip >> 8);
    gid->raw[15] = (uint8_t)ip;
}

int hlsnic_gid_text_ipv4(const char *text, uint32_t *ip) {
    /* sysfs form: eight groups of four hex digits separated by ':' (39 characters). */
    union ibv_gid g;
    unsigned v[8];
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1])) n--;
    if (n != 39) return EINVAL;
    for (int i = 0; i < 8; i++) {
        const char *q = text + 5 * i;
        for (int k = 0; k < 4; k++)
            if (!isxdigit((unsigned char)q[k])) return EINVAL;
        if (i < 7 && q[4] != ':') return EINVAL;
        char grp[5] = {q[0], q[1], q[2], q[3], 0};
        v[i] = (unsigned)strtoul(grp, NULL, 16);
        g.raw[2 * i] = (uint8_t)(v[i] >> 8);
        g.raw[2 * i + 1] = (uint8_t)v[i];
    }
    return hlsnic_gid_ipv4(&g, ip);
}

int hlsnic_cmd_errno(unsigned status) {
    switch (status) {
    case NIC_CMD_OK: return 0;
    case NIC_CMD_EINVAL: return EINVAL;
    case NIC_CMD_EEXIST: return EEXIST;
    case NIC_CMD_ENOENT: return EINVAL; /* the object the verb names does not exist */
    case NIC_CMD_EBUSY: return EBUSY;
    case NIC_CMD_ESTATE: return EINVAL; /* ibv_modify_qp(3): invalid transition is EINVAL */
    default: return EIO;
    }
}
