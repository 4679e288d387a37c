/* hostmem_test — sparse memory, DMA read latency/beats/back-pressure, outstanding limit,
 * posted-write visibility and PCIe ordering, bad requests, guards, snapshots, page bound,
 * and a random stress run against a flat reference memory. */
#include "../hostmem.h"
#include "../prng.h"
#include "tb_check.h"

#include <stdlib.h>
#include <string.h>

/* A stand-in DMA block: issues reqs[] in order on one port, records accept cycles and beats. */
typedef struct {
    uint64_t cycle;
    hostmem_resp_t r;
} beat_rec_t;

typedef struct {
    const hostmem_req_t *reqs;
    int n, next;
    uint64_t accepted[64];
    beat_rec_t beats[4096];
    int nbeats;
    uint64_t stall_mask; /* resp_ready low in cycle c when bit (c & 63) is set */
} drv_t;

static void drv_cycle(hostmem_t *m, unsigned port, drv_t *d) {
    hostmem_port_out_t o;
    hostmem_eval(m, port, &o);
    hostmem_port_in_t in = {0};
    uint64_t now = hostmem_now(m);
    if (d->next < d->n) {
        in.req_valid = true;
        in.req = d->reqs[d->next];
    }
    in.resp_ready = !((d->stall_mask >> (now & 63)) & 1);
    if (in.req_valid && o.req_ready) d->accepted[d->next++] = now;
    if (o.resp_valid && in.resp_ready && d->nbeats < 4096) d->beats[d->nbeats++] = (beat_rec_t){now, o.resp};
    hostmem_edge(m, port, &in);
}

static hostmem_req_t rd(uint64_t addr, uint32_t len, uint16_t tag) {
    hostmem_req_t q = {0};
    q.op = HOSTMEM_OP_READ;
    q.addr = addr;
    q.len = len;
    q.tag = tag;
    return q;
}
static hostmem_req_t wr(uint64_t addr, uint32_t len, uint8_t fill) {
    hostmem_req_t q = {0};
    q.op = HOSTMEM_OP_WRITE;
    q.addr = addr;
    q.len = len;
    for (uint32_t i = 0; i < len && i < 64; i++) q.data[i] = (uint8_t)(fill + i);
    return q;
}

static void test_backdoor(void) {
    tb_begin("hostmem backdoor: sparse pages, cross-page access, zero default, u64");
    hostmem_config_t c;
    hostmem_config_default(&c);
    hostmem_t *m = hostmem_new(&c);
    uint8_t b[10000], r[10000];
    for (int i = 0; i < 10000; i++) b[i] = (uint8_t)(i * 7 + 1);
    const uint64_t hi = 0xffff800012345f00ull; /* high address, straddles 3 pages */
    CHECK(hostmem_write(m, hi, b, 10000) == 0, "write");
    hostmem_read(m, hi, r, 10000);
    CHECK(!memcmp(b, r, 10000), "read back");
    CHECK(hostmem_stats(m)->page_allocs == 4, "page_allocs %llu, want 4", (unsigned long long)hostmem_stats(m)->page_allocs);
    hostmem_read(m, 0x1000, r, 100);
    int nz = 0;
    for (int i = 0; i < 100; i++) nz += r[i] != 0;
    CHECK(nz == 0 && hostmem_stats(m)->page_allocs == 4, "untouched memory reads 0 and allocates nothing");
    hostmem_write_u64(m, 0xffd, 0x1122334455667788ull); /* across a page boundary */
    CHECK(hostmem_read_u64(m, 0xffd) == 0x1122334455667788ull, "u64");
    hostmem_read(m, 0xffd, r, 1);
    CHECK(r[0] == 0x88, "little-endian");
    hostmem_fill(m, 0x5000, 0xab, 3);
    hostmem_read(m, 0x4fff, r, 5);
    CHECK(r[0] == 0 && r[1] == 0xab && r[3] == 0xab && r[4] == 0, "fill");
    hostmem_free(m);

    c.max_pages = 2;
    m = hostmem_new(&c);
    CHECK(hostmem_write_u64(m, 0, 1) == 0 && hostmem_write_u64(m, 0x1000, 1) == 0, "two pages");
    CHECK(hostmem_write_u64(m, 0x2000, 1) == -1, "third page allowed with max_pages 2");
    CHECK(hostmem_stats(m)->out_of_pages == 1 && hostmem_error(m) && strstr(hostmem_error(m), "out of pages"),
          "out-of-pages error: %s", hostmem_error(m) ? hostmem_error(m) : "(none)");
    hostmem_free(m);
    tb_end();
}

