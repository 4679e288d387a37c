/* roce_tx — RoCEv2 frame builder, 64-byte beats (docs/packet-path.md).
 *
 * in:  desc  one roce_hdr_t per packet, taken by the descriptor stages ahead of its frame
 *      pay   the payload, ceil(payload_len/64) beats of 64 bytes, the last one short,
 *            `last` on the final beat; no beats at all when payload_len == 0
 * out: frame Ethernet frame beats: headers, payload, pad, ICRC
 *      ev    NIC_EV_MIG_MARK to ctrl: a descriptor with mig_mark != 0 is a migration marker
 *            (docs/migration.md), not a packet: it sends no frame and becomes this event
 *            (fn = mig_fn, detail = mig_mark, the transmit source)
 *
 * Method: every cycle at most one "chunk" of up to 64 bytes is appended to a byte
 * packer (acc: 0..63 bytes not yet sent). Chunks are, in order: header beat 0 (the
 * first min(H,64) header bytes), header beat 1 (H > 64 only), the payload beats, and
 * the tail (pad + ICRC). When acc + chunk reach 64 bytes a full frame beat leaves;
 * so the payload is shifted behind a header of any length without a second pass.
 * The ICRC is computed on the chunks as they enter (beat 0 with the masked fields
 * forced to 0xff), so it is ready when the tail is appended.
 *
 * Cycles per frame = (H > 64 ? 2 : 1) + payload beats + 1 (tail) + 1 if the tail
 * spills into one more beat; a descriptor reaches the packer 2 cycles after it is taken
 * (descriptor stages 1 and 2), while the frame before it is still being built. */
#include "hls.h"
#include "nic_types.h"
#include "roce_common.h"
#include "nic_if.h"

typedef struct {
    HLS_STREAM(roce_hdr_t) desc;
    HLS_STREAM(nic_beat_t) pay;
    bool frame_ready;
    bool ev_ready;
} roce_tx_in;

typedef struct {
    bool desc_ready;
    bool pay_ready;
    HLS_STREAM(nic_beat_t) frame;
    HLS_STREAM(nic_event_t) ev;
    uint32_t frames_sent;       /* counter, mirrored from state */
} roce_tx_out;

enum { TX_HDR0 = 0, TX_HDR1, TX_PAY, TX_TAIL, TX_FLUSH };

/* Descriptor stage 1: the descriptor as taken, with the two halves of its IPv4 checksum's
 * sum that need only the descriptor: the total length and the sum of the other words. */
typedef struct {
    bool valid;
    roce_hdr_t d;
    uint16_t ip_len;
    uint32_t word_sum;
} tx_desc_stage1;

/* Descriptor stage 2: the frame's headers as bytes (checksum folded in), what the packer
 * needs of the descriptor until the frame's tail, or a migration marker. */
typedef struct {
    bool valid;
    bool marker;
    uint8_t mig_fn;
    uint8_t mig_mark;
    roce_hdr_bits hdr;
    hls_uint(7) hlen;
    hls_uint(2) pad;
    bool has_payload;
} tx_desc_stage2;

typedef struct {
    tx_desc_stage1 d1;
    tx_desc_stage2 d2;  /* the frame being built (held until its tail) or the next one */
    hls_uint(3) phase;
    hls_uint(7) acc_n;  /* bytes held in acc, 0..63 */
    hls_u512 acc;       /* bytes not yet sent; bytes >= acc_n are zero */
    uint32_t crc;       /* running ICRC register */
    uint32_t frames_sent;
} roce_tx_state;

/* Pad bytes that bring the payload to a multiple of 4. */
HLS_INLINE unsigned pad_of(unsigned len) { return (4 - (len & 3)) & 3; }

/* IPv4 total length: headers after Ethernet, payload rounded up to 4 (the pad), ICRC. */
HLS_INLINE unsigned tx_ip_len(const roce_hdr_t *d) {
    unsigned len = (unsigned)d->payload_len;
    return IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN + roce_ext_len(roce_ext(d->opcode)) + len + pad_of(len) +
           ROCE_ICRC_LEN;
}

/* The 16-bit words of the IPv4 header other than the total length and the checksum, added
 * (fields as build_headers writes them): the part of the checksum's sum stage 1 can do. */
HLS_INLINE uint32_t ipv4_word_sum(const roce_hdr_t *d) {
    return 0x4500u + (((unsigned)d->dscp << 2) | (unsigned)d->ecn) + (unsigned)d->ip_id + 0x4000u +
           (((unsigned)d->ttl << 8) | IPPROTO_UDP_NUM) + (d->src_ip >> 16) + (d->src_ip & 0xFFFF) +
           (d->dst_ip >> 16) + (d->dst_ip & 0xFFFF);
}

