// nic_dma.cc — a NIC's DMA ports as TLPs; nic_dma.h says how.
#include "nic_dma.h"
#include "address_map.h"
#include <algorithm>
#include <cstdio>
#include <cstring>

nic_dma::nic_dma(uint16_t requester, unsigned ports, std::deque<tlp> &out, nic_dma_limits lim)
    : requester_(requester), out_(out), lim_(lim), reads_(ports), offered_(ports) {}

bool nic_dma::idle() const {
    for (auto &q : reads_)
        if (!q.empty()) return false;
    return tags_.empty();
}

void nic_dma::eval(unsigned port, hostmem_port_out_t *o) {
    memset(o, 0, sizeof *o);
    o->req_ready = out_.size() < lim_.out_queue && reads_[port].size() < lim_.max_reads &&
                   256 - tags_.size() >= tags_per_read();
    offered_[port] = o->req_ready;
    if (reads_[port].empty()) return;
    const read_req &r = *reads_[port].front();
    if (!beat_ready(r)) return;
    o->resp_valid = true;
    o->resp.tag = r.nic_tag;
    o->resp.beat = r.beat;
    if (r.err) {
        o->resp.err = o->resp.last = true;
        o->resp.bytes = 1;
        return;
    }
    uint32_t from = 64 * r.beat, n = std::min<uint32_t>(64, r.len - from);
    memcpy(o->resp.data, r.buf.data() + (r.addr - r.start) + from, n);
    o->resp.bytes = uint8_t(n);
    o->resp.last = from + n == r.len;
}

// Every byte of the next beat has arrived: the MRds covering it have delivered that far
// (one MRd's completions arrive in order, D5b, so each chunk fills from its start).
bool nic_dma::beat_ready(const read_req &r) const {
    if (r.err) return true;
    uint64_t lo = (r.addr - r.start) + 64ull * r.beat;
    uint64_t hi = (r.addr - r.start) + std::min<uint64_t>(64ull * (r.beat + 1), r.len);
    for (const chunk &c : r.chunks) {
        if (c.offset + c.bytes <= lo || c.offset >= hi) continue;
        if (c.offset + c.got < std::min<uint64_t>(hi, c.offset + c.bytes)) return false;
    }
    return true;
}

void nic_dma::edge(unsigned port, const hostmem_port_in_t *in) {
    if (in->req_valid && !offered_[port]) stats_.stall_cycles++;
    if (in->req_valid && offered_[port]) {
        if (in->req.op == HOSTMEM_OP_WRITE) write(in->req);
        else read(port, in->req);
    }
    auto &q = reads_[port];
    if (in->resp_ready && !q.empty() && beat_ready(*q.front())) {
        read_req &r = *q.front();
        if (r.err || 64 * ++r.beat >= r.len) q.pop_front();
    }
}

void nic_dma::read(unsigned port, const hostmem_req_t &q) {
    auto r = std::make_unique<read_req>();
    r->nic_tag = q.tag;
    r->addr = q.addr;
    r->len = q.len;
    if (q.len == 0 || q.len > 4096) {
        char why[128];
        snprintf(why, sizeof why, "DMA port %u: read of %u bytes at 0x%llx (1..4096 allowed)", port, q.len,
                 (unsigned long long)q.addr);
        errors.push_back(why);
        r->err = true;
        reads_[port].push_back(std::move(r));
        return;
    }
    r->start = q.addr & ~7ull;
    uint64_t end = (q.addr + q.len + 7) & ~7ull;
    r->buf.assign(end - r->start, 0);
    for (uint64_t a = r->start; a < end;) {
        uint64_t next = std::min<uint64_t>(end, (a / lim_.max_read_request + 1) * lim_.max_read_request);
        r->chunks.push_back({uint32_t(a - r->start), uint32_t(next - a), 0});
        a = next;
    }
    for (size_t i = 0; i < r->chunks.size(); i++) {
        tlp t;
        t.kind = tlp_kind::mem_read;
        t.requester = requester_;
        t.tag = free_tag();
        t.addr = r->start + r->chunks[i].offset;
        t.read_words = r->chunks[i].bytes / 8;
        t.note = std::string(datapath_note) + " read, port " + std::to_string(port);
        tags_[t.tag] = {r.get(), i};
        out_.push_back(std::move(t));
        stats_.mrds++;
    }
    stats_.reads++;
    stats_.read_bytes += q.len;
    reads_[port].push_back(std::move(r));
}

void nic_dma::write(const hostmem_req_t &q) {
    uint32_t len = std::min<uint32_t>(q.len, 64);
    stats_.writes++;
    stats_.write_bytes += len;
    // at most two pieces: a 64-byte beat crosses at most one 4 KiB boundary
    for (uint32_t done = 0; done < len;) {
        uint64_t a = q.addr + done;
        uint32_t n = uint32_t(std::min<uint64_t>(len - done, 4096 - (a & 4095)));
        uint64_t start = a & ~7ull, end = (a + n + 7) & ~7ull;
        std::vector<uint8_t> bytes(end - start, 0);
        memcpy(bytes.data() + (a - start), q.data + done, n);
        tlp t;
        t.kind = tlp_kind::mem_write;
        t.requester = requester_;
        t.addr = start;
        t.data.resize(bytes.size() / 8);
        memcpy(t.data.data(), bytes.data(), bytes.size());
        t.first_be = uint8_t(0xff << (a - start));
        t.last_be = uint8_t(0xff >> (end - (a + n)));
        t.note = std::string(datapath_note) + " write";
        if (address_owner(start) != root_complex_id) written_peers_.insert(address_owner(start));
        out_.push_back(std::move(t));
        stats_.mwrs++;
        done += n;
    }
}

uint8_t nic_dma::free_tag() {
    while (tags_.count(next_tag_)) next_tag_++;
    return next_tag_++;
}

size_t nic_dma::flush_peer_writes() {
    for (uint16_t peer : written_peers_) {
        tlp t;
        t.kind = tlp_kind::mem_read;
        t.requester = requester_;
        t.tag = free_tag();
        t.addr = bar_base(peer) + bar_memory;
        t.read_words = 0;
        t.note = "flush read of node " + std::to_string(peer);
        tags_[t.tag] = {nullptr, 0};
        out_.push_back(std::move(t));
        flush_reads_++;
    }
    size_t n = written_peers_.size();
    written_peers_.clear();
    return n;
}

bool nic_dma::complete(const tlp &t, std::string &why) {
    auto it = tags_.find(t.tag);
    if (it == tags_.end()) {
        why = "completion for no DMA read in flight: " + describe(t);
        return false;
    }
    if (!it->second.read) {   // a flush read: one completion without data
        if (!t.data.empty() || !t.last) {
            why = "a flush read answered with data or in pieces: " + describe(t);
            return false;
        }
        tags_.erase(it);
        flush_reads_--;
        return true;
    }
    read_req &r = *it->second.read;
    chunk &c = r.chunks[it->second.chunk];
    uint32_t n = uint32_t(8 * t.data.size());
    if (c.got + n > c.bytes) {
        why = "completion carries more than its MRd asked for: " + describe(t);
        return false;
    }
    memcpy(r.buf.data() + c.offset + c.got, t.data.data(), n);
    c.got += n;
    if (t.last) {
        if (c.got != c.bytes) {
            why = "last completion leaves its MRd short: " + describe(t);
            return false;
        }
        tags_.erase(it);
    }
    return true;
}
