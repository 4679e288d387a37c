// tlp.cc — names of TLPs for traces.
#include "tlp.h"
#include <cstdio>

const char *kind_name(tlp_kind k) {
    switch (k) {
    case tlp_kind::mem_write: return "MWr";
    case tlp_kind::mem_read: return "MRd";
    case tlp_kind::fetch_add: return "FAdd";
    case tlp_kind::completion: return "Cpl";
    case tlp_kind::completion_data: return "CplD";
    }
    return "?";
}

std::string describe(const tlp &t) {
    char buf[160];
    if (t.is_request())
        snprintf(buf, sizeof buf, "#%u %s %u->0x%llx %uB%s%s", t.serial, kind_name(t.kind),
                 t.requester, (unsigned long long)t.addr,
                 t.kind == tlp_kind::mem_read ? 8 * t.read_words : t.payload_bytes(),
                 t.relaxed_ordering ? " RO" : "", t.id_ordering ? " IDO" : "");
    else
        snprintf(buf, sizeof buf, "#%u %s %u->%u tag %u %uB%s%s%s", t.serial, kind_name(t.kind),
                 t.completer, t.requester, t.tag, t.payload_bytes(), t.last ? "" : " (more)",
                 t.relaxed_ordering ? " RO" : "", t.id_ordering ? " IDO" : "");
    std::string s = buf;
    if (!t.note.empty()) s += " (" + t.note + ")";
    return s;
}
