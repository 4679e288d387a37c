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
#include <functional>
#include <map>

enum class suspend_order { none, two_phase, one_phase };

struct suspend_plan {
    suspend_order order = suspend_order::none;
    double start_ns = 0;
    std::vector<uint16_t> devices;   // in the order the hypervisor takes them
    // Two-phase only: these devices are brought to Suspend-Passive, and confirmed, before any
    // other is asked: devices that may still write into peers while Suspend-Active (a NIC
    // executes the requests its remote peers already sent, docs/pcie-platform.md section 10).
    std::vector<uint16_t> passive_first;
};

// How the PF driver suspends one kind of device, when it is not the memory device's suspend
// register: request(level) sends the request (posted MMIO), confirm(level) waits until the
// device reached it and returns "" or what went wrong (the NIC: its mailbox's SUSPEND_FN).
struct suspend_driver {
    std::function<void(uint64_t level)> request;
    std::function<std::string(uint64_t level)> confirm;
};

class hypervisor : public sc_core::sc_module {
public:
    hypervisor(sc_core::sc_module_name name, fabric_context &fab, root_complex &rc, suspend_plan plan);
    double done_ns = -1;         // when the VM memory was copied
    std::vector<std::string> errors;
    std::map<uint16_t, suspend_driver> drivers;   // by node id; the others: the register protocol
    // The plan's sequence now, from the calling thread (a plan with order none starts nothing
    // by itself).
    void run_sequence(suspend_order order);

private:
    void run();
    void request(uint16_t dev, uint64_t level);
    void confirm(uint16_t dev, uint64_t level);
    fabric_context &fab_;
    root_complex &rc_;
    suspend_plan plan_;
};
