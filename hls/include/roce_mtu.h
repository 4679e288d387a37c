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

#endif /* ROCE_MTU_H */
