/* requester_test — native C-model test of the requester (docs/requester.md).
 *
 * The requester runs cycle by cycle against behavioural neighbours: testbench/lib/hostmem as
 * host memory (SQ rings, payload buffers) on its DMA port, queues that play ctrl (cfg), the
 * host (doorbells) and the completer (req_ctl, optionally retiring each finished message),
 * and consumers of tx_desc / tx_pay / wqe_rec; every input and output can be back-pressured
 * at random. Every stream output is checked to hold valid and data while stalled.
 *
 * Expected packets come from a reference segmentation written here from IB vol. 1 9.4
 * (opcode sequences), 9.5 (PSNs) and the header rules of docs/requester.md; every descriptor
 * field and every payload byte is compared, and every wqe_rec field.
 *
 * Built with -DRQ_RTL (tests/run does both builds), the Verilog that rtl-gen makes of the block
 * runs in lock-step beside the C model through the same scenarios (rtl-gen/verilate's C API),
 * and every output of every cycle must agree: the directed counterpart of rtl-gen/equiv,
 * whose random stimulus seldom gets a QP to RTS with a matching doorbell.
 *
 * Each scenario prints one `PASS name` or `FAIL name: why` line. */
#include "../requester.c"
#include "../../packet/roce_rx.c"
#include "../../packet/roce_tx.c"
#ifdef RQ_RTL
#include "requester_rtl.h"
_Static_assert(sizeof(requester_in) == REQUESTER_RTL_IN_SIZE, "in struct");
_Static_assert(sizeof(requester_out) == REQUESTER_RTL_OUT_SIZE, "out struct");
_Static_assert(sizeof(requester_state) == REQUESTER_RTL_STATE_SIZE, "state struct");
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../testbench/lib/hostmem.h"
#include "../../../testbench/lib/prng.h"

/* ------------------------------------------------------------------ failures */
static char why[512];
static int failed;
#define EXPECT(c, ...)                                                  \
    do {                                                                \
        if (!(c) && !failed) {                                          \
            failed = 1;                                                 \
            snprintf(why, sizeof why, __VA_ARGS__);                     \
        }                                                               \
    } while (0)

/* ------------------------------------------------------------------ test QPs */
#define MAXW 300
typedef struct {
    nic_sq_wqe_t w;
    uint16_t index;
    uint32_t psn;            /* first PSN */
} twqe_t;

typedef struct {
    int row;
    unsigned fn;
    uint32_t qpn, dest;
    unsigned pmtu;
    uint64_t mac;
    uint32_t ip;
    uint16_t sport;
    uint64_t sq_base;
    unsigned sq_log;
    uint32_t psn;            /* next PSN the reference assigns */
    unsigned max_rd;         /* max_rd_atomic sent with every NIC_CFG_QP */
    uint32_t pd;             /* protection domain sent with every NIC_CFG_QP */
    uint16_t posted;         /* next SQ index */
    unsigned state;
    int nw;
    twqe_t wqe[MAXW];
} tqp_t;

typedef struct {
    roce_hdr_t h;
    uint8_t *pay;            /* payload_len bytes (NULL if 0) */
} tpkt_t;

#define MAXQ 8
#define MAXP 20000
#define MAXR 4096
#define QCAP 1024

typedef struct {
    hostmem_t *mem;
    requester_state st;
    prng_t rng;
    uint64_t p_desc, p_pay, p_rec, p_req, p_resp; /* stall probabilities */
    /* input queues */
    nic_cfg_t cfgq[QCAP]; int cfg_h, cfg_t;
    nic_db_t dbq[QCAP]; int db_h, db_t;
    nic_req_ctl_t ctlq[QCAP]; int ctl_h, ctl_t;
    /* captured outputs */
    tpkt_t *pkts; int npkts;
    uint8_t **blobs; uint32_t *blob_len; int nblobs;
    uint8_t cur_blob[4096]; uint32_t cur_len; int cur_beats;
    nic_wqe_rec_t recs[MAXR]; int nrecs;
    nic_wqe_rec_t marks[8]; int nmarks;   /* SQD and migration markers, kept apart from WQE records */
    int mark_at[8];                       /* records before each marker */
    roce_hdr_t txmarks[8]; int ntxmarks;  /* migration markers on tx_desc */
    int txmark_at[8];                     /* packets before each */
    nic_event_t evs[64]; int nevs;        /* context answers */
    int dma_of[NIC_QPS];                  /* DMA reads issued per QP row */
    /* stream-rule memory: last cycle's outputs and whether they moved */
    requester_out prev;
    bool prev_desc_moved, prev_pay_moved, prev_rec_moved, prev_req_moved;
    bool resp_held;          /* dma_resp was offered and not taken last cycle */
    /* completer model */
    bool auto_retire;
    uint16_t retired[NIC_QPS];
    uint64_t next_buf;
    tqp_t *qps[MAXQ]; int nq;
    uint64_t cycle;
#ifdef RQ_RTL
    requester_rtl *rtl;
#endif
    /* wire mode: tx_desc/tx_pay -> FIFOs -> roce_tx -> FIFO -> roce_rx (as the .net joins them) */
    bool wire;
    roce_tx_state tx;
    roce_rx_state rx;
    roce_hdr_t dfifo[4]; int d_h, d_t;
    nic_beat_t pfifo[4]; int p_h, p_t;
    nic_beat_t ffifo[4]; int f_h, f_t;
    roce_rx_desc_t rxd[MAXP]; int nrxd;
    uint8_t *rxpay[MAXP]; uint32_t rxpay_len[MAXP]; int nrxpay;
    uint8_t rx_blob[4096]; uint32_t rx_len;
    uint32_t frames;
    hls_edge_queue *edges;  /* the memory edges of requester, roce_tx and roce_rx (hls.h) */
} tb_t;

static tb_t *tb_new(uint64_t seed, double bp) {
    tb_t *t = calloc(1, sizeof *t);
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.read_latency = 3 + (unsigned)(seed % 5);
    c.max_outstanding = 4;
    t->mem = hostmem_new(&c);
    prng_seed(&t->rng, seed);
    uint64_t th = prng_threshold(bp);
    t->p_desc = t->p_pay = t->p_rec = t->p_req = t->p_resp = th;
    t->pkts = calloc(MAXP, sizeof *t->pkts);
    t->blobs = calloc(MAXP, sizeof *t->blobs);
    t->blob_len = calloc(MAXP, sizeof *t->blob_len);
    t->auto_retire = true;
    t->next_buf = 0x10000000;
    t->edges = hls_edge_queue_new();
#ifdef RQ_RTL
    t->rtl = requester_rtl_new();
#endif
    return t;
}

static void tb_free(tb_t *t) {
    for (int i = 0; i < t->npkts; i++) free(t->pkts[i].pay);
    for (int i = 0; i < t->nblobs; i++) free(t->blobs[i]);
    for (int i = 0; i < t->nrxpay; i++) free(t->rxpay[i]);
    for (int i = 0; i < t->nq; i++) free(t->qps[i]);
    free(t->pkts); free(t->blobs); free(t->blob_len);
    hostmem_free(t->mem);
    hls_edge_queue_free(t->edges);
#ifdef RQ_RTL
    requester_rtl_free(t->rtl);
#endif
    free(t);
}

