/* value_test.c — a load refuses every value ctrl refuses through its mailbox (mig_rules.h)
 * and every commit-time check before its first hardware write: for each class, one edited
 * record in a valid image, the refusal names the record, field and value, and the
 * destination (its tables, levels, dirty state, throttles, host memory) is exactly as
 * before. Then the same destination takes a good image. */
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"
#include "mig_rules.h"

#define IMG 0x4000u
#define SQ 0x1000u          /* a send queue in the destination's host memory (zeros: 0-byte SENDs) */
#define ANY UINT64_MAX      /* a value not compared */
#define NUMBER (UINT64_MAX - 1) /* value[0]: the edited record's number (qpn, cqn, key; 0 for FN) */
#define OWN (UINT64_MAX - 2)    /* value[2]: the edited field's value in the record */
enum { NQP = 6, NCQ = 3, NMR = 4 };

struct edit { uint8_t kind, index, field; uint64_t value; };   /* kind MIG_BLK_*, 0 = none */
struct value_case {
    const char *name;
    struct edit edits[8];
    uint8_t status, reason;
    uint64_t value[3];              /* the response's values */
};

#define QP(f, v) { MIG_BLK_QP, 0, MIG_QPF_##f, v }
#define CQ(f, v) { MIG_BLK_CQ, 0, MIG_CQF_##f, v }
#define MR(f, v) { MIG_BLK_MR, 0, MIG_MRF_##f, v }
#define FN(f, v) { MIG_BLK_FN, 0, MIG_FNF_##f, v }
/* the *_FIELD refusals: number, field id, value */
#define BAD_QP(f, v) MIG_E_VALUE, MIG_R_QP_FIELD, { NUMBER, MIG_QPF_##f, v }
#define BAD_CQ(f, v) MIG_E_VALUE, MIG_R_CQ_FIELD, { NUMBER, MIG_CQF_##f, v }
#define BAD_MR(f, v) MIG_E_VALUE, MIG_R_MR_FIELD, { NUMBER, MIG_MRF_##f, v }
#define BAD_FN(f, v) MIG_E_VALUE, MIG_R_FN_FIELD, { NUMBER, MIG_FNF_##f, v }

