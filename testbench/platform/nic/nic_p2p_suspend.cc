// nic_p2p_suspend.cc — a NIC among the devices of the two-phase suspend (issue 13 item 3,
// docs/pcie-platform.md section 10): NIC A's memory region lies in a GPU-like device's BAR, so
// the RDMA WRITEs NIC B sends it over Ethernet become A's peer-to-peer DMA writes into that
// device; the hypervisor suspends A, B and the device with the two-phase sequence, the NICs
// through their mailboxes (SUSPEND_FN Suspend-Active / Suspend-Passive as MMIO TLPs, confirmed
// by polling CMD_STATUS), the device through its suspend register.
//
//   nic_p2p_suspend --iface NIC.iface [--mode c|rtl] [--size BYTES]
//                   [--suspend none|nics-first|device-first|nics-passive-first] [--at NS] [--expect clean|loss]
//                   [--disable RULE] [--image none|check|corrupt|corrupt-sealed]
//                   [--switch bridge|per-port] [--flush-read on|off] [--link-check on|off]
//                   [--mr-in gpu|nic] [--gpu-writes N] [--gpu-lanes 1|2|4|8|16]
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
//
// --image check (with a suspend): each NIC has its migration firmware (nic_firmware.h); the
// hypervisor suspends the NICs through the firmware's mailbox (SUSPEND_ACTIVE / _PASSIVE as
// MMIO TLPs, the firmware's SUSPEND_FN on ctrl), then saves A's and B's function images with
// IMAGE_SAVE into its own buffer in host memory (the blocks: MWr TLPs from the NIC through the
// switch), loads them into fresh NICs whose host memory holds the VM's copy and the device's
// image (nic_dest.h), resumes them and lets B's WRITE finish there. Check: every byte of both
// sides' rings, CQs and MRs equals a reference run of the same traffic without PCIe and
// without migration; with --expect loss the check must find a difference. --image corrupt:
// a bit of A's QP record (POS_VA's bit 12) flipped before the load (the load must refuse the
// block); corrupt-sealed: the same with the block's CRC computed again (the load takes it;
// the traffic must go wrong). In both the check must fail.
//
// --switch per-port: sw1 keeps order per (ingress, egress) pair only (pcie_switch.h).
// --flush-read off (a test-only knob, with --image): the firmware's Suspend-Active skips its
// flush read (nic_firmware.h), as a NIC without one would. --gpu-lanes N: the GPU-like
// device's link is xN (default x16): at x1 A's P2P writes into it queue in sw1, so on the
// per-port switch they are still there when the host's Suspend-Passive for the device
// passes them (docs/pcie-platform.md section 10, "The flush read off").
// --link-check on (default): a check that neither NIC sent a TLP of its datapath after its
// Suspend-Active answer (the firmware's, or SUSPEND_FN's as the host sees it). --link-check
// early: the checker's control, armed when SUSPEND_FN(ACTIVE) is sent instead of when it is
// answered: the packets in hand and the DMA the NIC finishes before it answers must show.
// --mr-in nic: A's region lies in B's device memory (nic_endpoint.h) instead of the GPU-like
// device's BAR: A's DMA writes go NIC into NIC. --gpu-writes N: the GPU-like device writes N
// 64-byte P2P writes into A's device memory, one every 250 ns from t = 0 (GPU into NIC);
// check: A's device memory (captured at its Suspend-Passive) holds exactly the writes the
// device started, and none arrived after the capture.
#include "cpu_host_ops.h"
#include "hypervisor.h"
#include "mem_device.h"
#include "address_map.h"
#include "nic_bar.h"
#include "nic_rc_traffic.h"
#include "nic_dest.h"
#include "nic_firmware.h"
#include "nic_image_check.h"
#include "nic_pf_driver.h"
#include "nic_suspend_cmd.h"
#include "pcie_switch.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace sc_core;

