/* points_test.c — the migration-point classifier (mig_points.c) on QP records built field by
 * field with the firmware's own record functions, and a send queue in an array standing for
 * host memory: each class from each of its causes, the boundaries that are not in it, a QP
 * in two classes, a send position the WQEs do not hold, and the newest record of a slot
 * winning over a pass's earlier one (a destroyed QP leaving the count).
 * usage: points_test      prints PASS/FAIL lines; exit 1 on any failure */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mig_image.h"
#include "mig_record.h"
#include "nic_if.h"
#include "../mig_points.h"

static int failures;

enum { SQ_BASE = 0x1000, SQ_LOG = 4, WQE_BYTES = 64, PMTU_1024 = 3, FIRST_PSN = 100 };
static uint8_t sq[WQE_BYTES << SQ_LOG];   /* the send queue ring "in host memory" */

static int sq_read(void *hw, uint64_t addr, uint8_t *buf, uint32_t len) {
    (void)hw;
    if (addr < SQ_BASE || addr + len > SQ_BASE + sizeof sq) return MIG_E_HW;
    memcpy(buf, sq + (addr - SQ_BASE), len);
    return MIG_OK;
}
static const struct mig_hal_ops ops = {.host_read = sq_read};
static const struct mig_hal host = {.ops = &ops};

static void put_wqe(unsigned i, uint8_t opcode, uint32_t length) {
    uint8_t *w = sq + (i % (1u << SQ_LOG)) * WQE_BYTES;
    memset(w, 0, WQE_BYTES);
    w[8] = opcode;
    for (int b = 0; b < 4; b++) w[24 + b] = (uint8_t)(length >> (8 * b));
}

/* a valid QP record in `state`, MTU 1024, WQEs una .. hi - 1 outstanding from FIRST_PSN, the
 * requester's next PSN at `next` */
static void qp(uint8_t *rec, unsigned qpn, unsigned state, unsigned una, unsigned hi, unsigned next) {
    const struct { unsigned field; uint64_t v; } f[] = {
        {MIG_QPF_VALID, 1}, {MIG_QPF_QPN, qpn}, {MIG_QPF_STATE, state}, {MIG_QPF_PMTU, PMTU_1024},
        {MIG_QPF_SQ_BASE, SQ_BASE}, {MIG_QPF_SQ_LOG, SQ_LOG}, {MIG_QPF_UNA, una}, {MIG_QPF_SQ_HI, hi},
        {MIG_QPF_UNA_PSN, FIRST_PSN}, {MIG_QPF_NEXT_PSN, next},
    };
    memset(rec, 0, MIG_QP_RECORD_BYTES);
    for (unsigned i = 0; i < sizeof f / sizeof *f; i++) mig_record_set_field(MIG_TABLE_QP, rec, f[i].field, f[i].v);
}

static void expect(const char *what, const uint8_t *rec, int want) {
    struct mig_resp r = {0};
    int got = mig_point_classes(rec, &host, &r);
    char g[80] = "", w[80] = "";
    for (unsigned k = 0; k < MIG_POINTS; k++) {
        if (got >= 0 && got >> k & 1) snprintf(g + strlen(g), sizeof g - strlen(g), " %s", mig_point_names[k]);
        if (want >= 0 && want >> k & 1) snprintf(w + strlen(w), sizeof w - strlen(w), " %s", mig_point_names[k]);
    }
    bool ok = got == want;
    printf("%s migration/points %s:%s%s (want%s%s)\n", ok ? "PASS" : "FAIL", what, got < 0 ? " refused" : "", g,
           want < 0 ? " refused" : "", w);
    failures += !ok;
}

enum { MID = 1 << MIG_POINT_MID_MESSAGE, READ = 1 << MIG_POINT_MID_READ_RESPONSE, SETUP = 1 << MIG_POINT_SETUP,
       IDLE = 1 << MIG_POINT_IDLE };

