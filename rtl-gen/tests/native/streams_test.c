/* streams_test — valid/ready blocks under random back-pressure:
 *  - fifo4 and skid_buffer deliver every beat once, in order, and their producer-side
 *    outputs obey the handshake (valid/data held until the beat moves);
 *  - pipe_stage_a wired straight to pipe_stage_b: no sequence or data error, and the
 *    consumer counts what the producer sent. */
#include <stdio.h>

#include "../pass/fifo4.c"
#include "../pass/pipe_stage_a.c"
#include "../pass/pipe_stage_b.c"
#include "../pass/skid_buffer.c"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static uint32_t rng = 7;
static bool coin(unsigned percent) {
    rng = rng * 1103515245u + 12345u;
    return (rng >> 16) % 100 < percent;
}

static void test_fifo4(void) {
    fifo4_state st = {0};
    uint32_t sent = 0, received = 0;  /* beat k carries k * 2654435761 */
    bool in_valid = false, order_ok = true, hold_ok = true, prev_valid = false;
    uint32_t prev_data = 0;
    for (int cyc = 0; cyc < 50000; cyc++) {
        if (!in_valid) in_valid = coin(60);  /* producer: hold valid until accepted */
        fifo4_in in = {.enq = {in_valid, sent * 2654435761u}, .deq_ready = coin(50)};
        fifo4_out out = {0};
        hls_edge_queue_bind(edges);
        fifo4(&in, &out, &st);
        hls_clock_edge(edges);
        /* output side: once valid, stays valid with the same data until taken */
        if (prev_valid && (!out.deq.valid || out.deq.data != prev_data)) hold_ok = false;
        if (out.deq.valid && in.deq_ready) {
            if (out.deq.data != received * 2654435761u) order_ok = false;
            received++;
            prev_valid = false;
        } else {
            prev_valid = out.deq.valid;
            prev_data = out.deq.data;
        }
        if (in.enq.valid && out.enq_ready) {
            sent++;
            in_valid = false;
        }
        if (out.level > 4 || out.level != sent - received + (out.deq.valid && in.deq_ready) -
                                              (in.enq.valid && out.enq_ready))
            order_ok = false;
    }
    check("fifo4/in_order_no_loss", order_ok && received > 10000 && sent - received <= 4);
    check("fifo4/output_held_until_taken", hold_ok);
}

static void test_skid(void) {
    skid_buffer_state st = {0};
    uint64_t sent = 0, received = 0;
    bool in_valid = false, ok = true, full_rate = true;
    for (int cyc = 0; cyc < 50000; cyc++) {
        bool busy_phase = cyc < 1000; /* first: downstream always ready, producer always valid */
        if (!in_valid) in_valid = busy_phase || coin(70);
        skid_buffer_in in = {.up = {in_valid, {sent * 0x9E3779B97F4A7C15ull, (hls_uint(3))sent, sent % 5 == 0}},
                             .down_ready = busy_phase || coin(40)};
        skid_buffer_out out = {0};
        hls_edge_queue_bind(edges);
        skid_buffer(&in, &out, &st);
        hls_clock_edge(edges);
        if (out.down.valid && in.down_ready) {
            if (out.down.data.data != received * 0x9E3779B97F4A7C15ull ||
                out.down.data.empty != (hls_uint(3))received ||
                out.down.data.last != (received % 5 == 0))
                ok = false;
            received++;
        }
        if (in.up.valid && out.up_ready) {
            sent++;
            in_valid = false;
        } else if (busy_phase && cyc > 0) {
            full_rate = false;
        }
    }
    check("skid_buffer/in_order_no_loss", ok && received > 10000 && sent - received <= 2);
    check("skid_buffer/full_rate_when_unblocked", full_rate);
}

static void test_pipe(void) {
    pipe_stage_a_state a = {0};
    pipe_stage_b_state b = {0};
    pipe_stage_b_out bo = {0};
    pipe_stage_a_out ao = {0};
    uint32_t moved = 0;
    bool ready_ok = true;
    for (int cyc = 0; cyc < 60000; cyc++) {
        bool draining = cyc >= 50000; /* stop producing, let everything arrive */
        bool stall = !draining && coin(30);
        pipe_stage_a_in ai = {.enable = !draining, .pkt_words = (hls_uint(4))(cyc >> 8),
                              .tx_ready = !stall};
        ao = (pipe_stage_a_out){0};
        hls_edge_queue_bind(edges); /* both stages share one clock: one queue, one edge */
        pipe_stage_a(&ai, &ao, &a);
        pipe_stage_b_in bi = {.rx = {ao.tx.valid, {ao.tx.data.seq, ao.tx.data.payload,
                                                   ao.tx.data.last}},
                              .stall = stall};
        bo = (pipe_stage_b_out){0};
        pipe_stage_b(&bi, &bo, &b);
        hls_clock_edge(edges);
        if (bo.rx_ready != !stall) ready_ok = false;
        moved += ao.tx.valid && bo.rx_ready;
    }
    check("pipe/no_sequence_or_data_error", !bo.seq_error && !bo.data_error && ready_ok);
    check("pipe/consumer_counts_match_producer",
          bo.words == moved && moved > 30000 && bo.packets == ao.packets_sent && bo.packets > 1000);
}

int main(void) {
    edges = hls_edge_queue_new();
    test_fifo4();
    test_skid();
    test_pipe();
    return failures != 0;
}
