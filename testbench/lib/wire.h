/* wire.h — a cycle-driven, seeded model of the Ethernet link(s) between NICs.
 *
 * Frames are byte arrays (destination MAC onward, no preamble/FCS, docs/nic-architecture.md),
 * 1..max_frame bytes. A frame handed to wire_send() at cycle `now` on port p is serialised by
 * p's transmitter at bytes_per_cycle, crosses the link in latency_cycles, and becomes
 * receivable on the peer port at its due cycle:
 *
 *     start = max(now, transmitter of p free)          (frames of one port queue behind each other)
 *     done  = start + ceil((len + overhead_bytes) / bytes_per_cycle)   (0 if bytes_per_cycle == 0)
 *     due   = done + latency_cycles [+ a random extra delay if reordered]
 *
 * wire_recv(w, q, ..., now) hands out the frames for port q whose due cycle is <= now, in
 * order of (due cycle, send sequence). Nothing happens between calls: the model is a pure
 * function of the call sequence, the configuration and the seed (docs/testbench.md).
 *
 * Impairments, each an independent Bernoulli trial with its own PRNG stream, so changing one
 * probability never changes another's pattern:
 *   loss      the frame is transmitted (occupies the transmitter) but never delivered
 *   dup       an extra copy is delivered dup_delay_cycles after the original
 *   reorder   the copy is held back by an extra delay uniform in [1, reorder_max_cycles], so
 *             frames sent after it may overtake it
 *   corrupt   1..corrupt_max_bits distinct random bits of the copy are flipped
 * Pause windows [start, end) per destination port: a frame whose due cycle falls in the window
 * is dropped (WIRE_PAUSE_DROP) or held until `end` (WIRE_PAUSE_HOLD) — a peer suspended for
 * migration, or a link that is down.
 *
 * Point-to-point: wire_new(), ports 0 and 1, port 0 sends to 1 and 1 to 0.
 * Switch: wire_switch_new(), ports 0..nports-1, a learning switch: a frame's source MAC is
 * learned on its ingress port; a unicast to a learned MAC goes to that port (dropped if that is
 * the ingress port), broadcast/multicast and unknown unicast are flooded to every other port.
 * Each egress port is its own serial resource too (frames to one port queue behind each other).
 *
 * Memory is bounded: pool_frames slots of max_frame bytes, allocated once by wire_new().
 */
#ifndef TB_WIRE_H
#define TB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_MAX_FRAME 9216u    /* the largest frame the model accepts (jumbo) */
#define WIRE_MAX_PORTS 64u
#define WIRE_MAX_PAUSE 16u      /* pause windows per wire */

/* Return codes (negative) of wire_send / wire_recv / wire_pause. */
enum {
    WIRE_OK = 0,
    WIRE_ERR_PORT = -1,       /* port number out of range */
    WIRE_ERR_SIZE = -2,       /* frame length 0 or > max_frame */
    WIRE_ERR_POOL_FULL = -3,  /* no free frame slot: the wire is unchanged, retry after wire_recv */
    WIRE_ERR_TIME = -4,       /* wire_send on a port with `now` earlier than its previous send */
    WIRE_ERR_CAP = -5,        /* wire_recv buffer too small: *len is set, the frame stays queued */
    WIRE_ERR_CONFIG = -6,     /* bad argument to wire_pause */
};

typedef enum { WIRE_PAUSE_DROP = 1, WIRE_PAUSE_HOLD = 2 } wire_pause_mode_t;

typedef struct {
    uint64_t start, end;      /* cycles, window is [start, end) */
    wire_pause_mode_t mode;
    uint64_t port_mask;       /* destination ports affected (bit q = port q); 0 means all */
} wire_pause_t;

typedef struct {
    uint64_t seed;
    uint64_t latency_cycles;   /* fixed propagation latency after serialisation */
    uint32_t bytes_per_cycle;  /* serialisation rate; 0 = instantaneous. 64 = one 512-bit beat
                                  per cycle; 50 Gb/s at 250 MHz = 25 */
    uint32_t overhead_bytes;   /* per-frame wire overhead counted in serialisation (e.g. 24:
                                  preamble 8 + FCS 4 + IFG 12); not delivered */
    double p_loss, p_dup, p_reorder, p_corrupt;  /* per frame (loss, dup) or per copy */
    uint64_t dup_delay_cycles;     /* extra delay of a duplicate copy (0: right after it) */
    uint64_t reorder_max_cycles;   /* max extra delay of a reordered copy; 0 -> 64 */
    uint32_t corrupt_max_bits;     /* a corrupted copy gets 1..this many bit flips; 0 -> 1 */
    wire_pause_t pause[WIRE_MAX_PAUSE];  /* windows with end > start are active */
    uint32_t pool_frames;      /* frame slots (copies in flight); 0 -> 1024 */
    bool tail_drop;            /* a send the pool cannot hold is dropped, as a switch with a full
                                  buffer drops it: captured as sent, counted in buffer_dropped,
                                  wire_send returns WIRE_OK. Off: refused (WIRE_ERR_POOL_FULL). */
    uint32_t max_frame;        /* 0 -> WIRE_MAX_FRAME */
    const char *pcap_sent;     /* optional: every frame accepted by wire_send, at its send cycle */
    const char *pcap_delivered;/* optional: every frame wire_recv hands out, at its due cycle */
    uint32_t ns_per_cycle;     /* pcap timestamps: cycle * this; 0 -> 4 (250 MHz) */
} wire_config_t;

