/* pipe_stage_a — producer half of the two-block pipeline test (pipe_stage_b consumes).
 * While `enable` is high it sends packets of pkt_words + 1 beats on output stream tx;
 * each beat carries a running sequence number and a payload derived from it, so the
 * consumer can check order and integrity. Valid and data come from registers and stay
 * put until the beat moves (valid && ready at the edge); a new beat is offered in the
 * same cycle the previous one moves, so the stream runs at full rate.
 *
 * In the corpus for an output stream under back-pressure, and (with pipe_stage_b) for
 * composition through a FIFO: the beat fields must match pipe_stage_b's by name and
 * width. The type names differ so a native test can include both files. */
#include "hls.h"

typedef struct {
    uint16_t seq;
    uint32_t payload;
    bool last;            /* last beat of a packet */
} pipe_a_beat;

typedef struct {
    bool enable;
    hls_uint(4) pkt_words;   /* beats per packet minus one, latched at packet start */
    bool tx_ready;
} pipe_stage_a_in;

typedef struct {
    HLS_STREAM(pipe_a_beat) tx;
    uint32_t packets_sent;
} pipe_stage_a_out;

typedef struct {
    bool valid;              /* a beat is offered */
    uint16_t seq;
    hls_uint(4) word;        /* beat index inside the packet */
    hls_uint(4) last_word;
    uint32_t packets;
} pipe_stage_a_state;

/* The payload both stages agree on: a multiplicative hash of the sequence number. */
HLS_INLINE uint32_t pipe_payload(uint16_t seq) { return (uint32_t)seq * 0x9E3779B1u; }

HLS_TOP void pipe_stage_a(const pipe_stage_a_in *in, pipe_stage_a_out *out,
                          pipe_stage_a_state *st) {
    bool last = st->word == st->last_word;
    out->tx.valid = st->valid;
    if (st->valid) {
        out->tx.data.seq = st->seq;
        out->tx.data.payload = pipe_payload(st->seq);
        out->tx.data.last = last;
    }
    out->packets_sent = st->packets;

    if (hls_fire(st->valid, in->tx_ready)) {
        st->valid = false;
        st->seq = (uint16_t)(st->seq + 1);
        st->word = last ? 0 : st->word + 1;
        if (last) st->packets++;
    }
    /* reads below see the writes above: a beat that just moved frees the slot */
    if (!st->valid && in->enable) {
        if (st->word == 0) st->last_word = in->pkt_words;
        st->valid = true;
    }
}
