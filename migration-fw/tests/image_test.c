/* image_test.c — save/load round trips: byte-exact tables after load, into another function
 * slot, split at every block boundary, the commit and resume on the destination. */
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"

#define IMG 0x4000u

static bool load_all(struct rig *d, unsigned fn, unsigned n, struct mig_resp *resp)
{
    return load_blocks(d, fn, IMG, 0, n, resp) == MIG_OK && resp->answer == MIG_LOAD_COMMITTED &&
           resp->state == MIG_ST_SUSPENDED_PASSIVE;
}

static void round_trip(unsigned sfn, unsigned dfn, const char *name)
{
    struct mig_resp resp;
    rig_init(&t_src);
    rig_init(&t_dst);
    t_src.nic.counter[sfn][MIG_COUNTER_HOST_WRITE_BYTES] = 1;
    struct mig_cmd thr = { .opcode = MIG_CMD_DEV_THROTTLE, .fn = (uint8_t)sfn, .rate = 777 };
    mig_fw_command(&t_src.fw, &thr, &resp);
    fill_fn(&t_src.nic, sfn, 16, 16, 64);  /* every row of every table in use */
    fill_fn(&t_src.nic, (sfn + 1) % 4, 3, 2, 2); /* a neighbour that must not travel */
    uint64_t fw0 = t_src.nic.fw_cycles, port0 = t_src.nic.port_cycles;
    unsigned n = save_final(&t_src, sfn, IMG);
    uint64_t save_fw = t_src.nic.fw_cycles - fw0, save_port = t_src.nic.port_cycles - port0;
    copy_blocks(&t_src, &t_dst, IMG, n);
    bool ok = load_all(&t_dst, dfn, n, &resp);
    ok &= fn_equal(&t_src.nic, sfn, &t_dst.nic, dfn);
    ok &= t_dst.nic.throttle[dfn] == 777 && t_dst.nic.level[dfn] == MIG_LEVEL_PASSIVE;
    /* nothing else on the destination: its other functions are still empty */
    struct stub_nic *dn = &t_dst.nic;
    for (unsigned f = 0; f < 4; f++)
        for (unsigned t = 0; t < MIG_OBJ_TABLES; t++)
            for (unsigned row = 0; row < dn->caps.rows[t] && f != dfn; row++)
                for (unsigned s = 0; s < MIG_SECTIONS_MAX; s++)
                    for (unsigned w = 0; w < MIG_SECTION_WORDS_MAX; w++) ok &= dn->rows[t][s][f][row][w] == 0;
    ok &= run(&t_dst, MIG_CMD_RESUME_PASSIVE, dfn, 0, 0, &resp) == MIG_OK;
    ok &= run(&t_dst, MIG_CMD_RESUME_ACTIVE, dfn, 0, 0, &resp) == MIG_OK && resp.state == MIG_ST_RUNNING;
    ok &= t_dst.nic.announces[dfn] == 1 && t_dst.nic.level[dfn] == MIG_LEVEL_RUN;
    if (!ok) { t_fail(name, "tables differ or states wrong", resp.status, resp.reason); return; }
    t_pass(name);
    if (sfn == dfn) {
        t_pass_begin();
        t_puts("figure: full function (16 QP, 16 CQ, 64 MR) = ");
        t_putu(n);
        t_puts(" blocks of 512 B; save ");
        t_putu(save_fw + save_port);
        t_puts(" cycles (firmware ");
        t_putu(save_fw);
        t_puts(", ports ");
        t_putu(save_port);
        t_puts("), load+commit ");
        t_putu(t_dst.nic.fw_cycles + t_dst.nic.port_cycles);
        t_puts(" cycles\n");
    }
}

/* exact namespaces: the records carry qpn / cqn / key, and the QP's CQ fields land on the
 * right CQ even though the image names them by the source's slot */
static void namespaces(void)
{
    struct mig_resp resp;
    rig_init(&t_src);
    rig_init(&t_dst);
    fill_fn(&t_src.nic, 3, 5, 4, 7);
    unsigned n = save_final(&t_src, 3, IMG);
    copy_blocks(&t_src, &t_dst, IMG, n);
    bool ok = load_all(&t_dst, 1, n, &resp);
    mig_row_t a, b;
    for (unsigned q = 0; q < 5; q++) {
        stub_row_get(&t_src.nic, MIG_TABLE_QP, 3, q, a);
        stub_row_get(&t_dst.nic, MIG_TABLE_QP, 1, q, b);
        ok &= mig_row_field(MIG_TABLE_QP, a, MIG_QPF_QPN) == mig_row_field(MIG_TABLE_QP, b, MIG_QPF_QPN);
        ok &= mig_row_field(MIG_TABLE_QP, a, MIG_QPF_QPN) % 16 == q && mig_row_field(MIG_TABLE_QP, a, MIG_QPF_QPN) >= 16;
    }
    if (ok) t_pass("image: QPNs, CQNs, keys identical on the destination (function 3 -> function 1)");
    else t_fail("namespaces", "numbers differ", 0, 0);
}

