/* hostmem.h — the host-memory model a NIC's DMA engine talks to.
 *
 * Memory: a sparse, byte-addressable 64-bit address space of 4 KiB pages, allocated on the
 * first write (reads of untouched memory return 0 and allocate nothing), at most max_pages.
 *
 * DMA ports (1..HOSTMEM_MAX_PORTS), each a pair of valid/ready streams as in docs/hls-c.md §7:
 *
 *     DMA block --req (valid, data; ready back)--> hostmem --resp (valid, data; ready back)--> DMA block
 *
 * A request is a read (addr, len 1..max_read_bytes, tag) or a write beat (addr, 1..64 bytes of
 * data). Per port:
 *  - one request moves per cycle, at an edge where req_valid && req_ready;
 *  - a write is posted: it is applied to memory in acceptance order write_latency cycles after it
 *    moved (the host CPU, i.e. hostmem_read(), sees it from then on);
 *  - a read that moved at the edge of cycle t produces its first response beat in cycle
 *    t + read_latency (read_latency >= 1), then one beat per cycle while resp_ready is high;
 *    beat i carries request bytes [64 i, 64 i + 64) (the last one short), reads answer in order;
 *  - a read is outstanding from the edge it moved until its last beat moves; at most
 *    max_outstanding per port. req_ready is low while max_outstanding reads are outstanding or
 *    the posted-write queue is full; it never depends on the request itself, so a testbench can
 *    evaluate the memory first and the DMA block second in each cycle;
 *  - ordering (PCIe, no relaxed ordering): a read never passes an earlier write: it returns
 *    memory with every write accepted before it applied (on any port; on the same edge, ports
 *    in index order). A later write may pass a read (PCIe allows posted requests to pass
 *    non-posted ones): with writes_pass_reads a read samples memory when its first beat is
 *    produced, seeing writes accepted up to then; without it, when it is accepted. A correct
 *    NIC works either way.
 *
 * Each cycle (see docs/testbench.md):
 *     hostmem_eval(m, p, &o)      outputs of port p in this cycle (from registers only)
 *     ... run the DMA block's cycle function with o as its inputs ...
 *     hostmem_edge(m, p, &i)      the block's outputs of port p (valid/data, ready)
 *     hostmem_tick(m)             the clock edge: moves beats, applies writes, cycle++
 *
 * Plus: backdoor access (the host CPU and the test, instantaneous, not DMA), snapshots and
 * diffs for golden-model checks, and guard regions that catch DMA writes where none belong.
 */
#ifndef TB_HOSTMEM_H
#define TB_HOSTMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOSTMEM_PAGE 4096u
#define HOSTMEM_BEAT 64u
#define HOSTMEM_MAX_PORTS 8u
#define HOSTMEM_MAX_GUARDS 64u
#define HOSTMEM_MAX_TARGETS 64u

enum { HOSTMEM_OP_READ = 0, HOSTMEM_OP_WRITE = 1 };

typedef struct {
    uint8_t op;                  /* HOSTMEM_OP_READ or HOSTMEM_OP_WRITE */
    uint16_t tag;                /* read: echoed in every response beat */
    uint64_t addr;
    uint32_t len;                /* read: bytes, 1..max_read_bytes; write: bytes in data, 1..64 */
    uint8_t data[HOSTMEM_BEAT];  /* write: byte i goes to addr + i */
} hostmem_req_t;

typedef struct {
    uint16_t tag;
    uint8_t data[HOSTMEM_BEAT];  /* request byte 64*beat + i */
    uint8_t bytes;               /* valid bytes, 1..64; only the last beat may be short */
    bool last;                   /* last beat of the read */
    bool err;                    /* the read was malformed (len 0 or too long); one beat, no data */
    uint32_t beat;               /* beat index within the read */
} hostmem_resp_t;

/* Inputs of a port = the DMA block's outputs. */
typedef struct {
    bool req_valid;
    hostmem_req_t req;
    bool resp_ready;
} hostmem_port_in_t;

/* Outputs of a port = the DMA block's inputs. */
typedef struct {
    bool req_ready;
    bool resp_valid;
    hostmem_resp_t resp;
} hostmem_port_out_t;

/* Optional memory backend (testbench/device: a process's real memory). When set, DMA and the
 * backdoor read and write through these callbacks instead of the sparse page store; the port
 * timing and ordering rules above are unchanged. read fills buf and returns 0, or -1 when
 * [addr, addr+len) may not be read: that DMA read answers one err beat. write returns 0, or -1
 * when it may not be written: the beat is dropped. Snapshots, diffs and guard checks look at
 * the page store only, so they see nothing of a backend. */
typedef struct {
    void *ctx;
    int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
    int (*write)(void *ctx, uint64_t addr, const void *data, size_t len);
} hostmem_backend_t;

typedef struct {
    unsigned nports;            /* 0 -> 1 */
    uint32_t read_latency;      /* cycles from request to first beat; 0 -> 1 */
    uint32_t write_latency;     /* cycles until a posted write is visible to the host (0: at the edge) */
    uint32_t max_outstanding;   /* reads per port; 0 -> 8 */
    uint32_t max_read_bytes;    /* 0 -> 4096 (PCIe max read request size) */
    uint32_t write_queue;       /* posted writes pending per port; 0 -> 256 */
    uint32_t max_pages;         /* 4 KiB pages; 0 -> 65536 (256 MiB) */
    bool writes_pass_reads;     /* see above */
    hostmem_backend_t backend;  /* all NULL: the sparse page store */
} hostmem_config_t;

