// nic_image_check.h — the check of saved NIC images: the images are loaded into fresh NICs
// (nic_dest.h) whose host memory holds what the source's did at the stop-and-copy, the NICs
// run on, and the memory they leave must equal a reference run of the same traffic without
// migration (and without the PCIe model: direct_host_ops.h) byte for byte. No SystemC.
#pragma once
#include "nic_rc_traffic.h"
#include "root_complex.h"
#include <string>
#include <vector>

struct memory_span {
    unsigned nic;        // whose host memory (side A = 0, B = 1)
    uint64_t addr, len;
};

struct image_check_input {
    std::string iface, mode;
    nic_rc_setup_t setup;                 // the source's set-up (its ops are not used)
    unsigned write_len = 0;               // B's WRITE into A's MR, the traffic in flight
    const word_memory *vm = nullptr;      // the VM's memory as the hypervisor copied it
    std::vector<uint8_t> device_memory;   // A's MR as the device's image holds it (at setup.mr_at[0])
    std::vector<uint8_t> image[2];        // each side's saved function image (512-byte blocks)
    std::vector<memory_span> spans;       // what must equal the reference
    uint64_t load_buffer = 0;             // the destination PF driver's block buffer
    uint64_t max_cycles = 400000;         // the destination's bound to finish the traffic
};

struct image_check_result {
    std::string why;                      // "" when the destination's memory equals the reference
    uint64_t cycles = 0;                  // destination cycles until it did
};

image_check_result check_images(const image_check_input &in);
