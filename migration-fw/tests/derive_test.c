/* derive_test.c — the QP fields a record does not store come back on load (mig_layout.h,
 * "Derived, not stored"): the send position from the send queue's WQEs, the completer's
 * retry state from its counter, RD_START from RD_FIRST. */
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"
#include "mig_send_pos.h"

enum { SQ = 0x2000, SQ_LOG = 3 };   /* 8 WQEs in the stub's host memory */

static void put_wqe(struct stub_nic *n, unsigned index, uint8_t opcode, uint32_t length)
{
    uint8_t *w = n->host + SQ + (index % (1u << SQ_LOG)) * 64;
    mig_memset(w, 0, 64);
    w[8] = opcode;
    for (unsigned b = 0; b < 4; b++) w[24 + b] = (uint8_t)(length >> (8 * b));
}

static uint64_t req(const mig_row_t row, unsigned bit, unsigned width) { return mig_words_get(row[MIG_SEC_QP_REQ], bit, width); }

/* WQEs 0xFFFE .. 0x0002 (the 16-bit index wraps), MTU 1024 (PMTU 3), UNA_PSN 0xFFFFF0 (wraps):
 *   0xFFFE WRITE 3000 B: 3 PSNs FFFFF0..F2   0xFFFF READ 5000 B: 5 PSNs F3..F7
 *   0x0000 FAA: 1 PSN F8                      0x0001 SEND 0 B: 1 PSN F9
 * sq_hi 0x0002. The send position lands on each WQE, mid-message and past the last. */
static void send_position(void)
{
    struct rig *r = &t_dst;
    rig_init(r);
    put_wqe(&r->nic, 0xFFFE, 2, 3000);
    put_wqe(&r->nic, 0xFFFF, 4, 5000);
    put_wqe(&r->nic, 0x0000, 6, 8);
    put_wqe(&r->nic, 0x0001, 0, 0);
    mig_row_t row = { { 0 } };
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_QPN, 0x123);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_PMTU, 3);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_BASE, SQ);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_LOG, SQ_LOG);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_UNA, 0xFFFE);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI, 0x0002);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_UNA_PSN, 0xFFFFF0);
    static const struct { uint32_t next_psn; uint16_t head; uint32_t offset; } cases[] = {
        { 0xFFFFF0, 0xFFFE, 0 }, { 0xFFFFF2, 0xFFFE, 2048 }, { 0xFFFFF5, 0xFFFF, 2048 },
        { 0xFFFFF8, 0x0000, 0 }, { 0xFFFFF9, 0x0001, 0 }, { 0xFFFFFA, 0x0002, 0 },
    };
    struct mig_resp resp;
    bool ok = true;
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_NEXT_PSN, cases[k].next_psn);
        ok &= mig_send_position(&r->fw.hal, row, &resp) == MIG_OK;
        ok &= t_expect("send position", "sq_head", req(row, NIC_CTX_REQ_SQ_HEAD, 16), cases[k].head);
        ok &= t_expect("send position", "offset", req(row, NIC_CTX_REQ_OFFSET, 32), cases[k].offset);
        /* READ 0xFFFF and FAA 0x0000: bits 15 and 0 */
        ok &= t_expect("send position", "rd_mask", req(row, NIC_CTX_REQ_RD_MASK, 16), 0x8001);
    }
    /* a flushing QP sends nothing more: sq_head = sq_hi whatever the next PSN */
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_FLUSHING, 1);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_NEXT_PSN, 0xFFFFF2);
    ok &= mig_send_position(&r->fw.hal, row, &resp) == MIG_OK && req(row, NIC_CTX_REQ_SQ_HEAD, 16) == 0x0002 &&
          req(row, NIC_CTX_REQ_OFFSET, 32) == 0;
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_FLUSHING, 0);
    /* a next PSN beyond the outstanding WQEs' PSNs is not a position: refused, named */
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_NEXT_PSN, 0xFFFFFB);
    ok &= mig_send_position(&r->fw.hal, row, &resp) == MIG_E_FIT && resp.reason == MIG_R_SEND_POSITION &&
          resp.value[0] == 0x123 && resp.value[1] == 0xFFFFFB;
    /* more outstanding WQEs than the requester keeps: refused */
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI, 0x000F);
    ok &= mig_send_position(&r->fw.hal, row, &resp) == MIG_E_FIT && resp.reason == MIG_R_SEND_POSITION;
    /* the send queue unreadable: the HAL op is named */
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI, 0x0002);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_BASE, (uint64_t)1 << 50);
    ok &= mig_send_position(&r->fw.hal, row, &resp) == MIG_E_HW && resp.reason == MIG_R_HAL &&
          resp.value[0] == MIG_HAL_OP_HOST_READ;
    if (ok) t_pass("derive: send position (sq_head, offset, rd_mask) from the send queue: on each WQE, mid-WRITE, mid-READ, past the last, 16-bit index and PSN wrap; flushing; refusals named");
    else t_fail("derive", "send position", 0, 0);
}

