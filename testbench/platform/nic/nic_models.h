/* nic_models.h — the NIC models a platform run holds, behind a C interface the SystemC side
 * can include (the NIC's own headers use _BitInt, which only clang's C has): a nic_tb harness
 * with `nics` whole NICs (hls/nic/nic.net) joined by its Ethernet wire, each NIC's DMA ports
 * handed to callbacks (hostmem's cycle contract, testbench/lib/hostmem.h), each NIC's BAR0 as
 * register reads and writes (nic_bar_regs.h). Mode "c": the composed C model; "rtl": the
 * verilated RTL through its C API (build-model --rtl), on the same clock.
 *
 * Plain C testbench code. */
#ifndef NIC_MODELS_H
#define NIC_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../../lib/hostmem.h"

typedef struct {
    void *ctx;
    void (*eval)(void *ctx, unsigned nic, unsigned port, hostmem_port_out_t *out);
    void (*edge)(void *ctx, unsigned nic, unsigned port, const hostmem_port_in_t *in);
    void (*tick)(void *ctx, unsigned nic);
} nic_models_dma_t;

typedef struct nic_models nic_models_t;

/* NULL with a message on stderr (unknown mode, a build without the RTL model, an unreadable
 * interface). dma NULL: each NIC's DMA goes to its own ideal host memory (nic_models_mem). */
nic_models_t *nic_models_new(const char *iface, const char *mode, unsigned nics, const nic_models_dma_t *dma);
void nic_models_free(nic_models_t *m);
void nic_models_step(nic_models_t *m);          /* one clock cycle of every NIC and the wire */
uint64_t nic_models_cycles(const nic_models_t *m);
unsigned nic_models_dma_ports(const nic_models_t *m);
hostmem_t *nic_models_mem(nic_models_t *m, unsigned nic);
void nic_models_bar_write(nic_models_t *m, unsigned nic, uint64_t off, uint64_t value);
uint64_t nic_models_bar_read(nic_models_t *m, unsigned nic, uint64_t off);
/* The first register access of nic that hit nothing, or NULL. */
const char *nic_models_bar_error(const nic_models_t *m, unsigned nic);
uint64_t nic_models_frames_sent(const nic_models_t *m, unsigned nic);

#ifdef __cplusplus
}
#endif

#endif
