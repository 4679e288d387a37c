/* roce_mtu.h — the path MTU and the packets a message takes.
 *
 * The path MTU is held as enum ibv_mtu, the IBTA's PathMTU code (vol. 1 9.7.4.1.6 lengths,
 * 15.2.5.16 PathRecord MTU): 1 = 256, 2 = 512, 3 = 1024, 4 = 2048, 5 = 4096 bytes. ctrl
 * refuses any other value (MODIFY_QP, NIC_CMD_F_PATH_MTU), so 0, 6 and 7 reach a block only
 * from a row never configured; they clamp to 256 and 4096 so every row has a defined packet
 * size (every block and the firmware clamp alike: no code path depends on which). */
#ifndef ROCE_MTU_H
#define ROCE_MTU_H

#include "hls_inline.h"

/* log2 of the path MTU in bytes, 8 .. 12. */
HLS_INLINE unsigned mtu_log(unsigned pmtu) { return pmtu < 1 ? 8u : pmtu > 5 ? 12u : 7u + pmtu; }

/* Packets of a len-byte message (or READ response) at MTU 2^lg (9.7.4.1.6: every packet but
 * the last carries exactly one MTU): ceil(len / MTU), and a zero-length message is still one
 * packet. Summed in 64 bits: len near 2^32 does not wrap. */
HLS_INLINE uint32_t mtu_packets(uint32_t len, unsigned lg) {
    uint64_t n = ((uint64_t)len + ((uint64_t)1 << lg) - 1) >> lg;
    return n == 0 ? 1 : (uint32_t)n;
}

/* x * MTU and x / MTU for the path MTU code pmtu (clamped as mtu_log), and the packets of a
 * len-byte message, as an OR of the five constant shifts each masked by its code: a 5-way
 * AND-OR per bit from the 3-bit code. A shift by a computed log is a barrel shifter, and
 * yosys' resource sharing merges the barrel shifters of exclusive FSM states into one (a
 * long false path through it); a select chain of constant shifts LLVM folds back into one.
 * For blocks that need the shift inside a short stage. */
HLS_INLINE uint64_t mtu_code_mask(unsigned pmtu, unsigned code) {
    bool on = code == 1 ? pmtu <= 1 : code == 5 ? pmtu >= 5 : pmtu == code;
    return (uint64_t)0 - (uint64_t)on;
}
HLS_INLINE uint64_t mtu_mul(uint64_t x, unsigned pmtu) {
    return ((x << 8) & mtu_code_mask(pmtu, 1)) | ((x << 9) & mtu_code_mask(pmtu, 2)) |
           ((x << 10) & mtu_code_mask(pmtu, 3)) | ((x << 11) & mtu_code_mask(pmtu, 4)) |
           ((x << 12) & mtu_code_mask(pmtu, 5));
}
HLS_INLINE uint32_t mtu_div(uint32_t x, unsigned pmtu) {
    return (uint32_t)(((x >> 8) & mtu_code_mask(pmtu, 1)) | ((x >> 9) & mtu_code_mask(pmtu, 2)) |
                      ((x >> 10) & mtu_code_mask(pmtu, 3)) | ((x >> 11) & mtu_code_mask(pmtu, 4)) |
                      ((x >> 12) & mtu_code_mask(pmtu, 5)));
}
/* x mod MTU */
HLS_INLINE uint32_t mtu_rem(uint32_t x, unsigned pmtu) { return x & ((uint32_t)mtu_mul(1, pmtu) - 1); }
/* mtu_packets(len, mtu_log(pmtu)): whole packets plus one for a partial last (a 24-bit
 * increment, no 64-bit add) */
HLS_INLINE uint32_t mtu_packets_of(uint32_t len, unsigned pmtu) {
    return len == 0 ? 1 : mtu_div(len, pmtu) + (mtu_rem(len, pmtu) != 0);
}

#endif /* ROCE_MTU_H */
