/* precopy_test.c — DA8: during pre-copy each pass after the first carries only the rows the
 * datapath wrote since the pass before (deleted rows included); "nothing now" is its own
 * answer; the size query tracks it; the destination stages every pass and commits the final. */
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"

#define IMG 0x2000u

static void touch(struct stub_nic *n, unsigned t, unsigned fn, unsigned row, unsigned field)
{
    mig_row_t r;
    stub_row_get(n, t, fn, row, r);
    mig_row_set_field(t, r, field, mig_row_field(t, r, field) + (1u << mig_layouts[t].fields[field].shift));
    mig_record_derive(t, r); /* still a row the hardware could hold (EPSN moves RD_PSN) */
    stub_row_put(n, t, fn, row, r);
}

/* the rows (slots) a pass's records of one table name, as a bitmap */
static uint64_t pass_rows(struct rig *r, unsigned n, uint8_t kind, unsigned table, unsigned rows)
{
    uint64_t seen = 0;
    for (unsigned k = 0; k < n; k++) {
        uint8_t *b = block_at(r, IMG, k);
        if (b[MIG_BH_KIND] != kind) continue;
        for (unsigned i = 0; i < b[MIG_BH_RECORDS]; i++) {
            const uint8_t *rec = b + MIG_BH_BYTES + i * mig_layouts[table].record_bytes;
            uint64_t key = mig_record_field(table, rec, (unsigned)mig_layouts[table].key_field);
            seen |= (uint64_t)1 << ((unsigned)(key >> mig_layouts[table].key_shift) & (rows - 1));
        }
    }
    return seen;
}

static bool load_pass(unsigned fn, unsigned n, uint8_t want)
{
    struct mig_resp resp;
    copy_blocks(&t_src, &t_dst, IMG, n);
    return load_blocks(&t_dst, fn, IMG, 0, n, &resp) == MIG_OK && resp.answer == want;
}

/* PRE_COPY_P2P -> RUNNING_P2P -> ... -> STOP_COPY: pre-copy ended by Save-Reset while
 * suspended-active, the stop-copy pass that follows must be full, or a fresh destination
 * refuses it; and a final pass cut short (the PF could not deliver it) starts over */
static void save_reset_test(void)
{
    struct mig_resp resp;
    uint8_t answer;
    rig_init(&t_src);
    rig_init(&t_dst);
    fill_fn(&t_src.nic, 1, 4, 2, 5);
    bool ok = run(&t_src, MIG_CMD_PRECOPY_START, 1, 0, 0, &resp) == MIG_OK;
    ok &= save_pass(&t_src, 1, IMG, &answer) > 0 && answer == MIG_SAVE_PASS_END;
    touch(&t_src.nic, MIG_TABLE_QP, 1, 2, MIG_QPF_NEXT_PSN);
    ok &= run(&t_src, MIG_CMD_SUSPEND_ACTIVE, 1, 0, 0, &resp) == MIG_OK;
    ok &= run(&t_src, MIG_CMD_SAVE_RESET, 1, 0, 0, &resp) == MIG_OK && resp.state == MIG_ST_SUSPENDED_ACTIVE;
    ok &= t_src.nic.tracking[1] == false;
    ok &= run(&t_src, MIG_CMD_SUSPEND_PASSIVE, 1, 0, 0, &resp) == MIG_OK;
    unsigned n = save_pass(&t_src, 1, IMG, &answer);
    ok &= t_last_pass_flags == (MIG_IMG_FULL | MIG_IMG_FINAL);
    ok &= pass_rows(&t_src, n, MIG_BLK_QP, MIG_TABLE_QP, 16) == 0xF;
    ok &= load_pass(3, n, MIG_LOAD_COMMITTED) && fn_equal(&t_src.nic, 1, &t_dst.nic, 3);
    if (ok) t_pass("Save-Reset while suspended-active: tracking off, the final pass is FULL (4 QPs) and commits alone on fn 3");
    else t_fail("pre-copy", "save reset", n, t_last_pass_flags);

    /* two blocks of a final pass, then Save-Reset: the next save is the header of a new pass */
    ok = run(&t_src, MIG_CMD_IMAGE_SAVE, 1, IMG, 0, &resp) == MIG_OK && resp.value[0] == 0;
    ok &= run(&t_src, MIG_CMD_IMAGE_SAVE, 1, IMG, 0, &resp) == MIG_OK && resp.value[0] == 1;
    ok &= run(&t_src, MIG_CMD_SAVE_RESET, 1, 0, 0, &resp) == MIG_OK && resp.state == MIG_ST_SUSPENDED_PASSIVE;
    ok &= run(&t_src, MIG_CMD_IMAGE_SAVE, 1, IMG, 0, &resp) == MIG_OK && resp.value[0] == 0 &&
          resp.value[1] == MIG_BLK_HDR && resp.value[2] == (MIG_IMG_FULL | MIG_IMG_FINAL);
    if (ok) t_pass("Save-Reset while suspended-passive: a pass cut short after 2 blocks starts over at a FULL header");
    else t_fail("pre-copy", "save reset mid-pass", resp.value[0], resp.value[1]);
}