typedef struct {
    uint64_t cycles;
    uint64_t reads;             /* read requests accepted */
    uint64_t read_bytes;
    uint64_t read_beats;        /* response beats moved */
    uint64_t writes;            /* write beats accepted */
    uint64_t write_bytes;
    uint64_t writes_applied;    /* posted writes applied to memory */
    uint64_t req_stall;         /* cycles with req_valid && !req_ready */
    uint64_t resp_stall;        /* cycles with resp_valid && !resp_ready */
    uint32_t outstanding_max;   /* most reads outstanding on one port at once */
    uint64_t bad_requests;      /* malformed requests (answered with err, or a write dropped) */
    uint64_t page_allocs;       /* pages allocated */
    uint64_t out_of_pages;      /* writes (DMA or backdoor) refused: max_pages reached */
    uint64_t guard_violations;  /* DMA write beats that touched a guard byte outside every target */
} hostmem_stats_t;

typedef struct hostmem hostmem_t;

void hostmem_config_default(hostmem_config_t *c);
hostmem_t *hostmem_new(const hostmem_config_t *c);
void hostmem_free(hostmem_t *m);

/* ---- cycle interface ---- */
void hostmem_eval(hostmem_t *m, unsigned port, hostmem_port_out_t *out);
void hostmem_edge(hostmem_t *m, unsigned port, const hostmem_port_in_t *in);
void hostmem_tick(hostmem_t *m);
uint64_t hostmem_now(const hostmem_t *m);
unsigned hostmem_outstanding(const hostmem_t *m, unsigned port);
/* True when nothing is pending: no outstanding read, no unapplied write. */
bool hostmem_idle(const hostmem_t *m);
/* The clock jumps n cycles at once (testbench/nic/clock_jump.h), legal only while idle:
 * nothing is pending, so only the cycle count moves. */
void hostmem_advance(hostmem_t *m, uint64_t n);

/* ---- backdoor (host CPU / test): instantaneous, not counted as DMA ---- */
/* Returns 0, or -1 when a page could not be allocated (max_pages; see hostmem_error). */
int hostmem_write(hostmem_t *m, uint64_t addr, const void *data, size_t len);
void hostmem_read(const hostmem_t *m, uint64_t addr, void *buf, size_t len);
int hostmem_fill(hostmem_t *m, uint64_t addr, uint8_t byte, size_t len);
uint64_t hostmem_read_u64(const hostmem_t *m, uint64_t addr);     /* little-endian */
int hostmem_write_u64(hostmem_t *m, uint64_t addr, uint64_t v);
/* Apply every pending posted write now (e.g. before checking memory at the end of a test). */
void hostmem_flush(hostmem_t *m);
/* The hypervisor moving a VM's memory: every page src holds (its pending posted writes applied
 * first) is written into dst at the same address, and src's guard regions and targets become
 * dst's too (the golden-model checks follow the memory). 0, or -1 when dst runs out of pages
 * or guard slots. Page store only (not a backend). */
int hostmem_copy_all(hostmem_t *dst, hostmem_t *src);

/* ---- golden-model checks ---- */
typedef struct hostmem_snap hostmem_snap_t;
typedef struct {
    uint64_t addr;
    uint8_t a, b;               /* byte in the first / second operand */
} hostmem_diff_t;
/* A copy of the memory contents (pending posted writes are not included: flush first). */
hostmem_snap_t *hostmem_snapshot(const hostmem_t *m);
void hostmem_snap_free(hostmem_snap_t *s);
/* Number of differing bytes (untouched memory counts as 0); the first `max` are stored in
 * d[] in address order (d may be NULL). */
size_t hostmem_compare(const hostmem_snap_t *s, const hostmem_t *m, hostmem_diff_t *d, size_t max);
size_t hostmem_diff(const hostmem_t *a, const hostmem_t *b, hostmem_diff_t *d, size_t max);

/* ---- guard regions ---- */
/* The guard pattern byte at addr for a seed (a hash; also what hostmem_guard_fill writes). */
uint8_t hostmem_guard_byte(uint64_t seed, uint64_t addr);
/* Fill [addr, addr+len) with the pattern and register it as a guard region. 0 or -1. */
int hostmem_guard_fill(hostmem_t *m, uint64_t addr, size_t len, uint64_t seed);
/* Register [addr, addr+len) as a legitimate DMA target (it may lie inside a guard). 0 or -1. */
int hostmem_guard_target(hostmem_t *m, uint64_t addr, size_t len);
/* Bytes inside guard regions and outside every target that differ from the pattern now
 * (however they were changed); the first `max` are stored in d[] (a = pattern, b = now). */
size_t hostmem_guard_check(const hostmem_t *m, hostmem_diff_t *d, size_t max);
/* The first DMA write that hit a guard outside the targets, as text (cycle, port, addresses),
 * or NULL if none. Such writes are still applied and counted in guard_violations. */
const char *hostmem_guard_first(const hostmem_t *m);

const hostmem_stats_t *hostmem_stats(const hostmem_t *m);
/* The first error (malformed request, out of pages, bad port), or NULL. */
const char *hostmem_error(const hostmem_t *m);

#endif /* TB_HOSTMEM_H */
