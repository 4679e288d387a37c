/* nic_modes_test — one harness, a model per NIC (nic_tb_config_t.mode NIC_TB_PER_NIC):
 *   1. bad configurations are refused, naming the NIC: a mode that does not exist, the RTL
 *      asked of a model given without one;
 *   2. three NICs on a switch, NIC 0 the C model, NIC 1 the RTL, NIC 2 both in lock-step: after
 *      each NIC's SET_FN, NIC 1's C state is still all zero (its C model never ran) while its
 *      RTL holds the function; NIC 0 has no RTL; the lock-step check covers NIC 2 alone: a bit
 *      flipped in NIC 1's unused C state is no mismatch, one flipped in NIC 2's is named;
 *   3. rtl_scramble_seed: a verilated NIC starts with random bits in its registers without
 *      reset (none of them all zero), different per NIC, and without the seed at zero; the
 *      seed asked of a model without rtl_scramble is refused.
 * Usage: nic_modes_test IFACE   (built with the RTL model: testbench/nic/tests/rtl-run) */
#include "../nic_tb.h"
#include "../../../rtl-gen/wrap/iface_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic_rtl.h"

void nic(const void *in, void *out, void *state);

static int failures;
static void check(bool ok, const char *name, const char *why) {
    if (ok) printf("PASS per-NIC models: %s\n", name);
    else { printf("FAIL per-NIC models: %s: %s\n", name, why); failures++; }
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

/* The register leaf NAME ("inst.st_x"), or NULL. */
static const ifc_leaf *reg_named(const ifc_t *f, const char *name) {
    for (unsigned k = 0; k < f->n_regs; k++)
        if (!strcmp(f->regs[k].name, name)) return &f->regs[k];
    return NULL;
}

static void refused(const nic_tb_model_t *m, const nic_tb_config_t *c, const char *name) {
    nic_tb_t *tb = nic_tb_new(m, c);
    check(tb == NULL, name, "nic_tb_new accepted it");
    nic_tb_free(tb);
}

/* Bytes of the registers without reset (iface "noreset" lines) that are not zero in NIC n's
 * RTL state, and a hash of them (so two NICs' random values can be told apart). */
static unsigned noreset_bytes(nic_tb_t *tb, unsigned n, uint64_t *hash) {
    const ifc_t *f = nic_tb_iface(tb);
    uint8_t *st = calloc(1, f->state_size);
    unsigned set = 0;
    *hash = 0;
    if (nic_tb_read_state(tb, n, st))
        for (unsigned k = 0; k < f->n_regs; k++)
            for (unsigned b = 0; f->regs[k].guard >= 0 && b < f->regs[k].size; b++) {
                uint8_t v = st[f->regs[k].offset + b];
                set += v != 0;
                *hash = *hash * 31 + v;
            }
    free(st);
    return set;
}

/* 3. the RTL's registers without reset start random with rtl_scramble_seed, zero without */
static void scramble_checks(const nic_tb_model_t *both) {
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = NIC_TB_RTL;
    c.rtl_scramble_seed = 5;
    nic_tb_model_t unscrambled = *both;
    unscrambled.rtl_scramble = NULL;
    refused(&unscrambled, &c, "rtl_scramble_seed on a model without rtl_scramble is refused");
    nic_tb_t *tb = nic_tb_new(both, &c);
    c.rtl_scramble_seed = 0;
    nic_tb_t *zero = nic_tb_new(both, &c);
    if (!tb || !zero) { check(false, "scrambled and plain RTL harnesses", "nic_tb_new refused them"); nic_tb_free(tb); nic_tb_free(zero); return; }
    uint64_t h0, h1, hz;
    unsigned n0 = noreset_bytes(tb, 0, &h0), n1 = noreset_bytes(tb, 1, &h1), nz = noreset_bytes(zero, 0, &hz);
    char why[160];
    snprintf(why, sizeof why, "bytes not zero: NIC 0 %u, NIC 1 %u (hashes %s), without the seed %u", n0, n1,
             h0 == h1 ? "equal" : "differ", nz);
    check(n0 && n1 && h0 != h1 && nz == 0,
          "rtl_scramble_seed: the registers without reset start random, per NIC, and at zero without it", why);
    nic_tb_free(tb);
    nic_tb_free(zero);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: nic_modes_test IFACE\n"); return 2; }
    const nic_tb_model_t c_only = {.iface = argv[1], .c_step = nic};
    const nic_tb_model_t both = {.iface = argv[1], .c_step = nic, NIC_TB_RTL_FNS(nic)};
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.nics = 3;
    c.use_switch = true;
    c.mode = NIC_TB_PER_NIC;
    c.nic_mode[1] = (nic_tb_mode_t)7;
    refused(&both, &c, "NIC 1 in mode 7 is refused");
    c.nic_mode[1] = NIC_TB_PER_NIC;
    refused(&both, &c, "NIC 1 in mode per-NIC is refused");
    c.nic_mode[1] = NIC_TB_RTL;
    refused(&c_only, &c, "NIC 1 on the RTL of a model without one is refused");
    c.mode = (nic_tb_mode_t)9;
    refused(&both, &c, "config mode 9 is refused");

    c.mode = NIC_TB_PER_NIC;
    c.nic_mode[0] = NIC_TB_C;
    c.nic_mode[2] = NIC_TB_LOCKSTEP;
    nic_tb_t *tb = nic_tb_new(&both, &c);
    if (!tb) { printf("FAIL per-NIC models: harness: cannot build C, RTL and lock-step NICs from %s\n", argv[1]); return 1; }
    const ifc_t *f = nic_tb_iface(tb);
    char why[512];
    bool set = true;
    for (unsigned n = 0; n < 3; n++) set &= nic_tb_set_fn(tb, n, (nic_fn_t)n, 0x020000000a01ull + n, 0x0a000001u + n) == NIC_CMD_OK;
    nic_tb_run(tb, 100);
    snprintf(why, sizeof why, "modes %s, %s, %s", nic_tb_mode_name(nic_tb_mode(tb, 0)), nic_tb_mode_name(nic_tb_mode(tb, 1)),
             nic_tb_mode_name(nic_tb_mode(tb, 2)));
    check(set && nic_tb_mode(tb, 0) == NIC_TB_C && nic_tb_mode(tb, 1) == NIC_TB_RTL && nic_tb_mode(tb, 2) == NIC_TB_LOCKSTEP,
          "NICs 0, 1, 2 run the C model, the RTL, lock-step and each answers SET_FN", why);
    check(!nic_tb_rtl(tb, 0) && nic_tb_rtl(tb, 1) && nic_tb_rtl(tb, 2), "only NICs 1 and 2 have a verilated model",
          "a verilated model where none was asked, or none where one was");
    uint8_t *rtl_state = calloc(1, f->state_size);
    bool read = nic_tb_read_state(tb, 1, rtl_state);
    check(read && !all_zero(rtl_state, f->state_size) && all_zero(nic_tb_c_state(tb, 1), f->state_size),
          "NIC 1's RTL holds its function while its C model never ran (C state all zero)",
          read ? "the C state was written or the RTL's is empty" : "the RTL's state cannot be read");
    check(!all_zero(nic_tb_c_state(tb, 0), f->state_size), "NIC 0's C model ran", "its C state is all zero");
    free(rtl_state);

    const ifc_leaf *hidden = reg_named(f, "ctrl.st_cmd_qp_dst_mac");
    if (!hidden) { printf("FAIL per-NIC models: no register ctrl.st_cmd_qp_dst_mac in %s\n", argv[1]); return 1; }
    nic_tb_c_state(tb, 1)[hidden->offset + 2] ^= 0x80;
    nic_tb_run(tb, 20);
    bool equal = nic_tb_compare_state(tb);
    check(equal && !nic_tb_mismatch(tb), "NIC 2 in lock-step agrees; NIC 1's unused C state is not compared",
          nic_tb_mismatch(tb) ? nic_tb_mismatch(tb) : "compare_state false");
    nic_tb_c_state(tb, 2)[hidden->offset + 2] ^= 0x80;
    equal = nic_tb_compare_state(tb);
    const char *mm = nic_tb_mismatch(tb);
    snprintf(why, sizeof why, "flipped bit 23 of %s of NIC 2's C model; compare_state %s, mismatch: %s", hidden->name,
             equal ? "true" : "false", mm ? mm : "none");
    check(!equal && mm && strstr(mm, "nic 2: register ctrl.st_cmd_qp_dst_mac"), "a register flipped in NIC 2's C model is named", why);
    nic_tb_free(tb);
    scramble_checks(&both);
    return failures ? 1 : 0;
}
