/* rx_dispatch — routes received RoCEv2 packets to the responder or the completer
 * (docs/rx_dispatch.md).
 *
 * in:  rx_desc  roce_rx's descriptor, one per frame, AFTER the frame's payload beats
 *      rx_pay   roce_rx's payload: ceil(payload_len/64) beats per frame, none when 0, each
 *               tagged request or response (its frame's opcode class)
 *      cfg      ctrl's configuration fan-out: NIC_CFG_FN (addresses), NIC_CFG_SUSPEND (the
 *               per-function gate), NIC_CFG_CTX (NIC_CTX_FN); other kinds are ignored
 * out: req_pkt  + req_pay    request packets (SEND*, RDMA_WRITE*, READ_REQUEST, atomics)
 *      resp_pkt + resp_pay   response packets (READ_RESPONSE*, ACKNOWLEDGE, ATOMIC_ACK)
 *      ev       NIC_EV_CTX answers to ctrl
 *      counters  to_responder, to_completer, dropped_bad, dropped_addr, dropped_len,
 *                dropped_mig
 *
 * Two paths, one per class. IBA orders requests among themselves and responses among
 * themselves, not one class against the other, so a busy responder must not hold back the
 * ACKs and READ responses the completer is waiting for. Each class has its own payload ring
 * (128 beats: two 4096-byte frames), its own queue of packets and its own forwarder; only the
 * classification of descriptors, in arrival order, is shared, and it stalls only when the
 * class of the descriptor at its head has no room.
 *
 * roce_rx sends payload before it knows whether the frame is good, so a class's beats are
 * released only when the descriptor says so. Pipeline:
 *   take      the head descriptor, once all of its beats are in its class's ring, and the
 *             function it is addressed to (a 4-entry compare of IP and MAC): registers `held*`
 *   classify  status, length, address, the function's gate: queue an entry for the class:
 *             send (header, then beats), the header alone (a gated request), or neither
 *             (a drop: its beats are only freed)
 *   forward   per class: read the queue's head entry, send its header, then its beats from
 *             the ring; a skipped entry frees its beats. The ring is freed in order by this
 *             read pointer alone, since a class's ring holds only that class's frames.
 *
 * Migration (docs/migration.md): a function in PASSIVE has its gate closed: its packets are
 * dropped and counted (dropped_mig); a dropped request's header alone (gated, no beats) still
 * goes to the responder, which notes that the QP's peer has sent. Entering PASSIVE queues the
 * function's marker into both queues before any later packet is classified, so on each port
 * it follows the last packet (and its beats) that passed the gate. */
#include "hls.h"
#include "nic_if.h"
#include "nic_ctx.h"

#define RXD_RING_BITS 7
#define RXD_RING (1 << RXD_RING_BITS)  /* beats in a class's payload ring */
#define RXD_MAX_BEATS 64                /* 4096 bytes: the largest IB MTU */
#define RXD_QUEUE_BITS 4
#define RXD_QUEUE (1 << RXD_QUEUE_BITS) /* classified packets waiting per class */

