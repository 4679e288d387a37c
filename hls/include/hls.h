/* hls.h — the HLS-C contract shared by the native C model and rtl-gen.
 *
 * A hardware block is a cycle function, called once per clock:
 *
 *     HLS_TOP void blk(const blk_in *in, blk_out *out, blk_state *state);
 *
 * It reads its input ports (*in) and the current register values (*state),
 * writes its output ports (*out) and the next register values (*state).
 * docs/hls-c.md states every rule; this header only provides the pieces.
 *
 * The same header is read twice: natively (the fast C model) and by rtl-gen,
 * which defines __HLS_SYNTH__ and turns memory operations into calls that it
 * maps onto synchronous RAMs.
 */
#ifndef HLS_H
#define HLS_H

#include <stdbool.h>
#include <stdint.h>

/* ---- widths ---------------------------------------------------------- */
/* Any width 1..1024: hls_uint(24) is a 24-bit unsigned, hls_int(13) signed. */
#define hls_uint(n) unsigned _BitInt(n)
#define hls_int(n) signed _BitInt(n)
typedef unsigned _BitInt(24) hls_u24;  /* PSN, QPN */
typedef unsigned _BitInt(128) hls_u128;
typedef unsigned _BitInt(512) hls_u512; /* one 64-byte data beat */

/* ---- the top cycle function ---------------------------------------- */
/* Kept as an external symbol so the native model and rtl-gen both find it. */
#define HLS_TOP __attribute__((used, noinline))
/* HLS_INLINE: helpers are inlined into the cycle function (its own header, so plain-C
 * headers the firmware shares can use it without the rest of this one). */
#include "hls_inline.h"
/* Full unroll of a bounded loop (rtl-gen unrolls every loop anyway): for the C model's speed
 * only. Not under the sanitizers: clang then unrolls the instrumented 512-bit loops, and the
 * native tests of the packet blocks took a minute each to compile instead of 2 s. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define HLS_UNROLL_OFF 1
#endif
#endif
#ifdef HLS_UNROLL_OFF
#define HLS_UNROLL
#else
#define HLS_UNROLL _Pragma("clang loop unroll(full)")
#endif

/* ---- streams --------------------------------------------------------- */
/* A stream X is a valid/data pair plus a ready bit in the opposite struct:
 *   input stream:  in->X is HLS_STREAM(T), out->X_ready is bool
 *   output stream: out->X is HLS_STREAM(T), in->X_ready is bool
 * A beat moves at the clock edge where valid and ready are both 1.
 * A producer holds valid and data stable until the beat moves. */
#define HLS_STREAM(T) \
    struct {          \
        bool valid;   \
        T data;       \
    }
#define hls_fire(valid, ready) ((valid) && (ready))

/* ---- synchronous memories ------------------------------------------ */
/* A memory lives in the state struct. DEPTH must be a power of two; the
 * address is taken modulo DEPTH. One read and one write per cycle:
 *   hls_mem_read(&st->m, addr)     request; data appears in
 *   st->m.hls_mem_rdata            on the NEXT cycle (held until next read)
 *   hls_mem_write(&st->m, addr, v) takes effect at the clock edge
 * A read and a write of the same address in one cycle return the OLD data
 * (read-first, as a BRAM in READ_FIRST mode). Cells are zero at power-up and
 * are not cleared by reset. Cells are never read or written directly. */
#define HLS_MEM(T, DEPTH)          \
    struct {                       \
        T hls_mem_rdata;           \
        T hls_mem_cell[DEPTH];     \
    }
#define HLS_MEM_DEPTH(m) (sizeof((m)->hls_mem_cell) / sizeof((m)->hls_mem_cell[0]))

#ifdef __HLS_SYNTH__
/* rtl-gen sees these calls and maps them to the RAM's ports. */
void __hls_mem_read(const void *mem, uint64_t addr);
void __hls_mem_write(void *mem, uint64_t addr, const void *value);
#define hls_mem_read(m, addr) __hls_mem_read((m), (uint64_t)(addr))
#define hls_mem_write(m, addr, v)                         \
    do {                                                  \
        __typeof__((m)->hls_mem_rdata) hls__v_ = (v);     \
        __hls_mem_write((m), (uint64_t)(addr), &hls__v_); \
    } while (0)
#else
/* Native C model: a cycle's memory operations are queued on an edge queue and applied
 * together by hls_clock_edge(q): all reads, then all writes (read-first).
 *
 * Each instance of a model (one NIC of a harness, one device) owns its queue, so instances
 * step at the same time on different threads. The cycle function's signature has no room for
 * the queue, so the harness binds it to the thread that steps:
 *
 *     hls_edge_queue_bind(q);    this thread's memory operations go to q ...
 *     blk(&in, &out, &st);
 *     hls_clock_edge(q);         ... until its edge applies them (and unbinds q)
 *
 * The binding is a thread-local pointer, not a thread-local queue: a queue is some 640 KiB,
 * too much static TLS for a provider loaded with dlopen(), and a queue per thread would
 * outlive the instance. Unbinding at the edge means a cycle function called without a fresh
 * bind stops with a message instead of queueing onto the previous instance's queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HLS__MAX_EDGE_OPS 4096
#define HLS__MAX_WORD_BYTES 128 /* 1024 bits */

