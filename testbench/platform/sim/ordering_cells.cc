// ordering_cells.cc — one test per cell of the ordering table (ordering.h): two TLPs of the
// cell's kinds race through one link and the receiver's buffer, the earlier one sent first,
// and the order in which the receiver takes them is observed. Where the earlier one can be
// held back alone (its class out of header credits, or out of data credits that the later
// one does not need), it is held back for 500 ns, which gives the later one every chance to
// pass. Each cell runs 16 independent races:
//   "No"  cells: the later TLP never arrives first;
//   "Yes" cells: the later TLP arrives first in every race (it must be able to pass);
//   "Y/N" cells: the later TLP arrives first in at least one race (the platform lets it).
// Each cell also checks that the table names the expected cell.
//
//   ordering_cells [--disable RULE]   with a rule turned around, its cell must FAIL
#include "fabric.h"
#include "link.h"
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/wait.h>
#include <unistd.h>

using namespace sc_core;

namespace {

struct cell_case {
    const char *name;        // the test name, also the cell the table must name
    const char *cell;
    tlp later, earlier;
    bool ro, ido;            // ordering options on
    passing expect;
};

tlp make(tlp_kind k, uint16_t requester = 2, uint8_t tag = 1) {
    tlp t;
    t.kind = k;
    t.requester = requester;
    t.completer = 9;
    t.tag = tag;
    t.addr = 0x1000;
    if (k == tlp_kind::mem_read) t.read_words = 1;
    if (k == tlp_kind::fetch_add) t.data = {1};
    if (k == tlp_kind::mem_write || k == tlp_kind::completion_data) t.data.assign(8, 7);
    return t;
}

// The later TLP of a pair: one word of data where the earlier has eight, so a data-credit
// shortage can hold back the earlier one alone.
tlp small(tlp t) {
    if (t.kind == tlp_kind::mem_write || t.kind == tlp_kind::completion_data) t.data.assign(1, 5);
    return t;
}
tlp with_ro(tlp t) { t.relaxed_ordering = true; return t; }
tlp with_ido(tlp t) { t.id_ordering = true; return t; }

std::vector<cell_case> cases() {
    const tlp_kind W = tlp_kind::mem_write, R = tlp_kind::mem_read, F = tlp_kind::fetch_add,
                   C = tlp_kind::completion_data;
    const passing No = passing::must_not, Yes = passing::must, YN = passing::may;
    return {
        {"A2a", "A2a", small(make(W)), make(W), false, false, No},
        {"A2a-RO-bit-with-RO-off", "A2a", with_ro(small(make(W))), make(W), false, false, No},
        {"A2b-RO", "A2b", with_ro(small(make(W))), make(W), true, false, YN},
        {"A2b-IDO-other-requester", "A2b", with_ido(small(make(W, 2))), make(W, 3), false, true, YN},
        {"A2a-IDO-same-requester", "A2a", with_ido(small(make(W, 2))), make(W, 2), false, true, No},
        {"A3", "A3", small(make(W)), make(R), false, false, Yes},
        {"A4", "A4", small(make(W)), make(F), false, false, Yes},
        {"A5a", "A5a", small(make(W)), make(C), false, false, YN},
        {"B2a", "B2a", make(R), make(W), false, false, No},
        {"B2a-RO-on", "B2a", with_ro(make(R)), make(W), true, false, No},
        {"B2b-IDO", "B2b", with_ido(make(R, 2)), make(W, 3), false, true, YN},
        {"B3", "B3", make(R), make(R, 2, 2), false, false, YN},
        {"B4", "B4", make(R), make(F, 2, 2), false, false, YN},
        {"B5", "B5", make(R), make(C), false, false, YN},
        {"C2a", "C2a", make(F), make(W), false, false, No},
        {"C2b-IDO", "C2b", with_ido(make(F, 2)), make(W, 3), false, true, YN},
        {"C3", "C3", make(F), make(R, 2, 2), false, false, YN},
        {"C4", "C4", make(F), make(F, 2, 2), false, false, YN},
        {"C5", "C5", make(F), make(C), false, false, YN},
        {"D2a", "D2a", small(make(C)), make(W), false, false, No},
        {"D2b-RO", "D2b", with_ro(small(make(C))), make(W), true, false, YN},
        {"D2b-IDO", "D2b", with_ido(small(make(C, 2))), make(W, 3), false, true, YN},
        {"D2a-IDO-own-write", "D2a", with_ido(small(make(C, 2))), make(W, 9), false, true, No},
        {"D3", "D3", small(make(C)), make(R), false, false, Yes},
        {"D4", "D4", small(make(C)), make(F), false, false, Yes},
        {"D5a", "D5a", small(make(C, 2, 1)), make(C, 2, 2), false, false, YN},
        {"D5b", "D5b", small(make(C, 2, 1)), make(C, 2, 1), false, false, No},
    };
}

// The receiver: takes TLPs from its buffer as the rules allow, records their serials.
struct race_sink : sc_module {
    race_sink(sc_module_name n, fabric_context &fab, tlp_queue &rx, pcie_link &link)
        : sc_module(n), fab(fab), rx(rx), link(link) {
        SC_HAS_PROCESS(race_sink);
        SC_THREAD(run);
    }
    void run() {
        for (;;) {
            auto ready = rx.leavable();
            if (ready.empty()) { wait(fab.changed); continue; }
            tlp t = rx.take(ready[fab.pick(ready.size())]);
            link.return_credits(t);
            order.push_back(t.serial);
            fab.poke();
            wait(10, SC_NS);
        }
    }
    fabric_context &fab;
    tlp_queue &rx;
    pcie_link &link;
    std::vector<uint32_t> order;
};

// One race: tx -> link -> rx -> sink, E then L pushed at time 0, E held back where it can be.
struct race {
    race(int i, fabric_context &fab, const cell_case &c) {
        link_params p;
        std::string n = "race" + std::to_string(i);
        tx = std::make_unique<tlp_queue>(n + ".tx", credit_pool::uniform(8, 64), fab.order);
        rx = std::make_unique<tlp_queue>(n + ".rx", credit_pool::uniform(p.header_credits, p.data_credits), fab.order);
        link = std::make_unique<pcie_link>((n + "_link").c_str(), fab, *tx, *rx, p);
        sink = std::make_unique<race_sink>((n + "_sink").c_str(), fab, *rx, *link);
        tlp e = c.earlier, l = c.later;
        fab.stamp(e);
        fab.stamp(l);
        earlier = e.serial;
        tx->push(e);
        tx->push(l);
        int ec = e.cls();
        if (ec != l.cls()) hold = ec, link->set_credits(ec, 0, p.data_credits);
        else if (e.data_credits() > l.data_credits()) hold = ec, link->set_credits(ec, p.header_credits, l.data_credits());
    }
    std::unique_ptr<tlp_queue> tx, rx;
    std::unique_ptr<pcie_link> link;
    std::unique_ptr<race_sink> sink;
    uint32_t earlier = 0;
    int hold = -1;   // the class held back, -1: none (same class, no data to tell them apart)
};

struct releaser : sc_module {
    releaser(sc_module_name n, std::vector<std::unique_ptr<race>> &races) : sc_module(n), races(races) {
        SC_HAS_PROCESS(releaser);
        SC_THREAD(run);
    }
    void run() {
        wait(500, SC_NS);
        for (auto &r : races)
            if (r->hold >= 0) r->link->grant(r->hold, 8, 64);
    }
    std::vector<std::unique_ptr<race>> &races;
};

// In a child process (one elaboration per case): how many of 16 races the later TLP won;
// -1 if a race did not deliver both.
int later_first_count(const cell_case &c, order_rule disabled, bool *held) {
    fabric_context fab(0xce11 + uint64_t(strlen(c.name)));
    fab.order.relaxed_ordering = c.ro;
    fab.order.id_ordering = c.ido;
    fab.order.disabled = disabled;
    std::vector<std::unique_ptr<race>> races;
    for (int i = 0; i < 16; i++) races.push_back(std::make_unique<race>(i, fab, c));
    releaser rel("releaser", races);
    sc_start(sc_time(100, SC_US), SC_EXIT_ON_STARVATION);
    int won = 0;
    *held = races[0]->hold >= 0;
    for (auto &r : races) {
        if (r->sink->order.size() != 2) return -1;
        won += r->sink->order[0] != r->earlier;
    }
    return won;
}

const char *answer_name(passing p) {
    return p == passing::must_not ? "No" : p == passing::must ? "Yes" : "Y/N";
}

// Run one case in a child; print its PASS / FAIL line; return true if PASS.
bool run_case(const cell_case &c, order_rule disabled) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        bool held = false;
        int won = later_first_count(c, disabled, &held);
        int msg[2] = {won, held};
        if (write(fds[1], msg, sizeof msg) != sizeof msg) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    int msg[2] = {-2, 0};
    ssize_t got = read(fds[0], msg, sizeof msg);
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    int won = got == sizeof msg ? msg[0] : -2;
    ordering_options opt;
    opt.relaxed_ordering = c.ro;
    opt.id_ordering = c.ido;
    opt.disabled = disabled;
    ordering_verdict v = may_pass(c.later, c.earlier, opt);
    char why[256] = "";
    if (won == -2) snprintf(why, sizeof why, "the race's process died");
    else if (won < 0) snprintf(why, sizeof why, "a race did not deliver both TLPs (deadlock)");
    else if (strcmp(v.cell, c.cell) != 0) snprintf(why, sizeof why, "the table answered from cell %s", v.cell);
    else if (c.expect == passing::must_not && won > 0)
        snprintf(why, sizeof why, "later %s passed earlier %s in %d of 16 races (table: No)",
                 kind_name(c.later.kind), kind_name(c.earlier.kind), won);
    else if (c.expect == passing::must && won < 16)
        snprintf(why, sizeof why, "later %s stayed behind the held-back %s in %d of 16 races (table: Yes)",
                 kind_name(c.later.kind), kind_name(c.earlier.kind), 16 - won);
    else if (c.expect == passing::may && won == 0)
        snprintf(why, sizeof why, "later %s never passed earlier %s in 16 races (table: Y/N)",
                 kind_name(c.later.kind), kind_name(c.earlier.kind));
    bool held = msg[1];
    if (why[0]) printf("FAIL platform/order-%s: %s\n", c.name, why);
    else
        printf("PASS platform/order-%s: %s: later %s %s earlier %s%s, first in %d of 16 races\n", c.name,
               answer_name(c.expect), kind_name(c.later.kind),
               c.expect == passing::must_not ? "never passed" : "passed", kind_name(c.earlier.kind),
               held ? " (held back)" : "", won);
    return !why[0];
}

} // namespace

int sc_main(int argc, char **argv) {
    order_rule disabled = order_rule::none;
    if (argc == 3 && strcmp(argv[1], "--disable") == 0) {
        disabled = rule_from_name(argv[2]);
        if (disabled == order_rule::none) {
            fprintf(stderr, "ordering_cells: no rule named '%s'\n", argv[2]);
            return 2;
        }
    } else if (argc != 1) {
        fprintf(stderr, "usage: ordering_cells [--disable RULE]\n");
        return 2;
    }
    int failed = 0;
    for (const cell_case &c : cases()) failed += !run_case(c, disabled);
    return failed ? 1 : 0;
}
