/* ctrl_fields.h — values of nic_cmd_resp_t.bad_field: which argument of a command ctrl
 * rejected with NIC_CMD_EINVAL or NIC_CMD_ESTATE (docs/ctrl.md lists them). Private to ctrl
 * and its tests until nic_if.h adopts them. */
#ifndef CTRL_FIELDS_H
#define CTRL_FIELDS_H

enum {
    NIC_CMD_F_NONE = 0,
    NIC_CMD_F_OP = 1,            /* unknown command */
    NIC_CMD_F_NUM = 2,           /* qpn / cqn / key out of range */
    NIC_CMD_F_MASK = 3,          /* MODIFY_QP mask bit hlsnic does not know */
    NIC_CMD_F_STATE = 4,         /* target state invalid or transition not allowed */
    NIC_CMD_F_PATH_MTU = 5,
    NIC_CMD_F_AV = 6,            /* dst_mac / dst_ip */
    NIC_CMD_F_DEST_QPN = 7,
    NIC_CMD_F_RQ_PSN = 8,
    NIC_CMD_F_SQ_PSN = 9,
    NIC_CMD_F_TIMEOUT = 10,
    NIC_CMD_F_RETRY_CNT = 11,
    NIC_CMD_F_RNR_RETRY = 12,
    NIC_CMD_F_MIN_RNR_TIMER = 13,
    NIC_CMD_F_ACCESS = 14,
    NIC_CMD_F_BACKOFF = 15,      /* backoff_first == 0 or > backoff_cap */
    NIC_CMD_F_SQ = 16,           /* sq_base alignment / sq_log */
    NIC_CMD_F_RQ = 17,           /* rq_base alignment / rq_log */
    NIC_CMD_F_SEND_CQ = 18,      /* not a CQ of this function */
    NIC_CMD_F_RECV_CQ = 19,
    NIC_CMD_F_BASE = 20,         /* CREATE_CQ ring base alignment */
    NIC_CMD_F_LOG = 21,          /* CREATE_CQ ring size */
    NIC_CMD_F_LEN = 22,          /* REG_MR length 0 or base + len overflows */
    NIC_CMD_F_MAC = 23,          /* SET_FN: zero, multicast or wider than 48 bits */
    NIC_CMD_F_IP = 24,           /* SET_FN: 0.0.0.0 */
};

#endif /* CTRL_FIELDS_H */
