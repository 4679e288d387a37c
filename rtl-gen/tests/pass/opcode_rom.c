/* opcode_rom — decode an InfiniBand Reliable Connection opcode (0x00..0x1F) with a
 * constant table: which extended headers follow the BTH and whether a payload does.
 * Opcodes of other transports (0x20 and up) and the reserved RC opcodes decode as
 * invalid. A second, scalar table turns the path MTU code (1..5) into log2(bytes).
 *
 * In the corpus for `static const` tables becoming ROMs: a table of structs read at a
 * dynamic (guarded) index, and a scalar table whose result feeds a shift. */
#include "hls.h"

typedef struct {
    bool valid;
    bool has_payload;
    bool has_reth;       /* RDMA extended header, 16 bytes */
    bool has_aeth;       /* ACK extended header, 4 bytes */
    uint8_t ext_bytes;   /* bytes of extended headers after the 12-byte BTH */
} rc_opcode_info;

/*                                  valid payload reth  aeth  bytes */
#define OP(p, r, a, n) {true, p, r, a, n}
static const rc_opcode_info rc_opcodes[32] = {
    [0x00] = OP(true, false, false, 0),   /* SEND First */
    [0x01] = OP(true, false, false, 0),   /* SEND Middle */
    [0x02] = OP(true, false, false, 0),   /* SEND Last */
    [0x03] = OP(true, false, false, 4),   /* SEND Last with Immediate */
    [0x04] = OP(true, false, false, 0),   /* SEND Only */
    [0x05] = OP(true, false, false, 4),   /* SEND Only with Immediate */
    [0x06] = OP(true, true, false, 16),   /* RDMA WRITE First */
    [0x07] = OP(true, false, false, 0),   /* RDMA WRITE Middle */
    [0x08] = OP(true, false, false, 0),   /* RDMA WRITE Last */
    [0x09] = OP(true, false, false, 4),   /* RDMA WRITE Last with Immediate */
    [0x0A] = OP(true, true, false, 16),   /* RDMA WRITE Only */
    [0x0B] = OP(true, true, false, 20),   /* RDMA WRITE Only with Immediate */
    [0x0C] = OP(false, true, false, 16),  /* RDMA READ Request */
    [0x0D] = OP(true, false, true, 4),    /* RDMA READ Response First */
    [0x0E] = OP(true, false, false, 0),   /* RDMA READ Response Middle */
    [0x0F] = OP(true, false, true, 4),    /* RDMA READ Response Last */
    [0x10] = OP(true, false, true, 4),    /* RDMA READ Response Only */
    [0x11] = OP(false, false, true, 4),   /* Acknowledge */
    [0x12] = OP(false, false, true, 12),  /* ATOMIC Acknowledge (AETH + AtomicAckETH) */
    [0x13] = OP(false, false, false, 28), /* CmpSwap (AtomicETH) */
    [0x14] = OP(false, false, false, 28), /* FetchAdd (AtomicETH) */
    [0x16] = OP(true, false, false, 4),   /* SEND Last with Invalidate */
    [0x17] = OP(true, false, false, 4),   /* SEND Only with Invalidate */
    /* 0x15 and 0x18..0x1F are reserved: all-zero entries, valid = false */
};
#undef OP

/* Path MTU code (IBTA: 1 = 256 bytes ... 5 = 4096 bytes) -> log2(bytes); 0 = invalid. */
static const uint8_t mtu_log2[8] = {0, 8, 9, 10, 11, 12, 0, 0};

typedef struct {
    uint8_t opcode;
    hls_uint(3) mtu_code;
} opcode_rom_in;

typedef struct {
    rc_opcode_info info;
    uint8_t hdr_bytes;     /* BTH + extended headers, 0 when invalid */
    uint16_t mtu_bytes;    /* 0 for an invalid MTU code */
} opcode_rom_out;

typedef struct {
    bool unused; /* a purely combinational block still has a state struct */
} opcode_rom_state;

HLS_TOP void opcode_rom(const opcode_rom_in *in, opcode_rom_out *out, opcode_rom_state *st) {
    (void)st;
    /* Guard the index: only RC opcodes (top 3 bits 000) address the table. */
    if ((in->opcode >> 5) == 0) {
        rc_opcode_info info = rc_opcodes[in->opcode & 31];
        out->info = info;
        if (info.valid) out->hdr_bytes = (uint8_t)(12 + info.ext_bytes);
    }
    uint8_t lg = mtu_log2[in->mtu_code];   /* 3-bit index: always in range */
    if (lg != 0) out->mtu_bytes = (uint16_t)(1u << lg);
}
