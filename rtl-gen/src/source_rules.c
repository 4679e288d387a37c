/* source_rules.c — the HLS-C rules that are best judged on the C source:
 * floating point, heap, recursion, function pointers, mutable globals,
 * calls to functions without a body, inline assembly. Only code reachable
 * from the top function is judged, so a file may carry a native test main(). */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "frontend.h"
#include "util.h"

#define MAX_FUNCS 1024

typedef struct {
    CXCursor fn[MAX_FUNCS];
    unsigned n;
    /* call edges for the recursion check: caller index -> callee index, call site */
    struct edge { unsigned from, to; CXCursor site; } *edges;
    unsigned n_edges, cap_edges;
    unsigned current;
    const char **reported; /* globals already reported, one error each */
    unsigned n_reported, cap_reported;
} walk_t;

static bool is_float_kind(enum CXTypeKind k) {
    return k == CXType_Float || k == CXType_Double || k == CXType_LongDouble ||
           k == CXType_Half || k == CXType_Float16 || k == CXType_Float128 ||
           k == CXType_BFloat16;
}

static bool type_has_float(CXType t) {
    t = clang_getCanonicalType(t);
    if (is_float_kind(t.kind)) return true;
    if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray)
        return type_has_float(clang_getArrayElementType(t));
    return false;
}

static bool is_function_pointer(CXType t) {
    t = clang_getCanonicalType(t);
    if (t.kind != CXType_Pointer) return false;
    CXType p = clang_getCanonicalType(clang_getPointeeType(t));
    return p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto;
}

static unsigned func_index(walk_t *w, CXCursor def) {
    for (unsigned i = 0; i < w->n; i++)
        if (clang_equalCursors(w->fn[i], def)) return i;
    if (w->n == MAX_FUNCS) diag_internal("more than %d functions", MAX_FUNCS);
    w->fn[w->n] = def;
    return w->n++;
}

static bool already_reported(walk_t *w, const char *key) {
    for (unsigned i = 0; i < w->n_reported; i++)
        if (w->reported[i] == key) return true;
    ARR_PUSH(w->reported, w->n_reported, w->cap_reported, key);
    return false;
}

static const char *const heap_functions[] = {"malloc", "calloc", "realloc", "free",
                                             "aligned_alloc", "alloca", "__builtin_alloca",
                                             "posix_memalign", NULL};
/* Calls without a body that become plain logic: the memory intrinsics and memcpy family,
 * and the builtins docs/hls-c.md lists. Those come in families with a type suffix
 * (__builtin_clz, clzl, clzll, clzg; bswap16..64; rotateleft8..64), so a family is named
 * once and any suffix of lower-case letters and digits is accepted: clang itself rejects a
 * suffix that does not exist, and the IR pass maps every llvm.* intrinsic they lower to. */
static const char *const allowed_calls[] = {
    "__hls_mem_read", "__hls_mem_write", "memcpy", "memset", "memmove", "__builtin_memcpy",
    "__builtin_memset", "__builtin_memmove", "__builtin_expect", "__builtin_assume",
    "__builtin_unreachable", "__builtin_add_overflow", "__builtin_sub_overflow",
    "__builtin_mul_overflow", NULL};
static const char *const allowed_families[] = {
    "__builtin_popcount", "__builtin_clz", "__builtin_ctz", "__builtin_parity",
    "__builtin_bswap", "__builtin_bitreverse", "__builtin_rotateleft", "__builtin_rotateright",
    /* typed overflow forms: __builtin_uadd_overflow, __builtin_smulll_overflow, ... */
    "__builtin_uadd", "__builtin_usub", "__builtin_umul", "__builtin_sadd", "__builtin_ssub",
    "__builtin_smul", NULL};

static bool is_allowed_builtin(const char *name) {
    for (const char *const *c = allowed_calls; *c; c++)
        if (strcmp(name, *c) == 0) return true;
    for (const char *const *f = allowed_families; *f; f++) {
        size_t n = strlen(*f);
        if (strncmp(name, *f, n) != 0) continue;
        const char *rest = name + n;
        bool overflow_form = strncmp(*f, "__builtin_u", 11) == 0 || strncmp(*f, "__builtin_s", 11) == 0;
        size_t len = strlen(rest);
        if (overflow_form) {
            if (len < 9 || strcmp(rest + len - 9, "_overflow") != 0) continue;
            len -= 9;
        }
        bool ok = true;
        for (size_t i = 0; i < len; i++)
            if (!((rest[i] >= 'a' && rest[i] <= 'z') || (rest[i] >= '0' && rest[i] <= '9'))) ok = false;
        if (ok) return true;
    }
    return false;
}

static bool in_list(const char *name, const char *const *list) {
    for (; *list; list++)
        if (strcmp(name, *list) == 0) return true;
    return false;
}

