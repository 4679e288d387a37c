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

HLS_INLINE uint32_t crc32_byte(uint32_t crc, uint8_t byte) {
    crc ^= byte;
    for (int bit = 0; bit < 8; bit++)
        crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    return crc;
}

/* CRC register after bytes lo..hi-1 of a beat (a byte outside the range is a mux
 * that leaves the register unchanged). 64 byte steps chained in one cycle. */
HLS_INLINE uint32_t crc32_range(uint32_t crc, hls_u512 data, unsigned lo, unsigned hi) {
    for (unsigned i = 0; i < 64; i++)
        if (i >= lo && i < hi) crc = crc32_byte(crc, (uint8_t)(data >> (8 * i)));
    return crc;
}

/* Ones'-complement sum of the ten 16-bit words of the IPv4 header at byte 14. */
HLS_INLINE uint16_t ipv4_sum(roce_hdr_bits w) {
    uint32_t s = 0;
    for (unsigned i = 0; i < 10; i++) s += (uint32_t)hb_be(w, ETH_HDR_LEN + 2 * i, 2);
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)s;
}

#endif /* ROCE_COMMON_H */
