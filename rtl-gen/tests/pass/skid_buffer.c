/* skid_buffer — a two-register pipeline stage for a valid/ready stream that registers
 * both directions: down.valid/data come from the output register and up_ready from the
 * skid register, so a long ready path is cut in two. When downstream stalls while a
 * beat is accepted, the beat lands in the skid register; up_ready drops until it drains.
 * Full throughput when downstream is always ready.
 *
 * In the corpus for stream back-pressure with registered ready (the idiom every block
 * boundary in hlsnic may use) and struct-typed stream data. */
#include "hls.h"

typedef struct {
    uint64_t data;
    hls_uint(3) empty;     /* unused trailing bytes of the last word */
    bool last;
} skid_word;

typedef struct {
    HLS_STREAM(skid_word) up;
    bool down_ready;
} skid_buffer_in;

typedef struct {
    bool up_ready;
    HLS_STREAM(skid_word) down;
} skid_buffer_out;

typedef struct {
    bool out_valid;
    skid_word out_beat;
    bool skid_valid;
    skid_word skid_beat;
} skid_buffer_state;

HLS_TOP void skid_buffer(const skid_buffer_in *in, skid_buffer_out *out, skid_buffer_state *st) {
    out->up_ready = !st->skid_valid;
    out->down.valid = st->out_valid;
    if (st->out_valid) out->down.data = st->out_beat;

    bool push = hls_fire(in->up.valid, out->up_ready);
    bool out_free = !st->out_valid || in->down_ready; /* output register empties this edge */
    if (out_free) {
        if (st->skid_valid) {          /* drain the skid first (push is 0: up_ready was 0) */
            st->out_beat = st->skid_beat;
            st->out_valid = true;
            st->skid_valid = false;
        } else if (push) {
            st->out_beat = in->up.data;
            st->out_valid = true;
        } else {
            st->out_valid = false;
        }
    } else if (push) {                 /* downstream stalled: park the beat */
        st->skid_beat = in->up.data;
        st->skid_valid = true;
    }
}