static uint64_t comp(const mig_row_t row, unsigned bit, unsigned width) { return mig_words_get(row[MIG_SEC_QP_COMP], bit, width); }

/* row -> record -> back, as a save and a load do */
static bool through_record(struct rig *r, const mig_row_t row, mig_row_t back)
{
    uint8_t rec[MIG_QP_RECORD_BYTES];
    struct mig_resp resp;
    if (mig_record_pack(&r->fw.hal, MIG_TABLE_QP, row, 0, rec, &resp) != MIG_OK) return false;
    mig_record_unpack(&r->fw.hal, MIG_TABLE_QP, rec, back);
    return true;
}

/* The completer's retry state through a record: retry_cnt 6, two retries used with backoff
 * from exponent 10 capped at 11: exponent 11, retrying; RD_START = HEAD_DONE kept as one
 * bit; nothing outstanding: the reset state. */
static void retry_state(void)
{
    struct rig *r = &t_src;
    rig_init(r);
    mig_row_t row = { { 0 } }, back;
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RETRY_CNT, 6);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RNR_RETRY, 5);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF, 1);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF_FIRST, 10);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF_CAP, 11);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_UNA, 7);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI, 9);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RETRIES_LEFT, 4);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RNR_LEFT, 2);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_HEAD_DONE, 40);
    mig_words_put(row[MIG_SEC_QP_COMP], NIC_CTX_COMP_RD_START, 32, 40);
    bool ok = through_record(r, row, back);
    ok &= t_expect("retry state", "cur_exp", comp(back, NIC_CTX_COMP_CUR_EXP, 8), 11);
    ok &= t_expect("retry state", "retrying", comp(back, NIC_CTX_COMP_RETRYING, 8), 1);
    ok &= t_expect("retry state", "rd_start = head_done", comp(back, NIC_CTX_COMP_RD_START, 32), 40);
    ok &= t_expect("retry state", "firmware bit cleared", comp(back, MIG_COMP_RD_FIRST, 1), 0);
    ok &= t_expect("retry state", "retries kept", comp(back, NIC_CTX_COMP_RETRIES_LEFT, 8), 4);
    /* a READ re-issued at 12 and answered since: the next response is a MIDDLE */
    mig_words_put(row[MIG_SEC_QP_COMP], NIC_CTX_COMP_RD_START, 32, 12);
    ok &= through_record(r, row, back);
    ok &= t_expect("retry state", "rd_start != head_done", comp(back, NIC_CTX_COMP_RD_START, 32) != 40, 1);
    /* no retry used, no backoff: exponent = first, not retrying */
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RETRIES_LEFT, 6);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF, 0);
    ok &= through_record(r, row, back);
    ok &= t_expect("retry state", "cur_exp no retry", comp(back, NIC_CTX_COMP_CUR_EXP, 8), 10);
    ok &= t_expect("retry state", "not retrying", comp(back, NIC_CTX_COMP_RETRYING, 8), 0);
    /* nothing outstanding: stale counters become the reset state the next WQE would get */
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RETRIES_LEFT, 1);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI, 7);
    ok &= through_record(r, row, back);
    ok &= t_expect("retry state", "reset retries", comp(back, NIC_CTX_COMP_RETRIES_LEFT, 8), 6);
    ok &= t_expect("retry state", "reset rnr", comp(back, NIC_CTX_COMP_RNR_LEFT, 8), 5);
    ok &= t_expect("retry state", "reset head_done", comp(back, NIC_CTX_COMP_HEAD_DONE, 32), 0);
    ok &= t_expect("retry state", "position una", req(back, NIC_CTX_REQ_SQ_HEAD, 16), 7);
    if (ok) t_pass("derive: completer CUR_EXP / RETRYING from the retry counter, RD_START from RD_FIRST, reset state with nothing outstanding");
    else t_fail("derive", "retry state", 0, 0);
}

void derive_tests(void)
{
    send_position();
    retry_state();
}
