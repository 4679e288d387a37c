// mem_device.cc — the GPU-like device's traffic, BAR and suspend levels.
#include "mem_device.h"
#include "address_map.h"

using namespace sc_core;

const char *level_name(uint64_t level) {
    static const char *const names[] = {"running", "Suspend-Active pending", "Suspend-Active",
                                        "Suspend-Passive"};
    return level < 4 ? names[level] : "?";
}

mem_device::mem_device(sc_module_name name, fabric_context &fab, uint16_t id,
                       std::vector<device_op> script)
    : endpoint(name, fab, id), script_(std::move(script)) {
    SC_HAS_PROCESS(mem_device);
    SC_THREAD(run_script);
}

void mem_device::run_script() {
    for (const device_op &op : script_) {
        if (op.gap_ns > 0 && level_ == level_run) wait(sc_time(op.gap_ns, SC_NS), suspend_requested_);
        if (level_ != level_run) return;   // Suspend-Active: start nothing new
        in_hand_ = true;
        started_++;
        issue(op);
        in_hand_ = false;
        maybe_suspend_active();
    }
}

// Its own hazard checks, as a DMA engine has them: the fabric may let a posted write pass
// an earlier read or atomic (A3/A4) and reads and atomics pass each other (B3-C4), so a
// host write or atomic waits for every read and atomic out, and a read for every atomic out.
// With these the results depend only on the rules that say "No", never on a "Y/N" choice.
void mem_device::fence(const device_op &op) {
    if (op.kind == device_op::p2p_write) return;
    for (;;) {
        bool clash = op.kind == device_op::dma_read ? atomics_out_ > 0 : !reads_.empty();
        if (!clash) return;
        wait(read_done_);
    }
}

void mem_device::issue(const device_op &op) {
    fence(op);
    tlp t;
    t.requester = id;
    t.addr = op.addr;
    t.note = op.note;
    switch (op.kind) {
    case device_op::p2p_write:
        written_peers_.insert(address_owner(op.addr));
        [[fallthrough]];
    case device_op::dma_write:
        t.kind = tlp_kind::mem_write;
        t.data = op.data;
        break;
    case device_op::dma_read:
    case device_op::fetch_add:
        t.kind = op.kind == device_op::dma_read ? tlp_kind::mem_read : tlp_kind::fetch_add;
        t.read_words = op.words;
        t.data = op.data;
        t.tag = next_tag_++;
        reads_[t.tag] = {op.local, 0, op.kind == device_op::fetch_add};
        atomics_out_ += op.kind == device_op::fetch_add;
        break;
    }
    send_own(std::move(t));
}

void mem_device::send_own(tlp t) {
    t.relaxed_ordering = set_relaxed_ordering;
    t.id_ordering = set_id_ordering;
    fab_.stamp(t);
    send(0, std::move(t));
}

bool mem_device::can_accept(size_t port, const tlp &t) {
    if (t.cls() != non_posted) return true;
    tlp probe;   // room for the completion before taking the read
    probe.kind = tlp_kind::completion_data;
    probe.data.resize(std::min<uint32_t>(std::max<uint32_t>(t.read_words, 1),
                                         root_complex::max_payload_words));
    return ports[port]->out.has_room(probe);
}

void mem_device::accept(size_t, tlp t) {
    if (!t.is_request()) return complete(t);
    uint64_t off = t.addr - bar_base(id);
    if (t.kind == tlp_kind::mem_write && off == reg_suspend) return write_register(t);
    if (t.kind == tlp_kind::mem_write) {
        if (level_ == level_sp) {
            losses.push_back(std::string(basename()) + " received " + describe(t) +
                             " after its state was captured: not in the image");
            fab_.log(&t, "ARRIVES AFTER CAPTURE: lost");
            lost.push_back(t);
            last_loss_ns = fab_.now_ns();
            return;
        }
        fab_.log(&t, std::string(basename()) + " applies it");
        apply_write(memory_, off, t);
        return;
    }
    if (t.kind != tlp_kind::mem_read) {
        errors.push_back(std::string(basename()) + ": unsupported request " + describe(t));
        return;
    }
    fab_.log(&t, std::string(basename()) + " answers");
    word_memory regs = {{reg_status, level_}};
    const word_memory &src = off == reg_status ? regs : memory_;
    for (tlp &c : completions_for(t, id, src, off, root_complex::max_payload_words)) send_own(std::move(c));
}

void mem_device::write_register(const tlp &t) {
    uint64_t v = t.data.empty() ? 0 : t.data[0];
    fab_.log(&t, std::string(basename()) + " suspend register := " + std::to_string(v));
    if (v == 1 && level_ == level_run) {
        set_level(level_sa_pending);
        suspend_requested_.notify(SC_ZERO_TIME);
        maybe_suspend_active();
    } else if (v == 2 && level_ == level_sa) {
        image_ = memory_;
        set_level(level_sp);
        fab_.log(nullptr, std::string(basename()) + " state captured: image holds " +
                              std::to_string(image_.size()) + " words");
    } else {
        errors.push_back(std::string(basename()) + ": suspend register written with " +
                         std::to_string(v) + " while " + level_name(level_) + " (" + describe(t) + ")");
    }
}

void mem_device::complete(const tlp &t) {
    auto it = reads_.find(t.tag);
    if (it == reads_.end() || t.requester != id) {
        errors.push_back(std::string(basename()) + ": completion for no read of ours: " + describe(t));
        return;
    }
    if (level_ == level_sp) {
        losses.push_back(std::string(basename()) + " received " + describe(t) + " after its capture");
        return;
    }
    // Data lands at the running offset: the completions of one read arrive in order (D5b).
    pending_read &r = it->second;
    for (uint64_t w : t.data) memory_[r.local + 8ull * r.words_in++] = w;
    fab_.log(&t, std::string(basename()) + " stores the read data");
    if (t.last) {
        atomics_out_ -= r.atomic;
        reads_.erase(it);
        read_done_.notify(SC_ZERO_TIME);
    }
    maybe_suspend_active();
}

// Called whenever what Suspend-Active waits for may have ended; the flush reads' completions
// call it again.
void mem_device::maybe_suspend_active() {
    if (level_ != level_sa_pending || in_hand_ || !reads_.empty()) return;
    if (flush_read && !written_peers_.empty()) return flush_written_peers();
    set_level(level_sa);
}

// One zero-length MRd per peer, all tagged before the first is sent: reads_ stays non-empty
// until the last completion.
void mem_device::flush_written_peers() {
    std::vector<tlp> reads;
    for (uint16_t peer : written_peers_) {
        tlp t;
        t.kind = tlp_kind::mem_read;
        t.requester = id;
        t.addr = bar_base(peer) + ::bar_memory;
        t.read_words = 0;
        t.tag = next_tag_++;
        t.note = "flush read of dev" + std::to_string(peer);
        reads_[t.tag] = {0, 0, false};
        reads.push_back(std::move(t));
    }
    written_peers_.clear();
    for (tlp &t : reads) send_own(std::move(t));
}

void mem_device::set_level(uint64_t level) {
    level_ = level;
    fab_.log(nullptr, std::string(basename()) + " is now " + level_name(level));
}
