/* crc32_beat — CRC-32 over one 64-byte data beat per clock, accumulated over the
 * beats of a packet. CRC-32 as in Ethernet FCS, zlib and the RoCE ICRC: reflected,
 * polynomial 0xEDB88320, seed and final xor chosen by the caller (0xFFFFFFFF both
 * for the standard CRC).
 *
 * Models the ICRC engine on the receive and transmit datapaths. In the corpus as the
 * widest XOR network we build (512 data bits -> 32 bits in one cycle from 512
 * unrolled bit steps), with a partial last beat (byte count) and per-packet control.
 *
 * Byte i of the beat is data bits [8i+7:8i]; byte 0 is first on the wire. */
#include "hls.h"

typedef struct {
    bool valid;          /* a beat is present this cycle */
    hls_u512 data;
    hls_uint(7) nbytes;  /* bytes that count, from byte 0; values above 64 count as 64 */
    bool first;          /* first beat of a packet: start from seed, not from the register */
    bool last;           /* last beat of a packet: present the result on crc/crc_valid */
    uint32_t seed;       /* CRC register value before the first byte */
    uint32_t final_xor;  /* xor applied to the register to give the result */
} crc32_beat_in;

typedef struct {
    bool crc_valid;      /* one-cycle pulse with the last beat */
    uint32_t crc;
} crc32_beat_out;

typedef struct {
    uint32_t crc;        /* running CRC register between beats of one packet */
} crc32_beat_state;

/* One byte through the reflected CRC: eight shift/conditional-xor steps. */
HLS_INLINE uint32_t crc32_byte(uint32_t crc, uint8_t byte) {
    crc ^= byte;
    for (int bit = 0; bit < 8; bit++)
        crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    return crc;
}

HLS_TOP void crc32_beat(const crc32_beat_in *in, crc32_beat_out *out, crc32_beat_state *st) {
    if (!in->valid) return; /* register holds; outputs stay 0 */
    uint32_t crc = in->first ? in->seed : st->crc;
    /* 64 byte steps in a chain; a byte past nbytes leaves the CRC unchanged (a mux). */
    for (int i = 0; i < 64; i++) {
        uint8_t byte = (uint8_t)(in->data >> (8 * i));
        if (i < in->nbytes) crc = crc32_byte(crc, byte);
    }
    st->crc = crc;
    if (in->last) {
        out->crc_valid = true;
        out->crc = crc ^ in->final_xor;
    }
}
