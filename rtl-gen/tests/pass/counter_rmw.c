/* counter_rmw — a 256-entry table of 32-bit counters in a synchronous RAM, updated by
 * read-modify-write: one "add amount to counter[addr]" request per clock, full rate.
 *
 *   cycle t    request arrives: hls_mem_read(addr); request goes into stage s1
 *   cycle t+1  read data is in hls_mem_rdata; new = old + amount; hls_mem_write(new)
 *
 * Hazard: when requests t and t+1 hit the same address, the read for t+1 is issued in
 * the cycle the write for t happens; the RAM is read-first, so it returns the value
 * from before that write. The bypass register keeps the last written (addr, value) and
 * replaces the stale read data when the addresses match. Two cycles apart needs no
 * bypass: the write has landed before the read.
 *
 * Models the per-QP statistics counters. In the corpus for the HLS_MEM read latency,
 * read-first behaviour and the forwarding a pipelined RMW needs to be correct. */
#include "hls.h"

typedef struct {
    bool inc_valid;
    uint8_t inc_addr;
    uint16_t inc_amount;
} counter_rmw_in;

typedef struct {
    bool upd_valid;       /* the counter below was just written */
    uint8_t upd_addr;
    uint32_t upd_value;
    bool upd_bypassed;    /* the old value came from the bypass register, not the RAM */
} counter_rmw_out;

typedef struct {
    HLS_MEM(uint32_t, 256) count;
    /* stage s1: the request whose read data arrives this cycle */
    bool s1_valid;
    uint8_t s1_addr;
    uint16_t s1_amount;
    /* bypass: the write done in the previous cycle */
    bool byp_valid;
    uint8_t byp_addr;
    uint32_t byp_value;
} counter_rmw_state;

HLS_TOP void counter_rmw(const counter_rmw_in *in, counter_rmw_out *out, counter_rmw_state *st) {
    /* stage s1: finish the request read last cycle */
    bool bypass = st->byp_valid && st->byp_addr == st->s1_addr;
    uint32_t old = bypass ? st->byp_value : st->count.hls_mem_rdata;
    uint32_t value = old + st->s1_amount;
    if (st->s1_valid) {
        hls_mem_write(&st->count, st->s1_addr, value);
        out->upd_valid = true;
        out->upd_addr = st->s1_addr;
        out->upd_value = value;
        out->upd_bypassed = bypass;
    }
    st->byp_valid = st->s1_valid;
    st->byp_addr = st->s1_addr;
    st->byp_value = value;

    /* stage s0: start the new request */
    if (in->inc_valid) hls_mem_read(&st->count, in->inc_addr);
    st->s1_valid = in->inc_valid;
    st->s1_addr = in->inc_addr;
    st->s1_amount = in->inc_amount;
}
