#include "translate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/DebugInfo.h>

#include "diag.h"
#include "util.h"

void tr_error(tr_t *t, const char *rule, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(t->file, t->line, t->col, rule, "%s", msg);
}

/* ---- value map: LLVM value -> entry ------------------------------- */
static size_t hash_ptr(const void *p) { return ((size_t)p >> 4) * 0x9E3779B97F4A7C15ull; }

entry_t *tr_lookup(tr_t *t, LLVMValueRef v, bool create) {
    if (t->map_n * 2 >= t->map_cap) {
        unsigned oc = t->map_cap;
        entry_t *old = t->map;
        t->map_cap = oc ? oc * 2 : 1024;
        t->map = xcalloc(t->map_cap, sizeof *t->map);
        t->map_n = 0;
        for (unsigned i = 0; i < oc; i++)
            if (old[i].key) *tr_lookup(t, old[i].key, true) = old[i];
        free(old);
    }
    size_t i = hash_ptr(v) & (t->map_cap - 1);
    while (t->map[i].key && t->map[i].key != v) i = (i + 1) & (t->map_cap - 1);
    if (!t->map[i].key) {
        if (!create) return NULL;
        t->map[i].key = v;
        t->map_n++;
    }
    return &t->map[i];
}

unsigned tr_type_width(tr_t *t, LLVMTypeRef ty) {
    (void)t;
    return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty) : 0;
}

const char *tr_name(LLVMValueRef v, const char *fallback) {
    size_t len;
    const char *n = LLVMGetValueName2(v, &len);
    return len ? n : fallback;
}

static val_t const_int(tr_t *t, LLVMValueRef v, unsigned w) {
    if (w <= 64) return v_u64(w, LLVMConstIntGetZExtValue(v));
    /* wider than 64 bits: the C API only gives the printed form "iN <decimal>" */
    char *s = LLVMPrintValueToString(v);
    const char *sp = strchr(s, ' ');
    bits_t b;
    if (!sp || !bits_from_decimal(&b, sp + 1, w)) {
        if (strstr(s, "true")) bits_from_u64(&b, 1);
        else if (strstr(s, "false")) bits_from_u64(&b, 0);
        else tr_error(t, "unsupported", "cannot read the constant '%s'", s);
    }
    LLVMDisposeMessage(s);
    return v_const(w, &b);
}

val_t tr_int(tr_t *t, LLVMValueRef v) {
    LLVMTypeRef ty = LLVMTypeOf(v);
    unsigned w = tr_type_width(t, ty);
    if (!w) {
        tr_error(t, "unsupported", "a non-integer value is used as an integer");
        return v_u64(1, 0);
    }
    if (LLVMIsAConstantInt(v)) return const_int(t, v, w);
    if (LLVMIsUndef(v) || LLVMIsPoison(v) || LLVMIsAConstantAggregateZero(v)) return v_u64(w, 0);
    entry_t *e = tr_lookup(t, v, false);
    if (e && e->kind == VK_INT) return e->v;
    if (LLVMIsAConstantExpr(v)) {
        tr_error(t, "unsupported", "integer computed from an address (pointer-to-integer "
                 "casts have no hardware meaning)");
        return v_u64(w, 0);
    }
    diag_internal("value used before it was translated");
}

static void set_int(tr_t *t, LLVMValueRef v, val_t x) {
    entry_t *e = tr_lookup(t, v, true);
    e->kind = VK_INT;
    e->v = x;
}

/* The file of a debug location, spelled as the user gave it: the source file exactly as on
 * the command line (clang splits an absolute or ../ path into a directory and a name, and
 * the name alone misleads), any other file (a header) by the path clang recorded, relative
 * to the current directory when it lies below it. */
static const char *user_file_name(tr_t *t, const char *dir, const char *name) {
    static const char *last_dir, *last_name, *last_result; /* one file per run of instructions */
    if (last_result && last_dir == dir && last_name == name) return last_result;
    char *full = name[0] == '/' || !dir[0] ? xstrdup(name) : xasprintf("%s/%s", dir, name);
    char *real = realpath(full, NULL), *src = realpath(t->ifc->source, NULL);
    char cwd[4096];
    const char *r;
    if (real && src && strcmp(real, src) == 0) r = t->ifc->source;
    else if (name[0] != '/' && getcwd(cwd, sizeof cwd) && strcmp(cwd, dir) == 0) r = intern(name);
    else r = intern(full);
    free(full);
    free(real);
    free(src);
    last_dir = dir;
    last_name = name;
    last_result = r;
    return r;
}

