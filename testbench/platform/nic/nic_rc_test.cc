// nic_rc_test.cc — two NICs as endpoints of the PCIe platform, an RC connection between them
// driven by the CPU over MMIO TLPs, every byte checked in host memory (issue 13 item 2;
// docs/pcie-platform.md section 10).
//
//   nic_rc_test --iface NIC.iface [--mode c|rtl] [--verbs] [--bulk COUNT SIZE] [--direct]
//               [--lanes N] [--rows] [--name NAME]
//
// Topology: rc - sw1 - {sw2 - nicA, nicB}: A's TLPs cross two switches, B's one; the NICs'
// Ethernet ports are joined by the harness's wire (250 cycles, 64 B/cycle). --verbs: SEND,
// SEND with immediate, WRITE, READ (unaligned), CAS, FAA (nic_rc_traffic.h). --bulk: A WRITEs
// COUNT x SIZE bytes to B; its goodput in bytes per NIC cycle. --direct: the same without the
// PCIe model (registers called at once, each NIC's own ideal host memory), the baseline.
// --bad-register: after the traffic the CPU reads NIC A's EVENT register (not modelled) and
// writes its read-only FN register: the read must answer all ones and NIC A must report the
// first of them, naming the offset (bad input gives a clear error, nothing else changes).
// --name: the prefix of the PASS/FAIL names (default platform/nic[-direct][-rtl]).
// --rows: the bulk figures as `make bench` rows (testbench/bench/bench_rows.h) on stdout, and a
// check row for the run; everything else goes to stderr.
// After the traffic: no register access hit nothing, no DMA request was malformed, no TLP is
// left in any buffer, every DMA read was answered. One PASS/FAIL line per check.
#include "cpu_host_ops.h"
#include "direct_host_ops.h"
#include "nic_rc_traffic.h"
#include "pcie_switch.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>

extern "C" {
#include "../../bench/bench_rows.h"
}

using namespace sc_core;

namespace {

struct options {
    std::string iface, mode = "c", name;   // name: of the PASS/FAIL lines
    bool verbs = false, direct = false, rows = false, bad_register = false;
    unsigned bulk_count = 0, bulk_size = 0, lanes = 16;
};

[[noreturn]] void usage(const char *why) {
    fprintf(stderr, "nic_rc_test: %s\nusage: nic_rc_test --iface NIC.iface [--mode c|rtl] [--verbs] "
                    "[--bulk COUNT SIZE] [--direct] [--lanes N] [--rows] [--name NAME]\n", why);
    exit(2);
}

unsigned number(const char *s, const char *what) {
    char *end = nullptr;
    unsigned long v = strtoul(s, &end, 0);
    if (!*s || *end || v == 0 || v > 1u << 20) usage((std::string(what) + " wants a positive number, got '" + s + "'").c_str());
    return unsigned(v);
}

options parse(int argc, char **argv) {
    options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> const char * { if (i + 1 >= argc) usage(("missing value after " + a).c_str()); return argv[++i]; };
        if (a == "--iface") o.iface = next();
        else if (a == "--mode") o.mode = next();
        else if (a == "--name") o.name = next();
        else if (a == "--verbs") o.verbs = true;
        else if (a == "--direct") o.direct = true;
        else if (a == "--rows") o.rows = true;
        else if (a == "--bad-register") o.bad_register = true;
        else if (a == "--lanes") o.lanes = number(next(), "--lanes");
        else if (a == "--bulk") { o.bulk_count = number(next(), "--bulk COUNT"); o.bulk_size = number(next(), "--bulk SIZE"); }
        else usage(("unknown argument '" + a + "'").c_str());
    }
    if (o.iface.empty()) usage("--iface is required");
    if (o.bulk_count > 64) usage("--bulk COUNT: at most 64 (the send queue's ring)");
    if (o.mode != "c" && o.mode != "rtl") usage(("--mode: c or rtl, not '" + o.mode + "'").c_str());
    if (o.name.empty()) o.name = std::string("platform/nic") + (o.direct ? "-direct" : "") + (o.mode == "rtl" ? "-rtl" : "");
    return o;
}

int failed = 0;
void check(bool ok, const std::string &name, const std::string &why) {
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), ok ? "" : ": ", ok ? "" : why.c_str());
    failed += !ok;
}

constexpr uint64_t region[2] = {0x10000000, 0x20000000};   // A's and B's rings and MR in host memory

uint64_t mr_len(const options &o) {
    uint64_t need = uint64_t(o.bulk_count) * o.bulk_size;
    return need > 0x10000 ? (need + 0xfff) & ~0xfffull : 0x10000;
}

