// hypervisor.h — the stop-and-copy suspend of all passed-through devices, as the host's
// PF driver does it over MMIO: a suspend request is a posted write to the device's suspend
// register, confirmed by reading its status register until the level asked for shows (the
// read cannot pass the request on the way down, B2a; its completion cannot pass the device's
// own earlier posted writes on the way up, D2a). Then the VM memory is copied.
//
//   two-phase: Suspend-Active to every device, confirm each; then Suspend-Passive to every
//              device, confirm each.
//   one-phase: for each device in the given order: Suspend-Active, confirm, Suspend-Passive,
//              confirm.
#pragma once
#include "root_complex.h"

enum class suspend_order { none, two_phase, one_phase };

struct suspend_plan {
    suspend_order order = suspend_order::none;
    double start_ns = 0;
    std::vector<uint16_t> devices;   // in the order the hypervisor takes them
};

class hypervisor : public sc_core::sc_module {
public:
    hypervisor(sc_core::sc_module_name name, fabric_context &fab, root_complex &rc, suspend_plan plan);
    double done_ns = -1;         // when the VM memory was copied
    std::vector<std::string> errors;

private:
    void run();
    void request(uint16_t dev, uint64_t level);
    void confirm(uint16_t dev, uint64_t level);
    fabric_context &fab_;
    root_complex &rc_;
    suspend_plan plan_;
};
