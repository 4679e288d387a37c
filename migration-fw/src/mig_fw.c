/* mig_fw.c — firmware set-up and the helpers every command uses: failure responses, the
 * per-function state compare-and-set, row access through the HAL, slots of numbers. */
#include "mig_fw.h"

#include "mig_cmds.h"

#include "mig_libc.h"

int mig_fail(struct mig_resp *resp, int status, int reason, uint64_t v0, uint64_t v1)
{
    resp->status = (uint8_t)status;
    resp->reason = (uint8_t)reason;
    resp->value[0] = v0;
    resp->value[1] = v1;
    return status;
}

int mig_hal_fail(struct mig_resp *resp, int rc, unsigned op)
{
    return mig_fail(resp, rc == MIG_E_NO_OP ? MIG_E_NO_OP : MIG_E_HW, MIG_R_HAL, op, (uint64_t)rc);
}

static bool is_pow2(unsigned n) { return n && !(n & (n - 1)); }
static unsigned log2_of(unsigned n) { unsigned l = 0; while ((1u << l) < n) l++; return l; }

int mig_fw_init(struct mig_fw *fw, const struct mig_hal *hal, struct mig_resp *resp)
{
    mig_memset(fw, 0, sizeof *fw);
    mig_memset(resp, 0, sizeof *resp);
    fw->hal = *hal;
    fw->active_fn = -1;
    int rc = mig_hal_caps(hal, &fw->caps);
    if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_CAPS);
    const struct mig_caps *c = &fw->caps;
    static const uint16_t max_rows[MIG_OBJ_TABLES] = { MIG_MAX_QP, MIG_MAX_CQ, MIG_MAX_MR };
    if (c->fns == 0 || c->fns > MIG_MAX_FNS) return mig_fail(resp, MIG_E_FIT, MIG_R_CAPS, c->fns, MIG_MAX_FNS);
    for (unsigned t = 0; t < MIG_OBJ_TABLES; t++)
        if (!is_pow2(c->rows[t]) || c->rows[t] > max_rows[t])
            return mig_fail(resp, MIG_E_FIT, MIG_R_CAPS, t, c->rows[t]);
    /* the hardware's sections must hold every field the layout places in them */
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < mig_layouts[t].sections; s++)
            if (c->words[t][s] < mig_section_words(t, s) || c->words[t][s] > MIG_SECTION_WORDS_MAX)
                return mig_fail(resp, MIG_E_FIT, MIG_R_CAPS, t * 16 + s, c->words[t][s]);
    return MIG_OK;
}

int mig_state_cas(struct mig_fw *fw, unsigned fn, enum mig_state expected, enum mig_state next,
                  struct mig_resp *resp)
{
    if (fw->state[fn] != expected)
        return mig_fail(resp, MIG_E_STATE, MIG_R_STATE, fw->state[fn], expected);
    fw->state[fn] = (uint8_t)next;
    fw->active_fn = next == MIG_ST_RUNNING ? -1 : (int8_t)fn;
    return MIG_OK;
}

int mig_row_read(struct mig_fw *fw, unsigned table, unsigned fn, unsigned row, mig_row_t out,
                 struct mig_resp *resp)
{
    for (unsigned s = 0; s < mig_layouts[table].sections; s++) {
        int rc = mig_hal_ctx_read(&fw->hal, table, s, fn, row, out[s], fw->caps.words[table][s]);
        if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_CTX_READ);
    }
    return MIG_OK;
}

int mig_row_write(struct mig_fw *fw, unsigned table, unsigned fn, unsigned row,
                  const mig_row_t in, struct mig_resp *resp)
{
    for (unsigned s = 0; s < mig_layouts[table].sections; s++) {
        int rc = mig_hal_ctx_write(&fw->hal, table, s, fn, row, in[s], fw->caps.words[table][s]);
        if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_CTX_WRITE);
    }
    return MIG_OK;
}

int mig_row_valid(struct mig_fw *fw, unsigned table, unsigned fn, unsigned row, bool *valid,
                  struct mig_resp *resp)
{
    const struct mig_field *f = &mig_layouts[table].fields[mig_layouts[table].valid_field];
    uint32_t *w = fw->row[f->section];
    int rc = mig_hal_ctx_read(&fw->hal, table, f->section, fn, row, w, fw->caps.words[table][f->section]);
    if (rc != MIG_OK) return mig_hal_fail(resp, rc, MIG_HAL_OP_CTX_READ);
    *valid = (w[f->hw_bit / 32] >> (f->hw_bit % 32)) & 1;
    return MIG_OK;
}

unsigned mig_slot_of(const struct mig_fw *fw, unsigned table, uint64_t number)
{
    return (unsigned)((number >> mig_layouts[table].key_shift) & (fw->caps.rows[table] - 1u));
}

uint32_t mig_capacity_version(const struct mig_caps *caps)
{
    return log2_of(caps->rows[MIG_TABLE_QP]) | log2_of(caps->rows[MIG_TABLE_CQ]) << 8 |
           log2_of(caps->rows[MIG_TABLE_MR]) << 16;
}

unsigned mig_bit_count(const mig_bitmap_t b)
{
    unsigned n = 0;
    for (unsigned w = 0; w < MIG_BITMAP_WORDS; w++)
        for (uint32_t x = b[w]; x; x &= x - 1) n++;
    return n;
}
