// suspend_sweep.cc — random platforms, traffic and suspend points; each suspended run judged
// against its reference run. Prints PASS / FAIL lines (docs/pcie-platform.md section 5).
//
//   suspend_sweep [--seeds N] [--first S] [--order two-phase|one-phase] [--disable RULE]
//                 [--attributes ro|ido|ido-host] [--switch bridge|per-port] [--flush-read on|off]
//                 [--expect clean|failures] [--jobs J] [--show SEED]
//
// --expect clean: every seed must match its reference (the two-phase claim).
// --expect failures: at least one seed must not (the one-phase counterexample, or a
//   disabled rule shown load-bearing); the first failing seed is rerun with its TLP timeline.
// --attributes ro|ido|ido-host: the platform honours Relaxed Ordering (or ID-based Ordering)
//   and the devices set that bit on every TLP they send (ido-host: the CPU's MMIO writes too).
// --switch per-port: every switch keeps order per (ingress, egress) pair only (pcie_switch.h).
// --flush-read on: every device's Suspend-Active ends with the flush read (mem_device.h).
// --show SEED: run one seed with its timeline and the differences, nothing else.
#include "checker.h"
#include "scenario.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct options {
    uint64_t first = 1, seeds = 200;
    suspend_order order = suspend_order::two_phase;
    order_rule disabled = order_rule::none;
    std::string attributes;   // "", "ro" or "ido"
    switch_buffers switches = switch_buffers::bridge;
    bool flush_read = false;
    bool expect_failures = false;
    int jobs = 1;
    long show = -1;
};

[[noreturn]] void usage(const char *why) {
    fprintf(stderr, "suspend_sweep: %s\nusage: suspend_sweep [--seeds N] [--first S] "
                    "[--order two-phase|one-phase] [--disable RULE] [--attributes ro|ido|ido-host] "
                    "[--switch bridge|per-port] [--flush-read on|off] [--expect clean|failures] [--jobs J] [--show SEED]\n", why);
    exit(2);
}

options parse(int argc, char **argv) {
    options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (i + 1 >= argc) usage(("missing value after " + a).c_str());
        std::string v = argv[++i];
        char *end = nullptr;
        if (a == "--seeds" || a == "--first" || a == "--jobs" || a == "--show") {
            long n = strtol(v.c_str(), &end, 10);
            if (*end || n < 0) usage((a + " wants a number, got '" + v + "'").c_str());
            if (a == "--seeds") o.seeds = uint64_t(n);
            else if (a == "--first") o.first = uint64_t(n);
            else if (a == "--jobs") o.jobs = n < 1 ? 1 : int(n);
            else o.show = n;
        } else if (a == "--order") {
            if (v == "two-phase") o.order = suspend_order::two_phase;
            else if (v == "one-phase") o.order = suspend_order::one_phase;
            else usage(("--order: unknown order '" + v + "'").c_str());
        } else if (a == "--disable") {
            o.disabled = rule_from_name(v);
            if (o.disabled == order_rule::none) usage(("--disable: no rule named '" + v + "'").c_str());
        } else if (a == "--attributes") {
            if (v != "ro" && v != "ido" && v != "ido-host")
                usage(("--attributes: '" + v + "', want ro, ido or ido-host").c_str());
            o.attributes = v;
        } else if (a == "--switch") {
            if (v != "bridge" && v != "per-port") usage(("--switch: '" + v + "', want bridge or per-port").c_str());
            o.switches = v == "per-port" ? switch_buffers::per_port : switch_buffers::bridge;
        } else if (a == "--flush-read") {
            if (v != "on" && v != "off") usage(("--flush-read: '" + v + "', want on or off").c_str());
            o.flush_read = v == "on";
        } else if (a == "--expect") {
            if (v != "clean" && v != "failures") usage(("--expect: '" + v + "'").c_str());
            o.expect_failures = v == "failures";
        } else {
            usage(("unknown option " + a).c_str());
        }
    }
    return o;
}

const char *order_name(suspend_order o) { return o == suspend_order::two_phase ? "two-phase" : "one-phase"; }

platform_config seed_config(const options &o, uint64_t seed) {
    platform_config cfg = random_platform(seed, o.order);
    cfg.order.disabled = o.disabled;
    cfg.order.relaxed_ordering = cfg.devices_set_ro = o.attributes == "ro";
    cfg.order.id_ordering = cfg.devices_set_ido = o.attributes == "ido" || o.attributes == "ido-host";
    cfg.host_sets_ido = o.attributes == "ido-host";
    cfg.switches = o.switches;
    cfg.flush_read = o.flush_read;
    return cfg;
}

// Judge one seed: the differences from its reference run.
std::vector<std::string> judge(const platform_config &cfg, run_result *run_out = nullptr) {
    run_result run = run_isolated(cfg);
    run_result ref = run_isolated(reference_of(cfg, run));
    if (run_out) *run_out = run;
    return compare_with_reference(run, ref);
}

