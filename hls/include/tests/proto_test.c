/* proto_test.c — the shared protocol helpers of hls/include at their edges: PSN arithmetic
 * across the 2^24 wrap, every path MTU code, packets and PSNs of a WQE at MTU boundaries,
 * opcode classes against the header table, the MR check and REG_MR's rules.
 *
 * Each check is against a rule written out here, not against the helper's own lines.
 * Prints one PASS / FAIL line per group; exits 1 if any failed. */
#include <stdio.h>

#include "nic_if.h"
#include "nic_types.h"
#include "prng.h"
#include "roce_psn.h"

static int failures;
static int group_failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond) && group_failures++ < 3) {                                  \
            printf("  %s:%d: ", __FILE__, __LINE__);                            \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
        }                                                                       \
    } while (0)

static void group_end(const char *name) {
    if (group_failures) printf("FAIL proto: %s (%d checks failed)\n", name, group_failures);
    else printf("PASS proto: %s\n", name);
    failures += group_failures != 0;
    group_failures = 0;
}

/* deterministic values for the sweeps (testbench/lib/prng.h, seed fixed in main) */
static prng_t rng;
static uint32_t rnd(void) { return (uint32_t)prng_next(&rng); }
static uint64_t rnd64(void) { return prng_next(&rng); }

/* ---- PSN ------------------------------------------------------------------------------ */
/* a is before b when b is 1 .. 2^23 PSNs ahead of a (9.7.1: at most 2^23 outstanding) */
static bool ref_before(uint32_t a, uint32_t b) {
    uint32_t ahead = (b - a) % (1u << 24);
    return ahead != 0 && ahead <= (1u << 23);
}

static void test_psn(void) {
    CHECK(psn_add(0xFFFFFF, 1) == 0, "0xFFFFFF + 1 wraps to 0");
    CHECK(psn_add(0xFFFFF0, 0x20) == 0x10, "0xFFFFF0 + 0x20 = 0x10");
    CHECK(psn_add(5, 0) == 5, "+0");
    CHECK(psn_sub(0, 1) == 0xFFFFFF, "0 - 1 = 0xFFFFFF");
    CHECK(psn_sub(0x10, 0xFFFFF0) == 0x20, "distance across the wrap");
    CHECK(psn_lt(0xFFFFFF, 0) && !psn_lt(0, 0xFFFFFF), "0xFFFFFF is before 0");
    CHECK(psn_le(0xFFFFFF, 0) && !psn_le(0, 0xFFFFFF), "psn_le across the wrap");
    CHECK(!psn_lt(7, 7) && psn_le(7, 7), "a PSN is not before itself, but at or before");
    CHECK(psn_lt(0, 0x7FFFFF) && !psn_lt(0x7FFFFF, 0), "2^23 - 1 ahead: before");
    CHECK(!psn_lt(0, 0x800001) && psn_lt(0x800001, 0), "2^23 + 1 ahead: after (wrapped)");
    CHECK(psn_lt(0x123, 0x800123), "exactly 2^23 ahead counts as before (the edge of the window)");
    CHECK(psn_lt(0xAB000005, 6) && psn_lt(5, 0xFF000006), "bits above 24 are ignored");
    for (unsigned i = 0; i < 200000; i++) {
        uint32_t a = rnd(), b = i & 1 ? rnd() : a + (rnd() % 64) - 32; /* near pairs too */
        CHECK(psn_lt(a, b) == ref_before(a, b), "psn_lt(%#x, %#x)", a, b);
        CHECK(psn_le(a, b) == (ref_before(a, b) || ((a ^ b) & ROCE_PSN_MASK) == 0), "psn_le(%#x, %#x)", a, b);
        CHECK(psn_sub(psn_add(a, b), b) == (a & ROCE_PSN_MASK), "add then sub %#x %#x", a, b);
        CHECK(psn_add(a, b) <= ROCE_PSN_MASK && psn_sub(a, b) <= ROCE_PSN_MASK, "24-bit results");
    }
    group_end("PSN add/sub/compare mod 2^24: wrap at 0xFFFFFF, window edge 2^23, 200k random pairs vs the serial-number rule");
}

