/* mig_load.c — the load state machine: ImageBlock-Load hands it one block at a time.
 *
 * Each block is checked (CRC, sequence, pass, kind in order, lengths) and its records are
 * staged in fw->load, indexed by the destination slot of their number: exact namespaces, the
 * same QPN / CQN / key on this device whatever function slot the image lands in; each valid
 * record's values are checked as it is staged (mig_load_check.c). Pre-copy passes update
 * the staging; the hardware is written only after the END block of a FINAL pass validated
 * and the staged whole checked by a pass that writes nothing (CQs present, REFS, send
 * positions, the function still empty). Any refusal discards the staging and returns the
 * function to RUNNING: the destination's hardware has not been touched. Only the hardware
 * failing during the writes comes after them, and that is undone (unload). */
#include "mig_fw.h"

#include "mig_cmds.h"
#include "mig_cost.h"
#include "mig_libc.h"
#include "mig_load_check.h"
#include "mig_record.h"
#include "mig_send_pos.h"

static const uint8_t block_table[] = {
    [MIG_BLK_FN] = MIG_TABLE_FN, [MIG_BLK_CQ] = MIG_TABLE_CQ,
    [MIG_BLK_MR] = MIG_TABLE_MR, [MIG_BLK_QP] = MIG_TABLE_QP,
};
static const uint8_t collide_reason[MIG_OBJ_TABLES] = {
    [MIG_TABLE_QP] = MIG_R_QP_SLOT_COLLIDES, [MIG_TABLE_CQ] = MIG_R_CQ_SLOT_COLLIDES,
    [MIG_TABLE_MR] = MIG_R_MR_SLOT_COLLIDES,
};
static const uint8_t count_reason[MIG_OBJ_TABLES] = {
    [MIG_TABLE_QP] = MIG_R_QP_COUNT, [MIG_TABLE_CQ] = MIG_R_CQ_COUNT, [MIG_TABLE_MR] = MIG_R_MR_COUNT,
};
static const uint8_t in_use_reason[MIG_OBJ_TABLES] = {
    [MIG_TABLE_QP] = MIG_R_DEST_QP_IN_USE, [MIG_TABLE_CQ] = MIG_R_DEST_CQ_IN_USE,
    [MIG_TABLE_MR] = MIG_R_DEST_MR_IN_USE,
};

void mig_load_reset(struct mig_fw *fw)
{
    mig_memset(&fw->load, 0, sizeof fw->load);
    fw->load.expect = MIG_BLK_HDR;
}

static uint8_t *staged(struct mig_fw *fw, unsigned table, unsigned slot)
{
    struct mig_load *l = &fw->load;
    switch (table) {
    case MIG_TABLE_QP: return l->qp[slot];
    case MIG_TABLE_CQ: return l->cq[slot];
    case MIG_TABLE_MR: return l->mr[slot];
    default: return l->fn;
    }
}

static unsigned per_block(unsigned table) { return MIG_PAYLOAD_MAX / mig_layouts[table].record_bytes; }

/* refuse: nothing staged survives, the function is RUNNING and untouched */
static int refuse(struct mig_fw *fw, unsigned fn, struct mig_resp *resp, int status, int reason,
                  uint64_t v0, uint64_t v1)
{
    mig_load_reset(fw);
    if (fw->state[fn] == MIG_ST_LOADING) mig_state_cas(fw, fn, MIG_ST_LOADING, MIG_ST_RUNNING, resp);
    return mig_fail(resp, status, reason, v0, v1);
}

/* a loaded function must land in an empty one: no QP, CQ or MR row in use */
static int check_empty(struct mig_fw *fw, unsigned fn, struct mig_resp *resp)
{
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++)
        for (unsigned r = 0; r < fw->caps.rows[t]; r++) {
            bool valid;
            int rc = mig_row_valid(fw, t, fn, r, &valid, resp);
            if (rc != MIG_OK) return rc;
            if (valid) return mig_fail(resp, MIG_E_NOT_EMPTY, in_use_reason[t], r, t);
        }
    return MIG_OK;
}

static uint8_t next_kind(const struct mig_load *l, uint8_t kind)
{
    for (uint8_t k = (uint8_t)(kind + 1); k < MIG_BLK_END; k++)
        if (l->count[block_table[k]]) return k;
    return MIG_BLK_END;
}

