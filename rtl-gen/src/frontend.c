#include "frontend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

char *xstrdup_cx(CXString s) {
    char *r = xstrdup(clang_getCString(s) ? clang_getCString(s) : "");
    clang_disposeString(s);
    return r;
}

/* Interned file names so locations outlive the translation unit. */
void cursor_location(CXCursor c, const char **file, unsigned *line, unsigned *col) {
    CXFile f;
    clang_getSpellingLocation(clang_getCursorLocation(c), &f, line, col, NULL);
    *file = f ? intern(clang_getCString(clang_getFileName(f))) : "<unknown>";
}

void cursor_error(CXCursor c, const char *rule, const char *fmt, ...) {
    const char *file;
    unsigned line, col;
    char msg[1024];
    va_list ap;
    cursor_location(c, &file, &line, &col);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(file, line, col, rule, "%s", msg);
}

typedef struct {
    const char *name;
    CXCursor found;
    int have;
} find_top_t;

static enum CXChildVisitResult find_top(CXCursor c, CXCursor parent, CXClientData d) {
    find_top_t *ft = d;
    (void)parent;
    if (clang_getCursorKind(c) == CXCursor_FunctionDecl && clang_isCursorDefinition(c)) {
        char *n = xstrdup_cx(clang_getCursorSpelling(c));
        if (strcmp(n, ft->name) == 0) {
            ft->found = c;
            ft->have = 1;
        }
        free(n);
    }
    return CXChildVisit_Continue;
}

/* param i must be a pointer to a struct; returns the struct type */
static bool struct_param(CXCursor fn, int i, bool want_const, CXType *out) {
    static const char *role[] = {"input-port struct (const IN *)", "output-port struct (OUT *)",
                                 "state struct (STATE *)"};
    CXCursor p = clang_Cursor_getArgument(fn, (unsigned)i);
    CXType t = clang_getCanonicalType(clang_getCursorType(p));
    if (t.kind != CXType_Pointer) {
        cursor_error(p, "top-signature", "parameter %d must be a pointer to the %s", i + 1,
                     role[i]);
        return false;
    }
    CXType pt = clang_getPointeeType(t);
    if (clang_getCanonicalType(pt).kind != CXType_Record) {
        cursor_error(p, "top-signature", "parameter %d must point to a struct (the %s)", i + 1,
                     role[i]);
        return false;
    }
    if (want_const != (clang_isConstQualifiedType(pt) != 0)) {
        cursor_error(p, "top-signature", "parameter %d: the %s %s be const", i + 1, role[i],
                     want_const ? "must" : "must not");
        return false;
    }
    *out = clang_getCanonicalType(pt);
    return true;
}

bool frontend_run(const frontend_opts_t *o, iface_t *ifc) {
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(
        idx, o->file, o->clang_args, o->n_clang_args, NULL, 0,
        CXTranslationUnit_None, &tu);
    if (ec != CXError_Success || !tu) {
        fprintf(stderr, "rtl-gen: cannot parse %s (libclang error %d)\n", o->file, (int)ec);
        return false;
    }
    /* C errors first: a file that is not valid C is not HLS-C either. */
    unsigned nd = clang_getNumDiagnostics(tu), fatal = 0;
    for (unsigned i = 0; i < nd; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            CXString s = clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation |
                                                       CXDiagnostic_DisplayColumn);
            fprintf(stderr, "%s\n", clang_getCString(s));
            clang_disposeString(s);
            fatal++;
        }
        clang_disposeDiagnostic(d);
    }
    if (fatal) {
        fprintf(stderr, "rtl-gen: %s is not valid C\n", o->file);
        exit(1);
    }
    find_top_t ft = {.name = o->top};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), find_top, &ft);
    if (!ft.have) {
        diag_error(o->file, 1, 1, "top-signature", "no function definition named '%s'", o->top);
        return true;
    }
    CXCursor fn = ft.found;
    CXType rt = clang_getCanonicalType(clang_getResultType(clang_getCursorType(fn)));
    int nargs = clang_Cursor_getNumArguments(fn);
    if (rt.kind != CXType_Void || nargs != 3) {
        cursor_error(fn, "top-signature",
                     "top function '%s' must be void %s(const IN *in, OUT *out, STATE *state)",
                     o->top, o->top);
        return true;
    }
    CXType tin, tout, tst;
    bool ok = struct_param(fn, 0, true, &tin);
    ok = struct_param(fn, 1, false, &tout) && ok;
    ok = struct_param(fn, 2, false, &tst) && ok;
    source_rules_check(tu, fn);
    if (ok) layout_build(fn, tin, tout, tst, ifc);
    if (ok) fsm_states_find(tu, tst, ifc);
    ifc->top = xstrdup(o->top);
    ifc->source = xstrdup(o->file);
    /* The TU is kept alive: locations were interned, nothing else refers to it. */
    clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    return true;
}
