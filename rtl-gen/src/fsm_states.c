/* fsm_states.c — named FSM states. A state register the C compares, switches on or assigns
 * with enum constants (st->phase == CP_IDLE, switch (st->phase) { case CP_EVAL: ... },
 * st->phase = CP_DISPATCH) is an FSM state register; its states get Verilog localparams of
 * the enum constants' names, and comparisons of the register against them print the name
 * instead of a number (netlist.c). The values come from the C, so the Verilog stays exact.
 * A register with two names for one value, or a value too wide for it, keeps plain numbers:
 * a name must say one thing. */
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "names.h"
#include "util.h"

typedef struct {
    iface_t *ifc;
    CXCursor state_decl;  /* the state struct's declaration (canonical) */
    int switch_reg;       /* register the innermost enclosing switch tests, or -1 */
} fsm_walk_t;

/* The expression under implicit conversions, parentheses and casts. */
static CXCursor strip(CXCursor c);

static enum CXChildVisitResult last_expr(CXCursor c, CXCursor parent, CXClientData d) {
    (void)parent;
    if (clang_isExpression(clang_getCursorKind(c))) *(CXCursor *)d = c;
    return CXChildVisit_Continue;
}

static CXCursor strip(CXCursor c) {
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr)
            return c;
        CXCursor inner = clang_getNullCursor();
        clang_visitChildren(c, last_expr, &inner);
        if (clang_Cursor_isNull(inner)) return c;
        c = inner;
    }
}

/* Register index of a top-level scalar field of the state struct (st->phase), or -1. */
static int field_reg(const fsm_walk_t *w, CXCursor c) {
    c = strip(c);
    if (clang_getCursorKind(c) != CXCursor_MemberRefExpr) return -1;
    CXCursor f = clang_getCursorReferenced(c);
    if (clang_getCursorKind(f) != CXCursor_FieldDecl) return -1;
    CXCursor parent = clang_getCanonicalCursor(clang_getCursorSemanticParent(f));
    if (!clang_equalCursors(parent, w->state_decl)) return -1;
    char *fname = xstrdup_cx(clang_getCursorSpelling(f));
    char *rname = xasprintf("st_%s", fname);
    int r = -1;
    for (unsigned i = 0; i < w->ifc->n_regs; i++)
        if (!strcmp(w->ifc->regs[i].name, rname)) r = (int)i;
    free(fname);
    free(rname);
    return r;
}

static void add_state(fsm_walk_t *w, int reg, CXCursor c) {
    c = strip(c);
    if (reg < 0 || clang_getCursorKind(c) != CXCursor_DeclRefExpr) return;
    CXCursor e = clang_getCursorReferenced(c);
    if (clang_getCursorKind(e) != CXCursor_EnumConstantDecl) return;
    char *name = xstrdup_cx(clang_getCursorSpelling(e));
    unsigned long long v = clang_getEnumConstantDeclUnsignedValue(e);
    iface_t *ifc = w->ifc;
    for (unsigned i = 0; i < ifc->n_states; i++)
        if (ifc->states[i].reg == (unsigned)reg && !strcmp(ifc->states[i].name, name)) {
            free(name);
            return;
        }
    fsm_state_t s = {(unsigned)reg, name, v};
    ARR_PUSH(ifc->states, ifc->n_states, ifc->cap_states, s);
}

typedef struct { CXCursor a[2]; unsigned n; } two_t;

static enum CXChildVisitResult first_two(CXCursor c, CXCursor parent, CXClientData d) {
    (void)parent;
    two_t *t = d;
    if (t->n < 2 && clang_isExpression(clang_getCursorKind(c))) t->a[t->n++] = c;
    return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d) {
    (void)parent;
    fsm_walk_t *w = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_BinaryOperator) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
        if (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE ||
            op == CXBinaryOperator_Assign) {
            two_t t = {.n = 0};
            clang_visitChildren(c, first_two, &t);
            if (t.n == 2) {
                add_state(w, field_reg(w, t.a[0]), t.a[1]);
                add_state(w, field_reg(w, t.a[1]), t.a[0]);
            }
        }
    } else if (k == CXCursor_SwitchStmt) {
        two_t t = {.n = 0};
        clang_visitChildren(c, first_two, &t);
        int saved = w->switch_reg;
        w->switch_reg = t.n ? field_reg(w, t.a[0]) : -1;
        clang_visitChildren(c, visit, w);
        w->switch_reg = saved;
        return CXChildVisit_Continue;
    } else if (k == CXCursor_CaseStmt && w->switch_reg >= 0) {
        two_t t = {.n = 0};
        clang_visitChildren(c, first_two, &t);
        if (t.n) add_state(w, w->switch_reg, t.a[0]);
    }
    return CXChildVisit_Recurse;
}

static int by_reg_value(const void *a, const void *b) {
    const fsm_state_t *x = a, *y = b;
    if (x->reg != y->reg) return x->reg < y->reg ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Drop every state of a register whose names are not one per value and fit its width, or
 * whose names are reserved words (names.c). One name may serve registers of one width (one
 * localparam); a register of another width keeps numbers. Sorted by register, then value. */
static void keep_unambiguous(iface_t *ifc) {
    bool *bad = xcalloc(ifc->n_regs + 1, sizeof(bool));
    for (unsigned i = 0; i < ifc->n_states; i++) {
        const fsm_state_t *s = &ifc->states[i];
        unsigned w = ifc->regs[s->reg].width;
        if ((w < 64 && s->value >> w) || name_is_reserved(s->name)) bad[s->reg] = true;
        for (unsigned j = 0; j < i; j++) {
            const fsm_state_t *o = &ifc->states[j];
            if (o->reg == s->reg && o->value == s->value) bad[s->reg] = true;
            if (o->reg != s->reg && !strcmp(o->name, s->name) && ifc->regs[o->reg].width != w)
                bad[s->reg] = true;
        }
    }
    unsigned n = 0;
    for (unsigned i = 0; i < ifc->n_states; i++)
        if (!bad[ifc->states[i].reg]) ifc->states[n++] = ifc->states[i];
        else free(ifc->states[i].name);
    ifc->n_states = n;
    free(bad);
    qsort(ifc->states, ifc->n_states, sizeof *ifc->states, by_reg_value);
}

void fsm_states_find(CXTranslationUnit tu, CXType state_t, iface_t *ifc) {
    CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(state_t));
    fsm_walk_t w = {.ifc = ifc, .state_decl = clang_getCanonicalCursor(decl), .switch_reg = -1};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &w);
    keep_unambiguous(ifc);
}
