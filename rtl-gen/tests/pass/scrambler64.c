/* scrambler64 — the 64b/66b self-synchronising scrambler of 10GBASE-R (polynomial
 * 1 + x^39 + x^58) over 64 bits per cycle, and its descrambler fed from the scrambler's
 * output, so `match` shows the pair locks; `bypass` passes data through unscrambled.
 *
 * In the corpus for a serial LFSR recurrence unrolled 64 times per cycle, where each
 * output bit depends on earlier outputs of the same cycle. */
#include "hls.h"

typedef struct {
    bool valid, bypass;
    uint64_t data;
} scrambler64_in;

typedef struct {
    uint64_t scrambled;
    uint64_t recovered;
    bool match;
} scrambler64_out;

typedef struct {
    uint64_t tx;              /* the last 58 scrambled bits, newest in bit 57 */
    uint64_t rx;
} scrambler64_state;

/* out[i] = in[i] ^ s[i-39] ^ s[i-58], with s the scrambled bits */
HLS_INLINE uint64_t scramble(uint64_t data, uint64_t *state) {
    uint64_t s = *state, out = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t b = ((data >> i) ^ (s >> 38) ^ (s >> 57)) & 1;
        out |= b << i;
        s = (s << 1) | b;
    }
    *state = s & ((1ull << 58) - 1);
    return out;
}

HLS_INLINE uint64_t descramble(uint64_t data, uint64_t *state) {
    uint64_t s = *state, out = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t b = (data >> i) & 1;
        out |= ((b ^ (s >> 38) ^ (s >> 57)) & 1) << i;
        s = (s << 1) | b;
    }
    *state = s & ((1ull << 58) - 1);
    return out;
}

HLS_TOP void scrambler64(const scrambler64_in *in, scrambler64_out *out, scrambler64_state *st) {
    if (!in->valid) return;
    uint64_t tx = st->tx, rx = st->rx;
    uint64_t s = in->bypass ? in->data : scramble(in->data, &tx);
    uint64_t r = in->bypass ? s : descramble(s, &rx);
    out->scrambled = s;
    out->recovered = r;
    out->match = r == in->data;
    if (!in->bypass) {
        st->tx = tx;
        st->rx = rx;
    }
}