static hls_u512 bytes_to_u512(const uint8_t *b) {
    hls_u512 v = 0;
    for (int i = 63; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}
static void u512_to_bytes(hls_u512 v, uint8_t *b) {
    for (int i = 0; i < 64; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static bool desc_eq(const roce_hdr_t *a, const roce_hdr_t *b) {
    return a->dst_mac == b->dst_mac && a->src_mac == b->src_mac && a->src_ip == b->src_ip &&
           a->dst_ip == b->dst_ip && a->ttl == b->ttl && a->dscp == b->dscp && a->ecn == b->ecn &&
           a->ip_id == b->ip_id && a->udp_sport == b->udp_sport && a->opcode == b->opcode &&
           a->se == b->se && a->migreq == b->migreq && a->pad == b->pad && a->tver == b->tver &&
           a->pkey == b->pkey && a->fecn == b->fecn && a->becn == b->becn &&
           a->dest_qp == b->dest_qp && a->ack_req == b->ack_req && a->psn == b->psn &&
           a->reth_va == b->reth_va && a->reth_rkey == b->reth_rkey && a->reth_len == b->reth_len &&
           a->aeth_syndrome == b->aeth_syndrome && a->aeth_msn == b->aeth_msn &&
           a->atomic_va == b->atomic_va && a->atomic_rkey == b->atomic_rkey &&
           a->atomic_swap_add == b->atomic_swap_add && a->atomic_cmp == b->atomic_cmp &&
           a->atomic_orig == b->atomic_orig && a->imm == b->imm && a->payload_len == b->payload_len;
}

static bool rec_eq(const nic_wqe_rec_t *a, const nic_wqe_rec_t *b) {
    return a->qp == b->qp && a->wqe_index == b->wqe_index && a->first_psn == b->first_psn &&
           a->last_psn == b->last_psn && a->wr_opcode == b->wr_opcode && a->signaled == b->signaled &&
           a->flush == b->flush && a->wr_id == b->wr_id && a->local_addr == b->local_addr &&
           a->length == b->length && a->status == b->status;
}

#ifdef RQ_RTL
/* Every output leaf of the C model and of the RTL agree (data only while valid). */
static bool out_eq(const requester_out *a, const requester_out *b) {
    bool eq = a->cfg_ready == b->cfg_ready && a->sq_db_ready == b->sq_db_ready &&
              a->req_ctl_ready == b->req_ctl_ready && a->dma_resp_ready == b->dma_resp_ready &&
              a->packets_sent == b->packets_sent && a->wqes_started == b->wqes_started &&
              a->dma_req.valid == b->dma_req.valid && a->tx_desc.valid == b->tx_desc.valid &&
              a->tx_pay.valid == b->tx_pay.valid && a->wqe_rec.valid == b->wqe_rec.valid &&
              a->ev.valid == b->ev.valid;
    if (a->ev.valid)
        eq = eq && a->ev.data.kind == b->ev.data.kind && a->ev.data.fn == b->ev.data.fn && a->ev.data.data == b->ev.data.data;
    if (a->dma_req.valid)
        eq = eq && a->dma_req.data.write == b->dma_req.data.write && a->dma_req.data.tag == b->dma_req.data.tag &&
             a->dma_req.data.addr == b->dma_req.data.addr && a->dma_req.data.len == b->dma_req.data.len &&
             a->dma_req.data.data == b->dma_req.data.data;
    if (a->tx_desc.valid) eq = eq && desc_eq(&a->tx_desc.data, &b->tx_desc.data);
    if (a->tx_pay.valid)
        eq = eq && a->tx_pay.data.data == b->tx_pay.data.data && a->tx_pay.data.bytes == b->tx_pay.data.bytes &&
             a->tx_pay.data.last == b->tx_pay.data.last;
    if (a->wqe_rec.valid) eq = eq && rec_eq(&a->wqe_rec.data, &b->wqe_rec.data);
    return eq;
}
#endif

/* Is this opcode the end of a message (for the completer model)? */
static bool msg_end(uint8_t op) {
    switch (op) {
    case ROCE_OP_SEND_LAST: case ROCE_OP_SEND_LAST_IMM: case ROCE_OP_SEND_ONLY:
    case ROCE_OP_SEND_ONLY_IMM: case ROCE_OP_RDMA_WRITE_LAST: case ROCE_OP_RDMA_WRITE_LAST_IMM:
    case ROCE_OP_RDMA_WRITE_ONLY: case ROCE_OP_RDMA_WRITE_ONLY_IMM: case ROCE_OP_RDMA_READ_REQUEST:
    case ROCE_OP_COMPARE_SWAP: case ROCE_OP_FETCH_ADD:
        return true;
    }
    return false;
}

static tqp_t *qp_of_dest(tb_t *t, uint32_t dest) {
    for (int i = 0; i < t->nq; i++)
        if (t->qps[i]->dest == dest) return t->qps[i];
    return NULL;
}

/* Wire mode, after the requester's cycle: its beats enter the FIFOs, roce_tx and roce_rx run
 * one cycle each, roce_rx's output is collected (frame_ready of roce_tx comes from FIFO space). */
static void wire_step(tb_t *t, const requester_out *o) {
    if (o->tx_desc.valid && t->d_t - t->d_h < 4) t->dfifo[t->d_t++ % 4] = o->tx_desc.data;
    if (o->tx_pay.valid && t->p_t - t->p_h < 4) t->pfifo[t->p_t++ % 4] = o->tx_pay.data;

    roce_tx_in ti;
    memset(&ti, 0, sizeof ti);
    ti.desc.valid = t->d_h != t->d_t;
    if (ti.desc.valid) ti.desc.data = t->dfifo[t->d_h % 4];
    ti.pay.valid = t->p_h != t->p_t;
    if (ti.pay.valid) ti.pay.data = t->pfifo[t->p_h % 4];
    ti.frame_ready = t->f_t - t->f_h < 4;
    roce_tx_out to;
    memset(&to, 0, sizeof to);
    hls_edge_queue_bind(t->edges);
    roce_tx(&ti, &to, &t->tx);
    hls_clock_edge(t->edges);
    if (ti.desc.valid && to.desc_ready) t->d_h++;
    if (ti.pay.valid && to.pay_ready) t->p_h++;

    roce_rx_in ri;
    memset(&ri, 0, sizeof ri);
    ri.frame.valid = t->f_h != t->f_t;
    if (ri.frame.valid) ri.frame.data = t->ffifo[t->f_h % 4];
    ri.pay_ready = true;
    ri.desc_ready = true;
    roce_rx_out ro;
    memset(&ro, 0, sizeof ro);
    hls_edge_queue_bind(t->edges);
    roce_rx(&ri, &ro, &t->rx);
    hls_clock_edge(t->edges);
    if (ri.frame.valid && ro.frame_ready) t->f_h++;
    if (to.frame.valid && ti.frame_ready) {
        t->ffifo[t->f_t++ % 4] = to.frame.data;
        t->frames += to.frame.data.last;
    }
    if (ro.pay.valid) {
        uint8_t tmp[64];
        u512_to_bytes(ro.pay.data.beat.data, tmp);
        unsigned n = ro.pay.data.beat.bytes;
        if (t->rx_len + n <= sizeof t->rx_blob) memcpy(t->rx_blob + t->rx_len, tmp, n);
        t->rx_len += n;
        if (ro.pay.data.beat.last && t->nrxpay < MAXP) {
            t->rxpay[t->nrxpay] = malloc(t->rx_len ? t->rx_len : 1);
            memcpy(t->rxpay[t->nrxpay], t->rx_blob, t->rx_len <= 4096 ? t->rx_len : 4096);
            t->rxpay_len[t->nrxpay++] = t->rx_len;
            t->rx_len = 0;
        }
    }
    if (ro.desc.valid && t->nrxd < MAXP) t->rxd[t->nrxd++] = ro.desc.data;
}

/* One clock cycle of the requester and its neighbours. */
static void step(tb_t *t) {
    requester_in in;
    memset(&in, 0, sizeof in);
    hostmem_port_out_t ho;
    hostmem_eval(t->mem, 0, &ho);
    bool req_stall = prng_chance(&t->rng, t->p_req);
    /* a gap on dma_resp only before a beat is offered: once valid, it is held (stream rule) */
    bool resp_stall = !t->resp_held && prng_chance(&t->rng, t->p_resp);
    if (t->cfg_h != t->cfg_t) { in.cfg.valid = true; in.cfg.data = t->cfgq[t->cfg_h % QCAP]; }
    if (t->db_h != t->db_t) { in.sq_db.valid = true; in.sq_db.data = t->dbq[t->db_h % QCAP]; }
    if (t->ctl_h != t->ctl_t) { in.req_ctl.valid = true; in.req_ctl.data = t->ctlq[t->ctl_h % QCAP]; }
    in.dma_req_ready = ho.req_ready && !req_stall;
    in.dma_resp.valid = ho.resp_valid && !resp_stall;
    in.dma_resp.data.tag = ho.resp.tag;
    in.dma_resp.data.data = bytes_to_u512(ho.resp.data);
    in.dma_resp.data.bytes = (hls_uint(7))ho.resp.bytes;
    in.dma_resp.data.last = ho.resp.last;
    in.dma_resp.data.err = ho.resp.err;
    in.tx_desc_ready = !prng_chance(&t->rng, t->p_desc);
    in.tx_pay_ready = !prng_chance(&t->rng, t->p_pay);
    if (t->wire) {                       /* FIFO space instead of random back-pressure */
        in.tx_desc_ready = t->d_t - t->d_h < 4;
        in.tx_pay_ready = t->p_t - t->p_h < 4;
    }
    in.wqe_rec_ready = !prng_chance(&t->rng, t->p_rec);
    in.ev_ready = !prng_chance(&t->rng, t->p_rec);

    requester_out out;
    memset(&out, 0, sizeof out);
    hls_edge_queue_bind(t->edges);
    requester(&in, &out, &t->st);
    hls_clock_edge(t->edges);
#ifdef RQ_RTL
    requester_out rout;
    requester_rtl_eval(t->rtl, &in, &rout);
    requester_rtl_edge(t->rtl);
    EXPECT(out_eq(&out, &rout), "cycle %llu: RTL outputs differ from the C model (fsm %u)",
           (unsigned long long)t->cycle, (unsigned)t->st.fsm);
#endif

    /* stream rule: a stalled output beat stays valid and unchanged */
    if (t->prev.tx_desc.valid && !t->prev_desc_moved)
        EXPECT(out.tx_desc.valid && desc_eq(&out.tx_desc.data, &t->prev.tx_desc.data),
               "cycle %llu: stalled tx_desc changed", (unsigned long long)t->cycle);
    if (t->prev.tx_pay.valid && !t->prev_pay_moved)
        EXPECT(out.tx_pay.valid && out.tx_pay.data.data == t->prev.tx_pay.data.data &&
                   out.tx_pay.data.bytes == t->prev.tx_pay.data.bytes &&
                   out.tx_pay.data.last == t->prev.tx_pay.data.last,
               "cycle %llu: stalled tx_pay changed", (unsigned long long)t->cycle);
    if (t->prev.wqe_rec.valid && !t->prev_rec_moved)
        EXPECT(out.wqe_rec.valid && rec_eq(&out.wqe_rec.data, &t->prev.wqe_rec.data),
               "cycle %llu: stalled wqe_rec changed", (unsigned long long)t->cycle);
    if (t->prev.dma_req.valid && !t->prev_req_moved)
        EXPECT(out.dma_req.valid && out.dma_req.data.addr == t->prev.dma_req.data.addr &&
                   out.dma_req.data.len == t->prev.dma_req.data.len &&
                   out.dma_req.data.tag == t->prev.dma_req.data.tag,
               "cycle %llu: stalled dma_req changed", (unsigned long long)t->cycle);
    EXPECT(!out.dma_req.valid || !out.dma_req.data.write, "requester issued a DMA write");

    hostmem_port_in_t hi;
    memset(&hi, 0, sizeof hi);
    hi.req_valid = out.dma_req.valid && !req_stall;
    hi.req.op = HOSTMEM_OP_READ;
    hi.req.tag = out.dma_req.data.tag;
    hi.req.addr = out.dma_req.data.addr;
    hi.req.len = (uint32_t)out.dma_req.data.len;
    hi.resp_ready = out.dma_resp_ready && !resp_stall;
    t->resp_held = in.dma_resp.valid && !out.dma_resp_ready;
    hostmem_edge(t->mem, 0, &hi);
    hostmem_tick(t->mem);

    if (in.cfg.valid && out.cfg_ready) t->cfg_h++;
    if (in.sq_db.valid && out.sq_db_ready) t->db_h++;
    if (in.req_ctl.valid && out.req_ctl_ready) t->ctl_h++;

    t->prev = out;
    t->prev_desc_moved = out.tx_desc.valid && in.tx_desc_ready;
    t->prev_pay_moved = out.tx_pay.valid && in.tx_pay_ready;
    t->prev_rec_moved = out.wqe_rec.valid && in.wqe_rec_ready;
    t->prev_req_moved = out.dma_req.valid && in.dma_req_ready;

    if (t->prev_pay_moved) {
        const nic_beat_t *b = &out.tx_pay.data;
        EXPECT(b->bytes >= 1 && b->bytes <= 64 && (b->last || b->bytes == 64),
               "pay beat with %u bytes, last=%d", (unsigned)b->bytes, b->last);
        EXPECT(t->cur_len + b->bytes <= 4096, "payload longer than 4096");
        if (!failed) {
            uint8_t tmp[64];
            u512_to_bytes(b->data, tmp);
            memcpy(t->cur_blob + t->cur_len, tmp, b->bytes);
            t->cur_len += b->bytes;
        }
        if (b->last && t->nblobs < MAXP) {
            t->blobs[t->nblobs] = malloc(t->cur_len);
            memcpy(t->blobs[t->nblobs], t->cur_blob, t->cur_len);
            t->blob_len[t->nblobs++] = t->cur_len;
            t->cur_len = 0;
        }
    }
    if (t->prev_req_moved) t->dma_of[out.dma_req.data.tag & (NIC_QPS - 1)]++;
    if (out.ev.valid && in.ev_ready && t->nevs < 64) t->evs[t->nevs++] = out.ev.data;
    if (t->prev_desc_moved && out.tx_desc.data.mig_mark) {
        if (t->ntxmarks < 8) { t->txmark_at[t->ntxmarks] = t->npkts; t->txmarks[t->ntxmarks++] = out.tx_desc.data; }
    } else if (t->prev_desc_moved && t->npkts < MAXP) {
        t->pkts[t->npkts++].h = out.tx_desc.data;
        tqp_t *q = qp_of_dest(t, (uint32_t)out.tx_desc.data.dest_qp);
        if (t->auto_retire && q && msg_end(out.tx_desc.data.opcode) && t->ctl_t - t->ctl_h < QCAP) {
            uint16_t una = ++t->retired[q->row];
            /* as the completer: RETIRED names the next WQE's first PSN (a migrated QP's
             * ring is rebuilt from it) */
            uint32_t una_psn = una < q->nw ? q->wqe[una].psn : q->psn;
            nic_req_ctl_t k = {.kind = NIC_REQ_RETIRED, .qp = (nic_qp_t)q->row,
                               .wqe_index = una, .psn = (hls_u24)(una_psn & 0xFFFFFF)};
            t->ctlq[t->ctl_t++ % QCAP] = k;
        }
    }
    if (t->prev_rec_moved && out.wqe_rec.data.sqd_mark && t->nmarks < 8) {
        t->mark_at[t->nmarks] = t->nrecs;
        t->marks[t->nmarks++] = out.wqe_rec.data;
    }
    else if (t->prev_rec_moved && t->nrecs < MAXR) t->recs[t->nrecs++] = out.wqe_rec.data;
    if (t->wire) wire_step(t, &out);
    t->cycle++;
}

static bool tb_idle(const tb_t *t) {
    return t->st.fsm == RQ_IDLE && (t->st.has_work & ~t->st.stopped) == 0 && t->st.tx_mark == 0 && t->cfg_h == t->cfg_t &&
           t->db_h == t->db_t && t->ctl_h == t->ctl_t;
}

/* Run until idle (a few extra cycles) or the limit; false on timeout. */
static bool run(tb_t *t, uint64_t max) {
    for (uint64_t i = 0; i < max && !failed; i++) {
        step(t);
        if (tb_idle(t)) {
            for (int k = 0; k < 20; k++) step(t);
            if (tb_idle(t)) return true;
        }
    }
    return tb_idle(t);
}

/* Attach payload blobs to the captured descriptors that carry payload, in order. */
static void pair_payloads(tb_t *t) {
    int b = 0;
    for (int i = 0; i < t->npkts; i++) {
        tpkt_t *p = &t->pkts[i];
        if (p->h.payload_len == 0 || p->pay) continue;
        if (b >= t->nblobs) break;
        EXPECT(t->blob_len[b] == p->h.payload_len, "packet %d: payload_len %u but %u bytes of beats",
               i, (unsigned)p->h.payload_len, t->blob_len[b]);
        p->pay = t->blobs[b];
        t->blobs[b++] = NULL;
    }
    int with = 0;
    for (int i = 0; i < t->npkts; i++) with += t->pkts[i].h.payload_len != 0;
    EXPECT(with == b && b == t->nblobs, "%d packets with payload, %d payload bursts", with, t->nblobs);
}

/* ------------------------------------------------------------------ driving the block */
static void push_cfg(tb_t *t, nic_cfg_t c) { t->cfgq[t->cfg_t++ % QCAP] = c; }
static void push_ctl_off(tb_t *t, unsigned kind, int row, uint16_t idx, uint32_t psn, uint32_t psn_off) {
    nic_req_ctl_t k = {.kind = (uint8_t)kind, .qp = (nic_qp_t)row, .wqe_index = idx, .psn = (hls_u24)psn,
                       .psn_off = (hls_u24)psn_off};
    t->ctlq[t->ctl_t++ % QCAP] = k;
}
static void push_ctl(tb_t *t, unsigned kind, int row, uint16_t idx, uint32_t psn) {
    push_ctl_off(t, kind, row, idx, psn, 0);
}

static void cfg_fn(tb_t *t, unsigned fn, uint64_t mac, uint32_t ip) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_FN; c.fn = (nic_fn_t)fn; c.mac = mac; c.ip = ip;
    push_cfg(t, c);
}

static void cfg_state(tb_t *t, tqp_t *q, unsigned prev, unsigned state, uint32_t sq_psn) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_QP;
    c.fn = (nic_fn_t)q->fn;
    c.qp = (nic_qp_t)q->row;
    c.prev_state = (hls_uint(3))prev;
    c.attr.state = (hls_uint(3))state;
    c.attr.pmtu = (hls_uint(3))q->pmtu;
    c.attr.qpn = (hls_u24)q->qpn;
    c.attr.dest_qpn = (hls_u24)q->dest;
    c.attr.sq_psn = (hls_u24)sq_psn;
    c.attr.rq_psn = (hls_u24)0x123;
    c.attr.dst_mac = q->mac;
    c.attr.dst_ip = q->ip;
    c.attr.udp_sport = q->sport;
    c.attr.sq_base = q->sq_base;
    c.attr.sq_log = (hls_uint(5))q->sq_log;
    c.attr.max_rd_atomic = (uint8_t)q->max_rd;
    c.attr.pd = q->pd;
    push_cfg(t, c);
    q->state = state;
}

static void cfg_quiesce(tb_t *t, tqp_t *q, bool on) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_QUIESCE; c.fn = (nic_fn_t)q->fn; c.qp = (nic_qp_t)q->row; c.quiesce = on;
    push_cfg(t, c);
}

/* A QP in function fn, slot `slot`, taken RESET -> INIT -> RTR -> RTS with sq_psn. */
static tqp_t *new_qp(tb_t *t, unsigned fn, unsigned slot, unsigned pmtu, uint32_t sq_psn, bool to_rts) {
    tqp_t *q = calloc(1, sizeof *q);
    q->fn = fn;
    q->qpn = 0x100 * (fn + 1) + 0x10 * (unsigned)prng_below(&t->rng, 8) + slot; /* qpn % 16 == slot */
    q->row = (int)(fn * NIC_QP_PER_FN + slot);
    q->dest = 0x800000 | (uint32_t)(q->row * 0x111);
    q->pmtu = pmtu;
    q->mac = 0x020000000000ull | ((uint64_t)q->row << 8) | 0x42;
    q->ip = 0x0a000100u + (uint32_t)q->row;
    q->sport = (q->row & 1) ? (uint16_t)(0xD000 + q->row) : 0;  /* 0: derived from the qpn */
    q->sq_base = 0x100000ull + (uint64_t)q->row * 0x40000ull;
    q->sq_log = 8;
    q->psn = sq_psn;
    q->max_rd = NIC_MAX_RD_ATOMIC;
    t->qps[t->nq++] = q;
    cfg_state(t, q, NIC_QPS_RESET, NIC_QPS_RESET, 0);
    cfg_state(t, q, NIC_QPS_RESET, NIC_QPS_INIT, 0);
    if (to_rts) {
        cfg_state(t, q, NIC_QPS_INIT, NIC_QPS_RTR, 0);
        cfg_state(t, q, NIC_QPS_RTR, NIC_QPS_RTS, sq_psn);
    }
    return q;
}

static void cfg_mr(tb_t *t, unsigned fn, uint32_t key, uint32_t pd, uint64_t base, uint64_t len,
                   uint8_t access, bool valid) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_MR; c.fn = (nic_fn_t)fn;
    c.mr = (nic_mr_t)(fn * NIC_MR_PER_FN + ((key >> 8) % NIC_MR_PER_FN));
    c.key = key; c.pd = pd; c.base = base; c.len = len; c.access = access; c.valid = valid;
    push_cfg(t, c);
}

/* Every function: MAC/IP, and MR 0x1234 (the lkey post() uses) over all test buffers, PD 0. */
static void setup_fns(tb_t *t) {
    for (unsigned f = 0; f < NIC_FNS; f++) {
        cfg_fn(t, f, 0x0200000000A0ull + f, 0x0a000001u + (f << 8));
        cfg_mr(t, f, 0x1234, 0, 0, 1ull << 40, NIC_ACC_LOCAL_WRITE, true);
    }
}

static unsigned mtu_bytes(unsigned pmtu) { return 128u << pmtu; }

/* PSNs the reference assigns to a WQE (IB 9.5 / 9.7: READ reserves one per response). */
static uint32_t ref_psns(const nic_sq_wqe_t *w, unsigned mtu) {
    if (w->opcode == NIC_WR_CAS || w->opcode == NIC_WR_FAA) return 1;
    if (w->opcode > NIC_WR_FAA) return 0;
    uint64_t n = 0, done = 0;
    do { n++; done += mtu; } while (done < w->length); /* packets: at least one */
    return (uint32_t)n;
}

/* A random buffer of len bytes in host memory. */
static uint64_t new_buf(tb_t *t, uint32_t len) {
    uint64_t a = t->next_buf + prng_below(&t->rng, 64);   /* any alignment */
    t->next_buf = (a + len + 4096) & ~(uint64_t)63;
    uint8_t chunk[4096];
    for (uint32_t off = 0; off < len; off += sizeof chunk) {
        uint32_t n = len - off < sizeof chunk ? len - off : (uint32_t)sizeof chunk;
        prng_fill(&t->rng, chunk, n);
        hostmem_write(t->mem, a + off, chunk, n);
    }
    return a;
}

