// root_complex.cc — host memory, CPU MMIO, and forwarding between root ports.
#include "root_complex.h"
#include "address_map.h"
#include <algorithm>
#include <stdexcept>

using namespace sc_core;

root_complex::root_complex(sc_module_name name, fabric_context &fab)
    : fabric_node(name, fab, root_complex_id) {}

size_t root_complex::port_towards(uint16_t node) const {
    for (size_t p = 0; p < below.size(); p++)
        if (std::count(below[p].begin(), below[p].end(), node)) return p;
    throw std::runtime_error("root complex: no root port leads to node " + std::to_string(node));
}

void apply_write(word_memory &m, uint64_t base, const tlp &t) {
    size_t n = t.data.size();
    for (size_t i = 0; i < n; i++) {
        uint8_t be = uint8_t((i == 0 ? t.first_be : 0xff) & (i == n - 1 ? t.last_be : 0xff));
        uint64_t mask = 0;
        for (int b = 0; b < 8; b++)
            if (be >> b & 1) mask |= 0xffull << (8 * b);
        uint64_t &w = m[base + 8 * i];
        w = (w & ~mask) | (t.data[i] & mask);
    }
}

std::vector<tlp> completions_for(const tlp &r, uint16_t completer, const word_memory &m,
                                 uint64_t a, uint32_t max_words) {
    std::vector<tlp> out;
    uint32_t words = r.kind == tlp_kind::fetch_add ? 1 : r.read_words;
    uint32_t done = 0;
    do {
        tlp c;
        c.kind = words ? tlp_kind::completion_data : tlp_kind::completion;
        c.requester = r.requester;
        c.completer = completer;
        c.tag = r.tag;
        uint32_t n = std::min(words - done, max_words);
        for (uint32_t i = 0; i < n; i++) {
            auto it = m.find(a + 8ull * (done + i));
            c.data.push_back(it == m.end() ? 0 : it->second);
        }
        done += n;
        c.last = done == words;
        c.note = "answers #" + std::to_string(r.serial);
        out.push_back(std::move(c));
    } while (done < words);
    return out;
}

bool root_complex::can_accept(size_t port, const tlp &t) {
    uint16_t target = t.is_request() ? address_owner(t.addr) : t.requester;
    if (target != root_complex_id) return ports[port_towards(target)]->out.has_room(t);
    if (t.cls() == non_posted) {   // room for the (first) completion before taking the request
        tlp probe;
        probe.kind = tlp_kind::completion_data;
        probe.data.resize(std::min<uint32_t>(std::max<uint32_t>(t.read_words, 1), max_payload_words));
        return ports[port]->out.has_room(probe);
    }
    return true;
}

void root_complex::accept(size_t port, tlp t) {
    uint16_t target = t.is_request() ? address_owner(t.addr) : t.requester;
    if (target != root_complex_id) {
        fab_.log(&t, "root complex turns it down root port " + std::to_string(port_towards(target)));
        turned_down += t.is_request();
        send(port_towards(target), std::move(t));
        return;
    }
    switch (t.kind) {
    case tlp_kind::mem_write:
        fab_.log(&t, "written to host memory");
        apply_write(host_memory, t.addr, t);
        if (vm_copied) {
            late_writes.push_back("host memory write after the VM memory was copied: " + describe(t));
            fab_.log(nullptr, late_writes.back());
        }
        break;
    case tlp_kind::mem_read:
    case tlp_kind::fetch_add:
        answer(port, t);
        break;
    default:   // a completion for the CPU
        if (!cpu_waiting_ || t.tag != cpu_tag_)
            throw std::runtime_error("root complex: unexpected completion " + describe(t));
        fab_.log(&t, "CPU reads it");
        cpu_words_.insert(cpu_words_.end(), t.data.begin(), t.data.end());
        if (!t.last) return;
        cpu_waiting_ = false;
        cpu_completion_.notify(SC_ZERO_TIME);
    }
}

void root_complex::answer(size_t port, const tlp &r) {
    fab_.log(&r, "host memory answers");
    std::vector<tlp> cpls = completions_for(r, id, host_memory, r.addr, max_payload_words);
    if (r.kind == tlp_kind::fetch_add) host_memory[r.addr] += r.data.at(0);
    for (tlp &c : cpls) {
        fab_.stamp(c);
        send(port, std::move(c));
    }
}

void root_complex::mmio_write(uint16_t device, uint64_t offset, uint64_t value,
                              const std::string &note) {
    mmio_write_words(device, offset, {value}, note);
}

void root_complex::mmio_write_words(uint16_t device, uint64_t offset,
                                    const std::vector<uint64_t> &words, const std::string &note) {
    tlp t;
    t.kind = tlp_kind::mem_write;
    t.requester = id;
    t.addr = bar_base(device) + offset;
    t.data = words;
    t.id_ordering = mmio_id_ordering;
    t.note = note;
    fab_.stamp(t);
    send(port_towards(device), std::move(t));
}

uint64_t root_complex::mmio_read(uint16_t device, uint64_t offset, const std::string &note) {
    std::vector<uint64_t> w = mmio_read_words(device, offset, 1, note);
    return w.empty() ? 0 : w[0];
}

std::vector<uint64_t> root_complex::mmio_read_words(uint16_t device, uint64_t offset,
                                                    uint32_t words, const std::string &note) {
    tlp t;
    t.kind = tlp_kind::mem_read;
    t.requester = id;
    t.tag = ++cpu_tag_;
    t.addr = bar_base(device) + offset;
    t.read_words = words;
    t.note = note;
    fab_.stamp(t);
    cpu_waiting_ = true;
    cpu_words_.clear();
    send(port_towards(device), std::move(t));
    while (cpu_waiting_) wait(cpu_completion_);
    return cpu_words_;
}

void root_complex::copy_vm_memory() {
    vm_copy = host_memory;
    vm_copied = true;
    fab_.log(nullptr, "hypervisor copies VM memory (" + std::to_string(vm_copy.size()) + " words)");
}