/* ---- MTU and packets ------------------------------------------------------------------ */
static void test_mtu(void) {
    static const unsigned bytes[6] = {256, 256, 512, 1024, 2048, 4096}; /* code 0 clamps up */
    for (unsigned p = 0; p < 256; p++) {
        unsigned want = p < 6 ? bytes[p] : 4096;
        CHECK((1u << mtu_log(p)) == want, "PathMTU code %u: %u bytes, want %u", p, 1u << mtu_log(p), want);
    }
    for (unsigned lg = 8; lg <= 12; lg++) {
        uint32_t mtu = 1u << lg;
        CHECK(mtu_packets(0, lg) == 1, "0 bytes: one packet");
        CHECK(mtu_packets(1, lg) == 1, "1 byte");
        for (uint32_t k = 1; k <= 5; k++) {
            CHECK(mtu_packets(k * mtu - 1, lg) == k, "k*MTU-1, k=%u lg=%u", k, lg);
            CHECK(mtu_packets(k * mtu, lg) == k, "exactly k*MTU, k=%u lg=%u", k, lg);
            CHECK(mtu_packets(k * mtu + 1, lg) == k + 1, "k*MTU+1, k=%u lg=%u", k, lg);
        }
        /* a 2^31-byte READ (RETH's largest) and the largest 32-bit length: no wrap */
        CHECK(mtu_packets(0x80000000u, lg) == 0x80000000u >> lg, "2^31 bytes at lg %u", lg);
        CHECK(mtu_packets(0xFFFFFFFFu, lg) == (uint32_t)(((uint64_t)1 << 32) >> lg), "2^32-1 bytes at lg %u: %u",
              lg, mtu_packets(0xFFFFFFFFu, lg));
    }
    group_end("path MTU codes 0..255 (0 -> 256, 6.. -> 4096 clamped) and packets of a message: 0 bytes, k*MTU-1, k*MTU, k*MTU+1, 2^32-1");
}

static void test_wqe(void) {
    unsigned lg = mtu_log(3); /* 1024 */
    for (uint8_t op = NIC_WR_SEND; op <= NIC_WR_WRITE_IMM; op++) {
        CHECK(wqe_psns(op, 0, lg) == 1, "op %u: zero-length message one PSN", op);
        CHECK(wqe_psns(op, 1024, lg) == 1 && wqe_psns(op, 1025, lg) == 2 && wqe_psns(op, 4096, lg) == 4,
              "op %u: a PSN per packet", op);
    }
    /* a READ is one request packet but takes a PSN per response packet it asks for */
    CHECK(wqe_psns(NIC_WR_READ, 0, lg) == 1, "READ of 0 bytes: one response, one PSN");
    CHECK(wqe_psns(NIC_WR_READ, 3 * 1024 + 1, lg) == 4, "READ of 3 MTU + 1: four responses");
    CHECK(wqe_psns(NIC_WR_READ, 1u << 31, 12) == (1u << 19), "READ of 2^31 bytes at 4096");
    for (uint32_t len = 0; len < 70000; len += 997) {
        CHECK(wqe_psns(NIC_WR_CAS, len, lg) == 1 && wqe_psns(NIC_WR_FAA, len, lg) == 1,
              "atomics one PSN whatever the length (%u)", len);
    }
    for (unsigned op = 0; op < 256; op++) {
        bool atomic = op == 5 || op == 6, reads_back = op == 4 || atomic; /* nic_if.h's WQE opcodes */
        CHECK(wr_is_atomic((uint8_t)op) == atomic, "wr_is_atomic(%u)", op);
        CHECK(wr_reads_back((uint8_t)op) == reads_back, "wr_reads_back(%u)", op);
    }
    group_end("PSNs of a WQE: SEND/WRITE a PSN per packet, READ a PSN per response (one request), CAS/FAA one; WR classes 0..255");
}

/* ---- opcode classes, against the header table of nic_types.h ---------------------------- */
static void test_opcodes(void) {
    unsigned requests = 0, responses = 0;
    for (unsigned v = 0; v < 256; v++) {
        uint8_t op = (uint8_t)v, ext = roce_ext(op);
        bool valid = (ext & ROCE_EXT_VALID) != 0;
        bool req = roce_op_is_request(op), resp = roce_op_is_response(op);
        CHECK(valid == (req || resp) && !(req && resp), "op %#x: a valid opcode is a request xor a response", v);
        requests += req;
        responses += resp;
        unsigned kinds = roce_op_is_send(op) + roce_op_is_write(op) + roce_op_is_read(op) + roce_op_is_atomic(op);
        CHECK(kinds == (req ? 1u : 0u), "op %#x: a request is exactly one of SEND/WRITE/READ/atomic", v);
        unsigned places = roce_op_is_first(op) + roce_op_is_middle(op) + roce_op_is_last(op) + roce_op_is_only(op);
        CHECK(places == ((roce_op_is_send(op) || roce_op_is_write(op)) ? 1u : 0u),
              "op %#x: a SEND/WRITE is exactly one of FIRST/MIDDLE/LAST/ONLY", v);
        /* the header table's view of the same classes (9.2 table 38) */
        CHECK(!roce_op_is_atomic(op) || (ext & ROCE_EXT_ATOMIC), "op %#x: atomic carries AtomicETH", v);
        CHECK(!req || roce_op_is_read(op) || roce_op_is_atomic(op) || (ext & ROCE_EXT_PAYLOAD),
              "op %#x: SEND/WRITE carry payload", v);
        bool reth = roce_op_is_read(op) || (roce_op_is_write(op) && (roce_op_is_first(op) || roce_op_is_only(op)));
        CHECK(((ext & ROCE_EXT_RETH) != 0) == reth, "op %#x: RETH on READ and on WRITE FIRST/ONLY only", v);
        CHECK(!resp || (ext & ROCE_EXT_AETH) || op == ROCE_OP_READ_RESPONSE_MIDDLE,
              "op %#x: a response carries AETH but READ RESPONSE MIDDLE", v);
        bool imm = (ext & ROCE_EXT_IMM) != 0;
        CHECK(!imm || roce_op_is_last(op) || roce_op_is_only(op), "op %#x: ImmDt only on LAST/ONLY", v);
    }
    CHECK(requests == 15 && responses == 6, "15 request and 6 response opcodes, got %u and %u", requests, responses);
    group_end("opcode classes for 0..255: request xor response, one operation, one place in the message, agreeing with roce_ext_table");
}

