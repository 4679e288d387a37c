/* completer_mig.h — the completer's row as a context-port word (NIC_CTX_COMP_QP, nic_ctx.h;
 * docs/completer.md "Migration"): the retry state of the oldest outstanding WQE. */
#ifndef COMPLETER_MIG_H
#define COMPLETER_MIG_H

#include "nic_ctx.h"
#include "completer.h"

#define COMP_CTX_WIDTH(f, lo, hi) _Static_assert(sizeof(((cmp_qpc_t *)0)->f) * 8 == (hi) - (lo), #f " is not as wide as its image field")
COMP_CTX_WIDTH(head_done, NIC_CTX_COMP_HEAD_DONE, NIC_CTX_COMP_RD_START);
COMP_CTX_WIDTH(rd_start, NIC_CTX_COMP_RD_START, NIC_CTX_COMP_RETRIES_LEFT);
COMP_CTX_WIDTH(retries_left, NIC_CTX_COMP_RETRIES_LEFT, NIC_CTX_COMP_RNR_LEFT);
COMP_CTX_WIDTH(rnr_left, NIC_CTX_COMP_RNR_LEFT, NIC_CTX_COMP_CUR_EXP);
COMP_CTX_WIDTH(cur_exp, NIC_CTX_COMP_CUR_EXP, NIC_CTX_COMP_ARMED);
COMP_CTX_WIDTH(armed, NIC_CTX_COMP_ARMED, NIC_CTX_COMP_RETRYING);
COMP_CTX_WIDTH(retrying, NIC_CTX_COMP_RETRYING, NIC_CTX_COMP_BITS);
#undef COMP_CTX_WIDTH
_Static_assert(NIC_CTX_COMP_BITS <= 128 * NIC_CTX_COMP_QP_WORDS, "NIC_CTX_COMP_QP words");

HLS_INLINE hls_u128 comp_ctx_word(const cmp_qpc_t *c) {
    return (hls_u128)c->head_done << NIC_CTX_COMP_HEAD_DONE | (hls_u128)c->rd_start << NIC_CTX_COMP_RD_START |
           (hls_u128)c->retries_left << NIC_CTX_COMP_RETRIES_LEFT | (hls_u128)c->rnr_left << NIC_CTX_COMP_RNR_LEFT |
           (hls_u128)c->cur_exp << NIC_CTX_COMP_CUR_EXP | (hls_u128)c->armed << NIC_CTX_COMP_ARMED |
           (hls_u128)c->retrying << NIC_CTX_COMP_RETRYING;
}

/* The row loaded from word d: the ring is empty until the requester's records rebuild it,
 * and the first of them keeps this retry state (keep_head). Attributes are untouched. */
HLS_INLINE cmp_qpc_t comp_ctx_load(cmp_qpc_t c, hls_u128 d) {
    c.head_done = (uint32_t)(d >> NIC_CTX_COMP_HEAD_DONE);
    c.rd_start = (uint32_t)(d >> NIC_CTX_COMP_RD_START);
    c.retries_left = (uint8_t)(d >> NIC_CTX_COMP_RETRIES_LEFT);
    c.rnr_left = (uint8_t)(d >> NIC_CTX_COMP_RNR_LEFT);
    c.cur_exp = (uint8_t)(d >> NIC_CTX_COMP_CUR_EXP);
    c.armed = (uint8_t)(d >> NIC_CTX_COMP_ARMED);
    c.retrying = (uint8_t)(d >> NIC_CTX_COMP_RETRYING);
    c.head = 0;
    c.count = 0;
    c.rnr_wait = 0;
    c.sqd_wait = 0;
    c.keep_head = 1;
    c.acked = 0; /* not in the image: the resume probe's answer sets it again */
    return c;
}

#endif /* COMPLETER_MIG_H */
