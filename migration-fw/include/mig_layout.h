/* mig_layout.h — THE mapping between hardware context rows and the migration image.
 *
 * The context port (hls/, docs/migration.md section 3) exposes each table's row as sections of
 * 128-bit words whose bit positions are in hls/include/nic_ctx.h; the firmware sees the same
 * bits as 32-bit words (word w = port word w / 4, bits 32 (w % 4) ..). This file is the only
 * place that says which field of which section goes where in the packed image record. The
 * hardware positions are nic_ctx.h's names, never numbers, so the two cannot drift; the
 * Makefile's `layout-check` (run by every build) also fails when nic_ctx.h names a field of a
 * section listed here that no line below mentions, so a new hardware field cannot be left out
 * of the image silently. Bump MIG_LAYOUT_VERSION if the image record changes.
 *
 * One line per field, in image order:
 *   F(ID, SECTION, hw_bit, hw_width, shift, img_width)
 *   hw_bit, hw_width  where the field sits in the section's words (bit 0 = word 0 bit 0);
 *                     hw_width is the bits the field uses (nic_ctx.h's comments)
 *   shift             low bits that are always zero (alignment, units): not stored; save
 *                     refuses a row where they are not zero (MIG_R_FIELD_ALIGN)
 *   img_width         bits kept in the image: virtual addresses keep 57 bits (the widest
 *                     user VA of x86-64 LA57 and RISC-V Sv57), lengths of an open message
 *                     31 (a message is at most 2^31 bytes and one packet has passed), flags
 *                     held in a byte 1; 0 = a value the hardware only ever holds as 0 (save
 *                     checks it); save refuses a value that does not fit (MIG_R_FIELD_WIDTH)
 * A field some block keeps a second copy of (cq_writer's copy of the CQ's configuration) is
 * stored once and named again in the table's copy list:
 *   C(ID, SECTION, hw_bit)   the field's value also sits here (same hw_width); a load writes
 *                            it to both places, mig_row_set_field too
 * Image records are packed LSB first: record bit b is bit b%8 of byte b/8. */
#ifndef MIG_LAYOUT_H
#define MIG_LAYOUT_H

#include <stdint.h>

#include "nic_ctx.h"

#define MIG_LAYOUT_VERSION 1u

enum mig_table { MIG_TABLE_QP, MIG_TABLE_CQ, MIG_TABLE_MR, MIG_TABLE_FN, MIG_TABLES };
/* A table's sections, each one NIC_CTX_* section of the context port (the simulator's HAL
 * maps them: testbench/migration/mig_hal_tb.c). */
enum mig_section {
    /* QP: what ctrl, requester, completer and responder keep of one QP */
    MIG_SEC_QP_CTRL = 0,    /* NIC_CTX_CTRL_QP: attributes software set (ctrl_qp_row_t) */
    MIG_SEC_QP_REQ = 1,     /* NIC_CTX_REQ_QP: requester position */
    MIG_SEC_QP_COMP = 2,    /* NIC_CTX_COMP_QP: completer retry counters, READ offset, flags */
    MIG_SEC_QP_RESP = 3,    /* NIC_CTX_RESP_QP: responder PSNs, RQ position, open message */
    MIG_SEC_QP_ATOM = 4,    /* NIC_CTX_RESP_ATOM: responder atomic replay cache */
    /* CQ: ctrl's row (configuration, references) and cq_writer's (indices, arm, error) */
    MIG_SEC_CQ_CTRL = 0,    /* NIC_CTX_CTRL_CQ */
    MIG_SEC_CQ_CQW = 1,     /* NIC_CTX_CQW_CQ */
    MIG_SEC_MR_CTRL = 0,    /* NIC_CTX_CTRL_MR */
    MIG_SEC_FN_RXD = 0,     /* NIC_CTX_FN (rx_dispatch) */
};
#define MIG_SECTIONS_MAX 5
#define MIG_SECTION_WORDS_MAX 20    /* 32-bit words: NIC_CTX_QP_WORDS port words */
_Static_assert(NIC_CTX_QP_WORDS * 4 <= MIG_SECTION_WORDS_MAX && NIC_CTX_CQW_WORDS * 4 <= MIG_SECTION_WORDS_MAX &&
               NIC_CTX_MR_WORDS * 4 <= MIG_SECTION_WORDS_MAX && NIC_CTX_REQ_QP_WORDS * 4 <= MIG_SECTION_WORDS_MAX &&
               NIC_CTX_RESP_QP_WORDS * 4 <= MIG_SECTION_WORDS_MAX && NIC_CTX_RESP_ATOM_WORDS * 4 <= MIG_SECTION_WORDS_MAX,
               "a row section fits the firmware's row buffer");

