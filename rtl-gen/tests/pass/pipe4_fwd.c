/* pipe4_fwd — pipe4_stall with forwarding instead of a stall: every op is taken. An op's RAM
 * read misses the writes of the three ops ahead of it (the one writing as it reads, the
 * next, and the one after), so at stage 2 it compares its index with theirs (the op in
 * stage 3, the op in stage 4, the last write) and at stage 3 takes the newest matching
 * value instead of the RAM's: the sum in stage 4, the last write, the write before it.
 * Comparing a stage early keeps the compare out of the adder's path.
 * Corundum queue_manager's op-table forwarding.
 *
 * In the corpus as a pipeline block the logic-level goal (<= 8) is measured on. */
#include "hls.h"

typedef struct {
    bool valid;
    uint8_t idx;
    uint16_t add;
} pipe4_fwd_in;

typedef struct {
    bool done;                /* stage 4 wrote idx := sum this cycle */
    uint8_t idx;
    uint16_t sum;
} pipe4_fwd_out;

typedef struct {
    HLS_MEM(uint16_t, 256) table;
    bool rd_valid;            /* stage 2: read issued last cycle, RAM data now */
    uint8_t rd_idx;
    uint16_t rd_add;
    bool cp_valid;            /* stage 3: old value latched, add now */
    uint8_t cp_idx;
    uint16_t cp_add, cp_old;
    bool cp_fwd_wb, cp_fwd_w1, cp_fwd_w2; /* take the value of the op that is now in stage 4,
                                             * wrote last cycle, wrote two cycles ago */
    bool wb_valid;            /* stage 4: write the sum back */
    uint8_t wb_idx;
    uint16_t wb_sum;
    bool w1_valid;            /* the write of last cycle */
    uint8_t w1_idx;
    uint16_t w1_sum;
    uint16_t w2_sum;          /* the write before it */
} pipe4_fwd_state;

HLS_TOP void pipe4_fwd(const pipe4_fwd_in *in, pipe4_fwd_out *out, pipe4_fwd_state *st) {
    /* stage 4: write back; remember the write for the ops that read before it landed */
    out->done = st->wb_valid;
    out->idx = st->wb_idx;
    out->sum = st->wb_sum;
    if (st->wb_valid) hls_mem_write(&st->table, st->wb_idx, st->wb_sum);
    st->w2_sum = st->w1_sum;
    st->w1_valid = st->wb_valid;
    st->w1_idx = st->wb_idx;
    st->w1_sum = st->wb_sum;

    /* stage 3 -> 4: add to the newest value of the index */
    uint16_t old = st->cp_fwd_wb   ? st->wb_sum
                   : st->cp_fwd_w1 ? st->w1_sum
                   : st->cp_fwd_w2 ? st->w2_sum
                                   : st->cp_old;
    st->wb_valid = st->cp_valid;
    st->wb_idx = st->cp_idx;
    st->wb_sum = (uint16_t)(old + st->cp_add);

    /* stage 2 -> 3: latch the RAM data; find which op ahead wrote (or will write) it last */
    st->cp_fwd_wb = st->cp_valid && st->cp_idx == st->rd_idx;
    st->cp_fwd_w1 = st->wb_valid && st->wb_idx == st->rd_idx;
    st->cp_fwd_w2 = st->w1_valid && st->w1_idx == st->rd_idx;
    st->cp_valid = st->rd_valid;
    st->cp_idx = st->rd_idx;
    st->cp_add = st->rd_add;
    st->cp_old = st->table.hls_mem_rdata;

    /* stage 1 -> 2: issue the read */
    st->rd_valid = in->valid;
    st->rd_idx = in->idx;
    st->rd_add = in->add;
    if (in->valid) hls_mem_read(&st->table, in->idx);
}
