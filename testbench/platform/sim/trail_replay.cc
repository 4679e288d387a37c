// trail_replay.cc — every counterexample spin finds (spin/check's trail variants,
// docs/pcie-platform.md section 4) replayed on the SystemC platform as a directed run, the
// trail's TLP order forced; and beside each, the same forcing with the rule in place, where
// the order cannot happen and nothing is lost.
//
//   trail_replay [--only NAME] [--show]     one PASS / FAIL line per run; --show: timelines
//
// The platform is the model's: rc - sw1 - {dev2, dev3} (spin's dev0 and dev1), dev3 starts
// one P2P write to dev2, the hypervisor suspends dev2 then dev3. Every trail has the write
// waiting somewhere while the host's requests move on; the run forces that wait by holding
// the write in that buffer (platform.h hold_spec: as a credit stall could) until dev2 is
// captured, or 20 us after the suspend started. If the rules let the host reach dev2's
// capture meanwhile, the write arrives after it: lost, as in the trail. If they do not (the
// control: the host's request, status read or the device's completion is stuck behind the
// write), the release lets everything finish and the run must equal its reference.
//
// dev3's link is slow (1000 ns a hop), so the write starts while dev3 is still running and
// reaches sw1 after dev2 was confirmed Suspend-Active, as in the trails.
#include "checker.h"
#include "scenario.h"
#include <cstdio>
#include <cstring>

namespace {

constexpr uint16_t victim = 2, writer = 3;
constexpr double suspend_ns = 1000, release_after_ns = 20000;

struct replay {
    const char *name;        // the spin variant (spin/check) it replays, or the control's
    const char *trail;       // what the run shows
    suspend_order order;
    switch_buffers switches;
    bool flush_read, host_ido;
    order_rule disabled;
    const char *held_in;     // the buffer the write waits in
    bool expect_loss;
};

const replay replays[] = {
    {"one-phase", "dev2 suspended fully while dev3's write waits on dev3's own link",
     suspend_order::one_phase, switch_buffers::bridge, false, false, order_rule::none, "dev3.p0.tx", true},
    {"two-phase-held-at-dev3", "control: dev3's status completion cannot pass its write (D2a)",
     suspend_order::two_phase, switch_buffers::bridge, false, false, order_rule::none, "dev3.p0.tx", false},
    {"no-d2a", "dev3's status completion passes its own write on dev3's link",
     suspend_order::two_phase, switch_buffers::bridge, false, false, order_rule::D2a, "dev3.p0.tx", true},
    {"no-a2a", "the host's Suspend-Passive for dev2 passes the write at sw1's egress to dev2",
     suspend_order::two_phase, switch_buffers::bridge, false, false, order_rule::A2a, "sw1.p1.tx", true},
    {"ido-host", "the host's Suspend-Passive, IDO set, passes the write at sw1's egress to dev2 (A2b)",
     suspend_order::two_phase, switch_buffers::bridge, false, true, order_rule::none, "sw1.p1.tx", true},
    {"two-phase-held-at-egress", "control: the Suspend-Passive cannot pass the write there (A2a)",
     suspend_order::two_phase, switch_buffers::bridge, false, false, order_rule::none, "sw1.p1.tx", false},
    {"ido-host-flush", "control: with IDO on the host's writes, dev3's flush read waits behind its write (B2a)",
     suspend_order::two_phase, switch_buffers::bridge, true, true, order_rule::none, "sw1.p1.tx", false},
    {"per-port", "the write waits in sw1's dev3->dev2 buffer, the host's Suspend-Passive comes through host->dev2",
     suspend_order::two_phase, switch_buffers::per_port, false, false, order_rule::none, "sw1.p2->p1", true},
    {"per-port-flush", "control: dev3's flush read waits behind its write in the same buffer (B2a)",
     suspend_order::two_phase, switch_buffers::per_port, true, false, order_rule::none, "sw1.p2->p1", false},
    {"per-port-flush-no-b2a", "dev3's flush read passes its write in sw1's dev3->dev2 buffer",
     suspend_order::two_phase, switch_buffers::per_port, true, false, order_rule::B2a, "sw1.p2->p1", true},
};

platform_config config_of(const replay &r) {
    platform_config cfg;
    link_params fast, slow;
    fast.latency_ns = 60;
    slow.latency_ns = 1000;
    cfg.topo.nodes = {{true, -1, fast, 4}, {false, 0, fast, 10}, {false, 0, slow, 10}};
    device_op w{};
    w.kind = device_op::p2p_write;
    w.addr = bar_base(victim) + bar_memory + 0x1000ull * writer;
    w.data = {0x5157000000000001ull};
    w.gap_ns = suspend_ns + 100;   // after the suspend started, before dev3's request arrives
    w.note = "P2P write #1 of dev3";
    cfg.scripts[writer] = {w};
    cfg.plan.order = r.order;
    cfg.plan.start_ns = suspend_ns;
    cfg.plan.devices = {victim, writer};
    cfg.switches = r.switches;
    cfg.flush_read = r.flush_read;
    cfg.order.disabled = r.disabled;
    cfg.order.id_ordering = cfg.host_sets_ido = r.host_ido;
    cfg.holds = {{w.note, r.held_in, victim, suspend_ns + release_after_ns}};
    return cfg;
}

bool run(const replay &r, bool show) {
    platform_config cfg = config_of(r);
    cfg.trace = show;
    if (show) printf("---- %s: %s ----\n", r.name, r.trail);
    run_result got = run_isolated(cfg);
    std::vector<std::string> diffs = compare_with_reference(got, run_isolated(reference_of(cfg, got)));
    bool lost = !got.losses.empty();
    bool ok = r.expect_loss ? lost && !diffs.empty() : diffs.empty();
    printf("%s platform/trail-%s: write held in %s; %s", ok ? "PASS" : "FAIL", r.name, r.held_in, r.trail);
    if (r.expect_loss) printf(": %s\n", lost ? got.losses[0].c_str() : "nothing lost, the trail's order did not happen");
    else printf(": %s\n", diffs.empty() ? "nothing lost, equal to the reference" : diffs[0].c_str());
    return ok;
}

} // namespace

int sc_main(int argc, char **argv) {
    const char *only = nullptr;
    bool show = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--show")) show = true;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "trail_replay: unknown argument '%s'\nusage: trail_replay [--only NAME] [--show]\n", argv[i]);
            return 2;
        }
    }
    int failed = 0, ran = 0;
    for (const replay &r : replays)
        if (!only || !strcmp(only, r.name)) failed += !run(r, show), ran++;
    if (!ran) {
        fprintf(stderr, "trail_replay: no replay named '%s'\n", only);
        return 2;
    }
    return failed ? 1 : 0;
}
