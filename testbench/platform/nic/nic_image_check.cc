// nic_image_check.cc — load, resume, run, compare; nic_image_check.h says what.
#include "nic_image_check.h"
#include "cpu_host_ops.h"
#include "direct_host_ops.h"
#include "nic_dest.h"
#include <cstdio>
#include <memory>

namespace {

// The same set-up and WRITE without PCIe and without migration, run until B's CQE: the spans'
// bytes afterwards; empty after a FAIL line.
std::vector<std::vector<uint8_t>> reference(const image_check_input &in) {
    nic_models_t *m = nic_models_new(in.iface.c_str(), in.mode.c_str(), 2, nullptr);
    if (!m) return {};
    direct_host_t host[2] = {{m, 0}, {m, 1}};
    nic_rc_setup_t s = in.setup;
    std::string prefix = std::string(s.prefix) + "/reference";
    s.prefix = prefix.c_str();
    s.ops[0] = direct_host_ops(&host[0]);
    s.ops[1] = direct_host_ops(&host[1]);
    std::vector<std::vector<uint8_t>> out;
    nic_rc_t *rc = nic_rc_new(&s);
    if (rc && nic_rc_wait_send(rc, 1, nic_rc_start_write(rc, 1, 0, in.write_len, 0), "WRITE B->A, run to its CQE")) {
        for (const memory_span &sp : in.spans) {
            out.emplace_back(sp.len);
            hostmem_read(nic_models_mem(m, sp.nic), sp.addr, out.back().data(), sp.len);
        }
    }
    nic_rc_free(rc);
    nic_models_free(m);
    return out;
}

// The first byte of the spans where the destination differs from the reference, or "".
std::string difference(nic_dest_t *d, const image_check_input &in, const std::vector<std::vector<uint8_t>> &want) {
    for (size_t i = 0; i < in.spans.size(); i++) {
        const memory_span &sp = in.spans[i];
        std::vector<uint8_t> got(sp.len);
        hostmem_read(nic_dest_mem(d, sp.nic), sp.addr, got.data(), sp.len);
        for (uint64_t k = 0; k < sp.len; k++)
            if (got[k] != want[i][k]) {
                char b[160];
                snprintf(b, sizeof b, "side %c's host memory at 0x%llx is 0x%02x, the reference run left 0x%02x",
                         sp.nic ? 'B' : 'A', (unsigned long long)(sp.addr + k), got[k], want[i][k]);
                return b;
            }
    }
    return "";
}

} // namespace

image_check_result check_images(const image_check_input &in) {
    image_check_result res;
    std::vector<std::vector<uint8_t>> want = reference(in);
    if (want.size() != in.spans.size()) {
        res.why = "the reference run did not finish";
        return res;
    }
    std::unique_ptr<nic_dest_t, void (*)(nic_dest_t *)> d(nic_dest_new(in.iface.c_str(), in.mode.c_str(), 2), nic_dest_free);
    if (!d) {
        res.why = "no destination NICs";
        return res;
    }
    // the VM's memory moves with it; the device's image is loaded back into its BAR
    for (unsigned n = 0; n < 2; n++)
        for (const auto &w : *in.vm) hostmem_write_u64(nic_dest_mem(d.get(), n), w.first, w.second);
    hostmem_write(nic_dest_mem(d.get(), 0), in.setup.mr_at[0], in.device_memory.data(), in.device_memory.size());
    char why[256] = "";
    for (unsigned n = 0; n < 2 && res.why.empty(); n++) {
        const std::vector<uint8_t> &img = in.image[n];
        if (nic_dest_load(d.get(), n, in.setup.fn[n], img.data(), unsigned(img.size() / 512), in.load_buffer, why, sizeof why))
            res.why = std::string(n ? "B" : "A") + "'s image: " + why;
    }
    for (unsigned n = 0; n < 2 && res.why.empty(); n++)
        if (nic_dest_resume(d.get(), n, in.setup.fn[n], why, sizeof why)) res.why = std::string(n ? "B" : "A") + ": " + why;
    if (!res.why.empty()) return res;
    uint64_t start = nic_dest_cycles(d.get());
    std::string diff = difference(d.get(), in, want);
    while (!diff.empty() && nic_dest_cycles(d.get()) - start < in.max_cycles) {
        nic_dest_run(d.get(), 1000);
        diff = difference(d.get(), in, want);
    }
    res.cycles = nic_dest_cycles(d.get()) - start;
    if (!diff.empty())
        res.why = "after " + std::to_string(res.cycles) + " cycles on the destination: " + diff;
    return res;
}