/* Responder position class (nic_ctx.h, docs/responder.md "Migration"): what POS_VA /
 * POS_LEFT / POS_DONE describe. An open incoming message and a READ response share them (a
 * READ request inside an open message is an opcode sequence error). An open SEND is loaded as
 * its byte count: the responder re-reads its RQ WQE at RQ_HEAD - 1. */
enum { MIG_POS_NONE = NIC_CTX_RSP_POS_NONE, MIG_POS_SEND = NIC_CTX_RSP_POS_SEND,
       MIG_POS_WRITE = NIC_CTX_RSP_POS_WRITE, MIG_POS_READ_RESP = NIC_CTX_RSP_POS_READ };

/* QP. QP_CTRL is ctrl's row (nic_ctx.h): PKEY_INDEX is always 0 (ctrl refuses any other)
 * and PORT_NUM 0 or 1 (before / after INIT), so they take 0 and 1 image bits. QP_REQ,
 * QP_COMP, QP_RESP and QP_ATOM are the requester's, completer's and responder's rows
 * (nic_ctx.h; ATOM word k = replay slot k). HEAD_DONE counts PSNs of one message (at most
 * 2^31 bytes at MTU >= 256: < 2^23); the retry counters count down from 3-bit attributes.
 * What the record leaves out is derived on load (mig_record_derive, mig_send_position) and
 * listed below the field list. */