/* Write WQE (opcode, length) to the QP's ring at the next index; no doorbell. */
static twqe_t *post(tb_t *t, tqp_t *q, unsigned op, uint32_t len, uint8_t flags) {
    twqe_t *e = &q->wqe[q->nw++];
    nic_sq_wqe_t *w = &e->w;
    memset(w, 0, sizeof *w);
    w->wr_id = prng_next(&t->rng);
    w->opcode = (uint8_t)op;
    w->flags = flags;
    w->imm = (uint32_t)prng_next(&t->rng);
    w->length = len;
    w->local_addr = new_buf(t, op <= NIC_WR_WRITE_IMM ? len : 8);
    w->lkey = 0x1234;
    w->remote_addr = prng_next(&t->rng) & ~(uint64_t)7;
    w->rkey = (uint32_t)prng_next(&t->rng);
    w->compare = prng_next(&t->rng);
    w->swap_add = prng_next(&t->rng);
    e->index = q->posted++;
    e->psn = q->psn & 0xFFFFFF;
    q->psn += ref_psns(w, mtu_bytes(q->pmtu));
    hostmem_write(t->mem, q->sq_base + 64ull * (e->index & ((1u << q->sq_log) - 1)), w, sizeof *w);
    return e;
}

static void ring(tb_t *t, tqp_t *q) {
    nic_db_t d = {.fn = (nic_fn_t)q->fn, .num = (hls_u24)q->qpn, .index = q->posted};
    t->dbq[t->db_t++ % QCAP] = d;
}

/* ------------------------------------------------------------------ reference */
typedef struct {
    roce_hdr_t h;
    uint64_t pay_addr;
    int wqe;                 /* index into q->wqe */
} rpkt_t;

/* The packets of WQEs [from, to) of q, in order; returns the count. Independent of the
 * block: opcode tables by (first, last), PSN per packet, header fields per docs/requester.md. */
static int ref_packets(const tqp_t *q, int from, int to, rpkt_t *r, int max) {
    static const uint8_t tab[4][4] = {
        /* only, first, middle, last */
        {ROCE_OP_SEND_ONLY, ROCE_OP_SEND_FIRST, ROCE_OP_SEND_MIDDLE, ROCE_OP_SEND_LAST},
        {ROCE_OP_SEND_ONLY_IMM, ROCE_OP_SEND_FIRST, ROCE_OP_SEND_MIDDLE, ROCE_OP_SEND_LAST_IMM},
        {ROCE_OP_RDMA_WRITE_ONLY, ROCE_OP_RDMA_WRITE_FIRST, ROCE_OP_RDMA_WRITE_MIDDLE, ROCE_OP_RDMA_WRITE_LAST},
        {ROCE_OP_RDMA_WRITE_ONLY_IMM, ROCE_OP_RDMA_WRITE_FIRST, ROCE_OP_RDMA_WRITE_MIDDLE, ROCE_OP_RDMA_WRITE_LAST_IMM},
    };
    unsigned mtu = mtu_bytes(q->pmtu);
    int n = 0;
    for (int i = from; i < to; i++) {
        const nic_sq_wqe_t *w = &q->wqe[i].w;
        uint32_t npk = w->opcode <= NIC_WR_WRITE_IMM ? ref_psns(w, mtu) : 1;
        for (uint32_t k = 0; k < npk && n < max; k++) {
            rpkt_t *p = &r[n++];
            memset(p, 0, sizeof *p);
            roce_hdr_t *h = &p->h;
            bool first = k == 0, last = k == npk - 1;
            uint32_t off = k * mtu;
            uint32_t plen = 0;
            h->dst_mac = q->mac;
            h->src_mac = 0x0200000000A0ull + q->fn;
            h->src_ip = 0x0a000001u + (q->fn << 8);
            h->dst_ip = q->ip;
            h->ttl = 64;
            h->udp_sport = q->sport ? q->sport : (uint16_t)(0xC000 + (q->qpn % 16384));
            h->pkey = 0xFFFF;
            h->dest_qp = (hls_u24)q->dest;
            uint32_t psn = (q->wqe[i].psn + k) % (1u << 24);
            h->psn = (hls_u24)psn;
            h->ack_req = last || psn % 8 == 7;
            p->wqe = i;
            switch (w->opcode) {
            case NIC_WR_SEND: case NIC_WR_SEND_IMM: case NIC_WR_WRITE: case NIC_WR_WRITE_IMM:
                h->opcode = tab[w->opcode][first && last ? 0 : first ? 1 : last ? 3 : 2];
                plen = last ? w->length - off : mtu;
                if (w->opcode >= NIC_WR_WRITE && first) {
                    h->reth_va = w->remote_addr; h->reth_rkey = w->rkey; h->reth_len = w->length;
                }
                if ((w->opcode == NIC_WR_SEND_IMM || w->opcode == NIC_WR_WRITE_IMM) && last) h->imm = w->imm;
                h->se = last && (w->flags & NIC_WQE_SOLICITED) && w->opcode != NIC_WR_WRITE;
                break;
            case NIC_WR_READ:
                h->opcode = ROCE_OP_RDMA_READ_REQUEST;
                h->reth_va = w->remote_addr; h->reth_rkey = w->rkey; h->reth_len = w->length;
                break;
            default:
                h->opcode = w->opcode == NIC_WR_CAS ? ROCE_OP_COMPARE_SWAP : ROCE_OP_FETCH_ADD;
                h->atomic_va = w->remote_addr; h->atomic_rkey = w->rkey;
                h->atomic_swap_add = w->swap_add;
                h->atomic_cmp = w->opcode == NIC_WR_CAS ? w->compare : 0;
                break;
            }
            h->payload_len = (hls_uint(14))plen;
            p->pay_addr = w->local_addr + off;
        }
    }
    return n;
}

/* The reference packets of q from packet (PSN) k of WQE i to the end of the SQ, as IB 9.7.5.2
 * resends them: a SEND/WRITE from its packet k on (MIDDLE/LAST, RETH only on FIRST/ONLY, as
 * ref_packets has them), a READ re-issued at PSN first + k for the bytes from k MTUs on. */
static int ref_resume(const tqp_t *q, int i, uint32_t k, rpkt_t *r, int max) {
    int n = ref_packets(q, i, q->nw, r, max);
    const nic_sq_wqe_t *w = &q->wqe[i].w;
    uint32_t mtu = mtu_bytes(q->pmtu);
    if (w->opcode == NIC_WR_READ) {
        r[0].h.psn = (hls_u24)((q->wqe[i].psn + k) % (1u << 24));
        r[0].h.ack_req = 1;
        r[0].h.reth_va = w->remote_addr + (uint64_t)k * mtu;
        r[0].h.reth_len = w->length - k * mtu;
    } else if (w->opcode <= NIC_WR_WRITE_IMM && k > 0) {
        memmove(r, r + k, (size_t)(n - (int)k) * sizeof *r);
        n -= (int)k;
    }
    return n;
}

static const char *op_name(uint8_t op) {
    static char b[8];
    snprintf(b, sizeof b, "0x%02x", op);
    return b;
}

/* Compare captured packet c with reference r (descriptor fields and payload bytes). */
static void check_pkt(tb_t *t, const tpkt_t *c, const rpkt_t *r, const char *ctx, int i) {
    EXPECT(desc_eq(&c->h, &r->h),
           "%s pkt %d: got op %s psn %u len %u ack %d se %d sport %x imm %x reth %llx/%x/%u; "
           "want op 0x%02x psn %u len %u ack %d se %d sport %x imm %x reth %llx/%x/%u",
           ctx, i, op_name(c->h.opcode), (unsigned)c->h.psn, (unsigned)c->h.payload_len, c->h.ack_req,
           c->h.se, c->h.udp_sport, c->h.imm, (unsigned long long)c->h.reth_va, c->h.reth_rkey,
           c->h.reth_len, r->h.opcode, (unsigned)r->h.psn, (unsigned)r->h.payload_len, r->h.ack_req,
           r->h.se, r->h.udp_sport, r->h.imm, (unsigned long long)r->h.reth_va, r->h.reth_rkey,
           r->h.reth_len);
    uint32_t n = (uint32_t)r->h.payload_len;
    if (n && !failed) {
        uint8_t *want = malloc(n);
        hostmem_read(t->mem, r->pay_addr, want, n);
        EXPECT(c->pay && memcmp(c->pay, want, n) == 0, "%s pkt %d: payload bytes differ", ctx, i);
        free(want);
    }
}

/* Captured packets of q (by dest QP), in order. */
static int packets_of(tb_t *t, const tqp_t *q, tpkt_t **out, int max) {
    int n = 0;
    for (int i = 0; i < t->npkts && n < max; i++)
        if (t->pkts[i].h.dest_qp == q->dest) out[n++] = &t->pkts[i];
    return n;
}

static rpkt_t *refbuf;
static tpkt_t **capbuf;

/* Every WQE of q sent exactly once, as the reference says. */
static void check_qp(tb_t *t, const tqp_t *q, const char *ctx) {
    int nr = ref_packets(q, 0, q->nw, refbuf, MAXP);
    int nc = packets_of(t, q, capbuf, MAXP);
    EXPECT(nr == nc, "%s qp %d: %d packets, reference %d", ctx, q->row, nc, nr);
    for (int i = 0; i < nr && i < nc && !failed; i++) check_pkt(t, capbuf[i], &refbuf[i], ctx, i);
}

/* The reference record of WQE i of q. */
static nic_wqe_rec_t ref_rec(const tqp_t *q, int i, bool flush, uint8_t status) {
    const twqe_t *e = &q->wqe[i];
    nic_wqe_rec_t r;
    memset(&r, 0, sizeof r);
    r.qp = (nic_qp_t)q->row;
    r.wqe_index = e->index;
    r.wr_opcode = e->w.opcode;
    r.signaled = (e->w.flags & NIC_WQE_SIGNALED) != 0;
    r.flush = flush;
    r.wr_id = e->w.wr_id;
    r.local_addr = e->w.local_addr;
    r.length = e->w.length;
    r.status = status;
    return r;
}

/* Records of q in order: WQE i has the reference record (PSNs checked unless flushed). */
static int recs_of(tb_t *t, const tqp_t *q, nic_wqe_rec_t *out, int max) {
    int n = 0;
    for (int i = 0; i < t->nrecs && n < max; i++)
        if (t->recs[i].qp == (nic_qp_t)q->row) out[n++] = t->recs[i];
    return n;
}

static void check_rec(const nic_wqe_rec_t *got, nic_wqe_rec_t want, const tqp_t *q,
                      int i, const char *ctx) {
    if (!want.flush) {
        uint32_t n = ref_psns(&q->wqe[i].w, mtu_bytes(q->pmtu));
        want.first_psn = (hls_u24)q->wqe[i].psn;
        want.last_psn = (hls_u24)((q->wqe[i].psn + (n ? n : 1) - 1) & 0xFFFFFF);
    } else {
        want.first_psn = got->first_psn;   /* a flushed WQE has no PSNs */
        want.last_psn = got->last_psn;
    }
    if (want.status) { want.first_psn = got->first_psn; want.last_psn = got->last_psn; }
    EXPECT(rec_eq(got, &want),
           "%s qp %d rec %d: got idx %u psn %u..%u op %u sig %d flush %d status %u len %u; "
           "want idx %u psn %u..%u op %u sig %d flush %d status %u len %u",
           ctx, q->row, i, got->wqe_index, (unsigned)got->first_psn, (unsigned)got->last_psn,
           got->wr_opcode, got->signaled, got->flush, got->status, got->length, want.wqe_index,
           (unsigned)want.first_psn, (unsigned)want.last_psn, want.wr_opcode, want.signaled,
           want.flush, want.status, want.length);
}

static void check_recs_all_sent(tb_t *t, const tqp_t *q, const char *ctx) {
    nic_wqe_rec_t got[MAXR];
    int n = recs_of(t, q, got, MAXR);
    EXPECT(n == q->nw, "%s qp %d: %d records for %d WQEs", ctx, q->row, n, q->nw);
    for (int i = 0; i < n && i < q->nw && !failed; i++) check_rec(&got[i], ref_rec(q, i, false, 0), q, i, ctx);
}

/* ------------------------------------------------------------------ scenarios */
static int nfail;
static void report(const char *name) {
    if (failed) { printf("FAIL %s: %s\n", name, why); nfail++; }
    else printf("PASS %s\n", name);
    failed = 0;
    why[0] = 0;
}

static const unsigned ops[] = {NIC_WR_SEND, NIC_WR_SEND_IMM, NIC_WR_WRITE, NIC_WR_WRITE_IMM, NIC_WR_READ};

/* Every opcode and the boundary lengths at one MTU. */
static void t_mtu(unsigned pmtu, double bp, uint64_t seed) {
    char name[96];
    snprintf(name, sizeof name, "opcodes x lengths 0,1,mtu-1,mtu,mtu+1,3mtu+5 at mtu %u, %.0f%% back-pressure",
             mtu_bytes(pmtu), bp * 100);
    tb_t *t = tb_new(seed, bp);
    setup_fns(t);
    tqp_t *q = new_qp(t, pmtu % NIC_FNS, 3 + pmtu, pmtu, 0x1000 * pmtu, true);
    unsigned m = mtu_bytes(pmtu);
    uint32_t lens[] = {0, 1, m - 1, m, m + 1, 3 * m + 5};
    for (unsigned o = 0; o < 5; o++)
        for (unsigned l = 0; l < 6; l++) post(t, q, ops[o], lens[l], (uint8_t)prng_below(&t->rng, 4));
    post(t, q, NIC_WR_CAS, 8, NIC_WQE_SIGNALED | NIC_WQE_SOLICITED);
    post(t, q, NIC_WR_FAA, 8, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_SEND, 2 * m, NIC_WQE_SOLICITED);
    post(t, q, NIC_WR_WRITE_IMM, 2 * m, NIC_WQE_SOLICITED);
    post(t, q, NIC_WR_WRITE, 2 * m, NIC_WQE_SOLICITED);
    ring(t, q);
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    check_qp(t, q, "mtu");
    check_recs_all_sent(t, q, "mtu");
    EXPECT(t->st.packets_sent == (uint32_t)t->npkts, "packets_sent %u, captured %d", t->st.packets_sent, t->npkts);
    EXPECT(t->st.wqes_started == (uint32_t)q->nw, "wqes_started %u, posted %d", t->st.wqes_started, q->nw);
    report(name);
    tb_free(t);
}

