/* mig_load_check.c — everything a load refuses is refused before its first hardware write
 * (issue 25: loads are all or nothing).
 *
 * Record by record as blocks are staged: the values ctrl refuses through its mailbox
 * (mig_rules.h). A loaded row must be a row ctrl could have made, because the datapath
 * trusts ctrl's rows: a CQ log past 15 overruns the 16-bit consumer index, a QP past RTR
 * with PMTU 0 has no packet size. The QP's attributes also follow the order ctrl's state
 * machine sets them in (RESET -> INIT sets PORT; INIT -> RTR the path, PMTU among it;
 * RTR -> RTS the send side): a state past a step holds that step's attributes, and a step
 * not taken has left its attributes 0, as CREATE_QP made them.
 *
 * The staged whole after the final pass (the records of several pre-copy passes combine):
 * QP -> CQ references, each CQ's REFS (DESTROY_CQ trusts it: a REFS of 0 under live QPs
 * lets the guest destroy a CQ they write to), and the send position derived from the
 * send queue in host memory. */
#include "mig_load_check.h"

#include "mig_cost.h"
#include "mig_record.h"
#include "mig_rules.h"
#include "mig_send_pos.h"

static const uint8_t field_reason[MIG_TABLES] = {
    [MIG_TABLE_QP] = MIG_R_QP_FIELD, [MIG_TABLE_CQ] = MIG_R_CQ_FIELD,
    [MIG_TABLE_MR] = MIG_R_MR_FIELD, [MIG_TABLE_FN] = MIG_R_FN_FIELD,
};

/* a record being checked: its fields read one at a time, each read charged */
struct rec_view {
    struct mig_fw *fw;
    unsigned table;
    const uint8_t *rec;
    uint64_t number;
};

static uint64_t get(const struct rec_view *v, unsigned field)
{
    mig_hal_spend(&v->fw->hal, MIG_COST_FIELD);
    return mig_record_field(v->table, v->rec, field);
}

static int refuse_field(const struct rec_view *v, unsigned field, uint64_t value, struct mig_resp *resp)
{
    mig_fail(resp, MIG_E_VALUE, field_reason[v->table], v->number, field);
    resp->value[2] = value;
    return MIG_E_VALUE;
}

/* attributes INIT -> RTR and RTR -> RTS set (the AV's DST_MAC stands for the AV) */
static const uint8_t path_fields[] = {
    MIG_QPF_DST_MAC, MIG_QPF_DST_IP, MIG_QPF_UDP_SPORT, MIG_QPF_DEST_QPN,
    MIG_QPF_MAX_DEST_RD_ATOMIC, MIG_QPF_MIN_RNR_TIMER, MIG_QPF_TIMEOUT, MIG_QPF_RETRY_CNT,
    MIG_QPF_RNR_RETRY, MIG_QPF_MAX_RD_ATOMIC, MIG_QPF_BACKOFF, MIG_QPF_BACKOFF_FIRST,
    MIG_QPF_BACKOFF_CAP,
};

static int check_qp(const struct rec_view *v, struct mig_resp *resp)
{
    uint64_t state = get(v, MIG_QPF_STATE), port = get(v, MIG_QPF_PORT_NUM), pmtu = get(v, MIG_QPF_PMTU);
    uint64_t mac = get(v, MIG_QPF_DST_MAC), ip = get(v, MIG_QPF_DST_IP);
    uint64_t first = get(v, MIG_QPF_BACKOFF_FIRST), cap = get(v, MIG_QPF_BACKOFF_CAP);
    uint64_t rd = get(v, MIG_QPF_MAX_RD_ATOMIC), dest_rd = get(v, MIG_QPF_MAX_DEST_RD_ATOMIC);
    bool past_init = state >= MIG_QPS_INIT && state <= MIG_QPS_SQE;
    bool past_rtr = state >= MIG_QPS_RTR && state <= MIG_QPS_SQE;
    if (v->number < MIG_QPN_MIN) return refuse_field(v, MIG_QPF_QPN, v->number, resp);
    if (state > MIG_QPS_ERR) return refuse_field(v, MIG_QPF_STATE, state, resp);
    if (pmtu > MIG_PMTU_MAX || (past_rtr && pmtu < MIG_PMTU_MIN)) return refuse_field(v, MIG_QPF_PMTU, pmtu, resp);
    if (rd > MIG_MAX_RD_ATOMIC) return refuse_field(v, MIG_QPF_MAX_RD_ATOMIC, rd, resp);
    if (dest_rd > MIG_MAX_DEST_RD_ATOMIC) return refuse_field(v, MIG_QPF_MAX_DEST_RD_ATOMIC, dest_rd, resp);
    if (get(v, MIG_QPF_BACKOFF) && (first == 0 || first > cap))
        return refuse_field(v, MIG_QPF_BACKOFF_FIRST, first, resp);
    /* PORT is set (to 1) by RESET -> INIT, PMTU (1..5) by INIT -> RTR */
    bool init_done = port == MIG_PORT, rtr_done = pmtu != 0;
    if ((past_init || rtr_done) && !init_done) return refuse_field(v, MIG_QPF_PORT_NUM, port, resp);
    uint64_t access = get(v, MIG_QPF_ACCESS);
    if (!init_done && access) return refuse_field(v, MIG_QPF_ACCESS, access, resp);
    if (rtr_done) {
        /* the AV: unicast non-zero 48-bit MAC and a non-zero IP, set together */
        if (!mig_mac_ok(mac)) return refuse_field(v, MIG_QPF_DST_MAC, mac, resp);
        if (ip == 0) return refuse_field(v, MIG_QPF_DST_IP, ip, resp);
        return MIG_OK;
    }
    for (unsigned i = 0; i < sizeof path_fields; i++) {
        uint64_t x = get(v, path_fields[i]);
        if (x) return refuse_field(v, path_fields[i], x, resp);
    }
    return MIG_OK;
}

