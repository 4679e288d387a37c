/* counter_rmw_test — back-to-back increments of the same counter must all count:
 * random requests over 4 addresses (so consecutive hits are frequent) against a plain
 * array, each result checked the cycle it is written, and the RAM checked at the end. */
#include <stdio.h>

#include "../pass/counter_rmw.c"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static counter_rmw_state st; /* ~1 KiB of RAM cells: static, zero like power-up */

int main(void) {
    edges = hls_edge_queue_new();
    uint32_t ref[256] = {0};
    bool pending = false;    /* a request was issued last cycle */
    uint8_t pend_addr = 0;
    uint32_t pend_value = 0; /* what it must write */
    unsigned mismatches = 0, bypassed = 0, updates = 0;
    uint32_t x = 1;
    for (int cyc = 0; cyc < 20000; cyc++) {
        x = x * 1103515245u + 12345u;
        bool drain = cyc >= 19990;
        counter_rmw_in in = {.inc_valid = !drain && (x >> 28) != 0, /* ~94% busy */
                             .inc_addr = (uint8_t)((x >> 20) & 3),
                             .inc_amount = (uint16_t)(x >> 4)};
        counter_rmw_out out = {0};
        hls_edge_queue_bind(edges);
        counter_rmw(&in, &out, &st);
        hls_clock_edge(edges);
        if (out.upd_valid != pending ||
            (pending && (out.upd_addr != pend_addr || out.upd_value != pend_value)))
            mismatches++;
        updates += out.upd_valid;
        bypassed += out.upd_bypassed;
        pending = in.inc_valid;
        if (pending) {
            pend_addr = in.inc_addr;
            pend_value = ref[pend_addr] += in.inc_amount;
        }
    }
    check("counter_rmw/every_update_correct", mismatches == 0 && updates > 15000);
    check("counter_rmw/bypass_exercised", bypassed > 1000);
    bool cells = true;
    for (int a = 0; a < 256; a++) cells &= st.count.hls_mem_cell[a] == ref[a];
    check("counter_rmw/ram_matches_reference", cells);
    return failures != 0;
}
