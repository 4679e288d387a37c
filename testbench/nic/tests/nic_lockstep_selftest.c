/* nic_lockstep_selftest — the lock-step checker itself can fail: two whole NICs (nic.net) in
 * NIC_TB_LOCKSTEP after their SET_FN commands, then one bit of one register of NIC 1's C model
 * state is flipped (the RTL keeps the right value):
 *   1. outputs only (regs_check_every 0): a flipped counter that is also an output port
 *      (req_packets_sent) is a mismatch on the next cycle, naming NIC 1 and the port;
 *   2. with register checks every 16 cycles, a flipped register that is no output
 *      (ctrl's latched command) is named within 16 cycles;
 *   3. a flipped memory cell (a responder table row nobody reads while idle) is named by
 *      nic_tb_compare_state (the whole state, memory cells included);
 *   4. a flipped FIFO entry is no mismatch while the entry is not live (the RTL's entries start
 *      scrambled), and is named (FIFO, entry, byte) while it is live.
 * Usage: nic_lockstep_selftest IFACE   (built with the RTL model: testbench/nic/tests/rtl-run) */
#include "../nic_tb.h"
#include "../../../rtl-gen/wrap/iface_read.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nic_rtl.h"

void nic(const void *in, void *out, void *state);

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS %s\n", name);
    else { printf("FAIL %s: %s\n", name, why); failures++; }
}

/* A register leaf whose name ends in `suffix` (e.g. "st_cnt_ok"), or NULL. */
static const ifc_leaf *find_reg(const ifc_t *f, const char *suffix) {
    size_t ns = strlen(suffix);
    for (unsigned k = 0; k < f->n_regs; k++) {
        size_t n = strlen(f->regs[k].name);
        if (n >= ns && !strcmp(f->regs[k].name + n - ns, suffix)) return &f->regs[k];
    }
    return NULL;
}

