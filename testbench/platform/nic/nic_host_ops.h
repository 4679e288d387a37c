/* nic_host_ops.h — how the host driver (nic_host.h) reaches one NIC and its host memory:
 * the platform's CPU (MMIO TLPs through the fabric), or the NIC's registers called directly
 * (the no-PCIe baseline). Kept apart from nic_host.h so C++ can include it (no _BitInt).
 *
 * Plain C testbench code. */
#ifndef NIC_HOST_OPS_H
#define NIC_HOST_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    void *ctx;
    /* MMIO: n 64-bit words at offset off of the NIC's BAR window (function fn at
     * fn * NIC_BAR_SIZE); a write is posted (one MWr), a read waits for its data. */
    void (*mmio_write)(void *ctx, uint64_t off, const uint64_t *words, unsigned n);
    void (*mmio_read)(void *ctx, uint64_t off, uint64_t *words, unsigned n);
    /* host memory as the CPU sees it: its own loads and stores, not DMA */
    void (*mem_write)(void *ctx, uint64_t addr, const void *data, size_t len);
    void (*mem_read)(void *ctx, uint64_t addr, void *buf, size_t len);
    /* let time pass: the CPU waits between two polls */
    void (*pause)(void *ctx, unsigned ns);
    /* the NIC clock's cycle count now (for intervals) */
    uint64_t (*cycles)(void *ctx);
} nic_host_ops_t;

#ifdef __cplusplus
}
#endif

#endif