static const struct value_case cases[] = {
    /* the values of issue 25 */
    { "QPN 0 (QP0/QP1 are the management QPs: CREATE_QP F_NUM)", { QP(QPN, 0) }, BAD_QP(QPN, 0) },
    { "QP STATE 7 (past ERR: MODIFY_QP F_STATE)", { QP(STATE, 7) }, BAD_QP(STATE, 7) },
    { "PMTU 0 in RTS (INIT -> RTR needs PATH_MTU 1..5)", { QP(STATE, MIG_QPS_RTS), QP(PMTU, 0) }, BAD_QP(PMTU, 0) },
    { "PMTU 6 (F_PATH_MTU)", { QP(PMTU, 6) }, BAD_QP(PMTU, 6) },
    { "MAX_RD_ATOMIC 31 (> NIC_MAX_RD_ATOMIC)", { QP(MAX_RD_ATOMIC, 31) }, BAD_QP(MAX_RD_ATOMIC, 31) },
    { "MAX_DEST_RD_ATOMIC 5 (> the 4 replay slots)", { QP(MAX_DEST_RD_ATOMIC, 5) }, BAD_QP(MAX_DEST_RD_ATOMIC, 5) },
    { "CQ LOG 31 (> 15: 16-bit consumer index)", { CQ(LOG, 31) }, BAD_CQ(LOG, 31) },
    { "CQ LOG 16", { CQ(LOG, 16) }, BAD_CQ(LOG, 16) },
    /* the rest of ctrl's mailbox rules */
    { "BACKOFF with BACKOFF_FIRST 0 (F_BACKOFF)",
      { QP(BACKOFF, 1), QP(BACKOFF_CAP, 3), QP(BACKOFF_FIRST, 0) }, BAD_QP(BACKOFF_FIRST, 0) },
    { "BACKOFF_FIRST 4 > BACKOFF_CAP 3 (F_BACKOFF)",
      { QP(BACKOFF, 1), QP(BACKOFF_CAP, 3), QP(BACKOFF_FIRST, 4) }, BAD_QP(BACKOFF_FIRST, 4) },
    { "PORT 0 in RTS (RESET -> INIT needs PORT 1)", { QP(STATE, MIG_QPS_RTS), QP(PORT_NUM, 0) }, BAD_QP(PORT_NUM, 0) },
    { "DST_MAC multicast (AV: F_AV)", { QP(DST_MAC, 0x010000000001ull) }, BAD_QP(DST_MAC, 0x010000000001ull) },
    { "DST_MAC 0 past RTR (AV: F_AV)", { QP(STATE, MIG_QPS_RTS), QP(DST_MAC, 0) }, BAD_QP(DST_MAC, 0) },
    { "DST_IP 0 (AV: F_AV)", { QP(DST_IP, 0) }, BAD_QP(DST_IP, 0) },
    { "a QP back in ERR from INIT (PMTU 0) that holds an AV (INIT -> RTR never ran)",
      { QP(STATE, MIG_QPS_ERR), QP(PMTU, 0) }, BAD_QP(DST_MAC, OWN) },
    { "a QP never out of RESET (PORT 0) with ACCESS set (RESET -> INIT never ran)",
      { QP(STATE, MIG_QPS_RESET), QP(PMTU, 0), QP(PORT_NUM, 0), QP(ACCESS, 4) }, BAD_QP(ACCESS, 4) },
    { "MR remote write without local write (REG_MR F_ACCESS)", { MR(ACCESS, NIC_ACC_REMOTE_WRITE) },
      BAD_MR(ACCESS, NIC_ACC_REMOTE_WRITE) },
    { "MR remote atomic without local write", { MR(ACCESS, NIC_ACC_REMOTE_ATOMIC | NIC_ACC_REMOTE_READ) },
      BAD_MR(ACCESS, NIC_ACC_REMOTE_ATOMIC | NIC_ACC_REMOTE_READ) },
    { "MR LEN 0 (REG_MR F_LEN)", { MR(LEN, 0) }, BAD_MR(LEN, 0) },
    { "function MAC multicast (SET_FN F_MAC)", { FN(MAC, 0x030000000000ull) }, BAD_FN(MAC, 0x030000000000ull) },
    { "function IP 0 (SET_FN F_IP)", { FN(IP, 0) }, BAD_FN(IP, 0) },
    { "function without an address (VALID 0) holding a MAC", { FN(VALID, 0) }, BAD_FN(MAC, OWN) },
    /* commit-time: the staged whole */
    { "CQ REFS 0 while the image's QPs use it (DESTROY_CQ would let the guest free it)",
      { CQ(REFS, 0) }, MIG_E_VALUE, MIG_R_CQ_REFS, { NUMBER, 0, NQP } },
    { "CQ REFS 63 for the image's 6 references", { CQ(REFS, 63) }, MIG_E_VALUE, MIG_R_CQ_REFS, { NUMBER, 63, NQP } },
    { "send position: NEXT_PSN 200 not on the 2 outstanding WQEs' PSNs 100..101",
      { QP(SQ_BASE, SQ), QP(SQ_LOG, 3), QP(UNA, 0), QP(SQ_HI, 2), QP(UNA_PSN, 100), QP(NEXT_PSN, 200),
        QP(FLUSHING, 0) },
      MIG_E_FIT, MIG_R_SEND_POSITION, { NUMBER, 200, ANY } },
    { "send position: 17 outstanding WQEs (the requester keeps 16)",
      { QP(SQ_BASE, SQ), QP(SQ_LOG, 5), QP(UNA, 0), QP(SQ_HI, 17), QP(FLUSHING, 0) },
      MIG_E_FIT, MIG_R_SEND_POSITION, { NUMBER, ANY, ANY } },
    { "send position: the send queue unreadable (host_read fails)",
      { QP(SQ_BASE, (uint64_t)1 << 50), QP(UNA, 0), QP(SQ_HI, 1) }, MIG_E_HW, MIG_R_HAL,
      { MIG_HAL_OP_HOST_READ, ANY, ANY } },
};

static unsigned n_blocks;
static struct stub_nic before;

/* function 1 of a source, its final image at IMG on a destination that has a neighbour in
 * function 0 with dirty tracking on, a throttle and a level of its own */
static void setup(void)
{
    struct mig_resp resp;
    rig_init(&t_src);
    rig_init(&t_dst);
    t_seed(25);
    fill_fn(&t_src.nic, 1, NQP, NCQ, NMR);
    n_blocks = save_final(&t_src, 1, IMG);
    copy_blocks(&t_src, &t_dst, IMG, n_blocks);
    fill_fn(&t_dst.nic, 0, 2, 2, 2);
    struct mig_cmd thr = { .opcode = MIG_CMD_DEV_THROTTLE, .fn = 3, .rate = 99 };
    mig_fw_command(&t_dst.fw, &thr, &resp);
    run(&t_dst, MIG_CMD_PRECOPY_START, 0, 0, 0, &resp);
    run(&t_dst, MIG_CMD_PRECOPY_STOP, 0, 0, 0, &resp);
    t_dst.nic.tracking[0] = true;                 /* as the datapath leaves it */
    mig_bit_set(t_dst.nic.dirty[0][MIG_TABLE_QP], 1);
    t_dst.nic.mutations = 0;
}

