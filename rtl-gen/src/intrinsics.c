/* intrinsics.c — llvm.* calls that clang -O2 produces from ordinary C
 * (rotates, min/max, popcount, byte swaps, saturating and overflow
 * arithmetic, memcpy/memset) become plain logic. Anything else is rejected. */
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "util.h"

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static unsigned clog2(unsigned x) {
    unsigned b = 0;
    while ((1u << b) < x) b++;
    return b;
}

static val_t arg(tr_t *t, LLVMValueRef call, unsigned i) {
    return tr_int(t, LLVMGetOperand(call, i));
}

static void set(tr_t *t, LLVMValueRef call, val_t v) {
    entry_t *e = tr_lookup(t, call, true);
    e->kind = VK_INT;
    e->v = v;
}

static val_t cmp(tr_t *t, const char *op, val_t a, val_t b, bool sign) {
    return nl_binop(&t->nl, op, a, b, 1, sign, "cmp");
}

/* Build "{p0, p1, ...}" from n parts, each produced by a callback-free loop below. */
static char *join(char **parts, unsigned n) {
    size_t len = 3;
    for (unsigned i = 0; i < n; i++) len += strlen(parts[i]) + 2;
    char *s = xmalloc(len);
    char *p = s;
    *p++ = '{';
    for (unsigned i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        memcpy(p, parts[i], l);
        p += l;
        if (i + 1 < n) *p++ = ',', *p++ = ' ';
        free(parts[i]);
    }
    *p++ = '}';
    *p = 0;
    free(parts);
    return s;
}

/* Population count as a tree over named partial sums: groups of up to 64 bits are summed in
 * one wire each (yosys builds an adder tree for one such sum), then neighbours are added
 * pairwise. One expression over every bit of a 1024-bit value would be a statement of
 * 1024 terms, and the statement a chain of adders as deep as it is wide. */
#define POPCOUNT_GROUP 64
static val_t popcount(tr_t *t, val_t a) {
    if (a.width == 1) return a;
    netlist_t *nl = &t->nl;
    unsigned n = (a.width + POPCOUNT_GROUP - 1) / POPCOUNT_GROUP;
    val_t *sum = xcalloc(n, sizeof *sum);
    unsigned *most = xcalloc(n, sizeof *most); /* the largest count each partial sum holds */
    for (unsigned g = 0; g < n; g++) {
        unsigned lo = g * POPCOUNT_GROUP;
        unsigned bits = a.width - lo < POPCOUNT_GROUP ? a.width - lo : POPCOUNT_GROUP;
        unsigned k = clog2(bits + 1);
        char **terms = xcalloc(bits, sizeof(char *));
        size_t len = 1;
        for (unsigned i = 0; i < bits; i++) {
            char *b = v_slice_text(nl, a, lo + i, 1);
            terms[i] = k > 1 ? xasprintf("{%u'd0, %s}", k - 1, b) : xstrdup(b);
            len += strlen(terms[i]) + 3;
            free(b);
        }
        char *e = xmalloc(len);
        e[0] = 0;
        for (unsigned i = 0; i < bits; i++) {
            if (i) strcat(e, " + ");
            strcat(e, terms[i]);
            free(terms[i]);
        }
        free(terms);
        sum[g] = nl_wire(nl, "popcount", k, e);
        most[g] = bits;
    }
    while (n > 1) { /* one level: neighbours pair up, an odd last one waits */
        unsigned m = 0;
        for (unsigned i = 0; i + 1 < n; i += 2) {
            unsigned total = most[i] + most[i + 1], k = clog2(total + 1);
            sum[m] = nl_binop(nl, "+", nl_zext(nl, sum[i], k), nl_zext(nl, sum[i + 1], k), k,
                              false, "popcount");
            most[m++] = total;
        }
        if (n & 1) {
            sum[m] = sum[n - 1];
            most[m++] = most[n - 1];
        }
        n = m;
    }
    val_t r = nl_zext(nl, sum[0], a.width);
    free(sum);
    free(most);
    return r;
}

/* count leading (from_top) or trailing zeros: a priority chain */
static val_t count_zeros(tr_t *t, val_t a, bool from_top) {
    unsigned k = clog2(a.width + 1);
    if (k == 0) k = 1;
    val_t r = v_u64(k, a.width);
    for (unsigned n = a.width; n-- > 0;) { /* n = number of zeros before the first one */
        unsigned bit = from_top ? a.width - 1 - n : n;
        val_t b = nl_slice(&t->nl, a, bit, 1);
        r = nl_mux(&t->nl, b, v_u64(k, n), r, from_top ? "clz" : "ctz");
    }
    return nl_zext(&t->nl, r, a.width);
}

