/* popcount_valid — a selective-repeat window and a parity check, each setting a valid bit:
 * the window is complete when the population count of its 128-bit received bitmap equals
 * its length, and a word is accepted when its even parity matches the parity bit sent with
 * it. Behind each valid bit the value it vouches for (the window's length, the word) sits in
 * a register that the outputs show only while the bit is 1.
 *
 * In the corpus for the reset proof (docs/rtl-gen.md, "Reset policy"): each valid bit's next
 * value is a popcount, a chain of 64 additions per 64 bits, and the data registers behind
 * them need no reset. The proof evaluates every node of that chain once per evaluation; when
 * it evaluated an operand again at each read, this block took 2^64 steps (rtl-gen never
 * finished). tests/reset/run compiles it under a time limit. */
#include "hls.h"

typedef struct {
    bool load;                /* a window and a word are offered this cycle */
    hls_u128 received;        /* bit i: packet i of the window has arrived */
    hls_uint(8) window_len;   /* packets in the window, 0..128 */
    uint64_t word;
    bool word_parity;         /* 1 when word has an odd number of ones */
} popcount_valid_in;

typedef struct {
    bool window_valid;
    hls_uint(8) window_len;   /* meaningful while window_valid */
    bool word_valid;
    uint64_t word;            /* meaningful while word_valid */
} popcount_valid_out;

typedef struct {
    bool window_valid;
    hls_uint(8) window_len;
    bool word_valid;
    uint64_t word;
} popcount_valid_state;

HLS_TOP void popcount_valid(const popcount_valid_in *in, popcount_valid_out *out,
                            popcount_valid_state *st) {
    out->window_valid = st->window_valid;
    if (st->window_valid) out->window_len = st->window_len;
    out->word_valid = st->word_valid;
    if (st->word_valid) out->word = st->word;

    hls_uint(8) arrived = (hls_uint(8))__builtin_popcountg(in->received);
    if (in->load && arrived == in->window_len) {
        st->window_valid = true;
        st->window_len = in->window_len;
    } else {
        st->window_valid = false;
    }

    bool odd = __builtin_parityll(in->word);
    if (in->load && odd == in->word_parity) {
        st->word_valid = true;
        st->word = in->word;
    } else {
        st->word_valid = false;
    }
}
