/* mig_save.c — the save iterator: each ImageBlock-Save writes the next block of the current
 * pass to the PF's host buffer.
 *
 * A pass begins with the set of rows it will carry (todo): every row in use for a full pass;
 * in pre-copy, after the first pass, the rows the datapath wrote since the pass before (the
 * hardware's dirty bitmaps, read and cleared). Rows are read when their block is built, so a
 * row written during the pass goes out in its newest form and again in the next pass. A
 * pre-copy pass with nothing to carry is not begun: the answer is MIG_SAVE_NOTHING_NOW. A
 * save that fails makes the next pass a full one (a delta with a hole would be wrong). */
#include "mig_fw.h"

#include "mig_cost.h"
#include "mig_libc.h"
#include "mig_record.h"

static const uint8_t block_table[] = {
    [MIG_BLK_FN] = MIG_TABLE_FN, [MIG_BLK_CQ] = MIG_TABLE_CQ,
    [MIG_BLK_MR] = MIG_TABLE_MR, [MIG_BLK_QP] = MIG_TABLE_QP,
};

static unsigned per_block(unsigned table) { return MIG_PAYLOAD_MAX / mig_layouts[table].record_bytes; }
static unsigned blocks_for(unsigned table, unsigned n) { return (n + per_block(table) - 1) / per_block(table); }

/* blocks of a pass carrying count[] records: HDR, FN, CQ.., MR.., QP.., END */
static uint32_t pass_blocks(const uint16_t count[MIG_TABLES])
{
    return 3 + blocks_for(MIG_TABLE_CQ, count[MIG_TABLE_CQ]) +
           blocks_for(MIG_TABLE_MR, count[MIG_TABLE_MR]) + blocks_for(MIG_TABLE_QP, count[MIG_TABLE_QP]);
}

void mig_save_reset(struct mig_fw *fw) { mig_memset(&fw->save, 0, sizeof fw->save); }

static bool full_pass(const struct mig_save *s) { return !s->tracked || s->pass == 0; }

/* rows the next pass will carry, into todo[] */
static int collect(struct mig_fw *fw, unsigned fn, mig_bitmap_t todo[MIG_OBJ_TABLES],
                   struct mig_resp *resp)
{
    struct mig_save *s = &fw->save;
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++) {
        mig_bitmap_t dirty = { 0 };
        if (s->tracked) {
            int rc = mig_hal_dirty_read_clear(&fw->hal, fn, t, dirty, MIG_BITMAP_WORDS);
            if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_DIRTY_READ_CLEAR);
        }
        for (unsigned w = 0; w < MIG_BITMAP_WORDS; w++) {
            s->carry[t][w] |= dirty[w]; /* a full pass covers them: dropped below */
            todo[t][w] = s->carry[t][w];
        }
        if (full_pass(s)) {
            mig_memset(todo[t], 0, sizeof(mig_bitmap_t));
            for (unsigned r = 0; r < fw->caps.rows[t]; r++) {
                bool valid;
                int rc = mig_row_valid(fw, t, fn, r, &valid, resp);
                if (rc != MIG_OK) return rc;
                if (valid) mig_bit_set(todo[t], r);
            }
        }
    }
    return MIG_OK;
}

static void fail_pass(struct mig_save *s)
{
    s->in_pass = false;
    s->pass = 0; /* the next pass is full */
}

static int start_pass(struct mig_fw *fw, unsigned fn, struct mig_resp *resp, bool *nothing)
{
    struct mig_save *s = &fw->save;
    int rc = collect(fw, fn, s->todo, resp);
    if (rc != MIG_OK) return rc;
    mig_memset(s->carry, 0, sizeof s->carry);
    unsigned n = 0;
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++) {
        s->count[t] = (uint16_t)mig_bit_count(s->todo[t]);
        n += s->count[t];
    }
    s->count[MIG_TABLE_FN] = 1;
    *nothing = n == 0 && !full_pass(s) && fw->state[fn] == MIG_ST_PRECOPY;
    if (*nothing) return MIG_OK;
    s->flags = (uint16_t)((full_pass(s) ? MIG_IMG_FULL : 0) |
                          (fw->state[fn] == MIG_ST_SUSPENDED_PASSIVE ? MIG_IMG_FINAL : 0));
    s->blocks = pass_blocks(s->count);
    s->seq = 0;
    s->records = 0;
    s->kind = MIG_BLK_HDR;
    s->in_pass = true;
    return MIG_OK;
}

