/* direct_host_ops.c — the host driver's operations without the PCIe model. */
#include "direct_host_ops.h"

static direct_host_t *self(void *ctx) { return ctx; }

static void mmio_write(void *ctx, uint64_t off, const uint64_t *words, unsigned n) {
    for (unsigned i = 0; i < n; i++) nic_models_bar_write(self(ctx)->models, self(ctx)->nic, off + 8 * i, words[i]);
}
static void mmio_read(void *ctx, uint64_t off, uint64_t *words, unsigned n) {
    for (unsigned i = 0; i < n; i++) words[i] = nic_models_bar_read(self(ctx)->models, self(ctx)->nic, off + 8 * i);
}
static void mem_write(void *ctx, uint64_t addr, const void *data, size_t len) {
    hostmem_write(nic_models_mem(self(ctx)->models, self(ctx)->nic), addr, data, len);
}
static void mem_read(void *ctx, uint64_t addr, void *buf, size_t len) {
    hostmem_read(nic_models_mem(self(ctx)->models, self(ctx)->nic), addr, buf, len);
}
static void pause(void *ctx, unsigned ns) {
    for (unsigned i = 0; i < (ns + 3) / 4; i++) nic_models_step(self(ctx)->models);
}
static uint64_t cycles(void *ctx) { return nic_models_cycles(self(ctx)->models); }

nic_host_ops_t direct_host_ops(direct_host_t *h) {
    return (nic_host_ops_t){h, mmio_write, mmio_read, mem_write, mem_read, pause, cycles};
}
