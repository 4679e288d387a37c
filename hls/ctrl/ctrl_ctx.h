/* ctrl_ctx.h — ctrl's rows as context-port words (nic_ctx.h, docs/ctrl.md "Context port").
 * A word is 128 bits of the row's little-endian image; the _Static_asserts tie the row types
 * of ctrl_rows.h to the bit positions the firmware reads in nic_ctx.h. */
#ifndef CTRL_CTX_H
#define CTRL_CTX_H

#include <stddef.h>
#include "nic_ctx.h"
#include "ctrl_rows.h"

#define CTX_AT(T, f, bit) _Static_assert(offsetof(T, f) * 8 == (bit), #T "." #f " is not where nic_ctx.h says")
CTX_AT(ctrl_qp_row_t, dst_mac, NIC_CTX_QP_DST_MAC);
CTX_AT(ctrl_qp_row_t, sq_base, NIC_CTX_QP_SQ_BASE);
CTX_AT(ctrl_qp_row_t, rq_base, NIC_CTX_QP_RQ_BASE);
CTX_AT(ctrl_qp_row_t, qpn, NIC_CTX_QP_QPN);
CTX_AT(ctrl_qp_row_t, dest_qpn, NIC_CTX_QP_DEST_QPN);
CTX_AT(ctrl_qp_row_t, sq_psn, NIC_CTX_QP_SQ_PSN);
CTX_AT(ctrl_qp_row_t, rq_psn, NIC_CTX_QP_RQ_PSN);
CTX_AT(ctrl_qp_row_t, dst_ip, NIC_CTX_QP_DST_IP);
CTX_AT(ctrl_qp_row_t, pd, NIC_CTX_QP_PD);
CTX_AT(ctrl_qp_row_t, udp_sport, NIC_CTX_QP_UDP_SPORT);
CTX_AT(ctrl_qp_row_t, state, NIC_CTX_QP_STATE);
CTX_AT(ctrl_qp_row_t, pmtu, NIC_CTX_QP_PMTU);
CTX_AT(ctrl_qp_row_t, access, NIC_CTX_QP_ACCESS);
CTX_AT(ctrl_qp_row_t, timeout, NIC_CTX_QP_TIMEOUT);
CTX_AT(ctrl_qp_row_t, retry_cnt, NIC_CTX_QP_RETRY_CNT);
CTX_AT(ctrl_qp_row_t, rnr_retry, NIC_CTX_QP_RNR_RETRY);
CTX_AT(ctrl_qp_row_t, min_rnr_timer, NIC_CTX_QP_MIN_RNR_TIMER);
CTX_AT(ctrl_qp_row_t, backoff, NIC_CTX_QP_BACKOFF);
CTX_AT(ctrl_qp_row_t, backoff_first, NIC_CTX_QP_BACKOFF_FIRST);
CTX_AT(ctrl_qp_row_t, backoff_cap, NIC_CTX_QP_BACKOFF_CAP);
CTX_AT(ctrl_qp_row_t, sq_log, NIC_CTX_QP_SQ_LOG);
CTX_AT(ctrl_qp_row_t, rq_log, NIC_CTX_QP_RQ_LOG);
CTX_AT(ctrl_qp_row_t, send_cq, NIC_CTX_QP_SEND_CQ);
CTX_AT(ctrl_qp_row_t, recv_cq, NIC_CTX_QP_RECV_CQ);
CTX_AT(ctrl_qp_row_t, valid, NIC_CTX_QP_VALID);
CTX_AT(ctrl_qp_row_t, quiesce, NIC_CTX_QP_QUIESCE);
CTX_AT(ctrl_qp_row_t, pkey_index, NIC_CTX_QP_PKEY_INDEX);
CTX_AT(ctrl_qp_row_t, port_num, NIC_CTX_QP_PORT_NUM);
CTX_AT(ctrl_qp_row_t, max_rd_atomic, NIC_CTX_QP_MAX_RD_ATOMIC);
CTX_AT(ctrl_qp_row_t, max_dest_rd_atomic, NIC_CTX_QP_MAX_DEST_RD_ATOMIC);
_Static_assert(sizeof(ctrl_qp_row_t) * 8 == NIC_CTX_QP_BITS + 8, "QP image: only rsvd follows the last field");
CTX_AT(ctrl_cq_row_t, base, NIC_CTX_CQ_BASE);
CTX_AT(ctrl_cq_row_t, cqn, NIC_CTX_CQ_CQN);
CTX_AT(ctrl_cq_row_t, refs, NIC_CTX_CQ_REFS);
CTX_AT(ctrl_cq_row_t, log, NIC_CTX_CQ_LOG);
CTX_AT(ctrl_cq_row_t, valid, NIC_CTX_CQ_VALID);
CTX_AT(nic_mr_row_t, base, NIC_CTX_MR_BASE);
CTX_AT(nic_mr_row_t, len, NIC_CTX_MR_LEN);
CTX_AT(nic_mr_row_t, key, NIC_CTX_MR_KEY);
CTX_AT(nic_mr_row_t, pd, NIC_CTX_MR_PD);
CTX_AT(nic_mr_row_t, access, NIC_CTX_MR_ACCESS);
CTX_AT(nic_mr_row_t, valid, NIC_CTX_MR_VALID);
#undef CTX_AT