/* 1 MiB messages and PSN wrap-around at 2^24. */
static void t_big_wrap(void) {
    tb_t *t = tb_new(7, 0.2);
    setup_fns(t);
    tqp_t *a = new_qp(t, 0, 1, 5, 0xFFFFF0, true);    /* 4096: 256 packets, wraps after 16 */
    tqp_t *b = new_qp(t, 2, 9, 3, 0xFFFFFE, true);    /* 1024 */
    post(t, a, NIC_WR_WRITE_IMM, 1u << 20, NIC_WQE_SIGNALED);
    post(t, a, NIC_WR_READ, 1u << 20, 0);              /* 256 response PSNs reserved */
    post(t, a, NIC_WR_SEND, 5000, 0);
    post(t, b, NIC_WR_SEND_IMM, 1u << 20, NIC_WQE_SOLICITED);
    post(t, b, NIC_WR_FAA, 8, 0);
    ring(t, a);
    ring(t, b);
    EXPECT(run(t, 3000000), "did not go idle");
    pair_payloads(t);
    check_qp(t, a, "1MiB a");
    check_qp(t, b, "1MiB b");
    check_recs_all_sent(t, a, "1MiB a");
    check_recs_all_sent(t, b, "1MiB b");
    report("1 MiB WRITE_IMM/READ/SEND_IMM at mtu 4096 and 1024, PSN wrap at 2^24");
    tb_free(t);
}

/* Several QPs in all four functions, random work, interleaved round-robin. */
static void t_multi(double bp, uint64_t seed) {
    tb_t *t = tb_new(seed, bp);
    setup_fns(t);
    tqp_t *q[6];
    for (int i = 0; i < 6; i++)
        q[i] = new_qp(t, (unsigned)i % NIC_FNS, (unsigned)(i * 5) % 16, 1 + (unsigned)i % 5,
                      (uint32_t)prng_next(&t->rng) & 0xFFFFFF, true);
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < 6; i++) {
            for (int k = 0; k < 4; k++) {
                unsigned op = (unsigned)prng_below(&t->rng, 7);
                uint32_t len = op >= NIC_WR_CAS ? 8 : (uint32_t)prng_below(&t->rng, 3 * mtu_bytes(q[i]->pmtu) + 2);
                post(t, q[i], op, len, (uint8_t)prng_below(&t->rng, 4));
            }
            ring(t, q[i]);
        }
        EXPECT(run(t, 1000000), "did not go idle");
    }
    pair_payloads(t);
    for (int i = 0; i < 6; i++) { check_qp(t, q[i], "multi"); check_recs_all_sent(t, q[i], "multi"); }
    char name[80];
    snprintf(name, sizeof name, "6 QPs in 4 functions, 72 random WQEs, %.0f%% back-pressure", bp * 100);
    report(name);
    tb_free(t);
}

/* Two QPs with long messages alternate packet by packet. */
static void t_round_robin(void) {
    tb_t *t = tb_new(11, 0.3);
    setup_fns(t);
    tqp_t *a = new_qp(t, 1, 2, 1, 100, true);
    tqp_t *b = new_qp(t, 1, 7, 1, 200, true);
    tqp_t *c = new_qp(t, 3, 0, 1, 300, true);
    post(t, a, NIC_WR_WRITE, 256 * 20, 0);
    post(t, b, NIC_WR_SEND, 256 * 20, 0);
    post(t, c, NIC_WR_SEND, 256 * 20, 0);
    ring(t, a); ring(t, b); ring(t, c);
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    check_qp(t, a, "rr"); check_qp(t, b, "rr"); check_qp(t, c, "rr");
    for (int i = 0; i + 3 <= t->npkts && !failed; i += 3) {
        uint32_t d0 = t->pkts[i].h.dest_qp, d1 = t->pkts[i + 1].h.dest_qp, d2 = t->pkts[i + 2].h.dest_qp;
        EXPECT(d0 != d1 && d1 != d2 && d0 != d2, "packets %d..%d not round-robin", i, i + 2);
    }
    report("round-robin: 3 busy QPs send one packet each in turn");
    tb_free(t);
}

/* Quiesce mid-message: at most the packet in flight follows; resume at the same PSN. */
static void t_quiesce(void) {
    tb_t *t = tb_new(13, 0.25);
    setup_fns(t);
    tqp_t *q = new_qp(t, 2, 5, 2, 0xFFFFF8, true);
    post(t, q, NIC_WR_SEND, 512 * 30 + 7, NIC_WQE_SOLICITED);
    post(t, q, NIC_WR_WRITE, 512 * 4, 0);
    ring(t, q);
    while (t->npkts < 9 && !failed && t->cycle < 100000) step(t);
    cfg_quiesce(t, q, true);
    while (t->cfg_h != t->cfg_t && t->cycle < 200000) step(t);
    int at = t->npkts;
    for (int i = 0; i < 3000; i++) step(t);
    int after = t->npkts - at;
    EXPECT(after <= 1, "%d packets after the quiesce was taken", after);
    EXPECT(t->st.fsm == RQ_IDLE && t->st.has_work == 0, "quiesced QP still scheduled");
    req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(c.next_psn == ((0xFFFFF8u + (unsigned)t->npkts) & 0xFFFFFF) && c.offset == 512u * (unsigned)t->npkts,
           "saved position psn %u offset %u after %d packets", (unsigned)c.next_psn, c.offset, t->npkts);
    cfg_quiesce(t, q, false);
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    check_qp(t, q, "quiesce");
    check_recs_all_sent(t, q, "quiesce");
    report("quiesce mid-message: no packet split or repeated, resumes at the same PSN");
    tb_free(t);
}

/* REWIND mid-stream: the retransmitted packets are byte-identical to the first ones. */
static void t_rewind(void) {
    tb_t *t = tb_new(17, 0.25);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 0, 6, 1, 0xFFFFFC, true);
    post(t, q, NIC_WR_SEND, 100, 0);
    post(t, q, NIC_WR_WRITE_IMM, 256 * 3 + 1, NIC_WQE_SOLICITED);   /* WQE 1: 4 packets */
    post(t, q, NIC_WR_READ, 256 * 5, 0);
    post(t, q, NIC_WR_SEND_IMM, 256 * 6, 0);
    post(t, q, NIC_WR_CAS, 8, 0);
    ring(t, q);
    int nr = ref_packets(q, 0, q->nw, refbuf, MAXP);   /* 1 + 4 + 1 + 6 + 1 = 13 */
    while (t->npkts < 9 && !failed && t->cycle < 100000) step(t);
    push_ctl(t, NIC_REQ_REWIND, q->row, 1, q->wqe[1].psn);
    while (t->ctl_h != t->ctl_t && t->cycle < 200000) step(t);
    int x = t->npkts;                                     /* sent before the rewind took effect */
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    int j = 1;                                            /* first packet of WQE 1 */
    EXPECT(t->npkts == x + nr - j, "%d packets, want %d + %d", t->npkts, x, nr - j);
    for (int i = 0; i < x && i < nr && !failed; i++) check_pkt(t, &t->pkts[i], &refbuf[i], "rewind before", i);
    for (int i = x; i < t->npkts && !failed; i++) check_pkt(t, &t->pkts[i], &refbuf[i - x + j], "rewind after", i);
    for (int i = j; i < x && !failed; i++) {
        const tpkt_t *o = &t->pkts[i], *n = &t->pkts[x + i - j];
        EXPECT(desc_eq(&o->h, &n->h) && (o->h.payload_len == 0 ||
                                          memcmp(o->pay, n->pay, o->h.payload_len) == 0),
               "retransmitted packet %d differs from the original", i);
    }
    check_recs_all_sent(t, q, "rewind");                  /* no duplicate records */
    report("REWIND mid-stream regenerates byte-identical packets, no duplicate wqe_rec");
    tb_free(t);
}

/* REWIND into the middle of a message (IB 9.7.5.2): the resend starts at the PSN named, with
 * the opcode and payload offset of that position; a READ asks only for the missing bytes. A
 * REWIND whose offset lies outside the message resends the whole message. */
static void t_rewind_mid(void) {
    tb_t *t = tb_new(53, 0.25);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 2, 5, 1, 0xFFFFFA, true);           /* MTU 256 */
    post(t, q, NIC_WR_SEND, 256 * 4 + 10, 0);                  /* 0: PSN fffffa..fffffe */
    post(t, q, NIC_WR_WRITE, 256 * 3 + 7, 0);                  /* 1: ffffff, 0, 1, 2 (wrap) */
    post(t, q, NIC_WR_READ, 256 * 5 + 3, 0);                   /* 2: 3..8 */
    post(t, q, NIC_WR_SEND_IMM, 256 * 3, NIC_WQE_SOLICITED);   /* 3: 9..11 */
    post(t, q, NIC_WR_WRITE_IMM, 256 * 2 + 1, 0);              /* 4: 12..14 */
    post(t, q, NIC_WR_FAA, 8, 0);                              /* 5: 15 */
    ring(t, q);
    EXPECT(run(t, 400000), "did not go idle");
    static const struct { int wqe; uint32_t k, resumes_at; const char *what; } rw[] = {
        {0, 2, 2, "SEND from its third packet (MIDDLE, payload at 2 MTUs)"},
        {1, 1, 1, "WRITE from a MIDDLE just past the PSN wrap, no RETH"},
        {2, 3, 3, "READ re-issued at first + 3 for the bytes from 3 MTUs on"},
        {3, 2, 2, "SEND_IMM from its last packet (LAST_IMM with ImmDt and SE)"},
        {4, 2, 2, "WRITE_IMM from its last packet (LAST_IMM)"},
        {1, 3, 3, "WRITE from its last packet"},
        {3, 7, 0, "an offset past the message: the whole message"},
        {5, 1, 0, "an offset into an atomic: the atomic again"},
    };
    enum { NRW = sizeof rw / sizeof rw[0] };
    int from[NRW + 1];
    int nref0 = ref_packets(q, 0, q->nw, refbuf, MAXP);
    for (int r = 0; r < NRW && !failed; r++) {
        from[r] = t->npkts;
        const twqe_t *e = &q->wqe[rw[r].wqe];
        push_ctl_off(t, NIC_REQ_REWIND, q->row, e->index, (e->psn + rw[r].k) % (1u << 24), rw[r].k);
        EXPECT(run(t, 400000), "did not go idle after REWIND %d", r);
    }
    from[NRW] = t->npkts;
    pair_payloads(t);
    EXPECT(from[0] == nref0, "first pass: %d packets, want %d", from[0], nref0);
    for (int i = 0; i < from[0] && i < nref0 && !failed; i++) check_pkt(t, &t->pkts[i], &refbuf[i], "first pass", i);
    for (int r = 0; r < NRW && !failed; r++) {
        int n = ref_resume(q, rw[r].wqe, rw[r].resumes_at, refbuf, MAXP);
        EXPECT(from[r + 1] - from[r] == n, "%s: %d packets resent, want %d", rw[r].what,
               from[r + 1] - from[r], n);
        for (int i = 0; i < n && from[r] + i < from[r + 1] && !failed; i++)
            check_pkt(t, &t->pkts[from[r] + i], &refbuf[i], rw[r].what, i);
    }
    check_recs_all_sent(t, q, "rewind mid-message");
    report("REWIND mid-message: MIDDLE/LAST at the PSN named, payload offset, no RETH; READ for the missing bytes; bad offsets resend the message");
    tb_free(t);
}

/* A REISSUE of a READ/atomic with later WQEs already sent sends that request alone and
 * returns to where the stream was, mid-message included: the peer has the later packets (it
 * answered past the READ). A REWIND, to a SEND/WRITE or to a READ, is a go-back-N round. */
static void t_rewind_read_returns(void) {
    tb_t *t = tb_new(61, 0.25);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 7, 1, 0xFFFFFD, true);           /* MTU 256 */
    post(t, q, NIC_WR_SEND, 100, 0);                           /* 0: fffffd */
    post(t, q, NIC_WR_READ, 256 * 4, 0);                       /* 1: fffffe..1 */
    post(t, q, NIC_WR_CAS, 8, 0);                              /* 2: 2 */
    post(t, q, NIC_WR_WRITE, 256 * 6, 0);                      /* 3: 3..8 */
    ring(t, q);
    int nref = ref_packets(q, 0, q->nw, refbuf, MAXP);         /* 1 + 1 + 1 + 6 = 9 */
    /* mid-WRITE: 3 of its 6 packets out */
    while (t->npkts < 6 && !failed && t->cycle < 100000) step(t);
    push_ctl_off(t, NIC_REQ_REISSUE, q->row, q->wqe[1].index, (q->wqe[1].psn + 2) % (1u << 24), 2);
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    int x = t->npkts - nref;                                   /* packets beyond the first pass */
    EXPECT(x == 1, "%d packets beyond the first pass, want 1 (the READ alone)", x);
    int r = -1;                                                /* where the re-issued READ is */
    for (int i = 0; i < t->npkts && r < 0; i++)
        if (t->pkts[i].h.psn == (hls_u24)((q->wqe[1].psn + 2) % (1u << 24)) && t->pkts[i].h.opcode == ROCE_OP_RDMA_READ_REQUEST)
            r = i;
    EXPECT(r >= 6, "no READ re-issued at first + 2 after the REWIND");
    int n = ref_resume(q, 1, 2, refbuf, MAXP);
    if (r >= 0 && n > 0) check_pkt(t, &t->pkts[r], &refbuf[0], "re-issued READ", r);
    ref_packets(q, 0, q->nw, refbuf, MAXP);
    /* every other packet is the first pass, in order: the WRITE went on where it stopped */
    for (int i = 0, j = 0; i < t->npkts && j < nref && !failed; i++)
        if (i != r) check_pkt(t, &t->pkts[i], &refbuf[j++], "first pass around the re-issue", i);
    /* more work after the return: PSNs go on from the WRITE's end */
    post(t, q, NIC_WR_SEND, 10, 0);                            /* 4: 9 */
    ring(t, q);
    EXPECT(run(t, 400000), "did not go idle");
    EXPECT(t->npkts == nref + 2 && t->pkts[t->npkts - 1].h.psn == (hls_u24)q->wqe[4].psn,
           "new SEND: %d packets, PSN %u, want %d and %u", t->npkts, (unsigned)t->pkts[t->npkts - 1].h.psn, nref + 2,
           (unsigned)q->wqe[4].psn);
    /* an atomic: alone too */
    push_ctl(t, NIC_REQ_REISSUE, q->row, q->wqe[2].index, q->wqe[2].psn);
    EXPECT(run(t, 400000), "did not go idle");
    EXPECT(t->npkts == nref + 3 && t->pkts[t->npkts - 1].h.opcode == ROCE_OP_COMPARE_SWAP, "CAS alone: %d packets",
           t->npkts);
    /* a SEND/WRITE: go-back-N from it (WRITE 6 + SEND 1) */
    push_ctl(t, NIC_REQ_REWIND, q->row, q->wqe[3].index, q->wqe[3].psn);
    EXPECT(run(t, 400000), "did not go idle");
    EXPECT(t->npkts == nref + 3 + 7, "REWIND to the WRITE: %d packets, want %d", t->npkts, nref + 3 + 7);
    /* a REWIND to the CAS: go-back-N from it too (CAS 1 + WRITE 6 + SEND 1) */
    push_ctl(t, NIC_REQ_REWIND, q->row, q->wqe[2].index, q->wqe[2].psn);
    EXPECT(run(t, 400000), "did not go idle");
    EXPECT(t->npkts == nref + 3 + 7 + 8, "REWIND to the CAS: %d packets, want %d", t->npkts, nref + 3 + 7 + 8);
    check_recs_all_sent(t, q, "rewind read returns");
    report("REISSUE of a READ/atomic with later WQEs sent: that request alone, then back mid-message; REWIND: go-back-N");
    tb_free(t);
}

