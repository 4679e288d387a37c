/* mig_layout.c — the field descriptor tables built from the lists in mig_layout.h. */
#include "mig_layout.h"

#define MIG_DESC(id, sec, bit, width, shift, img) \
    { #id, MIG_SEC_##sec, bit, width, shift, img },

static const struct mig_field qp_fields[] = { MIG_QP_FIELDS(MIG_DESC) };
static const struct mig_field cq_fields[] = { MIG_CQ_FIELDS(MIG_DESC) };
static const struct mig_field mr_fields[] = { MIG_MR_FIELDS(MIG_DESC) };
static const struct mig_field fn_fields[] = { MIG_FN_FIELDS(MIG_DESC) };

#define MIG_QP_COPY(id, sec, bit) { MIG_QPF_##id, MIG_SEC_##sec, bit },
#define MIG_CQ_COPY(id, sec, bit) { MIG_CQF_##id, MIG_SEC_##sec, bit },
static const struct mig_copy qp_copies[] = { MIG_QP_COPIES(MIG_QP_COPY) };
static const struct mig_copy cq_copies[] = { MIG_CQ_COPIES(MIG_CQ_COPY) };
#define COUNT(a) (uint8_t)(sizeof(a) / sizeof((a)[0]))

const struct mig_record_layout mig_layouts[MIG_TABLES] = {
    [MIG_TABLE_QP] = { qp_fields, MIG_QP_FIELD_COUNT, MIG_QP_RECORD_BYTES, 5,
                       MIG_QPF_VALID, MIG_QPF_QPN, 0, qp_copies, COUNT(qp_copies) },
    [MIG_TABLE_CQ] = { cq_fields, MIG_CQ_FIELD_COUNT, MIG_CQ_RECORD_BYTES, 2,
                       MIG_CQF_VALID, MIG_CQF_CQN, 0, cq_copies, COUNT(cq_copies) },
    /* MR key: low 8 bits are software's tag, the rest the index (nic_if.h) */
    [MIG_TABLE_MR] = { mr_fields, MIG_MR_FIELD_COUNT, MIG_MR_RECORD_BYTES, 1,
                       MIG_MRF_VALID, MIG_MRF_KEY, 8, 0, 0 },
    /* FN: the fields, then the DevThrottle rate (u32) that the firmware adds */
    [MIG_TABLE_FN] = { fn_fields, MIG_FN_FIELD_COUNT, MIG_FN_RECORD_BYTES, 1, -1, -1, 0, 0, 0 },
};

unsigned mig_section_words(unsigned table, unsigned section)
{
    const struct mig_record_layout *l = &mig_layouts[table];
    unsigned end = 0;
    for (unsigned i = 0; i < l->field_count; i++) {
        const struct mig_field *f = &l->fields[i];
        if (f->section == section && f->hw_bit + f->hw_width > end)
            end = f->hw_bit + f->hw_width;
    }
    for (unsigned i = 0; i < l->copy_count; i++) {
        const struct mig_copy *c = &l->copies[i];
        unsigned e = c->hw_bit + l->fields[c->field].hw_width;
        if (c->section == section && e > end) end = e;
    }
    return (end + 31) / 32;
}
