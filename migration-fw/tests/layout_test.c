/* layout_test.c — the descriptor tables: sizes, no overlaps, bit packing golden values,
 * row <-> record round trips, and save refusing a field that does not fit. */
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"

static void sizes(void)
{
    static const unsigned bits[MIG_TABLES] = { MIG_QP_RECORD_BITS, MIG_CQ_RECORD_BITS,
                                                MIG_MR_RECORD_BITS, MIG_FN_FIELD_BITS };
    bool ok = true;
    for (unsigned t = 0; t < MIG_TABLES; t++) {
        const struct mig_record_layout *l = &mig_layouts[t];
        unsigned sum = 0;
        for (unsigned i = 0; i < l->field_count; i++) {
            const struct mig_field *f = &l->fields[i];
            sum += f->img_width;
            ok &= f->img_width + f->shift <= f->hw_width && f->img_width <= 64 && f->section < l->sections;
            /* no two fields of a section share a bit */
            for (unsigned j = 0; j < i; j++) {
                const struct mig_field *g = &l->fields[j];
                if (g->section == f->section && f->hw_bit < g->hw_bit + g->hw_width && g->hw_bit < f->hw_bit + f->hw_width)
                    t_fail("layout", f->name, t, j), ok = false;
            }
        }
        ok &= sum == bits[t];
        for (unsigned s = 0; s < l->sections; s++) ok &= mig_section_words(t, s) <= MIG_SECTION_WORDS_MAX;
    }
    if (ok && t_expect("layout", "QP record bytes", MIG_QP_RECORD_BYTES, 128))
        t_pass("layout: fields disjoint, widths sum to the records: QP 128 B, CQ 18 B, MR 23 B, FN 15 B");
}

static void golden(void)
{
    /* QPN is image bits 7..30: 0x123456 << 7 = 0x091A2B00 -> bytes 00 2B 1A 09 */
    uint8_t rec[MIG_QP_RECORD_BYTES];
    mig_memset(rec, 0, sizeof rec);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_QPN, 0x123456);
    bool ok = rec[0] == 0x00 && rec[1] == 0x2B && rec[2] == 0x1A && rec[3] == 0x09 && rec[4] == 0;
    /* SQ_BASE keeps bits 6..56: 0x40 is image bit 0 of the field */
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_SQ_BASE, 0x1C0);
    ok &= mig_record_field(MIG_TABLE_QP, rec, MIG_QPF_SQ_BASE) == 0x1C0;
    uint32_t w[3] = { 0, 0, 0 };
    mig_words_put(w, 28, 40, 0xABCDEF0123ull);
    ok &= w[0] == 0x30000000u && w[1] == 0xBCDEF012u && w[2] == 0xAu && mig_words_get(w, 28, 40) == 0xABCDEF0123ull;
    if (ok) t_pass("layout: bit packing golden bytes (LSB first, word-crossing fields)");
    else t_fail("layout golden", "bytes", rec[1], w[1]);
}

static void round_trip(void)
{
    struct rig *r = &t_src;
    rig_init(r);
    bool ok = true;
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned k = 0; k < 200; k++) {
            mig_row_t row = { { 0 } }, back;
            const struct mig_record_layout *l = &mig_layouts[t];
            for (unsigned i = 0; i < l->field_count; i++) mig_row_set_field(t, row, i, random_field(t, i));
            mig_record_derive(t, row);
            uint8_t rec[MIG_QP_RECORD_BYTES];
            struct mig_resp resp;
            ok &= mig_record_pack(&r->fw.hal, t, row, 0, rec, &resp) == MIG_OK;
            mig_record_unpack(&r->fw.hal, t, rec, back);
            ok &= mig_memcmp(row, back, sizeof row) == 0;
        }
    if (ok) t_pass("layout: row -> record -> row exact for 200 random rows of each table");
    else t_fail("layout round trip", "rows differ", 0, 0);
}

static void does_not_fit(void)
{
    struct rig *r = &t_src;
    struct mig_resp resp;
    uint8_t rec[MIG_QP_RECORD_BYTES];
    mig_row_t row = { { 0 } };
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_POS_VA, (uint64_t)1 << 57); /* beyond 57-bit VAs */
    int rc = mig_record_pack(&r->fw.hal, MIG_TABLE_QP, row, 5, rec, &resp);
    bool ok = rc == MIG_E_FIT && resp.reason == MIG_R_FIELD_WIDTH && resp.value[0] == MIG_QPF_POS_VA &&
              resp.value[1] == 5;
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_POS_VA, 0);
    mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_BASE, 0x1044); /* WQEs are 64-byte aligned */
    rc = mig_record_pack(&r->fw.hal, MIG_TABLE_QP, row, 5, rec, &resp);
    ok &= rc == MIG_E_FIT && resp.reason == MIG_R_FIELD_ALIGN && resp.value[0] == MIG_QPF_SQ_BASE;
    const char *name = mig_field_name(MIG_TABLE_QP, MIG_QPF_SQ_BASE);
    ok &= name[0] == 'S' && name[2] == '_';
    if (ok) t_pass("layout: save refuses a value wider than its image field (POS_VA) or misaligned (SQ_BASE), naming it");
    else t_fail("layout fit", "refusal", resp.reason, resp.value[0]);
}

