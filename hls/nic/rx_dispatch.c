/* rx_dispatch — routes received RoCEv2 packets to the responder or the completer
 * (docs/rx_dispatch.md).
 *
 * in:  rx_desc  roce_rx's descriptor, one per frame, AFTER the frame's payload beats
 *      rx_pay   roce_rx's payload: ceil(payload_len/64) beats per frame, none when 0
 *      cfg      ctrl's configuration fan-out: NIC_CFG_FN (addresses), NIC_CFG_SUSPEND (the
 *               per-function gate), NIC_CFG_CTX (NIC_CTX_FN); other kinds are ignored
 * out: req_pkt  + req_pay    request packets (SEND*, RDMA_WRITE*, READ_REQUEST, atomics)
 *      resp_pkt + resp_pay   response packets (READ_RESPONSE*, ACKNOWLEDGE, ATOMIC_ACK)
 *      ev       NIC_EV_CTX answers to ctrl
 *      counters  to_responder, to_completer, dropped_bad, dropped_addr, dropped_len,
 *                dropped_mig
 *
 * roce_rx sends payload before it knows whether the frame is good, so payload beats are
 * stored in a 128-beat ring (two 4096-byte frames) and released only when the descriptor
 * says so: a packet's nic_rx_pkt_t first, then its beats replayed from the ring. A frame
 * that is bad, for no configured function, or longer than 4096 bytes is dropped by
 * moving the ring's read pointer past its beats. Reception of the next frame continues
 * while one is being forwarded.
 *
 * Migration (docs/migration.md): a function in PASSIVE has its gate closed: its packets are
 * dropped and counted (dropped_mig); a dropped request's header alone (gated, no beats) still
 * goes to the responder, which notes that the QP's peer has sent. Entering PASSIVE queues the
 * function's marker for both packet outputs; the forwarder sends it from IDLE, so it follows
 * the last packet (and its beats) that passed the gate. */
#include "hls.h"
#include "nic_if.h"
#include "nic_ctx.h"

#define RXD_RING_BITS 7
#define RXD_RING (1 << RXD_RING_BITS)  /* beats in the payload ring */
#define RXD_MAX_BEATS 64                /* 4096 bytes: the largest IB MTU */

typedef struct {
    HLS_STREAM(roce_rx_desc_t) rx_desc;
    HLS_STREAM(nic_beat_t) rx_pay;
    HLS_STREAM(nic_cfg_t) cfg;
    bool req_pkt_ready;
    bool req_pay_ready;
    bool resp_pkt_ready;
    bool resp_pay_ready;
    bool ev_ready;
} rx_dispatch_in;

typedef struct {
    bool rx_desc_ready;
    bool rx_pay_ready;
    bool cfg_ready;
    HLS_STREAM(nic_rx_pkt_t) req_pkt;
    HLS_STREAM(nic_beat_t) req_pay;
    HLS_STREAM(nic_rx_pkt_t) resp_pkt;
    HLS_STREAM(nic_beat_t) resp_pay;
    uint32_t to_responder;
    uint32_t to_completer;
    uint32_t dropped_bad;   /* roce_rx status != OK (or an opcode no RC block takes) */
    uint32_t dropped_addr;  /* destination IP/MAC of no configured function */
    uint32_t dropped_len;   /* payload over 4096 bytes */
    uint32_t dropped_mig;   /* for a function whose gate is closed (PASSIVE) */
    HLS_STREAM(nic_event_t) ev;
} rx_dispatch_out;

/* One PCIe function's addresses (NIC_CMD_SET_FN via NIC_CFG_FN). */
typedef struct {
    bool valid;
    uint64_t mac;
    uint32_t ip;
} rxd_fn_t;

enum { RXD_IDLE = 0, RXD_PKT = 1, RXD_BEATS = 2, RXD_MARK = 3 };

typedef struct {
    HLS_MEM(hls_u512, RXD_RING) ring;  /* payload bytes only: bytes/last follow from the length */
    hls_uint(RXD_RING_BITS + 1) wp;    /* ring write pointer (one extra bit: full vs empty) */
    hls_uint(RXD_RING_BITS + 1) rp;    /* first beat not yet forwarded or dropped */
    uint8_t rx_cnt;                    /* beats of the frame being received, saturates at 64 */
    uint8_t big_done;                  /* received, not yet described frames over 64 beats */
    /* a function's addresses must be compared with every packet in one cycle: a 4-entry
     * CAM, so registers rather than an HLS_MEM */
    rxd_fn_t fn[NIC_FNS];
    /* the packet being forwarded */
    hls_uint(2) phase;
    bool to_resp;                      /* to the completer (a response opcode) */
    nic_rx_pkt_t pkt;
    uint8_t beats;                     /* its payload beats, 0..64 */
    uint8_t sent;                      /* beats already sent */
    uint32_t cnt_req, cnt_resp, cnt_bad, cnt_addr, cnt_len, cnt_mig;
    /* migration, one bit per function: gate closed; markers still to send per output */
    hls_uint(NIC_FNS) passive, mark_req, mark_resp;
    nic_fn_t mark_fn;                  /* RXD_MARK: the function whose marker is offered */
    bool mark_to_req, mark_to_resp;    /* RXD_MARK: outputs that have not taken it yet */
    bool ev_valid;                     /* a NIC_EV_CTX answer offered on ev */
    nic_event_t ev;
} rx_dispatch_state;

