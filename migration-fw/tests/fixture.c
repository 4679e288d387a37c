/* fixture.c — see fixture.h. */
#include "fixture.h"

#include "mig_libc.h"
#include "mig_record.h"

struct rig t_src, t_dst;
uint16_t t_last_pass_flags;

void rig_init(struct rig *r)
{
    stub_init(&r->nic);
    struct mig_hal hal = stub_hal(&r->nic);
    struct mig_resp resp;
    if (mig_fw_init(&r->fw, &hal, &resp) != MIG_OK) t_fail("rig_init", "mig_fw_init", resp.reason, resp.value[0]);
}

int run(struct rig *r, uint8_t op, unsigned fn, uint64_t host_addr, uint8_t flags, struct mig_resp *resp)
{
    struct mig_cmd c = { .opcode = op, .fn = (uint8_t)fn, .flags = flags, .host_addr = host_addr };
    mig_fw_command(&r->fw, &c, resp);
    return resp->status;
}

uint64_t random_field(unsigned table, unsigned field)
{
    const struct mig_field *f = &mig_layouts[table].fields[field];
    uint64_t v = ((uint64_t)t_rand() << 32 | t_rand());
    if (f->img_width < 64) v &= ((uint64_t)1 << f->img_width) - 1;
    return v << f->shift;
}

static void fill_row(struct stub_nic *n, unsigned t, unsigned fn, unsigned slot, uint64_t number)
{
    mig_row_t row = { { 0 } };
    const struct mig_record_layout *l = &mig_layouts[t];
    for (unsigned i = 0; i < l->field_count; i++) mig_row_set_field(t, row, i, random_field(t, i));
    if (l->valid_field >= 0) mig_row_set_field(t, row, (unsigned)l->valid_field, 1);
    if (l->key_field >= 0) mig_row_set_field(t, row, (unsigned)l->key_field, number);
    if (t == MIG_TABLE_QP) {
        /* CQ references name slots that hold CQs (fill_fn fills CQ slots 0..ncq-1) */
        mig_row_set_field(t, row, MIG_QPF_SEND_CQ, slot % 2);
        mig_row_set_field(t, row, MIG_QPF_RECV_CQ, (slot + 1) % 2);
        /* nothing outstanding: a load derives the send position without the send queue
         * (send_pos_test covers outstanding WQEs) */
        mig_row_set_field(t, row, MIG_QPF_SQ_HI, mig_row_field(t, row, MIG_QPF_UNA));
    }
    mig_record_derive(t, row); /* a consistent row: what the hardware answers */
    stub_row_put(n, t, fn, slot, row);
}

void fill_fn(struct stub_nic *n, unsigned fn, unsigned nqp, unsigned ncq, unsigned nmr)
{
    for (unsigned s = 0; s < ncq; s++) fill_row(n, MIG_TABLE_CQ, fn, s, s + 16u * (1 + t_rand() % 1000));
    for (unsigned s = 0; s < nmr; s++)
        fill_row(n, MIG_TABLE_MR, fn, s, ((s + 64u * (t_rand() % 1000)) << 8) | (t_rand() & 0xff));
    for (unsigned s = 0; s < nqp; s++) fill_row(n, MIG_TABLE_QP, fn, s, s + 16u * (1 + t_rand() % 100000));
    fill_row(n, MIG_TABLE_FN, fn, 0, 0);
}

uint8_t *block_at(struct rig *r, uint64_t base, unsigned i) { return r->nic.host + base + i * MIG_BLOCK_SIZE; }

unsigned save_pass(struct rig *r, unsigned fn, uint64_t base, uint8_t *answer)
{
    struct mig_resp resp;
    for (unsigned i = 0; i < 100; i++) {
        if (run(r, MIG_CMD_IMAGE_SAVE, fn, base + i * MIG_BLOCK_SIZE, 0, &resp) != MIG_OK) {
            t_fail("save_pass", "IMAGE_SAVE failed", resp.status, resp.reason);
            *answer = 0;
            return i;
        }
        *answer = resp.answer;
        t_last_pass_flags = (uint16_t)resp.value[2];
        if (resp.answer == MIG_SAVE_NOTHING_NOW) return i;
        if (resp.answer == MIG_SAVE_PASS_END) return i + 1;
    }
    *answer = 0;
    return 100;
}

void copy_blocks(const struct rig *from, struct rig *to, uint64_t base, unsigned n)
{
    mig_memcpy(to->nic.host + base, from->nic.host + base, n * MIG_BLOCK_SIZE);
}

int load_blocks(struct rig *r, unsigned fn, uint64_t base, unsigned first, unsigned n,
                struct mig_resp *resp)
{
    for (unsigned i = first; i < first + n; i++)
        if (run(r, MIG_CMD_IMAGE_LOAD, fn, base + i * MIG_BLOCK_SIZE, 0, resp) != MIG_OK) return resp->status;
    return MIG_OK;
}

bool fn_equal(const struct stub_nic *a, unsigned fa, const struct stub_nic *b, unsigned fb)
{
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < mig_layouts[t].sections; s++)
            for (unsigned r = 0; r < a->caps.rows[t]; r++)
                if (mig_memcmp(a->rows[t][s][fa][r], b->rows[t][s][fb][r], MIG_SECTION_WORDS_MAX * 4))
                    return false;
    return true;
}

unsigned save_final(struct rig *r, unsigned fn, uint64_t base)
{
    struct mig_resp resp;
    uint8_t answer;
    if (run(r, MIG_CMD_SUSPEND_ACTIVE, fn, 0, 0, &resp) != MIG_OK ||
        run(r, MIG_CMD_SUSPEND_PASSIVE, fn, 0, 0, &resp) != MIG_OK)
        t_fail("save_final", "suspend failed", resp.status, resp.reason);
    return save_pass(r, fn, base, &answer);
}

void reseal(uint8_t *block) { mig_block_seal(block); }
