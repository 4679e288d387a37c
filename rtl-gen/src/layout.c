/* layout.c — flatten the in/out/state structs into scalar leaves (ports and
 * registers), memories and streams. Names are field paths joined by '_'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "frontend.h"
#include "names.h"
#include "util.h"

#define MAX_WIDTH 1024

typedef enum { ROLE_IN, ROLE_OUT, ROLE_STATE } role_t;

typedef struct {
    iface_t *ifc;
    role_t role;
    leaf_t *leaves;
    unsigned n, cap;
    unsigned mcap, scap;
} layout_ctx_t;

typedef struct {
    layout_ctx_t *ctx;
    const char *prefix;
    unsigned base; /* byte offset of the enclosing struct */
} field_walk_t;

static void lay_type(layout_ctx_t *ctx, CXCursor where, CXType t, const char *name, unsigned off);

/* Integer-like scalar: width and signedness, or 0 if not a scalar we map. */
static unsigned scalar_width(CXType t, bool *is_signed) {
    t = clang_getCanonicalType(t);
    *is_signed = false;
    switch (t.kind) {
    case CXType_Bool: return 1;
    case CXType_Char_S: case CXType_SChar: case CXType_Short: case CXType_Int:
    case CXType_Long: case CXType_LongLong: case CXType_Int128:
        *is_signed = true;
        return (unsigned)clang_Type_getSizeOf(t) * 8;
    case CXType_Char_U: case CXType_UChar: case CXType_UShort: case CXType_UInt:
    case CXType_ULong: case CXType_ULongLong: case CXType_UInt128:
        return (unsigned)clang_Type_getSizeOf(t) * 8;
    case CXType_Enum:
        return scalar_width(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(t)), is_signed);
    default: break;
    }
    /* _BitInt has no libclang type kind: read its width from the spelling. */
    char *sp = xstrdup_cx(clang_getTypeSpelling(t));
    const char *b = strstr(sp, "_BitInt(");
    unsigned w = 0;
    if (b) {
        w = (unsigned)strtoul(b + 8, NULL, 10);
        *is_signed = strncmp(sp, "unsigned", 8) != 0;
    }
    free(sp);
    return w;
}

static bool is_float_kind(enum CXTypeKind k) {
    return k == CXType_Float || k == CXType_Double || k == CXType_LongDouble ||
           k == CXType_Half || k == CXType_Float16 || k == CXType_Float128 ||
           k == CXType_BFloat16;
}

static enum CXVisitorResult field_visit(CXCursor c, CXClientData d) {
    field_walk_t *fw = d;
    char *fname = xstrdup_cx(clang_getCursorSpelling(c));
    long long boff = clang_Cursor_getOffsetOfField(c);
    if (clang_Cursor_isBitField(c)) {
        cursor_error(c, "port-type", "bit-field '%s' in a port or state struct: use _BitInt(N) "
                     "fields instead", fname);
    } else if (boff < 0 || boff % 8) {
        cursor_error(c, "port-type", "cannot determine the byte offset of field '%s'", fname);
    } else {
        char *path = fw->prefix[0] ? xasprintf("%s_%s", fw->prefix, fname) : xstrdup(fname);
        lay_type(fw->ctx, c, clang_getCursorType(c), path, fw->base + (unsigned)(boff / 8));
        free(path);
    }
    free(fname);
    return CXVisit_Continue;
}

typedef struct {
    const char *names[3];
    unsigned n;
} field_names_t;

static enum CXVisitorResult collect_names(CXCursor c, CXClientData d) {
    field_names_t *fn = d;
    if (fn->n < 3) fn->names[fn->n] = intern(clang_getCString(clang_getCursorSpelling(c)));
    fn->n++;
    return CXVisit_Continue;
}

static bool is_hls_mem(CXType rec) {
    field_names_t fn = {.n = 0};
    clang_Type_visitFields(rec, collect_names, &fn);
    return fn.n == 2 && strcmp(fn.names[0], "hls_mem_rdata") == 0 &&
           strcmp(fn.names[1], "hls_mem_cell") == 0;
}

/* Does a struct have padding bytes? (memory words must not: their bytes are compared) */
typedef struct {
    unsigned covered;
} pad_t;

static unsigned type_payload_bytes(CXType t);
static enum CXVisitorResult sum_fields(CXCursor c, CXClientData d) {
    ((pad_t *)d)->covered += type_payload_bytes(clang_getCursorType(c));
    return CXVisit_Continue;
}
static unsigned type_payload_bytes(CXType t) {
    t = clang_getCanonicalType(t);
    if (t.kind == CXType_Record) {
        pad_t p = {0};
        clang_Type_visitFields(t, sum_fields, &p);
        return p.covered;
    }
    if (t.kind == CXType_ConstantArray)
        return (unsigned)clang_getArraySize(t) * type_payload_bytes(clang_getArrayElementType(t));
    return (unsigned)clang_Type_getSizeOf(t);
}

