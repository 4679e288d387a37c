/* crc16_ccitt — a byte-serial CRC-16/CCITT-FALSE engine (polynomial 0x1021, initial value
 * 0xFFFF, no reflection): a frame arrives one byte per cycle with first/last marks; the
 * CRC of the frame is presented, with a valid flag, in the cycle after its last byte.
 *
 * In the corpus for a bit-serial loop unrolled into one byte per cycle (8 shift/xor steps)
 * and a small framing FSM. */
#include "hls.h"

typedef struct {
    bool valid, first, last;
    uint8_t data;
} crc16_ccitt_in;

typedef struct {
    bool done;
    uint16_t crc;
} crc16_ccitt_out;

typedef struct {
    uint16_t crc;
    bool done;
    uint16_t result;
} crc16_ccitt_state;

HLS_INLINE uint16_t crc16_byte(uint16_t crc, uint8_t byte) {
    crc ^= (uint16_t)(byte << 8);
    for (int i = 0; i < 8; i++)
        crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    return crc;
}

HLS_TOP void crc16_ccitt(const crc16_ccitt_in *in, crc16_ccitt_out *out, crc16_ccitt_state *st) {
    out->done = st->done;
    out->crc = st->result;
    st->done = false;
    if (!in->valid) return;
    uint16_t next = crc16_byte(in->first ? 0xFFFF : st->crc, in->data);
    st->crc = next;
    if (in->last) {
        st->done = true;
        st->result = next;
    }
}
