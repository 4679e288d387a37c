/* wire_test — the Ethernet link/switch model: exact timing without impairments, determinism,
 * impairment rates, pause windows, pool exhaustion, errors, the learning switch, pcap capture. */
#include "../pcap.h"
#include "../prng.h"
#include "../wire.h"
#include "tb_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1ull << 40) /* "now" far in the future: drain everything */

/* A frame whose bytes are a function of (tag, len): bytes 0..7 the tag, then pseudo-random. */
static void make_frame(uint8_t *f, size_t len, uint64_t tag) {
    prng_t r;
    prng_seed(&r, tag * 1000003u + len);
    prng_fill(&r, f, len);
    for (size_t i = 0; i < 8 && i < len; i++) f[i] = (uint8_t)(tag >> (8 * i));
}

static int within(uint64_t count, uint64_t n, double p, double *mu, double *tol) {
    *mu = n * p;
    *tol = 5 * sqrt(n * p * (1 - p)) + 1;
    return fabs((double)count - *mu) < *tol;
}

/* One delivery, recorded for sequence comparisons. */
typedef struct {
    uint64_t seq, due, cycle, hash;
    uint32_t flags, len;
} rec_t;

static uint64_t fnv(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint8_t buf[WIRE_MAX_FRAME], fr[WIRE_MAX_FRAME];

/* Send n frames 0->1 (and some 1->0) every `gap` cycles with pseudo-random lengths; poll port 1
 * every cycle in between; record deliveries. Returns number recorded. */
static size_t run_traffic(wire_t *w, uint64_t n, uint64_t gap, rec_t *rec, size_t cap) {
    size_t k = 0;
    prng_t lr;
    prng_seed(&lr, 99);
    uint64_t now = 0;
    for (uint64_t i = 0; i < n; i++) {
        size_t len = 60 + prng_below(&lr, 400);
        make_frame(fr, len, i);
        int rc = wire_send(w, 0, fr, len, now);
        if (rc) {
            printf("  run_traffic: send %llu: %s\n", (unsigned long long)i, wire_last_error(w));
            return k;
        }
        for (uint64_t t = now; t < now + gap; t++) {
            size_t l;
            wire_rx_info_t info;
            while (wire_recv_ex(w, 1, buf, sizeof buf, &l, t, &info) == 1)
                if (k < cap) rec[k++] = (rec_t){info.seq, info.due_cycle, t, fnv(buf, l), info.flags, (uint32_t)l};
        }
        now += gap;
    }
    size_t l;
    wire_rx_info_t info;
    while (wire_recv_ex(w, 1, buf, sizeof buf, &l, BIG, &info) == 1)
        if (k < cap) rec[k++] = (rec_t){info.seq, info.due_cycle, BIG, fnv(buf, l), info.flags, (uint32_t)l};
    return k;
}

static void test_exact(void) {
    tb_begin("wire zero impairment: hand-computed latency and serialisation");
    wire_config_t c;
    wire_config_default(&c);
    c.latency_cycles = 100;
    c.bytes_per_cycle = 25; /* 50 Gb/s at 250 MHz */
    wire_t *w = wire_new(&c);
    make_frame(fr, 100, 1);
    CHECK(wire_send(w, 0, fr, 100, 10) == WIRE_OK, "send");
    make_frame(fr, 50, 2);
    CHECK(wire_send(w, 0, fr, 50, 11) == WIRE_OK, "send");  /* queues behind: starts at 14 */
    make_frame(fr, 60, 3);
    CHECK(wire_send(w, 1, fr, 60, 11) == WIRE_OK, "send");  /* other direction: independent */
    CHECK(wire_tx_free(w, 0) == 16, "tx_free(0) = %llu, want 16", (unsigned long long)wire_tx_free(w, 0));
    CHECK(wire_next_due(w, 1) == 114, "next_due(1) = %llu", (unsigned long long)wire_next_due(w, 1));
    /* expected: frame 1 due 10+4+100 = 114, frame 2 due 14+2+100 = 116; frame 3 due 11+3+100 = 114 */
    uint64_t got1[2] = {0, 0}, got0 = 0;
    int n1 = 0, n0 = 0;
    for (uint64_t t = 0; t < 200; t++) {
        size_t l;
        while (wire_recv(w, 1, buf, sizeof buf, &l, t) == 1) {
            make_frame(fr, n1 == 0 ? 100 : 50, (uint64_t)n1 + 1);
            CHECK(n1 < 2 && l == (n1 == 0 ? 100u : 50u) && !memcmp(buf, fr, l), "port 1 frame %d wrong", n1);
            if (n1 < 2) got1[n1] = t;
            n1++;
        }
        while (wire_recv(w, 0, buf, sizeof buf, &l, t) == 1) {
            make_frame(fr, 60, 3);
            CHECK(l == 60 && !memcmp(buf, fr, 60), "port 0 frame wrong");
            got0 = t;
            n0++;
        }
    }
    CHECK(n1 == 2 && n0 == 1, "delivered %d + %d frames", n1, n0);
    CHECK(got1[0] == 114 && got1[1] == 116 && got0 == 114, "delivered at %llu, %llu, %llu; want 114, 116, 114",
          (unsigned long long)got1[0], (unsigned long long)got1[1], (unsigned long long)got0);
    const wire_stats_t *s = wire_stats(w);
    CHECK(s->sent == 3 && s->delivered == 3 && s->sent_bytes == 210 && s->delivered_bytes == 210 && !s->lost &&
              !s->duplicated && !s->reordered && !s->corrupted && !s->out_of_order && s->pool_in_use == 0 &&
              s->pool_high_water == 3,
          "counters");
    wire_free(w);

    /* overhead bytes and instantaneous serialisation */
    wire_config_default(&c);
    c.latency_cycles = 7;
    c.bytes_per_cycle = 64;
    c.overhead_bytes = 24;
    w = wire_new(&c);
    make_frame(fr, 64, 9);
    wire_send(w, 1, fr, 64, 0); /* (64+24)/64 -> 2 cycles */
    CHECK(wire_next_due(w, 0) == 9, "with overhead: due %llu, want 9", (unsigned long long)wire_next_due(w, 0));
    wire_free(w);
    c.bytes_per_cycle = 0;
    w = wire_new(&c);
    wire_send(w, 0, fr, 64, 5);
    wire_send(w, 0, fr, 64, 5);
    CHECK(wire_next_due(w, 1) == 12 && wire_in_flight(w) == 2, "infinite rate: due %llu",
          (unsigned long long)wire_next_due(w, 1));
    size_t l;
    CHECK(wire_recv(w, 1, buf, sizeof buf, &l, 11) == 0, "delivered early");
    wire_free(w);
    tb_end();

    tb_begin("wire zero impairment: 10^4 random frames exact, in order, on time");
    wire_config_default(&c);
    c.latency_cycles = 33;
    c.bytes_per_cycle = 25;
    w = wire_new(&c);
    static rec_t rec[200000];
    size_t k = run_traffic(w, 10000, 20, rec, 200000);
    CHECK(k == 10000, "delivered %zu", k);
    /* reference timing computed here from the formula */
    prng_t lr;
    prng_seed(&lr, 99);
    uint64_t txf = 0;
    for (size_t i = 0; i < k; i++) {
        size_t len = 60 + prng_below(&lr, 400);
        uint64_t now = 20 * i, start = now > txf ? now : txf;
        txf = start + (len + 24) / 25;
        uint64_t due = txf + 33;
        make_frame(fr, len, i);
        CHECK(rec[i].seq == i && rec[i].len == len && rec[i].hash == fnv(fr, len) && rec[i].flags == 0,
              "delivery %zu: seq %llu", i, (unsigned long long)rec[i].seq);
        uint64_t seen_at = due < 20 * k ? due : BIG; /* the last ones come out in the final drain */
        CHECK(rec[i].due == due && rec[i].cycle == seen_at, "frame %zu: due %llu, seen at %llu, want %llu", i,
              (unsigned long long)rec[i].due, (unsigned long long)rec[i].cycle, (unsigned long long)due);
        if (tb_cur_fail) break;
    }
    wire_free(w);
    tb_end();
}

static wire_config_t impaired(uint64_t seed) {
    wire_config_t c;
    wire_config_default(&c);
    c.seed = seed;
    c.latency_cycles = 10;
    c.bytes_per_cycle = 64;
    c.p_loss = 0.01;
    c.p_dup = 0.02;
    c.p_reorder = 0.03;
    c.p_corrupt = 0.05;
    c.reorder_max_cycles = 100;
    c.corrupt_max_bits = 3;
    return c;
}

static void test_determinism(void) {
    tb_begin("wire determinism: same seed same deliveries, other seed different");
    static rec_t a[30000], b[30000], d[30000];
    wire_config_t c = impaired(1234);
    wire_t *w = wire_new(&c);
    size_t na = run_traffic(w, 20000, 8, a, 30000);
    wire_free(w);
    w = wire_new(&c);
    size_t nb = run_traffic(w, 20000, 8, b, 30000);
    wire_free(w);
    c = impaired(1235);
    w = wire_new(&c);
    size_t nd = run_traffic(w, 20000, 8, d, 30000);
    wire_free(w);
    CHECK(na == nb && !memcmp(a, b, na * sizeof *a), "same seed: %zu vs %zu deliveries, or contents differ", na, nb);
    size_t n = na < nd ? na : nd, same = 0;
    for (size_t i = 0; i < n; i++) same += a[i].seq == d[i].seq && a[i].flags == d[i].flags && a[i].hash == d[i].hash;
    CHECK(na != nd || same < n, "seeds 1234 and 1235 gave identical delivery sequences");
    CHECK(same < n * 99 / 100 + 1 || na != nd, "seeds differ in only %zu of %zu deliveries", n - same, n);
    tb_end();
}

static void test_rates(void) {
    tb_begin("wire impairment rates over 10^5 frames (5 sigma) and per-copy consistency");
    wire_config_t c = impaired(77);
    wire_t *w = wire_new(&c);
    const uint64_t N = 100000;
    static uint8_t seen[100000];
    uint64_t now = 0, bits_hist[4] = {0}, reord_seen = 0, bad = 0;
    for (uint64_t i = 0; i < N; i++) {
        size_t len = 64 + (i % 64);
        make_frame(fr, len, i);
        if (wire_send(w, 0, fr, len, now)) {
            CHECK(0, "send %llu: %s", (unsigned long long)i, wire_last_error(w));
            break;
        }
        uint64_t until = now + 4;
        for (;;) {
            uint64_t t = (i + 1 == N) ? BIG : now; /* after the last send: drain everything */
            size_t l;
            wire_rx_info_t info;
            while (wire_recv_ex(w, 1, buf, sizeof buf, &l, t, &info) == 1) {
                size_t flen = 64 + (info.seq % 64);
                make_frame(fr, flen, info.seq);
                uint32_t ham = 0;
                for (size_t j = 0; j < l && l == flen; j++) ham += (uint32_t)__builtin_popcount(buf[j] ^ fr[j]);
                bool corrupt = info.flags & WIRE_F_CORRUPT;
                if (l != flen || ham != info.bits_flipped || (corrupt != (ham > 0)) || ham > 3) {
                    if (!bad) printf("  first bad: seq %llu len %zu/%zu ham %u flipped %u flags %u\n",
                                     (unsigned long long)info.seq, l, flen, ham, info.bits_flipped, info.flags);
                    bad++;
                }
                if (corrupt) bits_hist[ham & 3]++;
                uint64_t lat = info.due_cycle - info.sent_cycle; /* ser 2..3 + 10 (+ reorder, + dup 0) */
                if (info.flags & WIRE_F_REORDER) {
                    reord_seen++;
                    if (lat < 11 + 1 || lat > 12 + 100 + 4) bad++;
                } else if (lat < 11 || lat > 12 + 4) { /* ser 1..2 + 10, backlog at most a little */
                    if (!bad) printf("  first bad: seq %llu latency %llu flags %u\n", (unsigned long long)info.seq,
                                     (unsigned long long)lat, info.flags);
                    bad++;
                }
                seen[info.seq] |= (info.flags & WIRE_F_DUP) ? 2 : 1;
            }
            if (i + 1 == N || ++now == until) break;
        }
    }
    const wire_stats_t *s = wire_stats(w);
    double mu, tol;
    CHECK(s->sent == N, "sent %llu", (unsigned long long)s->sent);
    CHECK(within(s->lost, N, 0.01, &mu, &tol), "lost %llu, expected %.0f +- %.0f", (unsigned long long)s->lost, mu, tol);
    CHECK(within(s->duplicated, N - s->lost, 0.02, &mu, &tol), "duplicated %llu, expected %.0f +- %.0f",
          (unsigned long long)s->duplicated, mu, tol);
    uint64_t copies = N - s->lost + s->duplicated;
    CHECK(within(s->reordered, copies, 0.03, &mu, &tol), "reordered %llu, expected %.0f +- %.0f",
          (unsigned long long)s->reordered, mu, tol);
    CHECK(within(s->corrupted, copies, 0.05, &mu, &tol), "corrupted %llu, expected %.0f +- %.0f",
          (unsigned long long)s->corrupted, mu, tol);
    CHECK(s->delivered == copies, "delivered %llu != sent - lost + duplicated = %llu", (unsigned long long)s->delivered,
          (unsigned long long)copies);
    CHECK(bad == 0, "%llu deliveries inconsistent with their info (Hamming distance, latency)", (unsigned long long)bad);
    CHECK(reord_seen == s->reordered, "reorder flags %llu vs counter", (unsigned long long)reord_seen);
    CHECK(s->out_of_order > s->reordered / 4 && s->out_of_order > 0, "only %llu deliveries out of order",
          (unsigned long long)s->out_of_order);
    CHECK(bits_hist[1] && bits_hist[2] && bits_hist[3] && !bits_hist[0], "flip counts 1/2/3: %llu/%llu/%llu",
          (unsigned long long)bits_hist[1], (unsigned long long)bits_hist[2], (unsigned long long)bits_hist[3]);
    CHECK(s->bits_flipped == bits_hist[1] + 2 * bits_hist[2] + 3 * bits_hist[3], "bits_flipped counter");
    uint64_t nlost = 0, ndup = 0;
    for (uint64_t i = 0; i < N; i++) {
        nlost += seen[i] == 0;
        ndup += seen[i] == 3;
    }
    CHECK(nlost == s->lost && ndup == s->duplicated, "lost/dup seqs %llu/%llu vs counters",
          (unsigned long long)nlost, (unsigned long long)ndup);
    CHECK(s->pool_in_use == 0 && wire_in_flight(w) == 0, "pool not empty after drain");
    wire_free(w);
    tb_end();

    tb_begin("wire impairment streams are independent (loss pattern unchanged by p_dup, p_corrupt)");
    {
        static rec_t a[40000], b[40000];
        wire_config_t c1 = impaired(5), c2 = impaired(5);
        c1.p_dup = 0;
        c1.p_corrupt = 0;
        c1.p_reorder = 0;
        c2.p_dup = 0.3;
        c2.p_corrupt = 0.3;
        wire_t *w1 = wire_new(&c1), *w2 = wire_new(&c2);
        size_t n1 = run_traffic(w1, 20000, 8, a, 40000), n2 = run_traffic(w2, 20000, 8, b, 40000);
        static uint8_t got1[20000], got2[20000];
        memset(got1, 0, sizeof got1);
        memset(got2, 0, sizeof got2);
        for (size_t i = 0; i < n1; i++) got1[a[i].seq] = 1;
        for (size_t i = 0; i < n2; i++) got2[b[i].seq] = 1;
        CHECK(!memcmp(got1, got2, sizeof got1), "the set of lost frames changed");
        CHECK(wire_stats(w1)->lost == wire_stats(w2)->lost && wire_stats(w1)->lost > 100, "lost %llu vs %llu",
              (unsigned long long)wire_stats(w1)->lost, (unsigned long long)wire_stats(w2)->lost);
        wire_free(w1);
        wire_free(w2);
    }
    tb_end();

    tb_begin("wire loss-only and dup-only rates (p = 0.1, 10^5 frames)");
    {
        wire_config_t c1;
        wire_config_default(&c1);
        c1.seed = 9;
        c1.p_loss = 0.1;
        wire_t *w1 = wire_new(&c1);
        wire_config_t c2 = c1;
        c2.p_loss = 0;
        c2.p_dup = 0.1;
        c2.dup_delay_cycles = 3;
        wire_t *w2 = wire_new(&c2);
        uint64_t got1 = 0, got2 = 0, dup_ok = 0;
        for (uint64_t i = 0; i < N; i++) {
            make_frame(fr, 64, i);
            wire_send(w1, 0, fr, 64, i);
            wire_send(w2, 0, fr, 64, i);
            size_t l;
            wire_rx_info_t info;
            while (wire_recv(w1, 1, buf, sizeof buf, &l, i + 1) == 1) got1++;
            while (wire_recv_ex(w2, 1, buf, sizeof buf, &l, i + 4, &info) == 1) {
                got2++;
                if ((info.flags & WIRE_F_DUP) && info.due_cycle == info.sent_cycle + 1 + 3) dup_ok++;
            }
        }
        double mu, tol;
        CHECK(within(N - got1, N, 0.1, &mu, &tol) && wire_stats(w1)->lost == N - got1,
              "loss-only: %llu lost, expected %.0f +- %.0f", (unsigned long long)(N - got1), mu, tol);
        CHECK(within(got2 - N, N, 0.1, &mu, &tol) && wire_stats(w2)->duplicated == got2 - N && dup_ok == got2 - N,
              "dup-only: %llu extra (%llu with the right delay), expected %.0f +- %.0f",
              (unsigned long long)(got2 - N), (unsigned long long)dup_ok, mu, tol);
        wire_free(w1);
        wire_free(w2);
    }
    tb_end();
}

static void test_pause(void) {
    tb_begin("wire pause DROP window: exactly the frames due inside are lost");
    wire_config_t c;
    wire_config_default(&c);
    c.latency_cycles = 5;
    c.bytes_per_cycle = 64;
    c.pause[0] = (wire_pause_t){1000, 2000, WIRE_PAUSE_DROP, 1u << 1};
    wire_t *w = wire_new(&c);
    uint64_t got = 0, got0 = 0, bad = 0;
    for (uint64_t t = 0; t < 3000; t++) {
        make_frame(fr, 64, t);
        wire_send(w, 0, fr, 64, t); /* due t + 1 + 5 */
        wire_send(w, 1, fr, 64, t); /* reverse direction: not paused */
        size_t l;
        wire_rx_info_t info;
        while (wire_recv_ex(w, 1, buf, sizeof buf, &l, t, &info) == 1) {
            got++;
            if (info.due_cycle >= 1000 && info.due_cycle < 2000) bad++;
        }
        while (wire_recv(w, 0, buf, sizeof buf, &l, t) == 1) got0++;
    }
    size_t l;
    while (wire_recv(w, 1, buf, sizeof buf, &l, BIG) == 1) got++;
    while (wire_recv(w, 0, buf, sizeof buf, &l, BIG) == 1) got0++;
    CHECK(got == 2000 && bad == 0 && wire_stats(w)->pause_dropped == 1000, "port 1 got %llu (want 2000), %llu bad, dropped %llu",
          (unsigned long long)got, (unsigned long long)bad, (unsigned long long)wire_stats(w)->pause_dropped);
    CHECK(got0 == 3000, "port 0 got %llu of 3000", (unsigned long long)got0);
    wire_free(w);
    tb_end();

    tb_begin("wire pause HOLD window (added at run time): held frames arrive at its end, in order");
    wire_config_default(&c);
    c.latency_cycles = 5;
    w = wire_new(&c);
    CHECK(wire_pause(w, 100, 50, WIRE_PAUSE_HOLD, 0) == WIRE_ERR_CONFIG, "empty window accepted");
    CHECK(wire_pause(w, 100, 200, WIRE_PAUSE_HOLD, 0) == WIRE_OK, "wire_pause");
    uint64_t last_seq = 0, at200 = 0, n = 0;
    bad = 0;
    for (uint64_t t = 0; t < 400; t++) {
        make_frame(fr, 64, t);
        wire_send(w, 0, fr, 64, t); /* due t + 6 */
        wire_rx_info_t info;
        while (wire_recv_ex(w, 1, buf, sizeof buf, &l, t, &info) == 1) {
            if (n && info.seq != last_seq + 1) bad++;
            last_seq = info.seq;
            n++;
            uint64_t orig = info.sent_cycle + 6;
            bool in = orig >= 100 && orig < 200;
            if (in && (t != 200 || info.due_cycle != 200 || !(info.flags & WIRE_F_HELD))) bad++;
            if (!in && (t != orig || (info.flags & WIRE_F_HELD))) bad++;
            at200 += t == 200;
        }
        if (t >= 100 && t < 200) CHECK(wire_recv(w, 1, buf, sizeof buf, &l, t) == 0, "delivery during hold");
    }
    CHECK(bad == 0, "%llu deliveries out of order or at the wrong cycle", (unsigned long long)bad);
    CHECK(at200 == 101 && wire_stats(w)->pause_held == 100, "%llu delivered at cycle 200 (want 100 held + 1), held %llu",
          (unsigned long long)at200, (unsigned long long)wire_stats(w)->pause_held);
    CHECK(n == 394, "delivered %llu", (unsigned long long)n);
    wire_free(w);
    tb_end();
}

static void test_pool_and_errors(void) {
    tb_begin("wire frame pool exhaustion: clear error, wire unchanged, recovers");
    wire_config_t c;
    wire_config_default(&c);
    c.pool_frames = 4;
    c.latency_cycles = 10;
    wire_t *w = wire_new(&c);
    for (int i = 0; i < 4; i++) {
        make_frame(fr, 100, (uint64_t)i);
        CHECK(wire_send(w, 0, fr, 100, 0) == WIRE_OK, "send %d", i);
    }
    make_frame(fr, 100, 4);
    int rc = wire_send(w, 0, fr, 100, 0);
    CHECK(rc == WIRE_ERR_POOL_FULL, "5th send returned %d", rc);
    CHECK(strstr(wire_last_error(w), "pool full") && strstr(wire_last_error(w), "4 of 4"), "message: %s",
          wire_last_error(w));
    CHECK(wire_stats(w)->pool_full == 1 && wire_stats(w)->sent == 4 && wire_in_flight(w) == 4, "counters");
    CHECK(wire_tx_free(w, 0) == 8, "refused frame occupied the transmitter");
    size_t l;
    wire_rx_info_t info;
    CHECK(wire_recv(w, 1, buf, sizeof buf, &l, 11) == 0, "early");
    CHECK(wire_recv_ex(w, 1, buf, sizeof buf, &l, 12, &info) == 1 && info.seq == 0, "first frame at 12");
    CHECK(wire_send(w, 0, fr, 100, 12) == WIRE_OK, "send after a slot was freed");
    uint64_t seqs[5], k = 0;
    while (k < 5 && wire_recv_ex(w, 1, buf, sizeof buf, &l, BIG, &info) == 1) seqs[k++] = info.seq;
    CHECK(k == 4 && seqs[3] == 4, "refused send consumed a sequence number");
    wire_free(w);
    tb_end();

    tb_begin("wire argument errors");
    wire_config_default(&c);
    w = wire_new(&c);
    CHECK(wire_send(w, 2, fr, 64, 0) == WIRE_ERR_PORT, "port 2");
    CHECK(wire_send(w, 0, fr, 0, 0) == WIRE_ERR_SIZE, "len 0");
    static uint8_t jumbo[WIRE_MAX_FRAME + 1];
    CHECK(wire_send(w, 0, jumbo, WIRE_MAX_FRAME + 1, 0) == WIRE_ERR_SIZE, "len 9217");
    CHECK(wire_send(w, 0, jumbo, WIRE_MAX_FRAME, 10) == WIRE_OK, "jumbo 9216");
    CHECK(wire_send(w, 0, fr, 64, 9) == WIRE_ERR_TIME, "time backwards");
    uint8_t small[100];
    CHECK(wire_recv(w, 1, small, sizeof small, &l, BIG) == WIRE_ERR_CAP && l == WIRE_MAX_FRAME, "small buffer");
    CHECK(wire_recv(w, 1, buf, sizeof buf, &l, BIG) == 1 && l == WIRE_MAX_FRAME, "frame kept after WIRE_ERR_CAP");
    CHECK(wire_recv(w, 5, buf, sizeof buf, &l, BIG) == WIRE_ERR_PORT, "recv port 5");
    CHECK(strcmp(wire_strerror(WIRE_ERR_POOL_FULL), "frame pool full") == 0, "strerror");
    wire_free(w);
    c.max_frame = 20000;
    CHECK(wire_new(&c) == NULL, "max_frame 20000 accepted");
    tb_end();
}

static void put_mac(uint8_t *f, uint64_t dst, uint64_t src) {
    for (int i = 0; i < 6; i++) {
        f[i] = (uint8_t)(dst >> (8 * (5 - i)));
        f[6 + i] = (uint8_t)(src >> (8 * (5 - i)));
    }
}

static int drain_ports(wire_t *w, unsigned n, unsigned *counts) {
    int total = 0;
    size_t l;
    for (unsigned p = 0; p < n; p++) {
        counts[p] = 0;
        while (wire_recv(w, p, buf, sizeof buf, &l, BIG) == 1) counts[p]++, total++;
    }
    return total;
}

static void test_switch(void) {
    tb_begin("wire_switch: flood unknown, learn, unicast, filter, broadcast, egress contention");
    wire_config_t c;
    wire_config_default(&c);
    c.latency_cycles = 10;
    c.bytes_per_cycle = 64;
    wire_t *w = wire_switch_new(&c, 4);
    const uint64_t A = 0x020000000001, B = 0x020000000002, C = 0x020000000003;
    unsigned cnt[4];
    memset(fr, 0x55, 128);
    put_mac(fr, B, A);
    wire_send(w, 0, fr, 128, 0); /* B unknown: flood to 1,2,3 */
    CHECK(drain_ports(w, 4, cnt) == 3 && cnt[0] == 0 && cnt[1] == 1 && cnt[2] == 1 && cnt[3] == 1,
          "flood: %u %u %u %u", cnt[0], cnt[1], cnt[2], cnt[3]);
    put_mac(fr, A, B);
    wire_send(w, 1, fr, 128, 1); /* A learned on 0 */
    CHECK(drain_ports(w, 4, cnt) == 1 && cnt[0] == 1, "unicast to learned A: %u %u %u %u", cnt[0], cnt[1], cnt[2], cnt[3]);
    put_mac(fr, B, A);
    wire_send(w, 0, fr, 128, 2); /* B learned on 1 */
    CHECK(drain_ports(w, 4, cnt) == 1 && cnt[1] == 1, "unicast to learned B");
    put_mac(fr, 0xffffffffffff, C);
    wire_send(w, 3, fr, 128, 3);
    CHECK(drain_ports(w, 4, cnt) == 3 && cnt[3] == 0, "broadcast");
    put_mac(fr, C, A);
    wire_send(w, 3, fr, 128, 4); /* C is on 3: filtered */
    CHECK(drain_ports(w, 4, cnt) == 0 && wire_stats(w)->switch_filtered == 1, "filter");
    CHECK(wire_stats(w)->switch_flooded == 2, "flooded %llu", (unsigned long long)wire_stats(w)->switch_flooded);
    /* contention: A (port 0) and B (port 1) both send 128 B to C (port 3) at cycle 100 */
    put_mac(fr, C, A);
    wire_send(w, 0, fr, 128, 100);
    put_mac(fr, C, B);
    wire_send(w, 1, fr, 128, 100);
    /* ingress done 102, +10 = 112; egress 3: first 112+2 = 114, second max(112,114)+2 = 116 */
    size_t l;
    wire_rx_info_t i1, i2;
    CHECK(wire_recv_ex(w, 3, buf, sizeof buf, &l, BIG, &i1) == 1 && wire_recv_ex(w, 3, buf, sizeof buf, &l, BIG, &i2) == 1,
          "two frames at port 3");
    CHECK(i1.due_cycle == 114 && i2.due_cycle == 116 && i1.src_port == 0 && i2.src_port == 1, "dues %llu %llu",
          (unsigned long long)i1.due_cycle, (unsigned long long)i2.due_cycle);
    wire_free(w);
    CHECK(wire_switch_new(&c, 65) == NULL && wire_switch_new(&c, 1) == NULL, "bad port counts accepted");
    tb_end();
}

static void test_pcap(const char *dir) {
    tb_begin("wire pcap capture of sent and delivered frames");
    char ps[512], pd[512];
    snprintf(ps, sizeof ps, "%s/wire_sent.pcap", dir);
    snprintf(pd, sizeof pd, "%s/wire_delivered.pcap", dir);
    wire_config_t c;
    wire_config_default(&c);
    c.seed = 3;
    c.p_loss = 0.3;
    c.latency_cycles = 2;
    c.pcap_sent = ps;
    c.pcap_delivered = pd;
    wire_t *w = wire_new(&c);
    CHECK(w != NULL, "wire_new with pcaps");
    if (!w) {
        tb_end();
        return;
    }
    for (uint64_t i = 0; i < 100; i++) {
        make_frame(fr, 60 + i, i);
        wire_send(w, 0, fr, 60 + i, 10 * i);
    }
    size_t l;
    while (wire_recv(w, 1, buf, sizeof buf, &l, BIG) == 1) {
    }
    uint64_t sent = wire_stats(w)->sent, deliv = wire_stats(w)->delivered;
    wire_free(w);
    pcap_reader_t *r = pcap_open_read(ps);
    uint64_t n = 0, t, bad = 0;
    while (r && pcap_next(r, buf, sizeof buf, &l, &t) == 1) {
        make_frame(fr, 60 + n, n);
        if (l != 60 + n || memcmp(buf, fr, l) || t != 40 * n) bad++;
        n++;
    }
    if (r) pcap_close_read(r);
    CHECK(r && n == sent && n == 100 && bad == 0, "sent pcap: %llu frames, %llu bad", (unsigned long long)n,
          (unsigned long long)bad);
    r = pcap_open_read(pd);
    n = 0;
    bad = 0;
    while (r && pcap_next(r, buf, sizeof buf, &l, &t) == 1) {
        uint64_t seq = buf[0]; /* tag byte */
        make_frame(fr, 60 + seq, seq);
        if (l != 60 + seq || memcmp(buf, fr, l) || t != 4 * (10 * seq + (60 + seq + 63) / 64 + 2)) bad++;
        n++;
    }
    if (r) pcap_close_read(r);
    CHECK(r && n == deliv && n < 90 && n > 50 && bad == 0, "delivered pcap: %llu frames (stats %llu), %llu bad",
          (unsigned long long)n, (unsigned long long)deliv, (unsigned long long)bad);
    tb_end();
}

/* a sender that waits for wire_tx_ready keeps at most a FIFO's worth of backlog and is never
 * refused: the MAC pacing testbench/nic uses for a NIC's TX */
static void test_tx_ready(void) {
    tb_begin("wire_tx_ready: MAC pacing by transmitter backlog");
    wire_config_t c;
    wire_config_default(&c);
    c.bytes_per_cycle = 10;
    c.latency_cycles = 100;
    wire_t *w = wire_new(&c);
    make_frame(fr, 100, 0);
    CHECK(wire_tx_ready(w, 0, 0, 200), "idle link ready");
    CHECK(wire_send(w, 0, fr, 100, 0) == WIRE_OK && wire_send(w, 0, fr, 100, 0) == WIRE_OK, "two frames");
    CHECK(wire_send(w, 0, fr, 100, 0) == WIRE_OK, "third frame");
    /* 300 bytes queued at cycle 0: 30 cycles of backlog */
    CHECK(!wire_tx_ready(w, 0, 0, 200), "300 B backlog exceeds a 200 B FIFO");
    CHECK(!wire_tx_ready(w, 0, 9, 200), "210 B backlog at cycle 9");
    CHECK(wire_tx_ready(w, 0, 10, 200), "200 B backlog at cycle 10");
    CHECK(wire_tx_ready(w, 1, 0, 0), "the other direction is idle");
    CHECK(!wire_tx_ready(w, 2, 0, 200), "no port 2");
    wire_free(w);
    tb_end();

    tb_begin("wire tail_drop: a full pool drops the frame visibly, as a full switch buffer");
    c.pool_frames = 2;
    c.tail_drop = true;
    w = wire_new(&c);
    for (int i = 0; i < 3; i++) {
        make_frame(fr, 100, (uint64_t)i);
        CHECK(wire_send(w, 0, fr, 100, 0) == WIRE_OK, "send %d accepted", i);
    }
    CHECK(wire_stats(w)->buffer_dropped == 1 && wire_stats(w)->sent == 3 && wire_stats(w)->lost == 0 &&
              wire_stats(w)->pool_full == 0, "counters: %llu dropped", (unsigned long long)wire_stats(w)->buffer_dropped);
    CHECK(wire_tx_free(w, 0) == 30, "the dropped frame used its transmitter time");
    size_t l;
    wire_rx_info_t info;
    unsigned got = 0;
    while (got < 4 && wire_recv_ex(w, 1, buf, sizeof buf, &l, BIG, &info) == 1) got++;
    CHECK(got == 2 && info.seq == 1, "two frames delivered, the third dropped");
    CHECK(wire_pool_free(w) == 2, "pool free again");
    wire_free(w);
    tb_end();
}

int main(int argc, char **argv) {
    test_exact();
    test_tx_ready();
    test_determinism();
    test_rates();
    test_pause();
    test_pool_and_errors();
    test_switch();
    test_pcap(argc > 1 ? argv[1] : "/tmp");
    return tb_exit();
}
