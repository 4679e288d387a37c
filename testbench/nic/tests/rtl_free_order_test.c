/* rtl_free_order_test — verilated NICs freed in the order that once hung a process at exit
 * (docs/pcie-platform.md section 10): the platform's NICs built first, a reference run's and a
 * destination's built, run and freed, then the platform's freed last, one of them from another
 * thread. Verilator 5.006 unregisters a model's scopes through the freeing thread's current
 * VerilatedContext, not the model's own; that was the context of the last model built, freed
 * by then, and its mutex waited forever (rtl-gen/wrap/rtl_glue.h says how each model is now
 * freed under its own context). Every harness answers a command after the others were built
 * or freed, so no model lost its scopes or its state to another's.
 *
 *   rtl_free_order_test NIC.iface        (run it under `timeout`: a hang is the failure)
 *
 * PASS/FAIL lines; exit 0 when all passed and every model was freed. */
#include <pthread.h>
#include <stdio.h>

#include "nic_rtl.h"
#include "nic_tb.h"

void nic(const void *in, void *out, void *state);

static int failures;

static void check(bool ok, const char *what) {
    printf("%s rtl free order: %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
}

/* two RTL NICs on a wire, as the platform's, the reference's and the destination's runs */
static nic_tb_t *rtl_pair(const char *iface) {
    nic_tb_model_t m = {.iface = iface, .c_step = nic, NIC_TB_RTL_FNS(nic)};
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    c.mode = NIC_TB_RTL;
    return nic_tb_new(&m, &c);
}

/* the RTL of every NIC of tb answers a command (it still has its state and its scopes) */
static bool answers(nic_tb_t *tb, uint32_t ip) {
    bool ok = true;
    for (unsigned n = 0; n < 2; n++) ok &= nic_tb_set_fn(tb, n, 0, 0x020000000a00ull + n, ip + n) == NIC_CMD_OK;
    return ok;
}

static void *free_harness(void *tb) {
    nic_tb_free(tb);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: rtl_free_order_test NIC.iface\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a hang killed by timeout still shows how far it got */
    nic_tb_t *platform = rtl_pair(argv[1]), *other = rtl_pair(argv[1]);
    if (!platform || !other) {
        printf("FAIL rtl free order: harness: cannot build RTL NICs from %s\n", argv[1]);
        return 1;
    }
    check(answers(platform, 0x0a000001) && answers(other, 0x0a000101), "the platform's four verilated NICs answer");
    nic_tb_t *reference = rtl_pair(argv[1]);
    check(reference && answers(reference, 0x0a000201), "a reference's two verilated NICs answer");
    nic_tb_t *dest = rtl_pair(argv[1]);
    check(dest && answers(dest, 0x0a000301), "a destination's two verilated NICs answer");
    nic_tb_free(reference);
    nic_tb_free(dest);
    check(answers(platform, 0x0a000401) && answers(other, 0x0a000501),
          "the platform's NICs answer after the reference's and the destination's were freed");
    pthread_t t;
    check(pthread_create(&t, NULL, free_harness, other) == 0 && pthread_join(t, NULL) == 0,
          "two NICs freed on a thread that never ran a model");
    nic_tb_free(platform); /* last, on the thread that built and freed the others: where it hung */
    return failures != 0;
}