static int check_header(struct mig_fw *fw, const uint8_t *p, unsigned len, struct mig_resp *resp)
{
    struct mig_load *l = &fw->load;
    uint32_t ours = mig_capacity_version(&fw->caps);
    if (len != MIG_IH_BYTES) return mig_fail(resp, MIG_E_CORRUPT, MIG_R_BLOCK_LEN, 0, len);
    if (mig_get_le(p + MIG_IH_MAGIC, 4) != MIG_IMAGE_MAGIC)
        return mig_fail(resp, MIG_E_TAG, MIG_R_MAGIC, mig_get_le(p + MIG_IH_MAGIC, 4), MIG_IMAGE_MAGIC);
    uint64_t layout = mig_get_le(p + MIG_IH_LAYOUT, 2), feature = mig_get_le(p + MIG_IH_FEATURE, 2);
    uint32_t cap = (uint32_t)mig_get_le(p + MIG_IH_CAPACITY, 4);
    /* DA7: same layout; our feature and capacity versions not lower than the image's */
    if (layout != MIG_LAYOUT_VERSION)
        return mig_fail(resp, MIG_E_TAG, MIG_R_LAYOUT_VERSION, layout, MIG_LAYOUT_VERSION);
    if (feature > MIG_FEATURE_VERSION)
        return mig_fail(resp, MIG_E_TAG, MIG_R_FEATURE_VERSION, feature, MIG_FEATURE_VERSION);
    for (unsigned sh = 0; sh < 32; sh += 8)
        if (((cap >> sh) & 0xff) > ((ours >> sh) & 0xff))
            return mig_fail(resp, MIG_E_TAG, MIG_R_CAPACITY_VERSION, cap, ours);
    if (mig_get_le(p + MIG_IH_BLOCK_SIZE, 2) != MIG_BLOCK_SIZE)
        return mig_fail(resp, MIG_E_TAG, MIG_R_BLOCK_SIZE, mig_get_le(p + MIG_IH_BLOCK_SIZE, 2), MIG_BLOCK_SIZE);
    if (mig_get_le(p + MIG_IH_QP_BYTES, 2) != MIG_QP_RECORD_BYTES ||
        mig_get_le(p + MIG_IH_CQ_BYTES, 2) != MIG_CQ_RECORD_BYTES ||
        mig_get_le(p + MIG_IH_MR_BYTES, 2) != MIG_MR_RECORD_BYTES ||
        mig_get_le(p + MIG_IH_FN_BYTES, 2) != MIG_FN_RECORD_BYTES)
        return mig_fail(resp, MIG_E_TAG, MIG_R_RECORD_SIZE, 0, 0);
    l->flags = (uint16_t)mig_get_le(p + MIG_IH_FLAGS, 2);
    if (!(l->flags & MIG_IMG_FULL) && !l->have_full)
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_FIRST_PASS_DELTA, l->pass, 0);
    l->capacity = cap;
    l->count[MIG_TABLE_FN] = (uint16_t)mig_get_le(p + MIG_IH_COUNT_FN, 2);
    l->count[MIG_TABLE_CQ] = (uint16_t)mig_get_le(p + MIG_IH_COUNT_CQ, 2);
    l->count[MIG_TABLE_MR] = (uint16_t)mig_get_le(p + MIG_IH_COUNT_MR, 2);
    l->count[MIG_TABLE_QP] = (uint16_t)mig_get_le(p + MIG_IH_COUNT_QP, 2);
    l->blocks = (uint32_t)mig_get_le(p + MIG_IH_BLOCKS, 4);
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++)
        if (l->count[t] > fw->caps.rows[t])
            return mig_fail(resp, MIG_E_FIT, count_reason[t], l->count[t], fw->caps.rows[t]);
    uint32_t blocks = 3;
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++) blocks += (l->count[t] + per_block(t) - 1) / per_block(t);
    if (l->count[MIG_TABLE_FN] != 1 || l->blocks != blocks)
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_COUNTS, l->blocks, blocks);
    mig_memset(l->in_pass, 0, sizeof l->in_pass);
    mig_memset(l->seen, 0, sizeof l->seen);
    l->expect = MIG_BLK_FN;
    return MIG_OK;
}

static int stage_records(struct mig_fw *fw, unsigned table, const uint8_t *p, unsigned n,
                         unsigned len, struct mig_resp *resp)
{
    struct mig_load *l = &fw->load;
    const struct mig_record_layout *lay = &mig_layouts[table];
    unsigned left = l->count[table] - l->seen[table];
    unsigned want = left < per_block(table) ? left : per_block(table);
    if (n != want || len != n * lay->record_bytes)
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_BLOCK_LEN, n, len);
    if (table == MIG_TABLE_FN) {
        int rc = mig_check_record(fw, table, p, resp);
        if (rc != MIG_OK) return rc;
        mig_memcpy(l->fn, p, MIG_FN_RECORD_BYTES);
    } else {
        for (unsigned i = 0; i < n; i++) {
            const uint8_t *rec = p + i * lay->record_bytes;
            uint64_t key = mig_record_field(table, rec, (unsigned)lay->key_field);
            unsigned slot = mig_slot_of(fw, table, key);
            if (mig_bit(l->in_pass[table], slot))
                return mig_fail(resp, MIG_E_FIT, collide_reason[table], key, slot);
            mig_bit_set(l->in_pass[table], slot);
            bool valid = mig_record_field(table, rec, (unsigned)lay->valid_field) != 0;
            int rc = valid ? mig_check_record(fw, table, rec, resp) : MIG_OK;
            if (rc != MIG_OK) return rc;
            mig_memcpy(staged(fw, table, slot), rec, lay->record_bytes);
            if (valid) mig_bit_set(l->staged[table], slot);
            else mig_bit_clear(l->staged[table], slot);
        }
        mig_hal_spend(&fw->hal, MIG_COST_RECORD_CHECK * n);
    }
    l->seen[table] = (uint16_t)(l->seen[table] + n);
    return MIG_OK;
}

