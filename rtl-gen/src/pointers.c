/* pointers.c — where a pointer may point, and what loads and stores do.
 * A pointer is a set of alternatives (select/phi of addresses), each an
 * object plus a constant and an optional dynamic byte offset. A dynamic
 * load becomes a case over the offsets the index can take (a ROM or a
 * register-file read port): over the few values the netlist knows the
 * offset can take (a mux of constants), else over every in-range multiple
 * of the stride. A dynamic store updates each candidate under
 * "index == candidate" (a register-file write port). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "translate.h"
#include "util.h"

#define MAX_CANDIDATES 4096

static long long gcd_ll(long long a, long long b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

void ptr_append(ptr_t *dst, const ptr_t *src) {
    dst->a = xrealloc(dst->a, sizeof(alt_t) * (dst->n + src->n + 1));
    memcpy(dst->a + dst->n, src->a, sizeof(alt_t) * src->n);
    dst->n += src->n;
}

ptr_t ptr_restrict(tr_t *t, const ptr_t *p, val_t pred) {
    ptr_t r = {.a = xcalloc(p->n + 1, sizeof(alt_t)), .n = 0};
    for (unsigned i = 0; i < p->n; i++) {
        alt_t a = p->a[i];
        a.pred = nl_and1(&t->nl, a.pred, pred);
        if (!v_is_const_value(a.pred, 0)) r.a[r.n++] = a;
    }
    return r;
}

ptr_t ptr_merge_select(tr_t *t, val_t c, const ptr_t *a, const ptr_t *b) {
    ptr_t r = ptr_restrict(t, a, c);
    ptr_t q = ptr_restrict(t, b, nl_not1(&t->nl, c));
    ptr_append(&r, &q);
    return r;
}

/* A constant global: its initializer becomes constant bytes (a ROM). */
static void const_bytes(tr_t *t, LLVMValueRef c, obj_t *o, unsigned off) {
    LLVMTypeRef ty = LLVMTypeOf(c);
    if (LLVMIsNull(c) || LLVMIsUndef(c) || LLVMIsPoison(c)) return; /* already zero */
    switch (LLVMGetTypeKind(ty)) {
    case LLVMIntegerTypeKind: {
        val_t v = tr_int(t, c);
        obj_store(o, off, v);
        return;
    }
    case LLVMArrayTypeKind: {
        unsigned n = (unsigned)LLVMGetArrayLength2(ty);
        unsigned long long es = LLVMABISizeOfType(t->td, LLVMGetElementType(ty));
        for (unsigned i = 0; i < n; i++)
            const_bytes(t, LLVMGetAggregateElement(c, i), o, off + (unsigned)(es * i));
        return;
    }
    case LLVMStructTypeKind: {
        unsigned n = LLVMCountStructElementTypes(ty);
        for (unsigned i = 0; i < n; i++)
            const_bytes(t, LLVMGetAggregateElement(c, i), o,
                        off + (unsigned)LLVMOffsetOfElement(t->td, ty, i));
        return;
    }
    default:
        tr_error(t, "unsupported", "constant table holds a value rtl-gen cannot map");
    }
}

static int global_object(tr_t *t, LLVMValueRef g) {
    for (unsigned i = 0; i < t->n_objs; i++)
        if (t->obj_globals[i] == g) return (int)i;
    if (!LLVMIsGlobalConstant(g) || !LLVMGetInitializer(g)) {
        size_t len;
        tr_error(t, "mutable-global", "'%s' is a mutable global: state belongs in the state "
                 "struct", LLVMGetValueName2(g, &len));
        return -1;
    }
    LLVMTypeRef ty = LLVMGlobalGetValueType(g);
    size_t len;
    obj_t o;
    obj_init(&o, intern(LLVMGetValueName2(g, &len)), (unsigned)LLVMABISizeOfType(t->td, ty), true);
    ARR_PUSH(t->objs, t->n_objs, t->cap_objs, o);
    t->obj_globals = xrealloc(t->obj_globals, sizeof(LLVMValueRef) * t->cap_objs);
    t->obj_globals[t->n_objs - 1] = g;
    const_bytes(t, LLVMGetInitializer(g), &t->objs[t->n_objs - 1], 0);
    return (int)t->n_objs - 1;
}