/* Counters. A "copy" is one delivery candidate: one per frame on a point-to-point wire,
 * one per egress port for a flooded frame, plus one per duplicate. */
typedef struct {
    uint64_t sent;            /* frames accepted by wire_send */
    uint64_t sent_bytes;
    uint64_t lost;            /* frames removed by the loss impairment */
    uint64_t duplicated;      /* extra copies created by the dup impairment */
    uint64_t reordered;       /* copies held back by the reorder impairment */
    uint64_t corrupted;       /* copies with flipped bits */
    uint64_t bits_flipped;    /* total bits flipped */
    uint64_t pause_dropped;   /* copies dropped by a DROP pause window */
    uint64_t pause_held;      /* copies delayed by a HOLD pause window */
    uint64_t delivered;       /* copies handed out by wire_recv */
    uint64_t delivered_bytes;
    uint64_t out_of_order;    /* deliveries on a port whose send sequence is lower than one
                                 already delivered on that port (the observable reordering) */
    uint64_t pool_full;       /* wire_send calls refused with WIRE_ERR_POOL_FULL */
    uint64_t buffer_dropped;  /* frames dropped because the pool was full (tail_drop) */
    uint64_t switch_flooded;  /* frames flooded (broadcast/multicast/unknown) by a switch */
    uint64_t switch_filtered; /* frames a switch dropped because the destination is the ingress */
    uint32_t pool_in_use;     /* slots currently holding a copy */
    uint32_t pool_high_water; /* most slots ever in use */
} wire_stats_t;

/* Per-delivery information from wire_recv_ex. */
enum {
    WIRE_F_DUP = 1,       /* this copy is the duplicate */
    WIRE_F_REORDER = 2,   /* held back by the reorder impairment */
    WIRE_F_CORRUPT = 4,   /* bits flipped (bits_flipped of them) */
    WIRE_F_HELD = 8,      /* delayed by a HOLD pause window */
    WIRE_F_FLOOD = 16,    /* a switch flooded the frame */
};
typedef struct {
    uint64_t seq;         /* send sequence: the n-th frame accepted by wire_send on this wire, from 0 */
    uint32_t src_port;
    uint32_t flags;
    uint32_t bits_flipped;
    uint64_t sent_cycle;  /* `now` of the wire_send */
    uint64_t due_cycle;   /* when it became receivable (after any pause hold) */
} wire_rx_info_t;

typedef struct wire wire_t;

/* Fill *c with the defaults: no impairment, latency 0, bytes_per_cycle 64, pool 1024. */
void wire_config_default(wire_config_t *c);
/* A point-to-point link (ports 0 and 1). NULL with a message on stderr on bad config or when
 * a pcap cannot be opened. */
wire_t *wire_new(const wire_config_t *c);
/* A learning switch with nports (2..WIRE_MAX_PORTS) ports. */
wire_t *wire_switch_new(const wire_config_t *c, unsigned nports);
/* Frees the wire and closes its pcaps. */
void wire_free(wire_t *w);

/* Send one frame from `port` at cycle `now`. WIRE_OK or a negative WIRE_ERR_*. */
int wire_send(wire_t *w, unsigned port, const uint8_t *frame, size_t len, uint64_t now);
/* Receive the next frame due at or before `now` on `port`: 1 and the frame in buf[0..*len),
 * 0 if none is due, or a negative WIRE_ERR_*. */
int wire_recv(wire_t *w, unsigned port, uint8_t *buf, size_t cap, size_t *len, uint64_t now);
/* The same, also filling *info (may be NULL). */
int wire_recv_ex(wire_t *w, unsigned port, uint8_t *buf, size_t cap, size_t *len, uint64_t now,
                 wire_rx_info_t *info);

/* Add a pause window at run time (up to WIRE_MAX_PAUSE in all). It applies to every copy
 * not yet handed out, including those already in flight. */
int wire_pause(wire_t *w, uint64_t start, uint64_t end, wire_pause_mode_t mode, uint64_t port_mask);

/* Earliest due cycle of a queued copy for `port` (ignoring pause windows: a HOLD may move it
 * later), or UINT64_MAX if none. For event-skipping testbenches. */
uint64_t wire_next_due(const wire_t *w, unsigned port);
/* First cycle at which `port`'s transmitter is free (a NIC can back-pressure its TX on this). */
uint64_t wire_tx_free(const wire_t *w, unsigned port);
/* Copies in flight (queued, not yet handed out). */
unsigned wire_in_flight(const wire_t *w);
/* Free frame slots. */
unsigned wire_pool_free(const wire_t *w);
/* Whether `port`'s sender may start a frame at `now`, as a MAC with a TX FIFO of fifo_bytes
 * decides: the transmitter's backlog (bytes not yet serialised) is at most fifo_bytes. A sender
 * that waits for this never queues without bound on its own link. */
bool wire_tx_ready(const wire_t *w, unsigned port, uint64_t now, uint32_t fifo_bytes);

const wire_stats_t *wire_stats(const wire_t *w);
unsigned wire_nports(const wire_t *w);
/* Text of a WIRE_ERR_* code, and the last error with its details (e.g. the pool size). */
const char *wire_strerror(int code);
const char *wire_last_error(const wire_t *w);

#endif /* TB_WIRE_H */
