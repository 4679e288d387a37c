// platform.cc — build the modules of one topology, run to the end, collect the results.
#include "platform.h"
#include "address_map.h"
#include "pcie_switch.h"
#include <algorithm>
#include <functional>
#include <memory>

using namespace sc_core;

std::vector<uint16_t> topology_spec::devices() const {
    std::vector<uint16_t> out;
    for (size_t i = 0; i < nodes.size(); i++)
        if (!nodes[i].is_switch) out.push_back(uint16_t(i + 1));
    return out;
}

std::string topology_spec::describe() const {
    std::function<std::string(int)> sub = [&](int parent) {
        std::string s;
        for (size_t i = 0; i < nodes.size(); i++) {
            if (nodes[i].parent != parent) continue;
            if (!s.empty()) s += " ";
            s += (nodes[i].is_switch ? "sw" : "dev") + std::to_string(i + 1) + "[x" +
                 std::to_string(nodes[i].link.lanes) + "]";
            if (nodes[i].is_switch) s += "(" + sub(int(i)) + ")";
        }
        return s;
    };
    return std::string("rc(") + sub(-1) + ")" + (acs_redirect ? " ACS-redirect" : "");
}

namespace {

struct built_platform {
    fabric_context fab;
    std::unique_ptr<root_complex> rc;
    std::vector<std::unique_ptr<fabric_node>> nodes;   // index = node id - 1
    std::map<uint16_t, mem_device *> devices;
    std::vector<std::unique_ptr<pcie_link>> links;
    std::unique_ptr<hypervisor> hv;
    explicit built_platform(uint64_t seed) : fab(seed) {}
};

// The ids under node `parent` (-1: the root complex), each subtree in full.
void collect_below(const topology_spec &t, int parent, std::vector<uint16_t> &out) {
    for (size_t i = 0; i < t.nodes.size(); i++)
        if (t.nodes[i].parent == parent) {
            out.push_back(uint16_t(i + 1));
            collect_below(t, int(i), out);
        }
}

void build(built_platform &b, const platform_config &cfg) {
    b.fab.order = cfg.order;
    b.fab.trace.enabled = cfg.trace;
    b.rc = std::make_unique<root_complex>("rc", b.fab);
    b.rc->mmio_id_ordering = cfg.host_sets_ido;
    const topology_spec &t = cfg.topo;
    for (size_t i = 0; i < t.nodes.size(); i++) {
        uint16_t id = uint16_t(i + 1);
        if (t.nodes[i].is_switch) {
            b.nodes.push_back(std::make_unique<pcie_switch>(("sw" + std::to_string(id)).c_str(), b.fab,
                                                            id, t.acs_redirect, cfg.switches));
        } else {
            auto it = cfg.scripts.find(id);
            auto dev = std::make_unique<mem_device>(("dev" + std::to_string(id)).c_str(), b.fab, id,
                                                    it == cfg.scripts.end() ? std::vector<device_op>{} : it->second);
            dev->set_relaxed_ordering = cfg.devices_set_ro;
            dev->set_id_ordering = cfg.devices_set_ido;
            dev->flush_read = cfg.flush_read;
            b.devices[id] = dev.get();
            b.nodes.push_back(std::move(dev));
        }
    }
    for (size_t i = 0; i < t.nodes.size(); i++) b.nodes[i]->set_processing_ns(t.nodes[i].processing_ns);
    // Links in node order: a switch's port 0 is its upstream link, made before its children's.
    for (size_t i = 0; i < t.nodes.size(); i++) {
        int parent = t.nodes[i].parent;
        fabric_node &up = parent < 0 ? static_cast<fabric_node &>(*b.rc) : *b.nodes[size_t(parent)];
        connect(b.fab, up, *b.nodes[i], t.nodes[i].link, b.links);
        std::vector<uint16_t> ids = {uint16_t(i + 1)};
        collect_below(t, int(i), ids);
        if (parent < 0) {
            b.rc->below.push_back(ids);
        } else {
            auto &sw = static_cast<pcie_switch &>(*b.nodes[size_t(parent)]);
            if (sw.below.empty()) sw.below.emplace_back();   // port 0, upstream
            sw.below.push_back(ids);
        }
    }
    b.hv = std::make_unique<hypervisor>("hypervisor", b.fab, *b.rc, cfg.plan);
}

// Print the timeline a reviewer needs: with lost writes, every hop of each lost write and
// the host's MMIO with the devices involved (the victims and the writers); device and
// hypervisor events always. With no loss (a misapplied write), every write towards a device.
void print_trace(const built_platform &b, const run_result &r) {
    std::vector<uint32_t> lost;
    std::vector<uint16_t> involved;
    double last_loss = -1;
    for (auto &d : b.devices) {
        if (!d.second->lost.empty()) last_loss = std::max(last_loss, d.second->last_loss_ns);
        for (const tlp &t : d.second->lost) {
            lost.push_back(t.serial);
            involved.push_back(d.first);
            involved.push_back(t.requester);
        }
    }
    auto has = [](const auto &v, auto x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    auto keep = [&](const tlp &t) {
        if (lost.empty()) return t.kind == tlp_kind::mem_write && address_owner(t.addr) != root_complex_id;
        if (has(lost, t.serial)) return true;
        if (t.requester != root_complex_id) return false;   // MMIO requests and their completions
        return has(involved, t.is_request() ? address_owner(t.addr) : t.completer);
    };
    printf("---- TLP timeline: %s; device and hypervisor events marked ** ----\n",
           lost.empty() ? "every write towards a device" : "the lost writes hop by hop, and the host's MMIO with the devices involved");
    b.fab.trace.print(stdout, keep, last_loss < 0 ? r.end_ns : last_loss);
    for (const std::string &l : r.losses) printf("LOST: %s\n", l.c_str());
}

// The holds of a directed run: a TLP stays while its release has not come; a thread pokes
// the fabric every 10 ns until the last release, so a release wakes whoever waits for it.
void install_holds(built_platform &b, const platform_config &cfg) {
    if (cfg.holds.empty()) return;
    auto released = [&b](const hold_spec &h) {
        auto d = b.devices.find(h.until_captured);
        return b.fab.now_ns() >= h.release_ns || (d != b.devices.end() && d->second->captured());
    };
    b.fab.hold = [&b, &cfg, released](const tlp &t, const std::string &buffer) {
        for (const hold_spec &h : cfg.holds)
            if (t.note == h.note && buffer == h.buffer && !released(h)) return true;
        return false;
    };
    sc_spawn([&b, &cfg, released] {
        for (const hold_spec &h : cfg.holds)
            while (!released(h)) {
                wait(10, SC_NS);
                b.fab.poke();
            }
    }, "hold_release");
}

} // namespace

run_result run_platform(const platform_config &cfg) {
    built_platform b(cfg.seed);
    build(b, cfg);
    install_holds(b, cfg);
    run_result r;
    // Everything stops by itself: devices run out of script or are suspended, the fabric
    // drains, no event is left. The bound turns a livelock into an error.
    const double bound_ns = 50e6;
    sc_start(sc_time(bound_ns, SC_NS), SC_EXIT_ON_STARVATION);
    r.end_ns = b.fab.now_ns();
    if (r.end_ns >= bound_ns) r.errors.push_back("run did not settle within 50 ms of simulated time");
    r.suspend_done_ns = b.hv->done_ns;
    r.tlps = b.fab.next_serial - 1;
    r.turned_at_root = b.rc->turned_down;
    for (auto &d : b.devices) {
        r.started[d.first] = d.second->ops_started();
        r.image[d.first] = d.second->image();
        r.memory[d.first] = d.second->bar_memory();
        for (auto &l : d.second->losses) r.losses.push_back(l);
        for (auto &e : d.second->errors) r.errors.push_back(e);
        if (cfg.plan.order == suspend_order::none && !d.second->script_done())
            r.errors.push_back(std::string(d.second->basename()) + " did not finish its script");
        if (cfg.plan.order != suspend_order::none && !d.second->captured())
            r.errors.push_back(std::string(d.second->basename()) + " was never captured");
    }
    r.host = b.rc->vm_copied ? b.rc->vm_copy : b.rc->host_memory;
    for (auto &l : b.rc->late_writes) r.losses.push_back(l);
    for (auto &e : b.hv->errors) r.errors.push_back("hypervisor: " + e);
    // A TLP left in a buffer when nothing can move any more is a fabric deadlock.
    auto check_empty = [&](const fabric_node &n) {
        for (auto &p : n.ports) {
            if (!p->in.empty()) r.errors.push_back("deadlock: " + p->in.name() + " still holds " + std::to_string(p->in.size()) + " TLP(s)");
            if (!p->out.empty()) r.errors.push_back("deadlock: " + p->out.name() + " still holds " + std::to_string(p->out.size()) + " TLP(s)");
        }
    };
    check_empty(*b.rc);
    for (auto &n : b.nodes) {
        check_empty(*n);
        if (auto *sw = dynamic_cast<const pcie_switch *>(n.get()))
            for (const std::string &q : sw->buffered()) r.errors.push_back("deadlock: " + q);
    }
    if (cfg.trace) print_trace(b, r);
    return r;
}
