// fabric.h — what every module of one platform shares: the ordering options, the seeded
// random choices, the event that says "some buffer or credit changed", TLP serial numbers
// and the trace. One per simulation; passed by reference, never global.
#pragma once
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>
#include "ordering.h"
#include "trace.h"
#include <functional>
#include <random>

struct fabric_context {
    ordering_options order;
    std::mt19937_64 rng;          // every arbitrary choice of the fabric comes from here
    sc_core::sc_event changed;    // a buffer gained or lost a TLP, or credits came back
    trace_log trace;
    uint32_t next_serial = 1;
    // Directed tests force a spin trail's order by holding a TLP in a buffer, as a credit
    // stall could: while hold(t, buffer name) says so, t stays; the ordering rules still
    // decide what may pass it. Unset: nothing is held.
    std::function<bool(const tlp &, const std::string &buffer)> hold;

    explicit fabric_context(uint64_t seed) : rng(seed) {}
    void poke() { changed.notify(sc_core::SC_ZERO_TIME); }
    size_t pick(size_t n) { return size_t(rng() % n); }
    uint32_t stamp(tlp &t) { return t.serial = next_serial++; }
    double now_ns() const { return sc_core::sc_time_stamp().to_seconds() * 1e9; }
    bool held(const tlp &t, const std::string &buffer) const { return hold && hold(t, buffer); }
    void log(const tlp *t, const std::string &text) { trace.add(now_ns(), t, text); }
};
