/* nic_models.c — the NIC models of a platform run; nic_models.h says what. */
#include "nic_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../nic/nic_tb.h"
#include "nic_bar_regs.h"

void nic(const void *in, void *out, void *state);
#ifdef PLATFORM_RTL
#include "nic_rtl.h"
#endif

#define MAX_NICS 8

struct nic_models {
    nic_tb_t *tb;
    nic_bar_regs_t *bar[MAX_NICS];
    unsigned nics;
};

nic_models_t *nic_models_new(const char *iface, const char *mode, unsigned nics, const nic_models_dma_t *dma) {
    nic_tb_model_t model = {.iface = iface, .c_step = nic,
#ifdef PLATFORM_RTL
                            NIC_TB_RTL_FNS(nic)
#endif
    };
    nic_tb_config_t c;
    nic_tb_config_default(&c);
    if (nics < 1 || nics > MAX_NICS) {
        fprintf(stderr, "nic_models: %u NICs (1..%d)\n", nics, MAX_NICS);
        return NULL;
    }
    c.nics = nics;
    if (!strcmp(mode, "rtl")) {
        if (!model.rtl_new) {
            fprintf(stderr, "nic_models: mode rtl, but this program was built without the RTL model\n");
            return NULL;
        }
        c.mode = NIC_TB_RTL;
    } else if (strcmp(mode, "c")) {
        fprintf(stderr, "nic_models: unknown mode '%s' (c or rtl)\n", mode);
        return NULL;
    }
    /* the bench's wire: the NIC's beat rate, preamble/FCS/IFG, 1 us of cable and a switch */
    c.wire.bytes_per_cycle = 64;
    c.wire.overhead_bytes = 24;
    c.wire.latency_cycles = 250;
    if (dma) c.dma = (nic_tb_dma_t){.ctx = dma->ctx, .eval = dma->eval, .edge = dma->edge, .tick = dma->tick};
    nic_models_t *m = calloc(1, sizeof *m);
    if (!m) abort();
    if (!(m->tb = nic_tb_new(&model, &c))) {
        free(m);
        return NULL;
    }
    m->nics = nics;
    for (unsigned n = 0; n < nics; n++) m->bar[n] = nic_bar_regs_new(m->tb, n);
    return m;
}

void nic_models_free(nic_models_t *m) {
    if (!m) return;
    for (unsigned n = 0; n < m->nics; n++) nic_bar_regs_free(m->bar[n]);
    nic_tb_free(m->tb);
    free(m);
}

void nic_models_step(nic_models_t *m) { nic_tb_step(m->tb); }
uint64_t nic_models_cycles(const nic_models_t *m) { return nic_tb_now(m->tb); }
unsigned nic_models_dma_ports(const nic_models_t *m) { return nic_tb_config(m->tb)->mem.nports; }
hostmem_t *nic_models_mem(nic_models_t *m, unsigned nic) { return nic_tb_mem(m->tb, nic); }
void nic_models_bar_write(nic_models_t *m, unsigned nic, uint64_t off, uint64_t v) { nic_bar_regs_write(m->bar[nic], off, v); }
uint64_t nic_models_bar_read(nic_models_t *m, unsigned nic, uint64_t off) { return nic_bar_regs_read(m->bar[nic], off); }
const char *nic_models_bar_error(const nic_models_t *m, unsigned nic) { return nic_bar_regs_error(m->bar[nic]); }
uint64_t nic_models_frames_sent(const nic_models_t *m, unsigned nic) { return nic_tb_frames_sent(m->tb, nic); }
