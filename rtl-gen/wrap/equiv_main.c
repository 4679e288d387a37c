/* equiv_main.c — the equiv driver: the C model and the verilated model of one block in
 * lock-step on the same seeded random inputs (stimulus.h), every leaf compared.
 *
 *   equiv-run IFACE [--cycles N] [--seed S] [--trace FST]
 *
 * Each cycle: native step and RTL eval on the same in-struct bytes, compare every output;
 * RTL edge, compare every register and memory read-data register; all memory cells every
 * 1024 cycles and after the last cycle. Registers and FIFO entries without reset start
 * scrambled in the RTL and are compared while defined (guard 1, entry live). Prints exactly one line, either
 *   equiv: TOP: equal for N cycles (seed S, P outputs, R registers, M memories)   exit 0
 *   equiv: TOP: MISMATCH at cycle C: SIGNAL native=0x... rtl=0x...             exit 1
 * (exit 2 on usage errors). rtl-gen/equiv builds and runs it; docs/verilator-flow.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "equiv.h"
#include "iface_read.h"
#include "stimulus.h"

#define CELL_CHECK_PERIOD 1024

typedef struct {
    const ifc_t *ifc;
    void *rtl;
    void *edges; /* the native model's edge queue */
    stimulus *stim;
    uint64_t cycle, cycles;
    uint8_t *in, *out_native, *out_rtl, *st_native, *st_rtl;
} run;

static int usage(const char *why) {
    fprintf(stderr, "equiv-run: %s\nusage: equiv-run IFACE [--cycles N] [--seed S] [--trace FST]\n",
            why);
    return 2;
}

static bool parse_u64(const char *s, uint64_t *v) {
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return *s >= '0' && *s <= '9' && !*end && !errno;
}

/* Report the first difference; the model is freed so a waveform is complete. */
static int mismatch(run *r, const char *signal, const uint8_t *native, const uint8_t *rtl,
                    unsigned width) {
    char *n = bits_hex(native, width), *v = bits_hex(rtl, width);
    printf("equiv: %s: MISMATCH at cycle %" PRIu64 ": %s native=%s rtl=%s\n", r->ifc->top,
           r->cycle, signal, n, v);
    free(n);
    free(v);
    equiv_rtl_free(r->rtl);
    return 1;
}

/* A register without reset ("noreset", its guard) is compared while its guard is 1 in the C
 * model: before that it may hold anything in the Verilog (it starts scrambled), but then
 * nothing reads it, which every output and every other register, compared each cycle, shows. */
static int compare_leaves(run *r, const ifc_leaf *l, unsigned n, const uint8_t *native,
                          const uint8_t *rtl) {
    bool regs = l == r->ifc->regs;
    for (unsigned i = 0; i < n; i++)
        if ((!regs || ifc_reg_defined(r->ifc, i, native)) &&
            !bits_equal(native + l[i].offset, rtl + l[i].offset, l[i].width))
            return mismatch(r, l[i].name, native + l[i].offset, rtl + l[i].offset, l[i].width);
    return 0;
}

static int compare_rdata(run *r, const uint8_t *native, const uint8_t *rtl) {
    for (unsigned i = 0; i < r->ifc->n_mems; i++) {
        const ifc_mem *m = &r->ifc->mems[i];
        if (!bits_equal(native + m->offset, rtl + m->offset, m->width)) {
            char name[512];
            snprintf(name, sizeof name, "%s_rdata", m->name);
            return mismatch(r, name, native + m->offset, rtl + m->offset, m->width);
        }
    }
    return 0;
}

/* A FIFO entry is compared while it is live in the C model (pushed since reset, not yet
 * popped): the Verilog's entries are not reset, so a dead one may hold anything, but then
 * nothing reads it (out_data is zero while a FIFO is empty), which the outputs and every
 * other register, compared each cycle, would show. */
static int compare_fifos(run *r, const uint8_t *native, const uint8_t *rtl) {
    for (unsigned i = 0; i < r->ifc->n_fifos; i++) {
        const ifc_fifo *q = &r->ifc->fifos[i];
        for (unsigned e = 0; e < q->depth; e++) {
            size_t at = q->offset + (size_t)q->entry_size * e;
            if (ifc_fifo_entry_live(r->ifc, q, native, e) &&
                !bits_equal(native + at, rtl + at, q->width)) {
                char name[512];
                snprintf(name, sizeof name, "%s.entry[%u]", q->name, e);
                return mismatch(r, name, native + at, rtl + at, q->width);
            }
        }
    }
    return 0;
}