nic_rc_setup_t setup(const options &o, const char *prefix, nic_host_ops_t a, nic_host_ops_t b) {
    nic_rc_setup_t s{};
    s.prefix = prefix;
    s.ops[0] = a;
    s.ops[1] = b;
    s.fn[0] = 0;
    s.fn[1] = 1;
    s.base[0] = region[0];
    s.base[1] = region[1];
    s.mr_len = mr_len(o);
    s.pmtu = 5;   // 4096
    s.seed = 1;
    return s;
}

void report_bulk(const options &o, const char *where, uint64_t cycles, uint64_t bytes) {
    double goodput = cycles ? double(bytes) / double(cycles) : 0;
    printf("bulk WRITE %u x %u B %s: %llu bytes in %llu cycles = %.2f bytes/cycle\n", o.bulk_count, o.bulk_size, where,
           (unsigned long long)bytes, (unsigned long long)cycles, goodput);
    if (!o.rows) return;
    char sec[160];
    snprintf(sec, sizeof sec, "platform: NIC DMA, WRITE %u x %u B, MTU 4096 (%s model)", o.bulk_count, o.bulk_size,
             o.mode == "rtl" ? "RTL" : "C");
    bench_row(sec, o.direct ? "goodput without the PCIe model" : "goodput through the PCIe fabric", "bytes/cycle",
              o.direct ? "payload / (first doorbell .. last CQE seen), each NIC on its own ideal host memory"
                       : "payload / (first doorbell MWr .. last CQE seen), DMA as TLPs: x16 gen3 links, 2 switches for A, 1 for B",
              "%.2f", goodput);
}

// The connection, then the verbs and the bulk WRITE as the options ask, over A's and B's ops.
void traffic(const options &o, nic_host_ops_t a, nic_host_ops_t b) {
    nic_rc_setup_t s = setup(o, o.name.c_str(), a, b);
    nic_rc_t *rc = nic_rc_new(&s);
    if (!rc) failed++;
    if (rc && o.verbs) failed += nic_rc_verbs(rc);
    if (rc && o.bulk_count) {
        uint64_t cycles = 0, bytes = 0;
        failed += nic_rc_bulk_write(rc, o.bulk_count, o.bulk_size, &cycles, &bytes);
        report_bulk(o, o.direct ? "without the PCIe model" : "through the PCIe fabric", cycles, bytes);
    }
    nic_rc_free(rc);
}

// ---- without the PCIe model ------------------------------------------------------------------
int run_direct(const options &o) {
    nic_models_t *m = nic_models_new(o.iface.c_str(), o.mode.c_str(), 2, nullptr);
    if (!m) return 2;
    direct_host_t h[2] = {{m, 0}, {m, 1}};
    traffic(o, direct_host_ops(&h[0]), direct_host_ops(&h[1]));
    for (unsigned n = 0; n < 2; n++) {
        const char *e = nic_models_bar_error(m, n);
        check(!e, o.name + "/registers " + std::string(n ? "B" : "A"), e ? e : "");
    }
    nic_models_free(m);
    return failed ? 1 : 0;
}

// ---- on the platform -------------------------------------------------------------------------
struct nic_platform {
    fabric_context fab{1};
    root_complex rc{"rc", fab};
    pcie_switch sw1{"sw1", fab, 1, false}, sw2{"sw2", fab, 2, false};
    std::unique_ptr<nic_clock> clock;
    std::unique_ptr<nic_endpoint> nic[2];
    std::vector<std::unique_ptr<pcie_link>> links;

    nic_platform(const options &o) {
        link_params p;
        p.lanes = int(o.lanes);
        p.header_credits = 32;
        p.data_credits = 256;   // 4 KiB per class
        clock = std::make_unique<nic_clock>("nics", fab, o.iface.c_str(), o.mode.c_str(), 2);
        if (!clock->models()) return;
        for (unsigned n = 0; n < 2; n++) {
            nic[n] = std::make_unique<nic_endpoint>(n ? "nicB" : "nicA", fab, uint16_t(3 + n), clock->models(), n,
                                                    clock->dma_ports());
            clock->attach(n, nic[n].get());
        }
        // ports in order: a switch's port 0 is its upstream link
        connect(fab, rc, sw1, p, links);
        connect(fab, sw1, sw2, p, links);
        connect(fab, sw2, *nic[0], p, links);
        connect(fab, sw1, *nic[1], p, links);
        rc.below = {{1, 2, 3, 4}};
        sw1.below = {{}, {2, 3}, {4}};
        sw2.below = {{}, {3}};
    }

