/* small_blocks_test — directed checks with known answers:
 *  - sat_counter13 saturates at 8191 and 0 instead of wrapping;
 *  - wide_mem: read data arrives one cycle later, a same-cycle write to the read
 *    address returns the old word (read-first), raddr is taken modulo the depth;
 *  - hdr_parser: fields of a known BTH, payload length, runt detection, hold;
 *  - bswap_net: fields of a known BTH and byte swaps of known words. */
#include <stdio.h>

#include "../pass/bswap_net.c"
#include "../pass/hdr_parser.c"
#include "../pass/sat_counter13.c"
#include "../pass/wide_mem.c"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static sat_counter13_state sc;
static unsigned sat(bool up, bool down, unsigned step) {
    sat_counter13_in in = {.up = up, .down = down, .step = (hls_uint(13))step};
    sat_counter13_out out = {0};
    hls_edge_queue_bind(edges);
    sat_counter13(&in, &out, &sc);
    hls_clock_edge(edges);
    return (unsigned)sc.count;
}

static wide_mem_state wm;
static wide_mem_out mem(bool we, unsigned waddr, hls_u512 wdata, bool re, unsigned raddr) {
    wide_mem_in in = {.we = we, .waddr = (hls_uint(6))waddr, .wdata = wdata, .re = re,
                      .raddr = (uint8_t)raddr};
    wide_mem_out out = {0};
    hls_edge_queue_bind(edges);
    wide_mem(&in, &out, &wm);
    hls_clock_edge(edges);
    return out;
}

static hdr_parser_state hp;
static hdr_parser_out word(uint32_t w, bool last, bool hold) {
    hdr_parser_in in = {.rx = {true, {w, last}}, .hold = hold};
    hdr_parser_out out = {0};
    hls_edge_queue_bind(edges);
    hdr_parser(&in, &out, &hp);
    hls_clock_edge(edges);
    return out;
}

int main(void) {
    edges = hls_edge_queue_new();
    check("sat_counter13/saturates_high", sat(true, false, 8000) == 8000 &&
                                              sat(true, false, 8000) == 8191 &&
                                              sat(true, false, 1) == 8191);
    check("sat_counter13/up_and_down_hold", sat(true, true, 5) == 8191);
    check("sat_counter13/saturates_low", sat(false, true, 5000) == 3191 &&
                                             sat(false, true, 5000) == 0 &&
                                             sat(false, true, 1) == 0);

    hls_u512 big = ((hls_u512)0x0123456789ABCDEFull << 448) | 0x42;
    mem(true, 5, big, false, 0);
    wide_mem_out o = mem(true, 5, 7, true, 64 + 5); /* read 5 while overwriting it */
    check("wide_mem/no_data_before_latency", !o.rvalid);
    o = mem(false, 0, 0, true, 5);
    check("wide_mem/read_first_returns_old_word", o.rvalid && o.rdata == big);
    o = mem(false, 0, 0, false, 0);
    check("wide_mem/write_landed", o.rvalid && o.rdata == 7);
    check("wide_mem/rvalid_only_after_read", !mem(false, 0, 0, false, 0).rvalid);

    /* SEND Only, pkey 0xFFFF, QP 0x000123, ack request, PSN 0xABCDEF, 3 payload words */
    bool ok = !word(0x0400FFFF, false, false).hdr_valid;
    ok &= !word(0x00000123, false, true).hdr_valid;  /* held: not consumed */
    ok &= !word(0x00000123, false, false).hdr_valid;
    hdr_parser_out h = word(0x80ABCDEF, false, false);
    ok &= h.hdr_valid && h.opcode == 0x04 && h.pkey == 0xFFFF && h.dest_qp == 0x123 &&
          h.psn == 0xABCDEF && h.ack_req;
    check("hdr_parser/bth_fields", ok);
    word(1, false, false);
    word(2, false, false);
    h = word(3, true, false);
    check("hdr_parser/payload_length", h.end_valid && h.payload_words == 3 && !h.runt);
    word(0x11000000, false, false);
    h = word(0, true, false); /* ends after two header words */
    check("hdr_parser/runt", h.runt && !h.end_valid && hp.phase == HP_BTH0);

    bswap_net_in bi = {.bth = {0x04, 0x40, 0xFF, 0xFF, 0x5A, 0x00, 0x01, 0x23,
                               0xFF, 0xAB, 0xCD, 0xEF},
                       .host32 = 0x11223344u,
                       .host64 = 0x0102030405060708ull};
    bswap_net_out bo = {0};
    bswap_net_state bs = {0};
    hls_edge_queue_bind(edges);
    bswap_net(&bi, &bo, &bs);
    hls_clock_edge(edges);
    const uint8_t expect_out[12] = {0x04, 0x40, 0xFF, 0xFF, 0x00, 0x00, 0x01, 0x23,
                                    0x80, 0xAB, 0xCD, 0xEF};
    check("bswap_net/bth_fields", bo.opcode == 4 && bo.pkey == 0xFFFF && bo.dest_qp == 0x123 &&
                                      bo.ack_req && bo.psn == 0xABCDEF);
    check("bswap_net/reserialised_reserved_cleared", memcmp(bo.bth_out, expect_out, 12) == 0);
    check("bswap_net/byte_swaps", bo.net32 == 0x44332211u && bo.net64 == 0x0807060504030201ull);
    return failures != 0;
}
