/* nic_dest.c — the migration's destination; nic_dest.h says what. */
#include "nic_dest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../migration/mig_hal_tb.h"
#include "mig_fw.h"

#define MAX_NICS 2

struct nic_dest {
    nic_models_t *models;
    unsigned nics;
    struct mig_hal_tb hal[MAX_NICS];
    struct mig_fw fw[MAX_NICS];
};

nic_dest_t *nic_dest_new(const char *iface, const char *mode, unsigned nics) {
    if (nics < 1 || nics > MAX_NICS) {
        fprintf(stderr, "nic_dest: %u NICs (1..%d)\n", nics, MAX_NICS);
        return NULL;
    }
    nic_models_t *m = nic_models_new(iface, mode, nics, NULL);
    if (!m) return NULL;
    nic_dest_t *d = calloc(1, sizeof *d);
    if (!d) abort();
    d->models = m;
    d->nics = nics;
    for (unsigned n = 0; n < nics; n++) {
        struct mig_hal h = mig_hal_tb(&d->hal[n], nic_models_tb(m), n);
        struct mig_resp r;
        if (mig_fw_init(&d->fw[n], &h, &r) != MIG_OK) {
            fprintf(stderr, "nic_dest: NIC %u's firmware refused to start: status %u reason %u\n", n, r.status, r.reason);
            nic_dest_free(d);
            return NULL;
        }
    }
    return d;
}

void nic_dest_free(nic_dest_t *d) {
    if (!d) return;
    nic_models_free(d->models);
    free(d);
}

hostmem_t *nic_dest_mem(nic_dest_t *d, unsigned nic) { return nic_models_mem(d->models, nic); }
void nic_dest_run(nic_dest_t *d, uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; i++) nic_models_step(d->models);
}
uint64_t nic_dest_cycles(const nic_dest_t *d) { return nic_models_cycles(d->models); }

void nic_dest_reseal(uint8_t *block) { mig_block_seal(block); }

static int refused(const struct mig_resp *r, const char *what, char *why, size_t n) {
    snprintf(why, n, "%s: status %u reason %u state %u values %llu %llu %llu", what, r->status, r->reason, r->state,
             (unsigned long long)r->value[0], (unsigned long long)r->value[1], (unsigned long long)r->value[2]);
    return -1;
}

int nic_dest_load(nic_dest_t *d, unsigned nic, unsigned fn, const uint8_t *blocks, unsigned n, uint64_t buf_addr,
                  char *why, size_t why_len) {
    hostmem_t *mem = nic_dest_mem(d, nic);
    struct mig_resp r = {0};
    for (unsigned b = 0; b < n; b++) {
        if (hostmem_write(mem, buf_addr, blocks + (size_t)b * MIG_BLOCK_SIZE, MIG_BLOCK_SIZE)) {
            snprintf(why, why_len, "block %u: the host buffer at 0x%llx does not take it", b, (unsigned long long)buf_addr);
            return -1;
        }
        struct mig_cmd c = {.opcode = MIG_CMD_IMAGE_LOAD, .fn = (uint8_t)fn, .flags = b + 1 == n ? MIG_LOAD_LAST : 0,
                            .host_addr = buf_addr};
        mig_fw_command(&d->fw[nic], &c, &r);
        if (r.status != MIG_OK) {
            char what[48];
            snprintf(what, sizeof what, "IMAGE_LOAD of block %u of %u refused", b, n);
            return refused(&r, what, why, why_len);
        }
    }
    if (r.answer != MIG_LOAD_COMMITTED) return refused(&r, "the last block did not commit the load", why, why_len);
    return 0;
}

int nic_dest_resume(nic_dest_t *d, unsigned nic, unsigned fn, char *why, size_t why_len) {
    static const uint8_t ops[2] = {MIG_CMD_RESUME_PASSIVE, MIG_CMD_RESUME_ACTIVE};
    for (unsigned i = 0; i < 2; i++) {
        struct mig_cmd c = {.opcode = ops[i], .fn = (uint8_t)fn};
        struct mig_resp r;
        mig_fw_command(&d->fw[nic], &c, &r);
        if (r.status != MIG_OK) return refused(&r, i ? "RESUME_ACTIVE refused" : "RESUME_PASSIVE refused", why, why_len);
    }
    return 0;
}
