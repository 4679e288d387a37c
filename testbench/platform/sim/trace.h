// trace.h — the timeline of one run: TLP movements and device / host events, kept in
// memory and printed only for a run a reviewer must read (a failing seed).
#pragma once
#include "tlp.h"
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

struct trace_event {
    double time_ns;
    bool about_tlp;   // false: a device or host event (level change, capture, loss)
    tlp packet;       // copy of the TLP when about_tlp
    std::string text;
};

class trace_log {
public:
    bool enabled = false;   // off: nothing is kept (the sweeps run thousands of TLPs)
    void add(double t_ns, const tlp *t, const std::string &text);
    // Print the events up to until_ns that the filter keeps (every non-TLP event is kept).
    void print(FILE *out, const std::function<bool(const tlp &)> &keep, double until_ns) const;

private:
    std::vector<trace_event> events_;
};
