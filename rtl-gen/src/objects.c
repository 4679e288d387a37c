#include "objects.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

void obj_init(obj_t *o, const char *name, unsigned size, bool read_only) {
    o->name = name;
    o->size = size;
    o->b = xcalloc(size ? size : 1, sizeof(byte_t)); /* BYTE_CONST 0 */
    o->read_only = read_only;
}

void obj_bind_signal(obj_t *o, unsigned off, unsigned size, const netlist_t *nl, int sig) {
    unsigned w = nl->sigs[sig].width;
    for (unsigned k = 0; k < size; k++) {
        byte_t *b = &o->b[off + k];
        if (8 * k >= w) {
            *b = (byte_t){.kind = BYTE_CONST};
        } else {
            unsigned n = w - 8 * k < 8 ? w - 8 * k : 8;
            *b = (byte_t){.kind = BYTE_SIG, .sig = sig, .bit = 8 * k, .nbits = (unsigned char)n};
        }
    }
}

void obj_forbid(obj_t *o, unsigned off, unsigned size) {
    for (unsigned k = 0; k < size; k++) o->b[off + k].kind = BYTE_FORBIDDEN;
}

void obj_protect(obj_t *o, unsigned off, unsigned size) {
    for (unsigned k = 0; k < size; k++) o->b[off + k].ro = 1;
}

bool obj_touches_protected(const obj_t *o, unsigned off, unsigned n) {
    for (unsigned k = 0; k < n; k++)
        if (off + k < o->size && o->b[off + k].ro) return true;
    return false;
}

bool obj_touches_forbidden(const obj_t *o, unsigned off, unsigned n) {
    for (unsigned k = 0; k < n; k++)
        if (off + k < o->size && o->b[off + k].kind == BYTE_FORBIDDEN) return true;
    return false;
}

/* A run of bits from one source, LSB first. */
typedef struct {
    int sig; /* -1: constant bits in k */
    unsigned bit, width;
    bits_t k;
} part_t;

val_t obj_load(netlist_t *nl, const obj_t *o, unsigned off, unsigned width) {
    unsigned nbytes = (width + 7) / 8;
    part_t *parts = xcalloc(nbytes * 2 + 1, sizeof *parts);
    unsigned np = 0, total = 0;
    for (unsigned k = 0; k < nbytes && total < width; k++) {
        const byte_t *b = off + k < o->size ? &o->b[off + k] : NULL;
        unsigned take;
        if (b && b->kind == BYTE_SIG) {
            take = b->nbits;
            part_t *last = np ? &parts[np - 1] : NULL;
            if (last && last->sig == b->sig && last->bit + last->width == b->bit)
                last->width += take;
            else
                parts[np++] = (part_t){.sig = b->sig, .bit = b->bit, .width = take};
            if (take < 8) { /* upper bits of this byte are zero */
                parts[np++] = (part_t){.sig = -1, .width = 8 - take};
                bits_zero(&parts[np - 1].k);
            }
        } else {
            unsigned cv = b ? b->cval : 0;
            part_t *last = np ? &parts[np - 1] : NULL;
            bits_t byte;
            bits_from_u64(&byte, cv);
            if (last && last->sig < 0) {
                bits_insert(&last->k, &byte, last->width, 8);
                last->width += 8;
            } else {
                parts[np] = (part_t){.sig = -1, .width = 8};
                parts[np].k = byte;
                np++;
            }
        }
        total = 0;
        for (unsigned i = 0; i < np; i++) total += parts[i].width;
    }
    /* trim to the requested width, dropping bits from the top */
    while (total > width) {
        part_t *last = &parts[np - 1];
        unsigned excess = total - width;
        if (last->width <= excess) {
            total -= last->width;
            np--;
        } else {
            last->width -= excess;
            if (last->sig < 0) bits_truncate(&last->k, last->width);
            total = width;
        }
    }
    /* merge adjacent constant parts produced by zero padding */
    unsigned j = 0;
    for (unsigned i = 0; i < np; i++) {
        if (j && parts[j - 1].sig < 0 && parts[i].sig < 0) {
            bits_insert(&parts[j - 1].k, &parts[i].k, parts[j - 1].width, parts[i].width);
            parts[j - 1].width += parts[i].width;
        } else {
            parts[j++] = parts[i];
        }
    }
    np = j;
    val_t r;
    if (np == 1 && parts[0].sig < 0) {
        r = v_const(width, &parts[0].k);
    } else if (np == 1 && parts[0].bit == 0 && parts[0].width == nl->sigs[parts[0].sig].width) {
        r = v_sig(nl, parts[0].sig);
    } else {
        /* Verilog concatenation lists the MSB part first */
        size_t cap = 64, len = 0;
        char *e = xmalloc(cap);
        e[len++] = '{';
        for (unsigned i = np; i-- > 0;) {
            char *t;
            if (parts[i].sig < 0) {
                val_t c = v_const(parts[i].width, &parts[i].k);
                t = v_text(nl, c);
            } else {
                t = v_slice_text(nl, v_sig(nl, parts[i].sig), parts[i].bit, parts[i].width);
            }
            size_t tl = strlen(t);
            while (len + tl + 4 > cap) cap *= 2, e = xrealloc(e, cap);
            memcpy(e + len, t, tl);
            len += tl;
            if (i) e[len++] = ',', e[len++] = ' ';
            free(t);
        }
        e[len++] = '}';
        e[len] = 0;
        /* named after the one signal it reads, if one (st_phase padded to a byte: "phase") */
        const char *base = "load";
        unsigned n_sig = 0;
        for (unsigned i = 0; i < np; i++)
            if (parts[i].sig >= 0) n_sig++, base = nl->sigs[parts[i].sig].base;
        if (n_sig != 1) base = "load";
        if (np == 1) { /* a plain slice does not need braces */
            memmove(e, e + 1, len);
            e[len - 2] = 0;
        }
        r = nl_wire(nl, base, width, e);
        /* a signal from bit 0 with only zeros above it: an FSM register stays one */
        bool zeros_above = true;
        for (unsigned i = 1; i < np; i++)
            zeros_above &= parts[i].sig < 0 && bits_is_zero(&parts[i].k, parts[i].width);
        if (parts[0].sig >= 0 && zeros_above) nl_carry_fsm(nl, r, parts[0].sig, parts[0].bit);
    }
    free(parts);
    return r;
}

void obj_store(obj_t *o, unsigned off, val_t v) {
    unsigned nbytes = (v.width + 7) / 8;
    for (unsigned k = 0; k < nbytes && off + k < o->size; k++) {
        byte_t *b = &o->b[off + k];
        if (v.sig < 0) {
            bits_t t;
            bits_extract(&t, v.k, 8 * k, 8);
            *b = (byte_t){.kind = BYTE_CONST, .cval = (unsigned char)bits_low64(&t)};
            if (8 * k + 8 > v.width) b->cval &= (unsigned char)((1u << (v.width - 8 * k)) - 1);
        } else {
            unsigned n = v.width - 8 * k < 8 ? v.width - 8 * k : 8;
            *b = (byte_t){.kind = BYTE_SIG, .sig = v.sig, .bit = 8 * k, .nbits = (unsigned char)n};
        }
    }
}
