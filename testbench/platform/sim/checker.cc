// checker.cc — word-by-word comparison of images and memories.
#include "checker.h"
#include <cstdio>

static void compare_memory(const std::string &what, const word_memory &got, const word_memory &want,
                           std::vector<std::string> &out) {
    char buf[256];
    auto report = [&](uint64_t addr, const char *g, const char *w) {
        snprintf(buf, sizeof buf, "%s word 0x%llx: %s, reference %s", what.c_str(),
                 (unsigned long long)addr, g, w);
        out.push_back(buf);
    };
    for (auto &w : want) {
        auto it = got.find(w.first);
        char wv[32], gv[32];
        snprintf(wv, sizeof wv, "0x%llx", (unsigned long long)w.second);
        if (it == got.end()) report(w.first, "missing", wv);
        else if (it->second != w.second) {
            snprintf(gv, sizeof gv, "0x%llx", (unsigned long long)it->second);
            report(w.first, gv, wv);
        }
    }
    for (auto &g : got)
        if (!want.count(g.first)) {
            char gv[32];
            snprintf(gv, sizeof gv, "0x%llx", (unsigned long long)g.second);
            report(g.first, gv, "nothing");
        }
}

std::vector<std::string> compare_with_reference(const run_result &run, const run_result &ref) {
    std::vector<std::string> out;
    for (auto &e : run.errors) out.push_back("error: " + e);
    for (auto &e : ref.errors) out.push_back("reference run error: " + e);
    for (auto &l : run.losses) out.push_back("lost: " + l);
    for (auto &d : ref.memory) {
        auto it = run.image.find(d.first);
        compare_memory("dev" + std::to_string(d.first) + " image", it == run.image.end() ? word_memory{} : it->second,
                       d.second, out);
    }
    compare_memory("VM memory copy", run.host, ref.host, out);
    return out;
}
