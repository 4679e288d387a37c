// nic_endpoint.cc — BAR TLPs to the NIC's registers, the NIC's DMA to TLPs.
#include "nic_endpoint.h"
#include "address_map.h"
#include "root_complex.h"
#include <algorithm>

using namespace sc_core;

nic_endpoint::nic_endpoint(sc_module_name name, fabric_context &fab, uint16_t id, nic_models_t *models,
                           unsigned nic, unsigned dma_ports, nic_dma_limits lim)
    : fabric_node(name, fab, id), models_(models), nic_(nic), dma_(id, dma_ports, out_, lim) {
    SC_HAS_PROCESS(nic_endpoint);
    SC_THREAD(transmit);
}

// One TLP at a time into the transmit buffer, waiting for room; the DMA side adds to out_ on
// the NIC's clock and pokes the fabric, which wakes this thread.
void nic_endpoint::transmit() {
    for (;;) {
        while (out_.empty()) wait(fab_.changed);
        tlp t = std::move(out_.front());
        out_.pop_front();
        fab_.stamp(t);
        if (quiet_ && nic_dma::from_datapath(t)) {
            if (made_before_answer_) made_before_answer_--;
            else sent_while_quiet.push_back(std::string(basename()) + ": " + describe(t) + " sent at " +
                                            std::to_string(uint64_t(fab_.now_ns())) + " ns, after " + quiet_why_);
        }
        send(0, std::move(t));
    }
}

void nic_endpoint::push(tlp t) {
    out_.push_back(std::move(t));
    fab_.poke();
}

void nic_endpoint::send_request(tlp t) {
    t.requester = id;
    push(std::move(t));
}

size_t nic_endpoint::flush_peer_writes() {
    size_t n = dma_.flush_peer_writes();
    fab_.poke();
    return n;
}

void nic_endpoint::set_quiet(bool on, const std::string &why) {
    quiet_ = on;
    quiet_why_ = why;
    made_before_answer_ = 0;
}

void nic_endpoint::set_quiet_from_answer(const std::string &why) {
    set_quiet(true, why);
    made_before_answer_ = size_t(std::count_if(out_.begin(), out_.end(), nic_dma::from_datapath));
}

void nic_endpoint::register_write(uint64_t off, uint64_t v) {
    if (window && window->owns(off)) window->write(off, v);
    else nic_models_bar_write(models_, nic_, off, v);
}

uint64_t nic_endpoint::register_read(uint64_t off) {
    return window && window->owns(off) ? window->read(off) : nic_models_bar_read(models_, nic_, off);
}

// Completions go to the outgoing queue, which has no bound: every request can be taken.
bool nic_endpoint::can_accept(size_t, const tlp &) { return true; }

void nic_endpoint::accept(size_t, tlp t) {
    if (!t.is_request()) {
        std::string why;
        if (t.requester != id || !dma_.complete(t, why))
            errors.push_back(std::string(basename()) + ": " + (why.empty() ? "completion for another requester: " + describe(t) : why));
        return;
    }
    uint64_t off = t.addr - bar_base(id);
    if (off >= device_memory_base) return device_memory_access(t, off);
    if (t.kind == tlp_kind::mem_write) {
        if (t.first_be != 0xff || t.last_be != 0xff) {
            errors.push_back(std::string(basename()) + ": register write with partial byte enables: " + describe(t));
            return;
        }
        fab_.log(&t, std::string(basename()) + " register write");
        mmio_writes++;
        for (size_t i = 0; i < t.data.size(); i++) register_write(off + 8 * i, t.data[i]);
        return;
    }
    if (t.kind != tlp_kind::mem_read) {
        errors.push_back(std::string(basename()) + ": unsupported request " + describe(t));
        return;
    }
    fab_.log(&t, std::string(basename()) + " register read");
    mmio_reads++;
    word_memory regs;
    for (uint32_t i = 0; i < t.read_words; i++) regs[off + 8 * i] = register_read(off + 8 * i);
    for (tlp &c : completions_for(t, id, regs, off, root_complex::max_payload_words)) push(std::move(c));
}

void nic_endpoint::capture_device_memory() {
    device_memory_image_ = device_memory_;
    captured_ = true;
    fab_.log(nullptr, std::string(basename()) + " device memory captured: " + std::to_string(device_memory_.size()) + " words");
}

void nic_endpoint::device_memory_access(const tlp &t, uint64_t off) {
    if (t.kind == tlp_kind::mem_write) {
        if (captured_) {
            losses.push_back(std::string(basename()) + " received " + describe(t) + " after its device memory was captured");
            fab_.log(&t, "ARRIVES AFTER CAPTURE: lost");
            lost.push_back(t);
            return;
        }
        fab_.log(&t, std::string(basename()) + " device memory write");
        apply_write(device_memory_, off, t);
        return;
    }
    if (t.kind != tlp_kind::mem_read) {
        errors.push_back(std::string(basename()) + ": unsupported request in device memory " + describe(t));
        return;
    }
    for (tlp &c : completions_for(t, id, device_memory_, off, root_complex::max_payload_words)) push(std::move(c));
}
