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

    /* ipv4_sum_ok against the folded ones'-complement sum: random headers, each also with its
     * checksum word set right (so the sum is a nonzero multiple of 65535, up to 10 x), the all
     * zero and all ones headers */
    unsigned cbad = 0, ccases = 0, cgood = 0;
    for (unsigned t = 0; t < 20000; t++) {
        uint16_t wd[10];
        for (unsigned i = 0; i < 10; i++) wd[i] = (uint16_t)next();
        if (t == 0) for (unsigned i = 0; i < 10; i++) wd[i] = 0;
        if (t == 1) for (unsigned i = 0; i < 10; i++) wd[i] = 0xFFFF;
        for (unsigned fix = 0; fix < 2; fix++, ccases++) {
            if (fix) { /* the checksum word (5th) that makes the folded sum 0xFFFF */
                wd[5] = 0;
                uint32_t f = 0;
                for (unsigned i = 0; i < 10; i++) f += wd[i];
                while (f >> 16) f = (f & 0xFFFF) + (f >> 16);
                wd[5] = (uint16_t)~f;
            }
            uint32_t f = 0;
            roce_hdr_bits w = 0;
            for (unsigned i = 0; i < 10; i++) {
                f += wd[i];
                w |= (roce_hdr_bits)(wd[i] >> 8) << (8 * (ETH_HDR_LEN + 2 * i));
                w |= (roce_hdr_bits)(wd[i] & 0xFF) << (8 * (ETH_HDR_LEN + 2 * i + 1));
            }
            while (f >> 16) f = (f & 0xFFFF) + (f >> 16);
            cgood += f == 0xFFFF;
            if (ipv4_sum_ok(w) != (f == 0xFFFF) && cbad++ < 5)
                printf("FAIL ipv4_sum_ok: header %u (fixed %u) says %d, folded sum %04x\n", t, fix, ipv4_sum_ok(w), f);
        }
    }
    if (!cbad) printf("PASS ipv4_sum_ok equals the folded sum check (%u headers, %u correct)\n", ccases, cgood);
    bad += (int)cbad;
    return bad != 0;
}