/* The function's NIC_CTX_FN word (nic_ctx.h). */
HLS_INLINE hls_u128 fn_word(const rxd_fn_t *f) {
    return (hls_u128)f->mac | ((hls_u128)f->ip << NIC_CTX_FN_IP) | ((hls_u128)f->valid << NIC_CTX_FN_VALID);
}

/* Request opcodes go to the responder, response opcodes to the completer (IBTA vol. 1
 * table 38; rxe_rcv: pkt->mask & RXE_REQ_MASK picks rxe_resp vs rxe_comp). */
HLS_INLINE bool is_request(uint8_t op) {
    return op <= ROCE_OP_RDMA_READ_REQUEST || op == ROCE_OP_COMPARE_SWAP || op == ROCE_OP_FETCH_ADD;
}
HLS_INLINE bool is_response(uint8_t op) {
    return op >= ROCE_OP_READ_RESPONSE_FIRST && op <= ROCE_OP_ATOMIC_ACKNOWLEDGE;
}

HLS_TOP void rx_dispatch(const rx_dispatch_in *in, rx_dispatch_out *out, rx_dispatch_state *st) {
    out->to_responder = st->cnt_req;
    out->to_completer = st->cnt_resp;
    out->dropped_bad = st->cnt_bad;
    out->dropped_addr = st->cnt_addr;
    out->dropped_len = st->cnt_len;
    out->dropped_mig = st->cnt_mig;

    /* ---- the context answer ---- */
    out->ev.valid = st->ev_valid;
    out->ev.data = st->ev;
    if (in->ev_ready) st->ev_valid = false;

    /* ---- configuration: a function's MAC and IP (valid = 0 removes it), its gate, its
     * context word; held while an answer waits, so no answer is ever overwritten ---- */
    out->cfg_ready = !st->ev_valid;
    if (in->cfg.valid && out->cfg_ready) {
        const nic_cfg_t *c = &in->cfg.data;
        rxd_fn_t *f = &st->fn[c->fn];
        unsigned b = 1u << (unsigned)c->fn;
        if (c->kind == NIC_CFG_FN) {
            f->valid = c->valid;
            f->mac = c->mac & 0xFFFFFFFFFFFFull;
            f->ip = c->ip;
        } else if (c->kind == NIC_CFG_SUSPEND) {
            bool enter = c->level == NIC_SUSPEND_PASSIVE && !(st->passive & b);
            st->passive = (hls_uint(NIC_FNS))(c->level == NIC_SUSPEND_PASSIVE ? st->passive | b : st->passive & ~b);
            if (enter) {
                st->mark_req |= (hls_uint(NIC_FNS))b;
                st->mark_resp |= (hls_uint(NIC_FNS))b;
            }
        } else if (c->kind == NIC_CFG_CTX) {
            /* NIC_CTX_FN, word 0 (ctrl checked section, word and row) */
            if (c->ctx_write) {
                f->mac = (uint64_t)c->ctx_data & 0xFFFFFFFFFFFFull;
                f->ip = (uint32_t)(c->ctx_data >> NIC_CTX_FN_IP);
                f->valid = (c->ctx_data >> NIC_CTX_FN_VALID) & 1;
            }
            st->ev = (nic_event_t){0};
            st->ev.kind = NIC_EV_CTX;
            st->ev.fn = c->fn;
            st->ev.data = c->ctx_write ? c->ctx_data : fn_word(f);
            st->ev_valid = true;
        }
    }

    /* ---- reception: store payload beats in the ring ---- */
    hls_uint(RXD_RING_BITS + 1) used = st->wp - st->rp;
    bool discard = st->rx_cnt >= RXD_MAX_BEATS; /* beats past 4096 bytes are not kept */
    out->rx_pay_ready = discard || used != RXD_RING;
    hls_uint(RXD_RING_BITS + 1) wp = st->wp;
    if (hls_fire(in->rx_pay.valid, out->rx_pay_ready)) {
        if (!discard) {
            hls_mem_write(&st->ring, st->wp, in->rx_pay.data.data);
            wp = st->wp + 1;
        }
        if (in->rx_pay.data.last) {
            st->rx_cnt = 0;
            if (discard) st->big_done++;
        } else if (!discard) {
            st->rx_cnt++;
        }
    }
    st->wp = wp;

    /* ---- forwarding ---- */
    switch (st->phase) {
    case RXD_IDLE: {
        /* a marker waits: it goes before any later packet */
        if ((st->mark_req | st->mark_resp) != 0) {
            unsigned pend = st->mark_req | st->mark_resp;
            nic_fn_t f = (nic_fn_t)__builtin_ctz(pend);
            unsigned b = 1u << (unsigned)f;
            st->mark_fn = f;
            st->mark_to_req = (st->mark_req & b) != 0;
            st->mark_to_resp = (st->mark_resp & b) != 0;
            st->mark_req &= (hls_uint(NIC_FNS))~b;
            st->mark_resp &= (hls_uint(NIC_FNS))~b;
            st->phase = RXD_MARK;
            break;
        }
        /* A descriptor is taken once all of its frame's beats are in the ring (its FIFO
         * may run ahead of the payload FIFO). */
        const roce_hdr_t *h = &in->rx_desc.data.hdr;
        unsigned nbeats = ((unsigned)h->payload_len + 63) >> 6;
        bool big = nbeats > RXD_MAX_BEATS;
        unsigned stored = big ? RXD_MAX_BEATS : nbeats;
        bool complete = big ? st->big_done != 0 : (unsigned)used >= nbeats;
        out->rx_desc_ready = complete;
        if (!hls_fire(in->rx_desc.valid, complete)) break;
        if (big) st->big_done--;

        /* the function whose IP and MAC the packet is addressed to (lowest index wins) */
        bool found = false;
        nic_fn_t fn = 0;
        for (int i = NIC_FNS - 1; i >= 0; i--)
            if (st->fn[i].valid && st->fn[i].ip == h->dst_ip && st->fn[i].mac == (h->dst_mac & 0xFFFFFFFFFFFFull)) {
                found = true;
                fn = (nic_fn_t)i;
            }
        bool ok = in->rx_desc.data.status == ROCE_RX_OK;
        bool req = is_request(h->opcode), resp = is_response(h->opcode);
        if (!ok || !(req || resp)) {
            st->cnt_bad++;
        } else if (big) {
            st->cnt_len++;
        } else if (!found) {
            st->cnt_addr++;
        } else if ((st->passive >> (unsigned)fn) & 1) {
            /* stopped: the peer resends after the resume. A request's header still goes to
             * the responder, without payload, so that a QP whose peer's first requests fall
             * in the suspension also sends its resume NAK (docs/migration.md) */
            st->cnt_mig++;
            if (req) {
                st->phase = RXD_PKT;
                st->to_resp = false;
                st->pkt.hdr = *h;
                st->pkt.hdr.payload_len = 0;
                st->pkt.fn = fn;
                st->pkt.gated = true;
                st->beats = 0;
            }
        } else {
            st->phase = RXD_PKT;
            st->to_resp = resp;
            st->pkt.hdr = *h;
            st->pkt.fn = fn;
            st->pkt.gated = false;
            st->beats = (uint8_t)nbeats;
            st->sent = 0;
            hls_mem_read(&st->ring, st->rp); /* beat 0, ready when the packet has left */
            break;
        }
        st->rp = st->rp + stored; /* dropped (or only its header goes on): free its beats */
        break;
    }
    case RXD_PKT: {
        bool ready = st->to_resp ? in->resp_pkt_ready : in->req_pkt_ready;
        out->resp_pkt.valid = st->to_resp;
        out->req_pkt.valid = !st->to_resp;
        out->resp_pkt.data = st->pkt;
        out->req_pkt.data = st->pkt;
        if (!ready) break;
        st->phase = st->beats ? RXD_BEATS : RXD_IDLE;
        if (st->to_resp) st->cnt_resp++;
        else if (!st->pkt.gated) st->cnt_req++;
        break;
    }
    case RXD_MARK: {
        nic_rx_pkt_t m = {0};
        m.fn = st->mark_fn;
        m.mig_mark = true;
        out->req_pkt.valid = st->mark_to_req;
        out->resp_pkt.valid = st->mark_to_resp;
        out->req_pkt.data = m;
        out->resp_pkt.data = m;
        bool to_req = st->mark_to_req && !in->req_pkt_ready;
        bool to_resp = st->mark_to_resp && !in->resp_pkt_ready;
        st->mark_to_req = to_req;
        st->mark_to_resp = to_resp;
        if (!to_req && !to_resp) st->phase = RXD_IDLE;
        break;
    }
    default: { /* RXD_BEATS: ring data of beat `sent` is in hls_mem_rdata */
        bool ready = st->to_resp ? in->resp_pay_ready : in->req_pay_ready;
        bool last = st->sent + 1 >= st->beats;
        unsigned tail = (unsigned)st->pkt.hdr.payload_len - 64u * (st->beats - 1u);
        nic_beat_t b = {
            .data = st->ring.hls_mem_rdata,
            .bytes = (hls_uint(7))(last ? tail : 64),
            .last = last,
        };
        out->resp_pay.valid = st->to_resp;
        out->req_pay.valid = !st->to_resp;
        out->resp_pay.data = b;
        out->req_pay.data = b;
        if (!ready) break;
        st->rp = st->rp + 1;
        st->sent++;
        if (last) st->phase = RXD_IDLE;
        else hls_mem_read(&st->ring, st->rp); /* the next beat (rp already advanced) */
        break;
    }
    }
}