#define MIG_QP_FIELDS(F) \
    F(VALID, QP_CTRL, NIC_CTX_QP_VALID, 8, 0, 1) \
    F(STATE, QP_CTRL, NIC_CTX_QP_STATE, 8, 0, 3) \
    F(PMTU, QP_CTRL, NIC_CTX_QP_PMTU, 8, 0, 3) \
    F(QPN, QP_CTRL, NIC_CTX_QP_QPN, 32, 0, 24) \
    F(DEST_QPN, QP_CTRL, NIC_CTX_QP_DEST_QPN, 32, 0, 24) \
    F(DST_MAC, QP_CTRL, NIC_CTX_QP_DST_MAC, 64, 0, 48) \
    F(DST_IP, QP_CTRL, NIC_CTX_QP_DST_IP, 32, 0, 32) \
    F(UDP_SPORT, QP_CTRL, NIC_CTX_QP_UDP_SPORT, 16, 0, 16) \
    F(PD, QP_CTRL, NIC_CTX_QP_PD, 32, 0, 32) \
    F(ACCESS, QP_CTRL, NIC_CTX_QP_ACCESS, 8, 0, 4) \
    F(TIMEOUT, QP_CTRL, NIC_CTX_QP_TIMEOUT, 8, 0, 5) \
    F(RETRY_CNT, QP_CTRL, NIC_CTX_QP_RETRY_CNT, 8, 0, 3) \
    F(RNR_RETRY, QP_CTRL, NIC_CTX_QP_RNR_RETRY, 8, 0, 3) \
    F(MIN_RNR_TIMER, QP_CTRL, NIC_CTX_QP_MIN_RNR_TIMER, 8, 0, 5) \
    F(BACKOFF, QP_CTRL, NIC_CTX_QP_BACKOFF, 8, 0, 1) \
    F(BACKOFF_FIRST, QP_CTRL, NIC_CTX_QP_BACKOFF_FIRST, 8, 0, 5) \
    F(BACKOFF_CAP, QP_CTRL, NIC_CTX_QP_BACKOFF_CAP, 8, 0, 5) \
    F(SQ_BASE, QP_CTRL, NIC_CTX_QP_SQ_BASE, 64, 6, 51) \
    F(RQ_BASE, QP_CTRL, NIC_CTX_QP_RQ_BASE, 64, 5, 52) \
    F(SQ_LOG, QP_CTRL, NIC_CTX_QP_SQ_LOG, 8, 0, 4) \
    F(RQ_LOG, QP_CTRL, NIC_CTX_QP_RQ_LOG, 8, 0, 4) \
    F(SEND_CQ, QP_CTRL, NIC_CTX_QP_SEND_CQ, 8, 0, 4) \
    F(RECV_CQ, QP_CTRL, NIC_CTX_QP_RECV_CQ, 8, 0, 4) \
    F(MAX_RD_ATOMIC, QP_CTRL, NIC_CTX_QP_MAX_RD_ATOMIC, 8, 0, 5) \
    F(MAX_DEST_RD_ATOMIC, QP_CTRL, NIC_CTX_QP_MAX_DEST_RD_ATOMIC, 8, 0, 3) \
    F(QUIESCE, QP_CTRL, NIC_CTX_QP_QUIESCE, 8, 0, 1) \
    F(PKEY_INDEX, QP_CTRL, NIC_CTX_QP_PKEY_INDEX, 16, 0, 0) \
    F(PORT_NUM, QP_CTRL, NIC_CTX_QP_PORT_NUM, 8, 0, 1) \
    F(SQ_TAIL, QP_REQ, NIC_CTX_REQ_SQ_TAIL, 16, 0, 16) \
    F(SQ_HI, QP_REQ, NIC_CTX_REQ_SQ_HI, 16, 0, 16) \
    F(UNA, QP_REQ, NIC_CTX_REQ_UNA, 16, 0, 16) \
    F(NEXT_PSN, QP_REQ, NIC_CTX_REQ_NEXT_PSN, 24, 0, 24) \
    F(UNA_PSN, QP_REQ, NIC_CTX_REQ_UNA_PSN, 24, 0, 24) \
    F(FLUSHING, QP_REQ, NIC_CTX_REQ_FLUSHING, 1, 0, 1) \
    F(OWN_FLUSH, QP_REQ, NIC_CTX_REQ_OWN_FLUSH, 1, 0, 1) \
    F(QUIESCED, QP_REQ, NIC_CTX_REQ_QUIESCED, 1, 0, 1) \
    F(HEAD_DONE, QP_COMP, NIC_CTX_COMP_HEAD_DONE, 32, 0, 23) \
    F(RD_FIRST, QP_COMP, MIG_COMP_RD_FIRST, 1, 0, 1) \
    F(RETRIES_LEFT, QP_COMP, NIC_CTX_COMP_RETRIES_LEFT, 8, 0, 3) \
    F(RNR_LEFT, QP_COMP, NIC_CTX_COMP_RNR_LEFT, 8, 0, 3) \
    F(ARMED, QP_COMP, NIC_CTX_COMP_ARMED, 8, 0, 1) \
    F(EPSN, QP_RESP, NIC_CTX_RSP_EPSN, 24, 0, 24) \
    F(MSN, QP_RESP, NIC_CTX_RSP_MSN, 24, 0, 24) \
    F(RQ_HEAD, QP_RESP, NIC_CTX_RSP_RQ_HEAD, 16, 0, 16) \
    F(RQ_TAIL, QP_RESP, NIC_CTX_RSP_RQ_TAIL, 16, 0, 16) \
    F(POS_CLASS, QP_RESP, NIC_CTX_RSP_POS_CLASS, 2, 0, 2) \
    F(NAK_PENDING, QP_RESP, NIC_CTX_RSP_NAK_PENDING, 1, 0, 1) \
    F(RD_STARTED, QP_RESP, NIC_CTX_RSP_RD_STARTED, 1, 0, 1) \
    F(REPLAY_FILL, QP_RESP, NIC_CTX_RSP_REPLAY_FILL, 3, 0, 3) \
    F(POS_VA, QP_RESP, NIC_CTX_RSP_POS_VA, 64, 0, 57) \
    F(POS_LEFT, QP_RESP, NIC_CTX_RSP_POS_LEFT, 32, 0, 31) \
    F(POS_DONE, QP_RESP, NIC_CTX_RSP_POS_DONE, 32, 8, 23) \
    F(REPLAY_PSN0, QP_ATOM, 0 * 128 + NIC_CTX_RSP_ATOM_PSN, 24, 0, 24) \
    F(REPLAY_ORIG0, QP_ATOM, 0 * 128 + NIC_CTX_RSP_ATOM_ORIG, 64, 0, 64) \
    F(REPLAY_PSN1, QP_ATOM, 1 * 128 + NIC_CTX_RSP_ATOM_PSN, 24, 0, 24) \
    F(REPLAY_ORIG1, QP_ATOM, 1 * 128 + NIC_CTX_RSP_ATOM_ORIG, 64, 0, 64) \
    F(REPLAY_PSN2, QP_ATOM, 2 * 128 + NIC_CTX_RSP_ATOM_PSN, 24, 0, 24) \
    F(REPLAY_ORIG2, QP_ATOM, 2 * 128 + NIC_CTX_RSP_ATOM_ORIG, 64, 0, 64) \
    F(REPLAY_PSN3, QP_ATOM, 3 * 128 + NIC_CTX_RSP_ATOM_PSN, 24, 0, 24) \
    F(REPLAY_ORIG3, QP_ATOM, 3 * 128 + NIC_CTX_RSP_ATOM_ORIG, 64, 0, 64)
