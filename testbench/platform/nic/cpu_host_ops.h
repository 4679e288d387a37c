// cpu_host_ops.h — the platform's CPU as the host driver's nic_host_ops_t (nic_host_ops.h):
// MMIO as TLPs through the root complex (rc.mmio_write_words / mmio_read_words, thread
// context), host memory as the CPU's own loads and stores of the root complex's memory,
// pauses as simulated time, cycles from the NICs' clock.
#pragma once
#include "nic_clock.h"
#include "nic_host_ops.h"
#include "root_complex.h"

struct cpu_host {
    root_complex *rc;
    uint16_t device;      // the NIC endpoint's node id
    nic_clock *clock;
    nic_host_ops_t ops();
};

// Bytes of a word memory (8-byte words, little-endian; absent words read 0).
void word_memory_write(word_memory &m, uint64_t addr, const void *data, size_t len);
void word_memory_read(const word_memory &m, uint64_t addr, void *buf, size_t len);
