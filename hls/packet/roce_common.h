/* roce_common.h — byte helpers and the ICRC engine shared by roce_tx.c and roce_rx.c.
 * All helpers are HLS_INLINE: after inlining every offset below is a constant or a
 * small mux, so they become wires (docs/hls-c.md section 4). */
#ifndef ROCE_COMMON_H
#define ROCE_COMMON_H

#include "hls.h"
#include "nic_types.h"

typedef hls_uint(1024) roce_hdr_bits; /* the first two beats of a frame, byte i = bits [8i+7:8i] */

/* Byte `i` (constant after inlining) of a wide little-endian byte vector. */
HLS_INLINE uint8_t hb_byte(roce_hdr_bits w, unsigned i) {
    return (uint8_t)(w >> (8 * i));
}

/* n bytes (n <= 8) big-endian starting at byte `off` (network order). */
HLS_INLINE uint64_t hb_be(roce_hdr_bits w, unsigned off, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        if (i < n) v = (v << 8) | hb_byte(w, off + i);
    return v;
}

/* Store n bytes (n <= 8) of v big-endian at h[off]. */
HLS_INLINE void put_be(uint8_t *h, unsigned off, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < 8; i++)
        if (i < n) h[off + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Keep bytes 0..n-1 of a beat, zero the rest (n = 0..64). */
HLS_INLINE hls_u512 keep_low(hls_u512 x, unsigned n) {
    if (n >= 64) return x;
    if (n == 0) return 0;                       /* avoids a shift by 512 below */
    return x & ((((hls_u512)1) << (8 * n)) - 1); /* 8..504 */
}

/* Bytes s..63 of `lo` followed by bytes 0..s-1 of `hi` (s = 0..63). */
HLS_INLINE hls_u512 realign(hls_u512 lo, hls_u512 hi, unsigned s) {
    if (s == 0) return lo;          /* hi << 512 would be undefined */
    return (lo >> (8 * s)) | (hi << (512 - 8 * s));
}

/* ---- ICRC ------------------------------------------------------------------
 * CRC-32, reflected polynomial 0xEDB88320, register seeded with all ones, result
 * inverted (zlib's crc32). The ICRC covers 8 bytes of 0xff, then the frame from the
 * IPv4 header on with the variant fields set to all ones. In beat 0 we OR those
 * fields to 0xff and put the 8 bytes of 0xff in place of frame bytes 6..13 (the
 * source MAC and EtherType, which the ICRC does not cover), so the CRC simply runs
 * over beat-0 bytes 6.. : one engine, no extra cycle for the pseudo header. */
#define ICRC_BEAT0_START 6

/* Bytes of beat 0 forced to 0xff: 6..13 (pseudo "LRH"), 15 ToS, 22 TTL, 24..25 IPv4
 * checksum, 40..41 UDP checksum, 46 BTH byte 4 (FECN, BECN, reserved). */
HLS_INLINE hls_u512 icrc_beat0_mask(void) {
    hls_u512 m = 0;
    for (unsigned i = 6; i < 14; i++) m |= (hls_u512)0xFF << (8 * i);
    m |= (hls_u512)0xFF << (8 * 15);
    m |= (hls_u512)0xFF << (8 * 22);
    m |= (hls_u512)0xFFFF << (8 * 24);
    m |= (hls_u512)0xFFFF << (8 * 40);
    m |= (hls_u512)0xFF << (8 * 46);
    return m;
}

HLS_INLINE uint32_t crc32_shift(uint32_t crc) {
    return (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
}

HLS_INLINE uint32_t crc32_byte(uint32_t crc, uint8_t byte) {
    crc ^= byte;
    for (int bit = 0; bit < 8; bit++) crc = crc32_shift(crc);
    return crc;
}

/* CRC register, started at 0, after the 64 bytes of a beat. Linear in the data: the XOR of
 * one constant column per set data bit, the column being where a lone one bit ends up after
 * the rest of the beat (bit j of byte p: 8 * (64 - p) register shifts). The columns fold to
 * constants at compile time and rtl-gen emits the XOR as balanced trees (docs/rtl-gen.md),
 * so this is about 8 logic levels instead of 512 chained shift steps. */
HLS_INLINE uint32_t crc32_block(hls_u512 d) {
    uint32_t col[8], reg = 0;
    HLS_UNROLL for (int j = 0; j < 8; j++) col[j] = 1u << j;
    HLS_UNROLL for (int p = 63; p >= 0; p--) {
        uint32_t byte = (uint8_t)(d >> (8 * p));
        HLS_UNROLL for (int j = 0; j < 8; j++)
            HLS_UNROLL for (int s = 0; s < 8; s++) col[j] = crc32_shift(col[j]);
        HLS_UNROLL for (int j = 0; j < 8; j++) reg ^= col[j] & (0u - ((byte >> j) & 1u));
    }
    return reg;
}

/* The CRC register a receiver expects at the end of a correct frame whose ICRC window (see
 * roce_rx.c) ends with `hi` data bytes (1..64) and 64 - hi zero bytes. Running a CRC over a
 * message and then over its own CRC (inverted, LSB first, as the ICRC is sent) leaves the
 * register at a constant, the residue: with r the register after the message, the four
 * ICRC bytes ~r XOR into it and 32 shifts of all ones follow. The zero bytes after it move
 * the residue on by 8 shifts each. A table of constants indexed by hi: one LUT level per
 * bit, so the ICRC check is this compare and no 4-byte pick from a frame offset. */
HLS_INLINE uint32_t icrc_residue(unsigned hi) {
    uint32_t k[128];
    uint32_t r = 0xFFFFFFFFu;
    HLS_UNROLL for (int s = 0; s < 32; s++) r = crc32_shift(r);
    HLS_UNROLL for (int n = 64; n >= 0; n--) { /* n data bytes: 64 - n zero bytes after them */
        k[n] = r;
        HLS_UNROLL for (int s = 0; s < 8; s++) r = crc32_shift(r);
    }
    HLS_UNROLL for (int n = 65; n < 128; n++) k[n] = 0;
    return k[hi & 127];
}

/* CRC register after bytes lo..hi-1 of a beat (hi <= 64; none when hi <= lo), without a
 * chain of 64 per-byte muxes. The CRC is linear: with n = hi - lo,
 *   reg(crc, bytes) = reg(crc, n zero bytes) ^ reg(0, bytes),
 * and the register is consumed a byte at a time, so reg(crc, n zero bytes) is reg(0, crc's
 * low n bytes, then zeros), plus crc >> 8n for the bytes of crc that n < 4 steps do not
 * reach. Zero bytes ahead of a zero register leave it zero, so the range is moved to the
 * end of a 64-byte window, crc XORed into its first bytes, and one fixed network
 * (crc32_block) does the rest: two shifters and an XOR tree. */
HLS_INLINE uint32_t crc32_range(uint32_t crc, hls_u512 data, unsigned lo, unsigned hi) {
    /* byte counts 0..64 in 7 bits: their subtracts are 2 CARRY4s, not 32-bit chains, on the
     * way to the shifters */
    hls_uint(7) h = (hls_uint(7))hi, l = (hls_uint(7))lo;
    hls_uint(7) n = h > l ? (hls_uint(7))(h - l) : 0;
    if (n == 0) return crc;
    hls_uint(7) gap = (hls_uint(7))(64 - n);     /* 0..63: window bytes ahead of the range */
    hls_uint(7) skip = (hls_uint(7))(64 - h);    /* 0..63: bytes the range moves up by */
    hls_u512 window = (data << (8 * (unsigned)skip)) & ~((((hls_u512)1) << (8 * (unsigned)gap)) - 1);
    window ^= (hls_u512)crc << (8 * (unsigned)gap); /* bytes of crc past byte 63 fall off */
    uint32_t rest = n < 4 ? crc >> (8 * (unsigned)n) : 0;
    return crc32_block(window) ^ rest;
}

/* Whether the IPv4 header at byte 14 has a correct checksum: the ones'-complement sum of its
 * ten 16-bit words is 0xFFFF. Folding the carries computes the plain sum s modulo 65535 (a
 * nonzero multiple of 65535 folds to 0xFFFF, 0 stays 0), and ten words sum to at most
 * 10 * 65535, so the check is s equal to one of the ten nonzero multiples: ten compares side
 * by side in place of two folding adds and a compare behind them. */
HLS_INLINE bool ipv4_sum_ok(roce_hdr_bits w) {
    hls_uint(20) s = 0;
    for (unsigned i = 0; i < 10; i++) s += (hls_uint(20))hb_be(w, ETH_HDR_LEN + 2 * i, 2);
    bool ok = false;
    HLS_UNROLL for (unsigned k = 1; k <= 10; k++) ok |= s == (hls_uint(20))(0xFFFFu * k);
    return ok;
}

#endif /* ROCE_COMMON_H */