typedef struct {
    CXCursor f[2];
    unsigned n;
} two_fields_t;

static enum CXVisitorResult first_two(CXCursor c, CXClientData d) {
    two_fields_t *t = d;
    if (t->n < 2) t->f[t->n] = c;
    t->n++;
    return CXVisit_Continue;
}

static void lay_memory(layout_ctx_t *ctx, CXCursor where, CXType rec, const char *name,
                       unsigned off) {
    iface_t *ifc = ctx->ifc;
    if (ctx->role != ROLE_STATE) {
        cursor_error(where, "port-type",
                     "HLS_MEM '%s' belongs in the state struct, not in a port struct", name);
        return;
    }
    two_fields_t tf = {.n = 0};
    clang_Type_visitFields(rec, first_two, &tf);
    CXType word = clang_getCanonicalType(clang_getCursorType(tf.f[0]));
    CXType cells = clang_getCanonicalType(clang_getCursorType(tf.f[1]));
    unsigned elem_size = (unsigned)clang_Type_getSizeOf(word);
    unsigned long long depth = (unsigned long long)clang_getArraySize(cells);
    bool sgn;
    unsigned width = scalar_width(word, &sgn);
    if (!width) {
        if (is_float_kind(word.kind) || word.kind == CXType_Pointer) {
            cursor_error(where, "port-type", "memory '%s' holds a type rtl-gen cannot map", name);
            return;
        }
        if (type_payload_bytes(word) != elem_size) {
            cursor_error(where, "memory-shape",
                         "memory '%s': its word struct has padding (%u of %u bytes used); add "
                         "explicit reserved fields so every bit is defined",
                         name, type_payload_bytes(word), elem_size);
            return;
        }
        width = elem_size * 8;
    }
    if (depth < 2 || (depth & (depth - 1))) {
        cursor_error(where, "memory-shape",
                     "memory '%s' has depth %llu: HLS_MEM depth must be a power of two >= 2",
                     name, depth);
        return;
    }
    if (width > MAX_WIDTH) {
        cursor_error(where, "memory-shape", "memory '%s' word is %u bits, over the %u-bit limit",
                     name, width, MAX_WIDTH);
        return;
    }
    mem_t m = {.name = xasprintf("st_%s", name), .width = width, .depth = (unsigned)depth,
               .offset = off, .elem_size = elem_size};
    ARR_PUSH(ifc->mems, ifc->n_mems, ctx->mcap, m);
}

static void lay_type(layout_ctx_t *ctx, CXCursor where, CXType t, const char *name, unsigned off) {
    t = clang_getCanonicalType(t);
    if (clang_isVolatileQualifiedType(t)) {
        cursor_error(where, "unsupported", "volatile field '%s': ports and registers are not "
                     "volatile memory", name);
        return;
    }
    if (t.kind == CXType_Record) {
        CXCursor decl = clang_getTypeDeclaration(t);
        if (clang_getCursorKind(decl) == CXCursor_UnionDecl) {
            cursor_error(where, "port-type", "union '%s': a port or register needs one meaning "
                         "per bit; use a struct or an integer", name);
            return;
        }
        if (is_hls_mem(t)) {
            lay_memory(ctx, where, t, name, off);
            return;
        }
        field_walk_t fw = {.ctx = ctx, .prefix = name, .base = off};
        clang_Type_visitFields(t, field_visit, &fw);
        return;
    }
    if (t.kind == CXType_ConstantArray) {
        long long n = clang_getArraySize(t);
        CXType et = clang_getArrayElementType(t);
        long long es = clang_Type_getSizeOf(et);
        if (n * es > 65536 && ctx->role != ROLE_STATE) {
            cursor_error(where, "port-type", "array '%s' is %lld bytes: too wide for ports", name,
                         n * es);
            return;
        }
        if (n > 4096) {
            cursor_error(where, "array-size", "array '%s' has %lld elements: too many registers; "
                         "use HLS_MEM for a table", name, n);
            return;
        }
        for (long long i = 0; i < n; i++) {
            char *ename = xasprintf("%s_%lld", name, i);
            lay_type(ctx, where, et, ename, off + (unsigned)(i * es));
            free(ename);
        }
        return;
    }
    if (is_float_kind(t.kind)) {
        cursor_error(where, "port-type", "floating-point field '%s': HLS-C has no floating "
                     "point; use fixed-point integers", name);
        return;
    }
    if (t.kind == CXType_Pointer) {
        cursor_error(where, "port-type", "pointer field '%s': hardware ports carry values, not "
                     "addresses", name);
        return;
    }
    bool sgn;
    unsigned w = scalar_width(t, &sgn);
    if (!w) {
        char *sp = xstrdup_cx(clang_getTypeSpelling(t));
        cursor_error(where, "port-type", "field '%s' has type '%s', which rtl-gen cannot map",
                     name, sp);
        free(sp);
        return;
    }
    if (w > MAX_WIDTH) {
        cursor_error(where, "port-type", "field '%s' is %u bits, over the %u-bit limit", name, w,
                     MAX_WIDTH);
        return;
    }
    leaf_t l = {.name = ctx->role == ROLE_STATE ? xasprintf("st_%s", name) : xstrdup(name),
                .width = w,
                .offset = off,
                .size = (unsigned)clang_Type_getSizeOf(t),
                .is_signed = sgn};
    cursor_location(where, &l.file, &l.line, &l.col);
    ARR_PUSH(ctx->leaves, ctx->n, ctx->cap, l);
}

