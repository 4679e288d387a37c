#include "stimulus.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bits.h"

enum role { PLAIN, VALID, DATA, READY };

struct stimulus {
    const ifc_t *ifc;
    uint64_t rng;
    enum role *role;   /* per input leaf */
    int *stream;       /* per input leaf: its stream, or -1 */
    bool *holding;     /* per stream: a stream_in beat is waiting for ready */
    bool *offered;     /* per stream: stream_in valid driven this cycle */
};

/* splitmix64 (Steele, Lea, Flood 2014): tiny, and every seed gives a good sequence. */
static uint64_t next(stimulus *s) {
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static bool chance(stimulus *s, unsigned percent) {
    return next(s) % 100 < percent;
}

static void *must(void *p) {
    if (!p) {
        perror("equiv");
        exit(2);
    }
    return p;
}

stimulus *stim_new(const ifc_t *ifc, uint64_t seed) {
    stimulus *s = must(calloc(1, sizeof *s));
    s->ifc = ifc;
    s->rng = seed;
    s->role = must(calloc(ifc->n_in + 1, sizeof *s->role));
    s->stream = must(calloc(ifc->n_in + 1, sizeof *s->stream));
    s->holding = must(calloc(ifc->n_streams + 1, sizeof *s->holding));
    s->offered = must(calloc(ifc->n_streams + 1, sizeof *s->offered));
    for (unsigned i = 0; i < ifc->n_in; i++) {
        s->role[i] = PLAIN;
        s->stream[i] = -1;
        for (unsigned k = 0; k < ifc->n_streams; k++) {
            const ifc_stream *st = &ifc->streams[k];
            enum role r = PLAIN;
            if (st->is_input && st->valid == (int)i) r = VALID;
            else if (st->is_input && ifc_is_stream_data(st, ifc->in[i].name)) r = DATA;
            else if (!st->is_input && st->ready == (int)i) r = READY;
            if (r != PLAIN) {
                s->role[i] = r;
                s->stream[i] = (int)k;
            }
        }
    }
    return s;
}

/* A biased random WIDTH-bit value in canonical storage (bits.h). */
static void random_leaf(stimulus *s, uint8_t *p, const ifc_leaf *l) {
    unsigned used = (l->width + 7) / 8;
    unsigned pick = next(s) % 100;
    if (l->width == 1) {
        p[0] = next(s) & 1;
    } else if (pick < 25) { /* small: 0..3 */
        memset(p, 0, used);
        p[0] = next(s) & 3;
    } else if (pick < 40) { /* near the extremes: all ones, 100..0, 011..1, low bits random */
        unsigned kind = next(s) % 3, top = l->width - 1;
        memset(p, kind == 1 ? 0x00 : 0xff, used);
        if (kind != 0) p[top / 8] ^= (uint8_t)(1u << (top % 8));
        p[0] ^= next(s) & 3;
    } else {
        for (unsigned b = 0; b < used; b += 8) {
            uint64_t r = next(s);
            memcpy(p + b, &r, used - b < 8 ? used - b : 8);
        }
    }
    bits_extend(p, l->width, l->size, l->is_signed);
}

void stim_inputs(stimulus *s, uint8_t *in) {
    const ifc_t *ifc = s->ifc;
    for (unsigned k = 0; k < ifc->n_streams; k++)
        if (ifc->streams[k].is_input) s->offered[k] = s->holding[k] || chance(s, 60);
    for (unsigned i = 0; i < ifc->n_in; i++) {
        const ifc_leaf *l = &ifc->in[i];
        uint8_t *p = in + l->offset;
        int k = s->stream[i];
        switch (s->role[i]) {
        case VALID:
            memset(p, 0, l->size);
            p[0] = s->offered[k];
            bits_extend(p, l->width, l->size, l->is_signed);
            break;
        case READY:
            memset(p, 0, l->size);
            p[0] = chance(s, 70);
            bits_extend(p, l->width, l->size, l->is_signed);
            break;
        case DATA: /* a held beat keeps its data; otherwise a new beat or idle data */
            if (!s->holding[k]) random_leaf(s, p, l);
            break;
        case PLAIN:
            random_leaf(s, p, l);
            break;
        }
    }
}

void stim_outputs(stimulus *s, const uint8_t *out) {
    const ifc_t *ifc = s->ifc;
    for (unsigned k = 0; k < ifc->n_streams; k++) {
        const ifc_stream *st = &ifc->streams[k];
        if (!st->is_input) continue;
        bool ready = bits_get(out + ifc->out[st->ready].offset, 0);
        s->holding[k] = s->offered[k] && !ready;
    }
}

void stim_free(stimulus *s) {
    free(s->role);
    free(s->stream);
    free(s->holding);
    free(s->offered);
    free(s);
}