static ptr_t single(int obj) {
    ptr_t p = {.a = xcalloc(1, sizeof(alt_t)), .n = 1};
    p.a[0] = (alt_t){.pred = v_u64(1, 1), .obj = obj};
    return p;
}

static bool gep_compute(tr_t *t, LLVMValueRef gep, ptr_t *out);

bool tr_ptr(tr_t *t, LLVMValueRef v, ptr_t *out) {
    if (LLVMIsAArgument(v)) {
        LLVMValueRef fn = LLVMGetParamParent(v);
        for (unsigned i = 0; i < 3; i++)
            if (LLVMGetParam(fn, i) == v) {
                *out = single((int)i);
                return true;
            }
    }
    if (LLVMIsAGlobalVariable(v)) {
        int o = global_object(t, v);
        if (o < 0) return false;
        *out = single(o);
        return true;
    }
    if (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMGetElementPtr)
        return gep_compute(t, v, out);
    entry_t *e = tr_lookup(t, v, false);
    if (e && e->kind == VK_PTR) {
        *out = e->p;
        return true;
    }
    if (LLVMIsAFunction(v)) {
        tr_error(t, "function-pointer", "address of a function used as data");
        return false;
    }
    tr_error(t, "unsupported", "address that is not a field of in/out/state, a local or a "
             "constant table (a null or integer-made pointer?)");
    return false;
}

/* dyn += idx * scale; idx is sign-extended (GEP indices are signed) */
static void add_dynamic(tr_t *t, alt_t *a, val_t idx, long long scale, bool bounded,
                        long long n_elems) {
    val_t i64 = nl_sext(&t->nl, idx, 64);
    val_t term = scale == 1 ? i64 : nl_binop(&t->nl, "*", i64, v_u64(64, (uint64_t)scale), 64,
                                              false, "offset");
    if (!a->has_dyn) {
        a->has_dyn = true;
        a->dyn = term;
        a->bounded = bounded;
        a->dlo = 0;
        a->dhi = bounded ? (n_elems - 1) * scale : 0;
        a->dstep = scale;
    } else {
        a->dyn = nl_binop(&t->nl, "+", a->dyn, term, 64, false, "offset");
        a->bounded = a->bounded && bounded;
        a->dhi += bounded ? (n_elems - 1) * scale : 0;
        a->dstep = gcd_ll(a->dstep, scale);
    }
}

