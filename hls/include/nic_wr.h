/* nic_wr.h — send work request opcodes (the opcode byte of nic_sq_wqe_t, nic_if.h) and what
 * each asks of the protocol. Plain C: the migration firmware reads WQEs from the send queue
 * and counts their PSNs with the same lines as the requester. */
#ifndef NIC_WR_H
#define NIC_WR_H

#include "hls_inline.h"
#include "roce_mtu.h"

enum {
    NIC_WR_SEND = 0,
    NIC_WR_SEND_IMM = 1,
    NIC_WR_WRITE = 2,
    NIC_WR_WRITE_IMM = 3,
    NIC_WR_READ = 4,
    NIC_WR_CAS = 5,
    NIC_WR_FAA = 6,
};

/* CAS / FAA: one request packet, 8 bytes at an 8-byte aligned VA (IBTA vol. 1 9.4.5). */
HLS_INLINE bool wr_is_atomic(uint8_t op) { return op == NIC_WR_CAS || op == NIC_WR_FAA; }

/* READ and atomics: the peer answers with data the completer writes into local_addr;
 * they count against max_rd_atomic (the QP's outstanding RDMA READ / atomic limit).
 * One flat compare chain: LLVM folds it into one range check, where an inlined
 * wr_is_atomic() under || left a branch and deeper muxes in the blocks. */
HLS_INLINE bool wr_reads_back(uint8_t op) { return op == NIC_WR_READ || op == NIC_WR_CAS || op == NIC_WR_FAA; }

/* PSNs a WQE consumes at MTU 2^lg (9.5, 9.7.2; rxe numbers them alike): one per SEND / WRITE
 * packet; a READ request advances the PSN by its expected response packets; an atomic by
 * one. A zero-length message takes one. */
HLS_INLINE uint32_t wqe_psns(uint8_t op, uint32_t len, unsigned lg) {
    return wr_is_atomic(op) ? 1 : mtu_packets(len, lg);
}

#endif /* NIC_WR_H */