static val_t reorder(tr_t *t, val_t a, unsigned unit, const char *base) {
    unsigned n = a.width / unit;
    char **parts = xcalloc(n, sizeof(char *));
    for (unsigned i = 0; i < n; i++) parts[i] = v_slice_text(&t->nl, a, i * unit, unit);
    return nl_wire(&t->nl, base, a.width, join(parts, n)); /* unit 0 first = MSB after swap */
}

/* funnel shift: fshl = high half of ({a,b} << s%w), fshr = low half of ({a,b} >> s%w) */
static val_t funnel(tr_t *t, val_t a, val_t b, val_t s, bool left) {
    unsigned w = a.width;
    netlist_t *nl = &t->nl;
    val_t amt;
    if ((w & (w - 1)) == 0)
        amt = nl_zext(nl, nl_slice(nl, s, 0, clog2(w) ? clog2(w) : 1), 2 * w);
    else
        amt = nl_zext(nl, nl_binop(nl, "%", s, v_u64(w, w), w, false, "amt"), 2 * w);
    char *ta = v_text(nl, a), *tb = v_text(nl, b);
    val_t cat = nl_wire(nl, "funnel", 2 * w, xasprintf("{%s, %s}", ta, tb));
    free(ta);
    free(tb);
    val_t sh = nl_binop(nl, left ? "<<" : ">>", cat, amt, 2 * w, false, left ? "fshl" : "fshr");
    return nl_slice(nl, sh, left ? w : 0, w);
}

static void saturating(tr_t *t, LLVMValueRef call, const char *name) {
    netlist_t *nl = &t->nl;
    val_t a = arg(t, call, 0), b = arg(t, call, 1);
    unsigned w = a.width;
    bool sign = starts(name, "llvm.sadd") || starts(name, "llvm.ssub");
    bool add = strstr(name, "add.sat") != NULL;
    val_t ea = sign ? nl_sext(nl, a, w + 1) : nl_zext(nl, a, w + 1);
    val_t eb = sign ? nl_sext(nl, b, w + 1) : nl_zext(nl, b, w + 1);
    val_t r = nl_binop(nl, add ? "+" : "-", ea, eb, w + 1, false, add ? "sum" : "diff");
    val_t low = nl_slice(nl, r, 0, w);
    bits_t maxv, minv;
    bits_zero(&maxv);
    bits_zero(&minv);
    if (!sign) {
        for (unsigned i = 0; i < w; i++) bits_set_bit(&maxv, i, 1);
        val_t over = nl_slice(nl, r, w, 1); /* carry out / borrow */
        set(t, call, nl_mux(nl, over, add ? v_const(w, &maxv) : v_u64(w, 0), low, "sat"));
        return;
    }
    for (unsigned i = 0; i + 1 < w; i++) bits_set_bit(&maxv, i, 1);
    bits_set_bit(&minv, w - 1, 1);
    /* signed overflow: the two top bits of the w+1-bit result differ */
    val_t top = nl_slice(nl, r, w, 1), next = nl_slice(nl, r, w - 1, 1);
    val_t ovf = nl_binop(nl, "^", top, next, 1, false, "ovf");
    val_t clamp = nl_mux(nl, top, v_const(w, &minv), v_const(w, &maxv), "clamp");
    set(t, call, nl_mux(nl, ovf, clamp, low, "sat"));
}

static void with_overflow(tr_t *t, LLVMValueRef call, const char *name) {
    netlist_t *nl = &t->nl;
    val_t a = arg(t, call, 0), b = arg(t, call, 1);
    unsigned w = a.width;
    bool sign = name[5] == 's';
    const char *op = strstr(name, "add") ? "+" : strstr(name, "sub") ? "-" : "*";
    unsigned ew = *op == '*' ? 2 * w : w + 1;
    val_t ea = sign ? nl_sext(nl, a, ew) : nl_zext(nl, a, ew);
    val_t eb = sign ? nl_sext(nl, b, ew) : nl_zext(nl, b, ew);
    val_t r = nl_binop(nl, op, ea, eb, ew, false, "wide");
    val_t low = nl_slice(nl, r, 0, w), ovf;
    if (!sign) {
        val_t high = nl_slice(nl, r, w, ew - w);
        ovf = nl_binop(nl, "!=", high, v_u64(ew - w, 0), 1, false, "ovf");
    } else { /* the wide result differs from the sign extension of its low part */
        ovf = nl_binop(nl, "!=", r, nl_sext(nl, low, ew), 1, false, "ovf");
    }
    entry_t *e = tr_lookup(t, call, true);
    e->kind = VK_PAIR;
    e->pair[0] = low;
    e->pair[1] = ovf;
}

