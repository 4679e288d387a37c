// link.h — one direction of one PCIe link: takes TLPs from the transmitter's buffer as the
// ordering rules and the receiver's credits allow, holds the wire for the serialisation time
// (bytes / (lanes x bytes per lane per ns)), and delivers into the receiver's buffer after
// the hop latency. The receiver hands credits back when it frees a TLP; they reach the
// transmitter one hop latency later (UpdateFC).
#pragma once
#include "fabric.h"
#include "tlp_queue.h"
#include <deque>

struct link_params {
    double latency_ns = 60;         // wire, PHY and data link layer, one way
    int lanes = 4;                  // x1 .. x16
    double bytes_per_lane_ns = 0.985;  // 8 GT/s with 128b/130b coding (gen3)
    uint32_t header_credits = 8;    // receiver buffer, per class
    uint32_t data_credits = 64;     // receiver buffer, per class, 16-byte units
};

class pcie_link : public sc_core::sc_module {
public:
    pcie_link(sc_core::sc_module_name name, fabric_context &fab, tlp_queue &from, tlp_queue &to,
              const link_params &p);
    void return_credits(const tlp &t);          // the receiver freed t's buffer space
    // Tests: set a class's credits (to hold a TLP back), later grant more.
    void set_credits(int cls, uint32_t headers, uint32_t data);
    void grant(int cls, uint32_t headers, uint32_t data);
    std::string who() const { return name(); }

private:
    void transmit();
    void arrive();
    void credits_back();

    fabric_context &fab_;
    tlp_queue &from_, &to_;
    link_params p_;
    credit_pool credits_;
    std::deque<tlp> in_flight_;
    std::deque<tlp> returning_;
    sc_core::sc_event_queue arrival_, credit_update_;
};
