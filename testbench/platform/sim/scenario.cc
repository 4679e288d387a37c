// scenario.cc — random topologies and traffic.
#include "scenario.h"
#include "address_map.h"
#include <algorithm>
#include <random>

namespace {

struct dice {
    std::mt19937_64 g;
    explicit dice(uint64_t seed) : g(seed * 0x9e3779b97f4a7c15ull + 1) {}
    uint64_t below(uint64_t n) { return g() % n; }
    uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
};

link_params random_link(dice &d) {
    static const int widths[] = {1, 2, 4, 8, 16};
    link_params p;
    p.lanes = widths[d.below(5)];
    p.latency_ns = double(d.between(20, 200));
    // Few credits and narrow links fill buffers, and full buffers are where the rules decide.
    p.header_credits = uint32_t(d.between(1, 6));
    p.data_credits = uint32_t(d.between(4, 24));   // at least one 64-byte TLP (4 credits)
    return p;
}

topology_spec random_topology(dice &d) {
    topology_spec t;
    int switches = int(d.between(1, 3)), devices = int(d.between(2, 4));
    int root_ports = 0;
    std::vector<int> switch_index;
    for (int s = 0; s < switches; s++) {
        int parent = -1;
        if (s > 0 && (root_ports == 2 || d.below(3) != 0)) parent = switch_index[d.below(switch_index.size())];
        root_ports += parent < 0;
        switch_index.push_back(int(t.nodes.size()));
        t.nodes.push_back({true, parent, random_link(d), double(d.between(2, 10))});
    }
    for (int i = 0; i < devices; i++) {
        int parent = switch_index[d.below(switch_index.size())];
        if (root_ports < 2 && d.below(6) == 0) parent = -1, root_ports++;
        t.nodes.push_back({false, parent, random_link(d), double(d.between(4, 150))});
    }
    t.acs_redirect = d.below(2) == 0;
    return t;
}

// Host memory region of device `dev`: DMA writes, reads and atomics stay in it, so results
// never depend on a race between devices. Four 64-byte slots.
uint64_t host_slot(uint16_t dev, uint64_t slot) { return 0x100000ull * dev + 0x40 * slot; }

std::vector<device_op> random_script(dice &d, uint64_t seed, uint16_t self,
                                     const std::vector<uint16_t> &devices) {
    std::vector<device_op> ops;
    size_t n = d.between(6, 30);
    for (size_t i = 0; i < n; i++) {
        device_op op{};
        op.gap_ns = d.below(2) ? 0 : double(d.below(400));   // bursts and pauses
        uint64_t roll = d.below(10), slot = d.below(4);
        uint64_t stamp = (seed << 40) | (uint64_t(self) << 32) | (i << 8);
        auto fill = [&](uint32_t words) {
            for (uint32_t w = 0; w < words; w++) op.data.push_back(stamp | w);
        };
        if (roll < 5) {
            uint16_t peer = self;
            while (peer == self) peer = devices[d.below(devices.size())];
            // Each writer has its own region in each peer: slots written again and again,
            // so a write applied out of order leaves the wrong value.
            op.kind = device_op::p2p_write;
            op.addr = bar_base(peer) + bar_memory + 0x1000ull * self + 0x40 * slot;
            fill(uint32_t(d.between(1, 8)));
            op.note = "P2P write, op " + std::to_string(i) + " of dev" + std::to_string(self);
        } else if (roll < 7) {
            op.kind = device_op::dma_write;
            op.addr = host_slot(self, slot);
            fill(uint32_t(d.between(1, 8)));
            op.note = "DMA write, op " + std::to_string(i);
        } else if (roll < 9) {
            op.kind = device_op::dma_read;
            op.addr = host_slot(self, 0);
            op.words = uint32_t(d.between(0, 32));   // up to 4 completions; 0: zero-byte read
            op.local = bar_memory + 0x80000 + 0x100 * i;
            op.note = "DMA read, op " + std::to_string(i);
        } else {
            op.kind = device_op::fetch_add;
            op.addr = host_slot(self, slot);
            op.data = {d.between(1, 9)};
            op.words = 1;
            op.local = bar_memory + 0x80000 + 0x100 * i;
            op.note = "fetch-add, op " + std::to_string(i);
        }
        ops.push_back(std::move(op));
    }
    return ops;
}

} // namespace

platform_config random_platform(uint64_t seed, suspend_order order) {
    dice d(seed);
    platform_config cfg;
    cfg.seed = seed;
    cfg.topo = random_topology(d);
    std::vector<uint16_t> devs = cfg.topo.devices();
    for (uint16_t dev : devs) cfg.scripts[dev] = random_script(d, seed, dev, devs);
    cfg.plan.order = order;
    cfg.plan.start_ns = double(d.below(6000));
    cfg.plan.devices = devs;
    std::shuffle(cfg.plan.devices.begin(), cfg.plan.devices.end(), d.g);
    return cfg;
}

platform_config reference_of(const platform_config &cfg, const run_result &run) {
    platform_config ref = cfg;
    ref.plan.order = suspend_order::none;
    ref.trace = false;
    ref.holds.clear();
    for (auto &s : ref.scripts) {
        auto it = run.started.find(s.first);
        size_t keep = it == run.started.end() ? 0 : it->second;
        if (s.second.size() > keep) s.second.resize(keep);
    }
    return ref;
}