static void test_read_latency(void) {
    tb_begin("hostmem DMA read: exact latency, beats, tag, back-pressure");
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.read_latency = 5;
    hostmem_t *m = hostmem_new(&c);
    uint8_t b[300];
    for (int i = 0; i < 300; i++) b[i] = (uint8_t)(i ^ 0x5a);
    hostmem_write(m, 0x10020, b, 300);
    hostmem_req_t q[2] = {rd(0x10020, 200, 0x77), rd(0x10020 + 200, 100, 0x78)};
    drv_t d = {.reqs = q, .n = 2, .stall_mask = 1ull << 6};
    for (int i = 0; i < 20; i++) {
        drv_cycle(m, 0, &d);
        hostmem_tick(m);
    }
    CHECK(d.accepted[0] == 0 && d.accepted[1] == 1, "accepted at %llu, %llu", (unsigned long long)d.accepted[0],
          (unsigned long long)d.accepted[1]);
    /* read 0: beats in cycles 5, (6 stalled) 7, 8, 9; read 1: 10, 11 */
    const uint64_t want_cycle[6] = {5, 7, 8, 9, 10, 11};
    const uint8_t want_bytes[6] = {64, 64, 64, 8, 64, 36};
    CHECK(d.nbeats == 6, "%d beats", d.nbeats);
    for (int i = 0; i < 6 && i < d.nbeats; i++) {
        const hostmem_resp_t *r = &d.beats[i].r;
        int k = i < 4 ? i : i - 4, base = i < 4 ? 0 : 200;
        CHECK(d.beats[i].cycle == want_cycle[i] && r->bytes == want_bytes[i] && r->beat == (uint32_t)k &&
                  r->tag == (i < 4 ? 0x77 : 0x78) && r->last == (i == 3 || i == 5) && !r->err,
              "beat %d: cycle %llu bytes %u beat %u tag %#x last %d", i, (unsigned long long)d.beats[i].cycle,
              r->bytes, r->beat, r->tag, r->last);
        CHECK(!memcmp(r->data, b + base + 64 * k, r->bytes), "beat %d data", i);
    }
    const hostmem_stats_t *s = hostmem_stats(m);
    CHECK(s->reads == 2 && s->read_bytes == 300 && s->read_beats == 6 && s->resp_stall == 1 && s->req_stall == 0,
          "counters reads %llu beats %llu resp_stall %llu", (unsigned long long)s->reads,
          (unsigned long long)s->read_beats, (unsigned long long)s->resp_stall);
    CHECK(hostmem_idle(m) && hostmem_outstanding(m, 0) == 0, "not idle");
    hostmem_free(m);
    tb_end();
}

static void test_outstanding(void) {
    tb_begin("hostmem outstanding-read limit and req_ready");
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.read_latency = 10;
    c.max_outstanding = 2;
    hostmem_t *m = hostmem_new(&c);
    hostmem_req_t q[5];
    for (int i = 0; i < 5; i++) q[i] = rd(0x1000 * (uint64_t)i, 8, (uint16_t)i);
    drv_t d = {.reqs = q, .n = 5};
    for (int i = 0; i < 60; i++) {
        drv_cycle(m, 0, &d);
        hostmem_tick(m);
    }
    const uint64_t want[5] = {0, 1, 11, 12, 22};
    for (int i = 0; i < 5; i++)
        CHECK(d.accepted[i] == want[i], "read %d accepted at %llu, want %llu", i, (unsigned long long)d.accepted[i],
              (unsigned long long)want[i]);
    CHECK(hostmem_stats(m)->outstanding_max == 2 && hostmem_stats(m)->req_stall == 18,
          "outstanding_max %u, req_stall %llu (want 2, 18)", hostmem_stats(m)->outstanding_max,
          (unsigned long long)hostmem_stats(m)->req_stall);
    CHECK(d.nbeats == 5 && d.beats[4].cycle == 32, "last beat at %llu", (unsigned long long)d.beats[4].cycle);
    hostmem_free(m);
    tb_end();
}

