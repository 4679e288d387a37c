/* roce_op.h — the RC opcodes of the BTH and their classes (IBTA vol. 1 9.2 table 38,
 * transport 000b; rxe_opcode.h). Plain C: one list of opcodes for every block.
 *
 * A request opcode names its operation (SEND, RDMA WRITE, RDMA READ, atomic) and, for SEND
 * and WRITE, the packet's place in its message (FIRST, MIDDLE, LAST, ONLY: 9.7.4.1.3 checks
 * the sequence); the response opcodes travel the other way (READ RESPONSE, ACKNOWLEDGE,
 * ATOMIC ACKNOWLEDGE). Unsupported values (0x15 and above) are in no class. */
#ifndef ROCE_OP_H
#define ROCE_OP_H

#include "hls_inline.h"

#define ROCE_OP_SEND_FIRST 0x00
#define ROCE_OP_SEND_MIDDLE 0x01
#define ROCE_OP_SEND_LAST 0x02
#define ROCE_OP_SEND_LAST_IMM 0x03
#define ROCE_OP_SEND_ONLY 0x04
#define ROCE_OP_SEND_ONLY_IMM 0x05
#define ROCE_OP_RDMA_WRITE_FIRST 0x06
#define ROCE_OP_RDMA_WRITE_MIDDLE 0x07
#define ROCE_OP_RDMA_WRITE_LAST 0x08
#define ROCE_OP_RDMA_WRITE_LAST_IMM 0x09
#define ROCE_OP_RDMA_WRITE_ONLY 0x0A
#define ROCE_OP_RDMA_WRITE_ONLY_IMM 0x0B
#define ROCE_OP_RDMA_READ_REQUEST 0x0C
#define ROCE_OP_READ_RESPONSE_FIRST 0x0D
#define ROCE_OP_READ_RESPONSE_MIDDLE 0x0E
#define ROCE_OP_READ_RESPONSE_LAST 0x0F
#define ROCE_OP_READ_RESPONSE_ONLY 0x10
#define ROCE_OP_ACKNOWLEDGE 0x11
#define ROCE_OP_ATOMIC_ACKNOWLEDGE 0x12
#define ROCE_OP_COMPARE_SWAP 0x13
#define ROCE_OP_FETCH_ADD 0x14
/* 0x15 is reserved; SEND_*_WITH_INVALIDATE (0x16/0x17, IETH) are not supported yet. */
#define ROCE_OP_RC_LAST ROCE_OP_FETCH_ADD

/* ---- operation ---------------------------------------------------------------------- */
HLS_INLINE bool roce_op_is_send(uint8_t op) { return op <= ROCE_OP_SEND_ONLY_IMM; }
HLS_INLINE bool roce_op_is_write(uint8_t op) {
    return op >= ROCE_OP_RDMA_WRITE_FIRST && op <= ROCE_OP_RDMA_WRITE_ONLY_IMM;
}
HLS_INLINE bool roce_op_is_read(uint8_t op) { return op == ROCE_OP_RDMA_READ_REQUEST; }
HLS_INLINE bool roce_op_is_atomic(uint8_t op) { return op == ROCE_OP_COMPARE_SWAP || op == ROCE_OP_FETCH_ADD; }

/* Requester -> responder packets, and the responses that answer them (9.2 table 38; rxe_rcv:
 * pkt->mask & RXE_REQ_MASK picks rxe_resp vs rxe_comp). One bit per RC opcode, so the test is
 * a lookup (one LUT level on the receive path), not a range compare. */
#define ROCE_OPS_REQUEST 0x181FFFu  /* 0x00..0x0C (SEND*, RDMA_WRITE*, READ_REQUEST), 0x13, 0x14 */
#define ROCE_OPS_RESPONSE 0x07E000u /* 0x0D..0x12 (READ_RESPONSE*, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE) */
HLS_INLINE bool roce_op_is_request(uint8_t op) { return op < 32 && ((ROCE_OPS_REQUEST >> (op & 31)) & 1); }
HLS_INLINE bool roce_op_is_response(uint8_t op) { return op < 32 && ((ROCE_OPS_RESPONSE >> (op & 31)) & 1); }

/* ---- place of a SEND / WRITE packet in its message (false for every other opcode) ---- */
HLS_INLINE bool roce_op_is_first(uint8_t op) { return op == ROCE_OP_SEND_FIRST || op == ROCE_OP_RDMA_WRITE_FIRST; }
HLS_INLINE bool roce_op_is_middle(uint8_t op) {
    return op == ROCE_OP_SEND_MIDDLE || op == ROCE_OP_RDMA_WRITE_MIDDLE;
}
HLS_INLINE bool roce_op_is_last(uint8_t op) {
    return op == ROCE_OP_SEND_LAST || op == ROCE_OP_SEND_LAST_IMM || op == ROCE_OP_RDMA_WRITE_LAST ||
           op == ROCE_OP_RDMA_WRITE_LAST_IMM;
}
HLS_INLINE bool roce_op_is_only(uint8_t op) {
    return op == ROCE_OP_SEND_ONLY || op == ROCE_OP_SEND_ONLY_IMM || op == ROCE_OP_RDMA_WRITE_ONLY ||
           op == ROCE_OP_RDMA_WRITE_ONLY_IMM;
}

#endif /* ROCE_OP_H */