    // Nothing left anywhere: every buffer empty, every DMA read answered.
    void drained(std::vector<std::string> &why) {
        std::vector<fabric_node *> nodes = {&rc, &sw1, &sw2, nic[0].get(), nic[1].get()};
        for (fabric_node *n : nodes)
            for (auto &p : n->ports) {
                if (!p->in.empty()) why.push_back(p->in.name() + " still holds " + std::to_string(p->in.size()) + " TLP(s)");
                if (!p->out.empty()) why.push_back(p->out.name() + " still holds " + std::to_string(p->out.size()) + " TLP(s)");
            }
        for (auto &e : nic)
            if (!e->dma().idle()) why.push_back(std::string(e->basename()) + " has DMA reads outstanding");
    }
};

void driver(const options &o, nic_platform &pf, cpu_host host[2]) {
    traffic(o, host[0].ops(), host[1].ops());
    if (o.bad_register) {
        nic_host_ops_t a = host[0].ops();
        uint64_t v = 0, one = 1;
        a.mmio_read(a.ctx, 0x400, &v, 1);    // NIC_BAR_EVENT
        a.mmio_write(a.ctx, 0x10, &one, 1);  // NIC_BAR_FN, read-only
        check(v == ~0ull, o.name + "/a read of an unmodelled register answers all ones", "read 0x" + std::to_string(v));
    }
    wait(20, SC_US);   // the last ACKs and CQ doorbells settle
    pf.clock->stop();
    sc_stop();
}

int run_platform(const options &o) {
    nic_platform pf(o);
    if (!pf.clock->models()) return 2;
    cpu_host host[2] = {{&pf.rc, 3, pf.clock.get()}, {&pf.rc, 4, pf.clock.get()}};
    sc_spawn([&] { driver(o, pf, host); }, "driver");
    sc_start(sc_time(1, SC_SEC));
    const std::string &p = o.name;
    for (auto &e : pf.nic) {
        std::string n = e->basename(), why;
        for (auto &x : e->errors) why += x + "; ";
        for (auto &x : e->dma().errors) why += x + "; ";
        const char *reg = nic_models_bar_error(pf.clock->models(), unsigned(e->id - 3));
        if (o.bad_register && e->id == 3) {
            std::string want = "fn 0: read at BAR offset 0x400: no readable register modelled there";
            check(reg && reg == want && why.empty(), p + "/" + n + " reports the bad register access, naming it",
                  reg ? std::string("reported '") + reg + "'" : "nothing reported");
        } else {
            if (reg) why += reg;
            check(why.empty(), p + "/" + n + " saw no bad TLP, register access or DMA request", why);
        }
        const nic_dma_stats &st = e->dma().stats();
        printf("%s: %llu MMIO writes, %llu MMIO reads; DMA %llu reads (%llu B, %llu MRd), %llu write beats (%llu B, %llu MWr)\n",
               n.c_str(), (unsigned long long)e->mmio_writes, (unsigned long long)e->mmio_reads,
               (unsigned long long)st.reads, (unsigned long long)st.read_bytes, (unsigned long long)st.mrds,
               (unsigned long long)st.writes, (unsigned long long)st.write_bytes, (unsigned long long)st.mwrs);
    }
    std::vector<std::string> left;
    pf.drained(left);
    std::string why;
    for (auto &x : left) why += x + "; ";
    check(left.empty(), p + "/fabric drained", why);
    printf("%s: %llu TLPs, %llu NIC cycles, %.1f us simulated\n", p.c_str(), (unsigned long long)(pf.fab.next_serial - 1),
           (unsigned long long)pf.clock->cycles(), pf.fab.now_ns() / 1000);
    return failed ? 1 : 0;
}

} // namespace

int sc_main(int argc, char **argv) {
    options o = parse(argc, argv);
    if (o.rows) {   // rows alone on stdout; the PASS/FAIL lines and the rest to stderr
        FILE *rows = fdopen(dup(1), "w");
        dup2(2, 1);
        bench_rows_to(rows);
    }
    int rc = o.direct ? run_direct(o) : run_platform(o);
    if (o.rows) {
        char name[160];
        snprintf(name, sizeof name, "platform: NIC bulk WRITE %s: every CQE and byte right%s",
                 o.direct ? "without the PCIe model" : "through the PCIe fabric", o.direct ? "" : ", nothing left in the fabric");
        bench_check(name, rc == 0, "%d check(s) failed (see the bench log)", failed);
    }
    return rc;
}