typedef hls_uint(640) ctx_qp_img_t;   /* 5 words; the row fills 576 bits */
typedef hls_uint(256) ctx_mr_img_t;   /* 2 words */

/* The row's image with reserved bytes as 0 and the CQ rows as slots of the function. */
HLS_INLINE ctx_qp_img_t qp_image(ctrl_qp_row_t r) {
    ctx_qp_img_t img = 0;
    r.send_cq &= NIC_CQ_PER_FN - 1;
    r.recv_cq &= NIC_CQ_PER_FN - 1;
    r.rsvd = 0;
    __builtin_memcpy(&img, &r, sizeof r);
    return img;
}
HLS_INLINE ctrl_qp_row_t qp_from_image(ctx_qp_img_t img, nic_fn_t fn) {
    ctrl_qp_row_t r;
    __builtin_memcpy(&r, &img, sizeof r);
    r.send_cq = (uint8_t)(((unsigned)fn << NIC_QP_SLOT_BITS) | (r.send_cq & (NIC_CQ_PER_FN - 1)));
    r.recv_cq = (uint8_t)(((unsigned)fn << NIC_QP_SLOT_BITS) | (r.recv_cq & (NIC_CQ_PER_FN - 1)));
    r.rsvd = 0;
    return r;
}

/* Word w of an image, and the image with word w replaced (w below the section's words). */
HLS_INLINE hls_u128 qp_word(ctx_qp_img_t img, unsigned w) { return (hls_u128)(img >> (128 * (w % 8 < 5 ? w % 8 : 0))); }
HLS_INLINE ctx_qp_img_t qp_put(ctx_qp_img_t img, unsigned w, hls_u128 d) {
    unsigned sh = 128 * (w % 8 < 5 ? w % 8 : 0);
    ctx_qp_img_t m = (ctx_qp_img_t)(hls_u128)~(hls_u128)0 << sh;
    return (img & ~m) | ((ctx_qp_img_t)d << sh);
}
HLS_INLINE hls_u128 mr_word(ctx_mr_img_t img, unsigned w) { return (hls_u128)(img >> (w & 1 ? 128 : 0)); }
HLS_INLINE ctx_mr_img_t mr_put(ctx_mr_img_t img, unsigned w, hls_u128 d) {
    return w & 1 ? (img & (ctx_mr_img_t)~(hls_u128)0) | ((ctx_mr_img_t)d << 128)
                 : (img & ~(ctx_mr_img_t)~(hls_u128)0) | (ctx_mr_img_t)d;
}
HLS_INLINE ctx_mr_img_t mr_image(nic_mr_row_t r) {
    ctx_mr_img_t img = 0;
    r.rsvd0 = 0;
    r.rsvd1 = 0;
    __builtin_memcpy(&img, &r, sizeof r);
    return img;
}
HLS_INLINE nic_mr_row_t mr_from_image(ctx_mr_img_t img) {
    nic_mr_row_t r;
    __builtin_memcpy(&r, &img, sizeof r);
    r.rsvd0 = 0;
    r.rsvd1 = 0;
    return r;
}
HLS_INLINE hls_u128 cq_image(ctrl_cq_row_t r) {
    hls_u128 img = 0;
    r.rsvd = 0;
    __builtin_memcpy(&img, &r, sizeof r);
    return img;
}
HLS_INLINE ctrl_cq_row_t cq_from_image(hls_u128 img) {
    ctrl_cq_row_t r;
    __builtin_memcpy(&r, &img, sizeof r);
    r.rsvd = 0;
    return r;
}

#endif /* CTRL_CTX_H */
