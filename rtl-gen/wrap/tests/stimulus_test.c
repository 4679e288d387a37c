/* stimulus_test — the equiv stimulus (wrap/stimulus.c) against its promises, on tiny.iface
 * with a fake block that answers ready at random:
 *   a stream_in beat offered and not taken is held (valid and data unchanged);
 *   valid rises ~60% of the free cycles, stream_out ready is 1 ~70% of the cycles;
 *   values are biased (small / extreme / uniform) and stored canonically (sign copies);
 *   one seed gives one sequence.
 * Usage: stimulus_test tiny.iface. Prints what failed; exit 1 if anything did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"
#include "iface_read.h"
#include "stimulus.h"

#define CYCLES 200000

static int failures;

static void expect(int ok, const char *what) {
    if (!ok) {
        printf("stimulus_test: %s\n", what);
        failures++;
    }
}

static const ifc_leaf *leaf(const ifc_leaf *l, unsigned n, const char *name) {
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(l[i].name, name)) return &l[i];
    fprintf(stderr, "stimulus_test: no leaf %s\n", name);
    exit(2);
}

static unsigned value16(const uint8_t *p) {
    return p[0] | (unsigned)p[1] << 8;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    ifc_t *ifc = ifc_read(argv[1]);
    if (!ifc) return 2;
    const ifc_leaf *valid = leaf(ifc->in, ifc->n_in, "cmd_valid");
    const ifc_leaf *data = leaf(ifc->in, ifc->n_in, "cmd_data");
    const ifc_leaf *delta = leaf(ifc->in, ifc->n_in, "delta");     /* signed 13 bits */
    const ifc_leaf *res_ready = leaf(ifc->in, ifc->n_in, "res_ready");
    const ifc_leaf *cmd_ready = leaf(ifc->out, ifc->n_out, "cmd_ready");

    stimulus *s = stim_new(ifc, 42), *same = stim_new(ifc, 42), *other = stim_new(ifc, 43);
    uint8_t *in = calloc(ifc->in_size, 1), *in_same = calloc(ifc->in_size, 1);
    uint8_t *in_other = calloc(ifc->in_size, 1), *out = calloc(ifc->out_size, 1);
    uint8_t prev[64] = {0};
    unsigned held_ok = 1, free_cycles = 0, rises = 0, readies = 0, small = 0, extreme = 0;
    unsigned canonical = 1, same_seq = 1, other_diff = 0;
    int was_waiting = 0;
    uint64_t lcg = 1;
    for (unsigned c = 0; c < CYCLES; c++) {
        stim_inputs(s, in);
        stim_inputs(same, in_same);
        stim_inputs(other, in_other);
        same_seq &= !memcmp(in, in_same, ifc->in_size);
        other_diff |= memcmp(in, in_other, ifc->in_size) != 0;
        unsigned v = in[valid->offset];
        if (was_waiting)
            held_ok &= v == 1 && !memcmp(in + data->offset, prev, data->size);
        else {
            free_cycles++;
            rises += v;
        }
        readies += in[res_ready->offset];
        canonical &= v <= 1 && in[res_ready->offset] <= 1;
        unsigned d = value16(in + delta->offset), low13 = d & 0x1fff;
        canonical &= (d >> 12) == 0 || (d >> 12) == 0xf;  /* bits 13..15 copy bit 12 */
        small += low13 <= 3;
        extreme += (low13 | 3) == 0x1fff || (low13 & ~3u) == 0x1000 || (low13 | 3) == 0x0fff;

        lcg = lcg * 6364136223846793005u + 1442695040888963407u; /* the fake block */
        memset(out, 0, ifc->out_size);
        out[cmd_ready->offset] = (lcg >> 33) % 4 == 0; /* ready 25%: long holds */
        stim_outputs(s, out);
        stim_outputs(same, out);
        stim_outputs(other, out);
        was_waiting = v && !out[cmd_ready->offset];
        memcpy(prev, in + data->offset, data->size);
    }
    expect(held_ok, "a beat not taken changed before ready");
    expect(rises > free_cycles * 55 / 100 && rises < free_cycles * 65 / 100,
           "valid does not rise in ~60% of free cycles");
    expect(readies > CYCLES * 65 / 100 && readies < CYCLES * 75 / 100,
           "stream_out ready is not 1 in ~70% of cycles");
    expect(canonical, "a value is not in canonical storage (bool 0/1, sign copies)");
    expect(small > CYCLES * 22 / 100, "fewer than ~25% small values");
    expect(extreme > CYCLES * 12 / 100, "fewer than ~15% values near the extremes");
    expect(same_seq, "one seed gave two sequences");
    expect(other_diff, "two seeds gave one sequence");
    stim_free(s);
    stim_free(same);
    stim_free(other);
    free(in);
    free(in_same);
    free(in_other);
    free(out);
    ifc_free(ifc);
    return failures ? 1 : 0;
}