static void test_ordering(void) {
    tb_begin("hostmem posted writes: host visibility after write_latency, a read never passes a write");
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.read_latency = 3;
    c.write_latency = 20;
    hostmem_t *m = hostmem_new(&c);
    hostmem_write_u64(m, 0x100, 0x1111111111111111ull);
    hostmem_req_t q[2] = {wr(0x100, 8, 0xa0), rd(0x100, 8, 1)};
    drv_t d = {.reqs = q, .n = 2};
    uint64_t visible_from = 0;
    for (int i = 0; i < 40; i++) {
        drv_cycle(m, 0, &d);
        if (!visible_from && hostmem_read_u64(m, 0x100) != 0x1111111111111111ull) visible_from = hostmem_now(m);
        hostmem_tick(m);
    }
    CHECK(d.accepted[0] == 0 && d.accepted[1] == 1 && d.nbeats == 1 && d.beats[0].cycle == 4, "timing");
    CHECK(d.beats[0].r.data[0] == 0xa0 && d.beats[0].r.data[7] == 0xa7, "read returned %#x: it passed the write",
          d.beats[0].r.data[0]);
    CHECK(visible_from == 21, "host sees the write from cycle %llu, want 21", (unsigned long long)visible_from);
    CHECK(hostmem_stats(m)->writes == 1 && hostmem_stats(m)->writes_applied == 1 && hostmem_stats(m)->write_bytes == 8,
          "write counters");
    hostmem_free(m);
    tb_end();

    tb_begin("hostmem a later write: strict mode reads old data, writes_pass_reads reads new");
    for (int mode = 0; mode < 2; mode++) {
        hostmem_config_default(&c);
        c.read_latency = 10;
        c.write_latency = 2;
        c.writes_pass_reads = mode;
        m = hostmem_new(&c);
        hostmem_fill(m, 0x200, 0x33, 64);
        hostmem_req_t q2[2] = {rd(0x200, 64, 5), wr(0x220, 4, 0xc0)};
        drv_t d2 = {.reqs = q2, .n = 2};
        for (int i = 0; i < 30; i++) {
            drv_cycle(m, 0, &d2);
            hostmem_tick(m);
        }
        const uint8_t *got = d2.beats[0].r.data;
        if (mode == 0)
            CHECK(d2.nbeats == 1 && got[0x20] == 0x33 && got[0x23] == 0x33, "strict: read saw the later write");
        else
            CHECK(d2.nbeats == 1 && got[0x20] == 0xc0 && got[0x23] == 0xc3 && got[0x1f] == 0x33 && got[0x24] == 0x33,
                  "writes_pass_reads: read did not see the later write");
        hostmem_free(m);
    }
    tb_end();

    tb_begin("hostmem writes apply in order; same-edge writes of two ports in port order");
    hostmem_config_default(&c);
    c.nports = 2;
    c.write_latency = 1;
    m = hostmem_new(&c);
    hostmem_req_t a[2] = {wr(0x300, 8, 0x10), wr(0x304, 8, 0x20)};
    hostmem_req_t b[1] = {wr(0x300, 2, 0x90)};
    drv_t da = {.reqs = a, .n = 2}, db = {.reqs = b, .n = 1};
    for (int i = 0; i < 10; i++) {
        drv_cycle(m, 0, &da);
        drv_cycle(m, 1, &db);
        hostmem_tick(m);
    }
    uint8_t r[12];
    hostmem_read(m, 0x300, r, 12);
    /* cycle 0: port 0 writes 10..17 at 0x300, port 1 then 90 91 at 0x300; cycle 1: port 0 20..27 at 0x304 */
    const uint8_t want[12] = {0x90, 0x91, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27};
    CHECK(!memcmp(r, want, 12), "memory %02x %02x %02x %02x %02x", r[0], r[1], r[2], r[3], r[4]);
    hostmem_free(m);
    tb_end();
}

static void test_bad(void) {
    tb_begin("hostmem malformed requests: error beat, dropped write, message");
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.max_read_bytes = 512;
    hostmem_t *m = hostmem_new(&c);
    hostmem_req_t q[4] = {rd(0, 0, 1), rd(0, 513, 2), wr(0x40, 65, 0), rd(0x40, 4, 3)};
    drv_t d = {.reqs = q, .n = 4};
    for (int i = 0; i < 20; i++) {
        drv_cycle(m, 0, &d);
        hostmem_tick(m);
    }
    CHECK(d.nbeats == 3 && d.beats[0].r.err && d.beats[0].r.tag == 1 && d.beats[0].r.last && d.beats[1].r.err &&
              d.beats[1].r.tag == 2 && !d.beats[2].r.err && d.beats[2].r.bytes == 4,
          "beats %d", d.nbeats);
    CHECK(hostmem_stats(m)->bad_requests == 3 && hostmem_stats(m)->writes == 0 && hostmem_stats(m)->page_allocs == 0,
          "bad_requests %llu", (unsigned long long)hostmem_stats(m)->bad_requests);
    CHECK(hostmem_error(m) && strstr(hostmem_error(m), "len 0"), "first error: %s", hostmem_error(m));
    hostmem_free(m);
    tb_end();
}

