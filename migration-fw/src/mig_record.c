/* mig_record.c — field moves between row words and packed records (mig_layout.h). */
#include "mig_record.h"

#include "mig_cost.h"
#include "mig_libc.h"
#include "roce_mtu.h"
#include "roce_psn.h"

static uint64_t low_mask(unsigned n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

/* Row words (32-bit) and record bytes (8-bit) hold bit fields the same way, least
 * significant unit first; one loop serves both, a unit (or the part of one the field
 * covers) per step. */
static uint32_t unit_read(const void *base, unsigned unit, unsigned i)
{
    return unit == 32 ? ((const uint32_t *)base)[i] : ((const uint8_t *)base)[i];
}

static void unit_write(void *base, unsigned unit, unsigned i, uint32_t v)
{
    if (unit == 32) ((uint32_t *)base)[i] = v;
    else ((uint8_t *)base)[i] = (uint8_t)v;
}

static uint64_t bits_get(const void *base, unsigned unit, unsigned lo, unsigned width)
{
    uint64_t v = 0;
    for (unsigned got = 0; got < width;) {
        unsigned bit = lo + got, off = bit % unit, n = unit - off;
        if (n > width - got) n = width - got;
        v |= ((uint64_t)(unit_read(base, unit, bit / unit) >> off) & low_mask(n)) << got;
        got += n;
    }
    return v;
}

static void bits_put(void *base, unsigned unit, unsigned lo, unsigned width, uint64_t v)
{
    for (unsigned done = 0; done < width;) {
        unsigned bit = lo + done, off = bit % unit, n = unit - off;
        if (n > width - done) n = width - done;
        uint32_t m = (uint32_t)(low_mask(n) << off), old = unit_read(base, unit, bit / unit);
        unit_write(base, unit, bit / unit, (old & ~m) | ((uint32_t)((v >> done) << off) & m));
        done += n;
    }
}

uint64_t mig_words_get(const uint32_t *w, unsigned lo, unsigned width) { return bits_get(w, 32, lo, width); }
void mig_words_put(uint32_t *w, unsigned lo, unsigned width, uint64_t v) { bits_put(w, 32, lo, width, v); }
uint64_t mig_bytes_get(const uint8_t *p, unsigned lo, unsigned width) { return bits_get(p, 8, lo, width); }
void mig_bytes_put(uint8_t *p, unsigned lo, unsigned width, uint64_t v) { bits_put(p, 8, lo, width, v); }

uint64_t mig_row_field(unsigned table, const mig_row_t row, unsigned field)
{
    const struct mig_field *f = &mig_layouts[table].fields[field];
    return mig_words_get(row[f->section], f->hw_bit, f->hw_width);
}

void mig_row_set_field(unsigned table, mig_row_t row, unsigned field, uint64_t v)
{
    const struct mig_record_layout *l = &mig_layouts[table];
    const struct mig_field *f = &l->fields[field];
    mig_words_put(row[f->section], f->hw_bit, f->hw_width, v);
    for (unsigned i = 0; i < l->copy_count; i++)
        if (l->copies[i].field == field)
            mig_words_put(row[l->copies[i].section], l->copies[i].hw_bit, f->hw_width, v);
}

/* image bit where a field starts: the fields are packed in list order */
static unsigned img_bit(unsigned table, unsigned field)
{
    unsigned bit = 0;
    for (unsigned i = 0; i < field; i++) bit += mig_layouts[table].fields[i].img_width;
    return bit;
}

uint64_t mig_record_field(unsigned table, const uint8_t *rec, unsigned field)
{
    const struct mig_field *f = &mig_layouts[table].fields[field];
    return mig_bytes_get(rec, img_bit(table, field), f->img_width) << f->shift;
}

void mig_record_set_field(unsigned table, uint8_t *rec, unsigned field, uint64_t v)
{
    const struct mig_field *f = &mig_layouts[table].fields[field];
    mig_bytes_put(rec, img_bit(table, field), f->img_width, v >> f->shift);
}

/* RD_FIRST is the one image field that is not a row field: whether the next READ response
 * starts a request (HEAD_DONE = RD_START, mig_layout.h) */
static uint64_t row_value(unsigned table, const mig_row_t row, unsigned field)
{
    if (table == MIG_TABLE_QP && field == MIG_QPF_RD_FIRST)
        return mig_words_get(row[MIG_SEC_QP_COMP], NIC_CTX_COMP_HEAD_DONE, 32) ==
               mig_words_get(row[MIG_SEC_QP_COMP], NIC_CTX_COMP_RD_START, 32);
    return mig_row_field(table, row, field);
}

int mig_record_pack(const struct mig_hal *hal, unsigned table, const mig_row_t row,
                    unsigned row_index, uint8_t *rec, struct mig_resp *resp)
{
    const struct mig_record_layout *l = &mig_layouts[table];
    unsigned bit = 0;
    mig_memset(rec, 0, l->record_bytes);
    for (unsigned i = 0; i < l->field_count; i++) {
        const struct mig_field *f = &l->fields[i];
        uint64_t v = row_value(table, row, i);
        if (v & low_mask(f->shift))
            return mig_fail(resp, MIG_E_FIT, MIG_R_FIELD_ALIGN, i, row_index);
        v >>= f->shift;
        if (v & ~low_mask(f->img_width))
            return mig_fail(resp, MIG_E_FIT, MIG_R_FIELD_WIDTH, i, row_index);
        mig_bytes_put(rec, bit, f->img_width, v);
        bit += f->img_width;
    }
    mig_hal_spend(hal, MIG_COST_FIELD * l->field_count);
    return MIG_OK;
}

/* the responder's RD_PSN of a READ being answered */
static void derive_read_psn(mig_row_t row)
{
    if (mig_row_field(MIG_TABLE_QP, row, MIG_QPF_POS_CLASS) != MIG_POS_READ_RESP) return;
    /* the next response's PSN: EPSN less the packets still to send */
    uint32_t left = (uint32_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_POS_LEFT); /* 31 bits */
    uint32_t packets = mtu_packets(left, mig_mtu_shift(row));
    uint32_t psn = psn_sub((uint32_t)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_EPSN), packets);
    mig_words_put(row[MIG_SEC_QP_RESP], NIC_CTX_RSP_RD_PSN, 24, psn);
}