static void split_at_every_boundary(void)
{
    struct mig_resp resp;
    rig_init(&t_src);
    fill_fn(&t_src.nic, 0, 16, 16, 64);
    unsigned n = save_final(&t_src, 0, IMG);
    bool ok = true;
    for (unsigned k = 1; k < n; k++) {
        rig_init(&t_dst);
        copy_blocks(&t_src, &t_dst, IMG, n);
        ok &= load_blocks(&t_dst, 2, IMG, 0, k, &resp) == MIG_OK && resp.state == MIG_ST_LOADING;
        ok &= t_dst.nic.mutations == 0; /* nothing written before the last block */
        ok &= run(&t_dst, MIG_CMD_QUERY_TAG, 2, 0, 0, &resp) == MIG_OK; /* other traffic between */
        ok &= load_blocks(&t_dst, 2, IMG, k, n - k, &resp) == MIG_OK && resp.answer == MIG_LOAD_COMMITTED;
        ok &= fn_equal(&t_src.nic, 0, &t_dst.nic, 2);
        if (!ok) { t_fail("split", "at block", k, resp.reason); return; }
    }
    /* and block by block as the source saves them (transfer and load overlap) */
    rig_init(&t_src);
    rig_init(&t_dst);
    fill_fn(&t_src.nic, 0, 16, 16, 64);
    run(&t_src, MIG_CMD_SUSPEND_ACTIVE, 0, 0, 0, &resp);
    run(&t_src, MIG_CMD_SUSPEND_PASSIVE, 0, 0, 0, &resp);
    for (unsigned i = 0; i < 40; i++) {
        ok &= run(&t_src, MIG_CMD_IMAGE_SAVE, 0, IMG, 0, &resp) == MIG_OK;
        uint8_t answer = resp.answer;
        copy_blocks(&t_src, &t_dst, IMG, 1);
        ok &= run(&t_dst, MIG_CMD_IMAGE_LOAD, 0, IMG, 0, &resp) == MIG_OK;
        if (answer == MIG_SAVE_PASS_END) break;
    }
    ok &= resp.answer == MIG_LOAD_COMMITTED && fn_equal(&t_src.nic, 0, &t_dst.nic, 0);
    if (ok) t_pass("image: load split at every block boundary (and block-by-block overlapped with save) commits exactly");
    else t_fail("split", "overlapped", resp.status, resp.reason);
}

static void block_format(void)
{
    rig_init(&t_src);
    fill_fn(&t_src.nic, 0, 16, 16, 64);
    unsigned n = save_final(&t_src, 0, IMG);
    /* 16 QPs at 3 per block, 16 CQs at 29, 64 MRs at 21: HDR FN CQ MRx4 QPx6 END */
    bool ok = n == 1 + 1 + 1 + 4 + 6 + 1;
    const uint8_t *h = block_at(&t_src, IMG, 0) + MIG_BH_BYTES;
    ok &= mig_get_le(h + MIG_IH_MAGIC, 4) == MIG_IMAGE_MAGIC && h[0] == 'H' && h[3] == 'I';
    ok &= mig_get_le(h + MIG_IH_FLAGS, 2) == (MIG_IMG_FULL | MIG_IMG_FINAL);
    ok &= mig_get_le(h + MIG_IH_COUNT_QP, 2) == 16 && mig_get_le(h + MIG_IH_BLOCKS, 4) == n;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *b = block_at(&t_src, IMG, i);
        ok &= mig_get_le(b + MIG_BH_SEQ, 4) == i && mig_block_crc(b) == mig_get_le(b + MIG_BH_CRC, 4);
    }
    ok &= block_at(&t_src, IMG, n - 1)[MIG_BH_KIND] == MIG_BLK_END;
    if (ok) t_pass("image: HDR, FN, CQ, MR x4, QP x6, END blocks; sequence numbers and CRC-32C on every block");
    else t_fail("block format", "blocks", n, 14);
}

void image_tests(void)
{
    t_seed(11);
    round_trip(1, 1, "image: save/load round trip, hardware tables byte-exact, throttle carried, announce on resume");
    round_trip(0, 3, "image: round trip into a different function slot (0 -> 3), byte-exact");
    namespaces();
    split_at_every_boundary();
    block_format();
}
