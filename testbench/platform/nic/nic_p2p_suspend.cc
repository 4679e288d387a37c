// nic_p2p_suspend.cc — a NIC among the devices of the two-phase suspend (issue 13 item 3,
// docs/pcie-platform.md section 10): NIC A's memory region lies in a GPU-like device's BAR, so
// the RDMA WRITEs NIC B sends it over Ethernet become A's peer-to-peer DMA writes into that
// device; the hypervisor suspends A, B and the device with the two-phase sequence, the NICs
// through their mailboxes (SUSPEND_FN Suspend-Active / Suspend-Passive as MMIO TLPs, confirmed
// by polling CMD_STATUS), the device through its suspend register.
//
//   nic_p2p_suspend --iface NIC.iface [--mode c|rtl] [--size BYTES]
//                   [--suspend none|nics-first|device-first|nics-passive-first] [--at NS] [--expect clean|loss]
//                   [--disable RULE]
//
// rc - sw1 - {nicA (2), nicB (3), gpu (4)}, x16 links. B posts one WRITE of --size bytes
// (default 65536, path MTU 4096) into A's region; --at NS after the post the hypervisor starts.
// --suspend none: no suspend; the WRITE completes and the device's memory holds every byte B
// sent (the reference). nics-first: both phases take A, B, then the device (each phase's
// requests all go out before its confirmations); device-first: the device, then A, B;
// nics-passive-first: Suspend-Active to all, then A and B to Suspend-Passive and confirmed
// before the device is asked (suspend_plan.passive_first). Checks: every mailbox command and status read answered OK; every
// byte of the device's image is 0 (not written yet) or the byte B sent there (nothing
// misapplied); --expect clean: no write reached the device after its capture; --expect loss:
// one did (printed). Then the fabric drains and no node saw bad input. --disable RULE: that
// ordering rule turned around (ordering.h), to show which rules the cure rests on.
#include "cpu_host_ops.h"
#include "hypervisor.h"
#include "mem_device.h"
#include "address_map.h"
#include "nic_bar.h"
#include "nic_rc_traffic.h"
#include "nic_suspend_cmd.h"
#include "pcie_switch.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace sc_core;

namespace {

struct options {
    std::string iface, mode = "c", suspend = "none", expect = "clean";
    unsigned size = 65536;
    double at_ns = 4000;
    order_rule disabled = order_rule::none;
};

[[noreturn]] void usage(const std::string &why) {
    fprintf(stderr, "nic_p2p_suspend: %s\nusage: nic_p2p_suspend --iface NIC.iface [--mode c|rtl] [--size BYTES] "
                    "[--suspend none|nics-first|device-first|nics-passive-first] [--at NS] [--expect clean|loss] [--disable RULE]\n", why.c_str());
    exit(2);
}

options parse(int argc, char **argv) {
    options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage("missing value after " + a);
        std::string v = argv[++i];
        char *end = nullptr;
        if (a == "--iface") o.iface = v;
        else if (a == "--mode") o.mode = v;
        else if (a == "--suspend") o.suspend = v;
        else if (a == "--expect") o.expect = v;
        else if (a == "--disable") { o.disabled = rule_from_name(v); if (o.disabled == order_rule::none) usage("--disable: an ordering rule (A2a, B2a, D2a, ...), not '" + v + "'"); }
        else if (a == "--size") { o.size = unsigned(strtoul(v.c_str(), &end, 0)); if (*end || !o.size || o.size > 0x80000) usage("--size: 1..524288 bytes, not '" + v + "'"); }
        else if (a == "--at") { o.at_ns = strtod(v.c_str(), &end); if (*end || o.at_ns < 0) usage("--at: nanoseconds, not '" + v + "'"); }
        else usage("unknown argument '" + a + "'");
    }
    if (o.iface.empty()) usage("--iface is required");
    if (o.mode != "c" && o.mode != "rtl") usage("--mode: c or rtl, not '" + o.mode + "'");
    if (o.suspend != "none" && o.suspend != "nics-first" && o.suspend != "device-first" && o.suspend != "nics-passive-first")
        usage("--suspend: none, nics-first, device-first or nics-passive-first");
    if (o.expect != "clean" && o.expect != "loss") usage("--expect: clean or loss");
    return o;
}

