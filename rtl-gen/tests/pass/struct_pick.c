/* struct_pick — forward one of two input records, chosen by a condition that depends on
 * the branch taken, as a packet arbiter does with its sources' descriptors.
 *
 * In the corpus because clang turns "copy the chosen input struct" into one copy from
 * `in + phi(offset_a, offset_b)`: a dynamic byte offset that can take only two values.
 * rtl-gen must read the record at those two offsets, not build a case over every byte
 * of the input (rtl-gen/tests/native/run checks the generated case stays small). */
#include "hls.h"

typedef struct {
    uint64_t addr;
    uint32_t key;
    uint16_t len;
    uint8_t data[64];
} record_t;

typedef struct {
    bool a_valid;
    record_t a;
    bool b_valid;
    record_t b;
    bool hold;            /* keep the previous choice */
} struct_pick_in;

typedef struct {
    bool valid;
    record_t rec;
    uint16_t beats;       /* payload beats of the chosen record: ceil(len / 64) */
} struct_pick_out;

typedef struct {
    bool last_b;          /* b was chosen last: a goes first on a tie */
} struct_pick_state;

HLS_TOP void struct_pick(const struct_pick_in *in, struct_pick_out *out, struct_pick_state *st) {
    bool pick_b = st->last_b;
    if (!in->hold) {
        if (!in->a_valid && !in->b_valid) return;
        pick_b = in->b_valid && (!in->a_valid || !st->last_b);
        const record_t *r = pick_b ? &in->b : &in->a;
        out->beats = (uint16_t)(((unsigned)r->len + 63) >> 6);
    }
    out->valid = pick_b ? in->b_valid : in->a_valid;
    out->rec = pick_b ? in->b : in->a;
    st->last_b = pick_b;
}