/* NIC_CTX_RSP_RD_PSN (the next READ response's PSN) is not stored: the responder puts a READ
 * in its row only when RD_PSN = EPSN - packets left (ceil(POS_LEFT / MTU), 1 for a zero-length
 * READ not started), and a load writes that value (mig_record_derive). */

/* Derived, not stored (docs/migration-fw.md "Derived fields"):
 * - NIC_CTX_REQ_SQ_HEAD, NIC_CTX_REQ_OFFSET, NIC_CTX_REQ_RD_MASK: the outstanding WQEs
 *   una .. sq_hi - 1 are still in the send queue in host memory (the completer's ring is
 *   rebuilt from them too). Their PSNs follow from UNA_PSN, each WQE's opcode and length and
 *   the path MTU; sq_head is the WQE whose PSNs hold NEXT_PSN (sq_hi when NEXT_PSN is past
 *   them), offset the PSNs before NEXT_PSN in it times the MTU, rd_mask the READ / atomic
 *   ones. A flushing QP sends nothing more: sq_head = sq_hi, offset 0 (as STOP leaves it).
 *   With nothing outstanding: sq_head = una, offset 0, rd_mask 0, no host access.
 * - NIC_CTX_COMP_RD_START is only ever compared with HEAD_DONE (is the next READ response a
 *   FIRST / ONLY?): RD_FIRST keeps that one bit, and a load writes RD_START = HEAD_DONE when
 *   it is set, 0 when not (RD_START <= HEAD_DONE, and 0 unless a resend re-issued the READ).
 *   MIG_COMP_RD_FIRST is a firmware-only bit of the row buffer past NIC_CTX_COMP_BITS: the
 *   completer ignores it and a load clears it before the row is written.
 * - NIC_CTX_COMP_CUR_EXP, NIC_CTX_COMP_RETRYING: the completer changes them only with the
 *   retry counter (a resend: counter - 1, exponent + 1 up to the cap, retrying = 1; progress:
 *   all three reset), so retries used = RETRY_CNT - RETRIES_LEFT gives both.
 * - With nothing outstanding (UNA = SQ_HI) the completer's retry state is stale (the next
 *   WQE's record resets it) and a load writes the reset state: HEAD_DONE 0, counters full. */
#define MIG_COMP_RD_FIRST NIC_CTX_COMP_BITS

/* ctrl's SQ_PSN / RQ_PSN (what QUERY_QP answers) are not stored: a load sets them to the
 * PSNs the QP had reached, the requester's next PSN and the responder's expected PSN, which
 * keeps the record within 128 bytes (docs/migration.md, "What the image does not carry"). */
#define MIG_QP_COPIES(C) \
    C(NEXT_PSN, QP_CTRL, NIC_CTX_QP_SQ_PSN) \
    C(EPSN, QP_CTRL, NIC_CTX_QP_RQ_PSN)

/* CQ: ctrl's row and cq_writer's; cq_writer's copy of the configuration is stored once.
 * REFS (QPs naming the CQ, at most 2 per QP slot) is saved verbatim (docs/ctrl.md). */
#define MIG_CQ_FIELDS(F) \
    F(VALID, CQ_CTRL, NIC_CTX_CQ_VALID, 8, 0, 1) \
    F(CQN, CQ_CTRL, NIC_CTX_CQ_CQN, 32, 0, 24) \
    F(BASE, CQ_CTRL, NIC_CTX_CQ_BASE, 64, 5, 52) \
    F(LOG, CQ_CTRL, NIC_CTX_CQ_LOG, 8, 0, 5) \
    F(REFS, CQ_CTRL, NIC_CTX_CQ_REFS, 8, 0, 6) \
    F(PI, CQ_CQW, NIC_CTX_CQW_PI, 32, 0, 32) \
    F(CI, CQ_CQW, NIC_CTX_CQW_CI, 16, 0, 16) \
    F(ARM, CQ_CQW, NIC_CTX_CQW_ARM, 8, 0, 2) \
    F(ERR, CQ_CQW, NIC_CTX_CQW_ERR, 8, 0, 1)