/* RETIRED past the position of a go-back-N round (the original packets' ACK arrives after the
 * rewind): nothing before una goes again; a REISSUE whose READ retires returns to its place. */
static void t_retired_past_rewind(void) {
    tb_t *t = tb_new(67, 0.25);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 2, 9, 1, 0xFFFFF9, true);            /* MTU 256, PSNs across the wrap */
    for (int i = 0; i < 3; i++) post(t, q, NIC_WR_SEND, 256 * 4, 0);   /* 0..2: 4 packets each */
    post(t, q, NIC_WR_WRITE, 256 * 4, 0);                      /* 3 */
    ring(t, q);
    int nref = ref_packets(q, 0, q->nw, refbuf, MAXP);
    EXPECT(run(t, 400000), "did not go idle");
    EXPECT(t->npkts == nref, "%d packets in the first pass, want %d", t->npkts, nref);
    push_ctl(t, NIC_REQ_REWIND, q->row, q->wqe[0].index, q->wqe[0].psn);
    push_ctl(t, NIC_REQ_RETIRED, q->row, q->wqe[2].index, q->wqe[2].psn);
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    int tail = ref_packets(q, 2, q->nw, refbuf, MAXP);          /* WQEs 2 and 3: 8 packets */
    int x = t->npkts - nref - tail;                             /* WQE 0 packets before RETIRED */
    EXPECT(x >= 0 && x <= 1, "%d packets resent, want WQEs 2..3 (%d) and at most one of WQE 0",
           t->npkts - nref, tail);
    for (int i = 0; i < tail && x >= 0 && nref + x + i < t->npkts && !failed; i++)
        check_pkt(t, &t->pkts[nref + x + i], &refbuf[i], "go-back-N after RETIRED past it", i);
    tb_free(t);

    t = tb_new(71, 0.25);
    t->auto_retire = false;
    setup_fns(t);
    q = new_qp(t, 1, 7, 1, 0x100, true);
    post(t, q, NIC_WR_SEND, 100, 0);                            /* 0 */
    post(t, q, NIC_WR_READ, 256 * 4, 0);                        /* 1 */
    post(t, q, NIC_WR_WRITE, 256 * 6, 0);                       /* 2 */
    ring(t, q);
    nref = ref_packets(q, 0, q->nw, refbuf, MAXP);              /* 1 + 1 + 6 */
    while (t->npkts < 5 && !failed && t->cycle < 100000) step(t); /* 3 WRITE packets out */
    push_ctl(t, NIC_REQ_REISSUE, q->row, q->wqe[1].index, q->wqe[1].psn);
    push_ctl(t, NIC_REQ_RETIRED, q->row, q->wqe[2].index, q->wqe[2].psn);
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    x = t->npkts - nref;
    EXPECT(x >= 0 && x <= 1, "%d packets beyond the first pass, want at most the READ", x);
    for (int i = 0, j = 0; i < t->npkts && j < nref && !failed; i++)
        if (t->pkts[i].h.opcode != ROCE_OP_RDMA_READ_REQUEST || i < 2)
            check_pkt(t, &t->pkts[i], &refbuf[j++], "REISSUE answered before it went", i);
    check_recs_all_sent(t, q, "retired past rewind");
    report("RETIRED past a go-back-N position: resumes at WQE una; past a re-issued READ: returns to its place");
    tb_free(t);
}

/* NIC_OUTSTANDING: at most 16 started, unretired WQEs; RETIRED frees slots. */
static void t_outstanding(void) {
    tb_t *t = tb_new(19, 0.2);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 3, 15, 1, 5, true);
    for (int i = 0; i < 20; i++) post(t, q, NIC_WR_SEND, 10, NIC_WQE_SIGNALED);
    ring(t, q);
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == NIC_OUTSTANDING && t->npkts == NIC_OUTSTANDING, "%d recs %d packets before RETIRED",
           t->nrecs, t->npkts);
    push_ctl(t, NIC_REQ_RETIRED, q->row, 2, 0);
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == NIC_OUTSTANDING + 2, "%d recs after RETIRED(2)", t->nrecs);
    push_ctl(t, NIC_REQ_RETIRED, q->row, 100, 0);          /* beyond sq_hi: ignored */
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == NIC_OUTSTANDING + 2, "RETIRED beyond the window freed slots");
    push_ctl(t, NIC_REQ_RETIRED, q->row, 18, 0);
    EXPECT(run(t, 200000), "did not go idle");
    pair_payloads(t);
    check_qp(t, q, "outstanding");
    check_recs_all_sent(t, q, "outstanding");
    report("at most NIC_OUTSTANDING unretired WQEs; RETIRED frees slots, bad index ignored");
    tb_free(t);
}

/* Initiator depth (max_rd_atomic 2): a third READ/atomic waits until one retires; other
 * WQEs behind it wait too (SQ order); a REWIND resends started ones without counting them
 * again; RETIRED frees depth. Found by testbench/scenario faults seed 34: 5 atomics in
 * flight against a 4-entry replay cache lost the oldest result. */
static void t_rd_depth(void) {
    tb_t *t = tb_new(47, 0.2);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 9, 1, 0xFFFFFE, false);
    q->max_rd = 2;
    cfg_state(t, q, NIC_QPS_INIT, NIC_QPS_RTR, 0);
    cfg_state(t, q, NIC_QPS_RTR, NIC_QPS_RTS, q->psn);
    post(t, q, NIC_WR_READ, 600, NIC_WQE_SIGNALED);       /* 0: 3 PSNs */
    post(t, q, NIC_WR_SEND, 10, 0);                        /* 1 */
    post(t, q, NIC_WR_FAA, 8, 0);                          /* 2 */
    post(t, q, NIC_WR_CAS, 8, 0);                          /* 3: waits for a retire */
    post(t, q, NIC_WR_WRITE, 300, 0);                      /* 4: behind it */
    post(t, q, NIC_WR_READ, 256, 0);                       /* 5 */
    ring(t, q);
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == 3 && t->npkts == 3, "depth 2: %d records %d packets, want 3 and 3", t->nrecs, t->npkts);
    push_ctl(t, NIC_REQ_REWIND, q->row, 0, q->wqe[0].psn); /* resend 0..2: still 2 in flight */
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == 3 && t->npkts == 6, "after REWIND: %d records %d packets, want 3 and 6", t->nrecs, t->npkts);
    push_ctl(t, NIC_REQ_RETIRED, q->row, 1, 0);            /* the READ retired: CAS, WRITE go */
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == 5 && t->npkts == 6 + 1 + 2, "after RETIRED(1): %d records %d packets, want 5 and 9",
           t->nrecs, t->npkts);
    push_ctl(t, NIC_REQ_RETIRED, q->row, 3, 0);            /* FAA retired: the last READ goes */
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == 6 && t->npkts == 10, "after RETIRED(3): %d records %d packets", t->nrecs, t->npkts);
    check_recs_all_sent(t, q, "rd depth");
    report("max_rd_atomic 2: third READ/atomic (and what follows) waits for a RETIRED; REWIND does not count twice");
    tb_free(t);
}

/* Local protection (lkey) checks of new WQEs: each bad case on its own QP, behind a good
 * SEND and ahead of another: LOC_PROT_ERR record, nothing of it sent, the rest flushed. */
static void t_lkey(void) {
    enum { PD = 7, KEY = 0x4A01, RO = 0x4B02, OTHER_PD = 0x4C03, GONE = 0x4D04 };
    static const struct { const char *what; unsigned op; uint32_t key; int64_t off; uint32_t len; } bad[] = {
        {"unknown key (other tag in the row)", NIC_WR_SEND, KEY + 1, 0, 100},
        {"MR of another PD", NIC_WR_WRITE, OTHER_PD, 0, 100},
        {"range past the MR's end", NIC_WR_WRITE, KEY, 4000, 97},
        {"range before the MR's base", NIC_WR_SEND, KEY, -1, 10},
        {"READ into an MR without LOCAL_WRITE", NIC_WR_READ, RO, 0, 64},
        {"FAA into an MR without LOCAL_WRITE", NIC_WR_FAA, RO, 0, 8},
        {"deregistered MR", NIC_WR_SEND, GONE, 0, 1},
    };
    enum { NB = sizeof bad / sizeof bad[0] };
    tb_t *t = tb_new(53, 0.2);
    setup_fns(t);
    uint64_t base = 0x70000000;
    cfg_mr(t, 2, KEY, PD, base, 4096, NIC_ACC_LOCAL_WRITE, true);
    cfg_mr(t, 2, RO, PD, base, 4096, 0, true);
    cfg_mr(t, 2, OTHER_PD, PD + 1, base, 4096, NIC_ACC_LOCAL_WRITE, true);
    cfg_mr(t, 2, GONE, PD, base, 4096, NIC_ACC_LOCAL_WRITE, true);
    cfg_mr(t, 2, GONE, PD, base, 4096, NIC_ACC_LOCAL_WRITE, false);   /* DEREG_MR */
    tqp_t *q[NB + 1];
    for (int k = 0; k <= NB; k++) {
        q[k] = new_qp(t, 2, (unsigned)k, 1, 100u * (unsigned)k, false);
        q[k]->pd = PD;
        cfg_state(t, q[k], NIC_QPS_INIT, NIC_QPS_RTR, 0);
        cfg_state(t, q[k], NIC_QPS_RTR, NIC_QPS_RTS, q[k]->psn);
        twqe_t *e = post(t, q[k], NIC_WR_SEND, 300, NIC_WQE_SIGNALED);
        e->w.lkey = RO; e->w.local_addr = base + 100;        /* a read-only MR may be sent from */
        hostmem_write(t->mem, q[k]->sq_base + 64ull * e->index, &e->w, sizeof e->w);
        if (k < NB) {
            e = post(t, q[k], bad[k].op, bad[k].len, NIC_WQE_SIGNALED);
            e->w.lkey = bad[k].key;
            e->w.local_addr = base + (uint64_t)bad[k].off;
        } else {                                             /* good: the last byte, LOCAL_WRITE */
            e = post(t, q[k], NIC_WR_READ, 96, NIC_WQE_SIGNALED);
            e->w.lkey = KEY; e->w.local_addr = base + 4000;
        }
        hostmem_write(t->mem, q[k]->sq_base + 64ull * e->index, &e->w, sizeof e->w);
        e = post(t, q[k], NIC_WR_SEND, 0, 0);                /* zero length: no lkey check */
        e->w.lkey = 0xDEAD00;
        hostmem_write(t->mem, q[k]->sq_base + 64ull * e->index, &e->w, sizeof e->w);
        ring(t, q[k]);
    }
    EXPECT(run(t, 400000), "did not go idle");
    pair_payloads(t);
    char ctx[96];
    for (int k = 0; k < NB && !failed; k++) {
        nic_wqe_rec_t got[8];
        snprintf(ctx, sizeof ctx, "lkey: %s", bad[k].what);
        int n = recs_of(t, q[k], got, 8);
        EXPECT(n == 3, "%s: %d records", ctx, n);
        check_rec(&got[0], ref_rec(q[k], 0, false, 0), q[k], 0, ctx);
        check_rec(&got[1], ref_rec(q[k], 1, false, NIC_WC_LOC_PROT_ERR), q[k], 1, ctx);
        check_rec(&got[2], ref_rec(q[k], 2, true, 0), q[k], 2, ctx);
        tpkt_t *c[8];
        EXPECT(packets_of(t, q[k], c, 8) == 2, "%s: WQE 0 is 2 packets, nothing else", ctx);
    }
    check_qp(t, q[NB], "lkey good");
    check_recs_all_sent(t, q[NB], "lkey good");
    report("lkey checks: unknown key, other PD, range, LOCAL_WRITE for READ/atomic, deregistered -> LOC_PROT_ERR");
    tb_free(t);
}

/* Flush records behind a rejected WQE count against NIC_OUTSTANDING while the completer still
 * holds WQEs (its ring has 16 slots: docs/completer.md), until RETIRED frees slots or STOP
 * says the completer's ring is empty. */
static void t_flush_window(void) {
    tb_t *t = tb_new(59, 0.2);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 0, 3, 1, 0x500, true);
    for (int i = 0; i < 10; i++) post(t, q, NIC_WR_SEND, 10, NIC_WQE_SIGNALED);
    twqe_t *e = post(t, q, NIC_WR_SEND, 10, NIC_WQE_SIGNALED);
    e->w.opcode = 9;                                          /* rejected: LOC_QP_OP_ERR */
    hostmem_write(t->mem, q->sq_base + 64ull * e->index, &e->w, sizeof e->w);
    for (int i = 0; i < 10; i++) post(t, q, NIC_WR_SEND, 10, 0);
    ring(t, q);
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == NIC_OUTSTANDING, "%d records with nothing retired, want %d", t->nrecs, NIC_OUTSTANDING);
    push_ctl(t, NIC_REQ_RETIRED, q->row, 4, 0);
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->nrecs == NIC_OUTSTANDING + 4, "%d records after RETIRED(4)", t->nrecs);
    push_ctl(t, NIC_REQ_STOP, q->row, 11, 0);                 /* the completer failed WQE 10 */
    EXPECT(run(t, 200000), "did not go idle");
    nic_wqe_rec_t got[32];
    int n = recs_of(t, q, got, 32);
    EXPECT(n == 21, "%d records after STOP, want 21", n);
    for (int i = 0; i < n && !failed; i++)
        check_rec(&got[i], ref_rec(q, i, i > 10, i == 10 ? NIC_WC_LOC_QP_OP_ERR : 0), q, i, "flush window");
    EXPECT(t->npkts == 10, "%d packets, want the 10 good SENDs", t->npkts);
    report("flush records behind a rejected WQE stay inside the 16-slot window until RETIRED / STOP");
    tb_free(t);
}

/* STOP mid-stream flushes the rest, also WQEs rung later; nothing more is sent. */
static void t_stop(void) {
    tb_t *t = tb_new(23, 0.25);
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 4, 1, 40, true);
    for (int i = 0; i < 8; i++) post(t, q, NIC_WR_WRITE, 256 * 3, NIC_WQE_SIGNALED);
    ring(t, q);
    while (t->npkts < 7 && !failed && t->cycle < 100000) step(t);
    push_ctl(t, NIC_REQ_STOP, q->row, 0, 0);
    while (t->ctl_h != t->ctl_t && t->cycle < 200000) step(t);
    int at = t->npkts;
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->npkts <= at + 1, "%d packets after STOP", t->npkts - at);
    int sent = (t->npkts + 2) / 3;                        /* WQEs with at least one packet */
    for (int i = 0; i < 3; i++) post(t, q, NIC_WR_SEND, 10, 0);
    ring(t, q);
    EXPECT(run(t, 200000), "did not go idle");
    EXPECT(t->npkts <= at + 1, "doorbell after STOP sent packets");
    nic_wqe_rec_t got[MAXR];
    int n = recs_of(t, q, got, MAXR);
    EXPECT(n == q->nw, "%d records for %d WQEs", n, q->nw);
    for (int i = 0; i < n && !failed; i++) check_rec(&got[i], ref_rec(q, i, i >= sent, 0), q, i, "stop");
    pair_payloads(t);
    int nr = ref_packets(q, 0, q->nw, refbuf, MAXP);
    for (int i = 0; i < t->npkts && i < nr && !failed; i++) check_pkt(t, &t->pkts[i], &refbuf[i], "stop", i);
    report("STOP: current packet finishes, later WQEs (and new doorbells) flushed, none sent");
    tb_free(t);
}

