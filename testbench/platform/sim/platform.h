// platform.h — one platform run: a topology, the devices' scripts, the ordering options and
// a suspend plan in; the devices' images and memories, the host memory and every loss or
// error out. SystemC elaborates once per process, so each run has a process of its own
// (run_isolated forks one); run_platform is what that process does.
#pragma once
#include "hypervisor.h"
#include "mem_device.h"
#include "pcie_switch.h"
#include <map>

struct topology_spec {
    struct node_spec {
        bool is_switch;
        int parent;          // index in nodes of the switch above it; -1: a root port
        link_params link;    // the link to the parent
        double processing_ns; // per TLP taken from a receive buffer (a slow device backs up)
    };
    std::vector<node_spec> nodes;   // node id = index + 1 (0 is the root complex)
    bool acs_redirect = false;
    std::vector<uint16_t> devices() const;
    std::string describe() const;   // "rc(sw1(dev2 dev3) dev4)" with link widths
};

// A directed run (trail_replay.cc) forces a spin trail's order: the TLP whose note is `note`
// stays in the buffer named `buffer` (as a credit stall could keep it there) until device
// `until_captured` is captured or until release_ns, whichever comes first. What may pass it
// meanwhile is still the ordering table's decision.
struct hold_spec {
    std::string note, buffer;
    uint16_t until_captured = 0;
    double release_ns = 0;
};

struct platform_config {
    uint64_t seed = 1;
    topology_spec topo;
    std::map<uint16_t, std::vector<device_op>> scripts;   // per device id
    suspend_plan plan;
    ordering_options order;
    bool devices_set_ro = false, devices_set_ido = false;   // attribute bits on device TLPs
    bool host_sets_ido = false;                             // and on the CPU's MMIO writes
    switch_buffers switches = switch_buffers::bridge;       // the reading of every switch
    bool flush_read = false;   // the devices' Suspend-Active ends with the flush read
    std::vector<hold_spec> holds;   // directed runs only
    bool trace = false;   // print the TLP timeline of the lost writes' targets at the end
};

struct run_result {
    std::map<uint16_t, size_t> started;
    std::map<uint16_t, word_memory> image, memory;
    word_memory host;                 // the VM memory copy (suspend) or the final host memory
    std::vector<std::string> losses;  // writes lost or applied after a capture / the VM copy
    std::vector<std::string> errors;  // deadlocks, bad register writes, crashed runs
    double end_ns = 0, suspend_done_ns = -1;
    uint32_t tlps = 0;
    uint32_t turned_at_root = 0;      // P2P requests that went up to the root complex
};

run_result run_platform(const platform_config &cfg);   // in a fresh process only
run_result run_isolated(const platform_config &cfg);   // forks; the child runs run_platform
