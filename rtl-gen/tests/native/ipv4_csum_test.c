/* ipv4_csum_test — the checksum of a known IPv4 header (192.168.0.1 -> 192.168.0.199,
 * UDP, total length 115: checksum 0xB861), its verification, and a corrupted copy. */
#include <stdio.h>

#include "../pass/ipv4_csum.c"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static ipv4_csum_out run(const uint8_t hdr[20]) {
    ipv4_csum_in in;
    ipv4_csum_out out = {0};
    ipv4_csum_state st = {0};
    memcpy(in.hdr, hdr, 20);
    hls_edge_queue_bind(edges);
    ipv4_csum(&in, &out, &st);
    hls_clock_edge(edges);
    return out;
}

int main(void) {
    edges = hls_edge_queue_new();
    uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                     0xB8, 0x61, 0xC0, 0xA8, 0x00, 0x01, 0xC0, 0xA8, 0x00, 0xC7};
    ipv4_csum_out o = run(h);
    check("ipv4_csum/known_header_checksum", o.csum == 0xB861);
    check("ipv4_csum/known_header_verifies", o.ok);
    h[10] = h[11] = 0; /* the field's content does not change the generated value */
    o = run(h);
    check("ipv4_csum/field_ignored_when_generating", o.csum == 0xB861 && !o.ok);
    h[10] = 0xB8;
    h[11] = 0x61;
    h[15] ^= 0x01; /* source address bit flip */
    check("ipv4_csum/corruption_detected", !run(h).ok);
    return failures != 0;
}
