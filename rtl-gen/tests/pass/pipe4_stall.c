/* pipe4_stall — a 4-stage read-modify-write pipeline over a 256-entry table of 16-bit
 * counters: stage 1 issues the RAM read, stage 2 takes the RAM data, stage 3 adds, stage 4
 * writes back. An op for an index that is still in stage 2, 3 or 4 would read the old
 * value (the write lands later; the RAM reads first on a same-edge write), so it stalls:
 * ready drops until that op has written. Corundum queue_manager's stall-on-match.
 *
 * In the corpus as a pipeline block the logic-level goal (<= 8) is measured on. */
#include "hls.h"

typedef struct {
    bool valid;
    uint8_t idx;
    uint16_t add;
} pipe4_stall_in;

typedef struct {
    bool ready;               /* the op at the input is taken this cycle */
    bool done;                /* stage 4 wrote idx := sum this cycle */
    uint8_t idx;
    uint16_t sum;
} pipe4_stall_out;

typedef struct {
    HLS_MEM(uint16_t, 256) table;
    bool rd_valid;            /* stage 2: read issued last cycle, RAM data now */
    uint8_t rd_idx;
    uint16_t rd_add;
    bool cp_valid;            /* stage 3: old value latched, add now */
    uint8_t cp_idx;
    uint16_t cp_add, cp_old;
    bool wb_valid;            /* stage 4: write the sum back */
    uint8_t wb_idx;
    uint16_t wb_sum;
} pipe4_stall_state;

HLS_TOP void pipe4_stall(const pipe4_stall_in *in, pipe4_stall_out *out,
                         pipe4_stall_state *st) {
    /* hazard: the new op's index is in flight in a later stage */
    bool in_rd = st->rd_valid && st->rd_idx == in->idx;
    bool in_cp = st->cp_valid && st->cp_idx == in->idx;
    bool in_wb = st->wb_valid && st->wb_idx == in->idx;
    bool take = in->valid && !(in_rd || in_cp || in_wb);
    out->ready = !(in_rd || in_cp || in_wb);

    /* stage 4: write back */
    out->done = st->wb_valid;
    out->idx = st->wb_idx;
    out->sum = st->wb_sum;
    if (st->wb_valid) hls_mem_write(&st->table, st->wb_idx, st->wb_sum);

    /* stage 3 -> 4: add */
    st->wb_valid = st->cp_valid;
    st->wb_idx = st->cp_idx;
    st->wb_sum = (uint16_t)(st->cp_old + st->cp_add);

    /* stage 2 -> 3: latch the RAM data */
    st->cp_valid = st->rd_valid;
    st->cp_idx = st->rd_idx;
    st->cp_add = st->rd_add;
    st->cp_old = st->table.hls_mem_rdata;

    /* stage 1 -> 2: issue the read */
    st->rd_valid = take;
    st->rd_idx = in->idx;
    st->rd_add = in->add;
    if (take) hls_mem_read(&st->table, in->idx);
}