#define MIG_CQ_COPIES(C) \
    C(VALID, CQ_CQW, NIC_CTX_CQW_VALID) \
    C(CQN, CQ_CQW, NIC_CTX_CQW_CQN) \
    C(BASE, CQ_CQW, NIC_CTX_CQW_BASE) \
    C(LOG, CQ_CQW, NIC_CTX_CQW_LOG)

#define MIG_MR_FIELDS(F) \
    F(VALID, MR_CTRL, NIC_CTX_MR_VALID, 8, 0, 1) \
    F(KEY, MR_CTRL, NIC_CTX_MR_KEY, 32, 0, 32) \
    F(PD, MR_CTRL, NIC_CTX_MR_PD, 32, 0, 32) \
    F(BASE, MR_CTRL, NIC_CTX_MR_BASE, 64, 0, 57) \
    F(LEN, MR_CTRL, NIC_CTX_MR_LEN, 64, 0, 58) \
    F(ACCESS, MR_CTRL, NIC_CTX_MR_ACCESS, 8, 0, 4)
#define MIG_MR_COPIES(C)

/* FN: VALID = rx_dispatch accepts the function's packets (set by SET_FN) */
#define MIG_FN_FIELDS(F) \
    F(MAC, FN_RXD, NIC_CTX_FN_MAC, 48, 0, 48) \
    F(IP, FN_RXD, NIC_CTX_FN_IP, 32, 0, 32) \
    F(VALID, FN_RXD, NIC_CTX_FN_VALID, 1, 0, 1)
#define MIG_FN_COPIES(C)

/* Every field inside its section's words (128 bits per port word). */
#define MIG_SEC_END(id, s, b, w, sh, iw) _Static_assert(MIG_SEC_##s != MIG_SEC_QP_REQ || (b) + (w) <= NIC_CTX_REQ_QP_WORDS * 128, #id " inside NIC_CTX_REQ_QP"); \
    _Static_assert(MIG_SEC_##s != MIG_SEC_QP_COMP || (b) + (w) <= NIC_CTX_COMP_QP_WORDS * 128, #id " inside NIC_CTX_COMP_QP"); \
    _Static_assert(MIG_SEC_##s != MIG_SEC_QP_RESP || (b) + (w) <= NIC_CTX_RESP_QP_WORDS * 128, #id " inside NIC_CTX_RESP_QP"); \
    _Static_assert(MIG_SEC_##s != MIG_SEC_QP_ATOM || (b) + (w) <= NIC_CTX_RESP_ATOM_WORDS * 128, #id " inside NIC_CTX_RESP_ATOM"); \
    _Static_assert(MIG_SEC_##s != MIG_SEC_QP_CTRL || (b) + (w) <= NIC_CTX_QP_BITS, #id " inside NIC_CTX_CTRL_QP");
MIG_QP_FIELDS(MIG_SEC_END)

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
_Static_assert(MIG_QP_RECORD_BYTES <= 128, "RC QP record: at most 128 bytes (issue 11)");
_Static_assert(MIG_QP_RECORD_BYTES == 128, "RC QP record: 128 bytes");
_Static_assert(MIG_CQ_RECORD_BYTES == 18, "CQ record: 18 bytes");
_Static_assert(MIG_MR_RECORD_BYTES == 23, "MR record: 23 bytes");
_Static_assert(MIG_FN_RECORD_BYTES == 15, "function record: 15 bytes");

struct mig_field {
    const char *name;
    uint8_t section;
    uint16_t hw_bit;
    uint8_t hw_width;
    uint8_t shift;
    uint8_t img_width;
};

/* A second place a field's value sits in the row (the C(...) lists). */
struct mig_copy {
    uint8_t field;
    uint8_t section;
    uint16_t hw_bit;
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
    const struct mig_copy *copies;
    uint8_t copy_count;
};

extern const struct mig_record_layout mig_layouts[MIG_TABLES];

/* words a section of a table occupies (from the field lists) */
unsigned mig_section_words(unsigned table, unsigned section);

#endif /* MIG_LAYOUT_H */