typedef struct {
    HLS_STREAM(roce_rx_desc_t) rx_desc;
    HLS_STREAM(roce_rx_beat_t) rx_pay;
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

/* A classified packet waiting in its class's queue. */
typedef struct {
    nic_rx_pkt_t pkt;
    bool send_hdr;     /* pkt goes out on the class's port */
    bool send_beats;   /* its beats follow it; otherwise they are only freed */
    uint8_t beats;     /* beats of the frame in the ring, 0..64 */
} rxd_entry_t;

/* In the queue an entry is a plain bit vector, each field at its own width (a struct with
 * padding cannot be a memory word): every header field roce_rx fills (it leaves the
 * transmit-only mig_mark/mig_fn 0), then the entry's own fields. One list, both ways. */
#define RXD_HDR_FIELDS(X)                                                                          \
    X(dst_mac, 48) X(src_mac, 48) X(src_ip, 32) X(dst_ip, 32) X(ttl, 8) X(dscp, 6) X(ecn, 2)         \
    X(ip_id, 16) X(udp_sport, 16) X(opcode, 8) X(se, 1) X(migreq, 1) X(pad, 2) X(tver, 4)            \
    X(pkey, 16) X(fecn, 1) X(becn, 1) X(dest_qp, 24) X(ack_req, 1) X(psn, 24) X(reth_va, 64)         \
    X(reth_rkey, 32) X(reth_len, 32) X(aeth_syndrome, 8) X(aeth_msn, 24) X(atomic_va, 64)            \
    X(atomic_rkey, 32) X(atomic_swap_add, 64) X(atomic_cmp, 64) X(atomic_orig, 64) X(imm, 32)       \
    X(payload_len, 14)
#define RXD_ENTRY_FIELDS(X) \
    X(pkt.fn, NIC_FN_BITS) X(pkt.mig_mark, 1) X(pkt.gated, 1) X(send_hdr, 1) X(send_beats, 1) X(beats, 7)

typedef hls_uint(1024) rxd_word_t;

#define RXD_MASK(n) (((rxd_word_t)1 << (n)) - 1)

HLS_INLINE rxd_word_t entry_pack(const rxd_entry_t *e) {
    rxd_word_t w = 0;
    unsigned at = 0;
#define RXD_PACK_HDR(f, n) w |= ((rxd_word_t)e->pkt.hdr.f & RXD_MASK(n)) << at; at += (n);
#define RXD_PACK(f, n) w |= ((rxd_word_t)e->f & RXD_MASK(n)) << at; at += (n);
    RXD_HDR_FIELDS(RXD_PACK_HDR)
    RXD_ENTRY_FIELDS(RXD_PACK)
#undef RXD_PACK_HDR
#undef RXD_PACK
    return w;
}

HLS_INLINE rxd_entry_t entry_unpack(rxd_word_t w) {
    rxd_entry_t e = {0};
    unsigned at = 0;
#define RXD_UNPACK_HDR(f, n) e.pkt.hdr.f = (w >> at) & RXD_MASK(n); at += (n);
#define RXD_UNPACK(f, n) e.f = (w >> at) & RXD_MASK(n); at += (n);
    RXD_HDR_FIELDS(RXD_UNPACK_HDR)
    RXD_ENTRY_FIELDS(RXD_UNPACK)
#undef RXD_UNPACK_HDR
#undef RXD_UNPACK
    return e;
}

enum { FWD_IDLE = 0, FWD_ENTRY = 1, FWD_BEATS = 2 };

/* One class: requests (to the responder) or responses (to the completer). */
typedef struct {
    HLS_MEM(hls_u512, RXD_RING) ring;  /* payload bytes only: bytes/last follow from the length */
    hls_uint(RXD_RING_BITS + 1) wp;    /* ring write pointer (one extra bit: full vs empty) */
    /* frames of this class with payload whose last beat is in the ring / whose descriptor is
     * taken (two counters, each changed by one stage): a descriptor with payload is complete
     * when got != taken, since a class's frames and their descriptors come in the same order */
    uint8_t frames_got, frames_taken;
    hls_uint(RXD_RING_BITS + 1) rp;    /* first beat not yet read or freed by the forwarder */
    /* (wp - rp) == RXD_RING as a register of its own: reception's ready (and the write it
     * lets through, wp + 1) would otherwise follow a subtract and a compare */
    bool ring_full;
    HLS_MEM(rxd_word_t, RXD_QUEUE) queue; /* entry_pack()ed */
    hls_uint(RXD_QUEUE_BITS + 1) qw, qr;
    /* (qw - qr) == RXD_QUEUE as a register of its own: the queue's room decides a push,
     * whose qw + 1 would otherwise follow a subtract and a compare in the same cycle */
    bool queue_full;
    hls_uint(2) phase;                 /* FWD_*: the entry being forwarded is queue.hls_mem_rdata */
    uint8_t left;                      /* its beats not yet sent */
    uint32_t count;                    /* packets sent (to_responder / to_completer) */
} rxd_class_t;

typedef struct {
    rxd_class_t req, resp;
    uint8_t rx_cnt;                    /* beats of the frame being received, saturates at 64 */
    uint8_t big_got, big_taken;        /* frames over 64 beats received / taken (two counters,
                                          each updated by one stage, not one counter both
                                          change in a cycle) */
    /* a function's addresses must be compared with every packet in one cycle: a 4-entry
     * CAM, so registers rather than an HLS_MEM */
    rxd_fn_t fn[NIC_FNS];
    /* the descriptor taken, waiting to be classified */
    bool held_valid;
    roce_rx_desc_t held;
    bool held_resp;                    /* its class */
    bool held_big;                     /* over 64 beats (only the first 64 are in the ring) */
    uint8_t held_beats;                /* its beats in the ring */
    bool held_found;                   /* addressed to a configured function: held_fn */
    nic_fn_t held_fn;
    uint32_t cnt_bad, cnt_addr, cnt_len, cnt_mig;
    /* migration, one bit per function: gate closed; marker still to queue */
    hls_uint(NIC_FNS) passive, mark;
    bool ev_valid;                     /* a NIC_EV_CTX answer offered on ev */
    nic_event_t ev;
} rx_dispatch_state;

/* What a class's forwarder offers on its port this cycle. */
typedef struct {
    bool pkt_valid;
    nic_rx_pkt_t pkt;
    bool pay_valid;
    nic_beat_t pay;
    bool popped;                      /* the head entry read out of the queue (queue_full) */
    bool freed;                       /* rp moved on by one beat or more (ring_full) */
} rxd_offer_t;

/* The function's NIC_CTX_FN word (nic_ctx.h). */
HLS_INLINE hls_u128 fn_word(const rxd_fn_t *f) {
    return (hls_u128)f->mac | ((hls_u128)f->ip << NIC_CTX_FN_IP) | ((hls_u128)f->valid << NIC_CTX_FN_VALID);
}

HLS_INLINE bool queue_has_room(const rxd_class_t *c) { return !c->queue_full; }

/* queue_full for the next cycle from this cycle's push and pop: one entry short of full
 * (a compare of the registers as they were at the start of the cycle) and a push without a
 * pop fills it; a pop without a push empties a slot */
HLS_INLINE bool queue_full_next(const rxd_class_t *c, bool one_short, bool pushed, bool popped) {
    return pushed == popped ? c->queue_full : pushed && one_short;
}

/* ring_full for the next cycle: one beat short of full and a beat written with none freed
 * fills it; any beat freed leaves room (a write never meets a full ring) */
HLS_INLINE bool ring_full_next(const rxd_class_t *c, bool one_short, bool written, bool freed) {
    return !freed && (written ? one_short : c->ring_full);
}

HLS_INLINE void queue_push(rxd_class_t *c, rxd_entry_t e) {
    hls_mem_write(&c->queue, c->qw, entry_pack(&e));
    c->qw = c->qw + 1;
}

/* A class's forwarder: one entry at a time, in queue order. FWD_IDLE reads the head entry;
 * FWD_ENTRY offers its header (or frees its beats); FWD_BEATS sends its beats from the ring,
 * each read one cycle ahead (the ring's data is held until the next read). */
HLS_INLINE rxd_offer_t forward(rxd_class_t *c, bool pkt_ready, bool pay_ready) {
    /* the class's registers as they were at the start of the cycle: each branch below reads
     * these, never a value another branch wrote */
    hls_uint(2) phase = c->phase;
    uint8_t left = c->left;
    hls_uint(RXD_RING_BITS + 1) rp = c->rp;
    hls_uint(RXD_QUEUE_BITS + 1) qr = c->qr;
    rxd_entry_t e = entry_unpack(c->queue.hls_mem_rdata);
    rxd_offer_t o = {0};
    o.pkt = e.pkt;                    /* data lines as they are whether valid or not: no */
    o.pay.data = c->ring.hls_mem_rdata; /* gating of 798 + 512 wires */
    if (phase == FWD_IDLE) {
        if (c->qw != qr) {
            hls_mem_read(&c->queue, qr);
            c->qr = qr + 1;
            o.popped = true;
            c->phase = FWD_ENTRY;
        }
    } else if (phase == FWD_ENTRY) {
        o.pkt_valid = e.send_hdr;
        if (e.send_hdr && !pkt_ready) return o;
        if (e.send_hdr && !e.pkt.mig_mark && !e.pkt.gated) c->count = c->count + 1;
        if (e.send_beats && e.beats != 0) {
            c->left = e.beats;
            hls_mem_read(&c->ring, rp); /* beat 0 */
            c->phase = FWD_BEATS;
        } else {
            c->rp = rp + e.beats;  /* none, or freed unsent */
            o.freed = e.beats != 0;
            c->phase = FWD_IDLE;
        }
    } else {
        bool last = left == 1;
        unsigned tail = (unsigned)e.pkt.hdr.payload_len & 63; /* bytes of the last beat, 0 = 64 */
        o.pay_valid = true;
        o.pay.bytes = (hls_uint(7))(last && tail != 0 ? tail : 64);
        o.pay.last = last;
        if (!pay_ready) return o;
        c->rp = rp + 1;
        o.freed = true;
        c->left = left - 1;
        if (last) c->phase = FWD_IDLE;
        else hls_mem_read(&c->ring, rp + 1); /* the next beat */
    }
    return o;
}

HLS_TOP void rx_dispatch(const rx_dispatch_in *in, rx_dispatch_out *out, rx_dispatch_state *st) {
    out->to_responder = st->req.count;
    out->to_completer = st->resp.count;
    out->dropped_bad = st->cnt_bad;
    out->dropped_addr = st->cnt_addr;
    out->dropped_len = st->cnt_len;
    out->dropped_mig = st->cnt_mig;

    /* ring fill as it was at the start of the cycle */
    bool ring_one_short_req = (hls_uint(RXD_RING_BITS + 1))(st->req.wp - st->req.rp) == RXD_RING - 1;
    bool ring_one_short_resp = (hls_uint(RXD_RING_BITS + 1))(st->resp.wp - st->resp.rp) == RXD_RING - 1;
    /* queue room too: an entry the forwarder reads this cycle frees its slot for the next */
    bool room_q_req = queue_has_room(&st->req), room_q_resp = queue_has_room(&st->resp);
    bool one_short_req = (hls_uint(RXD_QUEUE_BITS + 1))(st->req.qw - st->req.qr) == RXD_QUEUE - 1;
    bool one_short_resp = (hls_uint(RXD_QUEUE_BITS + 1))(st->resp.qw - st->resp.qr) == RXD_QUEUE - 1;
    bool push_req = false, push_resp = false;

    /* ---- forward: each class on its own port, before classify queues new entries (an
     * entry written this cycle is read at the earliest in the next) ---- */
    rxd_offer_t oq = forward(&st->req, in->req_pkt_ready, in->req_pay_ready);
    out->req_pkt.valid = oq.pkt_valid;
    out->req_pkt.data = oq.pkt;
    out->req_pay.valid = oq.pay_valid;
    out->req_pay.data = oq.pay;
    rxd_offer_t os = forward(&st->resp, in->resp_pkt_ready, in->resp_pay_ready);
    out->resp_pkt.valid = os.pkt_valid;
    out->resp_pkt.data = os.pkt;
    out->resp_pay.valid = os.pay_valid;
    out->resp_pay.data = os.pay;

    /* ---- classify the held descriptor; a marker waiting goes first. Every held descriptor
     * becomes an entry of its class's queue (one that is only dropped: neither header nor
     * beats), so whether `held` is free this cycle depends on the queue's room alone, not on
     * the address compare ---- */
    bool held_free = !st->held_valid;
    if (st->mark != 0) {
        /* both queues take it in the same cycle, so on each port it follows every packet
         * classified before the gate closed and precedes every later one */
        if (room_q_req && room_q_resp) {
            nic_fn_t f = (nic_fn_t)__builtin_ctz((unsigned)st->mark);
            /* a marker's header is whatever `held` holds: consumers read mig_mark and fn
             * only (nic_if.h), and a zeroed header would cost a 798-bit select per queue */
            rxd_entry_t m = {0};
            m.pkt.hdr = st->held.hdr;
            m.pkt.fn = f;
            m.pkt.mig_mark = true;
            m.send_hdr = true;
            queue_push(&st->req, m);
            queue_push(&st->resp, m);
            push_req = push_resp = true;
            st->mark &= (hls_uint(NIC_FNS)) ~(1u << (unsigned)f);
        }
    } else if (st->held_valid) {
        const roce_hdr_t *h = &st->held.hdr;
        bool found = st->held_found;
        nic_fn_t fn = st->held_fn;
        bool ok = st->held.status == ROCE_RX_OK;
        bool req = roce_op_is_request(h->opcode), resp = roce_op_is_response(h->opcode);
        bool gated = ok && (req || resp) && !st->held_big && found && ((st->passive >> (unsigned)fn) & 1);
        bool pass = ok && (req || resp) && !st->held_big && found && !gated;
        rxd_entry_t e = {0};
        e.pkt.hdr = *h;
        e.pkt.fn = fn;
        e.beats = st->held_beats;
        /* the packet, or (stopped: the peer resends after the resume) a request's header
         * alone, without payload, so that a QP whose peer's first requests fall in the
         * suspension also sends its resume NAK (docs/migration.md) */
        e.send_hdr = pass || (gated && req);
        e.send_beats = pass;
        if (gated) {
            e.pkt.hdr.payload_len = 0;
            e.pkt.gated = true;
        }
        rxd_class_t *c = st->held_resp ? &st->resp : &st->req;
        if (st->held_resp ? room_q_resp : room_q_req) {
            queue_push(c, e);
            push_resp = st->held_resp;
            push_req = !st->held_resp;
            held_free = true;
            st->held_valid = false;
            if (!ok || !(req || resp)) st->cnt_bad++;
            else if (st->held_big) st->cnt_len++;
            else if (!found) st->cnt_addr++;
            else if (gated) st->cnt_mig++;
        }
    }

    st->req.queue_full = queue_full_next(&st->req, one_short_req, push_req, oq.popped);
    st->resp.queue_full = queue_full_next(&st->resp, one_short_resp, push_resp, os.popped);

    /* ---- take the head descriptor once all of its frame's beats are in its class's ring
     * (the descriptor FIFO may run ahead of the payload FIFO) ---- */
    const roce_hdr_t *h = &in->rx_desc.data.hdr;
    bool resp = roce_op_is_response(h->opcode);
    unsigned nbeats = ((unsigned)h->payload_len + 63) >> 6;
    bool big = h->payload_len > 64 * RXD_MAX_BEATS;   /* nbeats > 64, without the adder */
    unsigned stored = big ? RXD_MAX_BEATS : nbeats;
    /* its frame's beats all in: none to wait for, or the frame counted by reception (a
     * compare of two registers, not a beat count against the length) */
    rxd_class_t *dc = resp ? &st->resp : &st->req;
    bool has_payload = h->payload_len != 0;
    bool complete = big ? st->big_got != st->big_taken : !has_payload || dc->frames_got != dc->frames_taken;
    out->rx_desc_ready = complete && held_free;
    /* the function whose IP and MAC the packet is addressed to (lowest index wins): a 4-entry
     * compare, done here so that classify only selects the function's gate bit */
    bool found = false;
    nic_fn_t fn = 0;
    for (int i = NIC_FNS - 1; i >= 0; i--)
        if (st->fn[i].valid && st->fn[i].ip == h->dst_ip && st->fn[i].mac == (h->dst_mac & 0xFFFFFFFFFFFFull)) {
            found = true;
            fn = (nic_fn_t)i;
        }
    /* the three take counters' next values, each from its register alone (written inside
     * the branches below, the increments would be one adder behind a select of the three) */
    uint8_t big_taken_next = st->big_taken + 1;
    uint8_t req_taken_next = st->req.frames_taken + 1, resp_taken_next = st->resp.frames_taken + 1;
    if (hls_fire(in->rx_desc.valid, out->rx_desc_ready)) {
        if (big) st->big_taken = big_taken_next;
        else if (has_payload && resp) st->resp.frames_taken = resp_taken_next;
        else if (has_payload) st->req.frames_taken = req_taken_next;
        st->held_found = found;
        st->held_fn = fn;
        st->held_valid = true;
        st->held = in->rx_desc.data;
        st->held_resp = resp;
        st->held_big = big;
        st->held_beats = (uint8_t)stored;
    }

    /* ---- reception: store payload beats in their class's ring ---- */
    const roce_rx_beat_t *p = &in->rx_pay.data;
    bool discard = st->rx_cnt >= RXD_MAX_BEATS; /* beats past 4096 bytes are not kept */
    out->rx_pay_ready = discard || !(p->resp ? st->resp.ring_full : st->req.ring_full);
    bool written_req = false, written_resp = false;
    if (hls_fire(in->rx_pay.valid, out->rx_pay_ready)) {
        if (!discard) {
            written_resp = p->resp;
            written_req = !p->resp;
            rxd_class_t *c = p->resp ? &st->resp : &st->req;
            hls_mem_write(&c->ring, c->wp, p->beat.data);
            c->wp = c->wp + 1;
        }
        if (p->beat.last) {
            st->rx_cnt = 0;
            if (discard) st->big_got++;
            else if (p->resp) st->resp.frames_got++;
            else st->req.frames_got++;
        } else if (!discard) {
            st->rx_cnt++;
        }
    }

    st->req.ring_full = ring_full_next(&st->req, ring_one_short_req, written_req, oq.freed);
    st->resp.ring_full = ring_full_next(&st->resp, ring_one_short_resp, written_resp, os.freed);

    /* ---- the context answer ---- */
    out->ev.valid = st->ev_valid;
    out->ev.data = st->ev;
    if (in->ev_ready) st->ev_valid = false;

    /* ---- configuration, last: what it changes applies from the next cycle on (classify
     * compares with the addresses and the gate as they were at the start of this one). A
     * function's MAC and IP (valid = 0 removes it), its gate, its context word; held while
     * an answer waits, so no answer is ever overwritten ---- */
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
            if (enter) st->mark |= (hls_uint(NIC_FNS))b;
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
}