int failed = 0;
std::string prefix;
void check(bool ok, const std::string &name, const std::string &why) {
    printf("%s %s/%s%s%s\n", ok ? "PASS" : "FAIL", prefix.c_str(), name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    failed += !ok;
}

constexpr uint16_t nic_a = 2, nic_b = 3, gpu_id = 4;
constexpr uint64_t region[2] = {0x10000000, 0x20000000};

// The PF driver's suspend of one NIC function: SUSPEND_FN through the mailbox.
suspend_driver nic_suspend(root_complex &rc, uint16_t dev, unsigned fn) {
    uint64_t bar = uint64_t(fn) * NIC_BAR_SIZE;
    suspend_driver d;
    d.request = [&rc, dev, bar, fn](uint64_t level) {
        uint64_t w[32];
        unsigned n = nic_suspend_cmd_words(fn, level == level_sa ? 1 : 2, w, 32);
        rc.mmio_write_words(dev, bar + NIC_BAR_CMD, std::vector<uint64_t>(w, w + n), "SUSPEND_FN command bytes");
        rc.mmio_write(dev, bar + NIC_BAR_CMD_GO, 1, "CMD_GO (SUSPEND_FN)");
    };
    d.confirm = [&rc, dev, bar](uint64_t) -> std::string {
        for (int poll = 0; poll < 10000; poll++) {
            uint64_t st = rc.mmio_read(dev, bar + NIC_BAR_CMD_STATUS, "CMD_STATUS");
            if ((st & NIC_CMD_STATUS_BUSY) || !(st & NIC_CMD_STATUS_DONE)) continue;
            if ((st >> 8) & 0xff)
                return "SUSPEND_FN answered status " + std::to_string((st >> 8) & 0xff) + ", bad_field " +
                       std::to_string((st >> 16) & 0xff);
            return "";
        }
        return "SUSPEND_FN not answered after 10000 polls of CMD_STATUS";
    };
    return d;
}

struct p2p_platform {
    fabric_context fab{1};
    root_complex rc{"rc", fab};
    pcie_switch sw1{"sw1", fab, 1, false};
    std::unique_ptr<nic_clock> clock;
    std::unique_ptr<nic_endpoint> nic[2];
    mem_device gpu{"gpu", fab, gpu_id, {}};
    std::unique_ptr<hypervisor> hv;
    std::vector<std::unique_ptr<pcie_link>> links;

    p2p_platform(const options &o) {
        fab.order.disabled = o.disabled;
        link_params p;
        p.lanes = 16;
        p.header_credits = 32;
        p.data_credits = 256;
        clock = std::make_unique<nic_clock>("nics", fab, o.iface.c_str(), o.mode.c_str(), 2);
        if (!clock->models()) return;
        for (unsigned n = 0; n < 2; n++) {
            nic[n] = std::make_unique<nic_endpoint>(n ? "nicB" : "nicA", fab, uint16_t(nic_a + n), clock->models(), n,
                                                    clock->dma_ports());
            clock->attach(n, nic[n].get());
        }
        connect(fab, rc, sw1, p, links);
        connect(fab, sw1, *nic[0], p, links);
        connect(fab, sw1, *nic[1], p, links);
        connect(fab, sw1, gpu, p, links);
        rc.below = {{1, nic_a, nic_b, gpu_id}};
        sw1.below = {{}, {nic_a}, {nic_b}, {gpu_id}};
        suspend_plan plan;
        plan.devices = o.suspend == "device-first" ? std::vector<uint16_t>{gpu_id, nic_a, nic_b}
                                                   : std::vector<uint16_t>{nic_a, nic_b, gpu_id};
        if (o.suspend == "nics-passive-first") plan.passive_first = {nic_a, nic_b};
        hv = std::make_unique<hypervisor>("hypervisor", fab, rc, plan);
        hv->drivers[nic_a] = nic_suspend(rc, nic_a, 0);
        hv->drivers[nic_b] = nic_suspend(rc, nic_b, 1);
    }
};

void driver(const options &o, p2p_platform &pf, std::vector<uint8_t> &sent) {
    cpu_host host[2] = {{&pf.rc, nic_a, pf.clock.get()}, {&pf.rc, nic_b, pf.clock.get()}};
    nic_rc_setup_t s{};
    s.prefix = prefix.c_str();
    s.ops[0] = host[0].ops();
    s.ops[1] = host[1].ops();
    s.fn[1] = 1;
    s.base[0] = region[0];
    s.base[1] = region[1];
    s.mr_len = 0x80000;
    s.pmtu = 5;
    s.seed = 1;
    s.mr_at[0] = bar_base(gpu_id) + bar_memory;
    nic_rc_t *rc = nic_rc_new(&s);
    if (!rc) failed++;
    if (rc) {
        uint64_t wr = nic_rc_start_write(rc, 1, 0, o.size, 0);
        sent.assign(nic_rc_expected(rc, 0), nic_rc_expected(rc, 0) + o.size);
        if (o.suspend == "none") {
            failed += !nic_rc_wait_send(rc, 1, wr, "WRITE B->A into the GPU-like device's BAR (peer-to-peer DMA)");
        } else {
            wait(o.at_ns, SC_NS);
            pf.hv->run_sequence(suspend_order::two_phase);
            std::string why;
            for (auto &e : pf.hv->errors) why += e + "; ";
            check(why.empty(), "two-phase suspend of A, B and the device: every request confirmed", why);
        }
    }
    nic_rc_free(rc);
    wait(20, SC_US);
    pf.clock->stop();
    sc_stop();
}

} // namespace

