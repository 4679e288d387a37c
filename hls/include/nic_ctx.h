/* nic_ctx.h — the layout of the context port's 128-bit words (docs/migration.md section 3).
 *
 * Plain C (no hls.h, no _BitInt): the migration firmware includes it as it is. A section's
 * row is a little-endian bit image; word w of a row is image bits [128w, 128w + 128). Each
 * field below is (first image bit, width in bits); image bits no field names read as 0 and
 * are ignored on a write. The owner block checks its row type against these positions with
 * _Static_assert, so the firmware's view and the hardware's cannot drift apart.
 *
 * The numbers a host sees (qpn, cqn, key, PD) are stored verbatim; a QP's CQs are CQ slots
 * within the function (DA1: the image loads into any function slot). */
#ifndef NIC_CTX_H
#define NIC_CTX_H

/* Rows per function of each section (the context command's num must be below it). */
enum {
    NIC_CTX_QP_SLOTS = 16,
    NIC_CTX_CQ_SLOTS = 16,
    NIC_CTX_MR_SLOTS = 64,
    NIC_CTX_FN_SLOTS = 1,
};

/* NIC_CTX_CTRL_QP (ctrl): the master QP row, ctrl_qp_row_t in hls/ctrl/ctrl_rows.h. */
enum {
    NIC_CTX_QP_WORDS = 5,
    NIC_CTX_QP_DST_MAC = 0,          /* 64 (48 used) */
    NIC_CTX_QP_SQ_BASE = 64,         /* 64 */
    NIC_CTX_QP_RQ_BASE = 128,        /* 64 */
    NIC_CTX_QP_QPN = 192,            /* 32 (24 used) */
    NIC_CTX_QP_DEST_QPN = 224,       /* 32 (24 used) */
    NIC_CTX_QP_SQ_PSN = 256,         /* 32 (24 used) */
    NIC_CTX_QP_RQ_PSN = 288,         /* 32 (24 used) */
    NIC_CTX_QP_DST_IP = 320,         /* 32 */
    NIC_CTX_QP_PD = 352,             /* 32 */
    NIC_CTX_QP_UDP_SPORT = 384,      /* 16 */
    NIC_CTX_QP_STATE = 400,          /* 8: NIC_QPS_* */
    NIC_CTX_QP_PMTU = 408,           /* 8 */
    NIC_CTX_QP_ACCESS = 416,         /* 8 */
    NIC_CTX_QP_TIMEOUT = 424,        /* 8 */
    NIC_CTX_QP_RETRY_CNT = 432,      /* 8 */
    NIC_CTX_QP_RNR_RETRY = 440,      /* 8 */
    NIC_CTX_QP_MIN_RNR_TIMER = 448,  /* 8 */
    NIC_CTX_QP_BACKOFF = 456,        /* 8 */
    NIC_CTX_QP_BACKOFF_FIRST = 464,  /* 8 */
    NIC_CTX_QP_BACKOFF_CAP = 472,    /* 8 */
    NIC_CTX_QP_SQ_LOG = 480,         /* 8 */
    NIC_CTX_QP_RQ_LOG = 488,         /* 8 */
    NIC_CTX_QP_SEND_CQ = 496,        /* 8: CQ slot within the function (4 used) */
    NIC_CTX_QP_RECV_CQ = 504,        /* 8: CQ slot within the function (4 used) */
    NIC_CTX_QP_VALID = 512,          /* 8 */
    NIC_CTX_QP_QUIESCE = 520,        /* 8 */
    NIC_CTX_QP_PKEY_INDEX = 528,     /* 16 */
    NIC_CTX_QP_PORT_NUM = 544,       /* 8 */
    NIC_CTX_QP_MAX_RD_ATOMIC = 552,  /* 8 */
    NIC_CTX_QP_MAX_DEST_RD_ATOMIC = 560, /* 8 */
    NIC_CTX_QP_BITS = 568,           /* image bits 568..639 of word 4 are 0 */
};

/* NIC_CTX_CTRL_CQ (ctrl): ctrl_cq_row_t. refs (the QPs naming the CQ) is saved and loaded
 * verbatim like every other field: a complete image is consistent by itself. */
enum {
    NIC_CTX_CQ_WORDS = 1,
    NIC_CTX_CQ_BASE = 0,             /* 64 */
    NIC_CTX_CQ_CQN = 64,             /* 32 (24 used) */
    NIC_CTX_CQ_REFS = 96,            /* 8 */
    NIC_CTX_CQ_LOG = 104,            /* 8 */
    NIC_CTX_CQ_VALID = 112,          /* 8 */
    NIC_CTX_CQ_BITS = 120,
};