static bool gep_compute(tr_t *t, LLVMValueRef gep, ptr_t *out) {
    ptr_t base;
    if (!tr_ptr(t, LLVMGetOperand(gep, 0), &base)) return false;
    ptr_t r = {.a = xcalloc(base.n + 1, sizeof(alt_t)), .n = base.n};
    memcpy(r.a, base.a, sizeof(alt_t) * base.n);
    LLVMTypeRef cur = LLVMGetGEPSourceElementType(gep);
    unsigned n = (unsigned)LLVMGetNumOperands(gep);
    for (unsigned k = 1; k < n; k++) {
        LLVMValueRef idx = LLVMGetOperand(gep, k);
        bool is_const = LLVMIsAConstantInt(idx);
        long long ci = is_const ? LLVMConstIntGetSExtValue(idx) : 0;
        if (k == 1) { /* pointer arithmetic over whole source elements */
            long long es = (long long)LLVMABISizeOfType(t->td, cur);
            if (!is_const && LLVMIsASelectInst(idx) &&
                LLVMIsAConstantInt(LLVMGetOperand(idx, 1)) &&
                LLVMIsAConstantInt(LLVMGetOperand(idx, 2))) {
                /* `c ? &s->a : &s->b` arrives as `s + (c ? 0 : K)`: two constant
                 * alternatives, so each stays a named field instead of a dynamic offset */
                val_t c = tr_int(t, LLVMGetOperand(idx, 0));
                long long k1 = LLVMConstIntGetSExtValue(LLVMGetOperand(idx, 1));
                long long k2 = LLVMConstIntGetSExtValue(LLVMGetOperand(idx, 2));
                alt_t *two = xcalloc(2 * r.n + 1, sizeof(alt_t));
                for (unsigned i = 0; i < r.n; i++) {
                    two[2 * i] = two[2 * i + 1] = r.a[i];
                    two[2 * i].pred = nl_and1(&t->nl, r.a[i].pred, c);
                    two[2 * i].coff += k1 * es;
                    two[2 * i + 1].pred = nl_and1(&t->nl, r.a[i].pred, nl_not1(&t->nl, c));
                    two[2 * i + 1].coff += k2 * es;
                }
                free(r.a);
                r.a = two;
                r.n *= 2;
                continue;
            }
            for (unsigned i = 0; i < r.n; i++) {
                if (is_const) r.a[i].coff += ci * es;
                else add_dynamic(t, &r.a[i], tr_int(t, idx), es, false, 0);
            }
            continue;
        }
        switch (LLVMGetTypeKind(cur)) {
        case LLVMStructTypeKind: {
            unsigned long long off = LLVMOffsetOfElement(t->td, cur, (unsigned)ci);
            for (unsigned i = 0; i < r.n; i++) r.a[i].coff += (long long)off;
            cur = LLVMStructGetTypeAtIndex(cur, (unsigned)ci);
            break;
        }
        case LLVMArrayTypeKind: {
            LLVMTypeRef et = LLVMGetElementType(cur);
            long long es = (long long)LLVMABISizeOfType(t->td, et);
            long long ne = (long long)LLVMGetArrayLength2(cur);
            for (unsigned i = 0; i < r.n; i++) {
                if (is_const) r.a[i].coff += ci * es;
                else add_dynamic(t, &r.a[i], tr_int(t, idx), es, ne > 0, ne);
            }
            cur = et;
            break;
        }
        default:
            tr_error(t, "unsupported", "address computation over a vector type");
            return false;
        }
    }
    *out = r;
    return true;
}

void tr_gep(tr_t *t, LLVMValueRef gep) {
    ptr_t p;
    if (!gep_compute(t, gep, &p)) return;
    entry_t *e = tr_lookup(t, gep, true);
    e->kind = VK_PTR;
    e->p = p;
}

/* The constant offsets an alternative can take for an access of n bytes: the few values
 * the netlist knows the offset can take (a mux of constants), else every in-range multiple
 * of the stride. Offsets outside the object or onto HLS_MEM cells are left out. */
static unsigned candidates(tr_t *t, const alt_t *a, unsigned n, long long **out) {
    const obj_t *o = &t->objs[a->obj];
    uint64_t known[NL_MAX_VALUES];
    unsigned n_known = nl_values(&t->nl, a->dyn, known);
    long long lo = a->bounded ? a->dlo : -a->coff;
    long long hi = a->bounded ? a->dhi : (long long)o->size - a->coff;
    long long step = a->dstep > 0 ? a->dstep : 1;
    /* align the unbounded start to the stride */
    if (!a->bounded) lo = lo >= 0 ? (lo + step - 1) / step * step : -((-lo) / step * step);
    if (n_known) {
        lo = 0;
        hi = n_known - 1;
        step = 1;
    }
    unsigned cnt = 0, cap = 0, forbidden = 0;
    long long *c = NULL;
    *out = NULL;
    for (long long i = lo; i <= hi; i += step) {
        long long d = n_known ? (long long)known[i] : i, off = a->coff + d;
        if (off < 0 || off + n > o->size) continue;
        if (obj_touches_forbidden(o, (unsigned)off, n)) {
            forbidden++;
            continue;
        }
        if (cnt == MAX_CANDIDATES) {
            tr_error(t, "array-size", "dynamically indexed array in '%s' has more than %d "
                     "elements: too large for a register file or ROM; use HLS_MEM", o->name,
                     MAX_CANDIDATES);
            free(c);
            return 0;
        }
        ARR_PUSH(c, cnt, cap, d);
    }
    if (!cnt)
        tr_error(t, forbidden ? "memory-access" : "unsupported",
                 forbidden ? "HLS_MEM cells are read and written only with hls_mem_read / "
                             "hls_mem_write"
                           : "access outside the object '%s'", o->name);
    *out = c;
    return cnt;
}

