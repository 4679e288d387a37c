/* nic_types.h — types shared by the NIC's HLS-C blocks (docs/nic-architecture.md).
 *
 * nic_beat_t   one 64-byte beat of an Ethernet frame or of a payload stream
 * ROCE_OP_*    the RC opcodes of the InfiniBand BTH (IBTA vol. 1, 9.2; rxe_opcode.h)
 * roce_hdr_t   every header field of a RoCEv2 (IPv4) packet, one descriptor per packet
 * roce_ext_*   which extension headers an opcode carries (IB spec table 45 "header
 *              layouts"), as a constant-time function usable in HLS-C and in tests
 */
#ifndef NIC_TYPES_H
#define NIC_TYPES_H

#include "hls.h"
#include "roce_op.h"

/* ---- beats ------------------------------------------------------------ */
typedef struct {
    hls_u512 data;     /* frame byte i of this beat is bits [8i+7 : 8i] (wire order) */
    hls_uint(7) bytes; /* valid bytes in this beat, 1..64; only the last beat may be short */
    bool last;         /* last beat of the frame */
} nic_beat_t;

#define NIC_BEAT_BYTES 64

/* roce_rx's payload beat: the beat and the class of its frame's opcode (a response, else a
 * request), known from beat 0, so that the payloads of requests and of responses can be
 * kept apart before the frame's descriptor (which follows its payload) arrives. */
typedef struct {
    nic_beat_t beat;
    bool resp;
} roce_rx_beat_t;

/* ---- fixed protocol constants -------------------------------------------- */
#define ETH_HDR_LEN 14
#define IPV4_HDR_LEN 20
#define UDP_HDR_LEN 8
#define BTH_LEN 12
#define ROCE_BASE_LEN (ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN) /* 54: BTH ends here */
#define ROCE_ICRC_LEN 4
#define ETHERTYPE_IPV4 0x0800
#define IPPROTO_UDP_NUM 17
#define ROCE_UDP_PORT 4791

#define RETH_LEN 16
#define AETH_LEN 4
#define ATOMICETH_LEN 28
#define ATOMICACKETH_LEN 8
#define IMMDT_LEN 4

/* ---- the header descriptor ------------------------------------------------ */
/* One RoCEv2 packet's headers. TX builds the frame from it; RX fills it from a frame.
 * Fields an opcode does not carry are ignored by TX and read as 0 from RX. */
typedef struct {
    /* Ethernet II (EtherType 0x0800 implied) */
    uint64_t dst_mac;     /* low 48 bits; byte 0 on the wire is bits 47..40 */
    uint64_t src_mac;
    /* IPv4, no options; version/IHL 0x45, DF set, protocol UDP implied */
    uint32_t src_ip;      /* 0x0a000001 is 10.0.0.1 */
    uint32_t dst_ip;
    uint8_t ttl;
    hls_uint(6) dscp;
    hls_uint(2) ecn;
    uint16_t ip_id;       /* identification */
    /* UDP (destination port 4791 implied, checksum sent as 0) */
    uint16_t udp_sport;
    /* BTH */
    uint8_t opcode;
    bool se;              /* solicited event */
    bool migreq;
    hls_uint(2) pad;      /* RX: as received; TX computes it from payload_len (input ignored) */
    hls_uint(4) tver;
    uint16_t pkey;
    bool fecn;
    bool becn;
    hls_u24 dest_qp;
    bool ack_req;
    hls_u24 psn;
    /* RETH */
    uint64_t reth_va;
    uint32_t reth_rkey;
    uint32_t reth_len;    /* DMA length */
    /* AETH */
    uint8_t aeth_syndrome;
    hls_u24 aeth_msn;
    /* AtomicETH */
    uint64_t atomic_va;
    uint32_t atomic_rkey;
    uint64_t atomic_swap_add; /* swap data (COMPARE_SWAP) or add data (FETCH_ADD) */
    uint64_t atomic_cmp;      /* compare data */
    /* AtomicAckETH */
    uint64_t atomic_orig;     /* original remote data */
    /* ImmDt */
    uint32_t imm;
    /* payload bytes (without pad and ICRC); at most 9000 with a jumbo MTU */
    hls_uint(14) payload_len;
    /* inside the NIC only, never on the wire: not 0 = no packet, a migration marker on the
     * transmit path (NIC_MARK_SRC_* of nic_if.h) of function mig_fn; roce_rx sets 0 */
    uint8_t mig_mark;
    uint8_t mig_fn;
} roce_hdr_t;