/* NIC_CTX_CTRL_MR (ctrl): ctrl_mr_row_t. */
enum {
    NIC_CTX_MR_WORDS = 2,
    NIC_CTX_MR_BASE = 0,             /* 64 */
    NIC_CTX_MR_LEN = 64,             /* 64 */
    NIC_CTX_MR_KEY = 128,            /* 32 */
    NIC_CTX_MR_PD = 160,             /* 32 */
    NIC_CTX_MR_ACCESS = 192,         /* 8 */
    NIC_CTX_MR_VALID = 200,          /* 8 */
    NIC_CTX_MR_BITS = 208,
};

/* NIC_CTX_CQW_CQ (cq_writer): cqw_row_t in hls/cq/cq_writer.c, the whole row: the dynamic
 * state (pi, ci, arm, err) and cq_writer's copy of the CQ's configuration, so loading this
 * section alone restores the block (no NIC_CFG_CQ, which would zero pi and ci). */
enum {
    NIC_CTX_CQW_WORDS = 2,
    NIC_CTX_CQW_BASE = 0,            /* 64 */
    NIC_CTX_CQW_PI = 64,             /* 32: CQEs written since creation */
    NIC_CTX_CQW_CQN = 96,            /* 32 */
    NIC_CTX_CQW_CI = 128,            /* 16: the host's consumer index */
    NIC_CTX_CQW_LOG = 144,           /* 8 */
    NIC_CTX_CQW_VALID = 152,         /* 8 */
    NIC_CTX_CQW_ERR = 160,           /* 8: overrun happened */
    NIC_CTX_CQW_ARM = 168,           /* 8: NIC_ARM_* */
    NIC_CTX_CQW_BITS = 192,
};

/* NIC_CTX_FN (rx_dispatch): the function's addresses, row 0. */
enum {
    NIC_CTX_FN_WORDS = 1,
    NIC_CTX_FN_MAC = 0,              /* 48 */
    NIC_CTX_FN_IP = 64,              /* 32 */
    NIC_CTX_FN_VALID = 96,           /* 1: the function has addresses (packets are accepted) */
};

/* NIC_CTX_DIRTY: one word; bit i = slot i of the function's rows of the section named by num
 * (QP and CQ sections: bits 0..15, MR: bits 0..63). Read and clear in one command. */
enum { NIC_CTX_DIRTY_WORDS = 1 };

/* NIC_CTX_REQ_QP (requester): the send position of the QP, its own live facts only (the
 * attributes are ctrl's, NIC_CTX_CTRL_QP). SQ indices are absolute 16-bit, as the doorbell's.
 * The outstanding WQEs are not saved: a load with una != sq_hi makes the requester re-read
 * WQEs una .. sq_hi - 1 from the send queue and rebuild the completer's ring from una_psn
 * (docs/requester.md "Migration"). */
enum {
    NIC_CTX_REQ_QP_WORDS = 2,
    NIC_CTX_REQ_SQ_TAIL = 0,         /* 16: producer index of the last doorbell */
    NIC_CTX_REQ_SQ_HEAD = 16,        /* 16: WQE being sent, or the next to start */
    NIC_CTX_REQ_SQ_HI = 32,          /* 16: every WQE before it has its wqe_rec */
    NIC_CTX_REQ_UNA = 48,            /* 16: oldest unretired WQE */
    NIC_CTX_REQ_NEXT_PSN = 64,       /* 24: PSN of the next request packet */
    NIC_CTX_REQ_UNA_PSN = 88,        /* 24: first PSN of WQE una */
    NIC_CTX_REQ_FLUSHING = 112,      /* 1 */
    NIC_CTX_REQ_OWN_FLUSH = 113,     /* 1 */
    NIC_CTX_REQ_QUIESCED = 114,      /* 1 */
    NIC_CTX_REQ_OFFSET = 128,        /* 32: bytes of WQE sq_head already sent (psn_off * MTU) */
    NIC_CTX_REQ_RD_MASK = 160,       /* 16: bit i % 16: WQE i in [una, sq_hi) is READ/atomic */
    NIC_CTX_REQ_BITS = 176,
};

/* NIC_CTX_COMP_QP (completer): the retry state of the QP's oldest outstanding WQE. The ring
 * of outstanding WQEs is not saved (the requester rebuilds it from the send queue); a write
 * empties it and the first record that arrives keeps these facts. */
