/* fixture.c — see fixture.h. */
#include "fixture.h"

#include "mig_libc.h"
#include "mig_record.h"
#include "mig_rules.h"

/* the whole-NIC compares (half a megabyte): the C library's natively, where the fuzz target
 * runs them on every input; ours on rv32, which has no C library */
#ifdef MIG_FREESTANDING
#define nic_memcmp mig_memcmp
#else
#include <string.h>
#define nic_memcmp memcmp
#endif

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

static uint64_t below(uint64_t n) { return t_rand() % n; }
/* a random unicast MAC (I/G bit clear), never 0 */
static uint64_t random_mac(void) { return ((((uint64_t)t_rand() << 32) | t_rand()) & 0xFEFFFFFFFFFFull) | 2; }

/* the values ctrl accepts (mig_rules.h): a QP that went RESET -> INIT -> RTR -> RTS and
 * may have moved on (any state keeps the attributes), a CQ of at most 2^15 entries, an MR
 * whose remote write / atomic access has local write, a function whose address is set */
static void ctrl_accepts(unsigned t, mig_row_t row)
{
    if (t == MIG_TABLE_QP) {
        mig_row_set_field(t, row, MIG_QPF_STATE, below(MIG_QPS_ERR + 1));
        mig_row_set_field(t, row, MIG_QPF_PORT_NUM, MIG_PORT);
        mig_row_set_field(t, row, MIG_QPF_PMTU, MIG_PMTU_MIN + below(MIG_PMTU_MAX));
        mig_row_set_field(t, row, MIG_QPF_DST_MAC, random_mac());
        mig_row_set_field(t, row, MIG_QPF_DST_IP, t_rand() | 1);
        mig_row_set_field(t, row, MIG_QPF_MAX_RD_ATOMIC, below(MIG_MAX_RD_ATOMIC + 1));
        mig_row_set_field(t, row, MIG_QPF_MAX_DEST_RD_ATOMIC, below(MIG_MAX_DEST_RD_ATOMIC + 1));
        uint64_t cap = 1 + below(31);
        mig_row_set_field(t, row, MIG_QPF_BACKOFF_CAP, cap);
        mig_row_set_field(t, row, MIG_QPF_BACKOFF_FIRST, 1 + below(cap));
    } else if (t == MIG_TABLE_CQ) {
        mig_row_set_field(t, row, MIG_CQF_LOG, below(MIG_CQ_LOG_MAX + 1));
        mig_row_set_field(t, row, MIG_CQF_REFS, 0); /* fill_fn counts the QPs' references */
    } else if (t == MIG_TABLE_MR) {
        uint64_t access = mig_row_field(t, row, MIG_MRF_ACCESS);
        if (access & (NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_ATOMIC)) access |= NIC_ACC_LOCAL_WRITE;
        mig_row_set_field(t, row, MIG_MRF_ACCESS, access);
        mig_row_set_field(t, row, MIG_MRF_LEN, mig_row_field(t, row, MIG_MRF_LEN) | 1);
    } else {
        mig_row_set_field(t, row, MIG_FNF_MAC, random_mac());
        mig_row_set_field(t, row, MIG_FNF_IP, t_rand() | 1);
        mig_row_set_field(t, row, MIG_FNF_VALID, 1);
    }
}

static void fill_row(struct stub_nic *n, unsigned t, unsigned fn, unsigned slot, uint64_t number)
{
    mig_row_t row = { { 0 } };
    const struct mig_record_layout *l = &mig_layouts[t];
    for (unsigned i = 0; i < l->field_count; i++) mig_row_set_field(t, row, i, random_field(t, i));
    ctrl_accepts(t, row);
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
    /* every QP names CQ slots 0 and 1, once each: ctrl's REFS counts them */
    for (unsigned s = 0; s < 2 && s < ncq; s++) {
        mig_row_t row;
        stub_row_get(n, MIG_TABLE_CQ, fn, s, row);
        mig_row_set_field(MIG_TABLE_CQ, row, MIG_CQF_REFS, nqp);
        stub_row_put(n, MIG_TABLE_CQ, fn, s, row);
    }
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

bool nic_unchanged(const struct stub_nic *now, const struct stub_nic *before)
{
#define SAME(f) (nic_memcmp(&now->f, &before->f, sizeof now->f) == 0)
    return SAME(rows) && SAME(level) && SAME(target) && SAME(tracking) && SAME(dirty) && SAME(throttle) &&
           SAME(counter) && SAME(announces) && SAME(flushes) && SAME(host) && now->mutations == 0;
#undef SAME
}

bool fn_equal(const struct stub_nic *a, unsigned fa, const struct stub_nic *b, unsigned fb)
{
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < mig_layouts[t].sections; s++)
            for (unsigned r = 0; r < a->caps.rows[t]; r++)
                if (nic_memcmp(a->rows[t][s][fa][r], b->rows[t][s][fb][r], MIG_SECTION_WORDS_MAX * 4))
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

uint8_t *record_at(struct rig *r, uint64_t base, unsigned n, uint8_t kind, unsigned i, uint8_t **block)
{
    static const uint8_t table_of[] = { [MIG_BLK_FN] = MIG_TABLE_FN, [MIG_BLK_CQ] = MIG_TABLE_CQ,
                                        [MIG_BLK_MR] = MIG_TABLE_MR, [MIG_BLK_QP] = MIG_TABLE_QP };
    for (unsigned k = 0; k < n; k++) {
        uint8_t *b = block_at(r, base, k);
        if (b[MIG_BH_KIND] != kind) continue;
        if (i < b[MIG_BH_RECORDS]) {
            *block = b;
            return b + MIG_BH_BYTES + i * mig_layouts[table_of[kind]].record_bytes;
        }
        i -= b[MIG_BH_RECORDS];
    }
    return 0;
}