/* A location's line counted from the first line of its C function (-1 if unknown). With
 * line tables only, clang gives every location its function as scope. */
static int line_in_function(LLVMMetadataRef loc) {
    LLVMMetadataRef scope = LLVMDILocationGetScope(loc);
    if (!scope || LLVMGetMetadataKind(scope) != LLVMDISubprogramMetadataKind) return -1;
    unsigned first = LLVMDISubprogramGetLine(scope), line = LLVMDILocationGetLine(loc);
    return line && line >= first ? (int)(line - first) : -1;
}

/* The naming scope of an instruction (netlist.h): its statement, as a line of the C function
 * it was written in, and for code of an inlined function the whole call chain, "cL" per call
 * from the innermost caller out to the top function: with the innermost call alone, every
 * expansion of a helper inside one line of another helper would share one scope, and one
 * expansion more or fewer anywhere would renumber the wires of all the others. */
static bool statement_scope(netlist_t *nl, LLVMValueRef inst) {
    LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
    if (!loc) return false;
    int line = line_in_function(loc);
    if (line < 0) return false; /* line 0, "merged from several lines" */
    char chain[256] = "";
    size_t n = 0;
    for (LLVMMetadataRef at = LLVMDILocationGetInlinedAt(loc); at && n < sizeof chain - 16;
         at = LLVMDILocationGetInlinedAt(at)) {
        int call = line_in_function(at); /* -1: merged from several lines; counts as 0 */
        n += (size_t)snprintf(chain + n, sizeof chain - n, "c%d", call < 0 ? 0 : call);
    }
    nl->cur_scope = line;
    if (!n) nl->cur_call = NULL;
    else if (!nl->cur_call || strcmp(nl->cur_call, chain)) nl->cur_call = intern(chain);
    return true;
}

/* An instruction with no line of its own (a phi, a value merged from several lines) is
 * named in the statement of the next instruction of its block that has one, the statement
 * the join or merge belongs to; failing that, of the one before it in the block. Not the
 * statement translated last: that depends on the order of the blocks, which a change
 * elsewhere in the function can reshuffle, and every reader of the value would be renamed. */
static void instruction_scope(netlist_t *nl, LLVMValueRef inst) {
    if (statement_scope(nl, inst)) return;
    for (LLVMValueRef j = LLVMGetNextInstruction(inst); j; j = LLVMGetNextInstruction(j))
        if (statement_scope(nl, j)) return;
    for (LLVMValueRef j = LLVMGetPreviousInstruction(inst); j; j = LLVMGetPreviousInstruction(j))
        if (statement_scope(nl, j)) return;
}

static void set_loc(tr_t *t, LLVMValueRef inst) {
    unsigned len = 0, dlen = 0;
    const char *f = LLVMGetDebugLocFilename(inst, &len);
    if (f && len) {
        const char *d = LLVMGetDebugLocDirectory(inst, &dlen);
        char *name = xasprintf("%.*s", (int)len, f), *dir = xasprintf("%.*s", (int)dlen, d ? d : "");
        t->file = user_file_name(t, intern(dir), intern(name));
        free(name);
        free(dir);
        t->line = LLVMGetDebugLocLine(inst);
        t->col = LLVMGetDebugLocColumn(inst);
    }
    instruction_scope(&t->nl, inst);
    t->nl.cur_file = t->file;
    t->nl.cur_line = t->line;
}

/* ---- control flow: topological order, block and edge predicates ---- */
typedef struct {
    LLVMBasicBlockRef bb;
    val_t pred;
    struct out_edge { LLVMBasicBlockRef to; val_t pred; } *edges;
    unsigned n_edges, cap_edges;
    int state; /* DFS: 0 unseen, 1 on stack, 2 done */
    bool loop_reported;
    unsigned next_succ;
} block_t;

typedef struct {
    block_t *b;
    unsigned n;
} cfg_t;

static block_t *block_of(cfg_t *c, LLVMBasicBlockRef bb) {
    for (unsigned i = 0; i < c->n; i++)
        if (c->b[i].bb == bb) return &c->b[i];
    diag_internal("unknown basic block");
}

/* Reverse post-order from the entry; a successor still on the DFS stack is a
 * loop that clang could not unroll. Returns the order as block indices. */
