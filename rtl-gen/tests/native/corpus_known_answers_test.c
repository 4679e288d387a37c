/* corpus_known_answers_test — directed checks with known answers for corpus blocks whose
 * interesting cases random stimulus rarely reaches (equiv only compares C with RTL):
 *  - pkt_classify: RoCEv2 over IPv4 with a VLAN tag, TCP over IPv6, ARP under QinQ, an
 *    IPv4 header with options, a bad IHL;
 *  - crc16_ccitt: CRC-16/CCITT-FALSE of "123456789" is 0x29B1;
 *  - crc32c_word: CRC-32C of "12345678" (two words) is 0x6087809A;
 *  - csum16: the RFC 1071 example (00 01 f2 03 f4 f5 f6 f7) sums to 0xddf2, field 0x220d;
 *  - bitmap1024: allocation takes the lowest free entry, release frees it, the count;
 *  - fifo_mem256: 300 words offered against a slow consumer come out in order, none lost;
 *  - histogram_mem: back-to-back samples into one bin all count (the write bypass);
 *  - scrambler64: the descrambler recovers every word, and scrambling changes the data. */
#include <stdio.h>
#include <string.h>

#include "../pass/bitmap1024.c"
#include "../pass/crc16_ccitt.c"
#include "../pass/crc32c_word.c"
#include "../pass/csum16.c"
#include "../pass/fifo_mem256.c"
#include "../pass/histogram_mem.c"
#include "../pass/pkt_classify.c"
#include "../pass/scrambler64.c"

static hls_edge_queue *edges;
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

#define STEP(blk, in, out, st)            \
    do {                                  \
        hls_edge_queue_bind(edges);       \
        blk(&(in), &(out), &(st));        \
        hls_clock_edge(edges);            \
    } while (0)

static pkt_classify_out classify(const uint8_t *frame, unsigned len) {
    pkt_classify_in in = {.valid = true};
    pkt_classify_out out = {0};
    pkt_classify_state st = {0};
    memcpy(in.hdr, frame, len);
    STEP(pkt_classify, in, out, st);
    return out;
}

static void check_classify(void) {
    /* dst, src MAC; 802.1Q VID 0x123; IPv4 IHL 5, UDP; ports 0xc000 -> 4791 */
    uint8_t roce[64] = {[12] = 0x81, 0x00, 0x01, 0x23, 0x08, 0x00, 0x45, [27] = 17,
                        [38] = 0xc0, 0x00, 0x12, 0xb7};
    pkt_classify_out o = classify(roce, 64);
    check("pkt_classify/rocev2_vlan", o.cls == CLS_ROCEV2 && o.vlan == 0x123 && o.l3_off == 18 &&
                                          o.l4_off == 38 && o.sport == 0xc000 && o.dport == 4791);
    /* IPv6, next header TCP; ports 80 -> 443 */
    uint8_t v6[64] = {[12] = 0x86, 0xdd, 0x60, [20] = 6, [54] = 0, 80, 0x01, 0xbb};
    o = classify(v6, 64);
    check("pkt_classify/ipv6_tcp", o.cls == CLS_TCP && o.l3_off == 14 && o.l4_off == 54 &&
                                       o.sport == 80 && o.dport == 443 && o.vlan == 0);
    uint8_t arp[64] = {[12] = 0x88, 0xa8, 0x00, 0x05, 0x81, 0x00, 0x00, 0x07, 0x08, 0x06};
    o = classify(arp, 64);
    check("pkt_classify/qinq_arp", o.cls == CLS_ARP && o.vlan == 7 && o.l3_off == 22);
    /* IPv4 with IHL 6 (4 bytes of options): UDP header at 14 + 24 */
    uint8_t opts[64] = {[12] = 0x08, 0x00, 0x46, [23] = 17, [38] = 0x12, 0x34, 0x00, 0x35};
    o = classify(opts, 64);
    check("pkt_classify/ipv4_options", o.cls == CLS_UDP && o.l4_off == 38 && o.dport == 53);
    uint8_t bad[64] = {[12] = 0x08, 0x00, 0x44};
    o = classify(bad, 64);
    check("pkt_classify/bad_ihl", o.bad_ihl && o.cls == CLS_OTHER && o.l4_off == 0);
}

