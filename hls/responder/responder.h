/* responder.h — ports, context tables and registers of the RC responder (docs/responder.md).
 * Private to hls/responder: the streams themselves are the nic_if.h contract; the table
 * layouts below are this block's own (live migration saves them as they are). */
#ifndef RESPONDER_H
#define RESPONDER_H

#include "hls.h"
#include "nic_if.h"
#include "nic_types.h"

/* ---- QP context row (HLS_MEM word: fields ordered by size so the struct has no padding) */
enum { RSP_OPEN_NONE = 0, RSP_OPEN_SEND = 1, RSP_OPEN_WRITE = 2 }; /* message in progress */
typedef struct {
    uint64_t dst_mac;      /* cfg: peer MAC */
    uint64_t rq_base;      /* cfg: RQ ring */
    uint64_t wqe_id;       /* open SEND: the RQ WQE's wr_id */
    uint64_t addr;         /* open SEND: buffer base; open WRITE: va of the next byte */
    uint32_t qpn;          /* cfg: this QP's number (24 bits) */
    uint32_t dest_qpn;     /* cfg */
    uint32_t dst_ip;       /* cfg */
    uint32_t pd;           /* cfg */
    uint32_t epsn;         /* expected PSN (24 bits) */
    uint32_t msn;          /* completed messages (24 bits) */
    uint32_t len;          /* open SEND: buffer length; open WRITE: bytes still to come */
    uint32_t off;          /* open SEND / WRITE: bytes received so far */
    uint16_t rq_head;      /* next RQ WQE to consume (free-running) */
    uint16_t rq_tail;      /* producer index from the last doorbell */
    uint16_t udp_sport;    /* cfg */
    uint8_t state;         /* NIC_QPS_* as this block sees it (ERR early on a fatal NAK) */
    uint8_t pmtu;          /* cfg: enum ibv_mtu */
    uint8_t access;        /* cfg: NIC_ACC_REMOTE_* allowed on this QP */
    uint8_t rq_log;        /* cfg */
    uint8_t recv_cq;       /* cfg: cq row of receive completions */
    uint8_t min_rnr;       /* cfg: min_rnr_timer, sent in RNR NAKs */
    uint8_t open;          /* RSP_OPEN_* */
    uint8_t nak_pending;   /* a PSN sequence error NAK is out; stay quiet until epsn arrives */
    uint8_t quiesced;      /* cfg: drop requests without answer */
    uint8_t atom_next;     /* next replay-cache slot to fill */
    uint8_t wqe_reload;    /* open SEND loaded through the context port: its RQ WQE (wr_id,
                              buffer) is read again at rq_head - 1 by the next packet */
    uint8_t rsvd[7];
} rsp_qpc_t;               /* 88 bytes */

/* ---- atomic replay cache, one row per QP: the last RSP_ATOM_SLOTS executed atomics */
#define RSP_ATOM_SLOTS 4
typedef struct {
    uint64_t orig[RSP_ATOM_SLOTS]; /* original value returned in the ATOMIC ACKNOWLEDGE */
    uint32_t psn[RSP_ATOM_SLOTS];
    uint32_t valid;                /* bit i: slot i holds an executed atomic */
    uint32_t rsvd;
} rsp_atom_t;              /* 56 bytes */

/* ---- background work of a QP, one row per QP: its READ responses and its RQ flush.
 * READ requests accepted and not yet fully answered wait here in PSN order (IB 9.5: at most
 * max_dest_rd_atomic of them). Slot `head` is the one being answered; its va, len and psn
 * are those of the NEXT response packet and advance after each packet, so between any two
 * packets the QP's whole READ position is in this row (live migration saves it as is). */
#define RSP_RD_SLOTS 4             /* = NIC_MAX_DEST_RD_ATOMIC */
typedef struct {
    uint64_t va[RSP_RD_SLOTS];     /* next byte to send */
    uint32_t len[RSP_RD_SLOTS];    /* bytes not yet sent */
    uint32_t psn[RSP_RD_SLOTS];    /* PSN of the next response packet */
    uint32_t msn[RSP_RD_SLOTS];    /* the MSN its AETHs carry: the one after this READ */
    uint8_t head;                  /* slot being answered */
    uint8_t count;                 /* READs queued, the one being answered included */
    uint8_t started;               /* head's FIRST is out: the next packet is MIDDLE or LAST */
    uint8_t limit;                 /* cfg: max_dest_rd_atomic (responder resources) */
    uint8_t flush;                 /* ctrl moved the QP to ERR: posted RQ WQEs get flushed */
    uint8_t fresh;                 /* bit s: slot s is a READ accepted new (it moved EPSN),
                                    * not a duplicate asked for again */
    uint8_t rsvd[2];
} rsp_rdq_t;               /* 88 bytes */