/* The IPv4 header checksum from the two halves of its sum (ones' complement: carries folded). */
HLS_INLINE uint16_t ipv4_checksum(uint32_t word_sum, unsigned ip_len) {
    uint32_t s = word_sum + ip_len;
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

/* All headers of the packet, byte i of the frame in bits [8i+7:8i], given the IPv4 total
 * length and header checksum. */
HLS_INLINE roce_hdr_bits build_headers(const roce_hdr_t *d, unsigned ip_len, uint16_t csum) {
    uint8_t h[128] = {0};
    uint8_t ext = roce_ext(d->opcode);
    unsigned pad = pad_of((unsigned)d->payload_len);
    unsigned udp_len = ip_len - IPV4_HDR_LEN;

    /* Ethernet II */
    put_be(h, 0, d->dst_mac, 6);
    put_be(h, 6, d->src_mac, 6);
    put_be(h, 12, ETHERTYPE_IPV4, 2);
    /* IPv4: no options, DF (as Linux rxe sends), checksum filled in below */
    h[14] = 0x45;
    h[15] = (uint8_t)(((unsigned)d->dscp << 2) | (unsigned)d->ecn);
    put_be(h, 16, ip_len, 2);
    put_be(h, 18, d->ip_id, 2);
    put_be(h, 20, 0x4000, 2);
    h[22] = d->ttl;
    h[23] = IPPROTO_UDP_NUM;
    put_be(h, 26, d->src_ip, 4);
    put_be(h, 30, d->dst_ip, 4);
    /* UDP: checksum 0 (not computed, allowed on IPv4 and what rxe sends) */
    put_be(h, 34, d->udp_sport, 2);
    put_be(h, 36, ROCE_UDP_PORT, 2);
    put_be(h, 38, udp_len, 2);
    /* BTH */
    h[42] = d->opcode;
    h[43] = (uint8_t)(((unsigned)d->se << 7) | ((unsigned)d->migreq << 6) | (pad << 4) |
                      (unsigned)d->tver);
    put_be(h, 44, d->pkey, 2);
    h[46] = (uint8_t)(((unsigned)d->fecn << 7) | ((unsigned)d->becn << 6));
    put_be(h, 47, d->dest_qp, 3);
    h[50] = (uint8_t)((unsigned)d->ack_req << 7);
    put_be(h, 51, d->psn, 3);
    /* extension headers, IB order: RETH, AtomicETH, AETH, AtomicAckETH, ImmDt */
    if (ext & ROCE_EXT_RETH) {
        put_be(h, 54, d->reth_va, 8);
        put_be(h, 62, d->reth_rkey, 4);
        put_be(h, 66, d->reth_len, 4);
    }
    if (ext & ROCE_EXT_ATOMIC) {
        put_be(h, 54, d->atomic_va, 8);
        put_be(h, 62, d->atomic_rkey, 4);
        put_be(h, 66, d->atomic_swap_add, 8);
        put_be(h, 74, d->atomic_cmp, 8);
    }
    if (ext & ROCE_EXT_AETH) {
        h[54] = d->aeth_syndrome;
        put_be(h, 55, d->aeth_msn, 3);
    }
    if (ext & ROCE_EXT_ATOMICACK) put_be(h, 58, d->atomic_orig, 8); /* always after AETH */
    if (ext & ROCE_EXT_IMM) {
        if (ext & ROCE_EXT_RETH) put_be(h, 70, d->imm, 4); /* RDMA_WRITE_ONLY_IMM */
        else put_be(h, 54, d->imm, 4);
    }

    put_be(h, 24, csum, 2);

    roce_hdr_bits w = 0;
    HLS_UNROLL for (unsigned i = 0; i < 128; i++) w |= (roce_hdr_bits)h[i] << (8 * i);
    return w;
}

HLS_TOP void roce_tx(const roce_tx_in *in, roce_tx_out *out, roce_tx_state *st) {
    out->frames_sent = st->frames_sent;

    /* ---- descriptor stages: stage 1 takes the descriptor and adds up what it can of the
     * IPv4 checksum; stage 2 builds the header bytes. Stage 2 holds the frame being built
     * until its tail (or a marker until ctrl takes it), so the next descriptor waits in
     * stage 1 and its headers are ready when this frame ends. ---- */
    tx_desc_stage2 cur = st->d2;                /* this cycle's frame, before the stages move */
    roce_hdr_bits hdr = cur.hdr;
    unsigned hlen = (unsigned)cur.hlen;
    unsigned pad = (unsigned)cur.pad;
    bool has_payload = cur.has_payload;

    /* a marker between frames: the event instead of a frame, taken when ctrl's FIFO is */
    bool marker = st->phase == TX_HDR0 && cur.valid && cur.marker;
    bool d2_free = !cur.valid || (marker && in->ev_ready) || (st->phase == TX_TAIL && in->frame_ready);
    bool d1_move = st->d1.valid && d2_free;
    out->desc_ready = !st->d1.valid || d1_move;
    if (d2_free) {
        const roce_hdr_t *d = &st->d1.d;
        unsigned ext_len = roce_ext_len(roce_ext(d->opcode));
        st->d2.valid = d1_move;
        st->d2.marker = d->mig_mark != 0;
        st->d2.mig_fn = d->mig_fn;
        st->d2.mig_mark = d->mig_mark;
        st->d2.hdr = build_headers(d, st->d1.ip_len, ipv4_checksum(st->d1.word_sum, st->d1.ip_len));
        st->d2.hlen = (hls_uint(7))(ROCE_BASE_LEN + ext_len);
        st->d2.pad = (hls_uint(2))pad_of((unsigned)d->payload_len);
        st->d2.has_payload = d->payload_len != 0;
    }
    if (out->desc_ready) {
        st->d1.valid = in->desc.valid;
        st->d1.d = in->desc.data;
        st->d1.ip_len = (uint16_t)tx_ip_len(&in->desc.data);
        st->d1.word_sum = ipv4_word_sum(&in->desc.data);
    }

    out->ev.valid = marker;
    out->ev.data.kind = NIC_EV_MIG_MARK;
    out->ev.data.fn = (nic_fn_t)cur.mig_fn;
    out->ev.data.detail = cur.mig_mark;
    if (marker) return;

    /* ---- the chunk appended this cycle ---- */
    bool have = false;          /* a chunk is available */
    hls_u512 chunk = 0;         /* its bytes, zero above n */
    unsigned n = 0;             /* its length, 0..64 */
    bool final = false;         /* the frame ends with this chunk (tail or flush) */
    hls_u512 crc_view = 0;      /* the bytes the ICRC sees */
    unsigned crc_lo = 0;
    uint32_t crc_in = st->crc;
    switch ((unsigned)st->phase) {
    case TX_HDR0:
        have = cur.valid;
        n = hlen < 64 ? hlen : 64;
        crc_view = (hls_u512)hdr | icrc_beat0_mask();
        crc_lo = ICRC_BEAT0_START;
        crc_in = 0xFFFFFFFFu;
        break;
    case TX_HDR1:
        have = true;
        n = hlen - 64;
        crc_view = (hls_u512)(hdr >> 512);
        break;
    case TX_PAY:
        have = in->pay.valid;
        n = (unsigned)in->pay.data.bytes;
        n = n > 64 ? 64 : n;
        chunk = keep_low(in->pay.data.data, n);
        crc_view = chunk;
        break;
    case TX_TAIL: {
        /* pad bytes are zero and covered by the ICRC; then the ICRC, LSB first. The register
         * run over 1, 2 or 3 zero bytes: three fixed XOR networks side by side and a select,
         * not a chain of byte steps */
        uint32_t c = st->crc;
        if (pad == 1) c = crc32_range(st->crc, 0, 63, 64);
        else if (pad == 2) c = crc32_range(st->crc, 0, 62, 64);
        else if (pad == 3) c = crc32_range(st->crc, 0, 61, 64);
        chunk = (hls_u512)(~c) << (8 * pad);
        n = pad + ROCE_ICRC_LEN;
        have = true;
        final = true;
        break;
    }
    case TX_FLUSH:
        have = true;            /* empty chunk: send what acc holds */
        final = true;
        break;
    default:
        break;
    }

    /* ---- the byte packer ----
     * The packer is empty when a frame starts (the tail or flush of the last frame left
     * nothing), and header beat 0 either stays whole in it (H < 64) or leaves whole (H > 64),
     * so both header chunks start at byte 0: they skip the shifter, and the header's fields
     * (IPv4 length and checksum: adds) are not followed by a 64-way byte shift. */
    bool header = st->phase == TX_HDR0 || st->phase == TX_HDR1;
    hls_u512 hdr_chunk = st->phase == TX_HDR0 ? (hls_u512)hdr : (hls_u512)(hdr >> 512);
    unsigned an = header ? 0 : (unsigned)st->acc_n;
    unsigned total = an + n;                     /* 0..127 */
    hls_u512 joined = header ? hdr_chunk : st->acc | (chunk << (8 * an)); /* an <= 63: shift <= 504 */
    hls_u512 spill = header || an == 0 ? (hls_u512)0 : chunk >> (512 - 8 * an);
    bool emit = have && (total >= 64 || final);
    out->frame.valid = emit;
    out->frame.data.data = joined;
    out->frame.data.bytes = (hls_uint(7))(total >= 64 ? 64 : total);
    out->frame.data.last = final && total <= 64;

    bool advance = have && (!emit || in->frame_ready);
    out->pay_ready = st->phase == TX_PAY && (!emit || in->frame_ready);
    if (!advance) return;

    if (total >= 64) {
        st->acc = spill;
        st->acc_n = (hls_uint(7))(total - 64);
    } else if (final) {
        st->acc = 0;
        st->acc_n = 0;
    } else {
        st->acc = joined;
        st->acc_n = (hls_uint(7))total;
    }
    st->crc = crc32_range(crc_in, crc_view, crc_lo, n);

    switch ((unsigned)st->phase) {
    case TX_HDR0:
        st->phase = hlen > 64 ? TX_HDR1 : (has_payload ? TX_PAY : TX_TAIL);
        break;
    case TX_HDR1:
        st->phase = has_payload ? TX_PAY : TX_TAIL;
        break;
    case TX_PAY:
        if (in->pay.data.last) st->phase = TX_TAIL;
        break;
    case TX_TAIL:
        st->frames_sent = st->frames_sent + 1;
        st->phase = total > 64 ? TX_FLUSH : TX_HDR0;
        break;
    default:
        st->phase = TX_HDR0;
        break;
    }
}