int main(void) {
    uint8_t rec[MIG_QP_RECORD_BYTES];
    /* WQE 0: an 8 KiB WRITE (PSNs 100..107), WQE 1: a 4 KiB READ (108..111) */
    put_wqe(0, NIC_WR_WRITE, 8192);
    put_wqe(1, NIC_WR_READ, 4096);

    qp(rec, 0x100, NIC_QPS_RTS, 0, 0, FIRST_PSN);
    expect("RTS, nothing outstanding", rec, IDLE);
    qp(rec, 0x100, NIC_QPS_INIT, 0, 0, 0);
    expect("INIT", rec, SETUP);
    qp(rec, 0x100, NIC_QPS_RTR, 0, 0, 0);
    expect("RTR", rec, SETUP);

    qp(rec, 0x100, NIC_QPS_RTS, 0, 1, FIRST_PSN + 3);
    expect("requester 3 packets into an 8-packet WRITE", rec, MID);
    qp(rec, 0x100, NIC_QPS_RTS, 0, 1, FIRST_PSN);
    expect("requester before the WRITE's first packet", rec, IDLE);
    qp(rec, 0x100, NIC_QPS_RTS, 0, 1, FIRST_PSN + 8);
    expect("requester past the WRITE's last packet (unacknowledged)", rec, IDLE);
    qp(rec, 0x100, NIC_QPS_RTS, 0, 1, FIRST_PSN + 9);
    expect("requester's next PSN not on its WQEs", rec, -1);

    qp(rec, 0x100, NIC_QPS_RTS, 1, 2, FIRST_PSN + 4);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_HEAD_DONE, 2);
    expect("requester's oldest WQE a READ, 2 of 4 response packets in", rec, READ);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_HEAD_DONE, 0);
    expect("requester's READ sent, no response packet yet", rec, IDLE);
    qp(rec, 0x100, NIC_QPS_RTS, 0, 1, FIRST_PSN + 8);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_HEAD_DONE, 2);
    expect("requester's oldest WQE a WRITE with 2 packets acknowledged", rec, IDLE);

    qp(rec, 0x100, NIC_QPS_RTS, 0, 0, FIRST_PSN);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_CLASS, MIG_POS_SEND);
    expect("responder inside an incoming SEND", rec, MID);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_CLASS, MIG_POS_WRITE);
    expect("responder inside an incoming WRITE", rec, MID);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_CLASS, MIG_POS_READ_RESP);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_POS_LEFT, 2048);
    expect("responder with a READ queued, its FIRST not sent", rec, IDLE);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_RD_STARTED, 1);
    expect("responder inside a READ response", rec, READ);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_STATE, NIC_QPS_RTR);
    expect("responder in RTR inside a READ response", rec, READ | SETUP);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_STATE, NIC_QPS_RTS);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_UNA, 0);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_SQ_HI, 1);
    mig_record_set_field(MIG_TABLE_QP, rec, MIG_QPF_NEXT_PSN, FIRST_PSN + 5);
    expect("requester mid-WRITE and responder inside a READ response", rec, MID | READ);

    /* the image: a QP block of the first pass (QPs 0x100 idle, 0x101 mid-WRITE), then a later
     * pass's block: 0x101 at a boundary now, 0x102 in INIT; then a block with 0x100 destroyed */
    uint8_t blk[MIG_BLOCK_SIZE] = {0};
    mig_points_image_t im = {0};
    unsigned counts[MIG_POINTS] = {0};
    struct mig_resp r;
    blk[MIG_BH_KIND] = MIG_BLK_QP;
    blk[MIG_BH_RECORDS] = 2;
    qp(blk + MIG_BH_BYTES, 0x100, NIC_QPS_RTS, 0, 0, FIRST_PSN);
    qp(blk + MIG_BH_BYTES + MIG_QP_RECORD_BYTES, 0x101, NIC_QPS_RTS, 0, 1, FIRST_PSN + 3);
    mig_points_take_block(&im, blk);
    qp(blk + MIG_BH_BYTES, 0x101, NIC_QPS_RTS, 0, 1, FIRST_PSN + 8);
    qp(blk + MIG_BH_BYTES + MIG_QP_RECORD_BYTES, 0x102, NIC_QPS_INIT, 0, 0, 0);
    mig_points_take_block(&im, blk);
    blk[MIG_BH_KIND] = MIG_BLK_CQ;   /* not QP records: ignored */
    mig_points_take_block(&im, blk);
    int rc = mig_points_count(&im, &host, counts, &r);
    bool ok = rc == 0 && counts[MIG_POINT_MID_MESSAGE] == 0 && counts[MIG_POINT_SETUP] == 1 && counts[MIG_POINT_IDLE] == 2;
    printf("%s migration/points image: the newest record of each QP counts (mid-message %u, setup %u, idle %u; want 0, 1, 2)\n",
           ok ? "PASS" : "FAIL", counts[MIG_POINT_MID_MESSAGE], counts[MIG_POINT_SETUP], counts[MIG_POINT_IDLE]);
    failures += !ok;
    blk[MIG_BH_KIND] = MIG_BLK_QP;
    blk[MIG_BH_RECORDS] = 1;
    memset(blk + MIG_BH_BYTES, 0, MIG_QP_RECORD_BYTES);   /* as save writes a destroyed row: VALID 0, keyed by slot */
    mig_record_set_field(MIG_TABLE_QP, blk + MIG_BH_BYTES, MIG_QPF_QPN, 0x100 % MIG_MAX_QP);
    mig_points_take_block(&im, blk);
    memset(counts, 0, sizeof counts);
    rc = mig_points_count(&im, &host, counts, &r);
    ok = rc == 0 && counts[MIG_POINT_SETUP] == 1 && counts[MIG_POINT_IDLE] == 1;
    printf("%s migration/points image: a destroyed QP's record removes it (setup %u, idle %u; want 1, 1)\n", ok ? "PASS" : "FAIL",
           counts[MIG_POINT_SETUP], counts[MIG_POINT_IDLE]);
    failures += !ok;
    return failures != 0;
}
