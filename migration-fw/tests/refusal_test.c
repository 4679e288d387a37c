/* refusal_test.c — every way a load is refused leaves the destination unchanged (all of its
 * hardware tables, throttle, quiesce levels: compared with a copy taken before) and RUNNING. */
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"

#define IMG 0x4000u

static unsigned n_blocks;
static struct stub_nic dst_before;

/* a fresh source image of function 1 and a destination with a neighbour in function 0 */
static void setup(void)
{
    rig_init(&t_src);
    rig_init(&t_dst);
    t_seed(7);
    fill_fn(&t_src.nic, 1, 16, 16, 64);
    n_blocks = save_final(&t_src, 1, IMG);
    copy_blocks(&t_src, &t_dst, IMG, n_blocks);
    fill_fn(&t_dst.nic, 0, 2, 2, 2);
    dst_before = t_dst.nic;
}

static bool unchanged(unsigned fn)
{
    return nic_unchanged(&t_dst.nic, &dst_before) && t_dst.fw.state[fn] == MIG_ST_RUNNING &&
           t_dst.fw.active_fn == -1;
}

/* the image in the destination's host memory was edited after setup: that is the "before" */
static void image_edited(void) { mig_memcpy(dst_before.host, t_dst.nic.host, sizeof dst_before.host); }

static void expect_refusal(const char *name, int status, int reason)
{
    struct mig_resp resp;
    image_edited();
    int st = load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp);
    if (st == status && resp.reason == reason && resp.state == MIG_ST_RUNNING && unchanged(2)) t_pass(name);
    else t_fail(name, "status/reason or destination changed", st * 100u + resp.reason, (uint64_t)status * 100u + (uint64_t)reason);
}

/* rewrite a header field and reseal the block, so only that check can catch it */
static void edit_header(unsigned off, unsigned bytes, uint64_t v)
{
    uint8_t *b = block_at(&t_dst, IMG, 0);
    mig_put_le(b + MIG_BH_BYTES + off, v, bytes);
    reseal(b);
}

static uint8_t *qp_record(unsigned i, uint8_t **block) { return record_at(&t_dst, IMG, n_blocks, MIG_BLK_QP, i, block); }

static void tag_refusals(void)
{
    setup(); edit_header(MIG_IH_MAGIC, 4, 0x12345678);
    expect_refusal("refuse: wrong magic -> MIG_E_TAG/MAGIC, destination unchanged", MIG_E_TAG, MIG_R_MAGIC);
    setup(); edit_header(MIG_IH_LAYOUT, 2, MIG_LAYOUT_VERSION + 1);
    expect_refusal("refuse: layout version differs -> MIG_E_TAG/LAYOUT_VERSION", MIG_E_TAG, MIG_R_LAYOUT_VERSION);
    setup(); edit_header(MIG_IH_FEATURE, 2, MIG_FEATURE_VERSION + 1);
    expect_refusal("refuse: our feature version lower than the image's -> FEATURE_VERSION", MIG_E_TAG, MIG_R_FEATURE_VERSION);
    setup(); edit_header(MIG_IH_CAPACITY, 4, mig_capacity_version(&t_dst.fw.caps) + (1u << 8));
    expect_refusal("refuse: our capacity (CQ table) lower than the image's -> CAPACITY_VERSION", MIG_E_TAG, MIG_R_CAPACITY_VERSION);
    /* an older feature version and smaller tables are accepted (DA7) */
    setup();
    edit_header(MIG_IH_FEATURE, 2, 0);
    struct mig_resp resp;
    if (load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp) == MIG_OK && resp.answer == MIG_LOAD_COMMITTED)
        t_pass("tag: an image with a lower feature version loads (DA7 rule)");
    else t_fail("tag lower feature", "refused", resp.status, resp.reason);
    setup(); edit_header(MIG_IH_FLAGS, 2, MIG_IMG_FINAL);
    expect_refusal("refuse: first pass is a delta -> MIG_E_CORRUPT/FIRST_PASS_DELTA", MIG_E_CORRUPT, MIG_R_FIRST_PASS_DELTA);
}

static void corrupt_every_byte(void)
{
    setup();
    unsigned bad = 0, tried = 0;
    for (unsigned k = 0; k < n_blocks; k++)
        for (unsigned pos = 0; pos < MIG_BLOCK_SIZE; pos++) {
            struct mig_resp resp;
            uint8_t *byte = block_at(&t_dst, IMG, k) + pos;
            *byte ^= (uint8_t)(1u << (pos % 8));
            int st = load_blocks(&t_dst, 2, IMG, 0, k + 1, &resp);
            *byte ^= (uint8_t)(1u << (pos % 8));
            tried++;
            if (st != MIG_E_CORRUPT || resp.reason != MIG_R_BLOCK_CRC || resp.value[0] != k || !unchanged(2)) {
                if (!bad++) t_fail("corrupt byte", "not refused by the CRC", k, pos);
            }
        }
    if (!bad) {
        t_pass_begin();
        t_puts("refuse: a flipped bit at each of the ");
        t_putu(tried);
        t_puts(" byte positions of every block -> MIG_E_CORRUPT/BLOCK_CRC naming the block, nothing written\n");
    }
}

