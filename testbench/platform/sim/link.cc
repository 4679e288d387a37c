// link.cc — transmitter, wire and credit return of one link direction.
#include "link.h"

using namespace sc_core;

pcie_link::pcie_link(sc_module_name name, fabric_context &fab, tlp_queue &from, tlp_queue &to,
                     const link_params &p)
    : sc_module(name), fab_(fab), from_(from), to_(to), p_(p),
      credits_(credit_pool::uniform(p.header_credits, p.data_credits)) {
    SC_HAS_PROCESS(pcie_link);
    SC_THREAD(transmit);
    SC_METHOD(arrive);
    sensitive << arrival_;
    dont_initialize();
    SC_METHOD(credits_back);
    sensitive << credit_update_;
    dont_initialize();
}

void pcie_link::transmit() {
    for (;;) {
        std::vector<tlp_queue::slot> ready;
        for (auto s : from_.leavable())
            if (credits_.covers(from_.peek(s)) && !fab_.held(from_.peek(s), from_.name())) ready.push_back(s);
        if (ready.empty()) {
            wait(fab_.changed);
            continue;
        }
        tlp t = from_.take(ready[fab_.pick(ready.size())]);
        credits_.take(t);
        fab_.poke();
        double serialise_ns = t.wire_bytes() / (p_.lanes * p_.bytes_per_lane_ns);
        fab_.log(&t, "on link " + who());
        wait(serialise_ns, SC_NS);
        in_flight_.push_back(std::move(t));
        arrival_.notify(p_.latency_ns, SC_NS);
    }
}

// Constant latency and one TLP on the wire at a time: arrivals come in departure order.
void pcie_link::arrive() {
    tlp t = std::move(in_flight_.front());
    in_flight_.pop_front();
    fab_.log(&t, "arrives in " + to_.name());
    to_.push(std::move(t));   // room was reserved by the credits taken at departure
    fab_.poke();
}

void pcie_link::return_credits(const tlp &t) {
    returning_.push_back(t);
    credit_update_.notify(p_.latency_ns, SC_NS);
}

void pcie_link::credits_back() {
    credits_.give(returning_.front());
    returning_.pop_front();
    fab_.poke();
}

void pcie_link::grant(int cls, uint32_t headers, uint32_t data) {
    credits_.header[cls] += headers;
    credits_.data[cls] += data;
    fab_.poke();
}

void pcie_link::set_credits(int cls, uint32_t headers, uint32_t data) {
    credits_.header[cls] = headers;
    credits_.data[cls] = data;
}