static int check_cq(const struct rec_view *v, struct mig_resp *resp)
{
    uint64_t log = get(v, MIG_CQF_LOG);
    if (log > MIG_CQ_LOG_MAX) return refuse_field(v, MIG_CQF_LOG, log, resp);
    return MIG_OK;
}

static int check_mr(const struct rec_view *v, struct mig_resp *resp)
{
    uint64_t access = get(v, MIG_MRF_ACCESS), len = get(v, MIG_MRF_LEN);
    /* REG_MR's rules, ctrl's lines (roce_mr.h). The image's widths keep unknown flags (ACCESS
     * is 4 bits) and an end past 2^64 (BASE 57 bits + LEN 58) out, so the range rule depends on
     * LEN alone: it is asked with base 0 and BASE is not read (a read costs MIG_COST_FIELD) */
    if (!mr_reg_access_ok((unsigned)access)) return refuse_field(v, MIG_MRF_ACCESS, access, resp);
    if (!mr_reg_range_ok(0, len)) return refuse_field(v, MIG_MRF_LEN, len, resp);
    return MIG_OK;
}

/* SET_FN sets MAC, IP and VALID together; before it the row is all 0 */
static int check_fn(const struct rec_view *v, struct mig_resp *resp)
{
    uint64_t mac = get(v, MIG_FNF_MAC), ip = get(v, MIG_FNF_IP);
    bool valid = get(v, MIG_FNF_VALID) != 0;
    if (valid ? !mig_mac_ok(mac) : mac != 0) return refuse_field(v, MIG_FNF_MAC, mac, resp);
    if (valid ? ip == 0 : ip != 0) return refuse_field(v, MIG_FNF_IP, ip, resp);
    return MIG_OK;
}

int mig_check_record(struct mig_fw *fw, unsigned table, const uint8_t *rec, struct mig_resp *resp)
{
    const struct mig_record_layout *l = &mig_layouts[table];
    struct rec_view v = { fw, table, rec, 0 };
    if (l->key_field >= 0) v.number = mig_record_field(table, rec, (unsigned)l->key_field);
    switch (table) {
    case MIG_TABLE_QP: return check_qp(&v, resp);
    case MIG_TABLE_CQ: return check_cq(&v, resp);
    case MIG_TABLE_MR: return check_mr(&v, resp);
    default: return check_fn(&v, resp);
    }
}

/* the staged CQ whose number the image's QP field names (a slot under the source's table
 * size); -1 if there is none. */
static int cq_slot_for(struct mig_fw *fw, uint64_t src_slot)
{
    unsigned src_rows = 1u << ((fw->load.capacity >> 8) & 0xff);
    for (unsigned s = 0; s < fw->caps.rows[MIG_TABLE_CQ]; s++) {
        if (!mig_bit(fw->load.staged[MIG_TABLE_CQ], s)) continue;
        uint64_t cqn = mig_record_field(MIG_TABLE_CQ, fw->load.cq[s], MIG_CQF_CQN);
        if ((cqn & (src_rows - 1)) == src_slot) return (int)s;
    }
    return -1;
}

