/* crc32_range_test — the ICRC engine's shallow formulation (roce_common.h: crc32_range over
 * crc32_block) against the byte-serial CRC it replaces, for every byte range lo..hi of a
 * beat (hi up to 64, empty ranges included) and many registers and beats, and the whole
 * engine against zlib's published check value; roce_rx's ICRC check (icrc_residue: the register a
 * correct ICRC leaves, moved on by the zero bytes after it) against the byte-serial CRC run over
 * a message, its ICRC and the zeros, for every window end, and a wrong ICRC rejected at each. Prints PASS/FAIL lines; exit 1 on a failure. */
#include <stdio.h>
#include <string.h>

#include "roce_common.h"

static uint32_t serial(uint32_t crc, const uint8_t *b, unsigned lo, unsigned hi) {
    for (unsigned i = lo; i < hi; i++) crc = crc32_byte(crc, b[i]);
    return crc;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

int main(void) {
    int bad = 0;
    unsigned long cases = 0;
    for (int trial = 0; trial < 40 && bad < 5; trial++) {
        uint8_t b[64];
        hls_u512 beat = 0;
        for (int i = 0; i < 64; i++) {
            b[i] = trial == 0 ? 0 : trial == 1 ? 0xFF : (uint8_t)next();
            beat |= (hls_u512)b[i] << (8 * i);
        }
        uint32_t reg = trial < 2 ? 0xFFFFFFFFu : (uint32_t)next();
        for (unsigned lo = 0; lo < 64; lo++)
            for (unsigned hi = 0; hi <= 64; hi++, cases++) {
                uint32_t want = serial(reg, b, lo, hi), got = crc32_range(reg, beat, lo, hi);
                if (want != got && bad++ < 5)
                    printf("FAIL crc32_range reg %08x lo %u hi %u: %08x, byte-serial %08x\n",
                           reg, lo, hi, got, want);
            }
    }
    if (!bad) printf("PASS crc32_range equals the byte-serial CRC (%lu ranges)\n", cases);
    /* "123456789" -> 0xCBF43926, the CRC-32 check value (seed and final xor all ones) */
    hls_u512 s = 0;
    const char *check = "123456789";
    for (unsigned i = 0; i < 9; i++) s |= (hls_u512)(uint8_t)check[i] << (8 * i);
    uint32_t c = ~crc32_range(0xFFFFFFFFu, s, 0, 9);
    if (c == 0xCBF43926u) printf("PASS crc32 check value cbf43926\n");
    else printf("FAIL crc32 check value: %08x, expected cbf43926\n", c), bad++;
    /* a message of m bytes, its ICRC (inverted register, LSB first), then 64 - hi zero bytes */
    unsigned rcases = 0, rbad = 0;
    for (int trial = 0; trial < 20; trial++) {
        uint8_t m[200];
        unsigned len = 1 + (unsigned)(next() % 150);
        for (unsigned i = 0; i < len; i++) m[i] = (uint8_t)next();
        uint32_t r = serial(0xFFFFFFFFu, m, 0, len), icrc = ~r;
        for (unsigned hi = 1; hi <= 64; hi++, rcases++) {
            uint8_t tail[68] = {0};
            for (unsigned k = 0; k < 4; k++) tail[k] = (uint8_t)(icrc >> (8 * k));
            uint32_t good = serial(r, tail, 0, 4 + 64 - hi);
            tail[next() % 4] ^= (uint8_t)(1u << (next() % 8));     /* one ICRC bit wrong */
            uint32_t wrong = serial(r, tail, 0, 4 + 64 - hi);
            if ((good != icrc_residue(hi) || wrong == icrc_residue(hi)) && rbad++ < 5)
                printf("FAIL icrc_residue(%u) %08x: correct ICRC gives %08x, a flipped bit %08x\n", hi,
                       icrc_residue(hi), good, wrong);
        }
    }
    if (!rbad) printf("PASS icrc_residue: a correct ICRC matches, a flipped bit does not (%u windows)\n", rcases);
    bad += (int)rbad;
    return bad != 0;
}