/* Two NICs set up to talk (functions 0/1, one QP each), some cycles run; NULL on failure. */
static nic_tb_t *start(const char *iface, unsigned regs_every) {
    nic_tb_model_t m = {.iface = iface, .c_step = nic, NIC_TB_RTL_FNS(nic)};
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = NIC_TB_LOCKSTEP;
    c.regs_check_every = regs_every;
    nic_tb_t *tb = nic_tb_new(&m, &c);
    if (!tb) return NULL;
    for (unsigned n = 0; n < 2; n++)
        if (nic_tb_set_fn(tb, n, (nic_fn_t)n, 0x020000000a01ull + n, 0x0a000001u + n) != NIC_CMD_OK) {
            nic_tb_free(tb);
            return NULL;
        }
    nic_tb_run(tb, 200);
    return tb;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: nic_lockstep_selftest IFACE\n"); return 2; }
    ifc_t *f = ifc_read(argv[1]);
    if (!f) { printf("FAIL lockstep selftest: cannot read %s\n", argv[1]); return 1; }
    char why[512];

    /* 1. a counter that is also an output port: the requester's packets_sent */
    const ifc_leaf *r = find_reg(f, "req.st_packets_sent");
    int out = -1;
    for (unsigned k = 0; k < f->n_out; k++)
        if (!strcmp(f->out[k].name, "req_packets_sent")) out = (int)k;
    snprintf(why, sizeof why, "no register req.st_packets_sent or output req_packets_sent in %s", argv[1]);
    check(r && out >= 0, "lockstep selftest: the interface has req.st_packets_sent and the output req_packets_sent", why);
    nic_tb_t *tb;
    if (r && out >= 0 && (tb = start(argv[1], 0))) {
        uint64_t at = nic_tb_now(tb);
        nic_tb_c_state(tb, 1)[r->offset] ^= 1;
        nic_tb_run(tb, 40);
        const char *mm = nic_tb_mismatch(tb);
        unsigned long long cyc = ~0ull;
        if (mm) sscanf(mm, "cycle %llu", &cyc);
        snprintf(why, sizeof why, "flipped bit 0 of %s of NIC 1's C model before cycle %" PRIu64 "; mismatch: %s", r->name,
                 at, mm ? mm : "none");
        check(mm && strstr(mm, "nic 1: out req_packets_sent") && cyc == at,
              "lockstep selftest: outputs only: a flipped counter is an output mismatch on the next cycle, naming NIC 1 and the port",
              why);
        nic_tb_free(tb);
    }
    /* 2. a register that is no output and that nothing rewrites while idle: ctrl's latched
     * command (the last command's destination MAC); only the register check can see it */
    const ifc_leaf *hidden = find_reg(f, "ctrl.st_cmd_qp_dst_mac");
    snprintf(why, sizeof why, "no register ctrl.st_cmd_qp_dst_mac in %s", argv[1]);
    check(hidden != NULL, "lockstep selftest: the interface has ctrl.st_cmd_qp_dst_mac", why);
    if (hidden && (tb = start(argv[1], 16))) {
        check(!nic_tb_mismatch(tb), "lockstep selftest: the set-up agrees, registers compared every 16 cycles",
              nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "");
        uint64_t at = nic_tb_now(tb);
        nic_tb_c_state(tb, 1)[hidden->offset + 2] ^= 0x80;
        nic_tb_run(tb, 40);
        const char *mm = nic_tb_mismatch(tb);
        unsigned long long cyc = ~0ull;
        if (mm) sscanf(mm, "cycle %llu", &cyc);
        snprintf(why, sizeof why, "flipped bit 23 of %s of NIC 1's C model before cycle %" PRIu64 "; mismatch: %s",
                 hidden->name, at, mm ? mm : "none");
        check(mm && strstr(mm, "nic 1: register ctrl.st_cmd_qp_dst_mac") && cyc >= at && cyc < at + 16,
              "lockstep selftest: a flipped internal register is named by the register check within 16 cycles", why);
        nic_tb_free(tb);
    }
    /* 3. a memory cell nothing reads while idle (a QP context row of the responder): only the
     * whole-state compare at the end sees it, and names the memory and the cell */
    const ifc_mem *mem = NULL;
    for (unsigned k = 0; k < f->n_mems && !mem; k++)
        if (!strncmp(f->mems[k].name, "resp.", 5) && f->mems[k].depth >= 64) mem = &f->mems[k];
    check(mem != NULL, "lockstep selftest: the interface has a responder memory of 64+ cells", "none found");
    if (mem && (tb = start(argv[1], 16))) {
        check(nic_tb_compare_state(tb), "lockstep selftest: whole state (registers, every memory cell) equal after set-up",
              nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "");
        nic_tb_c_state(tb, 0)[mem->offset + mem->elem_size * (1 + 63)] ^= 0x10; /* cell 63, byte 0 */
        nic_tb_run(tb, 20);
        bool equal = nic_tb_compare_state(tb);
        const char *mm = nic_tb_mismatch(tb);
        char want[200];
        snprintf(want, sizeof want, "nic 0: memory %s cell 63 byte 0", mem->name);
        snprintf(why, sizeof why, "flipped bit 4 of cell 63 of %s of NIC 0's C model; compare_state %s, mismatch: %s",
                 mem->name, equal ? "true" : "false", mm ? mm : "none");
        check(!equal && mm && strstr(mm, want), "lockstep selftest: a flipped memory cell is named by the whole-state compare", why);
        nic_tb_free(tb);
    }
    /* 4. FIFO entries between blocks (the iface's fifo lines): the RTL's start scrambled and only
     * a live entry (pushed, not yet popped) holds data. A bit flipped in an entry that is not
     * live is no mismatch; one flipped in a live entry is, named by FIFO, entry and byte. A
     * SET_FN command fills the configuration FIFOs from ctrl to the blocks for a few cycles. */
    check(f->n_fifos > 0, "lockstep selftest: the interface has fifo lines", "none");
    if (f->n_fifos && (tb = start(argv[1], 1))) {
        const ifc_fifo *q = &f->fifos[0];
        unsigned dead = 0; /* an entry that is not live (after set-up the NICs are idle) */
        while (dead + 1 < q->depth && ifc_fifo_entry_live(f, q, nic_tb_c_state(tb, 0), dead)) dead++;
        nic_tb_c_state(tb, 0)[q->offset + q->entry_size * dead] ^= 0x01;
        nic_tb_run(tb, 20);
        bool equal = nic_tb_compare_state(tb);
        snprintf(why, sizeof why, "flipped bit 0 of entry %u of FIFO %s (not live) of NIC 0's C model; mismatch: %s",
                 dead, q->name, nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "none");
        check(equal && !nic_tb_mismatch(tb), "lockstep selftest: a flipped FIFO entry that is not live is no mismatch", why);
        nic_cmd_t cmd = {.op = NIC_CMD_SET_FN, .fn = 2, .mac = 0x020000000a09ull, .ip = 0x0a000009u};
        const ifc_fifo *live = NULL;
        unsigned entry = 0;
        if (nic_tb_push(tb, 0, "ctrl_cmd", &cmd, sizeof cmd) >= 0)
            for (unsigned c = 0; c < 300 && !live; c++) {
                nic_tb_step(tb);
                for (unsigned k = 0; k < f->n_fifos && !live; k++)
                    for (unsigned e = 0; e < f->fifos[k].depth && !live; e++)
                        if (ifc_fifo_entry_live(f, &f->fifos[k], nic_tb_c_state(tb, 0), e)) {
                            live = &f->fifos[k];
                            entry = e;
                        }
            }
        check(live != NULL, "lockstep selftest: a SET_FN command makes a FIFO entry live", "none within 300 cycles");
        if (live) {
            nic_tb_c_state(tb, 0)[live->offset + live->entry_size * entry] ^= 0x01;
            equal = nic_tb_compare_state(tb);
            const char *mm = nic_tb_mismatch(tb);
            char want[200];
            snprintf(want, sizeof want, "nic 0: FIFO %s entry %u byte 0", live->name, entry);
            snprintf(why, sizeof why, "flipped bit 0 of live entry %u of FIFO %s of NIC 0's C model; mismatch: %s",
                     entry, live->name, mm ? mm : "none");
            check(!equal && mm && strstr(mm, want), "lockstep selftest: a flipped live FIFO entry is named by the state compare", why);
        }
        nic_tb_free(tb);
    }
    ifc_free(f);
    return failures ? 1 : 0;
}