static unsigned *topo_order(tr_t *t, cfg_t *c, unsigned *n_order) {
    unsigned *post = xcalloc(c->n, sizeof *post), np = 0;
    unsigned *stack = xcalloc(c->n + 1, sizeof *stack), sp = 0;
    stack[sp++] = 0;
    c->b[0].state = 1;
    while (sp) {
        block_t *b = &c->b[stack[sp - 1]];
        LLVMValueRef term = LLVMGetBasicBlockTerminator(b->bb);
        unsigned ns = LLVMGetNumSuccessors(term);
        if (b->next_succ < ns) {
            LLVMBasicBlockRef s = LLVMGetSuccessor(term, b->next_succ++);
            block_t *sb = block_of(c, s);
            if (sb->state == 1 && !sb->loop_reported) {
                sb->loop_reported = true;
                LLVMValueRef first = LLVMGetFirstInstruction(s);
                set_loc(t, term);
                for (LLVMValueRef i = first; i; i = LLVMGetNextInstruction(i))
                    if (LLVMGetDebugLocLine(i)) {
                        set_loc(t, i);
                        break;
                    }
                tr_error(t, "unbounded-loop",
                         "loop could not be fully unrolled: its trip count must be a "
                         "compile-time constant (at most 4096 iterations)");
            } else if (sb->state == 0) {
                sb->state = 1;
                stack[sp++] = (unsigned)(sb - c->b);
            }
        } else {
            b->state = 2;
            post[np++] = stack[--sp];
        }
    }
    for (unsigned i = 0; i < np / 2; i++) {
        unsigned x = post[i];
        post[i] = post[np - 1 - i];
        post[np - 1 - i] = x;
    }
    free(stack);
    *n_order = np;
    return post;
}

static void add_edge(tr_t *t, cfg_t *c, block_t *from, LLVMBasicBlockRef to, val_t cond) {
    val_t p = nl_and1(&t->nl, from->pred, cond);
    for (unsigned i = 0; i < from->n_edges; i++)
        if (from->edges[i].to == to) {
            from->edges[i].pred = nl_or1(&t->nl, from->edges[i].pred, p);
            goto done;
        }
    struct out_edge e = {to, p};
    ARR_PUSH(from->edges, from->n_edges, from->cap_edges, e);
done:;
    block_t *tb = block_of(c, to);
    tb->pred = nl_or1(&t->nl, tb->pred, p);
}

static val_t edge_pred(cfg_t *c, LLVMBasicBlockRef from, LLVMBasicBlockRef to) {
    block_t *fb = block_of(c, from);
    for (unsigned i = 0; i < fb->n_edges; i++)
        if (fb->edges[i].to == to) return fb->edges[i].pred;
    return v_u64(1, 0); /* from an unreachable block */
}

static void terminator(tr_t *t, cfg_t *c, block_t *b, LLVMValueRef term) {
    switch (LLVMGetInstructionOpcode(term)) {
    case LLVMBr:
        if (LLVMIsConditional(term)) {
            val_t cond = tr_int(t, LLVMGetCondition(term));
            add_edge(t, c, b, LLVMGetSuccessor(term, 0), cond);
            add_edge(t, c, b, LLVMGetSuccessor(term, 1), nl_not1(&t->nl, cond));
        } else {
            add_edge(t, c, b, LLVMGetSuccessor(term, 0), v_u64(1, 1));
        }
        break;
    case LLVMSwitch: {
        val_t x = tr_int(t, LLVMGetOperand(term, 0));
        val_t none = v_u64(1, 1);
        unsigned n = LLVMGetNumSuccessors(term);
        for (unsigned i = 1; i < n; i++) { /* operands: cond, default, (value, dest)... */
            val_t k = tr_int(t, LLVMGetOperand(term, 2 * i));
            val_t hit = nl_eq_const(&t->nl, x, k.k, "case");
            add_edge(t, c, b, LLVMGetSuccessor(term, i), hit);
            none = nl_and1(&t->nl, none, nl_not1(&t->nl, hit));
        }
        add_edge(t, c, b, LLVMGetSuccessor(term, 0), none);
        break;
    }
    case LLVMRet:
    case LLVMUnreachable:
        break;
    default:
        tr_error(t, "unsupported", "control transfer '%s' has no hardware mapping",
                 LLVMPrintValueToString(term));
    }
}

/* ---- instructions ------------------------------------------------ */
static const char *binop_text(LLVMOpcode op, bool *sign) {
    *sign = false;
    switch (op) {
    case LLVMAdd: return "+";
    case LLVMSub: return "-";
    case LLVMMul: return "*";
    case LLVMUDiv: return "/";
    case LLVMURem: return "%";
    case LLVMSDiv: *sign = true; return "/";
    case LLVMSRem: *sign = true; return "%";
    case LLVMAnd: return "&";
    case LLVMOr: return "|";
    case LLVMXor: return "^";
    case LLVMShl: return "<<";
    case LLVMLShr: return ">>";
    default: return NULL;
    }
}

