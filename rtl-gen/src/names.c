#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netlist.h"
#include "util.h"

/* Words no port, register or memory may be called. One list for the three languages the
 * name passes through, so the same word is never legal in one tool and broken in the next. */
static const char *const reserved_words[] = {
    /* Verilog-2005 (IEEE 1364-2005 annex B) */
    "always", "and", "assign", "automatic", "begin", "buf", "bufif0", "bufif1", "case", "casex",
    "casez", "cell", "cmos", "config", "deassign", "default", "defparam", "design", "disable",
    "edge", "else", "end", "endcase", "endconfig", "endfunction", "endgenerate", "endmodule",
    "endprimitive", "endspecify", "endtable", "endtask", "event", "for", "force", "forever",
    "fork", "function", "generate", "genvar", "highz0", "highz1", "if", "ifnone", "incdir",
    "include", "initial", "inout", "input", "instance", "integer", "join", "large", "liblist",
    "library", "localparam", "macromodule", "medium", "module", "nand", "negedge", "nmos", "nor",
    "noshowcancelled", "not", "notif0", "notif1", "or", "output", "parameter", "pmos", "posedge",
    "primitive", "pull0", "pull1", "pulldown", "pullup", "pulsestyle_ondetect",
    "pulsestyle_onevent", "rcmos", "real", "realtime", "reg", "release", "repeat", "rnmos",
    "rpmos", "rtran", "rtranif0", "rtranif1", "scalared", "showcancelled", "signed", "small",
    "specify", "specparam", "strong0", "strong1", "supply0", "supply1", "table", "task", "time",
    "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior", "trireg",
    "unsigned", "use", "uwire", "vectored", "wait", "wand", "weak0", "weak1", "while", "wire",
    "wor", "xnor", "xor",
    /* SystemVerilog (IEEE 1800-2017 annex B; Verilator reserves them in .v files too) */
    "accept_on", "alias", "always_comb", "always_ff", "always_latch", "assert", "assume",
    "before", "bind", "bins", "binsof", "bit", "break", "byte", "chandle", "checker", "class",
    "clocking", "const", "constraint", "context", "continue", "cover", "covergroup",
    "coverpoint", "cross", "dist", "do", "endchecker", "endclass", "endclocking", "endgroup",
    "endinterface", "endpackage", "endprogram", "endproperty", "endsequence", "enum",
    "eventually", "expect", "export", "extends", "extern", "final", "first_match", "foreach",
    "forkjoin", "global", "iff", "ignore_bins", "illegal_bins", "implements", "implies",
    "import", "inside", "int", "interconnect", "interface", "intersect", "join_any",
    "join_none", "let", "local", "logic", "longint", "matches", "modport", "nettype", "new",
    "nexttime", "null", "package", "packed", "priority", "program", "property", "protected",
    "pure", "rand", "randc", "randcase", "randsequence", "ref", "reject_on", "restrict",
    "return", "s_always", "s_eventually", "s_nexttime", "s_until", "s_until_with", "sequence",
    "shortint", "shortreal", "soft", "solve", "static", "string", "strong", "struct", "super",
    "sync_accept_on", "sync_reject_on", "tagged", "this", "throughout", "timeprecision",
    "timeunit", "type", "typedef", "union", "unique", "unique0", "until", "until_with",
    "untyped", "var", "virtual", "void", "wait_order", "weak", "wildcard", "with", "within",
    /* C++20 keywords and alternative tokens */
    "alignas", "alignof", "and_eq", "asm", "atomic_cancel", "atomic_commit", "atomic_noexcept",
    "auto", "bitand", "bitor", "bool", "catch", "char", "char8_t", "char16_t", "char32_t",
    "compl", "concept", "consteval", "constexpr", "constinit", "const_cast", "co_await",
    "co_return", "co_yield", "decltype", "delete", "double", "dynamic_cast", "explicit",
    "false", "float", "friend", "goto", "inline", "long", "mutable", "namespace", "noexcept",
    "not_eq", "nullptr", "operator", "or_eq", "private", "public", "reflexpr", "register",
    "reinterpret_cast", "requires", "short", "sizeof", "static_assert", "static_cast",
    "switch", "synchronized", "template", "thread_local", "throw", "true", "try", "typeid",
    "typename", "using", "volatile", "wchar_t", "xor_eq",
    /* words Verilator's -Wall rejects as C++/SystemC "common words" (SYMRSVDWORD) */
    "NULL", "abort", "bit_vector", "cdecl", "complex", "const_iterator", "const_reference",
    "deque", "far", "huge", "interrupt", "iterator", "list", "map", "near", "override", "pascal",
    "queue", "reference", "set", "stack", "transaction_safe", "transaction_safe_dynamic",
    "type_info", "uint8_t", "uint16_t", "uint32_t", "vector", "sc_clock", "sc_in", "sc_inout",
    "sc_out", "sc_signal", "sensitive", "sensitive_neg", "sensitive_pos",
    /* macros of the C/C++ headers and of gcc's GNU mode: a port named so is macro-expanded in
     * Verilator's model class and does not compile */
    "linux", "unix", "i386", "errno", "stdin", "stdout", "stderr", "EOF", "offsetof", "major",
    "minor",
    /* members of Verilator's model class, where the ports are members too (Verilator 5) */
    "eval", "eval_step", "eval_end_step", "eventsPending", "nextTimeSlot", "name",
    "hierName", "modelName", "threads", "trace", "traceConfig", "rootp", "vlSymsp",
    "contextp", "prepareClone", "atClone",
    /* the names the generated module itself uses (verilog_write.c) */
    "clk", "rst", "unused_bits",
    NULL};

