/* psn_window_test — 24-bit serial-number classification around the wrap point and at
 * the edges of the half window. */
#include <stdio.h>

#include "../pass/psn_window.c"

static hls_edge_queue *edges; /* the memory edges of the blocks this test steps (hls.h) */
static int failures;
static void check(const char *name, bool ok) {
    printf("%s native/%s\n", ok ? "PASS" : "FAIL", name);
    failures += !ok;
}

static psn_window_state st;
static psn_window_out step(bool load, uint32_t psn) {
    psn_window_in in = {.pkt_valid = !load, .pkt_psn = (hls_u24)psn, .load = load,
                        .load_psn = (hls_u24)psn};
    psn_window_out out = {0};
    hls_edge_queue_bind(edges);
    psn_window(&in, &out, &st);
    hls_clock_edge(edges);
    return out;
}

int main(void) {
    edges = hls_edge_queue_new();
    step(true, 0xFFFFFE);
    check("psn_window/expected_before_wrap", step(false, 0xFFFFFE).cls == PSN_EXPECTED);
    check("psn_window/expected_at_max", step(false, 0xFFFFFF).cls == PSN_EXPECTED);
    check("psn_window/epsn_wrapped_to_0", st.epsn == 0);
    check("psn_window/max_is_duplicate_after_wrap", step(false, 0xFFFFFF).cls == PSN_DUPLICATE);
    check("psn_window/next_is_ahead", step(false, 1).cls == PSN_AHEAD);
    check("psn_window/half_window_is_duplicate", step(false, 0x800000).cls == PSN_DUPLICATE);
    psn_window_out o = step(false, 0x7FFFFF);
    check("psn_window/below_half_window_is_ahead", o.cls == PSN_AHEAD && o.distance == 0x7FFFFF);
    psn_window_in idle = {0};
    psn_window_out idle_out = {0};
    hls_edge_queue_bind(edges);
    psn_window(&idle, &idle_out, &st);
    hls_clock_edge(edges);
    check("psn_window/idle_is_none", idle_out.cls == PSN_NONE && st.epsn == 0);
    check("psn_window/expected_at_0", step(false, 0).cls == PSN_EXPECTED && st.epsn == 1);
    return failures != 0;
}
