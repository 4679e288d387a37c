/* tiny.h — the structs of the tiny test block (tiny.c), shared with api_test.c so the C API
 * test drives the verilated model with the very struct types of the C model. */
#ifndef WRAP_TESTS_TINY_H
#define WRAP_TESTS_TINY_H

#include "hls.h"

typedef struct {
    HLS_STREAM(uint16_t) cmd; /* bit 15: write; bits 2..0: memory address */
    hls_int(13) delta;        /* added to the accumulator every cycle */
    hls_uint(100) wide;       /* a port wider than 64 bits */
    bool res_ready;
} tiny_in;

typedef struct {
    bool cmd_ready;
    HLS_STREAM(uint32_t) res; /* the word a read command fetched */
    hls_int(13) acc;
    hls_uint(100) wide_x;     /* wide ^ st.w */
} tiny_out;

typedef struct {
    hls_int(13) acc;
    hls_uint(100) w;
    bool pending;             /* a memory read is under way */
    bool res_valid;
    struct {
        uint8_t n;            /* commands taken; register st_cnt__n: "__" in a name */
    } cnt_;
    uint32_t res;
    HLS_MEM(uint32_t, 8) m;
} tiny_state;

void tiny(const tiny_in *in, tiny_out *out, tiny_state *st);

#endif