static int compare_cells(run *r, const uint8_t *native, const uint8_t *rtl) {
    for (unsigned i = 0; i < r->ifc->n_mems; i++) {
        const ifc_mem *m = &r->ifc->mems[i];
        for (unsigned c = 0; c < m->depth; c++) {
            size_t at = m->offset + (size_t)m->elem_size * (1 + c);
            if (!bits_equal(native + at, rtl + at, m->width)) {
                char name[512];
                snprintf(name, sizeof name, "%s_cells[%u]", m->name, c);
                return mismatch(r, name, native + at, rtl + at, m->width);
            }
        }
    }
    return 0;
}

static void *zeroed(size_t n) {
    void *p = calloc(n ? n : 1, 1);
    if (!p) {
        perror("equiv-run");
        exit(2);
    }
    return p;
}

/* One clock cycle of both models; non-zero (after printing it) on the first difference. */
static int step(run *r) {
    const ifc_t *ifc = r->ifc;
    stim_inputs(r->stim, r->in);
    equiv_native_step(r->edges, r->in, r->out_native, r->st_native);
    equiv_rtl_eval(r->rtl, r->in, r->out_rtl);
    int rc = compare_leaves(r, ifc->out, ifc->n_out, r->out_native, r->out_rtl);
    if (rc) return rc;
    stim_outputs(r->stim, r->out_native);
    equiv_rtl_edge(r->rtl);
    equiv_rtl_read_regs(r->rtl, r->st_rtl);
    rc = compare_leaves(r, ifc->regs, ifc->n_regs, r->st_native, r->st_rtl);
    if (!rc) rc = compare_rdata(r, r->st_native, r->st_rtl);
    if (!rc) rc = compare_fifos(r, r->st_native, r->st_rtl);
    bool cells_due = (r->cycle + 1) % CELL_CHECK_PERIOD == 0 || r->cycle + 1 == r->cycles;
    if (!rc && ifc->n_mems && cells_due) {
        equiv_rtl_read_state(r->rtl, r->st_rtl);
        rc = compare_cells(r, r->st_native, r->st_rtl);
    }
    return rc;
}

int main(int argc, char **argv) {
    const char *iface_path = NULL, *trace = NULL;
    uint64_t cycles = 100000, seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--cycles") && has_value) {
            if (!parse_u64(argv[++i], &cycles)) return usage("--cycles needs a number");
        } else if (!strcmp(a, "--seed") && has_value) {
            if (!parse_u64(argv[++i], &seed)) return usage("--seed needs a number");
        } else if (!strcmp(a, "--trace") && has_value) {
            trace = argv[++i];
        } else if (a[0] != '-' && !iface_path) {
            iface_path = a;
        } else {
            return usage("bad argument");
        }
    }
    if (!iface_path) return usage("no IFACE");
    ifc_t *ifc = ifc_read(iface_path);
    if (!ifc) return 2;

    run r = {.ifc = ifc, .rtl = equiv_rtl_new(), .edges = equiv_native_new(), .stim = stim_new(ifc, seed),
             .cycles = cycles};
    /* the registers rtl-gen left without reset start as anything (per seed) */
    equiv_rtl_scramble(r.rtl, seed);
    if (trace) equiv_rtl_trace(r.rtl, trace);
    r.in = zeroed(ifc->in_size);
    r.out_native = zeroed(ifc->out_size);
    r.out_rtl = zeroed(ifc->out_size);
    /* zeroed native state = the RTL after reset (cells and rdata are zero at power-up) */
    r.st_native = zeroed(ifc->state_size);
    r.st_rtl = zeroed(ifc->state_size);
    int rc = 0;
    for (r.cycle = 0; r.cycle < cycles && !rc; r.cycle++) rc = step(&r);
    if (!rc) {
        printf("equiv: %s: equal for %" PRIu64 " cycles (seed %" PRIu64
               ", %u outputs, %u registers, %u memories)\n",
               ifc->top, cycles, seed, ifc->n_out, ifc->n_regs, ifc->n_mems);
        equiv_rtl_free(r.rtl);
    }
    stim_free(r.stim);
    equiv_native_free(r.edges);
    free(r.in);
    free(r.out_native);
    free(r.out_rtl);
    free(r.st_native);
    free(r.st_rtl);
    ifc_free(ifc);
    return rc;
}