int sc_main(int argc, char **argv) {
    options o = parse(argc, argv);
    prefix = "platform/nic-p2p-suspend/" + o.suspend + (o.suspend == "none" ? "" : "-at-" + std::to_string(int(o.at_ns)) + "ns") +
             (o.mode == "rtl" ? "-rtl" : "");
    p2p_platform pf(o);
    if (!pf.clock->models()) return 2;
    pf.fab.trace.enabled = o.suspend != "none";
    std::vector<uint8_t> sent;
    sc_spawn([&] { driver(o, pf, sent); }, "driver");
    sc_start(sc_time(1, SC_SEC));

    // The device's memory (reference) or image (suspended): each byte untouched or B's.
    const word_memory &mem = o.suspend == "none" ? pf.gpu.bar_memory() : pf.gpu.image();
    std::vector<uint8_t> got(sent.size());
    word_memory_read(mem, bar_memory, got.data(), got.size());
    size_t arrived = 0, wrong = got.size();
    for (size_t i = 0; i < got.size(); i++) {
        if (got[i] == sent[i]) arrived++;
        else if (got[i] != 0 && wrong == got.size()) wrong = i;
    }
    char why[160];
    snprintf(why, sizeof why, "byte %zu is 0x%02x, B sent 0x%02x", wrong, wrong < got.size() ? got[wrong] : 0,
             wrong < sent.size() ? sent[wrong] : 0);
    if (o.suspend == "none")
        check(arrived == sent.size(), "the device's memory holds every byte B sent (" + std::to_string(arrived) + ")", why);
    else
        check(wrong == got.size() && pf.gpu.captured(),
              "the device's image holds " + std::to_string(arrived) + " of B's bytes, nothing else", why);
    if (o.suspend != "none") {
        std::vector<std::string> all = pf.gpu.losses;
        all.insert(all.end(), pf.rc.late_writes.begin(), pf.rc.late_writes.end());
        std::string lost = all.empty() ? "" : std::to_string(all.size()) + " write(s) too late; the first: " + all[0];
        if (o.expect == "clean")
            check(lost.empty(), "no write reached the device after its capture, nor host memory after the copy", lost);
        else
            check(!lost.empty(), "a NIC's P2P write reaches the device after its capture (expected: device-first)",
                  "nothing was lost");
        if (!lost.empty()) {
            // the suspend's events and the first lost write hop by hop
            uint32_t first = pf.gpu.lost.empty() ? 0 : pf.gpu.lost[0].serial;
            printf("---- timeline: the hypervisor's and the devices' events, the first lost write ----\n");
            pf.fab.trace.print(stdout, [first](const tlp &t) { return t.serial == first; }, pf.hv->done_ns);
        }
    }
    std::string bad;
    for (auto &e : pf.nic) {
        for (auto &x : e->errors) bad += x + "; ";
        for (auto &x : e->dma().errors) bad += x + "; ";
        const char *reg = nic_models_bar_error(pf.clock->models(), unsigned(e->id - nic_a));
        if (reg) bad += reg;
    }
    for (auto &x : pf.gpu.errors) bad += x + "; ";
    check(bad.empty(), "no node saw a bad TLP, register access or DMA request", bad);
    std::vector<fabric_node *> nodes = {&pf.rc, &pf.sw1, pf.nic[0].get(), pf.nic[1].get(), &pf.gpu};
    std::string left;
    for (fabric_node *n : nodes)
        for (auto &p : n->ports)
            if (!p->in.empty() || !p->out.empty()) left += p->in.name() + "/tx not empty; ";
    check(left.empty(), "fabric drained", left);
    printf("  %s: suspend done at %.1f ns, %llu TLPs, %llu NIC cycles\n", prefix.c_str(), pf.hv->done_ns,
           (unsigned long long)(pf.fab.next_serial - 1), (unsigned long long)pf.clock->cycles());
    return failed ? 1 : 0;
}
