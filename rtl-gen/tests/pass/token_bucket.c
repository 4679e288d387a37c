/* token_bucket — a rate limiter: a bucket of up to `burst` tokens refilled by `rate`
 * tokens every cycle (8.8 fixed point), charged `len` tokens per packet; a packet passes
 * only when the bucket holds enough. Parameters are inputs (as CSRs would drive them).
 *
 * In the corpus for fixed-point arithmetic with clamping and a comparison that gates an
 * update. */
#include "hls.h"

typedef struct {
    uint16_t rate;            /* tokens per cycle, 8.8 fixed point */
    uint16_t burst;           /* bucket size in whole tokens */
    bool req;
    uint16_t len;             /* tokens the packet costs */
} token_bucket_in;

typedef struct {
    bool pass;
    uint16_t level;           /* whole tokens in the bucket */
} token_bucket_out;

typedef struct {
    uint32_t tokens;          /* 16.8 fixed point */
} token_bucket_state;

HLS_TOP void token_bucket(const token_bucket_in *in, token_bucket_out *out,
                          token_bucket_state *st) {
    uint32_t cap = (uint32_t)in->burst << 8;
    uint32_t t = st->tokens + in->rate;
    if (t > cap) t = cap;
    uint32_t cost = (uint32_t)in->len << 8;
    bool pass = in->req && t >= cost;
    if (pass) t -= cost;
    out->pass = pass;
    out->level = (uint16_t)(st->tokens >> 8);
    st->tokens = t;
}
