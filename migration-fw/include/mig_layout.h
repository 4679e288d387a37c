/* mig_layout.h — THE mapping between hardware context rows and the migration image.
 *
 * The context port (hls/) exposes each table's row as sections of 32-bit words; this file is
 * the only place that says where each architectural field sits in those words and where it
 * goes in the packed image record. When the datapath rows change, change the lists below
 * (and bump MIG_LAYOUT_VERSION if the image record changes).
 *
 * One line per field, in image order:
 *   F(ID, SECTION, hw_bit, hw_width, shift, img_width)
 *   hw_bit, hw_width  where the field sits in the section's words (bit 0 = word 0 bit 0)
 *   shift             low bits that are always zero (alignment, units): not stored; save
 *                     refuses a row where they are not zero (MIG_R_FIELD_ALIGN)
 *   img_width         bits kept in the image: virtual addresses keep 57 bits (the widest
 *                     user VA of x86-64 LA57 and RISC-V Sv57), lengths of an open message
 *                     31 (a message is at most 2^31 bytes and one packet has passed);
 *                     save refuses a value that does not fit (MIG_R_FIELD_WIDTH)
 * Image records are packed LSB first: record bit b is bit b%8 of byte b/8. */
#ifndef MIG_LAYOUT_H
#define MIG_LAYOUT_H

#include <stdint.h>

#define MIG_LAYOUT_VERSION 1u

enum mig_table { MIG_TABLE_QP, MIG_TABLE_CQ, MIG_TABLE_MR, MIG_TABLE_FN, MIG_TABLES };
enum mig_section {
    /* QP: what ctrl, requester, completer and responder keep of one QP */
    MIG_SEC_QP_ATTR = 0,    /* attributes software set (nic_qp_attr_t) */
    MIG_SEC_QP_REQ = 1,     /* requester position */
    MIG_SEC_QP_CMP = 2,     /* completer: retry counters, READ response offset, timer flags */
    MIG_SEC_QP_RSP = 3,     /* responder: PSNs, RQ position, open message / READ response */
    MIG_SEC_QP_REPLAY = 4,  /* responder atomic replay cache */
    MIG_SEC_CQ_ROW = 0, MIG_SEC_MR_ROW = 0, MIG_SEC_FN_ROW = 0,
};
#define MIG_SECTIONS_MAX 5
#define MIG_SECTION_WORDS_MAX 12

/* Responder position class: what POS_VA / POS_LEFT / POS_MR describe. An open incoming
 * message and a READ response cannot both be under way on one QP (a READ request inside an
 * open message is an opcode sequence error), so they share the fields. The next READ
 * response PSN is not stored: it is EPSN - ceil(POS_LEFT / pmtu). An open SEND's RQ WQE
 * (wr_id, buffer) is re-read from the RQ ring at RQ_HEAD. */
enum { MIG_POS_NONE = 0, MIG_POS_SEND = 1, MIG_POS_WRITE = 2, MIG_POS_READ_RESP = 3 };

