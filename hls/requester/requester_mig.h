/* requester_mig.h — the requester's row as context-port words (NIC_CTX_REQ_QP, nic_ctx.h;
 * docs/requester.md "Migration"). Only the send position is in the image: the attributes
 * come from ctrl's row (NIC_CFG_QP_ATTR), and the WQE cache and rd_wait are re-derived (the
 * cache is refetched, a waiting READ looks at the depth again), and so is the ring rebuild
 * (rebuild, rb_idx, rb_psn). */
#ifndef REQUESTER_MIG_H
#define REQUESTER_MIG_H

#include "nic_ctx.h"
#include "requester_ctx.h"

/* The image fields have the widths of the row's fields, so a save and a load lose nothing. */
#define REQ_CTX_SAME(a, b, ra, rb) _Static_assert((b) - (a) == (rb) - (ra), #a " is not as wide as the row's field")
REQ_CTX_SAME(NIC_CTX_REQ_SQ_TAIL, NIC_CTX_REQ_SQ_HEAD, RP_SQ_TAIL, RP_SQ_HEAD);
REQ_CTX_SAME(NIC_CTX_REQ_SQ_HEAD, NIC_CTX_REQ_SQ_HI, RP_SQ_HEAD, RP_SQ_HI);
REQ_CTX_SAME(NIC_CTX_REQ_SQ_HI, NIC_CTX_REQ_UNA, RP_SQ_HI, RP_UNA);
REQ_CTX_SAME(NIC_CTX_REQ_UNA, NIC_CTX_REQ_NEXT_PSN, RP_UNA, RP_PSN);
REQ_CTX_SAME(NIC_CTX_REQ_NEXT_PSN, NIC_CTX_REQ_UNA_PSN, RP_PSN, RP_UNA_PSN);
REQ_CTX_SAME(NIC_CTX_REQ_UNA_PSN, NIC_CTX_REQ_FLUSHING, RP_UNA_PSN, RP_OFFSET);
REQ_CTX_SAME(NIC_CTX_REQ_OFFSET, NIC_CTX_REQ_RD_MASK, RP_OFFSET, RP_QUIESCED);
REQ_CTX_SAME(NIC_CTX_REQ_RD_MASK, NIC_CTX_REQ_BITS, RP_RD_MASK, RP_RD_WAIT);
#undef REQ_CTX_SAME
_Static_assert(NIC_CTX_REQ_BITS <= 128 * NIC_CTX_REQ_QP_WORDS, "NIC_CTX_REQ_QP words");

typedef hls_uint(256) req_img_t;   /* NIC_CTX_REQ_QP_WORDS words */

HLS_INLINE req_img_t img_put(req_img_t m, unsigned lo, unsigned width, uint64_t v) {
    return m | ((req_img_t)(v & rp_mask(width)) << lo);
}
HLS_INLINE uint64_t img_get(req_img_t m, unsigned lo, unsigned width) {
    return (uint64_t)(m >> lo) & rp_mask(width);
}

/* A READ/atomic re-issue still owed (ret) is not in the image: the position saved is the one
 * it would return to, and the destination's resume probe draws the answer that asks for the
 * re-issue again (docs/requester.md "Migration"). */
HLS_INLINE req_img_t req_image(const req_ctx_t *c) {
    req_img_t m = 0;
    m = img_put(m, NIC_CTX_REQ_SQ_TAIL, 16, c->sq_tail);
    m = img_put(m, NIC_CTX_REQ_SQ_HEAD, 16, c->ret ? c->ret_head : c->sq_head);
    m = img_put(m, NIC_CTX_REQ_SQ_HI, 16, c->sq_hi);
    m = img_put(m, NIC_CTX_REQ_UNA, 16, c->una);
    m = img_put(m, NIC_CTX_REQ_NEXT_PSN, 24, c->ret ? c->ret_psn : c->next_psn);
    m = img_put(m, NIC_CTX_REQ_UNA_PSN, 24, c->una_psn);
    m = img_put(m, NIC_CTX_REQ_FLUSHING, 1, c->flushing);
    m = img_put(m, NIC_CTX_REQ_OWN_FLUSH, 1, c->own_flush);
    m = img_put(m, NIC_CTX_REQ_QUIESCED, 1, c->quiesced);
    m = img_put(m, NIC_CTX_REQ_OFFSET, 32, c->ret ? c->ret_offset : c->offset);
    m = img_put(m, NIC_CTX_REQ_RD_MASK, 16, c->rd_mask);
    return m;
}

/* Word w of the row's image. */
HLS_INLINE hls_u128 req_ctx_word(const req_ctx_t *c, unsigned w) {
    return (hls_u128)(req_image(c) >> (128 * (w & 1)));
}

/* The row with word w of its image replaced by d: the other word's fields are kept, the
 * attributes are untouched, the WQE cache is stale and a waiting READ looks again. */
HLS_INLINE req_ctx_t req_ctx_load(req_ctx_t c, unsigned w, hls_u128 d) {
    req_img_t old = req_image(&c);
    req_img_t word0 = ((req_img_t)1 << 128) - 1;
    req_img_t m = (w & 1) ? ((old & word0) | ((req_img_t)d << 128)) : ((old & ~word0) | (req_img_t)d);
    c.sq_tail = (uint16_t)img_get(m, NIC_CTX_REQ_SQ_TAIL, 16);
    c.sq_head = (uint16_t)img_get(m, NIC_CTX_REQ_SQ_HEAD, 16);
    c.sq_hi = (uint16_t)img_get(m, NIC_CTX_REQ_SQ_HI, 16);
    c.una = (uint16_t)img_get(m, NIC_CTX_REQ_UNA, 16);
    c.next_psn = (hls_u24)img_get(m, NIC_CTX_REQ_NEXT_PSN, 24);
    c.una_psn = (hls_u24)img_get(m, NIC_CTX_REQ_UNA_PSN, 24);
    c.flushing = img_get(m, NIC_CTX_REQ_FLUSHING, 1) != 0;
    c.own_flush = img_get(m, NIC_CTX_REQ_OWN_FLUSH, 1) != 0;
    c.quiesced = img_get(m, NIC_CTX_REQ_QUIESCED, 1) != 0;
    c.offset = (uint32_t)img_get(m, NIC_CTX_REQ_OFFSET, 32);
    c.rd_mask = (uint16_t)img_get(m, NIC_CTX_REQ_RD_MASK, 16);
    c.wqe_valid = false;
    c.rd_wait = false;
    c.ret = false;
    c.probe_at = false;
    c.hold = false;
    c.held = false;
    /* the completer's ring of WQEs una .. sq_hi - 1 is rebuilt from the send queue before
     * anything new is sent (each word's write recomputes it from the whole image) */
    c.rebuild = c.una != c.sq_hi;
    c.rb_idx = c.una;
    c.rb_psn = c.una_psn;
    return c;
}

#endif /* REQUESTER_MIG_H */