/* What a state registers for the state after it, computed on the rows or packet it has, so
 * that the state after starts from registers (responder.c IDLE, RKEY, WQE_KEY, CTX_SUM). */
typedef struct {
    uint32_t rd_epsn;   /* RKEY for CHECK: EPSN after pkt as a new READ (read_sums) */
    bool rd_behind;     /* RKEY for CHECK: pkt as a duplicate READ queues behind the READs queued */
    bool key_ok;        /* an MR check's verdict: RKEY's on pkt's rkey for CHECK (true: no
                         * rkey), WQE_KEY's on the receive buffer's lkey for WQE_OPEN */
    uint64_t key_va;    /* IDLE for RKEY: the access pkt's rkey asks for (key_access) */
    uint32_t key_rkey;
    uint32_t key_len;
    uint8_t key_acc;
    uint32_t img_epsn;  /* CTX_SUM for CTX: EPSN and MSN of the QP's RESP_QP image, and */
    uint32_t img_msn;
    bool img_read;      /* whether the READ being answered is kept in it (resp_qp_sums) */
} rsp_pre_t;

typedef struct {
    HLS_STREAM(nic_cfg_t) cfg;
    HLS_STREAM(nic_db_t) rq_db;
    HLS_STREAM(nic_rx_pkt_t) rx_pkt;
    HLS_STREAM(nic_beat_t) rx_pay;
    HLS_STREAM(nic_dma_resp_t) dma_resp;
    bool dma_req_ready;
    bool tx_desc_ready;
    bool tx_pay_ready;
    bool cqe_ready;
    bool ev_ready;
} responder_in;

typedef struct {
    bool cfg_ready;
    bool rq_db_ready;
    bool rx_pkt_ready;
    bool rx_pay_ready;
    bool dma_resp_ready;
    HLS_STREAM(nic_dma_req_t) dma_req;
    HLS_STREAM(roce_hdr_t) tx_desc;
    HLS_STREAM(nic_beat_t) tx_pay;
    HLS_STREAM(nic_cqe_req_t) cqe;
    HLS_STREAM(nic_event_t) ev;
    uint32_t acks_sent;    /* ACKNOWLEDGE with an ACK syndrome, ATOMIC ACKNOWLEDGE */
    uint32_t naks_sent;    /* ACKNOWLEDGE with an RNR or NAK syndrome */
    uint32_t dropped;      /* requests discarded without an answer */
} responder_out;

enum {
    RSP_IDLE = 0,
    RSP_CFG,      /* qpc row read for a cfg: merge, write, maybe flush */
    RSP_DB,       /* qpc row read for an RQ doorbell */
    RSP_CHECK,    /* qpc, MR and replay rows read for a packet: validate, decide */
    RSP_WQE_REQ,  /* DMA read of the RQ WQE */
    RSP_WQE_RSP,  /* its response */
    RSP_WQE_KEY,  /* the SEND buffer's lkey checked against the MR table (key_ok) */
    RSP_PAY,      /* payload beats: DMA writes, or drained */
    RSP_RD,       /* one READ RESPONSE packet: desc + DMA read + beats */
    RSP_AT_REQ,   /* atomic: DMA read 8 bytes */
    RSP_AT_RSP,
    RSP_AT_WR,    /* atomic: DMA write 8 bytes, replay cache write */
    RSP_FIN,      /* emit pending CQE, ACK/NAK, event; then write the rows back */
    RSP_BG,       /* qpc and rdq rows read for a QP's background work: pick one unit */
    RSP_FL_REQ,   /* flush: DMA read of the next posted RQ WQE */
    RSP_FL_RSP,
    RSP_CTX,      /* qpc, rdq and replay rows read for a context-port word: answer / write */
    RSP_EMIT,     /* markers or a context answer on tx_desc, cqe, ev (each until it moves) */
    RSP_RKEY,     /* between IDLE and CHECK for a packet with a RETH or AtomicETH: its rkey
                     checked against the MR and QP rows read in IDLE (key_ok) */
    RSP_WQE_OPEN, /* after WQE_KEY: its verdict (key_ok) applied, the SEND's buffer opened */
    RSP_CTX_SUM,  /* between IDLE and CTX for a RESP_QP read: the image's EPSN, MSN and kept
                     READ from the rows read in IDLE (pre), CTX answers from them */
};