/* A HAL failure after the first write (the hardware failed, not the image): every staged row
 * written back empty, QPs before the CQs they name, the throttle as it was, the function
 * back to RUN one level at a time, so the function is empty again and a new load can begin.
 * Best effort: the answer names the first failure. */
static void unload(struct mig_fw *fw, unsigned fn)
{
    static const uint8_t order[MIG_OBJ_TABLES] = { MIG_TABLE_QP, MIG_TABLE_MR, MIG_TABLE_CQ };
    struct mig_resp ignored;
    mig_memset(fw->row, 0, sizeof fw->row);
    for (unsigned i = 0; i < MIG_OBJ_TABLES; i++)
        for (unsigned s = 0; s < fw->caps.rows[order[i]]; s++)
            if (mig_bit(fw->load.staged[order[i]], s)) mig_row_write(fw, order[i], fn, s, fw->row, &ignored);
    mig_hal_throttle_set(&fw->hal, fn, fw->throttle[fn]);
    mig_suspend_to(fw, fn, MIG_LEVEL_ACTIVE, MIG_LEVEL_ACTIVE, &ignored);
    mig_suspend_to(fw, fn, MIG_LEVEL_RUN, MIG_LEVEL_RUN, &ignored);
}

/* the staged rows, CQs before the QPs that name them, the throttle, the function's address
 * last (one write: it is there or not) */
static int write_rows(struct mig_fw *fw, unsigned fn, struct mig_resp *resp)
{
    static const uint8_t order[MIG_OBJ_TABLES] = { MIG_TABLE_CQ, MIG_TABLE_MR, MIG_TABLE_QP };
    for (unsigned i = 0; i < MIG_OBJ_TABLES; i++) {
        unsigned t = order[i];
        for (unsigned s = 0; s < fw->caps.rows[t]; s++) {
            if (!mig_bit(fw->load.staged[t], s)) continue;
            mig_record_unpack(&fw->hal, t, staged(fw, t, s), fw->row);
            if (t == MIG_TABLE_QP) mig_send_position_put(fw->row, &fw->load.send_pos[s]);
            int rc = mig_row_write(fw, t, fn, s, fw->row, resp);
            if (rc != MIG_OK) return rc;
        }
    }
    uint32_t rate = (uint32_t)mig_get_le(fw->load.fn + MIG_FN_RECORD_BYTES - 4, 4);
    int rc = mig_hal_throttle_set(&fw->hal, fn, rate);
    if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_THROTTLE_SET);
    mig_record_unpack(&fw->hal, MIG_TABLE_FN, fw->load.fn, fw->row);
    rc = mig_row_write(fw, MIG_TABLE_FN, fn, 0, fw->row, resp);
    if (rc != MIG_OK) return rc;
    fw->throttle[fn] = rate;
    return MIG_OK;
}

/* the final pass validated: check the staged whole (writes nothing), then freeze the
 * function and write it. Every refusal of the image comes before the first write. */
static int commit(struct mig_fw *fw, unsigned fn, struct mig_resp *resp)
{
    int rc = mig_check_staged(fw, resp);
    if (rc == MIG_OK) rc = check_empty(fw, fn, resp);
    /* ctrl moves one level at a time (RUN -> ACTIVE -> PASSIVE); a refusal of the second
     * step takes the function back to RUN */
    if (rc == MIG_OK) rc = mig_suspend_to(fw, fn, MIG_LEVEL_ACTIVE, MIG_LEVEL_RUN, resp);
    if (rc == MIG_OK) {
        rc = mig_suspend_to(fw, fn, MIG_LEVEL_PASSIVE, MIG_LEVEL_ACTIVE, resp);
        if (rc != MIG_OK) mig_suspend_to(fw, fn, MIG_LEVEL_RUN, MIG_LEVEL_RUN, &(struct mig_resp){ 0 });
    }
    if (rc != MIG_OK) return rc;
    rc = write_rows(fw, fn, resp);
    if (rc != MIG_OK) unload(fw, fn);
    return rc;
}

