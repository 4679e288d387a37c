// cpu_host_ops.cc — the platform's CPU as the host driver's operations.
#include "cpu_host_ops.h"
#include <cstring>

using namespace sc_core;

void word_memory_write(word_memory &m, uint64_t addr, const void *data, size_t len) {
    const uint8_t *p = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < len; i++) {
        uint64_t a = addr + i, shift = 8 * (a & 7);
        uint64_t &w = m[a & ~7ull];
        w = (w & ~(0xffull << shift)) | uint64_t(p[i]) << shift;
    }
}

void word_memory_read(const word_memory &m, uint64_t addr, void *buf, size_t len) {
    uint8_t *p = static_cast<uint8_t *>(buf);
    for (size_t i = 0; i < len;) {
        uint64_t a = addr + i;
        auto it = m.find(a & ~7ull);
        uint64_t w = it == m.end() ? 0 : it->second;
        for (; i < len && ((addr + i) & ~7ull) == (a & ~7ull); i++) p[i] = uint8_t(w >> (8 * ((addr + i) & 7)));
    }
}

static cpu_host &self(void *ctx) { return *static_cast<cpu_host *>(ctx); }

static void mmio_write(void *ctx, uint64_t off, const uint64_t *words, unsigned n) {
    self(ctx).rc->mmio_write_words(self(ctx).device, off, std::vector<uint64_t>(words, words + n), "driver register write");
}
static void mmio_read(void *ctx, uint64_t off, uint64_t *words, unsigned n) {
    std::vector<uint64_t> w = self(ctx).rc->mmio_read_words(self(ctx).device, off, n, "driver register read");
    for (unsigned i = 0; i < n; i++) words[i] = i < w.size() ? w[i] : ~0ull;
}
static void mem_write(void *ctx, uint64_t addr, const void *data, size_t len) {
    word_memory_write(self(ctx).rc->host_memory, addr, data, len);
}
static void mem_read(void *ctx, uint64_t addr, void *buf, size_t len) {
    word_memory_read(self(ctx).rc->host_memory, addr, buf, len);
}
static void pause(void *, unsigned ns) { wait(ns, SC_NS); }
static uint64_t cycles(void *ctx) { return self(ctx).clock->cycles(); }

nic_host_ops_t cpu_host::ops() { return {this, mmio_write, mmio_read, mem_write, mem_read, pause, cycles}; }