/* The bit a one-hot constant selects, or -1. */
static int one_hot_bit(val_t k) {
    int bit = -1;
    for (unsigned i = 0; i < k.width; i++)
        if (bits_get_bit(k.k, i)) {
            if (bit >= 0) return -1;
            bit = (int)i;
        }
    return bit;
}

static bool all_ones(val_t k) {
    for (unsigned i = 0; i < k.width; i++)
        if (!bits_get_bit(k.k, i)) return false;
    return true;
}

/* Comparisons that test one bit, emitted as that bit: a sign test (x < 0, x > -1) is the
 * top bit, and (x & one-bit mask) == 0 is the masked bit. As full operators yosys keeps
 * them wide: a 512-bit sign test became a carry chain 30 logic levels deep. */
static bool single_bit_test(tr_t *t, LLVMValueRef inst, val_t a, val_t b, val_t *out) {
    if (!v_is_const(b) || v_is_const(a)) return false;
    LLVMIntPredicate p = LLVMGetICmpPredicate(inst);
    bool zero = bits_is_zero(b.k, b.width), ones = all_ones(b);
    if ((p == LLVMIntSLT && zero) || (p == LLVMIntSLE && ones)) {
        *out = nl_slice(&t->nl, a, a.width - 1, 1);
        return true;
    }
    if ((p == LLVMIntSGT && ones) || (p == LLVMIntSGE && zero)) {
        *out = nl_not1(&t->nl, nl_slice(&t->nl, a, a.width - 1, 1));
        return true;
    }
    LLVMValueRef x = LLVMGetOperand(inst, 0);
    if ((p != LLVMIntEQ && p != LLVMIntNE) || !zero || !LLVMIsAInstruction(x) ||
        LLVMGetInstructionOpcode(x) != LLVMAnd || !LLVMIsAConstantInt(LLVMGetOperand(x, 1)))
        return false;
    int bit = one_hot_bit(tr_int(t, LLVMGetOperand(x, 1)));
    if (bit < 0) return false;
    val_t v = nl_slice(&t->nl, tr_int(t, LLVMGetOperand(x, 0)), (unsigned)bit, 1);
    *out = p == LLVMIntNE ? v : nl_not1(&t->nl, v);
    return true;
}

static val_t icmp(tr_t *t, LLVMValueRef inst) {
    val_t a = tr_int(t, LLVMGetOperand(inst, 0)), b = tr_int(t, LLVMGetOperand(inst, 1));
    val_t bit;
    if (single_bit_test(t, inst, a, b, &bit)) return bit;
    const char *op = "==";
    bool sign = false;
    switch (LLVMGetICmpPredicate(inst)) {
    case LLVMIntEQ: op = "=="; break;
    case LLVMIntNE: op = "!="; break;
    case LLVMIntUGT: op = ">"; break;
    case LLVMIntUGE: op = ">="; break;
    case LLVMIntULT: op = "<"; break;
    case LLVMIntULE: op = "<="; break;
    case LLVMIntSGT: op = ">"; sign = true; break;
    case LLVMIntSGE: op = ">="; sign = true; break;
    case LLVMIntSLT: op = "<"; sign = true; break;
    case LLVMIntSLE: op = "<="; sign = true; break;
    }
    return nl_binop(&t->nl, op, a, b, 1, sign, tr_name(inst, "cmp"));
}

static void phi(tr_t *t, cfg_t *c, LLVMValueRef inst, LLVMBasicBlockRef bb) {
    unsigned n = LLVMCountIncoming(inst);
    LLVMTypeRef ty = LLVMTypeOf(inst);
    if (LLVMGetTypeKind(ty) == LLVMPointerTypeKind) {
        ptr_t r = {0};
        for (unsigned i = 0; i < n; i++) {
            ptr_t p;
            if (!tr_ptr(t, LLVMGetIncomingValue(inst, i), &p)) return;
            ptr_t q = ptr_restrict(t, &p, edge_pred(c, LLVMGetIncomingBlock(inst, i), bb));
            ptr_append(&r, &q);
        }
        entry_t *e = tr_lookup(t, inst, true);
        e->kind = VK_PTR;
        e->p = r;
        return;
    }
    /* last incoming is the default; earlier ones win when their edge was taken */
    val_t r = tr_int(t, LLVMGetIncomingValue(inst, n - 1));
    for (unsigned i = n - 1; i-- > 0;) {
        val_t e = edge_pred(c, LLVMGetIncomingBlock(inst, i), bb);
        r = nl_mux(&t->nl, e, tr_int(t, LLVMGetIncomingValue(inst, i)), r, tr_name(inst, "phi"));
    }
    set_int(t, inst, r);
}

