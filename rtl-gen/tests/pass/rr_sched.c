/* rr_sched — a round-robin scheduler over 64 queues, the shape of Corundum's
 * tx_scheduler_rr: a FIFO of the IDs of active queues and a scheduled bit per queue, so a
 * decision costs the same whatever the number of queues. A doorbell queues its queue once
 * (the scheduled bit says it is already in the FIFO); each decision pops the head; the
 * consumer answers for the queue it was given, and a queue that still has work goes back
 * to the tail, one that has none is unscheduled. One FIFO write a cycle: an answer that
 * re-queues takes the write, and the doorbell waits (ready low).
 *
 * In the corpus as a pipeline block the logic-level goal (<= 8) is measured on. */
#include "hls.h"

typedef struct {
    bool db_valid;            /* doorbell: queue db_qid has work */
    hls_uint(6) db_qid;
    bool pop;                 /* the consumer takes a decision (when one is offered) */
    bool ans_valid;           /* the consumer's answer for ans_qid */
    hls_uint(6) ans_qid;
    bool ans_active;          /* the queue still has work: back to the tail */
} rr_sched_in;

typedef struct {
    bool db_ready;
    bool sched_valid;         /* a decision: serve sched_qid */
    hls_uint(6) sched_qid;
} rr_sched_out;

typedef struct {
    HLS_MEM(hls_uint(6), 64) fifo;  /* the active queue IDs, each at most once */
    uint64_t scheduled;             /* bit q: queue q is in the FIFO or being served */
    hls_uint(7) head, tail;         /* FIFO pointers, one bit more than the index */
    bool head_ready;                /* the FIFO head was read last cycle: rdata holds it */
} rr_sched_state;

HLS_TOP void rr_sched(const rr_sched_in *in, rr_sched_out *out, rr_sched_state *st) {
    /* decision: the head read last cycle is offered until it is popped */
    out->sched_valid = st->head_ready;
    out->sched_qid = st->fifo.hls_mem_rdata;
    bool popped = st->head_ready && in->pop;
    bool empty = st->head == st->tail;
    bool fetch = !empty && (!st->head_ready || popped);
    if (fetch) {
        hls_mem_read(&st->fifo, (hls_uint(6))st->head);
        st->head = (hls_uint(7))(st->head + 1);
    }
    st->head_ready = fetch || (st->head_ready && !popped);

    /* push: a re-queued answer, else a doorbell for an unscheduled queue */
    uint64_t db_bit = (uint64_t)1 << in->db_qid;
    uint64_t ans_bit = (uint64_t)1 << in->ans_qid;
    bool requeue = in->ans_valid && in->ans_active;
    out->db_ready = !requeue;
    bool db_push = !requeue && in->db_valid && !(st->scheduled & db_bit);
    if (requeue || db_push) {
        hls_mem_write(&st->fifo, (hls_uint(6))st->tail, requeue ? in->ans_qid : in->db_qid);
        st->tail = (hls_uint(7))(st->tail + 1);
    }
    uint64_t set = db_push ? db_bit : 0;
    uint64_t clear = in->ans_valid && !in->ans_active ? ans_bit : 0;
    st->scheduled = (st->scheduled & ~clear) | set;
}
