/* roce_rx — RoCEv2 frame parser and ICRC checker, 64-byte beats (docs/packet-path.md).
 *
 * in:  frame  Ethernet frame beats (64 bytes each, the last one short)
 * out: pay    the payload realigned to byte 0 of beat 0, pad and ICRC removed:
 *             ceil(hdr.payload_len/64) beats, `last` on the final one; each beat says
 *             whether its frame is a response (READ_RESPONSE*, ACK, ATOMIC_ACK) or a
 *             request, from beat 0's opcode
 *      desc   one roce_rx_desc_t per frame, AFTER the frame's last payload beat,
 *             with the parsed headers and a status (roce_rx_status_e)
 *
 * Payload policy (cut-through): payload beats leave as the frame streams in, before
 * the ICRC is known. They are sent only for frames whose beat-0 checks pass (RoCE,
 * IPv4 checksum, RC opcode, consistent lengths) and whose headers are complete; for
 * those desc.hdr.payload_len is the number of payload bytes sent, otherwise 0 and no
 * beat is sent. A frame cut short after its headers still gets its full count of
 * payload beats (zero filler) so beat counting never slips; its status says TRUNCATED.
 * The consumer must hold the payload until the descriptor arrives and drop it unless
 * desc.status == ROCE_RX_OK.
 *
 * Bytes after the IPv4 total length (Ethernet padding) are ignored. */
#include "hls.h"
#include "nic_types.h"
#include "roce_common.h"

typedef struct {
    HLS_STREAM(nic_beat_t) frame;
    bool pay_ready;
    bool desc_ready;
} roce_rx_in;

typedef struct {
    bool frame_ready;
    HLS_STREAM(roce_rx_beat_t) pay;
    HLS_STREAM(roce_rx_desc_t) desc;
    /* counters, mirrored from state */
    uint32_t cnt_ok;
    uint32_t cnt_not_roce;
    uint32_t cnt_truncated;
    uint32_t cnt_bad_ip_csum;
    uint32_t cnt_bad_opcode;
    uint32_t cnt_bad_icrc;
} roce_rx_out;

enum { RX_BEATS = 0, RX_FLUSH = 1 };

typedef struct {
    hls_uint(1) phase;
    uint16_t beat;            /* index of the next input beat of this frame */
    uint32_t frame_bytes;     /* bytes received so far in this frame */
    hls_u512 prev;            /* previous input beat (realignment) */
    hls_u512 hb0;             /* beat 0 and beat 1 of the frame: the headers */
    hls_u512 hb1;
    /* decided at beat 0 */
    hls_uint(3) early;        /* status from beat 0 (NOT_ROCE, TRUNCATED, BAD_IP_CSUM, BAD_OPCODE or OK) */
    uint8_t hlen;             /* header bytes H (54..82) */
    uint16_t ip_len;          /* IPv4 total length */
    hls_uint(14) plen;        /* payload bytes L */
    bool resp;                /* a response opcode: the class its payload beats are tagged with */
    uint16_t pay_beats;       /* payload beats to send, ceil(L/64) (0 if none is sent) */
    uint16_t pay_sent;
    uint32_t crc;
    uint32_t rx_icrc;         /* ICRC bytes of the frame, assembled LSB first */
    /* descriptor output register */
    bool desc_valid;
    roce_rx_desc_t desc;
    uint32_t cnt[8];          /* by status (roce_rx_status_e; 6, 7 unused) */
} roce_rx_state;

/* What beat 0 tells about the frame. */
typedef struct {
    hls_uint(3) early;
    uint8_t hlen;
    uint16_t ip_len;
    hls_uint(14) plen;
    bool resp;
} rx_beat0_info;

