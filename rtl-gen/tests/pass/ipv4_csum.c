/* ipv4_csum — the IPv4 header checksum (RFC 791/1071) of a 20-byte header without
 * options, as the RoCEv2 transmit path fills it in and the receive path checks it:
 * one's-complement sum of the ten big-endian 16-bit words, carries folded back in,
 * then inverted.
 *   csum: the value to put in bytes 10..11 (computed with those bytes taken as 0)
 *   ok:   the received header, checksum included, sums to 0xFFFF
 *
 * In the corpus for a byte-array input port, a reduction loop and end-around carry. */
#include "hls.h"

typedef struct {
    uint8_t hdr[20];      /* header bytes in wire order */
} ipv4_csum_in;

typedef struct {
    uint16_t csum;
    bool ok;
} ipv4_csum_out;

typedef struct {
    bool unused;
} ipv4_csum_state;

/* Fold the carries of a 32-bit one's-complement sum into 16 bits (twice suffices). */
HLS_INLINE uint16_t ones_fold(uint32_t sum) {
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)sum;
}

HLS_TOP void ipv4_csum(const ipv4_csum_in *in, ipv4_csum_out *out, ipv4_csum_state *st) {
    (void)st;
    uint32_t all = 0, gen = 0;  /* ten words of at most 0xFFFF: no overflow */
    for (int i = 0; i < 10; i++) {
        uint32_t word = (uint32_t)in->hdr[2 * i] << 8 | in->hdr[2 * i + 1];
        all += word;
        if (i != 5) gen += word; /* word 5 is the checksum field */
    }
    out->csum = (uint16_t)~ones_fold(gen);
    out->ok = ones_fold(all) == 0xFFFF;
}
