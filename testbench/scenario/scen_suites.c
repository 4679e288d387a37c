/* scen_suites.c — the lossless scenarios: every RC operation at every MTU and size boundary,
 * 1 MiB messages, PSN wrap-around, 64 QPs over 4 functions, random mixes (docs/scenarios.md). */
#include "scen_suites.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool scen_has_rtl(void) {
#ifdef SCEN_RTL
    return true;
#else
    return false;
#endif
}

void scen_base_opts(const scen_args_t *a, scen_opts_t *o, const char *pcap) {
    memset(o, 0, sizeof *o);
    o->mode = a->mode;
    o->iface = a->iface;
    o->seed = a->seed;
    o->pcap = pcap;
    o->verbose = a->verbose;
    wire_config_default(&o->wire);
    o->quiet_checks = true;
}

void scen_finish_pcap(const char *name, const char *pcap) {
    if (!pcap) return;
    int n = scen_write_expect(pcap);
    char b[300];
    snprintf(b, sizeof b, "%s: wire pcap written (%d frames) with its tshark expectation", name, n);
    scen_check(n > 0, b, "cannot read back %s", pcap);
}

static const char *MODE_NAME[] = {"c", "rtl", "lockstep"};

static void lockstep_check(scen_t *s, const char *name) {
    if (nic_tb_mismatch(scen_tb(s)) || 1) {
        const char *m = nic_tb_mismatch(scen_tb(s));
        char b[300];
        snprintf(b, sizeof b, "%s: lock-step C model == RTL on every output every cycle", name);
        scen_check(!m, b, "%s", m ? m : "");
    }
}

/* Run s, check lock-step agreement, free, write the pcap's expectation. */
static int finish(scen_t *s, const char *name, const scen_args_t *a) {
    int f = scen_run(s, name);
    if (a->mode == NIC_TB_LOCKSTEP) lockstep_check(s, name);
    scen_free(s);
    scen_finish_pcap(name, a->pcap);
    return f;
}

/* ---- sizes: every operation at the size boundaries of one MTU, both directions ----------- */
static int sc_sizes(const scen_args_t *a, unsigned pmtu) {
    char name[64];
    snprintf(name, sizeof name, "sizes-mtu%u (%s)", 128u << pmtu, MODE_NAME[a->mode]);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.pmtu = pmtu;
    int e = scen_pair(s, 0, 0x11, 0x22, &q);
    if (e < 0) { scen_free(s); return 1; }
    uint32_t mtu = 128u << pmtu;
    const uint32_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 5, 777};
    const uint8_t ops[] = {NIC_WR_SEND, NIC_WR_SEND_IMM, NIC_WR_WRITE, NIC_WR_WRITE_IMM, NIC_WR_READ};
    for (unsigned side = 0; side < 2; side++) {
        for (unsigned k = 0; k < sizeof ops; k++)
            for (unsigned z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                scen_add_op(s, e + (int)side, ops[k], sizes[z], (z + k) % 3 != 1, z == 2 ? 0 : 17);
        for (unsigned k = 0; k < 3; k++) {
            scen_add_op(s, e + (int)side, NIC_WR_CAS, 8, true, 0);
            scen_add_op(s, e + (int)side, NIC_WR_FAA, 8, k != 1, 0);
        }
    }
    return finish(s, name, a);
}

/* ---- 1 MiB messages -------------------------------------------------------------------- */
static int sc_big(const scen_args_t *a, unsigned pmtu) {
    char name[64];
    snprintf(name, sizeof name, "big-mtu%u (%s)", 128u << pmtu, MODE_NAME[a->mode]);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    o.arena = 8u << 20;
    o.max_cycles = 2000000;
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.pmtu = pmtu;
    q.sq_psn[0] = 0xffffff - 300;   /* the 1 MiB messages cross the PSN wrap */
    int e = scen_pair(s, 0, 0x31, 0x42, &q);
    if (e < 0) { scen_free(s); return 1; }
    const uint8_t ops[] = {NIC_WR_WRITE_IMM, NIC_WR_READ, NIC_WR_SEND_IMM, NIC_WR_WRITE, NIC_WR_SEND};
    for (unsigned k = 0; k < sizeof ops; k++) scen_add_op(s, e, ops[k], 1u << 20, true, 3);
    scen_add_op(s, e + 1, NIC_WR_READ, (1u << 20) - 1, true, 0);
    return finish(s, name, a);
}

/* ---- PSN wrap-around: both directions start just below 2^24 ------------------------------ */
static int sc_psnwrap(const scen_args_t *a) {
    char name[64];
    snprintf(name, sizeof name, "psnwrap (%s)", MODE_NAME[a->mode]);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    scen_qp_opts_t q;
    scen_qp_opts_default(&q);
    q.pmtu = 1;                       /* 256: many PSNs per message */
    q.sq_psn[0] = 0xfffff0;
    q.sq_psn[1] = 0xffffff;
    int e = scen_pair(s, 0, 0x15, 0x26, &q);
    if (e < 0) { scen_free(s); return 1; }
    for (unsigned side = 0; side < 2; side++)
        for (unsigned i = 0; i < 40; i++) scen_add_random(s, e + (int)side, 0x7f, 3000);
    return finish(s, name, a);
}

