// hypervisor.cc — the suspend sequences.
#include "hypervisor.h"
#include "address_map.h"
#include "endpoint.h"

using namespace sc_core;

hypervisor::hypervisor(sc_module_name name, fabric_context &fab, root_complex &rc, suspend_plan plan)
    : sc_module(name), fab_(fab), rc_(rc), plan_(std::move(plan)) {
    SC_HAS_PROCESS(hypervisor);
    if (plan_.order != suspend_order::none) SC_THREAD(run);
}

void hypervisor::request(uint16_t dev, uint64_t level) {
    std::string what = std::string(level_name(level)) + " request to node " + std::to_string(dev);
    fab_.log(nullptr, "hypervisor: " + what);
    rc_.mmio_write(dev, reg_suspend, level == level_sa ? 1 : 2, what);
}

// Poll the status register; a device that never gets there is an error, not a hang.
void hypervisor::confirm(uint16_t dev, uint64_t level) {
    std::string what = "status of node " + std::to_string(dev);
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
    fab_.log(nullptr, std::string("hypervisor: stop-and-copy starts (") +
                          (plan_.order == suspend_order::two_phase ? "two-phase" : "one-phase") + ")");
    if (plan_.order == suspend_order::two_phase) {
        for (uint16_t d : plan_.devices) request(d, level_sa);
        for (uint16_t d : plan_.devices) confirm(d, level_sa);
        for (uint16_t d : plan_.devices) request(d, level_sp);
        for (uint16_t d : plan_.devices) confirm(d, level_sp);
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