static void lay_struct(layout_ctx_t *ctx, CXCursor where, CXType t, role_t role,
                       leaf_t **leaves, unsigned *n, unsigned *size) {
    ctx->role = role;
    ctx->leaves = NULL;
    ctx->n = ctx->cap = 0;
    field_walk_t fw = {.ctx = ctx, .prefix = "", .base = 0};
    clang_Type_visitFields(t, field_visit, &fw);
    (void)where;
    *leaves = ctx->leaves;
    *n = ctx->n;
    *size = (unsigned)clang_Type_getSizeOf(t);
}

static const leaf_t *find_leaf(const leaf_t *l, unsigned n, const char *name) {
    for (unsigned i = 0; i < n; i++)
        if (strcmp(l[i].name, name) == 0) return &l[i];
    return NULL;
}

/* X is a stream when X_valid and X_data* are on one side and X_ready (1 bit) on the other. */
static void find_streams(iface_t *ifc, CXCursor fn, const leaf_t *src, unsigned nsrc,
                         const leaf_t *other, unsigned nother, bool is_input) {
    for (unsigned i = 0; i < nsrc; i++) {
        size_t len = strlen(src[i].name);
        if (len <= 6 || strcmp(src[i].name + len - 6, "_valid") != 0 || src[i].width != 1)
            continue;
        char *base = xstrdup(src[i].name);
        base[len - 6] = 0;
        char *ready = xasprintf("%s_ready", base);
        char *data = xasprintf("%s_data", base);
        bool has_data = false;
        for (unsigned j = 0; j < nsrc; j++)
            if (strncmp(src[j].name, data, strlen(data)) == 0) has_data = true;
        const leaf_t *r = find_leaf(other, nother, ready);
        if (has_data && r) {
            if (r->width != 1) {
                cursor_error(fn, "port-type", "stream '%s': '%s' must be a bool", base, ready);
            } else {
                stream_t s = {.name = base, .is_input = is_input};
                unsigned cap = ifc->n_streams;
                ARR_PUSH(ifc->streams, ifc->n_streams, cap, s);
                base = NULL;
            }
        }
        free(base);
        free(ready);
        free(data);
    }
}

void layout_build(CXCursor fn, CXType in_t, CXType out_t, CXType st_t, iface_t *ifc) {
    layout_ctx_t ctx = {.ifc = ifc};
    ifc->top = xstrdup_cx(clang_getCursorSpelling(fn));
    lay_struct(&ctx, fn, in_t, ROLE_IN, &ifc->in, &ifc->n_in, &ifc->in_size);
    lay_struct(&ctx, fn, out_t, ROLE_OUT, &ifc->out, &ifc->n_out, &ifc->out_size);
    lay_struct(&ctx, fn, st_t, ROLE_STATE, &ifc->regs, &ifc->n_regs, &ifc->state_size);
    if (name_is_reserved(ifc->top))
        cursor_error(fn, "top-signature", "top function '%s' names the Verilog module, and "
                     "'%s' is a reserved word of Verilog, SystemVerilog or C++ (Verilator); "
                     "rename the function", ifc->top, ifc->top);
    /* streams are recognised by the final port names, so legal names come first */
    names_legalise(ifc);
    find_streams(ifc, fn, ifc->in, ifc->n_in, ifc->out, ifc->n_out, true);
    find_streams(ifc, fn, ifc->out, ifc->n_out, ifc->in, ifc->n_in, false);
}
