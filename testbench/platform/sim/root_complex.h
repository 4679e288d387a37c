// root_complex.h — the root complex: root ports, host memory behind them, and the CPU's side
// of MMIO (a driver's register write is a posted MWr, a register read an MRd whose
// completion the CPU waits for). Requests for a BAR that arrive on a root port (peer-to-peer
// redirected by ACS) go back down the root port that leads to their target.
#pragma once
#include "node.h"
#include <map>

using word_memory = std::map<uint64_t, uint64_t>;   // address (8-byte aligned) -> word

class root_complex : public fabric_node {
public:
    root_complex(sc_core::sc_module_name name, fabric_context &fab);
    std::vector<std::vector<uint16_t>> below;   // below[i]: node ids under root port i

    word_memory host_memory;
    // VM memory as the hypervisor copied it, and any DMA write that landed after the copy.
    word_memory vm_copy;
    bool vm_copied = false;
    std::vector<std::string> late_writes;
    uint32_t turned_down = 0;   // requests for a BAR that came up a root port and went back down

    // CPU side, thread context only: one MMIO access at a time, as one driver thread.
    void mmio_write(uint16_t device, uint64_t offset, uint64_t value, const std::string &note);
    uint64_t mmio_read(uint16_t device, uint64_t offset, const std::string &note);
    // The same with several words: one MWr (a write-combined burst), or one MRd whose
    // completions the CPU gathers.
    void mmio_write_words(uint16_t device, uint64_t offset, const std::vector<uint64_t> &words,
                          const std::string &note);
    std::vector<uint64_t> mmio_read_words(uint16_t device, uint64_t offset, uint32_t words,
                                          const std::string &note);
    void copy_vm_memory();
    bool mmio_id_ordering = false;   // the CPU's MMIO writes carry the IDO bit

    static constexpr uint32_t max_payload_words = 8;   // completions split at 64 bytes

protected:
    bool can_accept(size_t port, const tlp &t) override;
    void accept(size_t port, tlp t) override;

private:
    size_t port_towards(uint16_t node) const;
    void answer(size_t port, const tlp &request);
    uint8_t cpu_tag_ = 0;
    bool cpu_waiting_ = false;
    std::vector<uint64_t> cpu_words_;
    sc_core::sc_event cpu_completion_;
};

// Apply a memory write to m: word i of t's payload at base + 8 i, only the bytes its byte
// enables name in the first and last word.
void apply_write(word_memory &m, uint64_t base, const tlp &t);

// Split n words starting at address a of memory m into completions for request r, at most
// max_words each (all but the last with last = false). A zero-word read gets one Cpl.
std::vector<tlp> completions_for(const tlp &r, uint16_t completer, const word_memory &m,
                                 uint64_t a, uint32_t max_words);