static void truncated_every_block(void)
{
    setup();
    unsigned bad = 0;
    for (unsigned k = 1; k < n_blocks; k++) {
        struct mig_resp resp;
        /* the PF says block k-1 is the last it has */
        rig_init(&t_dst);
        copy_blocks(&t_src, &t_dst, IMG, n_blocks);
        int st = load_blocks(&t_dst, 2, IMG, 0, k - 1, &resp);
        if (st == MIG_OK) st = run(&t_dst, MIG_CMD_IMAGE_LOAD, 2, IMG + (k - 1) * MIG_BLOCK_SIZE, MIG_LOAD_LAST, &resp);
        if (st != MIG_E_TRUNCATED || resp.reason != MIG_R_END_MISSING || t_dst.nic.mutations || t_dst.fw.state[2] != MIG_ST_RUNNING)
            bad++, t_fail("truncated (last flag)", "at block", k, st);
        /* a new pass begins before the end block */
        rig_init(&t_dst);
        copy_blocks(&t_src, &t_dst, IMG, n_blocks);
        st = load_blocks(&t_dst, 2, IMG, 0, k, &resp);
        if (st == MIG_OK) st = load_blocks(&t_dst, 2, IMG, 0, 1, &resp);
        if (st != MIG_E_TRUNCATED || resp.reason != MIG_R_END_MISSING || t_dst.nic.mutations)
            bad++, t_fail("truncated (new header)", "at block", k, st);
    }
    if (!bad) t_pass("refuse: image truncated after every block (end of transfer or a new header) -> MIG_E_TRUNCATED, nothing written");
}

static void destination_not_empty(void)
{
    struct mig_resp resp;
    setup();
    fill_fn(&t_dst.nic, 2, 0, 1, 0); /* one CQ, and the FN row */
    dst_before = t_dst.nic;
    /* refused at the first block, before anything is staged */
    int st = load_blocks(&t_dst, 2, IMG, 0, 1, &resp);
    if (st == MIG_E_NOT_EMPTY && resp.reason == MIG_R_DEST_CQ_IN_USE && resp.value[0] == 0 && unchanged(2))
        t_pass("refuse: destination function holds a CQ -> MIG_E_NOT_EMPTY/DEST_CQ_IN_USE at the first block");
    else t_fail("not empty", "first block", st, resp.reason);
    /* an MR registered in the function while the load is under way: refused at commit */
    setup();
    st = load_blocks(&t_dst, 2, IMG, 0, n_blocks - 1, &resp);
    fill_fn(&t_dst.nic, 2, 0, 0, 1);
    dst_before = t_dst.nic;
    if (st == MIG_OK) st = load_blocks(&t_dst, 2, IMG, n_blocks - 1, 1, &resp);
    if (st == MIG_E_NOT_EMPTY && resp.reason == MIG_R_DEST_MR_IN_USE && unchanged(2))
        t_pass("refuse: an MR created in the destination during the load -> MIG_E_NOT_EMPTY/DEST_MR_IN_USE at commit");
    else t_fail("not empty at commit", "status", st, resp.reason);
}

static void colliding_numbers(void)
{
    uint8_t *b0, *b1;
    setup();
    uint8_t *r0 = qp_record(0, &b0), *r1 = qp_record(1, &b1);
    uint64_t qpn0 = mig_record_field(MIG_TABLE_QP, r0, MIG_QPF_QPN);
    mig_record_set_field(MIG_TABLE_QP, r1, MIG_QPF_QPN, qpn0 + 16); /* same slot, another QPN */
    reseal(b1);
    expect_refusal("refuse: two QPNs for one slot -> MIG_E_FIT/QP_SLOT_COLLIDES", MIG_E_FIT, MIG_R_QP_SLOT_COLLIDES);
}

static void dangling_cq(void)
{
    uint8_t *b;
    setup();
    uint8_t *r = qp_record(3, &b);
    mig_record_set_field(MIG_TABLE_QP, r, MIG_QPF_SEND_CQ, 1); /* names CQ slot 1 ... */
    reseal(b);
    uint8_t *cq = block_at(&t_dst, IMG, 2) + MIG_BH_BYTES + 1 * MIG_CQ_RECORD_BYTES;
    mig_memset(cq, 0, MIG_CQ_RECORD_BYTES); /* ... which the image now says is empty */
    mig_record_set_field(MIG_TABLE_CQ, cq, MIG_CQF_CQN, 1);
    reseal(block_at(&t_dst, IMG, 2));
    image_edited();
    /* the other QPs name slot 1 too (fill_fn: slot % 2, (slot + 1) % 2): send or receive */
    struct mig_resp resp;
    int st = load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp);
    if (st == MIG_E_FIT && (resp.reason == MIG_R_SEND_CQ_MISSING || resp.reason == MIG_R_RECV_CQ_MISSING) &&
        resp.value[1] == 1 && unchanged(2))
        t_pass("refuse: a QP whose CQ is not in the image -> MIG_E_FIT/SEND_CQ_MISSING|RECV_CQ_MISSING naming qpn and slot");
    else t_fail("dangling CQ", "status", st, resp.reason);
}

static void bad_sequence(void)
{
    setup();
    struct mig_resp resp;
    int st = load_blocks(&t_dst, 2, IMG, 0, 2, &resp);
    if (st == MIG_OK) st = load_blocks(&t_dst, 2, IMG, 3, 1, &resp); /* block 2 skipped */
    if (st == MIG_E_CORRUPT && resp.reason == MIG_R_BLOCK_SEQ && resp.value[0] == 2 && resp.value[1] == 3 && unchanged(2))
        t_pass("refuse: a missing block in the middle -> MIG_E_CORRUPT/BLOCK_SEQ (expected 2, found 3)");
    else t_fail("sequence", "status", st, resp.reason);
}

void refusal_tests(void)
{
    tag_refusals();
    corrupt_every_byte();
    truncated_every_block();
    destination_not_empty();
    colliding_numbers();
    dangling_cq();
    bad_sequence();
}