/* Malformed WQEs: LOC_QP_OP_ERR record, then the SQ flushes (rxe moves the QP to error). */
static void t_bad_wqe(void) {
    tb_t *t = tb_new(29, 0.2);
    setup_fns(t);
    tqp_t *q[3];
    for (int k = 0; k < 3; k++) {
        q[k] = new_qp(t, 0, (unsigned)(10 + k), 2, 1000u * (unsigned)k, true);
        post(t, q[k], NIC_WR_SEND, 700, NIC_WQE_SIGNALED);
        twqe_t *e = post(t, q[k], NIC_WR_CAS, 8, NIC_WQE_SIGNALED);
        if (k == 0) e->w.opcode = 9;                      /* not a NIC_WR_* */
        if (k == 1) e->w.length = 4;                      /* atomic length != 8 */
        if (k == 2) e->w.remote_addr |= 4;                /* unaligned atomic */
        hostmem_write(t->mem, q[k]->sq_base + 64ull * e->index, &e->w, sizeof e->w);
        post(t, q[k], NIC_WR_SEND, 10, 0);
        ring(t, q[k]);
    }
    EXPECT(run(t, 200000), "did not go idle");
    for (int k = 0; k < 3 && !failed; k++) {
        nic_wqe_rec_t got[8];
        int n = recs_of(t, q[k], got, 8);
        EXPECT(n == 3, "qp %d: %d records", k, n);
        check_rec(&got[0], ref_rec(q[k], 0, false, 0), q[k], 0, "bad");
        check_rec(&got[1], ref_rec(q[k], 1, false, NIC_WC_LOC_QP_OP_ERR), q[k], 1, "bad");
        check_rec(&got[2], ref_rec(q[k], 2, true, 0), q[k], 2, "bad");
        tpkt_t *c[8];
        EXPECT(packets_of(t, q[k], c, 8) == 2, "qp %d: WQE 0 is 2 packets, nothing else", k);
    }
    report("bad opcode / atomic length / unaligned atomic: LOC_QP_OP_ERR record, rest flushed");
    tb_free(t);
}

/* QP states: doorbell before RTS is kept; SQD finishes the started WQE only; ERR flushes;
 * RESET clears; a doorbell for another qpn is ignored. */
static void t_states(void) {
    tb_t *t = tb_new(31, 0.2);
    setup_fns(t);
    tqp_t *q = new_qp(t, 2, 8, 1, 0, false);              /* INIT */
    post(t, q, NIC_WR_SEND, 256 * 6, 0);
    post(t, q, NIC_WR_WRITE, 20, 0);
    ring(t, q);
    nic_db_t stray = {.fn = (nic_fn_t)q->fn, .num = (hls_u24)(q->qpn + 16), .index = 50};
    t->dbq[t->db_t++ % QCAP] = stray;                     /* same row, other qpn */
    EXPECT(run(t, 100000), "did not go idle");
    EXPECT(t->npkts == 0, "sent %d packets in INIT", t->npkts);
    cfg_state(t, q, NIC_QPS_INIT, NIC_QPS_RTR, 0);
    q->psn = 0x777;
    q->wqe[0].psn = 0x777;
    q->wqe[1].psn = 0x777 + 6;
    cfg_state(t, q, NIC_QPS_RTR, NIC_QPS_RTS, 0x777);
    while (t->npkts < 2 && !failed && t->cycle < 100000) step(t);
    cfg_state(t, q, NIC_QPS_RTS, NIC_QPS_SQD, 0);
    EXPECT(run(t, 100000), "did not go idle");
    EXPECT(t->npkts == 6 && t->nrecs == 1, "SQD: %d packets %d records, want 6 and 1", t->npkts, t->nrecs);
    /* the drain marker follows the started WQE's record, and leaving SQD sends the other */
    EXPECT(t->nmarks == 1 && t->marks[0].sqd_mark == NIC_SQD_MARK_ENTER &&
               t->marks[0].qp == (nic_qp_t)q->row, "SQD: %d markers, want one ENTER", t->nmarks);
    cfg_state(t, q, NIC_QPS_SQD, NIC_QPS_RTS, 0);
    EXPECT(run(t, 100000), "did not go idle");
    EXPECT(t->nmarks == 2 && t->marks[1].sqd_mark == NIC_SQD_MARK_LEAVE,
           "SQD -> RTS: %d markers, want ENTER then LEAVE", t->nmarks);
    pair_payloads(t);
    check_qp(t, q, "states");
    check_recs_all_sent(t, q, "states");
    /* ERR: posted-but-unstarted WQEs are flushed */
    cfg_quiesce(t, q, true);
    post(t, q, NIC_WR_SEND, 5, 0);
    post(t, q, NIC_WR_READ, 5, 0);
    ring(t, q);
    EXPECT(run(t, 100000), "did not go idle");
    cfg_state(t, q, NIC_QPS_RTS, NIC_QPS_ERR, 0);
    EXPECT(run(t, 100000), "did not go idle");
    nic_wqe_rec_t got[8];
    int n = recs_of(t, q, got, 8);
    EXPECT(n == 4, "%d records after ERR", n);
    for (int i = 2; i < n && !failed; i++) check_rec(&got[i], ref_rec(q, i, true, 0), q, i, "err");
    EXPECT(t->npkts == 7, "packets sent in ERR");
    /* RESET clears the row; back to RTS the ring restarts at index 0 */
    cfg_state(t, q, NIC_QPS_ERR, NIC_QPS_RESET, 0);
    EXPECT(run(t, 100000), "did not go idle");
    req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(c.sq_head == 0 && c.sq_tail == 0 && c.sq_hi == 0 && c.una == 0 && c.next_psn == 0 &&
               !c.flushing && !c.quiesced && c.offset == 0, "RESET left send state behind");
    report("INIT doorbell kept, stray qpn ignored, SQD drains the started WQE and marks it, ERR flushes, RESET clears");
    tb_free(t);
}

/* Through roce_tx and roce_rx: the requester's streams are exactly roce_tx's input format,
 * and the frames parse back to the same headers and payload. */
static void t_wire(void) {
    tb_t *t = tb_new(37, 0.2);
    t->wire = true;
    setup_fns(t);
    tqp_t *a = new_qp(t, 1, 3, 1, 0xFFFFFD, true);
    tqp_t *b = new_qp(t, 2, 12, 4, 77, true);
    for (unsigned op = 0; op < 7; op++) {
        post(t, a, op, op >= NIC_WR_CAS ? 8 : 600 + op, NIC_WQE_SOLICITED);
        post(t, b, op, op >= NIC_WR_CAS ? 8 : 2048 * 2 + 63, NIC_WQE_SIGNALED);
    }
    post(t, a, NIC_WR_SEND, 0, 0);
    ring(t, a);
    ring(t, b);
    EXPECT(run(t, 400000), "did not go idle");
    for (int k = 0; k < 200; k++) step(t);                /* let the last frames through */
    pair_payloads(t);
    check_qp(t, a, "wire");
    check_qp(t, b, "wire");
    EXPECT(t->nrxd == t->npkts && (int)t->frames == t->npkts, "%d packets, %u frames, %d parsed",
           t->npkts, t->frames, t->nrxd);
    int pi = 0;
    for (int i = 0; i < t->nrxd && i < t->npkts && !failed; i++) {
        roce_hdr_t got = t->rxd[i].hdr, *want = &t->pkts[i].h;
        EXPECT(t->rxd[i].status == ROCE_RX_OK, "frame %d: roce_rx status %u", i, (unsigned)t->rxd[i].status);
        got.pad = want->pad;                              /* TX computes PadCnt itself */
        EXPECT(desc_eq(&got, want), "frame %d: roce_rx parsed other headers (op 0x%02x psn %u)", i,
               got.opcode, (unsigned)got.psn);
        uint32_t n = (uint32_t)want->payload_len;
        if (n) {
            EXPECT(pi < t->nrxpay && t->rxpay_len[pi] == n && memcmp(t->rxpay[pi], t->pkts[i].pay, n) == 0,
                   "frame %d: payload differs after roce_tx/roce_rx", i);
            pi++;
        }
    }
    report("through roce_tx and roce_rx: frames parse back to the same headers and payload");
    tb_free(t);
}


/* ------------------------------------------------------------------ migration */
static void cfg_suspend(tb_t *t, unsigned fn, unsigned level) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_SUSPEND; c.fn = (nic_fn_t)fn; c.level = (hls_uint(2))level;
    push_cfg(t, c);
}
static void cfg_ctx(tb_t *t, const tqp_t *q, bool wr, unsigned sect, unsigned word, hls_u128 d) {
    nic_cfg_t c = {0};
    c.kind = NIC_CFG_CTX; c.fn = (nic_fn_t)q->fn; c.qp = (nic_qp_t)q->row; c.ctx_write = wr;
    c.ctx_sect = (uint8_t)(wr || sect != NIC_CTX_DIRTY ? sect : NIC_CTX_DIRTY);
    c.ctx_word = (uint8_t)word; c.ctx_data = d;
    if (sect == NIC_CTX_DIRTY) c.key = NIC_CTX_REQ_QP;
    push_cfg(t, c);
}
/* Steps until every cfg was taken and the block is back in IDLE with nothing owed. */
static void settle(tb_t *t) {
    for (int i = 0; i < 200000 && !failed && (t->cfg_h != t->cfg_t || t->ctl_h != t->ctl_t || t->st.fsm != RQ_IDLE ||
                                               t->st.tx_mark != 0); i++)
        step(t);
}
/* One context word, read through the cfg/ev ports. */
static hls_u128 ctx_get(tb_t *t, const tqp_t *q, unsigned sect, unsigned word) {
    int n0 = t->nevs;
    cfg_ctx(t, q, false, sect, word, 0);
    settle(t);
    EXPECT(t->nevs == n0 + 1 && t->evs[n0].kind == NIC_EV_CTX && t->evs[n0].fn == (nic_fn_t)q->fn,
           "context read: %d answers", t->nevs - n0);
    return t->nevs > n0 ? t->evs[n0].data : 0;
}
static int pkts_of_after(tb_t *t, const tqp_t *q, int from) {
    int n = 0;
    for (int i = from; i < t->npkts; i++) n += t->pkts[i].h.dest_qp == q->dest;
    return n;
}

/* The resume probe (DA4): q's first packet from index `from` on repeats an earlier packet (same
 * header with AckReq set, same payload): the packet with PSN `want` when want >= 0; else the
 * first packet of WQE una (PSN c->una_psn) when that WQE is a SEND/WRITE, else the last packet
 * sent before `from`. `c` is q's row as it was before RUN. The probe is taken out of the
 * capture so that check_qp sees every other packet exactly once. Call after pair_payloads. */
static void take_probe_at(tb_t *t, const tqp_t *q, int from, const req_ctx_t *c, long want_psn, const char *ctx) {
    bool una_first = want_psn >= 0 || (c->rd_mask & rd_bit(c->una)) == 0;
    uint32_t first_psn = want_psn >= 0 ? (uint32_t)want_psn : (uint32_t)c->una_psn;
    int last = -1, probe = -1, earlier = -1;
    for (int i = 0; i < t->npkts; i++) {
        if (t->pkts[i].h.dest_qp != q->dest) continue;
        if (i < from) last = i;
        else if (probe < 0) probe = i;
    }
    EXPECT(last >= 0 && probe >= 0, "%s: no packet of the QP before RUN (%d) or after it (%d)", ctx, last, probe);
    if (last < 0 || probe < 0) return;
    for (int i = 0; i < from; i++)               /* the last copy before RUN of the PSN wanted */
        if (t->pkts[i].h.dest_qp == q->dest && t->pkts[i].h.psn == (una_first ? first_psn : t->pkts[last].h.psn))
            earlier = i;
    EXPECT(earlier >= 0, "%s: no packet with PSN %u before RUN", ctx, first_psn);
    if (earlier < 0) return;
    tpkt_t *a = &t->pkts[earlier], *b = &t->pkts[probe];
    roce_hdr_t want = a->h;
    want.ack_req = 1;
    EXPECT(desc_eq(&b->h, &want), "%s: first packet after RUN (op %s psn %u ack %d) is not %s (op %s psn %u) "
           "with AckReq", ctx, op_name(b->h.opcode), (unsigned)b->h.psn, b->h.ack_req,
           una_first ? "the probed WQE's first packet" : "the last packet before it", op_name(a->h.opcode),
           (unsigned)a->h.psn);
    uint32_t n = (uint32_t)b->h.payload_len;
    EXPECT(n == 0 || (a->pay && b->pay && memcmp(a->pay, b->pay, n) == 0), "%s: the probe's payload differs", ctx);
    free(b->pay);
    memmove(b, b + 1, (size_t)(t->npkts - probe - 1) * sizeof *b);
    t->npkts--;
}
static void take_probe(tb_t *t, const tqp_t *q, int from, const req_ctx_t *c, const char *ctx) {
    take_probe_at(t, q, from, c, -1, ctx);
}

/* A stop (Suspend-Active: the blocks hear PASSIVE) in the middle of a 1 MiB WRITE: the function
 * stops at a packet boundary with no DMA read outstanding and its transmit marker follows its
 * last packet once the completer's marker came; another function goes on;
 * RUN resends the last packet once with AckReq (the probe) and continues with the next PSN
 * (check_qp: every other packet exactly once, as the reference). */
static void t_mig_active(void) {
    tb_t *t = tb_new(61, 0.3);
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 3, 5, 0xFFFFF0, true);
    tqp_t *o = new_qp(t, 2, 4, 5, 0x100, true);
    post(t, q, NIC_WR_WRITE_IMM, 1u << 20, NIC_WQE_SIGNALED);
    post(t, o, NIC_WR_SEND, 4096 * 60, 0);
    ring(t, q);
    ring(t, o);
    while (pkts_of_after(t, q, 0) < 40 && !failed && t->cycle < 400000) step(t);
    cfg_suspend(t, 1, NIC_SUSPEND_PASSIVE);
    while (t->cfg_h != t->cfg_t && t->cycle < 800000) step(t);
    int at = t->npkts, dma_at = t->dma_of[q->row], o_at = pkts_of_after(t, o, 0);
    for (int i = 0; i < 20000; i++) step(t);
    EXPECT(pkts_of_after(t, q, at) == 0, "%d packets of the suspended function", pkts_of_after(t, q, at));
    EXPECT(t->dma_of[q->row] == dma_at, "%d DMA reads of the suspended function", t->dma_of[q->row] - dma_at);
    EXPECT(pkts_of_after(t, o, 0) > o_at, "the other function stopped too");
    EXPECT(t->ntxmarks == 0, "transmit marker before the completer's");
    push_ctl(t, NIC_REQ_MIG_MARK, 16, 0, 0);
    settle(t);
    EXPECT(t->ntxmarks == 1 && t->txmarks[0].mig_mark == NIC_MARK_SRC_REQ && t->txmarks[0].mig_fn == 1 &&
               t->txmarks[0].payload_len == 0, "%d transmit markers, want one of fn 1", t->ntxmarks);
    for (int i = t->ntxmarks ? t->txmark_at[0] : 0; i < t->npkts; i++)
        EXPECT(t->pkts[i].h.dest_qp != q->dest, "packet %d of fn 1 behind its marker", i);
    req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    int sent = pkts_of_after(t, q, 0);
    EXPECT(c.next_psn == ((0xFFFFF0u + (unsigned)sent) & 0xFFFFFF) && c.offset == 4096u * (unsigned)sent,
           "saved position psn %u offset %u after %d packets", (unsigned)c.next_psn, c.offset, sent);
    cfg_suspend(t, 1, NIC_SUSPEND_RUN);
    EXPECT(run(t, 4000000), "did not go idle");
    pair_payloads(t);
    take_probe(t, q, at, &c, "mig active");
    check_qp(t, q, "mig active");
    check_qp(t, o, "mig active, other fn");
    check_recs_all_sent(t, q, "mig active");
    EXPECT(t->ntxmarks == 1, "RUN sent a marker");
    report("migration stop mid 1 MiB WRITE: stops at a packet boundary, marker behind it, RUN probes once (the WRITE's first packet) and resumes at the next PSN");
    tb_free(t);
}