const char *const mem_name_suffixes[] = {"_cells", "_rdata", "_re", "_ra", "_we",
                                         "_wa",    "_wd",    "_init", NULL};

bool name_is_reserved(const char *n) {
    for (const char *const *w = reserved_words; *w; w++)
        if (strcmp(*w, n) == 0) return true;
    return false;
}

/* The names claimed so far: a netlist's name set (netlist.c) serves as the set. */
static bool is_taken(const netlist_t *c, const char *n) {
    return name_is_reserved(n) || nl_name_taken(c, n);
}

/* Is base (with every suffix, for a memory) free? */
static bool all_free(const netlist_t *c, const char *base, const char *const *suffixes) {
    if (is_taken(c, base)) return false;
    for (const char *const *s = suffixes; s && *s; s++) {
        char *n = xasprintf("%s%s", base, *s);
        bool t = is_taken(c, n);
        free(n);
        if (t) return false;
    }
    return true;
}

/* The legal name for *name; records a renaming, claims the result. */
static void legalise(iface_t *ifc, netlist_t *c, char **name, const char *const *suffixes,
                     const char *what) {
    const char *orig = *name;
    char *cand = name_is_reserved(orig) ? xasprintf("%s_", orig) : xstrdup(orig);
    for (unsigned k = 2; !all_free(c, cand, suffixes); k++) {
        free(cand);
        cand = xasprintf("%s_%u", orig, k);
    }
    nl_reserve(c, cand);
    for (const char *const *s = suffixes; s && *s; s++) {
        char *n = xasprintf("%s%s", cand, *s);
        nl_reserve(c, n);
        free(n);
    }
    if (strcmp(cand, orig) != 0) {
        char *note = xasprintf("%s %s -> %s (%s)", what, orig, cand,
                               name_is_reserved(orig) ? "a reserved word" : "the name of an earlier port, memory or register");
        unsigned cap = ifc->n_renames;
        ARR_PUSH(ifc->renames, ifc->n_renames, cap, note);
        free(*name);
        *name = cand;
    } else {
        free(cand);
    }
}

void names_legalise(iface_t *ifc) {
    netlist_t c = {0};
    nl_reserve(&c, ifc->top);
    for (unsigned i = 0; i < ifc->n_in; i++) legalise(ifc, &c, &ifc->in[i].name, NULL, "input");
    for (unsigned i = 0; i < ifc->n_out; i++)
        legalise(ifc, &c, &ifc->out[i].name, NULL, "output");
    for (unsigned i = 0; i < ifc->n_mems; i++)
        legalise(ifc, &c, &ifc->mems[i].name, mem_name_suffixes, "memory");
    for (unsigned i = 0; i < ifc->n_regs; i++)
        legalise(ifc, &c, &ifc->regs[i].name, NULL, "register");
    for (unsigned i = 0; i < c.cap_used; i++) free((char *)c.used[i]);
    free(c.used);
}
