// address_map.h — the platform's memory map. Host memory is everything below 4 GiB; each
// endpoint has one 1 MiB memory BAR at a base derived from its node id, so routing by
// address and by id agree. The first page of a BAR holds the registers.
#pragma once
#include <cstdint>

constexpr uint64_t host_memory_top = 0x100000000ull;
constexpr uint64_t bar_window = 0x100000000ull;   // BARs start here
constexpr uint64_t bar_size = 1ull << 20;
constexpr uint64_t reg_suspend = 0x0;     // write: 1 Suspend-Active, 2 Suspend-Passive
constexpr uint64_t reg_status = 0x8;      // read: the suspend level (device_level)
constexpr uint64_t bar_memory = 0x1000;   // BAR memory: image contents from here on

inline uint64_t bar_base(uint16_t node) { return bar_window + uint64_t(node) * bar_size; }

// The node that owns addr: 0 (the root complex: host memory) or the endpoint whose BAR
// holds it.
inline uint16_t address_owner(uint64_t addr) {
    return addr < bar_window ? 0 : uint16_t((addr - bar_window) / bar_size);
}