static void call(tr_t *t, LLVMValueRef inst) {
    LLVMValueRef callee = LLVMGetCalledValue(inst);
    if (!LLVMIsAFunction(callee)) {
        tr_error(t, "function-pointer", "indirect call: hardware has no function pointers");
        return;
    }
    size_t len;
    const char *name = LLVMGetValueName2(callee, &len);
    if (strcmp(name, "__hls_mem_read") == 0 || strcmp(name, "__hls_mem_write") == 0) {
        tr_mem_op(t, inst, name[10] == 'w');
        return;
    }
    if (strncmp(name, "llvm.", 5) == 0 && tr_intrinsic(t, inst, name)) return;
    if (LLVMCountBasicBlocks(callee))
        tr_error(t, "recursion", "call to '%s' was not inlined (recursive, or too large to "
                 "inline): hardware has no call stack", name);
    else
        tr_error(t, "unsupported-call", "call to '%s', which has no hardware mapping", name);
}

static bool is_float_type(LLVMTypeRef ty) {
    switch (LLVMGetTypeKind(ty)) {
    case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind: case LLVMX86_FP80TypeKind: case LLVMFP128TypeKind:
    case LLVMPPC_FP128TypeKind:
        return true;
    default:
        return false;
    }
}

static void instruction(tr_t *t, cfg_t *c, LLVMValueRef inst, LLVMBasicBlockRef bb) {
    LLVMOpcode op = LLVMGetInstructionOpcode(inst);
    LLVMTypeRef ty = LLVMTypeOf(inst);
    const char *nm = tr_name(inst, NULL);
    bool sign;
    if (is_float_type(ty) || (LLVMGetNumOperands(inst) > 0 &&
                              is_float_type(LLVMTypeOf(LLVMGetOperand(inst, 0))))) {
        tr_error(t, "floating-point", "floating-point operation: HLS-C has no floating point");
        return;
    }
    if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind) {
        tr_error(t, "unsupported", "vector operation (rtl-gen maps scalar integers only)");
        return;
    }
    const char *bt = binop_text(op, &sign);
    if (op == LLVMXor) {
        if (!tr_xor_inner(inst)) set_int(t, inst, tr_xor_tree(t, inst, nm ? nm : "op"));
        return;
    }
    if (bt) {
        val_t a = tr_int(t, LLVMGetOperand(inst, 0)), b = tr_int(t, LLVMGetOperand(inst, 1));
        set_int(t, inst, nl_binop(&t->nl, bt, a, b, a.width, sign, nm ? nm : "op"));
        return;
    }
    switch (op) {
    case LLVMAShr: {
        val_t a = tr_int(t, LLVMGetOperand(inst, 0)), b = tr_int(t, LLVMGetOperand(inst, 1));
        char *ta = v_text(&t->nl, a), *tb = v_text(&t->nl, b);
        set_int(t, inst, nl_wire(&t->nl, nm ? nm : "ashr", a.width,
                                 xasprintf("$signed(%s) >>> %s", ta, tb)));
        free(ta);
        free(tb);
        return;
    }
    case LLVMICmp:
        if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(inst, 0))) != LLVMIntegerTypeKind) {
            tr_error(t, "unsupported", "comparison of addresses has no hardware meaning");
            return;
        }
        set_int(t, inst, icmp(t, inst));
        return;
    case LLVMSelect:
        if (LLVMGetTypeKind(ty) == LLVMPointerTypeKind) {
            ptr_t a, b;
            if (!tr_ptr(t, LLVMGetOperand(inst, 1), &a) || !tr_ptr(t, LLVMGetOperand(inst, 2), &b))
                return;
            entry_t *e = tr_lookup(t, inst, true);
            e->kind = VK_PTR;
            e->p = ptr_merge_select(t, tr_int(t, LLVMGetOperand(inst, 0)), &a, &b);
            return;
        }
        set_int(t, inst, nl_mux(&t->nl, tr_int(t, LLVMGetOperand(inst, 0)),
                                tr_int(t, LLVMGetOperand(inst, 1)),
                                tr_int(t, LLVMGetOperand(inst, 2)), nm ? nm : "sel"));
        return;
    case LLVMZExt:
        set_int(t, inst, nl_zext(&t->nl, tr_int(t, LLVMGetOperand(inst, 0)), tr_type_width(t, ty)));
        return;
    case LLVMSExt:
        set_int(t, inst, nl_sext(&t->nl, tr_int(t, LLVMGetOperand(inst, 0)), tr_type_width(t, ty)));
        return;
    case LLVMTrunc:
        set_int(t, inst, nl_slice(&t->nl, tr_int(t, LLVMGetOperand(inst, 0)), 0, tr_type_width(t, ty)));
        return;
    case LLVMFreeze:
    case LLVMBitCast:
        if (LLVMGetTypeKind(ty) == LLVMPointerTypeKind) {
            ptr_t p;
            if (!tr_ptr(t, LLVMGetOperand(inst, 0), &p)) return;
            entry_t *e = tr_lookup(t, inst, true);
            e->kind = VK_PTR;
            e->p = p;
            return;
        }
        set_int(t, inst, tr_int(t, LLVMGetOperand(inst, 0)));
        return;
    case LLVMPHI:
        phi(t, c, inst, bb);
        return;
    case LLVMGetElementPtr:
        tr_gep(t, inst);
        return;
    case LLVMAlloca: {
        LLVMTypeRef at = LLVMGetAllocatedType(inst);
        LLVMValueRef cnt = LLVMGetOperand(inst, 0);
        if (!LLVMIsAConstantInt(cnt)) {
            tr_error(t, "heap", "variable-size stack allocation");
            return;
        }
        unsigned long long size = LLVMABISizeOfType(t->td, at) * LLVMConstIntGetZExtValue(cnt);
        obj_t o;
        obj_init(&o, intern(tr_name(inst, "local")), (unsigned)size, false);
        ARR_PUSH(t->objs, t->n_objs, t->cap_objs, o);
        t->obj_globals = xrealloc(t->obj_globals, sizeof(LLVMValueRef) * t->cap_objs);
        t->obj_globals[t->n_objs - 1] = NULL;
        entry_t *e = tr_lookup(t, inst, true);
        e->kind = VK_PTR;
        e->p.n = 1;
        e->p.a = xcalloc(1, sizeof(alt_t));
        e->p.a[0] = (alt_t){.pred = v_u64(1, 1), .obj = (int)t->n_objs - 1};
        return;
    }
    case LLVMLoad: {
        if (LLVMGetVolatile(inst)) tr_error(t, "unsupported", "volatile load");
        ptr_t p;
        if (!tr_ptr(t, LLVMGetOperand(inst, 0), &p)) return;
        if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind) {
            tr_error(t, "unsupported", "load of a non-integer value (a pointer stored in memory?)");
            return;
        }
        /* an unnamed load takes the name of what it reads (clang names a field's address
         * after the field) */
        set_int(t, inst, tr_load(t, &p, tr_type_width(t, ty),
                                 nm ? nm : tr_name(LLVMGetOperand(inst, 0), "load")));
        return;
    }
    case LLVMStore: {
        if (LLVMGetVolatile(inst)) tr_error(t, "unsupported", "volatile store");
        LLVMValueRef v = LLVMGetOperand(inst, 0);
        if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind) {
            tr_error(t, "unsupported", "store of a non-integer value (a pointer kept in memory?)");
            return;
        }
        ptr_t p;
        if (!tr_ptr(t, LLVMGetOperand(inst, 1), &p)) return;
        tr_store(t, &p, tr_int(t, v));
        return;
    }
    case LLVMCall:
        call(t, inst);
        return;
    case LLVMExtractValue: {
        entry_t *e = tr_lookup(t, LLVMGetOperand(inst, 0), false);
        if (!e || e->kind != VK_PAIR || LLVMGetNumIndices(inst) != 1) {
            tr_error(t, "unsupported", "aggregate value (struct in a register)");
            return;
        }
        set_int(t, inst, e->pair[LLVMGetIndices(inst)[0] ? 1 : 0]);
        return;
    }
    case LLVMBr: case LLVMSwitch: case LLVMRet: case LLVMUnreachable:
        terminator(t, c, block_of(c, bb), inst);
        return;
    case LLVMPtrToInt: case LLVMIntToPtr:
        tr_error(t, "unsupported", "pointer/integer cast: addresses have no hardware meaning");
        return;
    default: {
        char *s = LLVMPrintValueToString(inst);
        tr_error(t, "unsupported", "instruction has no hardware mapping: %s", s);
        LLVMDisposeMessage(s);
    }
    }
}