static void test_guard_snap(void) {
    tb_begin("hostmem guard regions: DMA write outside the target is caught, with cycle and address");
    hostmem_config_t c;
    hostmem_config_default(&c);
    hostmem_t *m = hostmem_new(&c);
    const uint64_t G = 0x7f0000000000ull;
    CHECK(hostmem_guard_fill(m, G, 4096, 42) == 0 && hostmem_guard_target(m, G + 1024, 256) == 0, "setup");
    CHECK(hostmem_guard_check(m, NULL, 0) == 0 && hostmem_guard_first(m) == NULL, "fresh guard dirty");
    hostmem_req_t q[3];
    q[0] = wr(G + 1024, 64, 0);  /* inside the target */
    q[1] = wr(G + 1280 - 54, 64, 0); /* last 10 bytes overrun the target */
    for (int i = 0; i < 64; i++) q[1].data[i] = (uint8_t)~hostmem_guard_byte(42, G + 1280 - 54 + (uint64_t)i);
    q[2] = wr(G + 1100, 8, 1);
    drv_t d = {.reqs = q, .n = 3};
    for (int i = 0; i < 5; i++) {
        if (i == 1) CHECK(hostmem_stats(m)->guard_violations == 0, "write into the target flagged");
        drv_cycle(m, 0, &d);
        hostmem_tick(m);
    }
    CHECK(hostmem_stats(m)->guard_violations == 1, "guard_violations %llu", (unsigned long long)hostmem_stats(m)->guard_violations);
    const char *msg = hostmem_guard_first(m);
    CHECK(msg && strstr(msg, "cycle 1 port 0") && strstr(msg, "10 guard byte") && strstr(msg, "0x7f0000000500"),
          "message: %s", msg ? msg : "(none)");
    hostmem_diff_t df[16];
    size_t n = hostmem_guard_check(m, df, 16);
    CHECK(n == 10 && df[0].addr == G + 1280 && df[9].addr == G + 1289 && (df[0].a ^ df[0].b) == 0xff, "check found %zu", n);
    uint8_t x = 0;
    hostmem_read(m, G + 5, &x, 1);
    x ^= 1;
    hostmem_write(m, G + 5, &x, 1); /* a backdoor scribble is found by the scan too */
    CHECK(hostmem_guard_check(m, df, 16) == 11 && df[0].addr == G + 5, "backdoor change not found");
    hostmem_free(m);
    tb_end();

    tb_begin("hostmem snapshot/compare and diff of two memories");
    m = hostmem_new(&c);
    hostmem_t *gold = hostmem_new(&c);
    hostmem_write_u64(m, 0x1000, 0xdeadbeefull);
    hostmem_write_u64(gold, 0x1000, 0xdeadbeefull);
    hostmem_snap_t *s = hostmem_snapshot(m);
    CHECK(hostmem_compare(s, m, NULL, 0) == 0 && hostmem_diff(m, gold, NULL, 0) == 0, "equal");
    uint8_t z[16] = {0};
    hostmem_write(gold, 0x900000, z, 16); /* zeros on a fresh page equal untouched memory */
    CHECK(hostmem_diff(m, gold, NULL, 0) == 0, "zero page differs from untouched");
    hostmem_req_t q2[2] = {wr(0x1001, 2, 0x40), wr(0x20000, 1, 0x99)};
    drv_t d2 = {.reqs = q2, .n = 2};
    for (int i = 0; i < 5; i++) {
        drv_cycle(m, 0, &d2);
        hostmem_tick(m);
    }
    hostmem_diff_t df2[8];
    size_t nd = hostmem_compare(s, m, df2, 8);
    CHECK(nd == 3 && df2[0].addr == 0x1001 && df2[0].a == 0xbe && df2[0].b == 0x40 && df2[1].addr == 0x1002 &&
              df2[1].a == 0xad && df2[1].b == 0x41 && df2[2].addr == 0x20000 && df2[2].a == 0 && df2[2].b == 0x99,
          "compare: %zu diffs", nd);
    CHECK(hostmem_diff(m, gold, df2, 1) == 3 && df2[0].addr == 0x1001, "diff vs golden");
    hostmem_snap_free(s);
    hostmem_free(m);
    hostmem_free(gold);
    tb_end();
}