/* The hardware side is nic_ctx.h's: a section's fields and copies end inside the port's row
 * (128-bit words), and the copies land where nic_ctx.h says: setting a CQ's VALID writes ctrl's
 * and cq_writer's byte, a load sets ctrl's SQ_PSN / RQ_PSN from the next / expected PSN. */
static void matches_nic_ctx(void)
{
    static const unsigned port_words[MIG_TABLES][MIG_SECTIONS_MAX] = {
        [MIG_TABLE_QP] = { NIC_CTX_QP_WORDS, NIC_CTX_REQ_QP_WORDS, NIC_CTX_COMP_QP_WORDS,
                           NIC_CTX_RESP_QP_WORDS, NIC_CTX_RESP_ATOM_WORDS },
        [MIG_TABLE_CQ] = { NIC_CTX_CQ_WORDS, NIC_CTX_CQW_WORDS },
        [MIG_TABLE_MR] = { NIC_CTX_MR_WORDS },
        [MIG_TABLE_FN] = { NIC_CTX_FN_WORDS },
    };
    bool ok = true;
    rig_init(&t_src);
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < MIG_SECTIONS_MAX; s++)
            ok &= (s < mig_layouts[t].sections) == (port_words[t][s] != 0) &&
                  mig_section_words(t, s) <= port_words[t][s] * 4;
    mig_row_t row = { { 0 } };
    mig_row_set_field(MIG_TABLE_CQ, row, MIG_CQF_VALID, 1);
    mig_row_set_field(MIG_TABLE_CQ, row, MIG_CQF_CQN, 0xABCDE1);
    ok &= mig_words_get(row[MIG_SEC_CQ_CTRL], NIC_CTX_CQ_VALID, 8) == 1 &&
          mig_words_get(row[MIG_SEC_CQ_CQW], NIC_CTX_CQW_VALID, 8) == 1 &&
          mig_words_get(row[MIG_SEC_CQ_CTRL], NIC_CTX_CQ_CQN, 32) == 0xABCDE1 &&
          mig_words_get(row[MIG_SEC_CQ_CQW], NIC_CTX_CQW_CQN, 32) == 0xABCDE1;
    uint8_t rec[MIG_QP_RECORD_BYTES];
    mig_memset(rec, 0, sizeof rec);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_NEXT_PSN, 0x123456);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_EPSN, 0xFEDCBA);
    mig_record_unpack(&t_src.fw.hal, MIG_TABLE_QP, rec, row);
    ok &= mig_words_get(row[MIG_SEC_QP_CTRL], NIC_CTX_QP_SQ_PSN, 32) == 0x123456 &&
          mig_words_get(row[MIG_SEC_QP_CTRL], NIC_CTX_QP_RQ_PSN, 32) == 0xFEDCBA;
    /* a READ being answered: RD_PSN = EPSN - packets left; 1000 bytes at MTU 256 are 4
     * packets (EPSN 2 wraps to 0xFFFFFE), a zero-length READ not started is 1 */
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_CLASS, MIG_POS_READ_RESP);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_PMTU, 1);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_LEFT, 1000);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_EPSN, 2);
    mig_record_unpack(&t_src.fw.hal, MIG_TABLE_QP, rec, row);
    ok &= mig_words_get(row[MIG_SEC_QP_RESP], NIC_CTX_RSP_RD_PSN, 24) == 0xFFFFFE;
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_LEFT, 0);
    mig_record_unpack(&t_src.fw.hal, MIG_TABLE_QP, rec, row);
    ok &= mig_words_get(row[MIG_SEC_QP_RESP], NIC_CTX_RSP_RD_PSN, 24) == 1;
    if (ok) t_pass("layout: sections inside nic_ctx.h's rows; copies land at nic_ctx.h's positions (CQ config twice, SQ/RQ PSN); RD_PSN derived");
    else t_fail("layout nic_ctx", "positions", 0, 0);
}

void layout_tests(void)
{
    matches_nic_ctx();
    sizes();
    golden();
    round_trip();
    does_not_fit();
}