/* ---- objects: the three structs ------------------------------------ */
static int new_object(tr_t *t, const char *name, unsigned size, bool ro) {
    obj_t o;
    obj_init(&o, name, size, ro);
    ARR_PUSH(t->objs, t->n_objs, t->cap_objs, o);
    t->obj_globals = xrealloc(t->obj_globals, sizeof(LLVMValueRef) * t->cap_objs);
    t->obj_globals[t->n_objs - 1] = NULL;
    return (int)t->n_objs - 1;
}

static void setup_objects(tr_t *t) {
    const iface_t *f = t->ifc;
    netlist_t *nl = &t->nl;
    new_object(t, "in", f->in_size, true);
    new_object(t, "out", f->out_size, false);
    new_object(t, "state", f->state_size, false);
    t->in_sig = xcalloc(f->n_in + 1, sizeof(int));
    t->reg_sig = xcalloc(f->n_regs + 1, sizeof(int));
    t->rdata_sig = xcalloc(f->n_mems + 1, sizeof(int));
    nl->ifc = f;
    nl_reserve(nl, f->top);
    for (unsigned k = 0; k < f->n_states; k++) nl_reserve(nl, f->states[k].name);
    nl_reserve(nl, "clk");
    nl_reserve(nl, "rst");
    for (unsigned i = 0; i < f->n_in; i++) {
        nl_reserve(nl, f->in[i].name);
        t->in_sig[i] = nl_add(nl, f->in[i].name, f->in[i].width, SIG_INPUT);
        obj_bind_signal(&t->objs[0], f->in[i].offset, f->in[i].size, nl, t->in_sig[i]);
    }
    for (unsigned i = 0; i < f->n_out; i++) nl_reserve(nl, f->out[i].name);
    for (unsigned i = 0; i < f->n_regs; i++) {
        nl_reserve(nl, f->regs[i].name);
        t->reg_sig[i] = nl_add(nl, f->regs[i].name, f->regs[i].width, SIG_REG);
        for (unsigned k = 0; k < f->n_states; k++)
            if (f->states[k].reg == i) nl->sigs[t->reg_sig[i]].fsm = i + 1;
        obj_bind_signal(&t->objs[2], f->regs[i].offset, f->regs[i].size, nl, t->reg_sig[i]);
    }
    for (unsigned i = 0; i < f->n_mems; i++) {
        const mem_t *m = &f->mems[i];
        char *rd = xasprintf("%s_rdata", m->name);
        nl_reserve(nl, rd);
        t->rdata_sig[i] = nl_add(nl, rd, m->width, SIG_RDATA);
        free(rd);
        char *names[] = {"cells", "re", "ra", "we", "wa", "wd"};
        for (unsigned k = 0; k < 6; k++) {
            char *n = xasprintf("%s_%s", m->name, names[k]);
            nl_reserve(nl, n);
            free(n);
        }
        obj_bind_signal(&t->objs[2], m->offset, m->elem_size, nl, t->rdata_sig[i]);
        obj_protect(&t->objs[2], m->offset, m->elem_size);
        obj_forbid(&t->objs[2], m->offset + m->elem_size, m->elem_size * m->depth);
    }
    t->mem = xcalloc(f->n_mems + 1, sizeof *t->mem);
    for (unsigned i = 0; i < f->n_mems; i++) {
        unsigned ab = 0;
        while ((1u << ab) < f->mems[i].depth) ab++;
        t->mem[i] = (mem_ports_t){.re = v_u64(1, 0), .ra = v_u64(ab, 0), .we = v_u64(1, 0),
                                  .wa = v_u64(ab, 0), .wd = v_u64(f->mems[i].width, 0)};
    }
}

