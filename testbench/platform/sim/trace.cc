// trace.cc — record and print the timeline.
#include "trace.h"

void trace_log::add(double t_ns, const tlp *t, const std::string &text) {
    if (!enabled) return;
    events_.push_back({t_ns, t != nullptr, t ? *t : tlp{}, text});
}

void trace_log::print(FILE *out, const std::function<bool(const tlp &)> &keep, double until_ns) const {
    int n = 0;
    for (const trace_event &e : events_) {
        if (e.time_ns > until_ns) {
            fprintf(out, "      (the timeline goes on; cut after the last lost write)\n");
            return;
        }
        if (e.about_tlp && !keep(e.packet)) continue;
        if (e.about_tlp)
            fprintf(out, "%4d  t=%8.1f ns  %-58s %s\n", ++n, e.time_ns, describe(e.packet).c_str(),
                    e.text.c_str());
        else
            fprintf(out, "%4d  t=%8.1f ns  ** %s\n", ++n, e.time_ns, e.text.c_str());
    }
}
