// tlp.h — the transaction layer packets the platform carries (PCIe Base spec, chapter 2
// "Transaction Layer Specification"). Only what ordering, routing and flow control look at:
// the kind (which decides the class), who asked, where it goes, its payload, and the two
// ordering attributes. One traffic class (TC0) throughout.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

enum class tlp_kind { mem_write, mem_read, fetch_add, completion, completion_data };

// The three flow-control classes; a link has one queue and one credit pool per class.
enum tlp_class { posted = 0, non_posted = 1, completion = 2 };
constexpr int tlp_classes = 3;

// Node ids are PCIe requester / completer ids: 0 is the root complex (the CPU's requests and
// host memory), switches and endpoints are numbered after it.
constexpr uint16_t root_complex_id = 0;

struct tlp {
    tlp_kind kind = tlp_kind::mem_write;
    uint16_t requester = 0;        // requester id (for a completion: the original requester)
    uint16_t completer = 0;        // completions only: who answers
    uint8_t tag = 0;               // requester's tag; (requester, tag) is the transaction id
    uint64_t addr = 0;             // requests: target address; completions: unused
    uint32_t read_words = 0;       // mem_read: 8-byte words asked for (0: a zero-byte read)
    std::vector<uint64_t> data;    // payload in 8-byte words (writes, fetch_add operand, CplD)
    // mem_write: which bytes of the first and of the last payload word are written (bit i =
    // byte i), as PCIe's First / Last DW Byte Enables do for its 4-byte words; a one-word
    // write uses both masks. Full words by default.
    uint8_t first_be = 0xff, last_be = 0xff;
    bool last = true;              // completions: the final one of its request
    bool relaxed_ordering = false; // attribute bit RO
    bool id_ordering = false;      // attribute bit IDO
    uint32_t serial = 0;           // platform-wide number, for traces only
    std::string note;              // what the sender meant, for traces only

    tlp_class cls() const {
        switch (kind) {
        case tlp_kind::mem_write: return posted;
        case tlp_kind::mem_read:
        case tlp_kind::fetch_add: return non_posted;
        default: return completion;
        }
    }
    bool is_request() const { return cls() != completion; }
    // A non-posted request carrying data (the table's column / row "NPR with data").
    bool non_posted_with_data() const { return kind == tlp_kind::fetch_add; }
    uint32_t payload_bytes() const { return 8 * uint32_t(data.size()); }
    // Bytes on the wire: 4 DW header (64-bit addressing), payload, plus framing, sequence
    // number and LCRC (PCIe Base spec 4.2 / 3.3: 2 + 2 + 4 bytes at gen3 framing; rounded).
    uint32_t wire_bytes() const { return 16 + payload_bytes() + 8; }
    // Data credits: one per 16 bytes (4 DW) of payload (PCIe Base spec 2.6.1 "Flow Control").
    uint32_t data_credits() const { return (payload_bytes() + 15) / 16; }
};

const char *kind_name(tlp_kind k);
std::string describe(const tlp &t);   // "MWr 0x100001040 8B" style, for traces
