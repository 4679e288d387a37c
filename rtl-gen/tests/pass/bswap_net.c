/* bswap_net — network byte order helpers: load 16/24/32-bit big-endian fields from a
 * byte array, store them back, and byte-swap host integers (what htonl/htonll do on a
 * little-endian host). Used to parse the 12-byte BTH and re-serialise it unchanged,
 * with the reserved bits cleared.
 *
 * In the corpus for small helper functions taking pointers into port arrays (inlined,
 * the pointers resolve to fixed bytes), shift-or idioms clang turns into llvm.bswap,
 * and integer promotion pitfalls: a uint8_t shifted left by 24 is an int and would
 * overflow into the sign bit, so every byte is widened to uint32_t first. */
#include "hls.h"

typedef struct {
    uint8_t bth[12];      /* wire order */
    uint32_t host32;
    uint64_t host64;
} bswap_net_in;

typedef struct {
    uint8_t opcode;
    uint16_t pkey;
    hls_u24 dest_qp;
    bool ack_req;
    hls_u24 psn;
    uint8_t bth_out[12];  /* the fields written back in wire order, reserved bits 0 */
    uint32_t net32;
    uint64_t net64;
} bswap_net_out;

typedef struct {
    bool unused;
} bswap_net_state;

HLS_INLINE uint16_t be16_load(const uint8_t *p) { return (uint16_t)((uint32_t)p[0] << 8 | p[1]); }
HLS_INLINE hls_u24 be24_load(const uint8_t *p) {
    return (hls_u24)((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]);
}
HLS_INLINE uint32_t be32_load(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
HLS_INLINE void be16_store(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
HLS_INLINE void be24_store(uint8_t *p, hls_u24 v) {
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}
HLS_INLINE uint32_t bswap32(uint32_t x) {
    return x >> 24 | (x >> 8 & 0xFF00u) | (x << 8 & 0xFF0000u) | x << 24;
}
HLS_INLINE uint64_t bswap64(uint64_t x) {
    return (uint64_t)bswap32((uint32_t)x) << 32 | bswap32((uint32_t)(x >> 32));
}

HLS_TOP void bswap_net(const bswap_net_in *in, bswap_net_out *out, bswap_net_state *st) {
    (void)st;
    const uint8_t *b = in->bth;
    out->opcode = b[0];
    out->pkey = be16_load(&b[2]);
    out->dest_qp = be24_load(&b[5]);
    uint32_t w2 = be32_load(&b[8]);
    out->ack_req = (w2 >> 31) != 0;
    out->psn = (hls_u24)w2;

    out->bth_out[0] = b[0];
    out->bth_out[1] = b[1];           /* SE, M, pad count, TVer kept as received */
    be16_store(&out->bth_out[2], out->pkey);
    be24_store(&out->bth_out[5], out->dest_qp);   /* byte 4 reserved: stays 0 */
    out->bth_out[8] = out->ack_req ? 0x80 : 0x00; /* bits 30..24 reserved */
    be24_store(&out->bth_out[9], out->psn);

    out->net32 = bswap32(in->host32);
    out->net64 = bswap64(in->host64);
}