static unsigned header_payload(const struct mig_fw *fw, uint8_t *p)
{
    const struct mig_save *s = &fw->save;
    mig_put_le(p + MIG_IH_MAGIC, MIG_IMAGE_MAGIC, 4);
    mig_put_le(p + MIG_IH_LAYOUT, MIG_LAYOUT_VERSION, 2);
    mig_put_le(p + MIG_IH_FEATURE, MIG_FEATURE_VERSION, 2);
    mig_put_le(p + MIG_IH_CAPACITY, mig_capacity_version(&fw->caps), 4);
    mig_put_le(p + MIG_IH_BLOCK_SIZE, MIG_BLOCK_SIZE, 2);
    mig_put_le(p + MIG_IH_FLAGS, s->flags, 2);
    mig_put_le(p + MIG_IH_COUNT_FN, s->count[MIG_TABLE_FN], 2);
    mig_put_le(p + MIG_IH_COUNT_CQ, s->count[MIG_TABLE_CQ], 2);
    mig_put_le(p + MIG_IH_COUNT_MR, s->count[MIG_TABLE_MR], 2);
    mig_put_le(p + MIG_IH_COUNT_QP, s->count[MIG_TABLE_QP], 2);
    mig_put_le(p + MIG_IH_BLOCKS, s->blocks, 4);
    mig_put_le(p + MIG_IH_QP_BYTES, MIG_QP_RECORD_BYTES, 2);
    mig_put_le(p + MIG_IH_CQ_BYTES, MIG_CQ_RECORD_BYTES, 2);
    mig_put_le(p + MIG_IH_MR_BYTES, MIG_MR_RECORD_BYTES, 2);
    mig_put_le(p + MIG_IH_FN_BYTES, MIG_FN_RECORD_BYTES, 2);
    return MIG_IH_BYTES;
}

static int fn_payload(struct mig_fw *fw, unsigned fn, uint8_t *p, struct mig_resp *resp)
{
    int rc = mig_row_read(fw, MIG_TABLE_FN, fn, 0, fw->row, resp);
    if (rc == MIG_OK) rc = mig_record_pack(&fw->hal, MIG_TABLE_FN, fw->row, 0, p, resp);
    mig_put_le(p + MIG_FN_RECORD_BYTES - 4, fw->throttle[fn], 4);
    return rc;
}

/* records of one table from todo, as many as fit; *n = how many */
static int record_payload(struct mig_fw *fw, unsigned fn, unsigned table, uint8_t *p,
                          unsigned *n, struct mig_resp *resp)
{
    const struct mig_record_layout *l = &mig_layouts[table];
    mig_bitmap_t *todo = &fw->save.todo[table];
    *n = 0;
    for (unsigned r = 0; r < fw->caps.rows[table] && *n < per_block(table); r++) {
        if (!mig_bit(*todo, r)) continue;
        uint8_t *rec = p + *n * l->record_bytes;
        int rc = mig_row_read(fw, table, fn, r, fw->row, resp);
        if (rc != MIG_OK) return rc;
        if (mig_row_field(table, fw->row, (unsigned)l->valid_field)) {
            rc = mig_record_pack(&fw->hal, table, fw->row, r, rec, resp);
            if (rc != MIG_OK) return rc;
            uint64_t key = mig_record_field(table, rec, (unsigned)l->key_field);
            if (mig_slot_of(fw, table, key) != r)
                return mig_fail(resp, MIG_E_FIT, MIG_R_ROW_SLOT, key, r);
        } else {
            /* the row was emptied since the last pass: a record that says so, keyed by slot */
            mig_memset(rec, 0, l->record_bytes);
            mig_record_set_field(table, rec, (unsigned)l->key_field, (uint64_t)r << l->key_shift);
        }
        mig_bit_clear(*todo, r);
        (*n)++;
    }
    return MIG_OK;
}