static void collect_results(tr_t *t) {
    const iface_t *f = t->ifc;
    t->file = f->source;
    t->line = 0;
    t->nl.cur_file = NULL;
    t->nl.cur_scope = -1;
    t->nl.cur_call = NULL;
    t->out_val = xcalloc(f->n_out + 1, sizeof(val_t));
    t->reg_next = xcalloc(f->n_regs + 1, sizeof(val_t));
    /* named after what they feed (OUT_out_K, st_REG_next_K), so one result's wires keep
     * their names when another's change */
    for (unsigned i = 0; i < f->n_out; i++) {
        char *n = xasprintf("%s_out", f->out[i].name);
        t->nl.cur_result = n;
        t->out_val[i] = obj_load(&t->nl, &t->objs[1], f->out[i].offset, f->out[i].width);
        free(n);
    }
    for (unsigned i = 0; i < f->n_regs; i++) {
        char *n = xasprintf("%s_next", f->regs[i].name);
        t->nl.cur_result = n;
        t->reg_next[i] = obj_load(&t->nl, &t->objs[2], f->regs[i].offset, f->regs[i].width);
        free(n);
    }
    t->nl.cur_result = NULL;
}

/* A block that post-dominates its immediate dominator runs exactly when the
 * dominator runs, so it inherits the dominator's predicate instead of an OR
 * of edge predicates: the join after an if/else costs no logic.
 * Returns, per topological position, the position of the block whose
 * predicate it shares, or -1. */
