// isolated_run.cc — one platform run in a child process (SystemC elaborates once per
// process), its results sent back through a pipe as text lines:
//   started DEV N | image DEV ADDR VAL | memory DEV ADDR VAL | host ADDR VAL |
//   loss TEXT | error TEXT | times END SUSPEND_DONE TLPS TURNED_AT_ROOT
#include "platform.h"
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

static void write_result(FILE *out, const run_result &r) {
    for (auto &s : r.started) fprintf(out, "started %u %zu\n", s.first, s.second);
    for (auto &d : r.image)
        for (auto &w : d.second) fprintf(out, "image %u %llu %llu\n", d.first, (unsigned long long)w.first, (unsigned long long)w.second);
    for (auto &d : r.memory)
        for (auto &w : d.second) fprintf(out, "memory %u %llu %llu\n", d.first, (unsigned long long)w.first, (unsigned long long)w.second);
    for (auto &w : r.host) fprintf(out, "host %llu %llu\n", (unsigned long long)w.first, (unsigned long long)w.second);
    for (auto &l : r.losses) fprintf(out, "loss %s\n", l.c_str());
    for (auto &e : r.errors) fprintf(out, "error %s\n", e.c_str());
    fprintf(out, "times %.1f %.1f %u %u\n", r.end_ns, r.suspend_done_ns, r.tlps, r.turned_at_root);
}

static run_result read_result(FILE *in) {
    run_result r;
    char line[4096];
    bool got_times = false;
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = 0;
        std::istringstream s(line);
        std::string what;
        s >> what;
        unsigned dev;
        unsigned long long a, v;
        if (what == "started") { size_t n; s >> dev >> n; r.started[uint16_t(dev)] = n; }
        else if (what == "image") { s >> dev >> a >> v; r.image[uint16_t(dev)][a] = v; }
        else if (what == "memory") { s >> dev >> a >> v; r.memory[uint16_t(dev)][a] = v; }
        else if (what == "host") { s >> a >> v; r.host[a] = v; }
        else if (what == "loss") r.losses.push_back(line + 5);
        else if (what == "error") r.errors.push_back(line + 6);
        else if (what == "times") { s >> r.end_ns >> r.suspend_done_ns >> r.tlps >> r.turned_at_root; got_times = true; }
    }
    if (!got_times) r.errors.push_back("the run's process ended without its results");
    return r;
}

run_result run_isolated(const platform_config &cfg) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        close(fds[0]);
        FILE *out = fdopen(fds[1], "w");
        try {
            write_result(out, run_platform(cfg));
        } catch (const std::exception &e) {
            fprintf(out, "error run stopped: %s\n", e.what());
        }
        fclose(out);
        fflush(stdout);
        _exit(0);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    run_result r = read_result(in);
    fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        r.errors.push_back("the run's process failed (status " + std::to_string(status) + ")");
    return r;
}