/* ---- 64 QPs: 4 functions x 16 QPs on each NIC, random MTU and mixed traffic --------------- */
static int sc_qps64(const scen_args_t *a, unsigned per_fn, unsigned fns, unsigned nops) {
    char name[64];
    snprintf(name, sizeof name, "qps%u (%s, seed %" PRIu64 ")", per_fn * fns, MODE_NAME[a->mode], a->seed);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    o.arena = 8u << 20;
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    int eps[64];
    for (unsigned f = 0; f < fns; f++)
        for (unsigned k = 0; k < per_fn; k++) {
            scen_qp_opts_t q;
            scen_qp_opts_default(&q);
            q.pmtu = 1 + (unsigned)prng_below(scen_rng(s), 5);
            q.sq_psn[0] = (uint32_t)prng_below(scen_rng(s), 1u << 24);
            q.sq_psn[1] = (uint32_t)prng_below(scen_rng(s), 1u << 24);
            /* qpns differ between the NICs and are not the row numbers */
            int e = scen_pair(s, (nic_fn_t)f, 0x100 + 16 * f + k, 0x2300 + 16 * (3 - f) + k, &q);
            if (e < 0) { scen_free(s); return 1; }
            eps[f * per_fn + k] = e;
        }
    for (unsigned i = 0; i < nops; i++)
        for (unsigned p = 0; p < per_fn * fns; p++)
            for (unsigned side = 0; side < 2; side++) scen_add_random(s, eps[p] + (int)side, 0x7f, 6000);
    return finish(s, name, a);
}

/* ---- a random mix on a few QPs ----------------------------------------------------------- */
static int sc_mixed(const scen_args_t *a) {
    char name[64];
    snprintf(name, sizeof name, "mixed (%s, seed %" PRIu64 ")", MODE_NAME[a->mode], a->seed);
    scen_opts_t o;
    scen_base_opts(a, &o, a->pcap);
    scen_t *s = scen_new(&o);
    if (!s) return 1;
    int eps[4];
    for (unsigned k = 0; k < 4; k++) {
        scen_qp_opts_t q;
        scen_qp_opts_default(&q);
        q.pmtu = 1 + (unsigned)prng_below(scen_rng(s), 5);
        q.sq_log = 3 + k;             /* small rings wrap many times */
        q.rq_log = 2 + k;
        if ((eps[k] = scen_pair(s, (nic_fn_t)(k & 1), 0x40 + k, 0x50 + k, &q)) < 0) { scen_free(s); return 1; }
    }
    for (unsigned i = 0; i < 60; i++)
        for (unsigned k = 0; k < 4; k++)
            for (unsigned side = 0; side < 2; side++) scen_add_random(s, eps[k] + (int)side, 0x7f, 9000);
    return finish(s, name, a);
}

int scen_prot(const scen_args_t *a, const char *which);
int scen_rnr(const scen_args_t *a, const char *which);
int scen_prot_local(const scen_args_t *a, const char *which);

static const char *const NAMES[] = {
    "sizes-mtu256", "sizes-mtu512", "sizes-mtu1024", "sizes-mtu2048", "sizes-mtu4096", "big-mtu4096", "big-mtu1024",
    "psnwrap", "qps64", "qps8", "mixed",
    "prot-rkey-write", "prot-rkey-read", "prot-rkey-atomic", "prot-pd-write", "prot-pd-read", "prot-pd-atomic",
    "prot-bounds-write", "prot-bounds-read", "prot-bounds-atomic", "prot-access-write", "prot-access-read",
    "prot-access-atomic", "prot-local-lkey", "prot-local-access", "prot-local-bounds",
    "rnr-wait", "rnr-exceeded", "loss100-ib", "loss100-backoff", "pause-backoff", "pause-ib", "faults", NULL};

void scen_list(void) {
    for (int i = 0; NAMES[i]; i++) printf("%s\n", NAMES[i]);
}

int scen_dispatch(const char *n, const scen_args_t *a) {
    for (unsigned p = 1; p <= 5; p++) {
        char b[32];
        snprintf(b, sizeof b, "sizes-mtu%u", 128u << p);
        if (!strcmp(n, b)) return sc_sizes(a, p);
    }
    if (!strcmp(n, "big-mtu4096")) return sc_big(a, 5);
    if (!strcmp(n, "big-mtu1024")) return sc_big(a, 3);
    if (!strcmp(n, "psnwrap")) return sc_psnwrap(a);
    if (!strcmp(n, "qps64")) return sc_qps64(a, 16, 4, 6);
    if (!strcmp(n, "qps8")) return sc_qps64(a, 2, 4, 10);
    if (!strcmp(n, "mixed")) return sc_mixed(a);
    if (!strncmp(n, "prot-local-", 11)) return scen_prot_local(a, n + 11);
    if (!strncmp(n, "prot-", 5)) return scen_prot(a, n + 5);
    if (!strncmp(n, "rnr-", 4)) return scen_rnr(a, n + 4);
    if (!strcmp(n, "loss100-ib")) return scen_loss100(a, false);
    if (!strcmp(n, "loss100-backoff")) return scen_loss100(a, true);
    if (!strcmp(n, "pause-backoff")) return scen_pause(a, true);
    if (!strcmp(n, "pause-ib")) return scen_pause(a, false);
    if (!strcmp(n, "faults")) return scen_faults(a);
    return -1;
}