/* Stopped (PASSIVE): the wqe_rec marker at once; req_ctl still applied (RETIRED moves una, REWIND the
 * position, nothing sent) until the completer's marker; then the transmit marker. */
static void t_mig_passive(void) {
    tb_t *t = tb_new(62, 0.3);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 3, 1, 1, 0x10, true);
    tqp_t *o = new_qp(t, 0, 2, 1, 0x20, true);
    for (int i = 0; i < 6; i++) post(t, q, NIC_WR_SEND, 300, NIC_WQE_SIGNALED);
    ring(t, q);
    while (pkts_of_after(t, q, 0) < 8 && !failed && t->cycle < 100000) step(t);
    cfg_suspend(t, 3, NIC_SUSPEND_PASSIVE);
    settle(t);
    int recs = t->nrecs, sent = pkts_of_after(t, q, 0);
    EXPECT(t->nmarks == 1 && t->marks[0].sqd_mark == NIC_MIG_MARK && t->marks[0].qp == 3 * 16 &&
               t->mark_at[0] == recs, "PASSIVE: %d wqe_rec markers", t->nmarks);
    EXPECT(t->ntxmarks == 0, "PASSIVE: transmit marker before the completer's");
    push_ctl(t, NIC_REQ_RETIRED, q->row, 2, q->wqe[2].psn);
    push_ctl_off(t, NIC_REQ_REWIND, q->row, 2, q->wqe[2].psn + 1, 1);
    post(t, o, NIC_WR_SEND, 100, 0);
    ring(t, o);
    EXPECT(run(t, 100000), "did not go idle");
    req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(c.una == 2 && c.una_psn == q->wqe[2].psn && c.sq_head == 2 && c.offset == 256 &&
               c.next_psn == q->wqe[2].psn + 1, "req_ctl while PASSIVE: una %u psn %u head %u off %u",
           c.una, (unsigned)c.una_psn, c.sq_head, c.offset);
    EXPECT(pkts_of_after(t, q, 0) == sent && pkts_of_after(t, o, 0) == 1, "sent while PASSIVE %d / other fn %d", pkts_of_after(t, q, 0) - sent, pkts_of_after(t, o, 0));
    EXPECT(t->ntxmarks == 0 && t->nmarks == 1, "markers before the completer's");
    push_ctl(t, NIC_REQ_MIG_MARK, 3 * 16, 0, 0);
    settle(t);
    EXPECT(t->ntxmarks == 1 && t->txmarks[0].mig_fn == 3 && t->nrecs == recs + 1, "after the completer's marker: %d tx markers",
           t->ntxmarks);
    cfg_suspend(t, 3, NIC_SUSPEND_RUN);
    EXPECT(run(t, 400000), "did not go idle after RUN");
    EXPECT(pkts_of_after(t, q, 0) > sent && t->ntxmarks == 1, "RUN resumes, no marker");
    report("migration PASSIVE: wqe_rec marker at once, req_ctl applied, transmit marker after the completer's");
    tb_free(t);
}

/* Suspend q's function to PASSIVE (the completer's marker answered) and read its two words. */
static void mig_save(tb_t *t, const tqp_t *q, hls_u128 *w0, hls_u128 *w1) {
    cfg_suspend(t, q->fn, NIC_SUSPEND_PASSIVE);
    push_ctl(t, NIC_REQ_MIG_MARK, (int)q->fn * 16, 0, 0);
    settle(t);
    *w0 = ctx_get(t, q, NIC_CTX_REQ_QP, 0);
    *w1 = ctx_get(t, q, NIC_CTX_REQ_QP, 1);
}
/* A fresh block (memories and registers zero, host memory with the SQ kept), q's function
 * PASSIVE, q loaded with NIC_CFG_QP_ATTR and the two words; nothing may move before RUN. */
static void mig_load(tb_t *t, tqp_t *q, hls_u128 w0, hls_u128 w1) {
    memset(&t->st, 0, sizeof t->st);
#ifdef RQ_RTL
    requester_rtl_free(t->rtl);
    t->rtl = requester_rtl_new();
#endif
    setup_fns(t);
    cfg_suspend(t, q->fn, NIC_SUSPEND_PASSIVE);
    push_ctl(t, NIC_REQ_MIG_MARK, (int)q->fn * 16, 0, 0);
    cfg_state(t, q, NIC_QPS_RTS, NIC_QPS_RTS, 0);
    t->cfgq[(t->cfg_t - 1) % QCAP].kind = NIC_CFG_QP_ATTR;
    cfg_ctx(t, q, true, NIC_CTX_REQ_QP, 1, w1);  /* either order: each write rederives the rest */
    cfg_ctx(t, q, true, NIC_CTX_REQ_QP, 0, w0);
    settle(t);
}
static void mig_run(tb_t *t, const tqp_t *q) {
    cfg_suspend(t, q->fn, NIC_SUSPEND_RUN);
}

/* Save a QP mid-message through the context port, load it into a fresh block with
 * NIC_CFG_QP_ATTR + context writes, RUN: the packets continue exactly where they stopped;
 * dirty bits are set by writes and cleared by their read. */
static void t_mig_ctx(void) {
    tb_t *t = tb_new(63, 0.3);
    setup_fns(t);
    tqp_t *q = new_qp(t, 2, 7, 3, 0xFFFFFC, true);
    post(t, q, NIC_WR_SEND, 1024, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_WRITE, 1024 * 40 + 9, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_SEND_IMM, 3000, NIC_WQE_SIGNALED);
    ring(t, q);
    while (pkts_of_after(t, q, 0) < 12 && !failed && t->cycle < 100000) step(t);
    cfg_suspend(t, 2, NIC_SUSPEND_PASSIVE);
    push_ctl(t, NIC_REQ_MIG_MARK, 2 * 16, 0, 0);
    settle(t);
    req_ctx_t src = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(ctx_get(t, q, NIC_CTX_DIRTY, 0) == (hls_u128)1 << 7, "dirty: slot 7 of fn 2");
    EXPECT(ctx_get(t, q, NIC_CTX_DIRTY, 0) == 0, "dirty: cleared by the read");
    hls_u128 w0 = ctx_get(t, q, NIC_CTX_REQ_QP, 0), w1 = ctx_get(t, q, NIC_CTX_REQ_QP, 1);
    EXPECT((uint16_t)(w0 >> NIC_CTX_REQ_SQ_HEAD) == src.sq_head && (uint16_t)(w0 >> NIC_CTX_REQ_UNA) == src.una &&
               (uint32_t)(w0 >> NIC_CTX_REQ_NEXT_PSN) % (1u << 24) == src.next_psn &&
               (uint32_t)(w1 >> (NIC_CTX_REQ_OFFSET - 128)) == src.offset && src.offset != 0,
           "image words: head %u una %u psn %u offset %u", src.sq_head, src.una, (unsigned)src.next_psn, src.offset);
    EXPECT(ctx_get(t, q, NIC_CTX_DIRTY, 0) == 0, "a context read dirtied the row");
    int sent = t->npkts;
    mig_load(t, q, w0, w1);
    req_ctx_t dst = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(ctx_get(t, q, NIC_CTX_REQ_QP, 0) == w0 && ctx_get(t, q, NIC_CTX_REQ_QP, 1) == w1, "loaded words read back");
    EXPECT(dst.next_psn == src.next_psn && dst.offset == src.offset && dst.sq_head == src.sq_head &&
               dst.sq_tail == src.sq_tail && dst.state == NIC_QPS_RTS && dst.pmtu == 3 && dst.qpn == q->qpn,
           "loaded row differs");
    EXPECT(ctx_get(t, q, NIC_CTX_DIRTY, 0) == (hls_u128)1 << 7, "dirty after the load");
    EXPECT(t->npkts == sent, "sent before RUN");
    mig_run(t, q);
    EXPECT(run(t, 1000000), "did not go idle");
    pair_payloads(t);
    take_probe(t, q, sent, &dst, "mig ctx");
    check_qp(t, q, "mig ctx");
    report("migration context port: save mid-message, load into a fresh block, RUN continues; dirty bits");
    tb_free(t);
}

/* Ring rebuild: 3 outstanding WQEs (a 7-packet WRITE, a 5-response READ, a 3-packet SEND
 * one packet in; nothing retired) and one not started, PSNs across the 2^24 wrap. Saved,
 * loaded into a fresh block: after RUN its first records equal the source's field by field
 * (PSNs from una_psn), one packet is resent (the probe), the SEND continues at the saved PSN, then the
 * fourth WQE starts. A second load whose next PSN disagrees with the WQEs: no packet, an
 * event QP_ERR, the WQEs from the one that disagrees on flushed (none lost). */
static void t_mig_rebuild(void) {
    tb_t *t = tb_new(64, 0.3);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 5, 1, 0xFFFFFA, true);
    post(t, q, NIC_WR_WRITE, 256 * 6 + 10, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_READ, 256 * 5, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_SEND, 700, 0);
    post(t, q, NIC_WR_SEND_IMM, 300, NIC_WQE_SIGNALED);
    ring(t, q);
    while (pkts_of_after(t, q, 0) < 9 && !failed && t->cycle < 100000) step(t);
    hls_u128 w0, w1;
    mig_save(t, q, &w0, &w1);
    req_ctx_t src = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(src.una == 0 && src.sq_hi == 3 && src.sq_head == 2 && src.offset != 0,
           "source: una %u hi %u head %u offset %u, want 0 3 2 >0", src.una, src.sq_hi, src.sq_head, src.offset);
    nic_wqe_rec_t before[8];
    int nsrc = recs_of(t, q, before, 8), sent = t->npkts;
    EXPECT(nsrc == 3, "source: %d records", nsrc);
    mig_load(t, q, w0, w1);
    EXPECT(t->nrecs == nsrc && t->npkts == sent, "records or packets before RUN");
    mig_run(t, q);
    EXPECT(run(t, 1000000), "did not go idle");
    nic_wqe_rec_t got[16];
    int n = recs_of(t, q, got, 16);
    EXPECT(n == nsrc + 3 + 1, "%d records after the load, want the 3 rebuilt and 1 new", n - nsrc);
    for (int i = 0; i < 3 && n >= nsrc + 3 && !failed; i++)
        EXPECT(rec_eq(&got[nsrc + i], &before[i]), "rebuilt record %d (idx %u psn %u..%u) differs from the source's "
               "(idx %u psn %u..%u)", i, got[nsrc + i].wqe_index, (unsigned)got[nsrc + i].first_psn,
               (unsigned)got[nsrc + i].last_psn, before[i].wqe_index, (unsigned)before[i].first_psn,
               (unsigned)before[i].last_psn);
    if (n == nsrc + 4) check_rec(&got[nsrc + 3], ref_rec(q, 3, false, 0), q, 3, "rebuild: the new WQE");
    EXPECT(t->st.wqes_started == 1, "wqes_started %u after the load: rebuilt records count as starts",
           (unsigned)t->st.wqes_started);
    pair_payloads(t);
    take_probe(t, q, sent, &src, "rebuild");
    EXPECT(t->npkts > sent && t->pkts[sent].h.psn == src.next_psn, "first packet after the probe at psn %u, saved %u",
           t->npkts > sent ? (unsigned)t->pkts[sent].h.psn : 0u, (unsigned)src.next_psn);
    check_qp(t, q, "rebuild");
    report("migration ring rebuild: records of WQEs una..hi-1 equal the source's, sending continues at the saved PSN");

    /* the same image with next_psn one too far: the QP is broken, nothing is sent */
    hls_u128 psn_field = (hls_u128)0xFFFFFF << NIC_CTX_REQ_NEXT_PSN;
    hls_u128 bad0 = (w0 & ~psn_field) | ((hls_u128)((src.next_psn + 1) & 0xFFFFFF) << NIC_CTX_REQ_NEXT_PSN);
    int r0 = t->nrecs, p0 = t->npkts;
    mig_load(t, q, bad0, w1);
    int e1 = t->nevs;
    mig_run(t, q);
    EXPECT(run(t, 1000000), "broken: did not go idle");
    EXPECT(t->npkts == p0, "broken: %d packets sent", t->npkts - p0);
    int nerr = 0;
    for (int i = e1; i < t->nevs; i++)
        nerr += t->evs[i].kind == NIC_EV_QP_ERR && t->evs[i].qp == (nic_qp_t)q->row;
    EXPECT(nerr == 1 && t->nevs == e1 + 1, "broken: %d QP_ERR events of %d", nerr, t->nevs - e1);
    n = 0;
    for (int i = r0; i < t->nrecs; i++) {
        if (t->recs[i].qp != (nic_qp_t)q->row) continue;
        bool want_flush = n >= 2;            /* WQEs 0, 1 agree; the SEND at sq_head does not */
        EXPECT(t->recs[i].wqe_index == n && t->recs[i].flush == want_flush,
               "broken: record %d idx %u flush %d", n, t->recs[i].wqe_index, t->recs[i].flush);
        if (!want_flush) EXPECT(rec_eq(&t->recs[i], &before[n]), "broken: record %d differs from the source's", n);
        n++;
    }
    EXPECT(n == 4, "broken: %d records, want 2 rebuilt and 2 flushed", n);
    report("migration ring rebuild: a saved PSN the WQEs disagree with raises QP_ERR, sends nothing, flushes the rest");
    tb_free(t);
}

/* The resume probe between WQEs. With WQE una a SEND/WRITE: its first packet (q: a 4-packet
 * SEND; w: a WRITE before a READ), then the position returns; with una a READ: the last
 * packet, the WQE before the position fetched again (r: a READ, then a WRITE's only packet;
 * a READ probe would make the peer send its whole response again). Then, with everything
 * sent acknowledged (RETIRED up to the position), RUN sends nothing. */