struct hls__edge_op {
    const void *mem;  /* which memory: to enforce one read + one write */
    void *dst;
    const void *src;  /* read: cell address; write: NULL (data below) */
    uint32_t size;
    uint8_t data[HLS__MAX_WORD_BYTES];
};
typedef struct hls_edge_queue {
    uint32_t count;
    struct hls__edge_op op[HLS__MAX_EDGE_OPS];
} hls_edge_queue;
/* The queue bound to this thread, NULL between an edge and the next bind. weak: one per
 * thread however many files include this header. */
__attribute__((weak)) _Thread_local hls_edge_queue *hls__bound_queue;

static inline void hls__fail(const char *what, const void *mem) {
    if (mem) fprintf(stderr, "hls: %s (memory at %p)\n", what, mem);
    else fprintf(stderr, "hls: %s\n", what);
    abort();
}

/* A new, empty queue (calloc: pages are only touched as operations fill them). */
static inline hls_edge_queue *hls_edge_queue_new(void) {
    hls_edge_queue *q = (hls_edge_queue *)calloc(1, sizeof *q);
    if (!q) hls__fail("out of memory for an edge queue", NULL);
    return q;
}

static inline void hls_edge_queue_free(hls_edge_queue *q) {
    if (q && hls__bound_queue == q) hls__bound_queue = NULL;
    free(q);
}

/* The cycle functions this thread calls next queue their memory operations on q. */
static inline void hls_edge_queue_bind(hls_edge_queue *q) { hls__bound_queue = q; }

static inline struct hls__edge_op *hls__enqueue(const void *mem, int is_write) {
    hls_edge_queue *q = hls__bound_queue;
    if (!q)
        hls__fail(is_write ? "memory write with no edge queue bound on this thread "
                             "(hls_edge_queue_bind before the cycle function)"
                           : "memory read with no edge queue bound on this thread "
                             "(hls_edge_queue_bind before the cycle function)", mem);
    for (uint32_t i = 0; i < q->count; i++)
        if (q->op[i].mem == mem && (q->op[i].src == NULL) == is_write)
            hls__fail(is_write ? "two writes to one memory in one cycle"
                               : "two reads of one memory in one cycle", mem);
    if (q->count >= HLS__MAX_EDGE_OPS)
        hls__fail("too many memory operations in one cycle", mem);
    return &q->op[q->count++];
}

static inline void hls__mem_read(const void *mem, void *rdata, const void *cells,
                                 uint32_t size, uint64_t depth, uint64_t addr) {
    struct hls__edge_op *op = hls__enqueue(mem, 0);
    op->mem = mem;
    op->dst = rdata;
    op->src = (const uint8_t *)cells + (addr & (depth - 1)) * size;
    op->size = size;
}

static inline void hls__mem_write(const void *mem, void *cells, uint32_t size,
                                  uint64_t depth, uint64_t addr, const void *value) {
    struct hls__edge_op *op = hls__enqueue(mem, 1);
    op->mem = mem;
    op->dst = (uint8_t *)cells + (addr & (depth - 1)) * size;
    op->src = NULL;
    op->size = size;
    memcpy(op->data, value, size);
}

#define HLS__CHECK_MEM(m)                                                   \
    _Static_assert(HLS_MEM_DEPTH(m) >= 2 &&                                 \
                   (HLS_MEM_DEPTH(m) & (HLS_MEM_DEPTH(m) - 1)) == 0,        \
                   "HLS_MEM depth must be a power of two, at least 2");     \
    _Static_assert(sizeof((m)->hls_mem_rdata) <= HLS__MAX_WORD_BYTES,       \
                   "HLS_MEM word wider than 1024 bits")
#define hls_mem_read(m, addr)                                               \
    do {                                                                    \
        HLS__CHECK_MEM(m);                                                  \
        hls__mem_read((m), &(m)->hls_mem_rdata, (m)->hls_mem_cell,          \
                      sizeof((m)->hls_mem_rdata), HLS_MEM_DEPTH(m),         \
                      (uint64_t)(addr));                                    \
    } while (0)
#define hls_mem_write(m, addr, v)                                           \
    do {                                                                    \
        HLS__CHECK_MEM(m);                                                  \
        __typeof__((m)->hls_mem_rdata) hls__v_ = (v);                       \
        hls__mem_write((m), (m)->hls_mem_cell, sizeof(hls__v_),             \
                       HLS_MEM_DEPTH(m), (uint64_t)(addr), &hls__v_);       \
    } while (0)

/* Apply q's memory operations of this cycle: all reads, then all writes; q is empty after,
 * and no longer bound to this thread. */
static inline void hls_clock_edge(hls_edge_queue *q) {
    if (!q) hls__fail("hls_clock_edge without a queue", NULL);
    for (uint32_t i = 0; i < q->count; i++)
        if (q->op[i].src) memcpy(q->op[i].dst, q->op[i].src, q->op[i].size);
    for (uint32_t i = 0; i < q->count; i++)
        if (!q->op[i].src) memcpy(q->op[i].dst, q->op[i].data, q->op[i].size);
    q->count = 0;
    if (hls__bound_queue == q) hls__bound_queue = NULL;
}
#endif /* __HLS_SYNTH__ */

#endif /* HLS_H */
