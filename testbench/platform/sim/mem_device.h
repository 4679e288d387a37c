// mem_device.h — a "GPU-like" endpoint: a memory BAR that peers and the host write into,
// and a script of its own traffic: peer-to-peer writes into other devices' BARs, DMA writes
// and reads of host memory (read data lands in its BAR memory), and fetch-and-add atomics.
//
// Suspend semantics of the NIC (docs/migration.md section 2, DESIGN.md section 6):
//   Suspend-Active: starts no new operation; the one in hand still goes out; waits for the
//     completions of its reads; then reports Suspend-Active. Still applies incoming writes
//     and answers reads (DA12).
//     With flush_read (seed 004 DA12, DESIGN.md section 7), before it reports Suspend-Active
//     it reads zero bytes from every peer BAR it wrote since its last such read and waits
//     for every completion: the read cannot pass those writes in any buffer (B2a), so on a
//     switch that keeps order per (ingress, egress) pair only they have landed when it
//     reports.
//   Suspend-Passive: the state is captured at once (the image = the BAR memory); any TLP
//     arriving later for its memory is dropped and recorded as lost.
#pragma once
#include "endpoint.h"
#include <map>
#include <set>

struct device_op {
    enum kind_t { p2p_write, dma_write, dma_read, fetch_add } kind;
    uint64_t addr;                // target: peer BAR address or host address
    std::vector<uint64_t> data;   // writes: the words; fetch_add: the operand
    uint32_t words = 0;           // dma_read: words to read
    uint64_t local = 0;           // dma_read / fetch_add: BAR offset the answer goes to
    double gap_ns = 0;            // idle time before starting it
    std::string note;
};

class mem_device : public endpoint {
public:
    mem_device(sc_core::sc_module_name name, fabric_context &fab, uint16_t id,
               std::vector<device_op> script);
    // Attribute bits the device sets on every TLP it sends (requests and completions).
    bool set_relaxed_ordering = false, set_id_ordering = false;
    bool flush_read = false;   // Suspend-Active ends with the flush read (above)
    size_t ops_started() const override { return started_; }
    bool script_done() const override { return started_ == script_.size() && reads_.empty(); }
    const word_memory &bar_memory() const override { return memory_; }
    const word_memory &image() const override { return image_; }
    bool captured() const override { return level_ == level_sp; }

protected:
    bool can_accept(size_t port, const tlp &t) override;
    void accept(size_t port, tlp t) override;

private:
    struct pending_read { uint64_t local; uint32_t words_in; bool atomic; };
    void fence(const device_op &op);
    void run_script();
    void issue(const device_op &op);
    void write_register(const tlp &t);
    void complete(const tlp &t);
    void maybe_suspend_active();
    void flush_written_peers();
    void set_level(uint64_t level);
    void send_own(tlp t);

    std::vector<device_op> script_;
    size_t started_ = 0;
    bool in_hand_ = false;
    uint64_t level_ = level_run;
    word_memory memory_, image_;
    std::map<uint8_t, pending_read> reads_;
    int atomics_out_ = 0;
    sc_core::sc_event read_done_;
    uint8_t next_tag_ = 0;
    sc_core::sc_event suspend_requested_;
    std::set<uint16_t> written_peers_;   // peers written since the last flush read
};