#define MIG_QP_FIELDS(F) \
    F(VALID, QP_ATTR, 0, 1, 0, 1) \
    F(STATE, QP_ATTR, 1, 3, 0, 3) \
    F(PMTU, QP_ATTR, 4, 3, 0, 3) \
    F(QPN, QP_ATTR, 7, 24, 0, 24) \
    F(DEST_QPN, QP_ATTR, 31, 24, 0, 24) \
    F(DST_MAC, QP_ATTR, 55, 48, 0, 48) \
    F(DST_IP, QP_ATTR, 103, 32, 0, 32) \
    F(UDP_SPORT, QP_ATTR, 135, 16, 0, 16) \
    F(PD, QP_ATTR, 151, 32, 0, 32) \
    F(ACCESS, QP_ATTR, 183, 4, 0, 4) \
    F(TIMEOUT, QP_ATTR, 187, 5, 0, 5) \
    F(RETRY_CNT, QP_ATTR, 192, 3, 0, 3) \
    F(RNR_RETRY, QP_ATTR, 195, 3, 0, 3) \
    F(MIN_RNR_TIMER, QP_ATTR, 198, 5, 0, 5) \
    F(BACKOFF, QP_ATTR, 203, 1, 0, 1) \
    F(BACKOFF_FIRST, QP_ATTR, 204, 5, 0, 5) \
    F(BACKOFF_CAP, QP_ATTR, 209, 5, 0, 5) \
    F(SQ_BASE, QP_ATTR, 214, 64, 6, 51) \
    F(RQ_BASE, QP_ATTR, 278, 64, 5, 52) \
    F(SQ_LOG, QP_ATTR, 342, 5, 0, 4) \
    F(RQ_LOG, QP_ATTR, 347, 5, 0, 4) \
    F(SEND_CQ, QP_ATTR, 352, 4, 0, 4) \
    F(RECV_CQ, QP_ATTR, 356, 4, 0, 4) \
    F(MAX_RD_ATOMIC, QP_ATTR, 360, 5, 0, 5) \
    F(MAX_DEST_RD_ATOMIC, QP_ATTR, 365, 3, 0, 3) \
    F(SQ_TAIL, QP_REQ, 0, 16, 0, 16) \
    F(SQ_HEAD, QP_REQ, 16, 16, 0, 16) \
    F(UNA, QP_REQ, 32, 16, 0, 16) \
    F(NEXT_PSN, QP_REQ, 48, 24, 0, 24) \
    F(MSG_OFFSET, QP_REQ, 72, 32, 8, 23) \
    F(FLUSHING, QP_REQ, 104, 1, 0, 1) \
    F(RETRIES_LEFT, QP_CMP, 0, 3, 0, 3) \
    F(RNR_LEFT, QP_CMP, 3, 3, 0, 3) \
    F(READ_RESP_OFFSET, QP_CMP, 6, 24, 0, 23) \
    F(CUR_EXP, QP_CMP, 30, 5, 0, 5) \
    F(TIMER_ARMED, QP_CMP, 35, 1, 0, 1) \
    F(RNR_WAIT, QP_CMP, 36, 1, 0, 1) \
    F(RETRYING, QP_CMP, 37, 1, 0, 1) \
    F(SQD_WAIT, QP_CMP, 38, 1, 0, 1) \
    F(EPSN, QP_RSP, 0, 24, 0, 24) \
    F(MSN, QP_RSP, 24, 24, 0, 24) \
    F(RQ_HEAD, QP_RSP, 48, 16, 0, 16) \
    F(RQ_TAIL, QP_RSP, 64, 16, 0, 16) \
    F(POS_CLASS, QP_RSP, 80, 2, 0, 2) \
    F(POS_VA, QP_RSP, 82, 64, 0, 57) \
    F(POS_LEFT, QP_RSP, 146, 32, 0, 31) \
    F(POS_MR, QP_RSP, 178, 6, 0, 6) \
    F(NAK_PENDING, QP_RSP, 184, 1, 0, 1) \
    F(REPLAY_NEXT, QP_RSP, 185, 2, 0, 2) \
    F(REPLAY_VALID, QP_RSP, 187, 4, 0, 4) \
    F(REPLAY_PSN0, QP_REPLAY, 0, 24, 0, 24) \
    F(REPLAY_ORIG0, QP_REPLAY, 24, 64, 0, 64) \
    F(REPLAY_PSN1, QP_REPLAY, 88, 24, 0, 24) \
    F(REPLAY_ORIG1, QP_REPLAY, 112, 64, 0, 64) \
    F(REPLAY_PSN2, QP_REPLAY, 176, 24, 0, 24) \
    F(REPLAY_ORIG2, QP_REPLAY, 200, 64, 0, 64) \
    F(REPLAY_PSN3, QP_REPLAY, 264, 24, 0, 24) \
    F(REPLAY_ORIG3, QP_REPLAY, 288, 64, 0, 64)

#define MIG_CQ_FIELDS(F) \
    F(VALID, CQ_ROW, 0, 1, 0, 1) \
    F(CQN, CQ_ROW, 1, 24, 0, 24) \
    F(BASE, CQ_ROW, 25, 64, 5, 52) \
    F(LOG, CQ_ROW, 89, 5, 0, 5) \
    F(PI, CQ_ROW, 94, 32, 0, 32) \
    F(CI, CQ_ROW, 126, 16, 0, 16) \
    F(ARM, CQ_ROW, 142, 2, 0, 2) \
    F(ERR, CQ_ROW, 144, 1, 0, 1)