void show(const options &o, uint64_t seed) {
    platform_config cfg = seed_config(o, seed);
    printf("seed %llu: %s, %s suspend at t=%.0f ns, order", (unsigned long long)seed,
           cfg.topo.describe().c_str(), order_name(o.order), cfg.plan.start_ns);
    for (uint16_t d : cfg.plan.devices) printf(" dev%u", d);
    printf("%s%s%s%s\n", o.switches == switch_buffers::per_port ? ", per-port switches" : "", o.flush_read ? ", flush read" : "",
           o.disabled == order_rule::none ? "" : ", rule disabled: ", o.disabled == order_rule::none ? "" : rule_name(o.disabled));
    cfg.trace = true;
    run_result run;
    std::vector<std::string> diffs = judge(cfg, &run);
    printf("---- %u TLPs; suspend sequence done at t=%.1f ns; last event at t=%.1f ns ----\n", run.tlps,
           run.suspend_done_ns, run.end_ns);
    printf("---- differences from the reference run (%zu) ----\n", diffs.size());
    for (size_t i = 0; i < diffs.size() && i < 20; i++) printf("  %s\n", diffs[i].c_str());
}

// Run seeds [first, first + seeds) on `jobs` workers (each judging its share in a child
// process); returns the failing seeds in order. A worker reports "seed N ok|bad TEXT".
std::vector<std::pair<uint64_t, std::string>> sweep(const options &o) {
    std::vector<std::pair<uint64_t, std::string>> bad;
    std::vector<FILE *> outs;
    std::vector<pid_t> pids;
    for (int w = 0; w < o.jobs; w++) {
        int fds[2];
        if (pipe(fds) != 0) { perror("pipe"); exit(2); }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            FILE *out = fdopen(fds[1], "w");
            for (uint64_t s = o.first + uint64_t(w); s < o.first + o.seeds; s += uint64_t(o.jobs)) {
                std::vector<std::string> diffs = judge(seed_config(o, s));
                fprintf(out, "%llu %s\n", (unsigned long long)s, diffs.empty() ? "" : diffs[0].c_str());
                fflush(out);
            }
            _exit(0);
        }
        close(fds[1]);
        outs.push_back(fdopen(fds[0], "r"));
        pids.push_back(pid);
    }
    std::vector<std::pair<uint64_t, std::string>> all;
    char line[4096];
    for (FILE *in : outs) {
        while (fgets(line, sizeof line, in)) {
            line[strcspn(line, "\n")] = 0;
            char *space = strchr(line, ' ');
            if (!space) continue;
            *space = 0;
            all.push_back({strtoull(line, nullptr, 10), space + 1});
        }
        fclose(in);
    }
    for (pid_t p : pids) waitpid(p, nullptr, 0);
    if (all.size() != o.seeds) {
        fprintf(stderr, "suspend_sweep: %zu of %llu seeds reported\n", all.size(), (unsigned long long)o.seeds);
        all.push_back({0, "some seeds did not report (a worker crashed)"});
    }
    std::sort(all.begin(), all.end());
    for (auto &r : all)
        if (!r.second.empty()) bad.push_back(r);
    return bad;
}

} // namespace

int sc_main(int argc, char **argv) {
    options o = parse(argc, argv);
    if (o.show >= 0) {
        show(o, uint64_t(o.show));
        return 0;
    }
    std::string name = std::string("platform/sweep-") + order_name(o.order) +
                       (o.disabled == order_rule::none ? "" : std::string("-no-") + rule_name(o.disabled)) +
                       (o.attributes.empty() ? "" : "-with-" + o.attributes) +
                       (o.switches == switch_buffers::per_port ? "-per-port" : "") + (o.flush_read ? "-flush-read" : "");
    auto bad = sweep(o);
    unsigned long long first = o.first, last = o.first + o.seeds - 1;
    if (!o.expect_failures) {
        if (bad.empty()) {
            printf("PASS %s: seeds %llu-%llu, every image and the VM memory equal the reference, nothing lost\n",
                   name.c_str(), first, last);
            return 0;
        }
        show(o, bad[0].first);
        printf("FAIL %s: %zu of %llu seeds differ from the reference; first seed %llu: %s\n", name.c_str(),
               bad.size(), (unsigned long long)o.seeds, (unsigned long long)bad[0].first, bad[0].second.c_str());
        return 1;
    }
    if (bad.empty()) {
        printf("FAIL %s: seeds %llu-%llu all equal the reference; expected some to lose or misapply a write\n",
               name.c_str(), first, last);
        return 1;
    }
    show(o, bad[0].first);
    printf("PASS %s: %zu of %llu seeds lose or misapply a write (as expected); first seed %llu: %s\n",
           name.c_str(), bad.size(), (unsigned long long)o.seeds, (unsigned long long)bad[0].first,
           bad[0].second.c_str());
    return 0;
}