enum {
    NIC_CTX_COMP_QP_WORDS = 1,
    NIC_CTX_COMP_HEAD_DONE = 0,      /* 32: PSNs of the oldest WQE that need no resend */
    NIC_CTX_COMP_RD_START = 32,      /* 32: head_done when its READ request was last sent */
    NIC_CTX_COMP_RETRIES_LEFT = 64,  /* 8 */
    NIC_CTX_COMP_RNR_LEFT = 72,      /* 8 */
    NIC_CTX_COMP_CUR_EXP = 80,       /* 8: backoff exponent of the running timeout */
    NIC_CTX_COMP_ARMED = 88,         /* 8: the timer was armed (re-armed in full at RUN) */
    NIC_CTX_COMP_RETRYING = 96,      /* 8: a resend is under way */
    NIC_CTX_COMP_BITS = 104,
};

/* Words per row of the sections the responder owns. Their owners' docs give
 * the layouts; these counts are what ctrl checks NIC_CMD_F_WORD against and must follow
 * those layouts. NIC_CTX_RESP_ATOM: word = replay slot. */
enum {
    NIC_CTX_RESP_QP_WORDS = 2,
    NIC_CTX_RESP_ATOM_WORDS = 4,
};

/* NIC_CTX_RESP_QP (responder, docs/responder.md "Migration"): the responder's own facts only
 * (its attribute copies come with NIC_CFG_QP_ATTR). An open incoming message and a READ
 * response in progress share the position fields: a READ request inside an open message is
 * an opcode-sequence error. The image holds one READ, the one being answered; READs queued
 * behind it are left out and EPSN / MSN read as before them (the requester resends them, as
 * new requests, after resume). A READ is in the image only when its next PSN is
 * EPSN - packets left (ceil(POS_LEFT / MTU), 1 for a zero-length READ not started), so the
 * firmware need not store RD_PSN; a retried READ answered out of that order is left out too
 * and retried again by the requester. */
enum {
    NIC_CTX_RSP_EPSN = 0,            /* 24: expected PSN */
    NIC_CTX_RSP_MSN = 24,            /* 24 */
    NIC_CTX_RSP_RQ_HEAD = 48,        /* 16: next RQ WQE to consume (free-running) */
    NIC_CTX_RSP_RQ_TAIL = 64,        /* 16: producer index of the last RQ doorbell */
    NIC_CTX_RSP_POS_CLASS = 80,      /* 2: NIC_CTX_RSP_POS_* */
    NIC_CTX_RSP_NAK_PENDING = 82,    /* 1: a PSN sequence NAK is out */
    NIC_CTX_RSP_RD_STARTED = 83,     /* 1: READ: its FIRST is out (next is MIDDLE / LAST) */
    NIC_CTX_RSP_REPLAY_FILL = 84,    /* 3: replay cache: 0..3 = slots below it valid and the
                                        next slot; 4..7 = all valid, next slot = value - 4 */
    NIC_CTX_RSP_RD_PSN = 88,         /* 24: READ: PSN of the next response packet */
    NIC_CTX_RSP_POS_VA = 128,        /* 64: WRITE / READ: next byte's va (SEND: buffer base) */
    NIC_CTX_RSP_POS_LEFT = 192,      /* 32: WRITE: bytes still expected; READ: bytes left to
                                        send (SEND: buffer length) */
    NIC_CTX_RSP_POS_DONE = 224,      /* 32: SEND / WRITE: bytes received (whole MTUs) */
    NIC_CTX_RSP_BITS = 256,
};
/* POS_CLASS. SEND: on load, POS_VA / POS_LEFT are ignored: the next packet reads the open
 * RQ WQE again (wr_id, buffer) at RQ_HEAD - 1, the host's ring still holds it. */
enum { NIC_CTX_RSP_POS_NONE = 0, NIC_CTX_RSP_POS_SEND = 1, NIC_CTX_RSP_POS_WRITE = 2,
       NIC_CTX_RSP_POS_READ = 3 };

/* NIC_CTX_RESP_ATOM (responder): word = replay slot 0..3; which slots are valid and the next
 * to fill are REPLAY_FILL of NIC_CTX_RESP_QP. */
enum {
    NIC_CTX_RSP_ATOM_ORIG = 0,       /* 64: the original value the ATOMIC ACKNOWLEDGE carried */
    NIC_CTX_RSP_ATOM_PSN = 64,       /* 24: the atomic's PSN */
};

#endif /* NIC_CTX_H */
