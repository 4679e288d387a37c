/* sim_speed_test — the packet blocks' C model: a NIC receiving a frame stream must not simulate
 * slower than the NIC sending it (docs/packet-path.md, "The C model's speed").
 *
 * Why a wall-clock check: hlsnic-run runs each NIC in its own process at its own speed, joined
 * by a datagram socket with no flow control (docs/host-driver.md). A receiver whose model costs
 * more per cycle than its sender's falls behind, its socket buffer overflows and frames are
 * lost; the responder then NAKs and drops every later frame until the resend (go-back-N). The
 * live-migration test converge-off failed so (migrate-run converge: pre-copy adds to the
 * receiver's load) when roce_rx's CRC loops ran at run time, thousands of shift steps a beat.
 *
 * Two NICs' packet blocks, each stepped as the composed model steps them (both blocks every
 * cycle): the sender (roce_tx sending back-to-back 1 KiB RDMA WRITE frames, roce_rx idle) and
 * the receiver (roce_rx taking those frames, roce_tx idle). The receiver's cost per cycle must
 * be at most RATIO times the sender's: the least of ROUNDS interleaved rounds each, so the
 * machine's load hits both alike. Prints PASS/FAIL lines; exit 1 on a failure.
 *
 * Built with -O2, as the device's model is (testbench/nic/build-model): what is measured is
 * the code the simulator runs. */
#include "../roce_rx.c"
#include "../roce_tx.c"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define FRAMES 64
#define PAYLOAD 1024
#define FRAME_MAX 1200
#define ROUNDS 15
/* Measured: 1.8 (each NIC's packet blocks about 330 and 185 ns a cycle); 1.0 before issue 26
 * (3.6 us both, roce_tx building headers every cycle); 3.1 to 4.7 with roce_rx's CRC loops at
 * run time, where converge-off failed. */
#define RATIO 2.5
#define MAX_CYCLES 100000 /* per run: a stream of FRAMES takes about 1100 */

static hls_edge_queue *edges;
static hls_u512 beats[FRAMES][FRAME_MAX / 64 + 1]; /* the sender's frames, as the wire carries them */
static unsigned nbeats[FRAMES], last_bytes[FRAMES];

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* One NIC's packet blocks and the harness's cycle per block (docs/hls-c.md). */
typedef struct {
    roce_tx_state tx;
    roce_rx_state rx;
} nic_blocks;

static void step_tx(nic_blocks *n, const roce_tx_in *in, roce_tx_out *out) {
    memset(out, 0, sizeof *out);
    hls_edge_queue_bind(edges);
    roce_tx(in, out, &n->tx);
    hls_clock_edge(edges);
}

static void step_rx(nic_blocks *n, const roce_rx_in *in, roce_rx_out *out) {
    memset(out, 0, sizeof *out);
    hls_edge_queue_bind(edges);
    roce_rx(in, out, &n->rx);
    hls_clock_edge(edges);
}

/* the block with nothing to do: no input, every output taken */
static void idle_tx(nic_blocks *n) {
    roce_tx_in in;
    memset(&in, 0, sizeof in);
    in.frame_ready = in.ev_ready = true;
    roce_tx_out out;
    step_tx(n, &in, &out);
}

static void idle_rx(nic_blocks *n) {
    roce_rx_in in;
    memset(&in, 0, sizeof in);
    in.pay_ready = in.desc_ready = true;
    roce_rx_out out;
    step_rx(n, &in, &out);
}

/* The sender: FRAMES descriptors and their payload into roce_tx, its frames kept in beats[];
 * roce_rx beside it with nothing to receive. Returns the cycles taken, 0 if the frames did
 * not all come out. */
