/* nic_host.h — the host driver's side of one NIC function, as the CPU does it: commands
 * through the BAR's mailbox, WQEs stored in host memory and announced by doorbells, CQEs
 * polled in host memory (docs/nic-host-interface.md sections 3-7). Everything goes through
 * nic_host_ops_t, so the same driver runs over the PCIe platform (MMIO TLPs, the CPU's view of
 * host memory) and over a NIC whose registers are called directly (the no-PCIe baseline).
 *
 * Plain C testbench code. */
#ifndef NIC_HOST_H
#define NIC_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nic_if.h"
#include "nic_host_ops.h"


/* The objects one test function owns: two CQs (send, receive), one RC QP, one MR, all in
 * host memory from `base` on (nic_host_layout). */
typedef struct {
    nic_host_ops_t ops;
    unsigned fn;
    uint64_t mac;
    uint32_t ip, qpn, psn, mr_key, pd;
    uint64_t cq_base[2], sq_base, rq_base, mr_base, mr_len;
    unsigned cq_log, sq_log, rq_log;
    uint32_t cq_ci[2];
    uint16_t sq_pi, rq_pi;
    unsigned poll_ns;     /* pause between two CQ polls */
    unsigned polls_max;   /* a CQE that does not come after this many polls is an error */
    char error[256];      /* the last failure, as text */
} nic_host_t;

enum { NIC_HOST_SEND_CQ = 0, NIC_HOST_RECV_CQ = 1 };

/* Fill in the memory layout from base (rings, then the MR of mr_len bytes) and defaults. */
void nic_host_layout(nic_host_t *h, uint64_t base, uint64_t mr_len);
/* One command through the mailbox: the bytes in one burst, GO, poll CMD_STATUS, the answer.
 * The command's status, or -1 (never answered: h->error says so). */
int nic_host_cmd(nic_host_t *h, nic_cmd_t c, nic_cmd_resp_t *resp);
/* SET_FN, both CQs, the QP, the MR: 0, or -1 with h->error naming the step. */
int nic_host_create(nic_host_t *h);
/* RESET -> INIT -> RTR -> RTS towards the peer (the attribute masks of rdma-core's
 * ibv_modify_qp): 0 or -1. */
int nic_host_connect(nic_host_t *h, const nic_host_t *peer, unsigned pmtu);
void nic_host_post_send(nic_host_t *h, const nic_sq_wqe_t *w);
void nic_host_post_recv(nic_host_t *h, const nic_rq_wqe_t *w);
/* The next CQE of cq (NIC_HOST_*_CQ) by its owner bit, consumer doorbell rung: 1, or 0 when
 * none came within polls_max polls. */
int nic_host_poll(nic_host_t *h, int cq, nic_cqe_t *out);

#endif