HLS_INLINE rx_beat0_info check_beat0(hls_u512 b0, unsigned nb) {
    roce_hdr_bits w = b0;
    rx_beat0_info r = {0};
    uint8_t opcode = hb_byte(w, 42);
    uint8_t ext = roce_ext(opcode);
    unsigned ext_len = roce_ext_len(ext);
    unsigned pad = (hb_byte(w, 43) >> 4) & 3;
    unsigned ip_len = (unsigned)hb_be(w, 16, 2);
    unsigned udp_len = (unsigned)hb_be(w, 38, 2);
    unsigned min_ip = IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN + ext_len + pad + ROCE_ICRC_LEN;
    unsigned plen = ip_len >= min_ip ? ip_len - min_ip : 0;
    /* Not RoCE when an identifying field that the frame holds is wrong (nb is at most 64,
     * all of them are in beat 0); a short frame whose fields so far fit is TRUNCATED. */
    bool foreign = nb < 14 || hb_be(w, 12, 2) != ETHERTYPE_IPV4 ||
                   (nb > 14 && hb_byte(w, 14) != 0x45) ||
                   (nb > 23 && hb_byte(w, 23) != IPPROTO_UDP_NUM) ||
                   (nb > 37 && hb_be(w, 36, 2) != ROCE_UDP_PORT);
    bool len_ok = ip_len >= min_ip && udp_len + IPV4_HDR_LEN == ip_len && plen < 16384 &&
                  (plen == 0 || (ext & ROCE_EXT_PAYLOAD) != 0);
    if (foreign) r.early = ROCE_RX_NOT_ROCE;
    else if (ipv4_sum(w) != 0xFFFF) r.early = ROCE_RX_BAD_IP_CSUM;
    else if (!(ext & ROCE_EXT_VALID)) r.early = ROCE_RX_BAD_OPCODE; /* its length rules are unknown */
    else if (!len_ok) r.early = ROCE_RX_TRUNCATED;
    else r.early = ROCE_RX_OK;
    r.hlen = (uint8_t)(ROCE_BASE_LEN + ext_len);
    r.ip_len = (uint16_t)ip_len;
    r.plen = (hls_uint(14))(len_ok ? plen : 0);
    r.resp = roce_op_is_response(opcode);
    return r;
}

/* Every header field from the first two beats. */
HLS_INLINE roce_hdr_t parse_headers(hls_u512 b0, hls_u512 b1, hls_uint(14) plen) {
    roce_hdr_bits w = ((roce_hdr_bits)b1 << 512) | b0;
    roce_hdr_t d = {0};   /* mig_mark stays 0: a received frame is never a migration marker */
    d.dst_mac = hb_be(w, 0, 6);
    d.src_mac = hb_be(w, 6, 6);
    d.dscp = (hls_uint(6))(hb_byte(w, 15) >> 2);
    d.ecn = (hls_uint(2))hb_byte(w, 15);
    d.ip_id = (uint16_t)hb_be(w, 18, 2);
    d.ttl = hb_byte(w, 22);
    d.src_ip = (uint32_t)hb_be(w, 26, 4);
    d.dst_ip = (uint32_t)hb_be(w, 30, 4);
    d.udp_sport = (uint16_t)hb_be(w, 34, 2);
    d.opcode = hb_byte(w, 42);
    uint8_t f = hb_byte(w, 43);
    d.se = (f >> 7) & 1;
    d.migreq = (f >> 6) & 1;
    d.pad = (hls_uint(2))(f >> 4);
    d.tver = (hls_uint(4))f;
    d.pkey = (uint16_t)hb_be(w, 44, 2);
    d.fecn = (hb_byte(w, 46) >> 7) & 1;
    d.becn = (hb_byte(w, 46) >> 6) & 1;
    d.dest_qp = (hls_u24)hb_be(w, 47, 3);
    d.ack_req = (hb_byte(w, 50) >> 7) & 1;
    d.psn = (hls_u24)hb_be(w, 51, 3);
    uint8_t ext = roce_ext(d.opcode);
    if (ext & ROCE_EXT_RETH) {
        d.reth_va = hb_be(w, 54, 8);
        d.reth_rkey = (uint32_t)hb_be(w, 62, 4);
        d.reth_len = (uint32_t)hb_be(w, 66, 4);
    }
    if (ext & ROCE_EXT_ATOMIC) {
        d.atomic_va = hb_be(w, 54, 8);
        d.atomic_rkey = (uint32_t)hb_be(w, 62, 4);
        d.atomic_swap_add = hb_be(w, 66, 8);
        d.atomic_cmp = hb_be(w, 74, 8);
    }
    if (ext & ROCE_EXT_AETH) {
        d.aeth_syndrome = hb_byte(w, 54);
        d.aeth_msn = (hls_u24)hb_be(w, 55, 3);
    }
    if (ext & ROCE_EXT_ATOMICACK) d.atomic_orig = hb_be(w, 58, 8);
    if (ext & ROCE_EXT_IMM) d.imm = (uint32_t)hb_be(w, (ext & ROCE_EXT_RETH) ? 70 : 54, 4);
    d.payload_len = plen;
    return d;
}

