// suspend_latency.cc — `make bench` rows: how long the two-phase suspend takes for 2 and 4
// devices against the number of P2P writes in flight (docs/pcie-platform.md section 11).
//
//   suspend_latency [--writes K,K,...] [--devices D,D,...]
//
// D GPU-like devices under one switch (x4 links, 60 ns hops); device i writes K 64-byte P2P
// writes to device i+1 (mod D), all started at t = 0: the device links' credits are sized so
// that every one of them is in its transmit buffer at once. The hypervisor starts the
// two-phase sequence at t = 1 ns, so each device has K writes in flight when its
// Suspend-Active request is sent. Latency = from that first request to the last
// Suspend-Passive confirmed (simulated time). Each run is checked against its reference
// (no suspend, same writes): a row "check" says ok or why not. Each (D, K) twice: on the
// bridge switch, and on the per-(ingress, egress) switch with every device's Suspend-Active
// ending with the flush read (one zero-length read to its peer, behind its K writes).
// Rows on stdout (testbench/bench/bench_rows.h); exit 1 if a check failed.
#include "checker.h"
#include "address_map.h"
#include "scenario.h"
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

extern "C" {
#include "../../bench/bench_rows.h"
}

namespace {

std::vector<unsigned> list(const char *s, const char *what) {
    std::vector<unsigned> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) {
        char *end = nullptr;
        unsigned long v = strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end || v > 4096) {
            fprintf(stderr, "suspend_latency: %s wants numbers 0..4096 separated by commas, got '%s'\n", what, s);
            exit(2);
        }
        out.push_back(unsigned(v));
    }
    return out;
}

platform_config ring(unsigned devices, unsigned writes, bool per_port_flush) {
    platform_config c;
    c.switches = per_port_flush ? switch_buffers::per_port : switch_buffers::bridge;
    c.flush_read = per_port_flush;
    c.seed = 1;
    link_params p;
    p.header_credits = writes + 8;          // every write fits the device's transmit buffer
    p.data_credits = 4 * (writes + 8);      // 64 bytes = 4 data credits each
    c.topo.nodes.push_back({true, -1, link_params{}, 4});
    for (unsigned d = 0; d < devices; d++) c.topo.nodes.push_back({false, 0, p, 4});
    std::vector<uint16_t> devs = c.topo.devices();
    for (unsigned d = 0; d < devices; d++) {
        uint16_t self = devs[d], peer = devs[(d + 1) % devices];
        for (unsigned w = 0; w < writes; w++) {
            device_op op{};
            op.kind = device_op::p2p_write;
            op.addr = bar_base(peer) + bar_memory + 0x1000ull * self + 0x40 * (w % 16);
            for (uint64_t i = 0; i < 8; i++) op.data.push_back(uint64_t(self) << 32 | w << 8 | i);
            op.note = "P2P write " + std::to_string(w) + " of dev" + std::to_string(self);
            c.scripts[self].push_back(op);
        }
    }
    c.plan.order = suspend_order::two_phase;
    c.plan.start_ns = 1;
    c.plan.devices = devs;
    return c;
}

} // namespace

int sc_main(int argc, char **argv) {
    std::vector<unsigned> writes = {0, 8, 32, 128}, devices = {2, 4};
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--writes") writes = list(argv[i + 1], "--writes");
        else if (a == "--devices") devices = list(argv[i + 1], "--devices");
        else { fprintf(stderr, "suspend_latency: unknown argument '%s'\n", argv[i]); return 2; }
    }
    if (argc % 2 == 0) { fprintf(stderr, "suspend_latency: an option without its value\n"); return 2; }
    for (bool flush : {false, true})
    for (unsigned d : devices) {
        for (unsigned k : writes) {
            platform_config cfg = ring(d, k, flush);
            run_result run = run_isolated(cfg);
            run_result ref = run_isolated(reference_of(cfg, run));
            std::vector<std::string> diff = compare_with_reference(run, ref);
            size_t started = 0;
            for (auto &s : run.started) started += s.second;
            char sec[96], metric[96], check[160];
            snprintf(sec, sizeof sec, "platform: two-phase suspend, %s%u devices", flush ? "per-port switch, flush read, " : "", d);
            snprintf(metric, sizeof metric, "suspend latency, %u P2P writes in flight per device", k);
            bench_row(sec, metric, "ns", "first Suspend-Active MWr .. last Suspend-Passive confirmed, simulated time; x4 links, 60 ns hops, one switch",
                      "%.1f", run.suspend_done_ns - cfg.plan.start_ns);
            snprintf(check, sizeof check, "two-phase suspend, %s%u devices, %u writes each: every write started and in the images",
                     flush ? "per-port switch, flush read, " : "", d, k);
            bench_check(check, diff.empty() && started == size_t(d) * k && run.suspend_done_ns > 0, "%s",
                        !diff.empty() ? diff[0].c_str()
                                      : ("writes started " + std::to_string(started) + " of " + std::to_string(d * k)).c_str());
        }
    }
    return bench_check_failures() ? 1 : 0;
}