namespace {

struct options {
    std::string iface, mode = "c", suspend = "none", expect = "clean", image = "none";
    switch_buffers switches = switch_buffers::bridge;
    bool flush_read = true, flush_read_given = false, link_check = true, link_check_early = false, mr_in_nic = false;
    unsigned gpu_writes = 0, gpu_lanes = 16;
    unsigned size = 65536;
    double at_ns = 4000;
    order_rule disabled = order_rule::none;
};

[[noreturn]] void usage(const std::string &why) {
    fprintf(stderr, "nic_p2p_suspend: %s\nusage: nic_p2p_suspend --iface NIC.iface [--mode c|rtl] [--size BYTES] "
                    "[--suspend none|nics-first|device-first|nics-passive-first] [--at NS] [--expect clean|loss] [--disable RULE] "
                    "[--image none|check|corrupt|corrupt-sealed] [--switch bridge|per-port] [--flush-read on|off] "
                    "[--link-check on|off] [--mr-in gpu|nic] [--gpu-writes N] [--gpu-lanes 1|2|4|8|16]\n", why.c_str());
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
        else if (a == "--image") o.image = v;
        else if (a == "--switch") { if (v != "bridge" && v != "per-port") usage("--switch: bridge or per-port, not '" + v + "'"); o.switches = v == "per-port" ? switch_buffers::per_port : switch_buffers::bridge; }
        else if (a == "--flush-read") { if (v != "on" && v != "off") usage("--flush-read: on or off, not '" + v + "'"); o.flush_read = v == "on"; o.flush_read_given = true; }
        else if (a == "--mr-in") { if (v != "gpu" && v != "nic") usage("--mr-in: gpu or nic, not '" + v + "'"); o.mr_in_nic = v == "nic"; }
        else if (a == "--gpu-lanes") {
            o.gpu_lanes = unsigned(strtoul(v.c_str(), &end, 0));
            if (*end || !o.gpu_lanes || o.gpu_lanes > 16 || (o.gpu_lanes & (o.gpu_lanes - 1)))
                usage("--gpu-lanes: 1, 2, 4, 8 or 16, not '" + v + "'");
        }
        else if (a == "--gpu-writes") { o.gpu_writes = unsigned(strtoul(v.c_str(), &end, 0)); if (*end || o.gpu_writes > 8192) usage("--gpu-writes: 0..8192, not '" + v + "'"); }
        else if (a == "--link-check") {
            if (v != "on" && v != "off" && v != "early") usage("--link-check: on, off or early, not '" + v + "'");
            o.link_check = v != "off";
            o.link_check_early = v == "early";
        }
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
    if (o.image != "none" && o.image != "check" && o.image != "corrupt" && o.image != "corrupt-sealed")
        usage("--image: none, check, corrupt or corrupt-sealed");
    if (o.image != "none" && o.suspend == "none") usage("--image needs a suspend (--suspend)");
    if (o.flush_read_given && o.image == "none")
        usage("--flush-read needs --image: the flush read is the NICs' firmware's (SUSPEND_FN straight has none)");
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
// the hypervisor's own memory (not the VM's): the PF driver's buffers for the saved images
constexpr uint64_t vm_top = 0x80000000, image_buffer[2] = {0x80000000, 0x80001000}, load_buffer = 0x90000000;
constexpr unsigned max_blocks = 64;

// The PF driver's suspend of one NIC function: SUSPEND_FN through the mailbox. Its
// Suspend-Active answer, as the host sees it, starts the endpoint's link checker (or its
// request, with arm_early: the checker's control).
suspend_driver nic_suspend(root_complex &rc, nic_endpoint &ep, unsigned fn, bool arm_early) {
    uint16_t dev = ep.id;
    uint64_t bar = uint64_t(fn) * NIC_BAR_SIZE;
    suspend_driver d;
    d.request = [&rc, &ep, dev, bar, fn, arm_early](uint64_t level) {
        if (arm_early && level == level_sa) ep.set_quiet(true, "SUSPEND_FN(ACTIVE) sent for fn " + std::to_string(fn) + " (early)");
        uint64_t w[32];
        unsigned n = nic_suspend_cmd_words(fn, level == level_sa ? 1 : 2, w, 32);
        rc.mmio_write_words(dev, bar + NIC_BAR_CMD, std::vector<uint64_t>(w, w + n), "SUSPEND_FN command bytes");
        rc.mmio_write(dev, bar + NIC_BAR_CMD_GO, 1, "CMD_GO (SUSPEND_FN)");
    };
    d.confirm = [&rc, &ep, dev, bar, fn, arm_early](uint64_t level) -> std::string {
        for (int poll = 0; poll < 10000; poll++) {
            uint64_t st = rc.mmio_read(dev, bar + NIC_BAR_CMD_STATUS, "CMD_STATUS");
            if ((st & NIC_CMD_STATUS_BUSY) || !(st & NIC_CMD_STATUS_DONE)) continue;
            if ((st >> 8) & 0xff)
                return "SUSPEND_FN answered status " + std::to_string((st >> 8) & 0xff) + ", bad_field " +
                       std::to_string((st >> 16) & 0xff);
            if (level == level_sp) ep.capture_device_memory();
            if (level == level_sa && !arm_early)
                ep.set_quiet(true, "SUSPEND_FN's Suspend-Active answer for fn " + std::to_string(fn) + ", seen by the host at " +
                                       std::to_string(uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9)) + " ns");
            return "";
        }
        return "SUSPEND_FN not answered after 10000 polls of CMD_STATUS";
    };
    return d;
}

// The GPU-like device's writes into A's device memory (--gpu-writes): 64 bytes each, every
// word stamped with the write's number, one every 250 ns.
std::vector<device_op> gpu_script(const options &o) {
    std::vector<device_op> ops;
    for (unsigned i = 0; i < o.gpu_writes; i++) {
        device_op op{};
        op.kind = device_op::p2p_write;
        op.addr = bar_base(nic_a) + nic_endpoint::device_memory_base + 64ull * (i % 8192);
        for (uint64_t w = 0; w < 8; w++) op.data.push_back(0x6770000000000000ull | uint64_t(i) << 8 | w);
        op.gap_ns = 250;
        op.note = "GPU P2P write " + std::to_string(i) + " into nicA";
        ops.push_back(op);
    }
    return ops;
}

struct p2p_platform {
    fabric_context fab{1};
    root_complex rc{"rc", fab};
    pcie_switch sw1;
    std::unique_ptr<nic_clock> clock;
    std::unique_ptr<nic_endpoint> nic[2];
    mem_device gpu;
    std::unique_ptr<nic_firmware> fw[2];
    std::unique_ptr<hypervisor> hv;
    std::vector<std::unique_ptr<pcie_link>> links;