/* ---- MR ------------------------------------------------------------------------------- */
static nic_mr_row_t mr(uint64_t base, uint64_t len, uint8_t access) {
    nic_mr_row_t m = {0};
    m.base = base;
    m.len = len;
    m.key = 0x1234;
    m.pd = 7;
    m.access = access;
    m.valid = 1;
    return m;
}

static void test_mr_check(void) {
    nic_mr_row_t m = mr(0x10000, 0x1000, NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_READ);
    CHECK(mr_check(&m, 0x1234, 7, 0x10000, 0x1000, 0), "the whole region");
    CHECK(mr_check(&m, 0x1234, 7, 0x10FFF, 1, 0), "the last byte: end exactly at the MR's end");
    CHECK(!mr_check(&m, 0x1234, 7, 0x10FFF, 2, 0), "one byte past the end");
    CHECK(!mr_check(&m, 0x1234, 7, 0x10000, 0x1001, 0), "one byte too long");
    CHECK(!mr_check(&m, 0x1234, 7, 0x11000, 1, 0), "starting at the end");
    CHECK(!mr_check(&m, 0x1234, 7, 0xFFFF, 1, 0), "one byte before the base");
    CHECK(!mr_check(&m, 0x1234, 7, 0xFFFF, 2, 0), "straddling the base");
    CHECK(mr_check(&m, 0x1234, 7, 0x11000, 0, 0), "zero length at the end: touches nothing");
    CHECK(mr_check(&m, 0x9999, 9, 0, 0, NIC_ACC_REMOTE_ATOMIC), "zero length: not checked at all");
    nic_mr_row_t none = {0};
    CHECK(mr_check(&none, 0, 0, 0, 0, 0) && !mr_check(&none, 0, 0, 0, 1, 0), "an invalid (power-up) row");
    /* va + len past 2^64: the sum wraps to a small number a naive end check would accept */
    nic_mr_row_t top = mr(0xFFFFFFFFFFFFF000ull, 0xFFF, NIC_ACC_LOCAL_WRITE);
    CHECK(mr_check(&top, 0x1234, 7, 0xFFFFFFFFFFFFF000ull, 0xFFF, 0), "a region ending just below 2^64");
    CHECK(!mr_check(&top, 0x1234, 7, 0xFFFFFFFFFFFFF800ull, 0x1000, 0), "va + len wraps past 2^64");
    CHECK(!mr_check(&top, 0x1234, 7, 0xFFFFFFFFFFFFF800ull, 0xFFFFFFFFFFFFFFFFull, 0), "len 2^64 - 1");
    CHECK(!mr_check(&m, 0x1234, 7, 0x10800, 0xFFFFFFFFFFFFF900ull, 0), "va inside, len wrapping to before it");
    /* key, PD, valid */
    CHECK(!mr_check(&m, 0x1235, 7, 0x10000, 1, 0), "the key's tag byte differs");
    CHECK(!mr_check(&m, 0x1234, 8, 0x10000, 1, 0), "another PD");
    nic_mr_row_t gone = m;
    gone.valid = 0;
    CHECK(!mr_check(&gone, 0x1234, 7, 0x10000, 1, 0), "a deregistered row");
    /* access: every flag asked for must be granted; local read needs none */
    CHECK(mr_check(&m, 0x1234, 7, 0x10000, 8, NIC_ACC_LOCAL_WRITE), "LOCAL_WRITE granted");
    CHECK(mr_check(&m, 0x1234, 7, 0x10000, 8, NIC_ACC_REMOTE_READ), "REMOTE_READ granted");
    CHECK(!mr_check(&m, 0x1234, 7, 0x10000, 8, NIC_ACC_REMOTE_WRITE), "REMOTE_WRITE not granted");
    CHECK(!mr_check(&m, 0x1234, 7, 0x10000, 8, NIC_ACC_REMOTE_WRITE | NIC_ACC_LOCAL_WRITE), "one of two flags missing");
    nic_mr_row_t ro = mr(0x10000, 0x1000, 0);
    CHECK(mr_check(&ro, 0x1234, 7, 0x10000, 8, 0) && !mr_check(&ro, 0x1234, 7, 0x10000, 8, NIC_ACC_LOCAL_WRITE),
          "an MR without flags: local read only");
    for (unsigned i = 0; i < 100000; i++) { /* the range rule in 128-bit arithmetic */
        nic_mr_row_t r = mr(rnd64() >> (rnd() % 64), rnd64() >> (rnd() % 64), 0);
        uint64_t va = i & 1 ? r.base + (rnd() % 4096) - 2048 : rnd64();
        uint64_t len = rnd64() >> (rnd() % 64);
        unsigned __int128 end = (unsigned __int128)va + len, mend = (unsigned __int128)r.base + r.len;
        bool want = len == 0 || (va >= r.base && end <= mend);
        CHECK(mr_check(&r, 0x1234, 7, va, len, 0) == want, "base %#llx len %#llx: va %#llx len %#llx",
              (unsigned long long)r.base, (unsigned long long)r.len, (unsigned long long)va, (unsigned long long)len);
    }
    group_end("MR check: zero length, end exactly at the MR's end, one past, below the base, va + len past 2^64, key/PD/valid, access flags; 100k random ranges vs 128-bit arithmetic");
}