/* Random traffic on 2 ports with random back-pressure against a flat reference memory,
 * strict ordering: a read returns the reference at its acceptance, writes applied in order. */
static void test_stress(void) {
    tb_begin("hostmem random stress vs reference memory (2 ports, 2*10^4 requests, back-pressure)");
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.nports = 2;
    c.read_latency = 7;
    c.write_latency = 5;
    c.max_outstanding = 3;
    c.write_queue = 4;
    hostmem_t *m = hostmem_new(&c);
    enum { SPAN = 8192, NREQ = 10000 };
    static uint8_t ref[SPAN];
    static uint8_t expect[2][4][4096];
    static uint32_t exp_len[2][4];
    int exp_head[2] = {0, 0}, exp_n[2] = {0, 0};
    uint32_t recv_off[2] = {0, 0};
    prng_t r;
    prng_seed(&r, 2024);
    hostmem_req_t cur[2];
    int issued[2] = {0, 0};
    bool have[2] = {false, false};
    uint64_t bad = 0, beats = 0;
    const uint64_t base = 0x40000000ull;
    for (uint64_t cyc = 0; cyc < 200000 && (issued[0] < NREQ || issued[1] < NREQ || !hostmem_idle(m)); cyc++) {
        hostmem_port_in_t in[2];
        hostmem_port_out_t o[2];
        for (unsigned p = 0; p < 2; p++) {
            hostmem_eval(m, p, &o[p]);
            memset(&in[p], 0, sizeof in[p]);
            if (!have[p] && issued[p] < NREQ && prng_chance(&r, prng_threshold(0.7))) {
                uint64_t off = prng_below(&r, SPAN - 600);
                if (prng_chance(&r, prng_threshold(0.5))) {
                    cur[p] = rd(base + off, 1 + (uint32_t)prng_below(&r, 512), (uint16_t)issued[p]);
                } else {
                    cur[p] = wr(base + off, 1 + (uint32_t)prng_below(&r, 64), 0);
                    prng_fill(&r, cur[p].data, 64);
                }
                have[p] = true;
            }
            in[p].req_valid = have[p];
            in[p].req = cur[p];
            in[p].resp_ready = prng_chance(&r, prng_threshold(0.8));
        }
        for (unsigned p = 0; p < 2; p++) { /* the edge, in port order like the model */
            if (o[p].resp_valid && in[p].resp_ready) {
                beats++;
                int e = exp_head[p];
                if (!exp_n[p] || memcmp(o[p].resp.data, expect[p][e] + recv_off[p], o[p].resp.bytes)) bad++;
                recv_off[p] += o[p].resp.bytes;
                if (o[p].resp.last) {
                    if (recv_off[p] != exp_len[p][e]) bad++;
                    recv_off[p] = 0;
                    exp_head[p] = (e + 1) % 4;
                    exp_n[p]--;
                }
            }
            if (have[p] && o[p].req_ready) {
                uint64_t off = cur[p].addr - base;
                if (cur[p].op == HOSTMEM_OP_WRITE) {
                    memcpy(ref + off, cur[p].data, cur[p].len);
                } else {
                    if (exp_n[p] >= 3) bad++; /* more than max_outstanding accepted */
                    int e = (exp_head[p] + exp_n[p]++) % 4;
                    memcpy(expect[p][e], ref + off, cur[p].len);
                    exp_len[p][e] = cur[p].len;
                }
                have[p] = false;
                issued[p]++;
            }
            hostmem_edge(m, p, &in[p]);
        }
        hostmem_tick(m);
    }
    static uint8_t got[SPAN];
    hostmem_read(m, base, got, SPAN);
    const hostmem_stats_t *s = hostmem_stats(m);
    CHECK(issued[0] == NREQ && issued[1] == NREQ && hostmem_idle(m), "did not finish: %d %d", issued[0], issued[1]);
    CHECK(bad == 0, "%llu mismatches in %llu beats", (unsigned long long)bad, (unsigned long long)beats);
    CHECK(!memcmp(got, ref, SPAN), "final memory differs from the reference");
    CHECK(s->read_beats == beats && s->outstanding_max == 3 && s->req_stall > 0 && s->resp_stall > 0 &&
              s->reads + s->writes == 2 * NREQ,
          "counters");
    hostmem_free(m);
    tb_end();
}

int main(void) {
    test_backdoor();
    test_read_latency();
    test_outstanding();
    test_ordering();
    test_bad();
    test_guard_snap();
    test_stress();
    return tb_exit();
}