bool tr_intrinsic(tr_t *t, LLVMValueRef call, const char *name) {
    netlist_t *nl = &t->nl;
    if (starts(name, "llvm.dbg.") || starts(name, "llvm.lifetime.") ||
        starts(name, "llvm.assume") || starts(name, "llvm.experimental.noalias.scope.decl") ||
        starts(name, "llvm.sideeffect") || starts(name, "llvm.pseudoprobe"))
        return true;
    if (starts(name, "llvm.expect")) {
        set(t, call, arg(t, call, 0));
        return true;
    }
    if (starts(name, "llvm.memcpy") || starts(name, "llvm.memmove") ||
        starts(name, "llvm.memset")) {
        LLVMValueRef len = LLVMGetOperand(call, 2);
        if (!LLVMIsAConstantInt(len)) {
            tr_error(t, "unsupported", "memcpy/memset with a length that is not a compile-time "
                     "constant");
            return true;
        }
        unsigned n = (unsigned)LLVMConstIntGetZExtValue(len);
        ptr_t d, s;
        if (!tr_ptr(t, LLVMGetOperand(call, 0), &d)) return true;
        if (starts(name, "llvm.memset")) {
            tr_memset(t, &d, arg(t, call, 1), n);
        } else if (tr_ptr(t, LLVMGetOperand(call, 1), &s)) {
            tr_memcpy(t, &d, &s, n);
        }
        return true;
    }
    if (starts(name, "llvm.umin") || starts(name, "llvm.umax") || starts(name, "llvm.smin") ||
        starts(name, "llvm.smax")) {
        val_t a = arg(t, call, 0), b = arg(t, call, 1);
        bool sign = name[5] == 's', mn = name[7] == 'i';
        val_t lt = cmp(t, "<", a, b, sign);
        set(t, call, mn ? nl_mux(nl, lt, a, b, "min") : nl_mux(nl, lt, b, a, "max"));
        return true;
    }
    if (starts(name, "llvm.abs")) {
        val_t a = arg(t, call, 0);
        val_t neg = nl_binop(nl, "-", v_u64(a.width, 0), a, a.width, false, "neg");
        set(t, call, nl_mux(nl, nl_slice(nl, a, a.width - 1, 1), neg, a, "abs"));
        return true;
    }
    if (starts(name, "llvm.ctpop")) {
        set(t, call, popcount(t, arg(t, call, 0)));
        return true;
    }
    if (starts(name, "llvm.ctlz") || starts(name, "llvm.cttz")) {
        set(t, call, count_zeros(t, arg(t, call, 0), name[7] == 'l')); /* llvm.ctlz */
        return true;
    }
    if (starts(name, "llvm.bswap")) {
        set(t, call, reorder(t, arg(t, call, 0), 8, "bswap"));
        return true;
    }
    if (starts(name, "llvm.bitreverse")) {
        set(t, call, reorder(t, arg(t, call, 0), 1, "bitrev"));
        return true;
    }
    if (starts(name, "llvm.fshl") || starts(name, "llvm.fshr")) {
        set(t, call, funnel(t, arg(t, call, 0), arg(t, call, 1), arg(t, call, 2), name[8] == 'l'));
        return true;
    }
    if (strstr(name, ".sat.") && (starts(name, "llvm.uadd") || starts(name, "llvm.usub") ||
                                  starts(name, "llvm.sadd") || starts(name, "llvm.ssub"))) {
        saturating(t, call, name);
        return true;
    }
    if (strstr(name, ".with.overflow.")) {
        with_overflow(t, call, name);
        return true;
    }
    if (starts(name, "llvm.ucmp") || starts(name, "llvm.scmp")) {
        val_t a = arg(t, call, 0), b = arg(t, call, 1);
        unsigned w = tr_type_width(t, LLVMTypeOf(call));
        bits_t ones;
        bits_zero(&ones);
        for (unsigned i = 0; i < w; i++) bits_set_bit(&ones, i, 1);
        bool sign = name[5] == 's';
        val_t gt = nl_mux(nl, cmp(t, "!=", a, b, false), v_u64(w, 1), v_u64(w, 0), "cmp");
        set(t, call, nl_mux(nl, cmp(t, "<", a, b, sign), v_const(w, &ones), gt, "cmp3"));
        return true;
    }
    tr_error(t, "unsupported-call", "intrinsic '%s' has no hardware mapping in rtl-gen", name);
    return true;
}
