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

bool nl_name_taken(const netlist_t *nl, const char *name) {
    return nl->cap_used && *name_slot(nl, name) != NULL;
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
 * a digit (a name like ".1806" loses its dot first, so the check comes after cleaning).
 * The numbers clang and LLVM append to keep names unique ("add23", "cmp.i.i", "x.sroa.4")
 * come from a counter over the whole function, so they are dropped: a segment that is only
 * digits or an inlining / splitting marker goes, and trailing digits of a segment go. */
static bool drop_segment(const char *seg, size_t n) {
    static const char *const markers[] = {"i", "sroa", "split", "lcssa", "le", "pre",
                                          "phi", "trans", "fr", "ext", "us", "not", NULL};
    while (n && seg[n - 1] >= '0' && seg[n - 1] <= '9') n--;
    if (!n) return true;
    for (const char *const *m = markers; *m; m++)
        if (strlen(*m) == n && !memcmp(*m, seg, n)) return true;
    return false;
}

static char *clean_base(const char *base) {
    size_t n = strlen(base);
    char *s = xmalloc(n + 3);
    size_t j = 0;
    for (size_t i = 0; i < n && j < 32;) {
        size_t seg = strcspn(base + i, ".");
        const char *p = base + i;
        size_t end = seg;
        while (end > 1 && p[end - 1] >= '0' && p[end - 1] <= '9') end--;
        if (!(i > 0 && drop_segment(p, seg))) {
            for (size_t k = 0; k < end && j < 32; k++) {
                char c = p[k];
                bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9');
                if (ok)
                    s[j++] = c;
                else if (j && s[j - 1] != '_')
                    s[j++] = '_';
            }
            if (j && s[j - 1] != '_') s[j++] = '_';
        }
        i += seg + (base[i + seg] == '.');
    }
    while (j > 1 && s[j - 1] == '_') j--;
    s[j] = 0;
    if (!j || (s[0] >= '0' && s[0] <= '9') || (j == 1 && s[0] == '_')) {
        memmove(s + 1, s, j + 1);
        s[0] = 't';
    }
    return s;
}

/* The next K for BASE_SCOPE (open addressing, at most half full). */
static unsigned *scope_count(netlist_t *nl, const char *key) {
    if (2 * (nl->n_counts + 1) > nl->cap_counts) {
        struct nl_count *old = nl->counts;
        unsigned oc = nl->cap_counts;
        nl->cap_counts = oc ? oc * 2 : 1024;
        nl->counts = xcalloc(nl->cap_counts, sizeof *nl->counts);
        nl->n_counts = 0;
        for (unsigned i = 0; i < oc; i++)
            if (old[i].key) *scope_count(nl, old[i].key) = old[i].next;
        free(old);
    }
    unsigned i = name_hash(key) & (nl->cap_counts - 1);
    while (nl->counts[i].key && strcmp(nl->counts[i].key, key) != 0)
        i = (i + 1) & (nl->cap_counts - 1);
    if (!nl->counts[i].key) {
        nl->counts[i].key = xstrdup(key);
        nl->n_counts++;
    }
    return &nl->counts[i].next;
}

int nl_add(netlist_t *nl, const char *base, unsigned width, sig_kind_t kind) {
    sig_t s = {0};
    if (kind == SIG_WIRE || kind == SIG_CASE) {
        /* BASE_SCOPE_K (netlist.h); the numeric tail keeps it clear of Verilog keywords.
         * A name a wire of another scope already took (two functions, same offsets) moves
         * K on, deterministically. */
        char *b = clean_base(base ? base : "t");
        char *key = nl->cur_scope < 0 ? (nl->cur_result ? xstrdup(nl->cur_result)
                                                        : xasprintf("%s_r", b))
                    : xasprintf("%s_%d%s", b, nl->cur_scope, nl->cur_call ? nl->cur_call : "");
        unsigned *next = scope_count(nl, key);
        for (unsigned k = *next;; k++) {
            char *cand = xasprintf("%s_%u", key, k);
            if (nl_reserve(nl, cand)) {
                s.name = cand;
                *next = k + 1;
                break;
            }
            free(cand);
        }
        s.base = intern(b);
        free(key);
        free(b);
    } else {
        s.name = xstrdup(base);
        s.base = intern(base);
    }
    s.scope = nl->cur_scope;
    s.call = nl->cur_call;
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

/* ---- value sets ---------------------------------------------------------------------- */

static uint64_t width_mask(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

unsigned nl_values(const netlist_t *nl, val_t v, uint64_t *out) {
    if (v.width > 64) return 0;
    if (v.sig < 0) {
        out[0] = bits_low64(v.k) & width_mask(v.width);
        return 1;
    }
    const sig_t *s = &nl->sigs[v.sig];
    if (s->n_vals) memcpy(out, s->vals, s->n_vals * sizeof *out);
    return s->n_vals;
}

/* Give the fresh wire r the values vals[0..n) (masked to its width, sorted, distinct),
 * unless there are too many to be worth knowing. */
static void set_values(netlist_t *nl, val_t r, uint64_t *vals, unsigned n) {
    if (r.sig < 0 || !n || r.width > 64) return;
    for (unsigned i = 0; i < n; i++) vals[i] &= width_mask(r.width);
    qsort(vals, n, sizeof *vals, cmp_u64);
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        if (!m || vals[m - 1] != vals[i]) vals[m++] = vals[i];
    if (m > NL_MAX_VALUES) return;
    sig_t *s = &nl->sigs[r.sig];
    s->vals = xmalloc(m * sizeof *vals);
    memcpy(s->vals, vals, m * sizeof *vals);
    s->n_vals = m;
}

/* r = the bits [lo, lo+r.width) of a value of a, sign-extended from a's msb when sext */
static void values_resize(netlist_t *nl, val_t r, val_t a, unsigned lo, bool sext) {
    uint64_t v[NL_MAX_VALUES];
    unsigned n = nl_values(nl, a, v);
    for (unsigned i = 0; i < n; i++) {
        v[i] >>= lo;
        if (sext && a.width < 64 && (v[i] >> (a.width - 1) & 1)) v[i] |= ~width_mask(a.width);
    }
    set_values(nl, r, v, n);
}

static bool apply_op(const char *op, uint64_t x, uint64_t y, uint64_t *r) {
    if (!strcmp(op, "+")) *r = x + y;
    else if (!strcmp(op, "-")) *r = x - y;
    else if (!strcmp(op, "*")) *r = x * y;
    else if (!strcmp(op, "&")) *r = x & y;
    else if (!strcmp(op, "|")) *r = x | y;
    else if (!strcmp(op, "^")) *r = x ^ y;
    else if (!strcmp(op, "<<")) *r = y >= 64 ? 0 : x << y;
    else if (!strcmp(op, ">>")) *r = y >= 64 ? 0 : x >> y;
    else return false;
    return true;
}

static void values_binop(netlist_t *nl, val_t r, const char *op, val_t a, val_t b) {
    uint64_t va[NL_MAX_VALUES], vb[NL_MAX_VALUES], dummy;
    if (r.width != a.width || !apply_op(op, 0, 0, &dummy)) return;
    unsigned na = nl_values(nl, a, va), nb = nl_values(nl, b, vb);
    if (!na || !nb) return;
    uint64_t *prod = xmalloc((size_t)na * nb * sizeof *prod);
    unsigned n = 0;
    for (unsigned i = 0; i < na; i++)
        for (unsigned j = 0; j < nb; j++) apply_op(op, va[i], vb[j], &prod[n++]);
    set_values(nl, r, prod, n);
    free(prod);
}

void nl_carry_fsm(netlist_t *nl, val_t r, int src, unsigned lo) {
    if (r.sig < 0 || src < 0 || lo || !nl->sigs[src].fsm) return;
    unsigned fsm = nl->sigs[src].fsm;
    if (r.width >= nl->ifc->regs[fsm - 1].width) nl->sigs[r.sig].fsm = fsm;
}

/* The state name for constant k compared with FSM value v, zero-extended to v's width;
 * NULL when v is not an FSM register's value or k names no state. */
static char *state_text(const netlist_t *nl, val_t v, val_t k) {
    if (v.sig < 0 || k.sig >= 0 || !nl->sigs[v.sig].fsm || v.width > 64) return NULL;
    unsigned reg = nl->sigs[v.sig].fsm - 1, rw = nl->ifc->regs[reg].width;
    uint64_t x = bits_low64(k.k);
    for (unsigned i = 0; i < nl->ifc->n_states; i++) {
        const fsm_state_t *s = &nl->ifc->states[i];
        if (s->reg == reg && s->value == x)
            return v.width == rw ? xstrdup(s->name)
                                 : xasprintf("{%u'd0, %s}", v.width - rw, s->name);
    }
    return NULL;
}

val_t nl_wire(netlist_t *nl, const char *base, unsigned width, char *expr) {
    int s = nl_add(nl, base, width, SIG_WIRE);
    nl->sigs[s].expr = expr;
    return v_sig(nl, s);
}

/* A slice or extension made outside any statement (an output or register gathered at the end)
 * is named in the statement of the wire it reads, so it keeps its name when others change. */
static val_t derived_wire(netlist_t *nl, val_t src, unsigned width, char *expr) {
    int saved = nl->cur_scope;
    const char *saved_call = nl->cur_call;
    if (saved < 0) {
        nl->cur_scope = nl->sigs[src.sig].scope;
        nl->cur_call = nl->sigs[src.sig].call;
    }
    val_t r = nl_wire(nl, nl->sigs[src.sig].base, width, expr);
    nl->cur_scope = saved;
    nl->cur_call = saved_call;
    return r;
}

val_t nl_slice(netlist_t *nl, val_t v, unsigned lo, unsigned width) {
    if (lo == 0 && width == v.width) return v;
    if (v.sig < 0) {
        bits_t t;
        bits_extract(&t, v.k, lo, width);
        return v_const(width, &t);
    }
    val_t r = derived_wire(nl, v, width, v_slice_text(nl, v, lo, width));
    values_resize(nl, r, v, lo, false);
    nl_carry_fsm(nl, r, v.sig, lo);
    return r;
}

val_t nl_zext(netlist_t *nl, val_t v, unsigned width) {
    if (width == v.width) return v;
    if (width < v.width) return nl_slice(nl, v, 0, width);
    if (v.sig < 0) return v_const(width, v.k);
    char *t = v_text(nl, v);
    val_t r = derived_wire(nl, v, width, xasprintf("{%u'd0, %s}", width - v.width, t));
    free(t);
    values_resize(nl, r, v, 0, false);
    nl_carry_fsm(nl, r, v.sig, 0);
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
    val_t r = derived_wire(nl, v, width, xasprintf("{{%u{%s}}, %s}", width - v.width, msb, t));
    free(t);
    free(msb);
    values_resize(nl, r, v, 0, true);
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
    uint64_t v[2 * NL_MAX_VALUES];
    unsigned na = nl_values(nl, a, v), nb = na ? nl_values(nl, b, v + na) : 0;
    if (nb) set_values(nl, r, v, na + nb);
    return r;
}

val_t nl_eq_const(netlist_t *nl, val_t a, const bits_t *k, const char *base) {
    val_t c = v_const(a.width, k);
    if (a.sig < 0) return v_u64(1, memcmp(a.k, c.k, sizeof(bits_t)) == 0);
    return nl_binop(nl, "==", a, c, 1, false, base ? base : "eq");
}

val_t nl_binop(netlist_t *nl, const char *op, val_t a, val_t b, unsigned width, bool sign,
               const char *base) {
    char *ta = NULL, *tb = NULL;
    if (!sign && (!strcmp(op, "==") || !strcmp(op, "!="))) {
        ta = state_text(nl, b, a);
        tb = state_text(nl, a, b);
    }
    if (!ta) ta = v_text(nl, a);
    if (!tb) tb = v_text(nl, b);
    char *e = sign ? xasprintf("$signed(%s) %s $signed(%s)", ta, op, tb)
                   : xasprintf("%s %s %s", ta, op, tb);
    free(ta);
    free(tb);
    val_t r = nl_wire(nl, base, width, e);
    values_binop(nl, r, op, a, b);
    return r;
}