static void check_call(walk_t *w, CXCursor call) {
    CXCursor callee = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_FunctionDecl) {
        cursor_error(call, "function-pointer", "call through a function pointer: hardware has "
                     "no indirect calls; call the function by name or switch on a selector");
        return;
    }
    char *name = xstrdup_cx(clang_getCursorSpelling(callee));
    if (in_list(name, heap_functions)) {
        cursor_error(call, "heap", "call to '%s': HLS-C has no heap; use fixed-size arrays, "
                     "state registers or HLS_MEM", name);
    } else {
        CXCursor def = clang_getCursorDefinition(callee);
        if (!clang_Cursor_isNull(def)) {
            struct edge e = {w->current, func_index(w, def), call};
            ARR_PUSH(w->edges, w->n_edges, w->cap_edges, e);
        } else if (!is_allowed_builtin(name)) {
            cursor_error(call, "unsupported-call", "call to '%s', which has no body in this "
                         "program: only functions rtl-gen can inline become hardware", name);
        }
    }
    free(name);
}

static void check_var_ref(walk_t *w, CXCursor ref) {
    CXCursor v = clang_getCursorReferenced(ref);
    if (clang_getCursorKind(v) != CXCursor_VarDecl) return;
    if (clang_Cursor_hasVarDeclGlobalStorage(v) != 1) return;
    /* const may sit on the array or on its elements */
    CXType t = clang_getCursorType(v);
    for (;;) {
        if (clang_isConstQualifiedType(t) || clang_isConstQualifiedType(clang_getCanonicalType(t)))
            return;
        CXType c = clang_getCanonicalType(t);
        if (c.kind != CXType_ConstantArray && c.kind != CXType_IncompleteArray) break;
        t = clang_getArrayElementType(c);
    }
    const char *file;
    unsigned line, col;
    cursor_location(v, &file, &line, &col);
    char *name = xstrdup_cx(clang_getCursorSpelling(v));
    char *key = xasprintf("%s:%u:%s", file, line, name);
    if (!already_reported(w, intern(key)))
        diag_error(file, line, col, "mutable-global",
                   "'%s' is a mutable %s variable: state must live in the state struct "
                   "(registers) so it is reset, migrated and visible; make tables const",
                   name, clang_getCursorSemanticParent(v).kind == CXCursor_TranslationUnit
                             ? "global" : "static");
    free(key);
    free(name);
}

static enum CXChildVisitResult last_expr(CXCursor c, CXCursor parent, CXClientData d) {
    (void)parent;
    if (clang_isExpression(clang_getCursorKind(c))) *(CXCursor *)d = c;
    return CXChildVisit_Continue;
}

/* Does a pointer type point at something const (at any level of arrays)? */
static bool points_to_const(CXType t) {
    t = clang_getCanonicalType(t);
    if (t.kind != CXType_Pointer) return false;
    return clang_isConstQualifiedType(clang_getPointeeType(t));
}

/* A cast that drops const from a pointer, `(uint8_t *)table`, is how C lets a store reach a
 * constant table or the input struct. clang deletes such a store (it is undefined) and the
 * native model crashes on it, so the hardware and the C would disagree: reject the cast. */
static void check_cast(CXCursor cast) {
    CXType to = clang_getCursorType(cast);
    if (clang_getCanonicalType(to).kind != CXType_Pointer || points_to_const(to)) return;
    CXCursor operand = clang_getNullCursor();
    clang_visitChildren(cast, last_expr, &operand);
    if (clang_Cursor_isNull(operand) || !points_to_const(clang_getCursorType(operand))) return;
    char *from = xstrdup_cx(clang_getTypeSpelling(clang_getCursorType(operand)));
    char *dest = xstrdup_cx(clang_getTypeSpelling(to));
    cursor_error(cast, "unsupported", "cast from '%s' to '%s' drops const: a store through it "
                 "would write a constant table (ROM) or an input port, which hardware cannot; "
                 "keep the pointer const", from, dest);
    free(from);
    free(dest);
}

static enum CXChildVisitResult first_expr(CXCursor c, CXCursor parent, CXClientData d) {
    (void)parent;
    if (!clang_isExpression(clang_getCursorKind(c))) return CXChildVisit_Continue;
    *(CXCursor *)d = c;
    return CXChildVisit_Break;
}

/* Comparing or subtracting two addresses asks where objects lie, and hardware has wires,
 * not addresses. clang often folds such a test into the selector that chose the pointer,
 * but not always, so the rule is judged on the source, the same for every spelling. */
