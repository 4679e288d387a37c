/* hdr_parser — a switch-based FSM that parses the 12-byte InfiniBand Base Transport
 * Header (BTH) from a stream of 32-bit words (network order, one word per beat):
 *   word 0: opcode[31:24] solicited/migreq/pad/tver[23:16] partition key[15:0]
 *   word 1: reserved[31:24] destination QP[23:0]
 *   word 2: ack request[31] reserved[30:24] PSN[23:0]
 * then payload words until the beat marked last. It reports the header when word 2
 * arrives, the payload length when the packet ends, and a runt error when a packet ends
 * inside the header. The input stream is always ready except when `hold` asks to stall.
 *
 * In the corpus for an enum-typed state register driven by a switch (one mux per
 * state), field extraction by shift/mask, and an input stream consumed with hls_fire. */
#include "hls.h"

typedef enum {
    HP_BTH0 = 0,     /* reset state: waiting for the first header word */
    HP_BTH1,
    HP_BTH2,
    HP_PAYLOAD,
} hp_phase;

typedef struct {
    uint32_t word;
    bool last;
} hp_word;

typedef struct {
    HLS_STREAM(hp_word) rx;
    bool hold;                /* back-pressure from downstream */
} hdr_parser_in;

typedef struct {
    bool rx_ready;
    bool hdr_valid;           /* one-cycle pulse: the fields below are a complete BTH */
    uint8_t opcode;
    uint16_t pkey;
    hls_u24 dest_qp;
    hls_u24 psn;
    bool ack_req;
    bool end_valid;           /* one-cycle pulse at the last beat of a well-formed packet */
    uint16_t payload_words;
    bool runt;                /* one-cycle pulse: packet ended inside the header */
} hdr_parser_out;

typedef struct {
    hp_phase phase;
    uint8_t opcode;           /* fields of words 0 and 1, held until word 2 */
    uint16_t pkey;
    hls_u24 dest_qp;
    uint16_t payload_words;
} hdr_parser_state;

HLS_TOP void hdr_parser(const hdr_parser_in *in, hdr_parser_out *out, hdr_parser_state *st) {
    out->rx_ready = !in->hold;
    if (!hls_fire(in->rx.valid, out->rx_ready)) return; /* nothing moves this cycle */
    uint32_t w = in->rx.data.word;
    bool last = in->rx.data.last;

    switch (st->phase) {
    case HP_BTH0:
        st->opcode = (uint8_t)(w >> 24);
        st->pkey = (uint16_t)w;
        st->phase = HP_BTH1;
        break;
    case HP_BTH1:
        st->dest_qp = (hls_u24)w; /* conversion keeps the low 24 bits */
        st->phase = HP_BTH2;
        break;
    case HP_BTH2:
        out->hdr_valid = true;
        out->opcode = st->opcode;
        out->pkey = st->pkey;
        out->dest_qp = st->dest_qp;
        out->psn = (hls_u24)w;
        out->ack_req = (w >> 31) != 0;
        st->payload_words = 0;
        st->phase = HP_PAYLOAD;
        if (last) { /* header-only packet (e.g. an ACK without AETH): ends here */
            out->end_valid = true;
            st->phase = HP_BTH0;
        }
        return;
    case HP_PAYLOAD:
        st->payload_words = st->payload_words + 1; /* uint16_t promotes to int: no overflow */
        if (last) {
            out->end_valid = true;
            out->payload_words = st->payload_words;
            st->phase = HP_BTH0;
        }
        return;
    default: /* unreachable from reset; keeps the FSM total */
        st->phase = HP_BTH0;
        return;
    }
    /* still inside the header (word 0 or 1) */
    if (last) {
        out->runt = true;
        st->phase = HP_BTH0;
    }
}