static void check_crcs(void) {
    crc16_ccitt_state s16 = {0};
    crc16_ccitt_out o16 = {0};
    const char *msg = "123456789";
    for (unsigned i = 0; i < 9; i++) {
        crc16_ccitt_in in = {.valid = true, .first = i == 0, .last = i == 8, .data = (uint8_t)msg[i]};
        STEP(crc16_ccitt, in, o16, s16);
    }
    crc16_ccitt_in idle = {0};
    STEP(crc16_ccitt, idle, o16, s16);
    check("crc16_ccitt/check_value", o16.done && o16.crc == 0x29B1);

    crc32c_word_state s32 = {0};
    crc32c_word_out o32 = {0};
    crc32c_word_in w1 = {.valid = true, .seed = true, .data = 0x34333231u}; /* "1234" */
    crc32c_word_in w2 = {.valid = true, .data = 0x38373635u};               /* "5678" */
    crc32c_word_in none = {0};
    STEP(crc32c_word, w1, o32, s32);
    STEP(crc32c_word, w2, o32, s32);
    STEP(crc32c_word, none, o32, s32);
    check("crc32c_word/12345678", o32.crc == 0x6087809Au);

    csum16_state sc = {0};
    csum16_out oc = {0};
    csum16_in beat = {.valid = true, .last = true, .keep = 0xFF,
                      .data = 0xf7f6f5f403f20100ull}; /* bytes 00 01 f2 03 f4 f5 f6 f7 */
    STEP(csum16, beat, oc, sc);
    csum16_in quiet = {0};
    STEP(csum16, quiet, oc, sc);
    check("csum16/rfc1071_example", oc.done && oc.csum == 0x220d);
}

static void check_bitmap(void) {
    bitmap1024_state st = {0};
    bitmap1024_out out = {0};
    unsigned got[3];
    for (unsigned i = 0; i < 3; i++) {
        bitmap1024_in a = {.alloc = true};
        STEP(bitmap1024, a, out, st);
        got[i] = out.alloc_ok ? (unsigned)out.alloc_idx : 9999;
    }
    bitmap1024_in rel = {.release = true, .release_idx = 1, .test_idx = 2};
    STEP(bitmap1024, rel, out, st);
    bool used2 = out.test_used;
    bitmap1024_in a = {.alloc = true};
    STEP(bitmap1024, a, out, st);
    unsigned again = out.alloc_ok ? (unsigned)out.alloc_idx : 9999;
    bitmap1024_in look = {0};
    STEP(bitmap1024, look, out, st);
    check("bitmap1024/lowest_free_first", got[0] == 0 && got[1] == 1 && got[2] == 2 && used2 &&
                                              again == 1 && out.used == 3 && !out.full);
}

static void check_fifo(void) {
    fifo_mem256_state st = {0};
    uint32_t sent = 0, received = 0;
    bool in_order = true;
    for (unsigned cyc = 0; cyc < 3000 && received < 300; cyc++) {
        fifo_mem256_in in = {.enq = {sent < 300, 0x1000 + sent}, .deq_ready = cyc % 3 == 0};
        fifo_mem256_out out = {0};
        STEP(fifo_mem256, in, out, st);
        if (hls_fire(in.enq.valid, out.enq_ready)) sent++;
        if (hls_fire(out.deq.valid, in.deq_ready)) {
            in_order &= out.deq.data == 0x1000 + received;
            received++;
        }
    }
    check("fifo_mem256/in_order_none_lost", in_order && sent == 300 && received == 300);
}

static void check_histogram(void) {
    histogram_mem_state st = {0};
    histogram_mem_out out = {0};
    const uint16_t sizes[] = {100, 120, 127, 96, 64, 100, 2000, 2047}; /* bins 3 3 3 3 2 3 62 63 */
    for (unsigned i = 0; i < 8; i++) {
        histogram_mem_in in = {.sample = true, .size = sizes[i]};
        STEP(histogram_mem, in, out, st);
    }
    uint32_t count[4] = {0};
    const unsigned bins[4] = {3, 2, 62, 63};
    histogram_mem_in drain = {0};
    STEP(histogram_mem, drain, out, st); /* the last write lands */
    for (unsigned k = 0; k < 4; k++) {
        histogram_mem_in rd = {.rd = true, .rd_bin = (hls_uint(6))bins[k]};
        STEP(histogram_mem, rd, out, st);
        STEP(histogram_mem, drain, out, st);
        count[k] = out.rd_valid ? out.rd_count : 9999;
    }
    check("histogram_mem/bypass_counts_all", count[0] == 5 && count[1] == 1 && count[2] == 1 &&
                                                 count[3] == 1);
}

static void check_scrambler(void) {
    scrambler64_state st = {0};
    uint64_t x = 0x0123456789abcdefull;
    bool all = true, changed = false;
    for (unsigned i = 0; i < 200; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        scrambler64_in in = {.valid = true, .data = x};
        scrambler64_out out = {0};
        STEP(scrambler64, in, out, st);
        all &= out.match && out.recovered == x;
        changed |= out.scrambled != x;
    }
    check("scrambler64/descrambler_recovers", all && changed);
}

int main(void) {
    edges = hls_edge_queue_new();
    check_classify();
    check_crcs();
    check_bitmap();
    check_fifo();
    check_histogram();
    check_scrambler();
    return failures != 0;
}
