// hypervisor.cc — the suspend sequences.
#include "hypervisor.h"
#include "address_map.h"
#include "endpoint.h"
#include <algorithm>

using namespace sc_core;

hypervisor::hypervisor(sc_module_name name, fabric_context &fab, root_complex &rc, suspend_plan plan)
    : sc_module(name), fab_(fab), rc_(rc), plan_(std::move(plan)) {
    SC_HAS_PROCESS(hypervisor);
    if (plan_.order != suspend_order::none) SC_THREAD(run);
}

void hypervisor::request(uint16_t dev, uint64_t level) {
    std::string what = std::string(level_name(level)) + " request to node " + std::to_string(dev);
    fab_.log(nullptr, "hypervisor: " + what);
    auto d = drivers.find(dev);
    if (d != drivers.end()) return d->second.request(level);
    rc_.mmio_write(dev, reg_suspend, level == level_sa ? 1 : 2, what);
}

// Poll the status register; a device that never gets there is an error, not a hang.
void hypervisor::confirm(uint16_t dev, uint64_t level) {
    std::string what = "status of node " + std::to_string(dev);
    auto d = drivers.find(dev);
    if (d != drivers.end()) {
        std::string why = d->second.confirm(level);
        if (why.empty()) fab_.log(nullptr, "hypervisor: node " + std::to_string(dev) + " confirmed " + level_name(level));
        else errors.push_back("node " + std::to_string(dev) + " did not reach " + level_name(level) + ": " + why);
        return;
    }
    for (int poll = 0; poll < 1000; poll++) {
        if (rc_.mmio_read(dev, reg_status, what) == level) {
            fab_.log(nullptr, "hypervisor: node " + std::to_string(dev) + " confirmed " + level_name(level));
            return;
        }
    }
    errors.push_back("node " + std::to_string(dev) + " never reached " + level_name(level));
}

void hypervisor::run() {
    wait(plan_.start_ns, SC_NS);
    run_sequence(plan_.order);
}

void hypervisor::run_sequence(suspend_order order) {
    fab_.log(nullptr, std::string("hypervisor: stop-and-copy starts (") +
                          (order == suspend_order::two_phase ? "two-phase" : "one-phase") + ")");
    if (order == suspend_order::two_phase) {
        for (uint16_t d : plan_.devices) request(d, level_sa);
        for (uint16_t d : plan_.devices) confirm(d, level_sa);
        const auto &first = plan_.passive_first;
        auto is_first = [&](uint16_t d) { return std::find(first.begin(), first.end(), d) != first.end(); };
        for (uint16_t d : first) request(d, level_sp);
        for (uint16_t d : first) confirm(d, level_sp);
        for (uint16_t d : plan_.devices)
            if (!is_first(d)) request(d, level_sp);
        for (uint16_t d : plan_.devices)
            if (!is_first(d)) confirm(d, level_sp);
    } else {
        for (uint16_t d : plan_.devices) {
            request(d, level_sa);
            confirm(d, level_sa);
            request(d, level_sp);
            confirm(d, level_sp);
        }
    }
    rc_.copy_vm_memory();
    done_ns = fab_.now_ns();
}