/* checks and stages one block; MIG_OK or a refusal's status (not yet applied) */
static int take_block(struct mig_fw *fw, unsigned fn, uint64_t addr, bool last,
                      struct mig_resp *resp)
{
    struct mig_load *l = &fw->load;
    uint8_t *b = fw->block, *p = b + MIG_BH_BYTES;
    int rc = mig_hal_host_read(&fw->hal, addr, b, MIG_BLOCK_SIZE);
    if (rc != MIG_OK)
        return mig_fail(resp, rc == MIG_E_NO_OP ? MIG_E_NO_OP : MIG_E_HW, MIG_R_HOST_ADDR, addr, (uint64_t)rc);
    mig_hal_spend(&fw->hal, MIG_COST_CRC_BYTE * (MIG_BLOCK_SIZE - 4));
    if (mig_block_crc(b) != mig_get_le(b + MIG_BH_CRC, 4))
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_BLOCK_CRC, l->seq, l->pass);
    uint32_t seq = (uint32_t)mig_get_le(b + MIG_BH_SEQ, 4), pass = (uint32_t)mig_get_le(b + MIG_BH_PASS, 4);
    unsigned len = (unsigned)mig_get_le(b + MIG_BH_LEN, 2), n = b[MIG_BH_RECORDS];
    uint8_t kind = b[MIG_BH_KIND];
    if (kind == MIG_BLK_HDR && l->expect != MIG_BLK_HDR)
        return mig_fail(resp, MIG_E_TRUNCATED, MIG_R_END_MISSING, l->seq, l->blocks);
    if (seq != l->seq || pass != l->pass)
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_BLOCK_SEQ, l->seq, seq);
    if (kind != l->expect)
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_BLOCK_KIND, l->expect, kind);
    if (len > MIG_PAYLOAD_MAX)
        return mig_fail(resp, MIG_E_CORRUPT, MIG_R_BLOCK_LEN, seq, len);
    l->seq++;
    resp->answer = MIG_LOAD_STAGED;
    if (kind == MIG_BLK_HDR) {
        rc = check_header(fw, p, len, resp);
    } else if (kind == MIG_BLK_END) {
        uint32_t records = 0;
        for (unsigned t = 0; t < MIG_TABLES; t++) records += l->seen[t];
        if (len != MIG_IE_BYTES || mig_get_le(p + MIG_IE_BLOCKS, 4) != l->blocks ||
            l->seq != l->blocks || mig_get_le(p + MIG_IE_RECORDS, 4) != records)
            return mig_fail(resp, MIG_E_CORRUPT, MIG_R_COUNTS, l->seq, l->blocks);
        l->have_full = true;
        l->pass++;
        l->seq = 0;
        l->expect = MIG_BLK_HDR;
        if (!(l->flags & MIG_IMG_FINAL)) {
            resp->answer = MIG_LOAD_PASS_DONE;
            /* the PF has nothing after a pre-copy pass: the final pass never came */
            return last ? mig_fail(resp, MIG_E_TRUNCATED, MIG_R_END_MISSING, 0, l->pass) : MIG_OK;
        }
        rc = commit(fw, fn, resp);
        if (rc != MIG_OK) return rc;
        resp->answer = MIG_LOAD_COMMITTED;
        return MIG_OK;
    } else {
        unsigned table = block_table[kind];
        rc = stage_records(fw, table, p, n, len, resp);
        if (rc == MIG_OK && (table == MIG_TABLE_FN || l->seen[table] == l->count[table]))
            l->expect = next_kind(l, kind);
    }
    if (rc == MIG_OK && last)
        return mig_fail(resp, MIG_E_TRUNCATED, MIG_R_END_MISSING, l->seq, l->blocks);
    return rc;
}

int mig_load_block(struct mig_fw *fw, unsigned fn, uint64_t host_addr, bool last,
                   struct mig_resp *resp)
{
    if (fw->state[fn] == MIG_ST_RUNNING) {
        int rc = check_empty(fw, fn, resp);
        if (rc != MIG_OK) return rc;
        mig_load_reset(fw);
        mig_state_cas(fw, fn, MIG_ST_RUNNING, MIG_ST_LOADING, resp);
    }
    int rc = take_block(fw, fn, host_addr, last, resp);
    if (rc != MIG_OK) {
        uint8_t reason = resp->reason;
        uint64_t v0 = resp->value[0], v1 = resp->value[1];
        return refuse(fw, fn, resp, rc, reason, v0, v1);
    }
    resp->value[0] = fw->load.pass;
    resp->value[1] = fw->load.seq;
    if (resp->answer == MIG_LOAD_COMMITTED) {
        fw->loaded[fn] = true;
        mig_load_reset(fw);
        return mig_state_cas(fw, fn, MIG_ST_LOADING, MIG_ST_SUSPENDED_PASSIVE, resp);
    }
    return MIG_OK;
}