static void check_address_arithmetic(CXCursor op) {
    enum CXBinaryOperatorKind k = clang_getCursorBinaryOperatorKind(op);
    bool compare = k >= CXBinaryOperator_LT && k <= CXBinaryOperator_NE;
    if (!compare && k != CXBinaryOperator_Sub) return;
    CXCursor lhs = clang_getNullCursor(), rhs = clang_getNullCursor();
    clang_visitChildren(op, first_expr, &lhs);
    clang_visitChildren(op, last_expr, &rhs);
    if (clang_Cursor_isNull(lhs) || clang_Cursor_isNull(rhs)) return;
    if (clang_getCanonicalType(clang_getCursorType(lhs)).kind != CXType_Pointer ||
        clang_getCanonicalType(clang_getCursorType(rhs)).kind != CXType_Pointer)
        return;
    cursor_error(op, "unsupported", "%s of two addresses: hardware has wires, not addresses; "
                 "%s", compare ? "comparison" : "difference",
                 compare ? "test the condition that chose the pointer instead"
                         : "keep the index instead of the pointer");
}

static enum CXChildVisitResult visit_body(CXCursor c, CXCursor parent, CXClientData d) {
    walk_t *w = d;
    (void)parent;
    enum CXCursorKind k = clang_getCursorKind(c);
    CXType t = clang_getCursorType(c);
    if (k == CXCursor_AsmStmt || k == CXCursor_MSAsmStmt) {
        cursor_error(c, "unsupported", "inline assembly has no hardware meaning");
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_CStyleCastExpr) check_cast(c);
    if (k == CXCursor_BinaryOperator) check_address_arithmetic(c);
    if (k == CXCursor_CallExpr) {
        check_call(w, c);
    } else if (k == CXCursor_DeclRefExpr) {
        check_var_ref(w, c);
        CXCursor r = clang_getCursorReferenced(c);
        /* a function named without being called directly: its address is taken */
        if (clang_getCursorKind(r) == CXCursor_FunctionDecl &&
            clang_getCursorKind(parent) != CXCursor_UnexposedExpr &&
            clang_getCursorKind(parent) != CXCursor_CallExpr) {
            cursor_error(c, "function-pointer", "address of a function taken: hardware has no "
                         "function pointers");
        }
    } else if (k == CXCursor_VarDecl) {
        if (clang_Cursor_hasVarDeclGlobalStorage(c) == 1) check_var_ref(w, c);
        if (clang_getCanonicalType(t).kind == CXType_VariableArray) {
            cursor_error(c, "heap", "variable-length array: sizes must be compile-time constants");
            return CXChildVisit_Continue;
        }
    }
    if (type_has_float(t)) {
        cursor_error(c, "floating-point", "floating-point value: HLS-C has no floating point; "
                     "use fixed-point integers");
        return CXChildVisit_Continue; /* one error per expression tree */
    }
    if (is_function_pointer(t) && k != CXCursor_UnexposedExpr) {
        cursor_error(c, "function-pointer", "function pointer: hardware has no indirect calls");
        return CXChildVisit_Continue;
    }
    if (clang_isVolatileQualifiedType(t) && (k == CXCursor_VarDecl || k == CXCursor_ParmDecl)) {
        cursor_error(c, "unsupported", "volatile object: a cycle function has no side channels");
    }
    return CXChildVisit_Recurse;
}

/* Report one cycle in the call graph per function in it. */
static void check_recursion(walk_t *w) {
    /* colours: 0 = unseen, 1 = on stack, 2 = done; iterative DFS over edges */
    unsigned char *colour = xcalloc(w->n, 1);
    unsigned *stack = xcalloc(w->n + 1, sizeof *stack), *next_edge = xcalloc(w->n, sizeof(unsigned));
    unsigned sp = 0;
    stack[sp++] = 0;
    colour[0] = 1;
    while (sp) {
        unsigned f = stack[sp - 1];
        bool pushed = false;
        while (next_edge[f] < w->n_edges) {
            struct edge *e = &w->edges[next_edge[f]++];
            if (e->from != f) continue;
            if (colour[e->to] == 1) {
                char *callee = xstrdup_cx(clang_getCursorSpelling(w->fn[e->to]));
                cursor_error(e->site, "recursion", "call to '%s' closes a recursive cycle: "
                             "hardware has no call stack; rewrite as a bounded loop", callee);
                free(callee);
            } else if (colour[e->to] == 0) {
                colour[e->to] = 1;
                stack[sp++] = e->to;
                pushed = true;
                break;
            }
        }
        if (!pushed) {
            colour[f] = 2;
            sp--;
        }
    }
    free(colour);
    free(stack);
    free(next_edge);
}

void source_rules_check(CXTranslationUnit tu, CXCursor top) {
    (void)tu;
    walk_t w = {.n = 0};
    func_index(&w, top);
    for (unsigned i = 0; i < w.n; i++) { /* w.n grows as callees are found */
        w.current = i;
        clang_visitChildren(w.fn[i], visit_body, &w);
    }
    check_recursion(&w);
    free(w.edges);
    free(w.reported);
}