/* the completer's retry state (mig_layout.h, "Derived, not stored") */
static void derive_retry_state(mig_row_t row)
{
    uint32_t *comp = row[MIG_SEC_QP_COMP];
    bool outstanding = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_UNA) != mig_row_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI);
    uint64_t retry_cnt = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_RETRY_CNT) & 7;
    uint64_t first = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF_FIRST) & 31;
    uint64_t cap = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF_CAP) & 31;
    bool rd_first = mig_words_get(comp, MIG_COMP_RD_FIRST, 1) != 0;
    mig_words_put(comp, MIG_COMP_RD_FIRST, 1, 0);
    if (!outstanding) {
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_HEAD_DONE, 0);
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RETRIES_LEFT, retry_cnt);
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_RNR_LEFT, mig_row_field(MIG_TABLE_QP, row, MIG_QPF_RNR_RETRY) & 7);
        rd_first = true;
    }
    uint64_t left = mig_row_field(MIG_TABLE_QP, row, MIG_QPF_RETRIES_LEFT);
    uint64_t used = retry_cnt > left ? retry_cnt - left : 0;
    uint64_t exp = first;
    if (mig_row_field(MIG_TABLE_QP, row, MIG_QPF_BACKOFF) && first < cap) exp = first + used < cap ? first + used : cap;
    mig_words_put(comp, NIC_CTX_COMP_CUR_EXP, 8, exp);
    mig_words_put(comp, NIC_CTX_COMP_RETRYING, 8, used != 0);
    mig_words_put(comp, NIC_CTX_COMP_RD_START, 32, rd_first ? mig_row_field(MIG_TABLE_QP, row, MIG_QPF_HEAD_DONE) : 0);
}

unsigned mig_mtu_shift(const mig_row_t row)
{
    return mtu_log((unsigned)mig_row_field(MIG_TABLE_QP, row, MIG_QPF_PMTU)); /* a 3-bit field */
}

void mig_record_derive(unsigned table, mig_row_t row)
{
    if (table != MIG_TABLE_QP) return;
    derive_read_psn(row);
    derive_retry_state(row);
    /* nothing outstanding: the send position is una itself (more: mig_send_position) */
    uint64_t una = mig_row_field(table, row, MIG_QPF_UNA);
    if (una == mig_row_field(table, row, MIG_QPF_SQ_HI)) {
        mig_words_put(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_SQ_HEAD, 16, una);
        mig_words_put(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_OFFSET, 32, 0);
        mig_words_put(row[MIG_SEC_QP_REQ], NIC_CTX_REQ_RD_MASK, 16, 0);
    }
}

void mig_record_unpack(const struct mig_hal *hal, unsigned table, const uint8_t *rec,
                       mig_row_t row)
{
    const struct mig_record_layout *l = &mig_layouts[table];
    unsigned bit = 0;
    mig_memset(row, 0, sizeof(mig_row_t));
    for (unsigned i = 0; i < l->field_count; i++) {
        const struct mig_field *f = &l->fields[i];
        mig_row_set_field(table, row, i, mig_bytes_get(rec, bit, f->img_width) << f->shift);
        bit += f->img_width;
    }
    mig_record_derive(table, row);
    mig_hal_spend(hal, MIG_COST_FIELD * l->field_count);
}

const char *mig_field_name(unsigned table, unsigned field)
{
    if (table >= MIG_TABLES || field >= mig_layouts[table].field_count) return "?";
    return mig_layouts[table].fields[field].name;
}
