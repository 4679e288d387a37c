// nic_dma_test.cc — nic_dma on its own (no fabric): the TLPs a NIC's DMA requests become and
// the response beats completions become. One PASS/FAIL line per check.
//   - an unaligned write beat: one MWr of whole words, byte enables naming exactly its bytes;
//   - a write beat across a 4 KiB boundary: two MWrs, split at the boundary;
//   - an unaligned 1500-byte read: three MRds split at 512-byte boundaries, distinct tags;
//     completions answered last MRd first: no beat before its bytes are there, then 24 beats
//     in order carrying exactly the requested bytes, the last one short and marked last;
//   - a 0-byte read: one error beat and an error recorded;
//   - req_ready drops with max_reads reads outstanding on a port;
//   - a completion for no MRd in flight is refused with the TLP named;
//   - the flush read: writes to two peer BARs and to host memory, then one zero-length MRd
//     per peer BAR, behind the writes; flushing until both are answered; a flush answered
//     with data is refused; nothing written since: no flush read.
#include "nic_dma.h"
#include "address_map.h"
#include <cstdio>
#include <cstring>

namespace {

int failed = 0;
void check(bool ok, const char *name, const std::string &why) {
    printf("%s platform/nic-dma/%s%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": ", ok ? "" : why.c_str());
    failed += !ok;
}

uint8_t mem_byte(uint64_t a) { return uint8_t(a * 7 + 3); }

hostmem_port_in_t request(uint8_t op, uint64_t addr, uint32_t len, uint16_t tag = 0) {
    hostmem_port_in_t in{};
    in.req_valid = true;
    in.req.op = op;
    in.req.addr = addr;
    in.req.len = len;
    in.req.tag = tag;
    for (uint32_t i = 0; i < len && i < 64; i++) in.req.data[i] = uint8_t(0xa0 + i);
    return in;
}

// One cycle: eval then edge, as nic_tb does; the response beat offered, if any.
bool cycle(nic_dma &d, unsigned port, const hostmem_port_in_t &in, hostmem_port_out_t &out) {
    d.eval(port, &out);
    d.edge(port, &in);
    return out.resp_valid;
}

// The completions host memory would send for MRd t (64 bytes each).
std::vector<tlp> answer(const tlp &t) {
    std::vector<tlp> out;
    for (uint32_t w = 0; w < t.read_words; w += 8) {
        tlp c;
        c.kind = tlp_kind::completion_data;
        c.requester = t.requester;
        c.tag = t.tag;
        for (uint32_t i = w; i < t.read_words && i < w + 8; i++) {
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--) v = v << 8 | mem_byte(t.addr + 8 * i + b);
            c.data.push_back(v);
        }
        c.last = w + 8 >= t.read_words;
        out.push_back(c);
    }
    return out;
}

void writes() {
    std::deque<tlp> q;
    nic_dma d(3, 1, q);
    hostmem_port_out_t o;
    cycle(d, 0, request(HOSTMEM_OP_WRITE, 0x1003, 64), o);
    bool ok = q.size() == 1 && q[0].kind == tlp_kind::mem_write && q[0].addr == 0x1000 && q[0].data.size() == 9 &&
              q[0].first_be == 0xf8 && q[0].last_be == 0x07 && q[0].requester == 3;
    bool bytes = ok;
    for (int i = 0; ok && i < 64; i++)
        bytes &= uint8_t(q[0].data[(3 + i) / 8] >> (8 * ((3 + i) % 8))) == uint8_t(0xa0 + i);
    char why[160] = "";
    if (!q.empty())
        snprintf(why, sizeof why, "%zu TLP(s); first at 0x%llx, %zu words, BE 0x%02x/0x%02x", q.size(),
                 (unsigned long long)q[0].addr, q[0].data.size(), q[0].first_be, q[0].last_be);
    check(ok && bytes, "unaligned write beat: one MWr of 9 words, byte enables 0xf8 / 0x07, the bytes in place", why);
    q.clear();
    cycle(d, 0, request(HOSTMEM_OP_WRITE, 0x1ff0, 64), o);
    ok = q.size() == 2 && q[0].addr == 0x1ff0 && q[0].data.size() == 2 && q[1].addr == 0x2000 &&
         q[1].data.size() == 6 && q[0].first_be == 0xff && q[1].last_be == 0xff;
    check(ok, "write beat across 4 KiB: two MWrs, 16 bytes below 0x2000 and 48 from it",
          std::to_string(q.size()) + " TLP(s)");
}

void reads() {
    std::deque<tlp> q;
    nic_dma d(3, 1, q);
    hostmem_port_out_t o;
    hostmem_port_in_t idle{};
    idle.resp_ready = true;
    cycle(d, 0, request(HOSTMEM_OP_READ, 0x3005, 1500, 77), o);
    bool split = q.size() == 3 && q[0].addr == 0x3000 && q[0].read_words == 64 && q[1].addr == 0x3200 &&
                 q[1].read_words == 64 && q[2].addr == 0x3400 && q[2].read_words == 61 && q[0].tag != q[1].tag &&
                 q[1].tag != q[2].tag && q[0].tag != q[2].tag;
    check(split, "1500-byte read at 0x3005: MRds of 64, 64, 61 words at 512-byte boundaries, distinct tags",
          std::to_string(q.size()) + " MRd(s)");
    if (!split) return;
    std::vector<tlp> mrd(q.begin(), q.end());
    std::string why;
    bool early = false;
    for (const tlp &c : answer(mrd[2])) {
        if (!d.complete(c, why)) break;
        early |= cycle(d, 0, hostmem_port_in_t{}, o);
    }
    check(!early && why.empty(), "no beat while the first MRd has not answered", why.empty() ? "a beat was offered" : why);
    std::vector<uint8_t> got;
    unsigned beats = 0;
    bool in_order = true, last_ok = false;
    for (int m : {0, 1})
        for (const tlp &c : answer(mrd[m])) {
            d.complete(c, why);
            while (cycle(d, 0, idle, o)) {
                in_order &= o.resp.beat == beats && o.resp.tag == 77;
                got.insert(got.end(), o.resp.data, o.resp.data + o.resp.bytes);
                last_ok = o.resp.last && o.resp.bytes == 28;
                beats++;
            }
        }
    bool bytes = got.size() == 1500;
    for (size_t i = 0; bytes && i < got.size(); i++) bytes = got[i] == mem_byte(0x3005 + i);
    check(in_order && beats == 24 && last_ok && bytes && d.idle(),
          "completions out of MRd order: 24 beats in order, exactly bytes 0x3005..0x35e0, the last of 28 bytes",
          std::to_string(beats) + " beats, " + std::to_string(got.size()) + " bytes" + (bytes ? "" : ", wrong bytes"));
}

void malformed_and_limits() {
    std::deque<tlp> q;
    nic_dma_limits lim;
    lim.max_reads = 2;
    nic_dma d(3, 2, q, lim);
    hostmem_port_out_t o;
    hostmem_port_in_t idle{};
    idle.resp_ready = true;
    cycle(d, 1, request(HOSTMEM_OP_READ, 0x100, 0), o);
    bool err = cycle(d, 1, idle, o) && o.resp.err && o.resp.last && q.empty() && d.errors.size() == 1;
    check(err, "0-byte read: one error beat, no MRd, the error recorded",
          d.errors.empty() ? "no error recorded" : d.errors[0]);
    cycle(d, 0, request(HOSTMEM_OP_READ, 0x100, 8), o);
    cycle(d, 0, request(HOSTMEM_OP_READ, 0x200, 8), o);
    d.eval(0, &o);
    bool full = !o.req_ready;
    d.eval(1, &o);
    check(full && o.req_ready, "req_ready low on a port with max_reads reads outstanding, high on the other", "");
    tlp stray;
    stray.kind = tlp_kind::completion_data;
    stray.requester = 3;
    stray.tag = 200;
    stray.data = {1};
    std::string why;
    bool refused = !d.complete(stray, why) && why.find("no DMA read") != std::string::npos;
    check(refused, "a completion for no MRd in flight is refused, named", why);
}

void flush_reads() {
    std::deque<tlp> q;
    nic_dma d(3, 1, q);
    hostmem_port_out_t o;
    cycle(d, 0, request(HOSTMEM_OP_WRITE, bar_base(4) + bar_memory, 64), o);
    cycle(d, 0, request(HOSTMEM_OP_WRITE, 0x2000, 64), o);
    cycle(d, 0, request(HOSTMEM_OP_WRITE, bar_base(5) + bar_memory + 0x40, 64), o);
    cycle(d, 0, request(HOSTMEM_OP_WRITE, bar_base(4) + bar_memory + 0x80, 64), o);
    size_t writes = q.size(), n = d.flush_peer_writes();
    bool ok = writes == 4 && n == 2 && q.size() == 6 && d.flushing();
    for (size_t i = 4; ok && i < 6; i++)
        ok = q[i].kind == tlp_kind::mem_read && q[i].read_words == 0 && q[i].requester == 3 &&
             q[i].addr == bar_base(uint16_t(i == 4 ? 4 : 5)) + bar_memory && !nic_dma::from_datapath(q[i]);
    check(ok && nic_dma::from_datapath(q[0]), "flush: after writes to nodes 4, 5 (and host memory), one zero-length MRd to each peer BAR behind them",
          std::to_string(writes) + " writes, " + std::to_string(n) + " flush reads, " + std::to_string(q.size()) + " TLPs");
    tlp c;
    c.kind = tlp_kind::completion;
    c.requester = 3;
    c.tag = q[4].tag;
    std::string why;
    bool first = d.complete(c, why) && d.flushing();
    c.tag = q[5].tag;
    c.kind = tlp_kind::completion_data;
    c.data = {7};
    bool refused = !d.complete(c, why) && why.find("flush read") != std::string::npos;
    c.kind = tlp_kind::completion;
    c.data.clear();
    std::string why2;
    bool done = d.complete(c, why2) && !d.flushing() && d.idle();
    check(first && refused && done, "flush: flushing until both answer; one answered with data is refused, named", why + why2);
    q.clear();
    check(d.flush_peer_writes() == 0 && q.empty(), "flush: nothing written since: no flush read", std::to_string(q.size()) + " TLPs");
}

} // namespace

int main() {
    writes();
    reads();
    malformed_and_limits();
    flush_reads();
    return failed ? 1 : 0;
}