static void t_mig_probe(void) {
    tb_t *t = tb_new(65, 0.3);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 6, 1, 0xFFFFFE, true);
    tqp_t *r = new_qp(t, 2, 6, 1, 0x200, true);
    tqp_t *w = new_qp(t, 3, 6, 1, 0x400, true);
    post(t, q, NIC_WR_SEND, 256 * 3 + 5, NIC_WQE_SIGNALED);
    post(t, r, NIC_WR_READ, 256 * 4, NIC_WQE_SIGNALED);
    post(t, r, NIC_WR_WRITE, 100, 0);
    post(t, w, NIC_WR_WRITE, 256 * 2, 0);
    post(t, w, NIC_WR_READ, 256 * 4, NIC_WQE_SIGNALED);
    ring(t, q);
    ring(t, r);
    ring(t, w);
    EXPECT(run(t, 100000), "did not go idle");
    int sent = t->npkts;
    req_ctx_t cq = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]), cr = ctx_unpack(t->st.ctx.hls_mem_cell[r->row]),
              cw = ctx_unpack(t->st.ctx.hls_mem_cell[w->row]);
    for (unsigned fn = 1; fn <= 3; fn++) {
        cfg_suspend(t, fn, NIC_SUSPEND_PASSIVE);
        cfg_suspend(t, fn, NIC_SUSPEND_RUN);
    }
    EXPECT(run(t, 100000), "did not go idle after RUN");
    pair_payloads(t);
    EXPECT(pkts_of_after(t, q, sent) == 1 && pkts_of_after(t, r, sent) == 1 && pkts_of_after(t, w, sent) == 1,
           "packets after RUN: %d %d %d, want one probe each", pkts_of_after(t, q, sent), pkts_of_after(t, r, sent),
           pkts_of_after(t, w, sent));
    take_probe(t, q, sent, &cq, "probe, SEND at una");
    take_probe(t, r, sent, &cr, "probe, READ at una");
    take_probe(t, w, sent, &cw, "probe, WRITE at una before a READ");
    EXPECT(t->npkts == sent, "%d packets besides the probes", t->npkts - sent);
    check_qp(t, q, "probe, SEND at una");
    check_qp(t, r, "probe, READ at una");
    check_qp(t, w, "probe, WRITE at una before a READ");
    req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(c.sq_head == 1 && c.offset == 0 && c.next_psn == 2 && !c.ret, "SEND QP after its probe: head %u offset %u psn %u ret %d",
           c.sq_head, c.offset, (unsigned)c.next_psn, c.ret);
    c = ctx_unpack(t->st.ctx.hls_mem_cell[w->row]);
    EXPECT(c.sq_head == cw.sq_head && c.next_psn == cw.next_psn && !c.ret, "WRITE QP after its probe: head %u psn %u ret %d",
           c.sq_head, (unsigned)c.next_psn, c.ret);
    push_ctl(t, NIC_REQ_RETIRED, q->row, 1, 2);
    cfg_suspend(t, 1, NIC_SUSPEND_PASSIVE);
    cfg_suspend(t, 1, NIC_SUSPEND_RUN);
    EXPECT(run(t, 100000), "did not go idle after the second RUN");
    EXPECT(pkts_of_after(t, q, sent) == 0, "%d packets with nothing outstanding", pkts_of_after(t, q, sent));
    report("migration resume probe: WQE una's first packet for a SEND/WRITE, the last packet for a READ; none when all acknowledged");
    tb_free(t);
}

/* REISSUE naming a SEND/WRITE (the completer's forward move, docs/completer.md): the
 * position moves to its PSN only while it is behind it in that WQE; a REWIND still goes
 * back. Checked on the row with the function stopped (nothing sent meanwhile). */
static void t_reissue_forward(void) {
    tb_t *t = tb_new(68, 0.3);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 3, 2, 1, 0xFFFFFE, true);
    post(t, q, NIC_WR_WRITE, 256 * 6, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_SEND, 100, 0);
    ring(t, q);
    EXPECT(run(t, 100000), "did not go idle");
    cfg_suspend(t, q->fn, NIC_SUSPEND_PASSIVE);
    uint32_t first = (uint32_t)q->wqe[0].psn;
    static const struct { unsigned kind; uint32_t k, want_k; const char *what; } st[] = {
        {NIC_REQ_REWIND, 2, 2, "REWIND back into the WRITE"},
        {NIC_REQ_REISSUE, 4, 4, "REISSUE ahead of the position: forward"},
        {NIC_REQ_REISSUE, 3, 4, "REISSUE behind the position: ignored"},
        {NIC_REQ_REISSUE, 4, 4, "REISSUE at the position: nothing"},
        {NIC_REQ_REWIND, 1, 1, "REWIND behind the position: back"},
    };
    for (unsigned i = 0; i < sizeof st / sizeof st[0] && !failed; i++) {
        push_ctl_off(t, st[i].kind, q->row, q->wqe[0].index, (first + st[i].k) % (1u << 24), st[i].k);
        settle(t);
        req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
        EXPECT(c.sq_head == q->wqe[0].index && c.next_psn == (first + st[i].want_k) % (1u << 24) &&
                   c.offset == 256 * st[i].want_k,
               "%s: head %u psn %u offset %u, want psn %u", st[i].what, c.sq_head, (unsigned)c.next_psn, c.offset,
               (first + st[i].want_k) % (1u << 24));
    }
    report("REISSUE of a SEND/WRITE: forward to its PSN while behind it, never back; REWIND goes back");
    tb_free(t);
}

/* A REISSUE of a READ/atomic that carries the ACK gone past it (nic_req_ctl_t.acked, lossy
 * migration seed 65): once the re-issued request is out, the requester sends nothing the ACK
 * covers; the RETIRED that follows moves it past what the peer has, mid-message at WQE una.
 * a: the position was the CAS itself (a timeout round reached it); b: a return mid-WRITE the
 * ACK covers; c: a return past the ACK goes on at once; d: a REWIND ends a hold. */
static void push_reissue_acked(tb_t *t, const tqp_t *q, int i, uint32_t acked_psn) {
    nic_req_ctl_t k = {.kind = NIC_REQ_REISSUE, .qp = (nic_qp_t)q->row, .wqe_index = q->wqe[i].index,
                       .psn = q->wqe[i].psn, .acked = true, .acked_psn = (hls_u24)(acked_psn % (1u << 24))};
    t->ctlq[t->ctl_t++ % QCAP] = k;
}
static void t_reissue_hold(void) {
    for (int sc = 0; sc < 4 && !failed; sc++) {
        tb_t *t = tb_new(80 + sc, 0.3);
        t->auto_retire = false;
        setup_fns(t);
        tqp_t *q = new_qp(t, 2, 5, 1, 0xFFFFFC, true);      /* MTU 256, PSNs across the wrap */
        post(t, q, NIC_WR_SEND, 100, 0);                     /* 0: 1 packet */
        post(t, q, NIC_WR_CAS, 8, NIC_WQE_SIGNALED);         /* 1 */
        post(t, q, NIC_WR_WRITE, 256 * 6, 0);                /* 2: 6 packets */
        post(t, q, NIC_WR_SEND, 256 * 4, NIC_WQE_SIGNALED);  /* 3: 4 packets */
        ring(t, q);
        int nref = ref_packets(q, 0, q->nw, refbuf, MAXP);   /* 12 */
        int before = 0;
        if (sc == 0) {
            /* all sent; a timeout round from the CAS (REWIND), then the ACK past it: REISSUE
             * with the peer having WQE 2 and two packets of WQE 3 */
            EXPECT(run(t, 100000), "did not go idle");
            before = t->npkts;
            push_ctl(t, NIC_REQ_REWIND, q->row, q->wqe[1].index, q->wqe[1].psn);
            push_reissue_acked(t, q, 1, q->wqe[3].psn + 1);
        } else {
            while (t->npkts < 5 && !failed && t->cycle < 100000) step(t); /* 3 WRITE packets out */
            before = t->npkts;
            /* b, d: the peer has 5 of the WRITE's 6; c: only its first 2 (the return is the 4th) */
            uint32_t has = sc == 2 ? q->wqe[2].psn + 1 : q->wqe[2].psn + 4;
            push_reissue_acked(t, q, 1, has);
        }
        EXPECT(run(t, 200000), "scenario %c: did not go idle", 'a' + sc);
        int cas = -1;
        for (int i = before; i < t->npkts; i++)
            if (t->pkts[i].h.opcode == ROCE_OP_COMPARE_SWAP) cas = i;
        if (sc == 0 || sc == 1) {
            /* the CAS alone, then nothing until RETIRED */
            EXPECT(cas == before && t->npkts == before + 1, "scenario %c: %d packets after the REISSUE (CAS at %d), "
                   "want the CAS alone", 'a' + sc, t->npkts - before, cas - before);
            int wqe = sc == 0 ? 3 : 2;
            uint32_t k = sc == 0 ? 2 : 5;                    /* PSNs of WQE `wqe` the peer has */
            /* as the completer: the CAS and the WQEs the ACK covers whole are retired */
            push_ctl(t, NIC_REQ_RETIRED, q->row, q->wqe[wqe].index, q->wqe[wqe].psn);
            EXPECT(run(t, 200000), "scenario %c: did not go idle after RETIRED", 'a' + sc);
            int n = ref_resume(q, wqe, k, refbuf, MAXP);
            EXPECT(t->npkts == before + 1 + n, "scenario %c: %d packets after RETIRED, want %d (WQE %d from its packet %u)",
                   'a' + sc, t->npkts - before - 1, n, wqe, k);
            pair_payloads(t);
            for (int i = 0; i < n && before + 1 + i < t->npkts && !failed; i++)
                check_pkt(t, &t->pkts[before + 1 + i], &refbuf[i], "after the hold", before + 1 + i);
        } else if (sc == 2) {
            /* the return is past what the peer has: back mid-WRITE at once, as before */
            EXPECT(t->npkts == nref + 1, "scenario c: %d packets, want the first pass and the CAS", t->npkts);
        } else {
            /* held after the CAS; a REWIND (a NAK's go-back-N round from the WRITE) is sent */
            EXPECT(t->npkts == before + 1, "scenario d: %d packets after the REISSUE, want the CAS", t->npkts - before);
            push_ctl(t, NIC_REQ_REWIND, q->row, q->wqe[2].index, q->wqe[2].psn);
            EXPECT(run(t, 200000), "scenario d: did not go idle after the REWIND");
            int n = ref_packets(q, 2, q->nw, refbuf, MAXP);
            EXPECT(t->npkts == before + 1 + n, "scenario d: %d packets after the REWIND, want %d", t->npkts - before - 1, n);
        }
        if (sc >= 2) pair_payloads(t);                       /* once: it takes the payloads in order */
        check_recs_all_sent(t, q, "reissue hold");
        tb_free(t);
    }
    report("REISSUE of a READ/atomic with the ACK past it: the request alone, then nothing the ACK covers; "
           "RETIRED moves on mid-message; a REWIND ends the hold");
}

/* The resume probe after a load with a READ/atomic at una (lossy seeds 107, 183 of the
 * migration sweep): a peer that NAKed a later PSN drops the last packet silently
 * (9.7.5.1.2) but answers any PSN before its expected one (C9-105), so the probe is the
 * first packet of the first SEND/WRITE behind the READ and FAA (found by the ring rebuild),
 * then the position returns; RUN resends nothing else. Without a SEND/WRITE sent behind
 * una's READ (r: only READs out), the last packet as before. */
static void t_mig_probe_read(void) {
    tb_t *t = tb_new(66, 0.3);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *q = new_qp(t, 1, 4, 1, 0xFFFFFB, true);
    post(t, q, NIC_WR_READ, 256 * 4, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_FAA, 8, NIC_WQE_SIGNALED);
    post(t, q, NIC_WR_WRITE, 256 * 3, 0);
    post(t, q, NIC_WR_SEND, 100, NIC_WQE_SIGNALED);
    ring(t, q);
    EXPECT(run(t, 100000), "did not go idle");
    hls_u128 w0, w1;
    mig_save(t, q, &w0, &w1);
    req_ctx_t src = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(src.una == 0 && src.sq_head == 4 && (src.rd_mask & 3) == 3, "source: una %u head %u rd_mask %x",
           src.una, src.sq_head, src.rd_mask);
    int sent = t->npkts;
    mig_load(t, q, w0, w1);
    mig_run(t, q);
    EXPECT(run(t, 1000000), "did not go idle after RUN");
    pair_payloads(t);
    EXPECT(pkts_of_after(t, q, sent) == 1, "%d packets after RUN, want the probe", pkts_of_after(t, q, sent));
    take_probe_at(t, q, sent, &src, (long)((src.una_psn + 4 + 1) & 0xFFFFFF), "probe, READ and FAA at una");
    check_qp(t, q, "probe, READ and FAA at una");
    req_ctx_t c = ctx_unpack(t->st.ctx.hls_mem_cell[q->row]);
    EXPECT(c.sq_head == src.sq_head && c.offset == src.offset && c.next_psn == src.next_psn && !c.ret && !c.probe_at,
           "after the probe: head %u offset %u psn %u ret %d probe_at %d, saved head %u psn %u", c.sq_head, c.offset,
           (unsigned)c.next_psn, c.ret, c.probe_at, src.sq_head, (unsigned)src.next_psn);
    report("migration resume probe, READ/atomic at una: the first SEND/WRITE behind it, then back");
    tb_free(t);

    t = tb_new(67, 0.3);
    t->auto_retire = false;
    setup_fns(t);
    tqp_t *r = new_qp(t, 2, 5, 1, 0x300, true);
    post(t, r, NIC_WR_READ, 256 * 2, NIC_WQE_SIGNALED);
    post(t, r, NIC_WR_READ, 256 * 3, NIC_WQE_SIGNALED);
    ring(t, r);
    EXPECT(run(t, 100000), "r: did not go idle");
    mig_save(t, r, &w0, &w1);
    src = ctx_unpack(t->st.ctx.hls_mem_cell[r->row]);
    sent = t->npkts;
    mig_load(t, r, w0, w1);
    mig_run(t, r);
    EXPECT(run(t, 1000000), "r: did not go idle after RUN");
    pair_payloads(t);
    EXPECT(pkts_of_after(t, r, sent) == 1, "r: %d packets after RUN, want the probe", pkts_of_after(t, r, sent));
    take_probe(t, r, sent, &src, "probe, only READs out");
    check_qp(t, r, "probe, only READs out");
    report("migration resume probe, only READs out: the last packet");
    tb_free(t);
}

int main(void) {
    refbuf = calloc(MAXP, sizeof *refbuf);
    capbuf = calloc(MAXP, sizeof *capbuf);
    for (unsigned pmtu = 1; pmtu <= 5; pmtu++) t_mtu(pmtu, 0.0, 100 + pmtu);
    for (unsigned pmtu = 1; pmtu <= 5; pmtu++) t_mtu(pmtu, 0.4, 200 + pmtu);
    t_big_wrap();
    t_multi(0.0, 41);
    t_multi(0.5, 43);
    t_round_robin();
    t_quiesce();
    t_rewind();
    t_rewind_mid();
    t_rewind_read_returns();
    t_retired_past_rewind();
    t_outstanding();
    t_rd_depth();
    t_lkey();
    t_flush_window();
    t_stop();
    t_bad_wqe();
    t_states();
    t_wire();
    t_mig_active();
    t_mig_passive();
    t_mig_ctx();
    t_mig_rebuild();
    t_mig_probe();
    t_mig_probe_read();
    t_reissue_forward();
    t_reissue_hold();
    free(refbuf);
    free(capbuf);
    return nfail ? 1 : 0;
}
