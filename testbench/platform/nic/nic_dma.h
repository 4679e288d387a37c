// nic_dma.h — a NIC's DMA ports (testbench/lib/hostmem.h's port contract, one per DMA block)
// carried as TLPs (docs/pcie-platform.md section 10):
//   - a write beat (1..64 bytes at any address) is one MWr, two if it crosses a 4 KiB
//     boundary (PCIe forbids a request to); the payload covers whole 8-byte words and the
//     byte enables name the bytes written;
//   - a read (1..4096 bytes) is split at max_read_request-aligned boundaries into MRds of whole
//     words, each with a tag of its own; their completions (D5b keeps one MRd's in order,
//     different MRds' may pass each other) are gathered per read, and the response beats go
//     back to the NIC in request order per port, as the port contract says;
//   - req_ready is low while the endpoint's outgoing queue is full, the port has max_reads
//     reads outstanding, or fewer tags are free than one read may need; it never depends on
//     the request itself.
// TLPs leave through the endpoint's outgoing queue in the order the ports' requests were
// accepted (ports in index order within a cycle), so a read never passes an earlier write of
// the NIC (the fabric's B2a keeps that order to host memory).
// The flush read of Suspend-Active (seed 004 DA12, DESIGN.md section 7): one zero-length MRd
// to every peer BAR (any address above host memory) the NIC's DMA wrote since the last flush,
// behind those writes in the same queue; the fabric's B2a keeps it behind them in every
// buffer, so its completion says they have landed. Peers are tracked per NIC, not per
// function: a function's flush also reads the peers its NIC's other functions wrote, which
// costs a read and loses nothing.
#pragma once
#include "tlp.h"
#include "hostmem_c.h"
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

struct nic_dma_limits {
    uint32_t max_read_request = 512;   // bytes per MRd (PCIe Max_Read_Request_Size)
    uint32_t max_reads = 8;            // reads outstanding per port
    size_t out_queue = 16;             // TLPs waiting to enter the link before req_ready drops
};

struct nic_dma_stats {
    uint64_t reads = 0, read_bytes = 0, mrds = 0;
    uint64_t writes = 0, write_bytes = 0, mwrs = 0;
    uint64_t stall_cycles = 0;   // cycles a port offered a request that was not taken
};

class nic_dma {
public:
    // requester: the endpoint's id; out: its outgoing TLP queue (the endpoint stamps and sends)
    nic_dma(uint16_t requester, unsigned ports, std::deque<tlp> &out, nic_dma_limits lim = {});
    void eval(unsigned port, hostmem_port_out_t *o);
    void edge(unsigned port, const hostmem_port_in_t *in);
    // A completion for this requester: false (and why) if it answers no MRd of ours.
    bool complete(const tlp &t, std::string &why);
    bool idle() const;   // nothing outstanding
    size_t flush_peer_writes();   // queues the flush reads (above); how many
    bool flushing() const { return flush_reads_ > 0; }
    // The TLP came from the datapath's DMA ports (not a register completion, the card's
    // firmware or a flush read): what the link checker watches after Suspend-Active.
    static bool from_datapath(const tlp &t) { return t.is_request() && t.note.rfind(datapath_note, 0) == 0; }
    const nic_dma_stats &stats() const { return stats_; }
    std::vector<std::string> errors;   // malformed requests from the NIC

private:
    struct chunk { uint32_t offset, bytes, got; };   // one MRd's share of a read's buffer
    struct read_req {
        uint16_t nic_tag;
        uint64_t addr;
        uint32_t len;
        uint64_t start;                // addr rounded down to a word
        std::vector<uint8_t> buf;      // [start, start + buf.size())
        std::vector<chunk> chunks;
        uint32_t beat = 0;             // next response beat
        bool err = false;              // malformed: one err beat
    };
    bool beat_ready(const read_req &r) const;
    void read(unsigned port, const hostmem_req_t &q);
    void write(const hostmem_req_t &q);
    uint32_t tags_per_read() const { return 4096 / lim_.max_read_request + 1; }

    uint16_t requester_;
    std::deque<tlp> &out_;
    nic_dma_limits lim_;
    std::vector<std::deque<std::unique_ptr<read_req>>> reads_;   // per port, request order
    static constexpr const char *datapath_note = "NIC DMA";
    uint8_t free_tag();
    struct tag_use { read_req *read; size_t chunk; };   // read nullptr: a flush read
    std::map<uint8_t, tag_use> tags_;                            // MRds in flight
    uint8_t next_tag_ = 0;
    std::set<uint16_t> written_peers_;                           // since the last flush
    size_t flush_reads_ = 0;                                     // flush reads unanswered
    std::vector<bool> offered_;                                  // eval said ready, per port
    nic_dma_stats stats_;
};