static unsigned table_of(uint8_t kind)
{
    return kind == MIG_BLK_QP ? MIG_TABLE_QP : kind == MIG_BLK_CQ ? MIG_TABLE_CQ : kind == MIG_BLK_MR ? MIG_TABLE_MR : MIG_TABLE_FN;
}

/* edits the records and reseals their blocks; the edited QP's number and last record */
static const uint8_t *apply(const struct value_case *c)
{
    const uint8_t *last = 0;
    for (unsigned i = 0; i < sizeof c->edits / sizeof c->edits[0] && c->edits[i].kind; i++) {
        const struct edit *e = &c->edits[i];
        uint8_t *b, *rec = record_at(&t_dst, IMG, n_blocks, e->kind, e->index, &b);
        mig_record_set_field(table_of(e->kind), rec, e->field, e->value);
        reseal(b);
        last = rec;
    }
    return last;
}

/* the response's value k against the case's */
static bool value_is(const struct value_case *c, unsigned k, uint64_t got, uint64_t number, uint64_t own)
{
    uint64_t want = c->value[k] == NUMBER ? number : c->value[k] == OWN ? own : c->value[k];
    return c->value[k] == ANY || got == want;
}

static void one_case(const struct value_case *c)
{
    struct mig_resp resp;
    setup();
    const uint8_t *rec = apply(c);
    unsigned table = table_of(c->edits[0].kind);
    const struct mig_record_layout *l = &mig_layouts[table];
    uint64_t number = l->key_field >= 0 ? mig_record_field(table, rec, (unsigned)l->key_field) : 0;
    uint64_t own = c->status == MIG_E_VALUE && c->reason != MIG_R_CQ_REFS ? mig_record_field(table, rec, (unsigned)c->value[1]) : 0;
    before = t_dst.nic;
    int st = load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp);
    bool ok = st == c->status && resp.reason == c->reason && resp.state == MIG_ST_RUNNING;
    for (unsigned k = 0; k < 3; k++) ok &= value_is(c, k, resp.value[k], number, own);
    bool same = nic_unchanged(&t_dst.nic, &before) && t_dst.fw.active_fn == -1;
    /* and the destination takes the good image afterwards */
    copy_blocks(&t_src, &t_dst, IMG, n_blocks);
    bool good = load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp) == MIG_OK && resp.answer == MIG_LOAD_COMMITTED &&
                fn_equal(&t_src.nic, 1, &t_dst.nic, 2);
    if (ok && same && good) {
        t_pass_begin();
        t_puts("refuse before any write: ");
        t_puts(c->name);
        t_puts(" -> named; destination unchanged; a good image then commits\n");
    } else {
        t_fail(c->name, ok ? (same ? "the good image did not commit after it" : "destination changed")
                           : "wrong refusal (status*100+reason, value[1])",
               (uint64_t)st * 100 + resp.reason, resp.value[1]);
    }
}

/* Not a refusal: the hardware fails write k of the commit (the first CQ section, the first
 * MR, a QP in the middle, the function's row, the last). The answer names ctx_write, and
 * the load takes back what it wrote: the destination's rows, levels and throttles are as
 * before (the mutations were made and undone), the function RUNNING and empty, and a good
 * image then commits. */
static void write_fails(void)
{
    static const unsigned at[] = { 1, 2 * NCQ + 1, 2 * NCQ + NMR + 5 * NQP / 2, 2 * NCQ + NMR + 5 * NQP + 1 };
    unsigned bad = 0;
    for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
        struct mig_resp resp;
        setup();
        before = t_dst.nic;
        t_dst.nic.fail_write = at[i];
        int st = load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp);
        bool ok = st == MIG_E_HW && resp.reason == MIG_R_HAL && resp.value[0] == MIG_HAL_OP_CTX_WRITE &&
                  resp.state == MIG_ST_RUNNING && t_dst.nic.mutations > 0;
        t_dst.nic.mutations = 0;
        before.ctx_writes = t_dst.nic.ctx_writes, before.fail_write = t_dst.nic.fail_write;
        ok &= nic_unchanged(&t_dst.nic, &before) && t_dst.fw.active_fn == -1;
        t_dst.nic.fail_write = 0;
        ok &= load_blocks(&t_dst, 2, IMG, 0, n_blocks, &resp) == MIG_OK && resp.answer == MIG_LOAD_COMMITTED &&
              fn_equal(&t_src.nic, 1, &t_dst.nic, 2);
        if (!ok && !bad++) t_fail("write fails", "at write", at[i], st * 100u + resp.reason);
    }
    if (!bad)
        t_pass("hardware write failure at the first, an MR, a middle QP and the function's row write -> "
               "MIG_E_HW/ctx_write; the rows written are emptied, throttle and level restored; a good image then commits");
}

void value_tests(void)
{
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) one_case(&cases[i]);
    write_fails();
}