enum { RSP_TAG_WQE = 1, RSP_TAG_READ = 2, RSP_TAG_ATOMIC = 3 };
#define RSP_RD_AHEAD 2
/* throttle bucket ceiling in 1/1024 bytes: 16 KiB, the largest burst; above any payload_len
 * (14 bits), so every packet can pass once the bucket is full */
#define RSP_THR_CAP ((uint32_t)16384 << 10)

typedef struct {
    HLS_MEM(rsp_qpc_t, NIC_QPS) qpc;
    HLS_MEM(nic_mr_row_t, NIC_MRS) mr;    /* copy of ctrl's MR table (NIC_CFG_MR), for key checks */
    HLS_MEM(rsp_atom_t, NIC_QPS) atom;
    HLS_MEM(rsp_rdq_t, NIC_QPS) rdq;
    uint64_t fn_mac[NIC_FNS];     /* NIC_CFG_FN: source of our ACKs and responses */
    uint32_t fn_ip[NIC_FNS];
    uint8_t phase;                /* RSP_* */
    rsp_qpc_t ctx;                /* working copy of the row being served */
    rsp_rdq_t rq;                 /* and of its background-work row */
    nic_qp_t row;
    /* scheduling: a QP has background work (a bit of bg_work) while its rdq row holds READs
     * to answer or WQEs to flush; quiesced QPs (bits of quiesced_qps) are skipped. IDLE
     * alternates between request packets and background units, and takes the QPs with work
     * round-robin, one unit (a response packet, a flushed WQE) per turn. */
    uint64_t bg_work;
    uint64_t quiesced_qps;
    nic_qp_t rr_last;             /* the last QP served background work */
    bool last_bg;                 /* the last job taken was background work */
    nic_rx_pkt_t pkt;             /* the request being served */
    bool parked;                  /* pkt waits until its QP's READ responses are out */
    rsp_pre_t pre;                /* RKEY's (WQE_KEY's, CTX_SUM's) results for CHECK (WQE_OPEN, CTX) */
    nic_cfg_t cfg;                /* the cfg being applied */
    hls_u24 db_num;               /* the doorbell being applied */
    uint16_t db_index;
    /* what the packet does once its payload is through */
    bool wqe_for_send;            /* the WQE fetched is for a SEND (else WRITE_*_IMM) */
    uint32_t wqe_lkey;            /* its lkey */
    bool discard;                 /* drain the payload without writing it */
    uint64_t pay_addr;            /* next payload byte's destination */
    uint16_t pay_rem;             /* payload bytes left */
    bool need_cqe, need_ack, need_ev;
    nic_cqe_req_t cqe;
    roce_hdr_t txd;               /* ACK / NAK / ATOMIC ACK / current READ RESPONSE */
    nic_event_t ev;
    /* READ responses of the QP in rq: a packet is started when its DMA read is issued. The
     * read of the next packet of the same READ is issued during the current one only while
     * no other work waits (iss_hold: an offered read stays offered); such a packet is then
     * sent right after, so the read latency overlaps the previous packet's beats */
    uint64_t iss_va;              /* next byte to request */
    uint32_t iss_rem;             /* bytes of the head READ not yet requested */
    uint8_t ahead;                /* packets requested whose beats have not all been sent */
    bool iss_hold;
    /* another QP has background work or a parked packet waits: from the registers of
     * eligible and parked, which no state of a READ turn (BG, RD) changes, so BG takes it
     * once for the turn (in RD it ran from those registers through the read-ahead decision
     * into the rdq row's write data) */
    bool rd_others;
    uint16_t rd_n;                /* payload bytes of the packet being sent */
    bool rd_last;                 /* it is its READ's last (start_rd_pkt) */
    bool rd_next_end;             /* the packet after it would be */
    bool desc_done;               /* its descriptor has moved */
    uint16_t tx_rem;              /* its payload bytes still to forward */
    /* atomics */
    uint64_t at_orig;
    /* live migration (docs/responder.md "Migration"): the function's suspend level; the
     * dirty bit of every QP row written since the last NIC_CTX_DIRTY read; the throttle's
     * token buckets in 1/1024 bytes (a bucket gains `rate` per cycle, rate = bytes per 1024
     * cycles, 0 = off) */
    uint8_t level[NIC_FNS];
    uint64_t dirty;
    uint64_t resume_nak;          /* QPs owing their resume NAK (responder.c resume_nak) */
    uint32_t rate[NIC_FNS];
    uint32_t tokens[NIC_FNS];
    uint32_t acks_sent, naks_sent, dropped;
} responder_state;

HLS_TOP void responder(const responder_in *in, responder_out *out, responder_state *st);

#endif /* RESPONDER_H */
