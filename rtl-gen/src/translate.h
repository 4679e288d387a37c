/* translate.h — LLVM IR of one cycle function -> netlist.
 * The function is acyclic after unrolling; blocks are visited in topological
 * order, each with a predicate (the condition under which it runs). Values
 * become wires, phis become muxes on edge predicates, stores become
 * predicated byte updates of the objects (objects.h). */
#ifndef RTLGEN_TRANSLATE_H
#define RTLGEN_TRANSLATE_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "iface.h"
#include "netlist.h"
#include "objects.h"

/* One place a pointer may point: predicate, object, constant + dynamic offset. */
typedef struct {
    val_t pred;         /* 1 bit: this alternative is the one */
    int obj;
    long long coff;     /* constant byte offset */
    bool has_dyn;
    val_t dyn;          /* 64-bit dynamic byte offset */
    bool bounded;       /* dyn is known to lie in [dlo, dhi] */
    long long dlo, dhi, dstep;
} alt_t;

typedef struct {
    alt_t *a;
    unsigned n;
} ptr_t;

typedef enum { VK_NONE, VK_INT, VK_PTR, VK_PAIR } vkind_t;

typedef struct {
    LLVMValueRef key;
    vkind_t kind;
    val_t v;
    ptr_t p;
    val_t pair[2];      /* {result, overflow} of *.with.overflow */
} entry_t;

/* The ports of one memory after translation. */
typedef struct {
    val_t re, ra, we, wa, wd;
} mem_ports_t;

typedef struct {
    netlist_t nl;
    const iface_t *ifc;
    LLVMModuleRef mod;
    LLVMTargetDataRef td;
    obj_t *objs;
    unsigned n_objs, cap_objs;
    LLVMValueRef *obj_globals; /* which global each object came from (NULL: not a global) */
    entry_t *map;
    unsigned map_cap, map_n;
    mem_ports_t *mem;
    val_t *out_val, *reg_next;
    int *in_sig, *reg_sig, *rdata_sig;
    const char *file;   /* location of the instruction being translated */
    unsigned line, col;
    val_t block_pred;   /* predicate of the block being translated */
} tr_t;

/* Translate the top function; fills out_val, reg_next and mem. */
void translate(tr_t *t, LLVMValueRef fn);

/* translate.c */
void tr_error(tr_t *t, const char *rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
entry_t *tr_lookup(tr_t *t, LLVMValueRef v, bool create);
val_t tr_int(tr_t *t, LLVMValueRef v);
unsigned tr_type_width(tr_t *t, LLVMTypeRef ty);
const char *tr_name(LLVMValueRef v, const char *fallback);

/* pointers.c: pointer values, loads, stores, memcpy/memset, memory ports */
bool tr_ptr(tr_t *t, LLVMValueRef v, ptr_t *out);
void tr_gep(tr_t *t, LLVMValueRef gep);
val_t tr_load(tr_t *t, const ptr_t *p, unsigned width, const char *base);
void tr_store(tr_t *t, const ptr_t *p, val_t v);
void tr_memcpy(tr_t *t, const ptr_t *dst, const ptr_t *src, unsigned n);
void tr_memset(tr_t *t, const ptr_t *dst, val_t byte, unsigned n);
void tr_mem_op(tr_t *t, LLVMValueRef call, bool is_write);
ptr_t ptr_merge_select(tr_t *t, val_t c, const ptr_t *a, const ptr_t *b);
ptr_t ptr_restrict(tr_t *t, const ptr_t *p, val_t pred);
void ptr_append(ptr_t *dst, const ptr_t *src);

/* xor_tree.c: XOR chains emitted as balanced trees. An inner XOR (its only use is another
 * XOR) is not emitted; the outermost one emits the whole tree. */
bool tr_xor_inner(LLVMValueRef inst);
val_t tr_xor_tree(tr_t *t, LLVMValueRef root, const char *name);

/* intrinsics.c: llvm.* calls that become logic; returns false if unknown */
bool tr_intrinsic(tr_t *t, LLVMValueRef call, const char *name);

#endif
