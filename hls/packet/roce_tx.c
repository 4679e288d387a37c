/* roce_tx — RoCEv2 frame builder, 64-byte beats (docs/packet-path.md).
 *
 * in:  desc  one roce_hdr_t per packet (held by the producer until the frame is built)
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
 * spills into one more beat. */
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

typedef struct {
    hls_uint(3) phase;
    hls_uint(7) acc_n;  /* bytes held in acc, 0..63 */
    hls_u512 acc;       /* bytes not yet sent; bytes >= acc_n are zero */
    uint32_t crc;       /* running ICRC register */
    uint32_t frames_sent;
} roce_tx_state;

/* Pad bytes that bring the payload to a multiple of 4. */
HLS_INLINE unsigned pad_of(unsigned len) { return (4 - (len & 3)) & 3; }

/* All headers of the packet, byte i of the frame in bits [8i+7:8i]; *hlen = header bytes. */
HLS_INLINE roce_hdr_bits build_headers(const roce_hdr_t *d, unsigned *hlen) {
    uint8_t h[128] = {0};
    uint8_t ext = roce_ext(d->opcode);
    unsigned ext_len = roce_ext_len(ext);
    unsigned len = (unsigned)d->payload_len;
    unsigned pad = pad_of(len);
    unsigned udp_len = UDP_HDR_LEN + BTH_LEN + ext_len + len + pad + ROCE_ICRC_LEN;
    unsigned ip_len = IPV4_HDR_LEN + udp_len;

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

    roce_hdr_bits w = 0;
    for (unsigned i = 0; i < 128; i++) w |= (roce_hdr_bits)h[i] << (8 * i);
    /* IPv4 header checksum over the header with the checksum field still 0 */
    uint16_t csum = (uint16_t)~ipv4_sum(w);
    w |= (roce_hdr_bits)(csum >> 8) << (8 * 24);
    w |= (roce_hdr_bits)(csum & 0xFF) << (8 * 25);
    *hlen = ROCE_BASE_LEN + ext_len;
    return w;
}

HLS_TOP void roce_tx(const roce_tx_in *in, roce_tx_out *out, roce_tx_state *st) {
    out->frames_sent = st->frames_sent;

    unsigned hlen = 0;
    roce_hdr_bits hdr = build_headers(&in->desc.data, &hlen);
    unsigned pad = pad_of((unsigned)in->desc.data.payload_len);
    bool has_payload = in->desc.data.payload_len != 0;

    /* a marker between frames: the event instead of a frame, taken when ctrl's FIFO is */
    bool marker = st->phase == TX_HDR0 && in->desc.valid && in->desc.data.mig_mark != 0;
    out->ev.valid = marker;
    out->ev.data.kind = NIC_EV_MIG_MARK;
    out->ev.data.fn = (nic_fn_t)in->desc.data.mig_fn;
    out->ev.data.detail = in->desc.data.mig_mark;
    if (marker) {
        out->desc_ready = in->ev_ready;
        return;
    }

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
        have = in->desc.valid && !marker;
        chunk = (hls_u512)hdr;
        n = hlen < 64 ? hlen : 64;
        crc_view = chunk | icrc_beat0_mask();
        crc_lo = ICRC_BEAT0_START;
        crc_in = 0xFFFFFFFFu;
        break;
    case TX_HDR1:
        have = true;
        chunk = (hls_u512)(hdr >> 512);
        n = hlen - 64;
        crc_view = chunk;
        break;
    case TX_PAY:
        have = in->pay.valid;
        n = (unsigned)in->pay.data.bytes;
        n = n > 64 ? 64 : n;
        chunk = keep_low(in->pay.data.data, n);
        crc_view = chunk;
        break;
    case TX_TAIL: {
        /* pad bytes are zero and covered by the ICRC; then the ICRC, LSB first */
        uint32_t c = st->crc;
        for (unsigned i = 0; i < 3; i++)
            if (i < pad) c = crc32_byte(c, 0);
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

    /* ---- the byte packer ---- */
    unsigned an = (unsigned)st->acc_n;
    unsigned total = an + n;                     /* 0..127 */
    hls_u512 joined = st->acc | (chunk << (8 * an)); /* an <= 63: shift <= 504 */
    hls_u512 spill = an == 0 ? (hls_u512)0 : chunk >> (512 - 8 * an);
    bool emit = have && (total >= 64 || final);
    out->frame.valid = emit;
    out->frame.data.data = joined;
    out->frame.data.bytes = (hls_uint(7))(total >= 64 ? 64 : total);
    out->frame.data.last = final && total <= 64;

    bool advance = have && (!emit || in->frame_ready);
    out->pay_ready = st->phase == TX_PAY && (!emit || in->frame_ready);
    out->desc_ready = st->phase == TX_TAIL && in->frame_ready; /* TAIL always emits */
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
