/* mul_hash — multiplicative hashing of a 64-bit flow key into a 12-bit bucket index,
 * four ways with different odd constants (for a 4-way cuckoo table), plus a 32-bit
 * multiply-xorshift finaliser, in a two-stage pipeline: the products are registered, the
 * indices come out one cycle after the key.
 *
 * In the corpus for 64x64 multipliers (the high bits of the product) and a pipeline
 * register stage written as state. */
#include "hls.h"

typedef struct {
    bool valid;
    uint64_t key;
} mul_hash_in;

typedef struct {
    bool valid;
    hls_uint(12) way[4];
    uint32_t mix;
} mul_hash_out;

typedef struct {
    bool valid;
    uint64_t prod[4];
    uint32_t mix;
} mul_hash_state;

static const uint64_t mult[4] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
                                 0x165667B19E3779F9ull, 0xD6E8FEB86659FD93ull};

HLS_TOP void mul_hash(const mul_hash_in *in, mul_hash_out *out, mul_hash_state *st) {
    out->valid = st->valid;
    for (unsigned w = 0; w < 4; w++) out->way[w] = (hls_uint(12))(st->prod[w] >> 52);
    out->mix = st->mix;

    st->valid = in->valid;
    for (unsigned w = 0; w < 4; w++) st->prod[w] = in->key * mult[w];
    uint32_t x = (uint32_t)(in->key ^ (in->key >> 32));
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    st->mix = x ^ (x >> 16);
}
