// endpoint.h — what the platform asks of an endpoint: one upstream port, one memory BAR
// (address_map.h: registers in the first page, memory after), and the suspend interface the
// hypervisor drives through that BAR and reads back for the checker. The GPU-like memory
// device implements it; the NIC will (docs/pcie-platform.md, "The NIC as an endpoint").
#pragma once
#include "root_complex.h"

// The suspend levels as the status register reads them (docs/migration.md section 2).
enum device_level : uint64_t { level_run = 0, level_sa_pending = 1, level_sa = 2, level_sp = 3 };
const char *level_name(uint64_t level);

class endpoint : public fabric_node {
public:
    using fabric_node::fabric_node;
    virtual size_t ops_started() const = 0;        // of its script: a prefix
    virtual bool script_done() const = 0;          // every op started (the reference run)
    virtual const word_memory &bar_memory() const = 0;   // BAR memory now
    virtual const word_memory &image() const = 0;  // BAR memory at Suspend-Passive
    virtual bool captured() const = 0;
    std::vector<std::string> losses;   // TLPs that reached it after its capture
    std::vector<tlp> lost;             // the same TLPs, for the timeline
    double last_loss_ns = 0;
    std::vector<std::string> errors;   // bad input: what and where
};
