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
 * Bytes after the IPv4 total length (Ethernet padding) are ignored.
 *
 * Stages (issue 26: each does what one clock can): input (the beat into a register) ->
 * check (beat 0's checks into registers) -> beat (payload realignment, frame bookkeeping,
 * the beat's ICRC window) -> ICRC 1 (window) -> ICRC 2 (CRC-32 block) -> ICRC 3 (running register) -> descriptor
 * (ICRC verdict, descriptor register) -> counters. A payload beat leaves 2 cycles after the
 * input beat that completes it arrives, the descriptor 6 cycles after the frame's last beat. */
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

/* What travels with a frame from its end to the descriptor register: everything but the
 * ICRC verdict, which the ICRC stages deliver beside it (see "ICRC pipeline" below). */
typedef struct {
    bool valid;
    hls_uint(3) status;       /* status without the ICRC check (OK: the ICRC decides) */
    hls_uint(7) crc_hi;       /* 1..64: bytes of the frame's last ICRC window (see crc_done) */
    roce_hdr_t hdr;
} rx_end_rec;

/* What beat 0 tells about the frame. */
typedef struct {
    hls_uint(3) early;
    uint8_t hlen;
    uint16_t ip_len;
    hls_uint(17) dgram_end;   /* 14 + IPv4 total length: the frame bytes up to the datagram's end */
    hls_uint(14) plen;
    hls_uint(9) pay_beats;    /* ceil(plen / 64), 0..256 */
    bool deliver;             /* payload beats are sent: beat 0's checks pass, plen > 0 */
    bool resp;
} rx_beat0_info;

typedef struct {
    /* input stage: the beat taken from the frame port, nothing computed on it but its byte
     * mask, so the port's ready is not in front of beat 0's checks; ib_first: it is a frame's
     * beat 0; in_mid: the next input beat continues a frame */
    bool ib_valid;
    hls_u512 ib_data;         /* bytes >= ib_nb zero */
    hls_uint(7) ib_nb;        /* 0..64 */
    bool ib_last;
    bool ib_first;
    bool in_mid;
    /* check stage: the input stage's beat and, if it is a frame's beat 0, what beat 0 tells
     * (check_beat0: identity, IPv4 checksum, opcode, lengths), so that the beat stage
     * starts from registers and these checks have a cycle of their own */
    bool ck_valid;
    hls_u512 ck_data;
    hls_uint(7) ck_nb;
    bool ck_last;
    rx_beat0_info ck_i0;
    hls_uint(1) phase;
    uint16_t beat;            /* index of the next input beat of this frame */
    /* bytes this frame still lacks, after the beats taken so far, to hold its base headers
     * (54), all its headers (H) and its whole IPv4 datagram: counted down by each beat's byte
     * count, so the TRUNCATED checks are a compare of the beat's 7-bit count against a
     * register, not a running 32-bit byte count added and then compared */
    hls_uint(6) lack_base;
    hls_uint(7) lack_hdr;
    hls_uint(17) lack_dgram;
    hls_u512 prev;            /* previous input beat (realignment) */
    hls_u512 hb0;             /* beat 0 and beat 1 of the frame: the headers */
    hls_u512 hb1;
    /* decided at beat 0 */
    hls_uint(3) early;        /* status from beat 0 (NOT_ROCE, TRUNCATED, BAD_IP_CSUM, BAD_OPCODE or OK) */
    uint8_t hlen;             /* header bytes H (54..82) */
    hls_uint(14) plen;        /* payload bytes L */
    hls_uint(9) pay_total;    /* ceil(L/64) */
    bool deliver;             /* beat 0's checks passed and L > 0 */
    bool resp;                /* a response opcode: the class its payload beats are tagged with */
    uint16_t pay_beats;       /* payload beats to send, ceil(L/64) (0 if none is sent) */
    uint16_t pay_sent;
    /* ICRC coverage of the coming beat: bytes 0..cov_lim-1 (0..64) are before the end of the
     * IPv4 datagram. A register moved down by a constant 64 per beat, so no beat offset is
     * multiplied or subtracted on the way to the window mask. cov_rest: the bytes of the
     * datagram after the coming beat (0 once it ends in or before it). */
    hls_uint(7) cov_lim;
    uint16_t cov_rest;
    hls_uint(7) crc_hi;       /* bytes in the frame's last non-empty ICRC window */
    /* ICRC pipeline, filled by the beat stage (c1 + e1) and moved one stage per cycle:
     * c1 a beat's ICRC window -> c2 its CRC-32 block value -> crc the running register;
     * e1 -> e2 -> e3 the end record of a frame, beside its last window; e3 meets the final
     * crc in the descriptor stage. */
    bool c1_valid, c1_first, c1_active;
    hls_u512 c1_window;
    bool c2_valid, c2_first, c2_active;
    uint32_t c2_block;
    uint32_t crc;
    rx_end_rec e1, e2, e3;
    /* descriptor output register */
    bool desc_valid;
    roce_rx_desc_t desc;
    /* counter stage: the status of the frame that ended last cycle, one-hot; the counters
     * add it a cycle later so the status compare and a 32-bit add are not one path */
    hls_uint(6) cnt_inc;
    uint32_t cnt[6];          /* by status (roce_rx_status_e) */
} roce_rx_state;

HLS_INLINE rx_beat0_info check_beat0(hls_u512 b0, unsigned nb) {
    roce_hdr_bits w = b0;
    rx_beat0_info r = {0};
    uint8_t opcode = hb_byte(w, 42);
    uint8_t ext = roce_ext(opcode);
    /* the lengths in their own widths (16-bit fields, 17 bits for a sum), not 32-bit
     * unsigned: each add or compare is a short carry chain. The payload length L is
     * ip_len - min_ip, but every check on it is written as a compare of ip_len with min_ip,
     * so the checks, L and its beat count are side by side after min_ip, none behind the
     * subtract. */
    hls_uint(7) ext_len = (hls_uint(7))roce_ext_len(ext);
    hls_uint(2) pad = (hls_uint(2))(hb_byte(w, 43) >> 4);
    hls_uint(17) ip_len = (hls_uint(17))hb_be(w, 16, 2);
    hls_uint(17) udp_len = (hls_uint(17))hb_be(w, 38, 2);
    hls_uint(7) min_ip = (hls_uint(7))(IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN + ROCE_ICRC_LEN + ext_len + pad); /* 44..75 */
    bool holds_headers = ip_len >= min_ip;
    bool no_payload = ip_len == min_ip;                                 /* L == 0 */
    bool under_max = ip_len < ((hls_uint(17))min_ip | 16384);           /* L < 16384 (min_ip < 16384) */
    hls_uint(14) plen = (hls_uint(14))(ip_len - min_ip);                /* L, when the checks pass */
    hls_uint(9) beats = (hls_uint(9))((hls_uint(17))(ip_len + 63 - min_ip) >> 6); /* ceil(L/64) */
    /* Not RoCE when an identifying field that the frame holds is wrong (nb is at most 64,
     * all of them are in beat 0); a short frame whose fields so far fit is TRUNCATED. */
    bool foreign = nb < 14 || hb_be(w, 12, 2) != ETHERTYPE_IPV4 ||
                   (nb > 14 && hb_byte(w, 14) != 0x45) ||
                   (nb > 23 && hb_byte(w, 23) != IPPROTO_UDP_NUM) ||
                   (nb > 37 && hb_be(w, 36, 2) != ROCE_UDP_PORT);
    bool len_ok = holds_headers && (hls_uint(17))(udp_len + IPV4_HDR_LEN) == ip_len && under_max &&
                  (no_payload || (ext & ROCE_EXT_PAYLOAD) != 0);
    if (foreign) r.early = ROCE_RX_NOT_ROCE;
    else if (!ipv4_sum_ok(w)) r.early = ROCE_RX_BAD_IP_CSUM;
    else if (!(ext & ROCE_EXT_VALID)) r.early = ROCE_RX_BAD_OPCODE; /* its length rules are unknown */
    else if (!len_ok) r.early = ROCE_RX_TRUNCATED;
    else r.early = ROCE_RX_OK;
    r.hlen = (uint8_t)(ROCE_BASE_LEN + ext_len);
    r.ip_len = (uint16_t)ip_len;
    r.dgram_end = (hls_uint(17))(ETH_HDR_LEN + ip_len);
    r.plen = len_ok ? plen : 0;
    r.pay_beats = len_ok ? beats : 0;
    r.deliver = r.early == ROCE_RX_OK && !no_payload;   /* OK includes len_ok */
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

/* The ICRC window of a beat: its bytes up to the end of the IPv4 datagram (the ICRC
 * included), zero from there on. Beat 0 is seen through the ICRC mask, with bytes 0..5
 * (outside the ICRC) zero and the CRC's all-ones seed XORed into bytes 6..9: a CRC register
 * started at s over bytes b is a register started at 0 over b with s XORed into its first
 * four bytes, so every window starts from a register of 0 and beat 0 needs no other case.
 * `cov` is how many bytes are covered: from beat 0's IPv4 total length on beat 0, from the
 * coverage register on later beats; both are per-byte compares, no shifter. */
HLS_INLINE hls_u512 icrc_window(hls_u512 cur, bool first, unsigned ip_len, unsigned cov_lim) {
    hls_u512 view = cur;
    if (first)
        view = ((cur | icrc_beat0_mask()) & ~((((hls_u512)1) << (8 * ICRC_BEAT0_START)) - 1)) ^
               ((hls_u512)0xFFFFFFFFu << (8 * ICRC_BEAT0_START));
    hls_u512 keep = 0;
    HLS_UNROLL for (unsigned i = 0; i < 64; i++) {
        bool in = first ? (i < ETH_HDR_LEN || ip_len > i - ETH_HDR_LEN) : i < cov_lim;
        keep |= (hls_u512)(in ? 0xFFu : 0u) << (8 * i);
    }
    return view & keep;
}

HLS_TOP void roce_rx(const roce_rx_in *in, roce_rx_out *out, roce_rx_state *st) {
    out->cnt_ok = st->cnt[ROCE_RX_OK];
    out->cnt_not_roce = st->cnt[ROCE_RX_NOT_ROCE];
    out->cnt_truncated = st->cnt[ROCE_RX_TRUNCATED];
    out->cnt_bad_ip_csum = st->cnt[ROCE_RX_BAD_IP_CSUM];
    out->cnt_bad_opcode = st->cnt[ROCE_RX_BAD_OPCODE];
    out->cnt_bad_icrc = st->cnt[ROCE_RX_BAD_ICRC];
    for (unsigned i = 0; i < 6; i++) st->cnt[i] = st->cnt[i] + ((unsigned)(st->cnt_inc >> i) & 1u);
    st->cnt_inc = 0;

    /* descriptor register: a beat leaves when the consumer takes it */
    out->desc.valid = st->desc_valid;
    out->desc.data = st->desc;

    /* ---- ICRC pipeline: stage 1 (c1, e1) -> stage 2 (c2, e2) -> stage 3 (crc, e3) ->
     * descriptor register. A stage moves on when the one after it is empty or moving; only
     * an end record (e3) waiting for the descriptor register stops stage 3. From registers
     * only, so no valid of ours waits on desc_ready; and a stage that is empty stays empty
     * until the beat stage fills it, so `admit` cannot fall while a payload beat waits. */
    bool s3_free = !(st->e3.valid && st->desc_valid);
    bool s2_valid = st->c2_valid || st->e2.valid;
    bool s1_valid = st->c1_valid || st->e1.valid;
    bool s2_move = s2_valid && s3_free;
    bool s1_move = s1_valid && (!s2_valid || s2_move);
    bool admit = !s1_valid || s1_move;   /* the beat stage may fill stage 1 */

    /* descriptor stage (last first: each stage reads the registers before they move):
     * the frame's final CRC register against the residue a correct ICRC leaves, advanced
     * by the zero bytes after the datagram in its last window */
    if (st->desc_valid && in->desc_ready) st->desc_valid = false;
    if (s3_free && st->e3.valid) {
        hls_uint(3) status = st->e3.status;
        if (status == ROCE_RX_OK && st->crc != icrc_residue(st->e3.crc_hi)) status = ROCE_RX_BAD_ICRC;
        st->desc_valid = true;
        st->desc.hdr = st->e3.hdr;
        st->desc.status = status;
        st->cnt_inc = (hls_uint(6))(1u << (status & 7));
        st->e3.valid = false;
    }
    /* stage 3, the CRC register: a window advances it (its CRC-32 block value XOR the
     * register run over 64 zero bytes, by linearity), beat 0's restarts it, an empty one
     * keeps it */
    if (s2_move) {
        if (st->c2_valid && (st->c2_first || st->c2_active))
            st->crc = st->c2_block ^ (st->c2_first ? 0u : crc32_block((hls_u512)st->crc));
        st->e3 = st->e2;
        st->c2_valid = false;
        st->e2.valid = false;
    }
    /* stage 2: the XOR tree of one window, alone in its cycle */
    if (s1_move) {
        st->c2_valid = st->c1_valid;
        st->c2_first = st->c1_first;
        st->c2_active = st->c1_active;
        st->c2_block = crc32_block(st->c1_window);
        st->e2 = st->e1;
        st->c1_valid = false;
        st->e1.valid = false;
    }

    /* ---- beat stage: the beat in the check stage's register ---- */
    bool first = st->beat == 0;
    unsigned nb = (unsigned)st->ck_nb;
    hls_u512 cur = st->ck_data;

    /* beat-0 facts: the check stage's when this is beat 0, else from the frame's registers */
    rx_beat0_info i0 = st->ck_i0;
    hls_uint(3) early = first ? i0.early : st->early;
    unsigned hlen = first ? i0.hlen : st->hlen;
    hls_uint(14) plen = first ? i0.plen : st->plen;
    unsigned shift = hlen & 63;
    unsigned pay_beats = first ? (unsigned)i0.pay_beats : (unsigned)st->pay_total;
    bool deliver = first ? i0.deliver : st->deliver;
    /* a payload beat is never emitted while beat 0 is the input, so its class is in `resp` */
    bool resp = st->resp;
    unsigned sent = first ? 0 : st->pay_sent;

    /* ---- ICRC coverage of this beat (the window itself is built below, on acceptance) ---- */
    unsigned cov_end = (unsigned)i0.dgram_end;              /* beat 0: the datagram's end */
    unsigned cov = first ? (cov_end > 64 ? 64 : cov_end) : (unsigned)st->cov_lim;
    unsigned hi = cov > nb ? nb : cov;                  /* window bytes 0..hi-1 are data */
    bool active = first || hi != 0;
    unsigned crc_hi = active ? hi : (unsigned)st->crc_hi;

    /* what the frame holds with this beat (none in FLUSH): a length X is held once the beat's
     * bytes cover what was still lacking of it */
    unsigned lack_base = first ? ROCE_BASE_LEN : (unsigned)st->lack_base;
    unsigned lack_hdr = first ? hlen : (unsigned)st->lack_hdr;
    unsigned lack_dgram = first ? (unsigned)i0.dgram_end : (unsigned)st->lack_dgram;
    unsigned added = st->phase == RX_FLUSH ? 0 : nb;
    bool has_base = added >= lack_base;
    bool hdr_complete = added >= lack_hdr;
    bool has_dgram = added >= lack_dgram;

    /* the frame's status once it has ended (input beat `last` or in FLUSH), all but the
     * ICRC, which the descriptor stage checks: first failing check wins: identity, base
     * headers present, IPv4 checksum, opcode, lengths (fields and frame) */
    hls_uint(3) status = ROCE_RX_OK;
    if (early == ROCE_RX_NOT_ROCE) status = ROCE_RX_NOT_ROCE;
    else if (!has_base) status = ROCE_RX_TRUNCATED;
    else if (early != ROCE_RX_OK) status = early;
    else if (!has_dgram || !hdr_complete) status = ROCE_RX_TRUNCATED;

    bool consumed = false;    /* the beat stage takes the check stage's beat */
    if (st->phase == RX_FLUSH) {
        /* payload beats after the last input beat: the tail of `prev`, then zero filler
         * if the frame was cut short */
        bool end = sent + 1 >= (unsigned)st->pay_beats;
        unsigned left = (unsigned)plen - 64 * sent;
        unsigned nbytes = left > 64 ? 64 : left;
        out->pay.valid = admit;
        out->pay.data.beat.data = keep_low(realign(st->prev, 0, shift), nbytes);
        out->pay.data.beat.bytes = (hls_uint(7))nbytes;
        out->pay.data.beat.last = end;
        out->pay.data.resp = resp;
        if (out->pay.valid && in->pay_ready) {
            st->prev = 0;
            st->pay_sent = (uint16_t)(sent + 1);
            if (end) {
                st->e1.valid = true;
                st->e1.status = status;
                st->e1.crc_hi = (hls_uint(7))st->crc_hi;
                st->e1.hdr = parse_headers(st->hb0, st->hb1, plen);
                st->beat = 0;
                st->phase = RX_BEATS;
            }
        }
    } else {
        /* ---- RX_BEATS: one input beat ---- */
        /* payload beat m = sent covers frame bytes [hlen + 64m, +64): it is complete once
         * beat hlen / 64 + m + 1 arrives (this one); never beat 0, so the frame's registers
         * alone decide */
        bool emit = !first && st->deliver && (unsigned)st->beat > ((unsigned)st->hlen >> 6) &&
                    (unsigned)st->pay_sent < (unsigned)st->pay_total;
        unsigned left = (unsigned)plen - 64 * sent;
        unsigned nbytes = left > 64 ? 64 : left;
        unsigned sent_after = sent + (emit ? 1 : 0);
        bool is_last = st->ck_last;
        bool need_flush = is_last && deliver && hdr_complete && sent_after < pay_beats;
        bool finish = is_last && !need_flush;

        out->pay.valid = st->ck_valid && emit && admit;
        out->pay.data.beat.data = keep_low(realign(st->prev, cur, shift), nbytes);
        out->pay.data.beat.bytes = (hls_uint(7))nbytes;
        out->pay.data.beat.last = sent + 1 == pay_beats;
        out->pay.data.resp = resp;
        consumed = hls_fire(st->ck_valid, (!emit || in->pay_ready) && admit);
        if (consumed) {
            hls_u512 hb0 = first ? cur : st->hb0;
            hls_u512 hb1 = first ? 0 : (st->beat == 1 ? cur : st->hb1);
            st->hb0 = hb0;
            st->hb1 = hb1;
            st->prev = cur;
            st->early = early;
            st->hlen = (uint8_t)hlen;
            st->plen = plen;
            st->pay_total = (hls_uint(9))pay_beats;
            st->deliver = deliver;
            if (first) st->resp = i0.resp;
            st->pay_beats = (uint16_t)(deliver && hdr_complete ? pay_beats : 0);
            st->pay_sent = (uint16_t)sent_after;
            st->lack_base = (hls_uint(6))(has_base ? 0 : lack_base - nb);
            st->lack_hdr = (hls_uint(7))(hdr_complete ? 0 : lack_hdr - nb);
            st->lack_dgram = (hls_uint(17))(has_dgram ? 0 : lack_dgram - nb);
            st->beat = st->beat == 0xFFFF ? st->beat : (uint16_t)(st->beat + 1); /* saturate */

            /* this beat's ICRC window into the pipeline; the coverage of the next beat */
            st->c1_valid = true;
            st->c1_first = first;
            st->c1_active = active;
            st->c1_window = icrc_window(cur, first, (unsigned)i0.ip_len, (unsigned)st->cov_lim);
            st->crc_hi = (hls_uint(7))crc_hi;
            unsigned rest = first ? (cov_end > 64 ? cov_end - 64 : 0) : (unsigned)st->cov_rest;
            st->cov_lim = (hls_uint(7))(rest > 64 ? 64 : rest);
            st->cov_rest = (uint16_t)(rest > 64 ? rest - 64 : 0);

            if (need_flush) {
                st->phase = RX_FLUSH;
            } else if (finish) {
                bool sent_any = deliver && hdr_complete;
                st->e1.valid = true;
                st->e1.status = status;
                st->e1.crc_hi = (hls_uint(7))crc_hi;
                st->e1.hdr = parse_headers(hb0, hb1, sent_any ? plen : 0);
                st->beat = 0;
            }
        }
    }

    /* ---- check stage: takes the input stage's beat when its register is empty or the beat
     * stage takes the one in it; beat 0's checks run on the input register, so the load
     * enable only selects their registered result ---- */
    /* computed outside the load's `if`: rtl-gen predicates what is computed inside one with
     * its condition, and the load enable (the beat stage's take) would run into the checks'
     * carry chains */
    rx_beat0_info i0_next = check_beat0(st->ib_data, (unsigned)st->ib_nb);
    bool ck_room = !st->ck_valid || consumed;
    bool ib_move = st->ib_valid && ck_room;
    if (ck_room) {
        st->ck_valid = st->ib_valid;
        st->ck_data = st->ib_data;
        st->ck_nb = st->ib_nb;
        st->ck_last = st->ib_last;
        if (st->ib_first) st->ck_i0 = i0_next;
    }

    /* ---- input stage: takes a beat when its register is empty or its beat moves on ---- */
    out->frame_ready = !st->ib_valid || ib_move;
    if (out->frame_ready) {
        unsigned in_nb = (unsigned)in->frame.data.bytes;
        in_nb = in_nb > 64 ? 64 : in_nb;
        st->ib_valid = in->frame.valid;
        st->ib_data = keep_low(in->frame.data.data, in_nb);
        st->ib_nb = (hls_uint(7))in_nb;
        st->ib_last = in->frame.data.last;
        st->ib_first = !st->in_mid;
        if (in->frame.valid) st->in_mid = !in->frame.data.last;
    }
}