#define MIG_MR_FIELDS(F) \
    F(VALID, MR_ROW, 0, 1, 0, 1) \
    F(KEY, MR_ROW, 1, 32, 0, 32) \
    F(PD, MR_ROW, 33, 32, 0, 32) \
    F(BASE, MR_ROW, 65, 64, 0, 57) \
    F(LEN, MR_ROW, 129, 64, 0, 58) \
    F(ACCESS, MR_ROW, 193, 4, 0, 4)

#define MIG_FN_FIELDS(F) \
    F(MAC, FN_ROW, 0, 48, 0, 48) \
    F(IP, FN_ROW, 48, 32, 0, 32)

/* field ids: MIG_QPF_QPN, MIG_CQF_CQN, ... (index into the table's field list) */
#define MIG_FIELD_ID(prefix, id) prefix##id,
#define MIG_QPF_ID(id, s, b, w, sh, iw) MIG_FIELD_ID(MIG_QPF_, id)
#define MIG_CQF_ID(id, s, b, w, sh, iw) MIG_FIELD_ID(MIG_CQF_, id)
#define MIG_MRF_ID(id, s, b, w, sh, iw) MIG_FIELD_ID(MIG_MRF_, id)
#define MIG_FNF_ID(id, s, b, w, sh, iw) MIG_FIELD_ID(MIG_FNF_, id)
enum { MIG_QP_FIELDS(MIG_QPF_ID) MIG_QP_FIELD_COUNT };
enum { MIG_CQ_FIELDS(MIG_CQF_ID) MIG_CQ_FIELD_COUNT };
enum { MIG_MR_FIELDS(MIG_MRF_ID) MIG_MR_FIELD_COUNT };
enum { MIG_FN_FIELDS(MIG_FNF_ID) MIG_FN_FIELD_COUNT };

/* image record sizes, summed at compile time from the lists */
#define MIG_IMG_BITS(id, s, b, w, sh, iw) + (iw)
enum {
    MIG_QP_RECORD_BITS = 0 MIG_QP_FIELDS(MIG_IMG_BITS),
    MIG_CQ_RECORD_BITS = 0 MIG_CQ_FIELDS(MIG_IMG_BITS),
    MIG_MR_RECORD_BITS = 0 MIG_MR_FIELDS(MIG_IMG_BITS),
    MIG_FN_FIELD_BITS = 0 MIG_FN_FIELDS(MIG_IMG_BITS),
    MIG_QP_RECORD_BYTES = (MIG_QP_RECORD_BITS + 7) / 8,
    MIG_CQ_RECORD_BYTES = (MIG_CQ_RECORD_BITS + 7) / 8,
    MIG_MR_RECORD_BYTES = (MIG_MR_RECORD_BITS + 7) / 8,
    /* function record: MAC and IP, then the DevThrottle rate (u32, little-endian) */
    MIG_FN_RECORD_BYTES = (MIG_FN_FIELD_BITS + 7) / 8 + 4,
};
_Static_assert(MIG_QP_RECORD_BYTES == 127, "RC QP record: 127 bytes (issue 11: at most 128)");
_Static_assert(MIG_CQ_RECORD_BYTES == 17, "CQ record: 17 bytes");
_Static_assert(MIG_MR_RECORD_BYTES == 23, "MR record: 23 bytes");
_Static_assert(MIG_FN_RECORD_BYTES == 14, "function record: 14 bytes");

struct mig_field {
    const char *name;
    uint8_t section;
    uint16_t hw_bit;
    uint8_t hw_width;
    uint8_t shift;
    uint8_t img_width;
};

/* One table's record: its fields, and how a row's number gives its slot in the function. */
struct mig_record_layout {
    const struct mig_field *fields;
    uint8_t field_count;
    uint8_t record_bytes;
    uint8_t sections;       /* sections 0..sections-1 make up a row */
    int8_t valid_field;     /* -1: the table has no valid bit (FN) */
    int8_t key_field;       /* the software number: qpn, cqn, key */
    uint8_t key_shift;      /* slot = (number >> key_shift) mod rows per function */
};

extern const struct mig_record_layout mig_layouts[MIG_TABLES];

/* words a section of a table occupies (from the field lists) */
unsigned mig_section_words(unsigned table, unsigned section);

#endif /* MIG_LAYOUT_H */