static void test_mr_rules(void) {
    for (unsigned acc = 0; acc < 256; acc++) {
        bool remote_writes = acc & (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_ATOMIC);
        bool want = acc <= 0xF && (!remote_writes || (acc & NIC_ACC_LOCAL_WRITE));
        CHECK(mr_reg_access_ok(acc) == want, "REG_MR access %#x", acc);
    }
    CHECK(!mr_reg_range_ok(0x1000, 0), "zero length refused");
    CHECK(mr_reg_range_ok(0x1000, 1) && mr_reg_range_ok(0, ~0ull), "one byte; the whole space less one");
    CHECK(mr_reg_range_ok(0xFFFFFFFFFFFFF000ull, 0xFFF), "end just below 2^64");
    CHECK(!mr_reg_range_ok(0xFFFFFFFFFFFFF000ull, 0x1000), "end at 2^64 does not fit");
    CHECK(!mr_reg_range_ok(0xFFFFFFFFFFFFF000ull, 0x2000), "end past 2^64");
    /* the row a key names, and the row NIC_CFG_MR carries (nic_if.h) */
    CHECK(nic_mr_of_key(0, 0x00FF) == 0 && nic_mr_of_key(0, 0x0100) == 1, "key >> 8 is the slot, low byte the tag");
    CHECK(nic_mr_of_key(3, 0x4000 | 0xAB) == 3 * NIC_MR_PER_FN + 0, "slot 64 wraps to 0 in function 3");
    CHECK(nic_mr_of_key(2, 0x3F00) == 2 * NIC_MR_PER_FN + 63, "slot 63 of function 2");
    nic_cfg_t g = {0};
    g.kind = NIC_CFG_MR;
    g.base = 0x1122334455667788ull;
    g.len = 0x99;
    g.key = 0xABCD;
    g.pd = 0x55;
    g.access = NIC_ACC_REMOTE_ATOMIC | NIC_ACC_LOCAL_WRITE;
    g.valid = true;
    nic_mr_row_t r = nic_cfg_mr_row(&g);
    CHECK(r.base == g.base && r.len == g.len && r.key == g.key && r.pd == g.pd && r.access == g.access && r.valid == 1 &&
              r.rsvd0 == 0 && r.rsvd1 == 0, "NIC_CFG_MR -> row, every field");
    group_end("REG_MR rules (access 0..255: known flags, remote write/atomic need local write; range: zero length, end at 2^64), MR row of a key, row of a NIC_CFG_MR");
}

int main(void) {
    prng_seed(&rng, 1);
    test_psn();
    test_mtu();
    test_wqe();
    test_opcodes();
    test_mr_check();
    test_mr_rules();
    return failures ? 1 : 0;
}
