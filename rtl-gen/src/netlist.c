#include "netlist.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static unsigned name_hash(const char *s) {
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* open addressing; the table stays at most half full */
static const char **name_slot(const netlist_t *nl, const char *n) {
    unsigned i = name_hash(n) & (nl->cap_used - 1);
    while (nl->used[i] && strcmp(nl->used[i], n) != 0) i = (i + 1) & (nl->cap_used - 1);
    return &nl->used[i];
}

bool nl_reserve(netlist_t *nl, const char *name) {
    if (2 * (nl->n_used + 1) > nl->cap_used) {
        const char **old = nl->used;
        unsigned oc = nl->cap_used;
        nl->cap_used = oc ? oc * 2 : 1024;
        nl->used = xcalloc(nl->cap_used, sizeof(char *));
        for (unsigned i = 0; i < oc; i++)
            if (old[i]) *name_slot(nl, old[i]) = old[i];
        free(old);
    }
    const char **slot = name_slot(nl, name);
    if (*slot) return false;
    *slot = xstrdup(name);
    nl->n_used++;
    return true;
}

/* A Verilog identifier from a clang value name: letters, digits, '_', never starting with
 * a digit (a name like ".1806" loses its dot first, so the check comes after cleaning). */
static char *clean_base(const char *base) {
    size_t n = strlen(base);
    char *s = xmalloc(n + 3);
    size_t j = 0;
    for (size_t i = 0; i < n && j < 40; i++) {
        char c = base[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (ok)
            s[j++] = c;
        else if (j && s[j - 1] != '_')
            s[j++] = '_';
    }
    while (j > 1 && s[j - 1] == '_') j--;
    s[j] = 0;
    if (!j || (s[0] >= '0' && s[0] <= '9')) {
        memmove(s + 1, s, j + 1);
        s[0] = 't';
    }
    return s;
}

int nl_add(netlist_t *nl, const char *base, unsigned width, sig_kind_t kind) {
    sig_t s = {0};
    if (kind == SIG_WIRE || kind == SIG_CASE) {
        /* wires get a numeric suffix: unique, and never a Verilog keyword */
        char *b = clean_base(base ? base : "t");
        for (unsigned k = nl->n;; k++) {
            char *cand = xasprintf("%s_%u", b, k);
            if (nl_reserve(nl, cand)) {
                s.name = cand;
                break;
            }
            free(cand);
        }
        free(b);
    } else {
        s.name = xstrdup(base);
    }
    s.width = width;
    s.kind = kind;
    s.file = nl->cur_file;
    s.line = nl->cur_line;
    ARR_PUSH(nl->sigs, nl->n, nl->cap, s);
    return (int)nl->n - 1;
}

val_t v_sig(const netlist_t *nl, int sig) {
    return (val_t){.sig = sig, .width = nl->sigs[sig].width, .k = NULL};
}

val_t v_const(unsigned width, const bits_t *k) {
    bits_t *c = xmalloc(sizeof *c);
    *c = *k;
    bits_truncate(c, width);
    return (val_t){.sig = -1, .width = width, .k = c};
}

val_t v_u64(unsigned width, uint64_t x) {
    bits_t b;
    bits_from_u64(&b, x);
    return v_const(width, &b);
}

bool v_is_const(val_t v) { return v.sig < 0; }

bool v_is_const_value(val_t v, uint64_t x) {
    if (v.sig >= 0) return false;
    bits_t b;
    bits_from_u64(&b, x);
    bits_truncate(&b, v.width);
    return memcmp(&b, v.k, sizeof b) == 0;
}

char *v_text(const netlist_t *nl, val_t v) {
    if (v.sig >= 0) return xstrdup(nl->sigs[v.sig].name);
    char *buf = xmalloc(BITS_MAX / 4 + 32);
    bits_format_verilog(buf, v.k, v.width);
    return buf;
}

char *v_slice_text(const netlist_t *nl, val_t v, unsigned lo, unsigned width) {
    if (v.sig < 0) {
        bits_t t;
        bits_extract(&t, v.k, lo, width);
        char *buf = xmalloc(BITS_MAX / 4 + 32);
        bits_format_verilog(buf, &t, width);
        return buf;
    }
    const char *n = nl->sigs[v.sig].name;
    if (lo == 0 && width == v.width) return xstrdup(n);
    if (width == 1) return xasprintf("%s[%u]", n, lo);
    return xasprintf("%s[%u:%u]", n, lo + width - 1, lo);
}

val_t nl_wire(netlist_t *nl, const char *base, unsigned width, char *expr) {
    int s = nl_add(nl, base, width, SIG_WIRE);
    nl->sigs[s].expr = expr;
    return v_sig(nl, s);
}

val_t nl_slice(netlist_t *nl, val_t v, unsigned lo, unsigned width) {
    if (lo == 0 && width == v.width) return v;
    if (v.sig < 0) {
        bits_t t;
        bits_extract(&t, v.k, lo, width);
        return v_const(width, &t);
    }
    return nl_wire(nl, nl->sigs[v.sig].name, width, v_slice_text(nl, v, lo, width));
}

val_t nl_zext(netlist_t *nl, val_t v, unsigned width) {
    if (width == v.width) return v;
    if (width < v.width) return nl_slice(nl, v, 0, width);
    if (v.sig < 0) return v_const(width, v.k);
    char *t = v_text(nl, v);
    val_t r = nl_wire(nl, nl->sigs[v.sig].name, width,
                      xasprintf("{%u'd0, %s}", width - v.width, t));
    free(t);
    return r;
}

val_t nl_sext(netlist_t *nl, val_t v, unsigned width) {
    if (width <= v.width) return nl_slice(nl, v, 0, width);
    if (v.sig < 0) {
        bits_t b = *v.k;
        unsigned sb = bits_get_bit(v.k, v.width - 1);
        for (unsigned i = v.width; i < width; i++) bits_set_bit(&b, i, sb);
        return v_const(width, &b);
    }
    char *t = v_text(nl, v);
    char *msb = v_slice_text(nl, v, v.width - 1, 1);
    val_t r = nl_wire(nl, nl->sigs[v.sig].name, width,
                      xasprintf("{{%u{%s}}, %s}", width - v.width, msb, t));
    free(t);
    free(msb);
    return r;
}

val_t nl_not1(netlist_t *nl, val_t a) {
    if (a.sig < 0) return v_u64(1, bits_get_bit(a.k, 0) ^ 1u);
    char *t = v_text(nl, a);
    val_t r = nl_wire(nl, "not", 1, xasprintf("!%s", t));
    free(t);
    return r;
}

val_t nl_and1(netlist_t *nl, val_t a, val_t b) {
    if (v_is_const_value(a, 0) || v_is_const_value(b, 0)) return v_u64(1, 0);
    if (v_is_const_value(a, 1)) return b;
    if (v_is_const_value(b, 1)) return a;
    if (a.sig == b.sig) return a;
    return nl_binop(nl, "&", a, b, 1, false, "and");
}

val_t nl_or1(netlist_t *nl, val_t a, val_t b) {
    if (v_is_const_value(a, 1) || v_is_const_value(b, 1)) return v_u64(1, 1);
    if (v_is_const_value(a, 0)) return b;
    if (v_is_const_value(b, 0)) return a;
    if (a.sig == b.sig) return a;
    return nl_binop(nl, "|", a, b, 1, false, "or");
}

val_t nl_mux(netlist_t *nl, val_t sel, val_t a, val_t b, const char *base) {
    if (v_is_const_value(sel, 1)) return a;
    if (v_is_const_value(sel, 0)) return b;
    if (a.sig >= 0 && a.sig == b.sig) return a;
    if (a.sig < 0 && b.sig < 0 && memcmp(a.k, b.k, sizeof(bits_t)) == 0) return a;
    char *ts = v_text(nl, sel), *ta = v_text(nl, a), *tb = v_text(nl, b);
    val_t r = nl_wire(nl, base ? base : "mux", a.width, xasprintf("%s ? %s : %s", ts, ta, tb));
    free(ts);
    free(ta);
    free(tb);
    return r;
}

val_t nl_eq_const(netlist_t *nl, val_t a, const bits_t *k, const char *base) {
    val_t c = v_const(a.width, k);
    if (a.sig < 0) return v_u64(1, memcmp(a.k, c.k, sizeof(bits_t)) == 0);
    return nl_binop(nl, "==", a, c, 1, false, base ? base : "eq");
}

val_t nl_binop(netlist_t *nl, const char *op, val_t a, val_t b, unsigned width, bool sign,
               const char *base) {
    char *ta = v_text(nl, a), *tb = v_text(nl, b);
    char *e = sign ? xasprintf("$signed(%s) %s $signed(%s)", ta, op, tb)
                   : xasprintf("%s %s %s", ta, op, tb);
    free(ta);
    free(tb);
    return nl_wire(nl, base, width, e);
}