static uint64_t run_sender(void) {
    static nic_blocks n;
    memset(&n, 0, sizeof n);
    roce_hdr_t h = {0};
    h.dst_mac = 0x020000000001ull;
    h.src_mac = 0x020000000002ull;
    h.src_ip = 0x0a000002;
    h.dst_ip = 0x0a000001;
    h.ttl = 64;
    h.opcode = 0x07; /* RDMA_WRITE_MIDDLE */
    h.pkey = 0xffff;
    h.dest_qp = 16;
    h.udp_sport = 49152;
    h.payload_len = PAYLOAD;
    unsigned desc = 0, frame = 0, beat = 0, off = 0;
    uint64_t cycles = 0;
    while (frame < FRAMES && cycles < MAX_CYCLES) {
        roce_tx_in ti;
        memset(&ti, 0, sizeof ti);
        ti.desc.valid = desc < FRAMES;
        ti.desc.data = h;
        ti.desc.data.psn = desc;
        ti.pay.valid = true;
        ti.pay.data.data = ((hls_u512)0x0123456789abcdefull << 128) | (off + cycles);
        ti.pay.data.bytes = 64;
        ti.pay.data.last = off + 64 == PAYLOAD;
        ti.frame_ready = true;
        roce_tx_out to;
        step_tx(&n, &ti, &to);
        idle_rx(&n);
        if (ti.desc.valid && to.desc_ready) desc++;
        if (to.pay_ready) off = off + 64 == PAYLOAD ? 0 : off + 64;
        if (to.frame.valid && beat <= FRAME_MAX / 64) {
            beats[frame][beat++] = to.frame.data.data;
            if (to.frame.data.last) {
                nbeats[frame] = beat;
                last_bytes[frame++] = (unsigned)to.frame.data.bytes;
                beat = 0;
            }
        }
        cycles++;
    }
    return frame == FRAMES ? cycles : 0;
}

/* The receiver: the sender's frames into roce_rx back to back, roce_tx beside it with nothing
 * to send. Returns the cycles taken, 0 unless every frame's descriptor came out OK. */
static uint64_t run_receiver(void) {
    static nic_blocks n;
    memset(&n, 0, sizeof n);
    unsigned frame = 0, beat = 0, ok = 0, descs = 0;
    uint64_t cycles = 0;
    while (descs < FRAMES && cycles < MAX_CYCLES) {
        roce_rx_in ri;
        memset(&ri, 0, sizeof ri);
        ri.frame.valid = frame < FRAMES;
        if (ri.frame.valid) {
            ri.frame.data.last = beat + 1 == nbeats[frame];
            ri.frame.data.data = beats[frame][beat];
            ri.frame.data.bytes = (hls_uint(7))(ri.frame.data.last ? last_bytes[frame] : 64);
        }
        ri.pay_ready = ri.desc_ready = true;
        roce_rx_out ro;
        step_rx(&n, &ri, &ro);
        idle_tx(&n);
        if (ri.frame.valid && ro.frame_ready) {
            beat++;
            if (ri.frame.data.last) frame++, beat = 0;
        }
        if (ro.desc.valid) {
            descs++;
            ok += ro.desc.data.status == ROCE_RX_OK && ro.desc.data.hdr.payload_len == PAYLOAD;
        }
        cycles++;
    }
    return ok == FRAMES ? cycles : 0;
}

/* Wall-clock ns per cycle of one run; 0 if the run failed. */
static double ns_per_cycle(uint64_t (*run)(void)) {
    double t0 = now_ns();
    uint64_t cycles = run();
    return cycles ? (now_ns() - t0) / (double)cycles : 0;
}

int main(void) {
    edges = hls_edge_queue_new();
    double send = 1e30, recv = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        double s = ns_per_cycle(run_sender), v = ns_per_cycle(run_receiver);
        if (s == 0 || v == 0) {
            printf("FAIL sim_speed_test: the stream did not go through (%s)\n",
                   s == 0 ? "roce_tx did not send every frame" : "roce_rx did not pass every frame as OK");
            return 1;
        }
        send = s < send ? s : send;
        recv = v < recv ? v : recv;
    }
    bool pass = recv <= RATIO * send;
    printf("%s sim_speed_test: the receiving NIC's packet blocks cost %.0f ns/cycle, the sending NIC's %.0f "
           "(%.2fx; at most %.1fx, or a receiver falls behind its sender on hlsnic-run's wire)\n",
           pass ? "PASS" : "FAIL", recv, send, recv / send, RATIO);
    return pass ? 0 : 1;
}