static bool static_ok(tr_t *t, const obj_t *o, long long off, unsigned n) {
    if (off < 0 || off + n > o->size) {
        tr_error(t, "unsupported", "access outside the object '%s' (offset %lld)", o->name, off);
        return false;
    }
    if (obj_touches_forbidden(o, (unsigned)off, n)) {
        tr_error(t, "memory-access", "HLS_MEM cells are read and written only with "
                 "hls_mem_read / hls_mem_write");
        return false;
    }
    return true;
}

static val_t alt_load(tr_t *t, const alt_t *a, unsigned width, const char *base) {
    const obj_t *o = &t->objs[a->obj];
    unsigned n = (width + 7) / 8;
    if (!a->has_dyn) {
        if (!static_ok(t, o, a->coff, n)) return v_u64(width, 0);
        return obj_load(&t->nl, o, (unsigned)a->coff, width);
    }
    long long *c;
    unsigned cnt = candidates(t, a, n, &c);
    if (!cnt) return v_u64(width, 0);
    if (cnt == 1) {
        val_t v = obj_load(&t->nl, o, (unsigned)(a->coff + c[0]), width);
        free(c);
        return v;
    }
    int s = nl_add(&t->nl, base, width, SIG_CASE);
    char **labels = xcalloc(cnt, sizeof(char *)), **values = xcalloc(cnt, sizeof(char *));
    char *sel = v_text(&t->nl, a->dyn);
    for (unsigned i = 0; i < cnt; i++) {
        val_t v = obj_load(&t->nl, o, (unsigned)(a->coff + c[i]), width);
        labels[i] = xasprintf("64'h%llx", (unsigned long long)c[i]);
        values[i] = v_text(&t->nl, v);
    }
    sig_t *sg = &t->nl.sigs[s]; /* after the loads: they may grow the signal array */
    sg->case_sel = sel;
    sg->case_label = labels;
    sg->case_value = values;
    sg->n_case = cnt;
    free(c);
    return v_sig(&t->nl, s);
}

val_t tr_load(tr_t *t, const ptr_t *p, unsigned width, const char *base) {
    if (!p->n) return v_u64(width, 0);
    val_t r = alt_load(t, &p->a[p->n - 1], width, base);
    for (unsigned i = p->n - 1; i-- > 0;)
        r = nl_mux(&t->nl, p->a[i].pred, alt_load(t, &p->a[i], width, base), r, base);
    return r;
}

/* Bytes [off, off+n) of o take v when pred holds. */
static void pred_store(tr_t *t, obj_t *o, unsigned off, val_t v, val_t pred) {
    if (v_is_const_value(pred, 0)) return;
    if (o->read_only) {
        tr_error(t, "unsupported", "store into read-only '%s' (input ports and constant "
                 "tables cannot be written)", o->name);
        return;
    }
    if (obj_touches_protected(o, off, (v.width + 7) / 8)) {
        tr_error(t, "memory-access", "hls_mem_rdata is the memory's read port: it is read-only");
        return;
    }
    if (!v_is_const_value(pred, 1)) {
        val_t old = obj_load(&t->nl, o, off, v.width);
        v = nl_mux(&t->nl, pred, v, old, "upd");
    }
    obj_store(o, off, v);
}

static void alt_store(tr_t *t, const alt_t *a, val_t v, val_t pred) {
    obj_t *o = &t->objs[a->obj];
    unsigned n = (v.width + 7) / 8;
    if (!a->has_dyn) {
        if (static_ok(t, o, a->coff, n)) pred_store(t, o, (unsigned)a->coff, v, pred);
        return;
    }
    long long *c;
    unsigned cnt = candidates(t, a, n, &c);
    for (unsigned i = 0; i < cnt; i++) {
        bits_t k;
        bits_from_u64(&k, (uint64_t)c[i]);
        val_t hit = nl_and1(&t->nl, pred, nl_eq_const(&t->nl, a->dyn, &k, "wsel"));
        pred_store(t, o, (unsigned)(a->coff + c[i]), v, hit);
    }
    free(c);
}