/* RX status of one frame. Checks run in this order, the first failing one wins:
 * NOT_ROCE, TRUNCATED (shorter than Ethernet+IPv4+UDP+BTH), BAD_IP_CSUM, BAD_OPCODE,
 * TRUNCATED (length fields inconsistent, or frame shorter than its IPv4 total length),
 * BAD_ICRC. */
typedef enum {
    ROCE_RX_OK = 0,
    ROCE_RX_NOT_ROCE = 1,     /* EtherType != IPv4, version/IHL != 0x45, protocol != UDP, dport != 4791 */
    ROCE_RX_TRUNCATED = 2,    /* truncated frame or inconsistent length fields */
    ROCE_RX_BAD_IP_CSUM = 3,  /* IPv4 header checksum wrong */
    ROCE_RX_BAD_OPCODE = 4,   /* BTH opcode not an RC opcode listed above */
    ROCE_RX_BAD_ICRC = 5,     /* ICRC mismatch */
} roce_rx_status_e;

typedef struct {
    roce_hdr_t hdr;
    hls_uint(3) status;       /* roce_rx_status_e */
} roce_rx_desc_t;

/* ---- which extension headers an opcode carries ---------------------------- */
enum {
    ROCE_EXT_RETH = 1,
    ROCE_EXT_AETH = 2,
    ROCE_EXT_ATOMIC = 4,
    ROCE_EXT_ATOMICACK = 8,
    ROCE_EXT_IMM = 16,
    ROCE_EXT_PAYLOAD = 32,  /* the opcode may carry payload */
    ROCE_EXT_VALID = 64,    /* the opcode is a supported RC opcode */
};

/* IBTA vol. 1 9.2 / rxe_opcode.c, RC rows. Indexed by opcode 0..31. */
static const uint8_t roce_ext_table[32] = {
    [ROCE_OP_SEND_FIRST] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_SEND_MIDDLE] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_SEND_LAST] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_SEND_LAST_IMM] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_IMM,
    [ROCE_OP_SEND_ONLY] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_SEND_ONLY_IMM] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_IMM,
    [ROCE_OP_RDMA_WRITE_FIRST] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_RETH,
    [ROCE_OP_RDMA_WRITE_MIDDLE] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_RDMA_WRITE_LAST] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_RDMA_WRITE_LAST_IMM] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_IMM,
    [ROCE_OP_RDMA_WRITE_ONLY] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_RETH,
    [ROCE_OP_RDMA_WRITE_ONLY_IMM] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_RETH | ROCE_EXT_IMM,
    [ROCE_OP_RDMA_READ_REQUEST] = ROCE_EXT_VALID | ROCE_EXT_RETH,
    [ROCE_OP_READ_RESPONSE_FIRST] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_AETH,
    [ROCE_OP_READ_RESPONSE_MIDDLE] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD,
    [ROCE_OP_READ_RESPONSE_LAST] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_AETH,
    [ROCE_OP_READ_RESPONSE_ONLY] = ROCE_EXT_VALID | ROCE_EXT_PAYLOAD | ROCE_EXT_AETH,
    [ROCE_OP_ACKNOWLEDGE] = ROCE_EXT_VALID | ROCE_EXT_AETH,
    [ROCE_OP_ATOMIC_ACKNOWLEDGE] = ROCE_EXT_VALID | ROCE_EXT_AETH | ROCE_EXT_ATOMICACK,
    [ROCE_OP_COMPARE_SWAP] = ROCE_EXT_VALID | ROCE_EXT_ATOMIC,
    [ROCE_OP_FETCH_ADD] = ROCE_EXT_VALID | ROCE_EXT_ATOMIC,
};

/* Extension-header flags of an opcode; 0 for an unsupported one. */
HLS_INLINE uint8_t roce_ext(uint8_t opcode) {
    return opcode < 32 ? roce_ext_table[opcode & 31] : 0;
}

/* Bytes of extension headers after the BTH (order: RETH, AtomicETH, AETH, AtomicAckETH, ImmDt). */
HLS_INLINE uint8_t roce_ext_len(uint8_t ext) {
    return (uint8_t)(((ext & ROCE_EXT_RETH) ? RETH_LEN : 0) + ((ext & ROCE_EXT_AETH) ? AETH_LEN : 0) +
                     ((ext & ROCE_EXT_ATOMIC) ? ATOMICETH_LEN : 0) +
                     ((ext & ROCE_EXT_ATOMICACK) ? ATOMICACKETH_LEN : 0) +
                     ((ext & ROCE_EXT_IMM) ? IMMDT_LEN : 0));
}

#endif /* NIC_TYPES_H */
