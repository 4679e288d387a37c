/* hal_test.c — the simulator HAL (mig_hal_tb) and the nic_tb migration helpers on the composed
 * NIC's C model: three NICs on a learning switch (A = 0 source, B = 1 peer, A' = 2
 * destination). What the NIC answers today is checked through the HAL and through the
 * firmware itself (docs/migration.md, "The simulator HAL"):
 *   - the firmware's layout table reads ctrl's, cq_writer's and rx_dispatch's rows of a CQ, an
 *     MR and the function as the commands created them (mig_layout.h = the hardware);
 *   - a context write of a running function is refused (ESTATE, F_LEVEL) and named;
 *   - dirty bits of CQ and MR rows: set by the create commands, cleared by the read;
 *   - THROTTLE answered; host DMA moves the bytes and costs exactly the documented cycles;
 *   - PreCopy-Start and a full save pass of a function with CQs and MRs through the firmware:
 *     every record in the image blocks is the row the NIC holds;
 *   - announce: a gratuitous ARP tshark decodes as one; the switch moves A's MAC to A's port
 *     and then, after A is removed and A' announces, to A' (frames to a removed NIC dropped);
 *   - nic_tb_move_host: A's memory (with guards) and driver state reach A'.
 * usage: hal_test NIC.iface PCAP       prints PASS/FAIL lines; exit 1 on any failure */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mig_fw.h"
#include "mig_image.h"
#include "mig_record.h"
#include "../mig_hal_tb.h"

void nic(const void *in, void *out, void *state);