void tr_store(tr_t *t, const ptr_t *p, val_t v) {
    for (unsigned i = 0; i < p->n; i++)
        alt_store(t, &p->a[i], v, nl_and1(&t->nl, t->block_pred, p->a[i].pred));
}

static ptr_t ptr_plus(const ptr_t *p, long long k) {
    ptr_t r = {.a = xcalloc(p->n + 1, sizeof(alt_t)), .n = p->n};
    memcpy(r.a, p->a, sizeof(alt_t) * p->n);
    for (unsigned i = 0; i < r.n; i++) r.a[i].coff += k;
    return r;
}

/* Copy in chunks of up to 64 bytes: each chunk is one load and one store. */
void tr_memcpy(tr_t *t, const ptr_t *dst, const ptr_t *src, unsigned n) {
    val_t *chunks = xcalloc(n / 64 + 2, sizeof(val_t));
    unsigned nc = 0;
    for (unsigned off = 0; off < n; off += 64) { /* read everything first: memmove-safe */
        unsigned len = n - off < 64 ? n - off : 64;
        ptr_t s = ptr_plus(src, off);
        chunks[nc++] = tr_load(t, &s, len * 8, "copy");
    }
    nc = 0;
    for (unsigned off = 0; off < n; off += 64) {
        ptr_t d = ptr_plus(dst, off);
        tr_store(t, &d, chunks[nc++]);
    }
    free(chunks);
}

void tr_memset(tr_t *t, const ptr_t *dst, val_t byte, unsigned n) {
    for (unsigned off = 0; off < n; off += 64) {
        unsigned len = n - off < 64 ? n - off : 64;
        val_t v;
        if (v_is_const(byte)) {
            bits_t b;
            bits_zero(&b);
            for (unsigned k = 0; k < len; k++) {
                bits_t one;
                bits_from_u64(&one, bits_low64(byte.k) & 0xff);
                bits_insert(&b, &one, 8 * k, 8);
            }
            v = v_const(len * 8, &b);
        } else {
            char *bt = v_text(&t->nl, byte);
            v = nl_wire(&t->nl, "fill", len * 8, xasprintf("{%u{%s}}", len, bt));
            free(bt);
        }
        ptr_t d = ptr_plus(dst, off);
        tr_store(t, &d, v);
    }
}

/* One memory a mem-op pointer alternative may select, and the condition that it does. */
typedef struct {
    int mem;
    val_t pred;
} mem_pick_t;

/* The memories alternative a may point at. A constant offset names one memory; a dynamic
 * offset (clang turns `c ? &st->a : &st->b` into `st + (c ? 0 : 68)`) must be bounded, and
 * each memory field at an offset it can take is chosen when the offset equals it. Returns
 * the number of picks, 0 when a cannot point at an HLS_MEM field only. */
static unsigned mem_picks(tr_t *t, const alt_t *a, mem_pick_t *out) {
    if (a->obj != 2) return 0;
    unsigned n = 0;
    for (unsigned i = 0; i < t->ifc->n_mems; i++) {
        long long d = (long long)t->ifc->mems[i].offset - a->coff;
        if (!a->has_dyn) {
            if (d == 0) out[n++] = (mem_pick_t){(int)i, a->pred};
            continue;
        }
        long long step = a->dstep > 0 ? a->dstep : 1;
        if (!a->bounded || d < a->dlo || d > a->dhi || (d - a->dlo) % step) continue;
        bits_t k;
        bits_from_u64(&k, (unsigned long long)d);
        val_t eq = nl_eq_const(&t->nl, a->dyn, &k, "mem_pick");
        out[n++] = (mem_pick_t){(int)i, nl_and1(&t->nl, a->pred, eq)};
    }
    /* a dynamic offset that can also land outside every memory field is not a memory choice */
    if (a->has_dyn && a->bounded) {
        long long step = a->dstep > 0 ? a->dstep : 1;
        unsigned reach = (unsigned)((a->dhi - a->dlo) / step + 1);
        if (reach != n) return 0;
    }
    if (a->has_dyn && !a->bounded) return 0;
    return n;
}

