// routing_check.cc — routing and link parameters on fixed topologies:
//   rc - sw1 (port 1: sw2 (dev3, dev4); port 2: dev5)   and   rc (root port 0: dev1; 1: dev2)
// - P2P turns at the lowest common switch: dev3 -> dev4 (sw2) and dev3 -> dev5 (sw1) never
//   reach the root complex; with ACS redirect every one of them does;
// - devices on different root ports always meet at the root complex;
// - every write lands (the target's memory holds it);
// - a x1 link takes longer than a x16 one, and a longer hop latency longer than a short one.
#include "platform.h"
#include "address_map.h"
#include <cstdio>

namespace {

int failed = 0;
void check(bool ok, const char *name, const std::string &detail) {
    printf("%s platform/routing-%s: %s\n", ok ? "PASS" : "FAIL", name, detail.c_str());
    failed += !ok;
}

device_op p2p(uint16_t target, uint64_t slot, uint64_t value) {
    device_op op{};
    op.kind = device_op::p2p_write;
    op.addr = bar_base(target) + bar_memory + 8 * slot;
    op.data = {value};
    op.note = "P2P write to dev" + std::to_string(target);
    return op;
}

link_params link(int lanes, double latency_ns) {
    link_params p;
    p.lanes = lanes;
    p.latency_ns = latency_ns;
    return p;
}

// rc - sw1 - {sw2 - {dev3, dev4}, dev5}; dev3 writes 4 words to dev4 and 4 to dev5.
platform_config two_levels(bool acs, int lanes = 4, double latency_ns = 60) {
    platform_config c;
    link_params p = link(lanes, latency_ns);
    c.topo.nodes = {{true, -1, p, 4}, {true, 0, p, 4}, {false, 1, p, 10}, {false, 1, p, 10}, {false, 0, p, 10}};
    c.topo.acs_redirect = acs;
    for (uint64_t i = 0; i < 4; i++) {
        c.scripts[3].push_back(p2p(4, i, 0x400 + i));
        c.scripts[3].push_back(p2p(5, i, 0x500 + i));
    }
    return c;
}

bool landed(const run_result &r, uint16_t dev, uint64_t slot, uint64_t value) {
    auto d = r.memory.find(dev);
    if (d == r.memory.end()) return false;
    auto w = d->second.find(bar_memory + 8 * slot);
    return w != d->second.end() && w->second == value;
}

bool all_landed(const run_result &r) {
    for (uint64_t i = 0; i < 4; i++)
        if (!landed(r, 4, i, 0x400 + i) || !landed(r, 5, i, 0x500 + i)) return false;
    return r.errors.empty();
}

std::string figures(const run_result &r) {
    char buf[160];
    snprintf(buf, sizeof buf, "%u TLPs turned at the root complex, last event at %.1f ns%s", r.turned_at_root,
             r.end_ns, r.errors.empty() ? "" : (", error: " + r.errors[0]).c_str());
    return buf;
}

std::string ns(double t) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.1f ns", t);
    return buf;
}

} // namespace

int sc_main(int, char **) {
    run_result direct = run_isolated(two_levels(false));
    check(direct.turned_at_root == 0 && all_landed(direct), "lowest-common-switch",
          "no ACS: " + figures(direct) + " (expect 0, every write landed)");
    run_result acs = run_isolated(two_levels(true));
    check(acs.turned_at_root == 8 && all_landed(acs), "acs-redirect",
          "ACS redirect: " + figures(acs) + " (expect 8, every write landed)");

    platform_config roots;
    roots.topo.nodes = {{false, -1, link(4, 60), 10}, {false, -1, link(4, 60), 10}};
    roots.scripts[1] = {p2p(2, 0, 0x200), p2p(2, 1, 0x201)};
    run_result r = run_isolated(roots);
    check(r.turned_at_root == 2 && landed(r, 2, 0, 0x200) && landed(r, 2, 1, 0x201), "root-ports",
          "devices on two root ports: " + figures(r) + " (expect 2)");

    run_result narrow = run_isolated(two_levels(false, 1)), wide = run_isolated(two_levels(false, 16));
    check(narrow.end_ns > wide.end_ns && all_landed(narrow) && all_landed(wide), "link-width",
          "x1 ends at " + ns(narrow.end_ns) + ", x16 at " + ns(wide.end_ns));
    run_result slow = run_isolated(two_levels(false, 4, 300)), fast = run_isolated(two_levels(false, 4, 30));
    check(slow.end_ns > fast.end_ns + 3 * 270 && all_landed(slow) && all_landed(fast), "hop-latency",
          "300 ns hops end at " + ns(slow.end_ns) + ", 30 ns hops at " + ns(fast.end_ns) +
              " (the writes cross 3 hops)");
    return failed ? 1 : 0;
}
