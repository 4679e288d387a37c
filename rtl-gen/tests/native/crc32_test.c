/* crc32_test — crc32_beat against a byte-at-a-time table CRC-32 (the zlib algorithm,
 * computed here), on the standard check value and on packets of 1..200 bytes split
 * into 64-byte beats, with idle cycles and empty beats in between. */
#include <stdio.h>

#include "../pass/crc32_beat.c"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static uint32_t table[256];
static void make_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
}
static uint32_t crc32_ref(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    while (n--) c = table[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* One cycle of the block: zeroed outputs, then the clock edge. */
static crc32_beat_out cycle(crc32_beat_state *st, const crc32_beat_in *in) {
    crc32_beat_out out = {0};
    hls_edge_queue_bind(edges);
    crc32_beat(in, &out, st);
    hls_clock_edge(edges);
    return out;
}

/* Feed p[0..n) as beats; idle cycles and empty beats (nbytes 0) are mixed in when
 * `noisy`. Returns the CRC from the last beat, or 0 and *bad on a protocol error. */
static uint32_t run_packet(crc32_beat_state *st, const uint8_t *p, size_t n, bool noisy, bool *bad) {
    size_t off = 0;
    uint32_t result = 0;
    bool first = true;
    do {
        size_t take = n - off > 64 ? 64 : n - off;
        crc32_beat_in in = {.valid = true, .first = first, .last = off + take == n,
                            .nbytes = (hls_uint(7))take, .seed = 0xFFFFFFFFu,
                            .final_xor = 0xFFFFFFFFu};
        for (size_t i = 0; i < take; i++) in.data |= (hls_u512)p[off + i] << (8 * i);
        if (take < 64) in.data |= (hls_u512)0xA5 << (8 * 63); /* garbage past nbytes */
        if (noisy) {
            crc32_beat_in idle = in;
            idle.valid = false;
            idle.first = true; /* ignored while valid is 0 */
            if (cycle(st, &idle).crc_valid) *bad = true;
            if (!first) {
                crc32_beat_in empty = in;
                empty.nbytes = 0;
                empty.last = false;
                if (cycle(st, &empty).crc_valid) *bad = true;
            }
        }
        crc32_beat_out out = cycle(st, &in);
        if (out.crc_valid != in.last) *bad = true;
        if (in.last) result = out.crc;
        off += take;
        first = false;
    } while (off < n);
    return result;
}

int main(void) {
    edges = hls_edge_queue_new();
    make_table();
    crc32_beat_state st = {0};
    bool bad = false;
    const uint8_t check9[] = "123456789";
    check("crc32/reference_check_value", crc32_ref(check9, 9) == 0xCBF43926u);
    check("crc32/block_check_value", run_packet(&st, check9, 9, false, &bad) == 0xCBF43926u && !bad);

    uint8_t buf[200];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
    check("crc32/one_full_beat", run_packet(&st, buf, 64, false, &bad) == crc32_ref(buf, 64) && !bad);
    bool all = true;
    for (size_t n = 1; n <= sizeof buf; n++) {
        bool noisy = n % 2;
        if (run_packet(&st, buf, n, noisy, &bad) != crc32_ref(buf, n) || bad) {
            printf("  length %zu%s differs\n", n, noisy ? " (noisy)" : "");
            all = false;
        }
    }
    check("crc32/lengths_1_to_200_with_idle_and_empty_beats", all);
    return failures != 0;
}
