/* csum16 — the Internet checksum (RFC 1071) over 64-bit beats: four 16-bit words per
 * cycle added in ones'-complement arithmetic with end-around carry, finished into the
 * checksum field value when the last beat arrives. `keep` masks the bytes of a short last
 * beat (bit i: byte i is data).
 *
 * In the corpus for carry folding (a 34-bit sum folded twice into 16 bits) and a byte mask. */
#include "hls.h"

typedef struct {
    bool valid, last;
    uint64_t data;            /* byte 0 is the first on the wire, the high byte of word 0 */
    uint8_t keep;
} csum16_in;

typedef struct {
    bool done;
    uint16_t csum;
} csum16_out;

typedef struct {
    uint32_t acc;             /* ones'-complement running sum, folded to 17 bits at most */
    bool done;
    uint16_t csum;
} csum16_state;

HLS_TOP void csum16(const csum16_in *in, csum16_out *out, csum16_state *st) {
    out->done = st->done;
    out->csum = st->csum;
    st->done = false;
    if (!in->valid) return;
    uint64_t sum = st->acc;
    for (int w = 0; w < 4; w++) {
        uint8_t hi = (in->keep >> (2 * w)) & 1 ? (uint8_t)(in->data >> (16 * w)) : 0;
        uint8_t lo = (in->keep >> (2 * w + 1)) & 1 ? (uint8_t)(in->data >> (16 * w + 8)) : 0;
        sum += (uint32_t)hi << 8 | lo;
    }
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    if (in->last) {
        st->done = true;
        st->csum = (uint16_t)~sum;
        st->acc = 0;
    } else {
        st->acc = (uint32_t)sum;
    }
}