    p2p_platform(const options &o) : sw1("sw1", fab, 1, false, o.switches), gpu("gpu", fab, gpu_id, gpu_script(o)) {
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
        link_params gpu_link = p;
        gpu_link.lanes = int(o.gpu_lanes);
        connect(fab, sw1, gpu, gpu_link, links);
        rc.below = {{1, nic_a, nic_b, gpu_id}};
        sw1.below = {{}, {nic_a}, {nic_b}, {gpu_id}};
        suspend_plan plan;
        plan.devices = o.suspend == "device-first" ? std::vector<uint16_t>{gpu_id, nic_a, nic_b}
                                                   : std::vector<uint16_t>{nic_a, nic_b, gpu_id};
        if (o.suspend == "nics-passive-first") plan.passive_first = {nic_a, nic_b};
        hv = std::make_unique<hypervisor>("hypervisor", fab, rc, plan);
        if (o.image == "none") {
            hv->drivers[nic_a] = nic_suspend(rc, *nic[0], 0, o.link_check_early);
            hv->drivers[nic_b] = nic_suspend(rc, *nic[1], 1, o.link_check_early);
            return;
        }
        // the NICs' firmware: the suspend through its mailbox, then the images
        rc.vm_memory_top = vm_top;
        for (unsigned n = 0; n < 2; n++) {
            fw[n] = std::make_unique<nic_firmware>(n ? "fwB" : "fwA", *nic[n], clock->models(), n);
            fw[n]->test_skip_flush_read = !o.flush_read;
            nic[n]->window = fw[n].get();
            hv->drivers[uint16_t(nic_a + n)] = fw_suspend(rc, uint16_t(nic_a + n), n);
        }
    }
};

// Where A's region lies (--mr-in): the GPU-like device's BAR memory or B's device memory.
struct region_target {
    const word_memory &memory, &image;
    uint64_t offset;   // of the region in that memory
    bool captured;
};

region_target target_of(const options &o, p2p_platform &pf) {
    if (!o.mr_in_nic) return {pf.gpu.bar_memory(), pf.gpu.image(), bar_memory, pf.gpu.captured()};
    const nic_endpoint &b = *pf.nic[1];
    return {b.device_memory(), b.device_memory_image(), nic_endpoint::device_memory_base, b.device_memory_captured()};
}

// --gpu-writes: A's device memory (or its image) holds exactly the writes the GPU-like device
// started, in their order.
void check_gpu_writes(const options &o, p2p_platform &pf) {
    const nic_endpoint &a = *pf.nic[0];
    word_memory want;
    std::vector<device_op> ops = gpu_script(o);
    for (size_t i = 0; i < pf.gpu.ops_started(); i++)
        for (size_t w = 0; w < ops[i].data.size(); w++)
            want[ops[i].addr - bar_base(nic_a) + 8 * w] = ops[i].data[w];
    const word_memory &got = o.suspend == "none" ? a.device_memory() : a.device_memory_image();
    std::string why = o.suspend != "none" && !a.device_memory_captured() ? "A's device memory was never captured" : "";
    if (why.empty() && got != want)
        why = "A's device memory holds " + std::to_string(got.size()) + " words, the " + std::to_string(pf.gpu.ops_started()) +
              " writes started make " + std::to_string(want.size());
    check(why.empty(), "GPU into NIC: A's device memory " + std::string(o.suspend == "none" ? "" : "image ") + "holds the " +
                           std::to_string(pf.gpu.ops_started()) + " of " + std::to_string(o.gpu_writes) +
                           " P2P writes the device started, nothing else", why);
}

// The traffic's set-up (the driver's ops are set by whoever runs it).
nic_rc_setup_t traffic_setup(const options &o) {
    nic_rc_setup_t s{};
    s.prefix = prefix.c_str();
    s.fn[1] = 1;
    s.base[0] = region[0];
    s.base[1] = region[1];
    s.mr_len = 0x80000;
    s.pmtu = 5;
    s.seed = 1;
    s.mr_at[0] = o.mr_in_nic ? bar_base(nic_b) + nic_endpoint::device_memory_base : bar_base(gpu_id) + bar_memory;
    return s;
}

std::vector<uint8_t> saved[2];   // each NIC's function image

// After the suspend: each NIC's function image into the hypervisor's buffer, by the PF driver.
void save_images(p2p_platform &pf) {
    for (unsigned n = 0; n < 2; n++) {
        std::string why;
        saved[n] = fw_save_image(pf.rc, uint16_t(nic_a + n), n, image_buffer[n], max_blocks, why);
        check(why.empty() && pf.fw[n]->block_bytes == saved[n].size(),
              std::string("IMAGE_SAVE of ") + (n ? "B" : "A") + "'s function through the fabric (" +
                  std::to_string(saved[n].size() / NIC_FW_BLOCK_SIZE) + " blocks, as " +
                  std::to_string(pf.fw[n]->block_bytes / 64) + " MWrs of the firmware)",
              why.empty() ? "the firmware wrote " + std::to_string(pf.fw[n]->block_bytes) + " bytes" : why);
    }
}

// The saved images loaded into fresh NICs, run on, compared with the reference run.
void check_saved_images(const options &o, p2p_platform &pf) {
    image_check_input in;
    in.iface = o.iface;
    // The reference and the destination run the composed C model whatever the source ran: with
    // verilated NICs there the check passes, but the process then hangs at exit, freeing the
    // platform's verilated NICs after the others were freed (Verilator's scope lock, in the
    // Vnic destructor); and an RTL source's image loaded into C-model NICs checks the image as
    // the contract between the two.
    in.mode = "c";
    in.setup = traffic_setup(o);
    in.write_len = o.size;
    in.vm = &pf.rc.vm_copy;
    in.device_memory.resize(in.setup.mr_len);
    region_target target = target_of(o, pf);
    word_memory_read(target.image, target.offset, in.device_memory.data(), in.device_memory.size());
    for (unsigned n = 0; n < 2; n++) {
        in.image[n] = saved[n];
        in.spans.push_back({n, region[n], n ? 0x4000 + in.setup.mr_len : 0x4000});   // rings, CQs (and B's MR)
    }
    in.spans.push_back({0, in.setup.mr_at[0], in.setup.mr_len});                    // A's MR in the device
    in.load_buffer = load_buffer;
    // the checker's own tests: in A's QP record (block 4: HDR, FN, CQ, MR, QP; after the 16-byte
    // block header) bit 572, POS_VA's bit 12 (docs/migration-fw.md: where the open WRITE's next
    // payload goes), flipped; the block's CRC left (the load must refuse the block) or computed
    // again (the load takes it, and B's remaining payload lands 4 KiB away)
    uint8_t *qp_block = in.image[0].data() + 4 * NIC_FW_BLOCK_SIZE;
    if (o.image != "check" && saved[0].size() > 4 * NIC_FW_BLOCK_SIZE) qp_block[16 + 572 / 8] ^= 1u << (572 % 8);
    if (o.image == "corrupt-sealed" && saved[0].size() > 4 * NIC_FW_BLOCK_SIZE) nic_dest_reseal(qp_block);
    image_check_result r = check_images(in);
    bool want_equal = o.image == "check" && o.expect == "clean";
    std::string name = "A's and B's images loaded into fresh NICs, traffic finished there: ";
    if (want_equal)
        check(r.why.empty(), name + "every byte of the rings, CQs and MRs equals the reference run (" +
                                 std::to_string(r.cycles) + " cycles)", r.why);
    else
        check(!r.why.empty(), name + "the check fails, as it must", "the destination equals the reference");
    if (!r.why.empty() && !want_equal) printf("  the check found: %s\n", r.why.c_str());
}

void driver(const options &o, p2p_platform &pf, std::vector<uint8_t> &sent) {
    cpu_host host[2] = {{&pf.rc, nic_a, pf.clock.get()}, {&pf.rc, nic_b, pf.clock.get()}};
    nic_rc_setup_t s = traffic_setup(o);
    s.ops[0] = host[0].ops();
    s.ops[1] = host[1].ops();
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
            if (o.image != "none") save_images(pf);
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
    region_target target = target_of(o, pf);
    const word_memory &mem = o.suspend == "none" ? target.memory : target.image;
    std::vector<uint8_t> got(sent.size());
    word_memory_read(mem, target.offset, got.data(), got.size());
    size_t arrived = 0, wrong = got.size();
    for (size_t i = 0; i < got.size(); i++) {
        if (got[i] == sent[i]) arrived++;
        else if (got[i] != 0 && wrong == got.size()) wrong = i;
    }
    char why[160];
    snprintf(why, sizeof why, "byte %zu is 0x%02x, B sent 0x%02x", wrong, wrong < got.size() ? got[wrong] : 0,
             wrong < sent.size() ? sent[wrong] : 0);
    std::string where = o.mr_in_nic ? "B's device memory" : "the device's memory";
    if (o.suspend == "none")
        check(arrived == sent.size(), where + " holds every byte B sent (" + std::to_string(arrived) + ")", why);
    else
        check(wrong == got.size() && target.captured,
              where + " as captured holds " + std::to_string(arrived) + " of B's bytes, nothing else", why);
    if (o.suspend != "none") {
        std::vector<std::string> all = pf.gpu.losses;
        std::vector<tlp> lost_tlps = pf.gpu.lost;
        for (auto &e : pf.nic) {
            all.insert(all.end(), e->losses.begin(), e->losses.end());
            lost_tlps.insert(lost_tlps.end(), e->lost.begin(), e->lost.end());
        }
        all.insert(all.end(), pf.rc.late_writes.begin(), pf.rc.late_writes.end());
        std::string lost = all.empty() ? "" : std::to_string(all.size()) + " write(s) too late; the first: " + all[0];
        if (o.expect == "clean")
            check(lost.empty(), "no write reached the device after its capture, nor host memory after the copy", lost);
        else
            check(!lost.empty(), "a P2P write reaches its target after the target's capture (--expect loss)",
                  "nothing was lost");
        if (!lost.empty()) {
            printf("  lost: %s\n", lost.c_str());
            // the suspend's events and the first lost write hop by hop
            uint32_t first = lost_tlps.empty() ? 0 : lost_tlps[0].serial;
            printf("---- timeline: the hypervisor's and the devices' events, the first lost write ----\n");
            pf.fab.trace.print(stdout, [first](const tlp &t) { return t.serial == first; }, pf.hv->done_ns);
        }
    }
    if (o.gpu_writes) check_gpu_writes(o, pf);
    std::string bad;
    for (auto &e : pf.nic) {
        for (auto &x : e->errors) bad += x + "; ";
        for (auto &x : e->dma().errors) bad += x + "; ";
        const char *reg = nic_models_bar_error(pf.clock->models(), unsigned(e->id - nic_a));
        if (reg) bad += reg;
    }
    for (auto &x : pf.gpu.errors) bad += x + "; ";
    for (auto &f : pf.fw)
        if (f) for (auto &x : f->errors) bad += x + "; ";
    check(bad.empty(), "no node saw a bad TLP, register access or DMA request", bad);
    if (o.link_check && o.suspend != "none") {
        std::vector<std::string> late;
        for (auto &e : pf.nic) late.insert(late.end(), e->sent_while_quiet.begin(), e->sent_while_quiet.end());
        check(late.empty(), "no NIC sent a TLP of its datapath after its Suspend-Active answer (the link checker)",
              late.empty() ? "" : std::to_string(late.size()) + " TLP(s); the first: " + late[0]);
    }
    std::vector<fabric_node *> nodes = {&pf.rc, &pf.sw1, pf.nic[0].get(), pf.nic[1].get(), &pf.gpu};
    std::string left;
    for (fabric_node *n : nodes)
        for (auto &p : n->ports)
            if (!p->in.empty() || !p->out.empty()) left += p->in.name() + "/tx not empty; ";
    for (const std::string &q : pf.sw1.buffered()) left += q + "; ";
    check(left.empty(), "fabric drained", left);
    if (o.image != "none" && !saved[0].empty() && !saved[1].empty()) check_saved_images(o, pf);
    printf("  %s: suspend done at %.1f ns, %llu TLPs, %llu NIC cycles\n", prefix.c_str(), pf.hv->done_ns,
           (unsigned long long)(pf.fab.next_serial - 1), (unsigned long long)pf.clock->cycles());
    for (auto &f : pf.fw)
        if (f)
            printf("  %s: %llu mailbox commands, %llu commands on ctrl's queue, %llu cycles waiting for them; "
                   "%llu flush reads, %llu cycles waiting for them\n", f->basename(),
                   (unsigned long long)f->commands, (unsigned long long)nic_fw_commands(f->fw()),
                   (unsigned long long)nic_fw_port_cycles(f->fw()), (unsigned long long)f->flush_reads,
                   (unsigned long long)f->flush_cycles);
    return failed ? 1 : 0;
}