static const uint8_t cq_fields[2] = { MIG_QPF_SEND_CQ, MIG_QPF_RECV_CQ };

/* every staged QP's send and receive CQ must be staged; their fields become our slots */
static int resolve_cqs(struct mig_fw *fw, struct mig_resp *resp)
{
    for (unsigned q = 0; q < fw->caps.rows[MIG_TABLE_QP]; q++) {
        if (!mig_bit(fw->load.staged[MIG_TABLE_QP], q)) continue;
        const uint8_t *rec = fw->load.qp[q];
        for (unsigned i = 0; i < 2; i++) {
            uint64_t src = mig_record_field(MIG_TABLE_QP, rec, cq_fields[i]);
            if (cq_slot_for(fw, src) < 0)
                return mig_fail(resp, MIG_E_FIT, i ? MIG_R_RECV_CQ_MISSING : MIG_R_SEND_CQ_MISSING,
                                mig_record_field(MIG_TABLE_QP, rec, MIG_QPF_QPN), src);
        }
    }
    for (unsigned q = 0; q < fw->caps.rows[MIG_TABLE_QP]; q++) {
        if (!mig_bit(fw->load.staged[MIG_TABLE_QP], q)) continue;
        uint8_t *rec = fw->load.qp[q];
        for (unsigned i = 0; i < 2; i++)
            mig_record_set_field(MIG_TABLE_QP, rec, cq_fields[i],
                                 (uint64_t)cq_slot_for(fw, mig_record_field(MIG_TABLE_QP, rec, cq_fields[i])));
    }
    return MIG_OK;
}

/* each CQ's REFS = the QP references to it (one for a send CQ, one for a receive CQ) */
static int check_refs(struct mig_fw *fw, struct mig_resp *resp)
{
    uint8_t refs[MIG_MAX_CQ] = { 0 };
    for (unsigned q = 0; q < fw->caps.rows[MIG_TABLE_QP]; q++) {
        if (!mig_bit(fw->load.staged[MIG_TABLE_QP], q)) continue;
        for (unsigned i = 0; i < 2; i++) refs[mig_record_field(MIG_TABLE_QP, fw->load.qp[q], cq_fields[i])]++;
    }
    for (unsigned s = 0; s < fw->caps.rows[MIG_TABLE_CQ]; s++) {
        if (!mig_bit(fw->load.staged[MIG_TABLE_CQ], s)) continue;
        const uint8_t *cq = fw->load.cq[s];
        uint64_t have = mig_record_field(MIG_TABLE_CQ, cq, MIG_CQF_REFS);
        if (have != refs[s]) {
            mig_fail(resp, MIG_E_VALUE, MIG_R_CQ_REFS, mig_record_field(MIG_TABLE_CQ, cq, MIG_CQF_CQN), have);
            resp->value[2] = refs[s];
            return MIG_E_VALUE;
        }
    }
    mig_hal_spend(&fw->hal, MIG_COST_RECORD_CHECK * fw->caps.rows[MIG_TABLE_CQ]);
    return MIG_OK;
}

/* the VM's memory is here now: the send queue gives each QP's send position */
static int find_send_positions(struct mig_fw *fw, struct mig_resp *resp)
{
    for (unsigned q = 0; q < fw->caps.rows[MIG_TABLE_QP]; q++) {
        if (!mig_bit(fw->load.staged[MIG_TABLE_QP], q)) continue;
        const uint8_t *rec = fw->load.qp[q];
        uint64_t una = mig_record_field(MIG_TABLE_QP, rec, MIG_QPF_UNA);
        if (una == mig_record_field(MIG_TABLE_QP, rec, MIG_QPF_SQ_HI)) {
            fw->load.send_pos[q] = (struct mig_send_pos){ (uint16_t)una, 0, 0 }; /* no host access */
            continue;
        }
        mig_record_unpack(&fw->hal, MIG_TABLE_QP, rec, fw->row);
        int rc = mig_send_position_find(&fw->hal, fw->row, &fw->load.send_pos[q], resp);
        if (rc != MIG_OK) return rc;
    }
    return MIG_OK;
}

int mig_check_staged(struct mig_fw *fw, struct mig_resp *resp)
{
    int rc = resolve_cqs(fw, resp);
    if (rc == MIG_OK) rc = check_refs(fw, resp);
    if (rc == MIG_OK) rc = find_send_positions(fw, resp);
    return rc;
}
