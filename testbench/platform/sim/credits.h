// credits.h — flow-control credits of one receive buffer (PCIe Base spec 2.6.1): header
// credits (one per TLP) and data credits (one per 16 bytes) for each of the three classes.
// The transmitter holds a pool that starts at the receiver's advertised buffer size, takes
// credits per TLP sent and gets them back when the receiver frees the buffer (UpdateFC).
#pragma once
#include "tlp.h"

struct credit_pool {
    uint32_t header[tlp_classes] = {0, 0, 0};
    uint32_t data[tlp_classes] = {0, 0, 0};

    static credit_pool uniform(uint32_t headers, uint32_t data_credits) {
        credit_pool p;
        for (int c = 0; c < tlp_classes; c++) p.header[c] = headers, p.data[c] = data_credits;
        return p;
    }
    bool covers(const tlp &t) const {
        return header[t.cls()] >= 1 && data[t.cls()] >= t.data_credits();
    }
    void take(const tlp &t) { header[t.cls()] -= 1; data[t.cls()] -= t.data_credits(); }
    void give(const tlp &t) { header[t.cls()] += 1; data[t.cls()] += t.data_credits(); }
};