static int failures;
static void check(bool ok, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(bool ok, const char *what, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("%s migration/hal %s: %s\n", ok ? "PASS" : "FAIL", what, buf);
    failures += !ok;
}

enum { A = 0, B = 1, A2 = 2, FN = 0 };
static const uint64_t MAC_A = 0x020000000a01ull, MAC_B = 0x020000000b02ull;
static const uint32_t IP_A = 0x0a000001, IP_B = 0x0a000002;
#define CQN 0x21u              /* slot 1 */
#define CQ_BASE 0x100000ull
#define MR_KEY 0x0207u         /* slot 2 */
#define MR_BASE 0x20001234ull
#define IMG 0x800000ull        /* the PF driver's image buffer in A's host memory */

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: hal_test NIC.iface PCAP\n"); return 2; }
    nic_tb_model_t m = {.iface = argv[1], .c_step = nic};
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.nics = 3;
    c.use_switch = true;
    c.wire.pcap_sent = argv[2];
    nic_tb_t *tb = nic_tb_new(&m, &c);
    if (!tb) return 1;
    bool ok = !nic_tb_set_fn(tb, A, FN, MAC_A, IP_A) && !nic_tb_set_fn(tb, B, FN, MAC_B, IP_B) &&
              !nic_tb_create_cq(tb, A, FN, CQN, CQ_BASE, 6) &&
              !nic_tb_reg_mr(tb, A, FN, MR_KEY, MR_BASE, 0x5000, 0x33, NIC_ACC_REMOTE_READ | NIC_ACC_LOCAL_WRITE);
    check(ok, "set-up", "SET_FN on A and B, CQ 0x%x and MR 0x%x on A", CQN, MR_KEY);

    struct mig_hal_tb h;
    struct mig_hal hal = mig_hal_tb(&h, tb, A);
    /* the requester's and completer's sections are not answered yet */
    h.unserved = 1u << NIC_CTX_REQ_QP | 1u << NIC_CTX_COMP_QP;
    static struct mig_fw fw;
    struct mig_resp resp;
    int rc = mig_fw_init(&fw, &hal, &resp);
    check(rc == MIG_OK, "caps", "firmware init accepts the NIC's capabilities (rc %d reason %d value %llu)", rc,
          resp.reason, (unsigned long long)resp.value[0]);

    /* rows through the firmware's own layout table */
    mig_row_t row;
    uint64_t t0 = nic_tb_now(tb), cmds0 = h.commands;
    rc = mig_row_read(&fw, MIG_TABLE_CQ, FN, CQN % 16, row, &resp);
    check(rc == MIG_OK && mig_row_field(MIG_TABLE_CQ, row, MIG_CQF_VALID) == 1 &&
              mig_row_field(MIG_TABLE_CQ, row, MIG_CQF_CQN) == CQN && mig_row_field(MIG_TABLE_CQ, row, MIG_CQF_BASE) == CQ_BASE &&
              mig_row_field(MIG_TABLE_CQ, row, MIG_CQF_LOG) == 6 && mig_row_field(MIG_TABLE_CQ, row, MIG_CQF_PI) == 0 &&
              mig_words_get(row[MIG_SEC_CQ_CQW], NIC_CTX_CQW_CQN, 32) == CQN &&
              mig_words_get(row[MIG_SEC_CQ_CQW], NIC_CTX_CQW_BASE, 64) == CQ_BASE,
          "ctx-read CQ", "ctrl's and cq_writer's rows of CQ 0x%x at mig_layout.h's positions (%u commands, %llu cycles)", CQN,
          (unsigned)(h.commands - cmds0), (unsigned long long)(nic_tb_now(tb) - t0));
    rc = mig_row_read(&fw, MIG_TABLE_MR, FN, 2, row, &resp);
    check(rc == MIG_OK && mig_row_field(MIG_TABLE_MR, row, MIG_MRF_KEY) == MR_KEY &&
              mig_row_field(MIG_TABLE_MR, row, MIG_MRF_BASE) == MR_BASE && mig_row_field(MIG_TABLE_MR, row, MIG_MRF_LEN) == 0x5000 &&
              mig_row_field(MIG_TABLE_MR, row, MIG_MRF_PD) == 0x33 && mig_row_field(MIG_TABLE_MR, row, MIG_MRF_VALID) == 1 &&
              mig_row_field(MIG_TABLE_MR, row, MIG_MRF_ACCESS) == (NIC_ACC_REMOTE_READ | NIC_ACC_LOCAL_WRITE),
          "ctx-read MR", "key, base, len, PD, access, valid of MR 0x%x", MR_KEY);
    rc = mig_row_read(&fw, MIG_TABLE_FN, FN, 0, row, &resp);
    check(rc == MIG_OK && mig_row_field(MIG_TABLE_FN, row, MIG_FNF_MAC) == MAC_A &&
              mig_row_field(MIG_TABLE_FN, row, MIG_FNF_IP) == IP_A && mig_row_field(MIG_TABLE_FN, row, MIG_FNF_VALID) == 1,
          "ctx-read FN", "rx_dispatch's MAC, IP and valid of the function");
    rc = mig_row_read(&fw, MIG_TABLE_QP, FN, 0, row, &resp);
    check(rc == MIG_E_NO_OP && resp.reason == MIG_R_HAL && resp.value[0] == MIG_HAL_OP_CTX_READ, "unserved",
          "a section marked unserved is refused before any command (rc %d)", rc);

    /* the responder's row of a QP in RTS: EPSN is the rq_psn MODIFY_QP set */
    nic_tb_qp_t q = {.qpn = 0x45, .sq_base = 0x200000, .rq_base = 0x210000, .sq_log = 4, .rq_log = 4,
                     .send_cqn = CQN, .recv_cqn = CQN, .pd = 0x33, .access = NIC_ACC_REMOTE_WRITE};
    bool qp_ok = !nic_tb_create_qp(tb, A, FN, &q) &&
                 !nic_tb_modify_qp_rts(tb, A, FN, 0x45, 0x99, MAC_B, IP_B, 0x1000, 0x4242, 3);
    memset(row, 0, sizeof row);
    qp_ok &= hal.ops->ctx_read(hal.hw, MIG_TABLE_QP, MIG_SEC_QP_RESP, FN, 0x45 % 16, row[MIG_SEC_QP_RESP],
                               fw.caps.words[MIG_TABLE_QP][MIG_SEC_QP_RESP]) == MIG_OK &&
             hal.ops->ctx_read(hal.hw, MIG_TABLE_QP, MIG_SEC_QP_CTRL, FN, 0x45 % 16, row[MIG_SEC_QP_CTRL],
                               fw.caps.words[MIG_TABLE_QP][MIG_SEC_QP_CTRL]) == MIG_OK;
    check(qp_ok && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_EPSN) == 0x4242 &&
              mig_row_field(MIG_TABLE_QP, row, MIG_QPF_MSN) == 0 && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_POS_CLASS) == MIG_POS_NONE &&
              mig_row_field(MIG_TABLE_QP, row, MIG_QPF_QPN) == 0x45 && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_DEST_QPN) == 0x99 &&
              mig_row_field(MIG_TABLE_QP, row, MIG_QPF_STATE) == NIC_QPS_RTS && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_PMTU) == 3 &&
              mig_row_field(MIG_TABLE_QP, row, MIG_QPF_DST_MAC) == MAC_B && mig_row_field(MIG_TABLE_QP, row, MIG_QPF_PORT_NUM) == 1,
          "ctx-read QP", "ctrl's row (qpn, dest qpn, state, pmtu, MAC, port) and the responder's (EPSN = rq_psn 0x4242, MSN 0, no open message) of QP 0x45");

    /* a write needs PASSIVE */
    mig_row_read(&fw, MIG_TABLE_CQ, FN, CQN % 16, row, &resp);
    rc = mig_row_write(&fw, MIG_TABLE_CQ, FN, CQN % 16, row, &resp);
    check(rc == MIG_E_HW && h.last_op == NIC_CMD_CTX_WRITE && h.last_status == NIC_CMD_ESTATE &&
              h.last_field == NIC_CMD_F_LEVEL,
          "ctx-write refused", "writing a running function's row: MIG_E_HW, NIC said op %u status %u field %u", h.last_op,
          h.last_status, h.last_field);

    /* dirty bits: the create commands wrote CQ slot 1 and MR slot 2 */
    uint32_t bm[MIG_BITMAP_WORDS];
    bool dirty_ok = hal.ops->dirty_read_clear(hal.hw, FN, MIG_TABLE_CQ, bm, MIG_BITMAP_WORDS) == MIG_OK && bm[0] == 1u << 1;
    dirty_ok &= hal.ops->dirty_read_clear(hal.hw, FN, MIG_TABLE_MR, bm, MIG_BITMAP_WORDS) == MIG_OK && bm[0] == 1u << 2 && !bm[1];
    dirty_ok &= hal.ops->dirty_read_clear(hal.hw, FN, MIG_TABLE_CQ, bm, MIG_BITMAP_WORDS) == MIG_OK && !bm[0];
    nic_tb_create_cq(tb, A, FN, 0x33, CQ_BASE + 0x10000, 4); /* slot 3 */
    dirty_ok &= hal.ops->dirty_read_clear(hal.hw, FN, MIG_TABLE_CQ, bm, MIG_BITMAP_WORDS) == MIG_OK && bm[0] == 1u << 3;
    check(dirty_ok, "dirty", "CQ slot 1 and MR slot 2 dirty after their create, clear after the read, CQ slot 3 after its create");

    check(hal.ops->throttle_set(hal.hw, FN, 4096) == MIG_OK && hal.ops->throttle_set(hal.hw, FN, 0) == MIG_OK, "throttle",
          "NIC_CMD_THROTTLE 4096 B / 1024 cycles and off answered");

    /* host DMA: bytes and cycles */
    uint8_t out[1000], in[1000];
    for (unsigned i = 0; i < sizeof out; i++) out[i] = (uint8_t)(i * 7 + 3);
    uint64_t p0 = h.port_cycles, n0 = nic_tb_now(tb);
    bool dma_ok = hal.ops->host_write(hal.hw, IMG, out, sizeof out) == MIG_OK && h.port_cycles - p0 == 16 &&
                  nic_tb_now(tb) - n0 == 16;
    p0 = h.port_cycles;
    uint32_t lat = c.mem.read_latency ? c.mem.read_latency : 1;
    dma_ok &= hal.ops->host_read(hal.hw, IMG, in, sizeof in) == MIG_OK && h.port_cycles - p0 == lat + 16 &&
              !memcmp(in, out, sizeof in);
    check(dma_ok, "host dma", "1000 bytes written (16 cycles, posted beats) and read back (%u + 16 cycles)", lat);

    /* the firmware: PreCopy-Start, then a full save pass of the function (2 CQ, 1 MR, no QP) */
    struct mig_cmd cmd = {.opcode = MIG_CMD_PRECOPY_START, .fn = FN};
    mig_fw_command(&fw, &cmd, &resp);
    check(resp.status == MIG_OK && resp.state == MIG_ST_PRECOPY, "precopy-start", "status %u state %u", resp.status, resp.state);
    /* the QP cannot be saved yet (the requester's section): destroy it; the CQ keeps the
     * references it had, which the image carries */
    nic_cmd_t dq = {.op = NIC_CMD_DESTROY_QP, .fn = FN, .num = 0x45};
    check(nic_tb_cmd(tb, A, &dq, NULL) == NIC_CMD_OK, "destroy-qp", "QP 0x45 destroyed before the save");
    unsigned blocks = 0, cq_recs = 0, mr_recs = 0, fn_recs = 0;
    bool recs_ok = true;
    uint64_t fw0 = h.fw_cycles, pc0 = h.port_cycles, s0 = nic_tb_now(tb);
    for (unsigned k = 0; k < 64; k++) {
        cmd = (struct mig_cmd){.opcode = MIG_CMD_IMAGE_SAVE, .fn = FN, .host_addr = IMG + 512u * k};
        mig_fw_command(&fw, &cmd, &resp);
        if (resp.status != MIG_OK) { recs_ok = false; break; }
        blocks++;
        uint8_t b[MIG_BLOCK_SIZE];
        hostmem_read(nic_tb_mem(tb, A), IMG + 512u * k, b, sizeof b);
        unsigned kind = b[MIG_BH_KIND], n = b[MIG_BH_RECORDS];
        const uint8_t *p = b + MIG_BH_BYTES;
        for (unsigned i = 0; i < n; i++) {
            if (kind == MIG_BLK_CQ) {
                const uint8_t *r = p + i * MIG_CQ_RECORD_BYTES;
                uint64_t cqn = mig_record_field(MIG_TABLE_CQ, r, MIG_CQF_CQN);
                recs_ok &= (cqn == CQN && mig_record_field(MIG_TABLE_CQ, r, MIG_CQF_BASE) == CQ_BASE) ||
                           (cqn == 0x33 && mig_record_field(MIG_TABLE_CQ, r, MIG_CQF_LOG) == 4);
                cq_recs++;
            } else if (kind == MIG_BLK_MR) {
                recs_ok &= mig_record_field(MIG_TABLE_MR, p + i * MIG_MR_RECORD_BYTES, MIG_MRF_KEY) == MR_KEY;
                mr_recs++;
            } else if (kind == MIG_BLK_FN) {
                recs_ok &= mig_record_field(MIG_TABLE_FN, p, MIG_FNF_MAC) == MAC_A;
                fn_recs++;
            } else if (kind == MIG_BLK_QP) recs_ok = false;
        }
        if (resp.answer == MIG_SAVE_PASS_END) break;
    }
    check(recs_ok && resp.answer == MIG_SAVE_PASS_END && cq_recs == 2 && mr_recs == 1 && fn_recs == 1, "save pass",
          "%u blocks, records FN %u CQ %u MR %u equal to the NIC's rows; %llu cycles (firmware %llu, ports %llu)", blocks,
          fn_recs, cq_recs, mr_recs, (unsigned long long)(nic_tb_now(tb) - s0), (unsigned long long)(h.fw_cycles - fw0),
          (unsigned long long)(h.port_cycles - pc0));
    cmd = (struct mig_cmd){.opcode = MIG_CMD_PRECOPY_STOP, .fn = FN};
    mig_fw_command(&fw, &cmd, &resp);
    check(resp.status == MIG_OK && resp.state == MIG_ST_RUNNING, "precopy-stop", "status %u", resp.status);

    /* announce and the switch: A's MAC first on A's port, then on A''s */
    uint8_t f[64] = {0};
    for (int i = 0; i < 6; i++) f[i] = (uint8_t)(MAC_A >> (40 - 8 * i)), f[6 + i] = (uint8_t)(MAC_B >> (40 - 8 * i));
    f[12] = 0x88, f[13] = 0xb5; /* local experimental ethertype: no block takes it */
    bool sw_ok = hal.ops->announce(hal.hw, FN) == MIG_OK && h.announces == 1;
    nic_tb_run(tb, 200);
    uint64_t ra = nic_tb_frames_received(tb, A), ra2 = nic_tb_frames_received(tb, A2);
    sw_ok &= nic_tb_send_frame(tb, B, f, 60) == WIRE_OK;
    nic_tb_run(tb, 200);
    sw_ok &= nic_tb_frames_received(tb, A) == ra + 1 && nic_tb_frames_received(tb, A2) == ra2;
    nic_tb_detach(tb, A);
    nic_tb_send_frame(tb, B, f, 60);
    nic_tb_run(tb, 200);
    sw_ok &= nic_tb_frames_dropped_detached(tb, A) == 1 && nic_tb_frames_received(tb, A2) == ra2 && !nic_tb_attached(tb, A);
    sw_ok &= !nic_tb_set_fn(tb, A2, FN, MAC_A, IP_A);
    struct mig_hal_tb h2;
    struct mig_hal hal2 = mig_hal_tb(&h2, tb, A2);
    sw_ok &= hal2.ops->announce(hal2.hw, FN) == MIG_OK;
    nic_tb_run(tb, 200);
    sw_ok &= nic_tb_frames_dropped_detached(tb, A) == 2; /* the broadcast reached A's silent port too */
    nic_tb_send_frame(tb, B, f, 60);
    nic_tb_run(tb, 200);
    sw_ok &= nic_tb_frames_received(tb, A2) == ra2 + 1 && nic_tb_frames_dropped_detached(tb, A) == 2;
    printf("info migration/hal announce: A received %llu -> %llu, dropped at A %llu, A' received %llu -> %llu\n",
           (unsigned long long)ra, (unsigned long long)nic_tb_frames_received(tb, A),
           (unsigned long long)nic_tb_frames_dropped_detached(tb, A), (unsigned long long)ra2,
           (unsigned long long)nic_tb_frames_received(tb, A2));
    check(sw_ok, "announce", "B's frame to A's MAC reaches A, is dropped once A is removed, reaches A' after its gratuitous ARP");

    /* a wire full of B's 1500-byte frames (to A', which ignores their ethertype; each takes
     * B's port 24 cycles, longer than the announce's row read): the announce waits for a
     * free slot instead of failing */
    static uint8_t big[1500];
    memcpy(big, f, sizeof f);
    unsigned filled = 0;
    while (filled < 100000 && nic_tb_send_frame(tb, B, big, sizeof big) == WIRE_OK) filled++;
    bool full = nic_tb_send_frame(tb, B, big, sizeof big) == WIRE_ERR_POOL_FULL;
    uint64_t t_full = nic_tb_now(tb);
    bool full_ok = full && hal2.ops->announce(hal2.hw, FN) == MIG_OK && h2.announces == 2;
    check(full_ok, "announce on a full wire", "%u frames filled the wire; the announce waited %llu cycles for a slot",
          filled, (unsigned long long)(nic_tb_now(tb) - t_full));
    nic_tb_run(tb, 20000);

    /* the VM's memory and driver state move */
    hostmem_guard_fill(nic_tb_mem(tb, A), 0x300000, 4096, 99);
    hostmem_write(nic_tb_mem(tb, A), 0x300100, "payload", 7);
    bool mv = nic_tb_move_host(tb, A, A2, FN) == 0 && hostmem_diff(nic_tb_mem(tb, A), nic_tb_mem(tb, A2), NULL, 0) == 0;
    size_t gd = hostmem_guard_check(nic_tb_mem(tb, A2), NULL, 0), ga = hostmem_guard_check(nic_tb_mem(tb, A), NULL, 0);
    nic_cqe_t cqe;
    mv &= gd == ga && gd > 0 && nic_tb_poll_cq(tb, A2, FN, CQN, &cqe) == 0; /* ring copied: nothing valid */
    check(mv, "move-host", "A' holds every byte of A's memory and its guard regions (%zu changed guard bytes seen on both)", gd);

    nic_tb_free(tb);
    printf("%s migration/hal: %d failed\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
