/* xor_tree.c — XOR chains as balanced trees.
 * LLVM's reassociation turns every XOR expression tree into a left-leaning chain, and a
 * chain is as deep in hardware as it is long: a 512-input parity written any way in C
 * arrives as 511 XOR gates in series, and yosys/ABC do not rebalance XOR chains (ABC's
 * balancing works on AND trees, so AND/OR chains are left to it: it knows the arrival
 * times, and balancing them here made the completer 3 levels deeper). So an inner XOR
 * whose only use is another XOR is not emitted on its own; the outermost one gathers the
 * leaves, in source order, and emits a tree of depth ceil(log2(leaves)). The function is
 * the same: XOR is associative and commutative, and the inner nodes had no other reader. */
#include <stdlib.h>

#include "translate.h"
#include "util.h"

bool tr_xor_inner(LLVMValueRef inst) {
    LLVMOpcode op = LLVMGetInstructionOpcode(inst);
    if (op != LLVMXor) return false;
    LLVMUseRef u = LLVMGetFirstUse(inst);
    if (!u || LLVMGetNextUse(u)) return false;
    LLVMValueRef user = LLVMGetUser(u);
    return LLVMIsAInstruction(user) && LLVMGetInstructionOpcode(user) == op &&
           LLVMTypeOf(user) == LLVMTypeOf(inst);
}

typedef struct {
    val_t *v;
    unsigned n, cap;
} leaves_t;

static void gather(tr_t *t, LLVMValueRef v, LLVMOpcode op, leaves_t *l) {
    if (LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == op && tr_xor_inner(v)) {
        gather(t, LLVMGetOperand(v, 0), op, l);
        gather(t, LLVMGetOperand(v, 1), op, l);
        return;
    }
    ARR_PUSH(l->v, l->n, l->cap, tr_int(t, v));
}

val_t tr_xor_tree(tr_t *t, LLVMValueRef root, const char *name) {
    LLVMOpcode op = LLVMXor;
    leaves_t l = {0};
    gather(t, LLVMGetOperand(root, 0), op, &l);
    gather(t, LLVMGetOperand(root, 1), op, &l);
    while (l.n > 2) { /* one level of the tree: neighbours pair up, an odd last one waits */
        unsigned m = 0;
        for (unsigned i = 0; i + 1 < l.n; i += 2)
            l.v[m++] = nl_binop(&t->nl, "^", l.v[i], l.v[i + 1], l.v[i].width, false, "xor");
        if (l.n & 1) l.v[m++] = l.v[l.n - 1];
        l.n = m;
    }
    val_t r = nl_binop(&t->nl, "^", l.v[0], l.v[1], l.v[0].width, false, name);
    free(l.v);
    return r;
}