static int *shared_predicates(cfg_t *c, const unsigned *order, unsigned n) {
    int *pos = xcalloc(c->n, sizeof(int));
    for (unsigned i = 0; i < c->n; i++) pos[i] = -1;
    for (unsigned k = 0; k < n; k++) pos[order[k]] = (int)k;
    int *idom = xcalloc(n, sizeof(int)), *ipdom = xcalloc(n + 1, sizeof(int));
    /* successor lists by position; position n is a virtual exit */
    unsigned **succ = xcalloc(n, sizeof(unsigned *)), *nsucc = xcalloc(n, sizeof(unsigned));
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef term = LLVMGetBasicBlockTerminator(c->b[order[k]].bb);
        unsigned ns = LLVMGetNumSuccessors(term);
        succ[k] = xcalloc(ns + 1, sizeof(unsigned));
        for (unsigned i = 0; i < ns; i++) {
            int p = pos[block_of(c, LLVMGetSuccessor(term, i)) - c->b];
            if (p > (int)k) succ[k][nsucc[k]++] = (unsigned)p;
        }
        if (!nsucc[k]) succ[k][nsucc[k]++] = n;
    }
    /* dominators: a DAG in topological order needs one pass */
    idom[0] = 0;
    for (unsigned k = 1; k < n; k++) idom[k] = -1;
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < nsucc[k]; i++) {
            unsigned sb = succ[k][i];
            if (sb == n) continue;
            if (idom[sb] < 0) { idom[sb] = (int)k; continue; }
            int a = idom[sb], b = (int)k;
            while (a != b) {
                while (a > b) a = idom[a];
                while (b > a) b = idom[b];
            }
            idom[sb] = a;
        }
    /* post-dominators: the same over successors in reverse order */
    ipdom[n] = (int)n;
    for (unsigned k = n; k-- > 0;) {
        int a = (int)succ[k][0];
        for (unsigned i = 1; i < nsucc[k]; i++) {
            int b = (int)succ[k][i];
            while (a != b) {
                while (a < b) a = ipdom[a];
                while (b < a) b = ipdom[b];
            }
        }
        ipdom[k] = a;
    }
    int *share = xcalloc(n, sizeof(int));
    for (unsigned k = 0; k < n; k++) {
        share[k] = -1;
        if (k == 0 || idom[k] < 0) continue;
        for (int d = idom[(int)k]; d < (int)n;) { /* does k post-dominate idom(k)? */
            int x = d;
            while (x < (int)k) x = ipdom[x];
            if (x == (int)k) share[k] = d;
            break;
        }
    }
    for (unsigned k = 0; k < n; k++) free(succ[k]);
    free(succ);
    free(nsucc);
    free(idom);
    free(ipdom);
    free(pos);
    return share;
}

void translate(tr_t *t, LLVMValueRef fn) {
    t->nl.cur_scope = -1;
    t->nl.cur_call = NULL;
    setup_objects(t);
    unsigned nb = LLVMCountBasicBlocks(fn);
    cfg_t c = {.b = xcalloc(nb, sizeof(block_t)), .n = nb};
    LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn);
    for (unsigned i = 0; bb; bb = LLVMGetNextBasicBlock(bb), i++) {
        c.b[i].bb = bb;
        c.b[i].pred = v_u64(1, i == 0);
    }
    t->file = t->ifc->source;
    unsigned n_order;
    unsigned *order = topo_order(t, &c, &n_order);
    if (diag_count()) return;
    int *share = shared_predicates(&c, order, n_order);
    for (unsigned k = 0; k < n_order; k++) {
        block_t *b = &c.b[order[k]];
        if (share[k] >= 0) b->pred = c.b[order[share[k]]].pred;
        t->block_pred = b->pred;
        for (LLVMValueRef i = LLVMGetFirstInstruction(b->bb); i; i = LLVMGetNextInstruction(i)) {
            set_loc(t, i);
            instruction(t, &c, i, b->bb);
            /* Stop at the first error: the instructions after it would read values it
             * never defined, and their errors would only echo it. */
            if (diag_count()) {
                free(order);
                free(share);
                return;
            }
        }
    }
    free(order);
    free(share);
    collect_results(t);
}
