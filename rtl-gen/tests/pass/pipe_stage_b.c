/* pipe_stage_b — consumer half of the two-block pipeline test (pipe_stage_a produces).
 * Takes beats from input stream rx whenever `stall` is low, checks that sequence
 * numbers are consecutive and payloads match the producer's hash, and counts beats
 * and packets; the error flags are sticky. A digest of all payloads lets a test
 * compare two runs quickly.
 *
 * In the corpus for an input stream whose ready is driven by an input (random
 * back-pressure from the testbench), and as the far end of the composition test. */
#include "hls.h"

typedef struct {
    uint16_t seq;
    uint32_t payload;
    bool last;
} pipe_b_beat;

typedef struct {
    HLS_STREAM(pipe_b_beat) rx;
    bool stall;
} pipe_stage_b_in;

typedef struct {
    bool rx_ready;
    uint32_t packets;
    uint32_t words;
    bool seq_error;
    bool data_error;
    uint32_t digest;
} pipe_stage_b_out;

typedef struct {
    uint16_t expect_seq;
    uint32_t packets;
    uint32_t words;
    bool seq_error;
    bool data_error;
    uint32_t digest;
} pipe_stage_b_state;

/* must equal pipe_stage_a's pipe_payload(); named apart so one test can include both */
HLS_INLINE uint32_t expected_payload(uint16_t seq) { return (uint32_t)seq * 0x9E3779B1u; }
HLS_INLINE uint32_t rotl32(uint32_t x, unsigned n) { return x << n | x >> (32 - n); } /* 0<n<32 */

HLS_TOP void pipe_stage_b(const pipe_stage_b_in *in, pipe_stage_b_out *out,
                          pipe_stage_b_state *st) {
    out->rx_ready = !in->stall;
    out->packets = st->packets;
    out->words = st->words;
    out->seq_error = st->seq_error;
    out->data_error = st->data_error;
    out->digest = st->digest;
    if (!hls_fire(in->rx.valid, out->rx_ready)) return;

    uint16_t seq = in->rx.data.seq;
    uint32_t payload = in->rx.data.payload;
    if (seq != st->expect_seq) st->seq_error = true;
    if (payload != expected_payload(seq)) st->data_error = true;
    st->expect_seq = (uint16_t)(seq + 1);
    st->words++;
    if (in->rx.data.last) st->packets++;
    st->digest = rotl32(st->digest, 5) ^ payload;
}