HLS_TOP void roce_rx(const roce_rx_in *in, roce_rx_out *out, roce_rx_state *st) {
    out->cnt_ok = st->cnt[ROCE_RX_OK];
    out->cnt_not_roce = st->cnt[ROCE_RX_NOT_ROCE];
    out->cnt_truncated = st->cnt[ROCE_RX_TRUNCATED];
    out->cnt_bad_ip_csum = st->cnt[ROCE_RX_BAD_IP_CSUM];
    out->cnt_bad_opcode = st->cnt[ROCE_RX_BAD_OPCODE];
    out->cnt_bad_icrc = st->cnt[ROCE_RX_BAD_ICRC];

    /* descriptor register: a beat leaves when the consumer takes it */
    out->desc.valid = st->desc_valid;
    out->desc.data = st->desc;
    bool desc_free = !st->desc_valid; /* a register only, so our valids never wait on desc_ready */
    bool desc_taken = st->desc_valid && in->desc_ready;

    bool first = st->beat == 0;
    unsigned nb = (unsigned)in->frame.data.bytes;
    nb = nb > 64 ? 64 : nb;
    hls_u512 cur = keep_low(in->frame.data.data, nb);

    /* beat-0 facts: from this beat when it is beat 0, else from the registers */
    rx_beat0_info i0 = check_beat0(cur, nb);
    hls_uint(3) early = first ? i0.early : st->early;
    unsigned hlen = first ? i0.hlen : st->hlen;
    unsigned ip_len = first ? i0.ip_len : st->ip_len;
    hls_uint(14) plen = first ? i0.plen : st->plen;
    unsigned shift = hlen & 63;
    unsigned hdr_beat = hlen >> 6;                      /* beat holding the first payload byte */
    unsigned pay_beats = ((unsigned)plen + 63) >> 6;
    bool deliver = early == ROCE_RX_OK && pay_beats != 0;
    /* a payload beat is never emitted while beat 0 is the input, so its class is in `resp` */
    bool resp = st->resp;
    unsigned sent = first ? 0 : st->pay_sent;

    /* ---- ICRC over this beat: bytes [lo, hi) where hi stops at the ICRC ---- */
    unsigned base = 64u * (unsigned)st->beat;           /* frame offset of byte 0 of this beat */
    unsigned icrc_pos = ETH_HDR_LEN + ip_len - ROCE_ICRC_LEN;
    unsigned hi = icrc_pos <= base ? 0 : (icrc_pos - base > nb ? nb : icrc_pos - base);
    hls_u512 view = first ? (cur | icrc_beat0_mask()) : cur;
    uint32_t crc = crc32_range(first ? 0xFFFFFFFFu : st->crc, view,
                               first ? ICRC_BEAT0_START : 0, hi);
    /* the four ICRC bytes, wherever they fall (they may straddle two beats) */
    uint8_t bytes[64];
    for (unsigned i = 0; i < 64; i++) bytes[i] = (uint8_t)(cur >> (8 * i));
    uint32_t rx_icrc = first ? 0 : st->rx_icrc;
    for (unsigned k = 0; k < 4; k++) {
        unsigned p = icrc_pos + k;
        if (p >= base && p - base < nb)
            rx_icrc = (rx_icrc & ~(0xFFu << (8 * k))) | ((uint32_t)bytes[(p - base) & 63] << (8 * k));
    }
    uint32_t frame_bytes = (first ? 0 : st->frame_bytes) + nb;

    /* the frame's status once it has ended (input beat `last` or in FLUSH) */
    uint32_t crc_end = st->phase == RX_FLUSH ? st->crc : crc;
    uint32_t icrc_end = st->phase == RX_FLUSH ? st->rx_icrc : rx_icrc;
    uint32_t bytes_end = st->phase == RX_FLUSH ? st->frame_bytes : frame_bytes;
    /* first failing check wins: identity, base headers present, IPv4 checksum, opcode,
     * lengths (fields and frame), ICRC */
    hls_uint(3) status = ROCE_RX_OK;
    if (early == ROCE_RX_NOT_ROCE) status = ROCE_RX_NOT_ROCE;
    else if (bytes_end < ROCE_BASE_LEN) status = ROCE_RX_TRUNCATED;
    else if (early != ROCE_RX_OK) status = early;
    else if (bytes_end < ETH_HDR_LEN + ip_len || bytes_end < hlen) status = ROCE_RX_TRUNCATED;
    else if (~crc_end != icrc_end) status = ROCE_RX_BAD_ICRC;
    bool hdr_complete = bytes_end >= hlen;

    if (st->phase == RX_FLUSH) {
        /* payload beats after the last input beat: the tail of `prev`, then zero filler
         * if the frame was cut short */
        bool end = sent + 1 >= (unsigned)st->pay_beats;
        unsigned left = (unsigned)plen - 64 * sent;
        unsigned nbytes = left > 64 ? 64 : left;
        out->frame_ready = false;
        out->pay.valid = !end || desc_free;
        out->pay.data.beat.data = keep_low(realign(st->prev, 0, shift), nbytes);
        out->pay.data.beat.bytes = (hls_uint(7))nbytes;
        out->pay.data.beat.last = end;
        out->pay.data.resp = resp;
        if (desc_taken) st->desc_valid = false;
        if (!(out->pay.valid && in->pay_ready)) return;
        st->prev = 0;
        st->pay_sent = (uint16_t)(sent + 1);
        if (end) {
            st->desc_valid = true;
            st->desc.hdr = parse_headers(st->hb0, st->hb1, plen);
            st->desc.status = status;
            st->cnt[status & 7] = st->cnt[status & 7] + 1;
            st->beat = 0;
            st->phase = RX_BEATS;
        }
        return;
    }

    /* ---- RX_BEATS: one input beat ---- */
    /* payload beat m = sent covers frame bytes [hlen + 64m, +64): it is complete once
     * beat hdr_beat + m + 1 arrives (this one) */
    bool emit = deliver && (unsigned)st->beat >= hdr_beat + 1 && sent < pay_beats;
    unsigned left = (unsigned)plen - 64 * sent;
    unsigned nbytes = left > 64 ? 64 : left;
    unsigned sent_after = sent + (emit ? 1 : 0);
    bool is_last = in->frame.data.last;
    bool need_flush = is_last && deliver && hdr_complete && sent_after < pay_beats;
    bool finish = is_last && !need_flush;

    out->pay.valid = in->frame.valid && emit && (!finish || desc_free);
    out->pay.data.beat.data = keep_low(realign(st->prev, cur, shift), nbytes);
    out->pay.data.beat.bytes = (hls_uint(7))nbytes;
    out->pay.data.beat.last = sent + 1 == pay_beats;
    out->pay.data.resp = resp;
    out->frame_ready = (!emit || in->pay_ready) && (!finish || desc_free);
    if (desc_taken) st->desc_valid = false;
    if (!hls_fire(in->frame.valid, out->frame_ready)) return;

    hls_u512 hb0 = first ? cur : st->hb0;
    hls_u512 hb1 = first ? 0 : (st->beat == 1 ? cur : st->hb1);
    st->hb0 = hb0;
    st->hb1 = hb1;
    st->prev = cur;
    st->early = early;
    st->hlen = (uint8_t)hlen;
    st->ip_len = (uint16_t)ip_len;
    st->plen = plen;
    if (first) st->resp = i0.resp;
    st->pay_beats = (uint16_t)(deliver && hdr_complete ? pay_beats : 0);
    st->pay_sent = (uint16_t)sent_after;
    st->crc = crc;
    st->rx_icrc = rx_icrc;
    st->frame_bytes = frame_bytes;
    st->beat = st->beat == 0xFFFF ? st->beat : (uint16_t)(st->beat + 1); /* saturate */

    if (need_flush) {
        st->phase = RX_FLUSH;
    } else if (finish) {
        bool sent_any = deliver && hdr_complete;
        st->desc_valid = true;
        st->desc.hdr = parse_headers(hb0, hb1, sent_any ? plen : 0);
        st->desc.status = status;
        st->cnt[status & 7] = st->cnt[status & 7] + 1;
        st->beat = 0;
    }
}