static uint8_t next_kind(const struct mig_save *s, uint8_t kind)
{
    for (uint8_t k = (uint8_t)(kind + 1); k < MIG_BLK_END; k++)
        if (mig_bit_count(s->todo[block_table[k]])) return k;
    return MIG_BLK_END;
}

int mig_save_next(struct mig_fw *fw, unsigned fn, uint64_t host_addr, struct mig_resp *resp)
{
    struct mig_save *s = &fw->save;
    if (!s->in_pass) {
        bool nothing;
        int rc = start_pass(fw, fn, resp, &nothing);
        if (rc != MIG_OK) { fail_pass(s); return rc; }
        if (nothing) { resp->answer = MIG_SAVE_NOTHING_NOW; return MIG_OK; }
    }
    uint8_t *b = fw->block, *p = b + MIG_BH_BYTES;
    mig_memset(b, 0, MIG_BLOCK_SIZE);
    unsigned len = 0, n = 0;
    int rc = MIG_OK;
    uint8_t kind = s->kind;
    if (kind == MIG_BLK_HDR) {
        len = header_payload(fw, p);
        s->kind = MIG_BLK_FN;
    } else if (kind == MIG_BLK_FN) {
        rc = fn_payload(fw, fn, p, resp);
        len = MIG_FN_RECORD_BYTES, n = 1;
        s->kind = next_kind(s, MIG_BLK_FN);
    } else if (kind == MIG_BLK_END) {
        mig_put_le(p + MIG_IE_BLOCKS, s->blocks, 4);
        mig_put_le(p + MIG_IE_RECORDS, s->records, 4);
        len = MIG_IE_BYTES;
    } else {
        unsigned table = block_table[kind];
        rc = record_payload(fw, fn, table, p, &n, resp);
        len = n * mig_layouts[table].record_bytes;
        if (!mig_bit_count(s->todo[table])) s->kind = next_kind(s, kind);
    }
    if (rc != MIG_OK) { fail_pass(s); return rc; }
    mig_put_le(b + MIG_BH_SEQ, s->seq, 4);
    mig_put_le(b + MIG_BH_LEN, len, 2);
    b[MIG_BH_KIND] = kind;
    b[MIG_BH_RECORDS] = (uint8_t)n;
    mig_put_le(b + MIG_BH_PASS, s->pass, 4);
    mig_block_seal(b);
    mig_hal_spend(&fw->hal, MIG_COST_CRC_BYTE * (MIG_BLOCK_SIZE - 4));
    rc = mig_hal_host_write(&fw->hal, host_addr, b, MIG_BLOCK_SIZE);
    if (rc != MIG_OK) {
        fail_pass(s);
        return mig_fail(resp, rc == MIG_E_NO_OP ? MIG_E_NO_OP : MIG_E_HW, MIG_R_HOST_ADDR, host_addr, (uint64_t)rc);
    }
    s->seq++;
    s->records += n;
    resp->value[0] = s->seq - 1;
    resp->value[1] = kind;
    resp->value[2] = s->flags; /* the PF learns from PASS_END whether the pass was FINAL */
    if (kind == MIG_BLK_END) {
        s->in_pass = false;
        s->pass++;
        resp->answer = MIG_SAVE_PASS_END;
    } else {
        resp->answer = MIG_SAVE_BLOCK;
    }
    return MIG_OK;
}

int mig_save_bytes_left(struct mig_fw *fw, unsigned fn, uint64_t *bytes, struct mig_resp *resp)
{
    struct mig_save *s = &fw->save;
    if (s->in_pass) {
        *bytes = (uint64_t)(s->blocks - s->seq) * MIG_BLOCK_SIZE;
        return MIG_OK;
    }
    mig_bitmap_t todo[MIG_OBJ_TABLES];
    int rc = collect(fw, fn, todo, resp);
    if (rc != MIG_OK) return rc;
    uint16_t count[MIG_TABLES] = { 0 };
    unsigned n = 0;
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++) n += count[t] = (uint16_t)mig_bit_count(todo[t]);
    bool nothing = n == 0 && !full_pass(s) && fw->state[fn] == MIG_ST_PRECOPY;
    *bytes = nothing ? 0 : (uint64_t)pass_blocks(count) * MIG_BLOCK_SIZE;
    return MIG_OK;
}