/* One read and one write per memory per cycle (docs/hls-c.md section 6). The C model stops
 * on a second read or write in a cycle; the Verilog would keep the last one silently. When
 * the paths depend on data only the C model can tell, but two operations of which one is
 * unconditional, or two under the same condition (one path), always collide: reject those.
 * enable is the OR of the earlier operations' conditions, pred this one's. */
static bool ports_free(tr_t *t, const mem_t *m, val_t enable, val_t pred, bool is_write) {
    if (v_is_const_value(enable, 0) || v_is_const_value(pred, 0)) return true;
    bool same_path = v_is_const_value(enable, 1) || v_is_const_value(pred, 1) ||
                     (enable.sig >= 0 && enable.sig == pred.sig);
    if (!same_path) return true;
    const char *op = is_write ? "write" : "read";
    tr_error(t, "memory-port", "second hls_mem_%s of memory '%s' in one cycle on the same path: "
             "an HLS_MEM has one read port and one write port, so at most one %s per cycle; "
             "put the two on exclusive paths (if/else) or spread them over two cycles",
             op, strncmp(m->name, "st_", 3) ? m->name : m->name + 3, op);
    return false;
}

/* __hls_mem_read(&st->m, addr) / __hls_mem_write(&st->m, addr, &value).
 * The pointer may choose among memories: clang merges the calls of two exclusive paths that
 * use different memories into one call on a phi or select of their addresses, and a designer
 * may write `hls_mem_read(c ? &st->a : &st->b, i)`. Each choice is then one memory's port
 * operation under the condition that chooses it. */
void tr_mem_op(tr_t *t, LLVMValueRef call, bool is_write) {
    ptr_t p;
    if (!tr_ptr(t, LLVMGetOperand(call, 0), &p)) return;
    unsigned max = p.n * (t->ifc->n_mems + 1) + 1;
    mem_pick_t *pick = xcalloc(max, sizeof *pick);
    unsigned n = 0;
    bool ok = p.n > 0;
    for (unsigned k = 0; k < p.n && ok; k++) {
        unsigned got = mem_picks(t, &p.a[k], pick + n);
        ok = got > 0;
        n += got;
    }
    ptr_t vp;
    if (!ok) {
        tr_error(t, "memory-access", "hls_mem_%s needs the address of an HLS_MEM field of "
                 "the state struct (or a choice among such fields)", is_write ? "write" : "read");
    } else if (!is_write || tr_ptr(t, LLVMGetOperand(call, 2), &vp)) {
        val_t addr64 = tr_int(t, LLVMGetOperand(call, 1));
        for (unsigned k = 0; k < n; k++) {
            const mem_t *m = &t->ifc->mems[pick[k].mem];
            mem_ports_t *mp = &t->mem[pick[k].mem];
            val_t pred = nl_and1(&t->nl, t->block_pred, pick[k].pred);
            val_t addr = nl_slice(&t->nl, addr64, 0, mp->ra.width);
            if (!ports_free(t, m, is_write ? mp->we : mp->re, pred, is_write)) break;
            if (!is_write) {
                mp->re = nl_or1(&t->nl, mp->re, pred);
                mp->ra = nl_mux(&t->nl, pred, addr, mp->ra, "raddr");
                continue;
            }
            val_t data = tr_load(t, &vp, m->width, "wdata");
            mp->we = nl_or1(&t->nl, mp->we, pred);
            mp->wa = nl_mux(&t->nl, pred, addr, mp->wa, "waddr");
            mp->wd = nl_mux(&t->nl, pred, data, mp->wd, "wdata");
        }
    }
    free(pick);
}