void precopy_tests(void)
{
    struct mig_resp resp;
    uint8_t answer;
    t_seed(99);
    rig_init(&t_src);
    rig_init(&t_dst);
    fill_fn(&t_src.nic, 2, 10, 6, 20);
    bool ok = run(&t_src, MIG_CMD_PRECOPY_START, 2, 0, 0, &resp) == MIG_OK;
    ok &= run(&t_src, MIG_CMD_QUERY_SIZE_LEFT, 2, 0, 0, &resp) == MIG_OK && resp.value[0] == 9u * 512;

    /* pass 0: full, every row in use */
    unsigned n = save_pass(&t_src, 2, IMG, &answer);
    ok &= answer == MIG_SAVE_PASS_END && pass_rows(&t_src, n, MIG_BLK_QP, MIG_TABLE_QP, 16) == 0x3FF;
    ok &= t_last_pass_flags == MIG_IMG_FULL;
    ok &= load_pass(0, n, MIG_LOAD_PASS_DONE);
    if (ok) t_pass("pre-copy: first pass is full (10 QP, 6 CQ, 20 MR), size query = 9 blocks");
    else { t_fail("pre-copy", "first pass", n, answer); return; }

    /* the datapath writes QPs 3 and 7 and CQ 5; software deregisters MR 11 */
    touch(&t_src.nic, MIG_TABLE_QP, 2, 3, MIG_QPF_NEXT_PSN);
    touch(&t_src.nic, MIG_TABLE_QP, 2, 7, MIG_QPF_EPSN);
    touch(&t_src.nic, MIG_TABLE_CQ, 2, 5, MIG_CQF_PI);
    mig_row_t empty = { { 0 } };
    stub_row_put(&t_src.nic, MIG_TABLE_MR, 2, 11, empty);
    ok = run(&t_src, MIG_CMD_QUERY_SIZE_LEFT, 2, 0, 0, &resp) == MIG_OK && resp.value[0] == 6u * 512;
    n = save_pass(&t_src, 2, IMG, &answer);
    const uint8_t *h = block_at(&t_src, IMG, 0) + MIG_BH_BYTES;
    ok &= answer == MIG_SAVE_PASS_END && mig_get_le(h + MIG_IH_FLAGS, 2) == 0;
    ok &= pass_rows(&t_src, n, MIG_BLK_QP, MIG_TABLE_QP, 16) == ((1u << 3) | (1u << 7));
    ok &= pass_rows(&t_src, n, MIG_BLK_CQ, MIG_TABLE_CQ, 16) == (1u << 5);
    ok &= pass_rows(&t_src, n, MIG_BLK_MR, MIG_TABLE_MR, 64) == (1u << 11);
    ok &= load_pass(0, n, MIG_LOAD_PASS_DONE);
    if (ok) t_pass("pre-copy: second pass carries only the dirty rows: QP 3, QP 7, CQ 5 and the emptied MR 11");
    else t_fail("pre-copy", "delta pass", n, answer);

    /* nothing written since: its own answer, no block, size 0 */
    ok = run(&t_src, MIG_CMD_QUERY_SIZE_LEFT, 2, 0, 0, &resp) == MIG_OK && resp.value[0] == 0;
    ok &= run(&t_src, MIG_CMD_IMAGE_SAVE, 2, IMG, 0, &resp) == MIG_OK && resp.answer == MIG_SAVE_NOTHING_NOW;
    if (ok) t_pass("pre-copy: with nothing dirty, save answers NOTHING_NOW (not END, not an error) and size left is 0");
    else t_fail("pre-copy", "nothing now", resp.answer, resp.value[0]);

    /* a last write, then stop-and-copy: the final pass holds just that QP */
    touch(&t_src.nic, MIG_TABLE_QP, 2, 9, MIG_QPF_SQ_TAIL);
    ok = run(&t_src, MIG_CMD_SUSPEND_ACTIVE, 2, 0, 0, &resp) == MIG_OK;
    ok &= run(&t_src, MIG_CMD_SUSPEND_PASSIVE, 2, 0, 0, &resp) == MIG_OK;
    n = save_pass(&t_src, 2, IMG, &answer);
    h = block_at(&t_src, IMG, 0) + MIG_BH_BYTES;
    ok &= mig_get_le(h + MIG_IH_FLAGS, 2) == MIG_IMG_FINAL && mig_get_le(h + MIG_IH_COUNT_QP, 2) == 1;
    ok &= t_last_pass_flags == MIG_IMG_FINAL; /* PASS_END tells the PF this was the final pass */
    ok &= pass_rows(&t_src, n, MIG_BLK_QP, MIG_TABLE_QP, 16) == (1u << 9);
    ok &= load_pass(0, n, MIG_LOAD_COMMITTED);
    ok &= fn_equal(&t_src.nic, 2, &t_dst.nic, 0);
    if (ok) t_pass("pre-copy: final pass carries only QP 9; the destination's staged passes commit byte-exact (MR 11 absent)");
    else t_fail("pre-copy", "final pass", n, answer);
    save_reset_test();
}
