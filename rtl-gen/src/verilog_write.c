#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "verilog_write.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "line_wrap.h"
#include "sig_index.h"
#include "util.h"
#include "wire_order.h"

static void range(FILE *f, unsigned w) {
    if (w > 1) fprintf(f, "[%u:0] ", w - 1);
}

/* One statement (takes text), indented, wrapped at token boundaries (line_wrap.h); the
 * caller ends the line. */
static void statement(FILE *f, unsigned indent, char *text) {
    fprintf(f, "%*s", (int)indent, "");
    line_wrap(f, indent, indent + 4, text);
    free(text);
}

static char *range_text(unsigned w) { return w > 1 ? xasprintf("[%u:0] ", w - 1) : xstrdup(""); }

/* ---- source map: where each C line's wires are in the Verilog (srcmap.c prints it).
 * The Verilog is written to memory first, so the writer can ask which line it is on. */
typedef struct {
    FILE *f;          /* open_memstream */
    char **buf;
    size_t *len;
    size_t counted;   /* bytes of *buf already scanned */
    unsigned line;    /* 1-based line the next byte goes on */
} line_count_t;

static unsigned current_line(line_count_t *lc) {
    fflush(lc->f);
    for (; lc->counted < *lc->len; lc->counted++)
        if ((*lc->buf)[lc->counted] == '\n') lc->line++;
    return lc->line;
}

/* "PREFIX VALUE;" as one wrapped statement */
static void assign_val(FILE *f, unsigned indent, const netlist_t *nl, const char *prefix,
                       val_t v) {
    char *t = v_text(nl, v);
    statement(f, indent, xasprintf("%s%s;", prefix, t));
    free(t);
    fputc('\n', f);
}

static void ports(FILE *f, const tr_t *t) {
    const iface_t *ifc = t->ifc;
    fprintf(f, "module %s (\n    input wire clk,\n    input wire rst", ifc->top);
    for (unsigned i = 0; i < ifc->n_in; i++) {
        fprintf(f, ",\n    input wire ");
        range(f, ifc->in[i].width);
        fputs(ifc->in[i].name, f);
    }
    for (unsigned i = 0; i < ifc->n_out; i++) {
        fprintf(f, ",\n    output wire ");
        range(f, ifc->out[i].width);
        fputs(ifc->out[i].name, f);
    }
    fprintf(f, "\n);\n");
}

/* localparams of the named FSM states (fsm_states.c), one per name; a state the logic never
 * compares with (only assigned) is still declared, for the reader. */
static void fsm_states(FILE *f, const iface_t *ifc) {
    unsigned shown = 0;
    for (unsigned k = 0; k < ifc->n_states; k++) {
        const fsm_state_t *s = &ifc->states[k];
        bool dup = false;
        for (unsigned j = 0; j < k; j++) dup |= !strcmp(ifc->states[j].name, s->name);
        if (dup) continue;
        if (!shown++) fprintf(f, "\n    /* verilator lint_off UNUSEDPARAM */\n");
        if (!k || ifc->states[k - 1].reg != s->reg)
            fprintf(f, "    // States of %s (the C's enum constants).\n", ifc->regs[s->reg].name);
        unsigned w = ifc->regs[s->reg].width;
        fprintf(f, "    localparam ");
        range(f, w);
        fprintf(f, "%s = %u'd%llu;\n", s->name, w, s->value);
    }
    if (shown) fprintf(f, "    /* verilator lint_on UNUSEDPARAM */\n");
}

static bool is_reset(const iface_t *ifc, unsigned i) {
    return !ifc->reg_guard || ifc->reg_guard[i] < 0;
}

static void declare_state(FILE *f, const tr_t *t) {
    const iface_t *ifc = t->ifc;
    if (ifc->n_regs)
        fprintf(f, "\n    // State registers (the state struct), reset to 0 unless a comment says\n"
                   "    // which 1-bit register guards them (docs/rtl-gen.md, \"Reset policy\").\n");
    for (unsigned i = 0; i < ifc->n_regs; i++) {
        fprintf(f, "    reg ");
        range(f, ifc->regs[i].width);
        fprintf(f, "%s;", ifc->regs[i].name);
        if (!is_reset(ifc, i))
            fprintf(f, "  // not reset: read only while %s is 1", ifc->regs[ifc->reg_guard[i]].name);
        fputc('\n', f);
    }
    fsm_states(f, ifc);
    for (unsigned i = 0; i < ifc->n_mems; i++) {
        const mem_t *m = &ifc->mems[i];
        fprintf(f, "\n    // HLS_MEM %s: %u x %u bits, synchronous read-first RAM.\n", m->name,
                m->depth, m->width);
        /* cells always carry a packed range, [0:0] too: Verilator models a 1-bit memory
         * without one as a packed vector, not as an array of words */
        fprintf(f, "    reg [%u:0] %s_cells [0:%u];\n    reg ", m->width - 1, m->name,
                m->depth - 1);
        range(f, m->width);
        fprintf(f, "%s_rdata;\n", m->name);
    }
}

/* ---- liveness: only signals that reach an output, a register or a memory
 * port are printed (edge predicates of joins, superseded stores, ...). */
typedef struct {
    bool *live;
    bool *whole;      /* read as a whole somewhere (not only through [..] selects) */
    unsigned *work, n_work;
} live_t;

static void mark(void *arg, int sig, bool whole) {
    live_t *l = arg;
    if (whole) l->whole[sig] = true;
    if (!l->live[sig]) {
        l->live[sig] = true;
        l->work[l->n_work++] = (unsigned)sig;
    }
}

static void mark_val(live_t *l, val_t v) {
    if (v.sig >= 0) mark(l, v.sig, true);
}

/* Returns live[] (printed) and sets *whole (every bit read: not in the unused sink). */
static bool *liveness(const tr_t *t, const sig_index_t *x, bool **whole) {
    const netlist_t *nl = &t->nl;
    live_t l = {0};
    l.live = xcalloc(nl->n + 1, sizeof(bool));
    l.whole = xcalloc(nl->n + 1, sizeof(bool));
    l.work = xcalloc(nl->n + 1, sizeof(unsigned));
    for (unsigned i = 0; i < t->ifc->n_out; i++) mark_val(&l, t->out_val[i]);
    for (unsigned i = 0; i < t->ifc->n_regs; i++) mark_val(&l, t->reg_next[i]);
    for (unsigned i = 0; i < t->ifc->n_mems; i++) {
        const mem_ports_t *p = &t->mem[i];
        mark_val(&l, p->re);
        mark_val(&l, p->ra);
        mark_val(&l, p->we);
        mark_val(&l, p->wa);
        mark_val(&l, p->wd);
    }
    while (l.n_work) sig_index_scan_sig(x, &nl->sigs[l.work[--l.n_work]], mark, &l);
    free(l.work);
    *whole = l.whole;
    return l.live;
}

static void logic(FILE *f, line_count_t *lc, srcmap_t *map, const tr_t *t,
                  const sig_index_t *x, const bool *live) {
    const netlist_t *nl = &t->nl;
    unsigned n;
    bool *forward;
    unsigned *order = wire_order(nl, x, live, &n, &forward);
    unsigned n_forward = 0;
    for (unsigned k = 0; k < n; k++) n_forward += forward[order[k]];
    if (n_forward)
        fprintf(f, "\n    // Wires read above the place of their C statement, declared here and\n"
                   "    // assigned at that place below.\n");
    for (unsigned k = 0; k < n; k++) {
        const sig_t *s = &nl->sigs[order[k]];
        if (!forward[order[k]]) continue;
        fprintf(f, "    %s ", s->kind == SIG_WIRE ? "wire" : "reg");
        range(f, s->width);
        fprintf(f, "%s;\n", s->name);
    }
    fprintf(f, "\n    // Combinational logic of one cycle, in source order (the .srcmap file\n"
               "    // gives the C line of each wire).\n");
    for (unsigned k = 0; k < n; k++) {
        const sig_t *s = &nl->sigs[order[k]];
        bool declared = forward[order[k]];
        unsigned first = current_line(lc);
        if (s->kind == SIG_WIRE) {
            char *r = range_text(s->width);
            statement(f, 4, declared ? xasprintf("assign %s = %s;", s->name, s->expr)
                                     : xasprintf("wire %s%s = %s;", r, s->name, s->expr));
            free(r);
            fputc('\n', f);
        } else {
            if (!declared) {
                fprintf(f, "    reg ");
                range(f, s->width);
                fprintf(f, "%s;\n", s->name);
            }
            fprintf(f, "    always @(*) begin\n        case (%s)\n", s->case_sel);
            for (unsigned k = 0; k < s->n_case; k++) {
                statement(f, 12, xasprintf("%s: %s = %s;", s->case_label[k], s->name,
                                           s->case_value[k]));
                fputc('\n', f);
            }
            fprintf(f, "            default: %s = %u'd0;\n        endcase\n    end\n", s->name,
                    s->width);
        }
        if (s->file && s->line) srcmap_add(map, s->file, s->line, first, current_line(lc) - 1);
    }
    free(order);
    free(forward);
}

static void outputs(FILE *f, const tr_t *t) {
    const iface_t *ifc = t->ifc;
    fprintf(f, "\n    // Output ports.\n");
    for (unsigned i = 0; i < ifc->n_out; i++) {
        char *prefix = xasprintf("assign %s = ", ifc->out[i].name);
        assign_val(f, 4, &t->nl, prefix, t->out_val[i]);
        free(prefix);
    }
}

static void registers(FILE *f, const tr_t *t) {
    const iface_t *ifc = t->ifc;
    unsigned n_reset = 0;
    for (unsigned i = 0; i < ifc->n_regs; i++) n_reset += is_reset(ifc, i);
    if (n_reset) {
        fprintf(f, "\n    always @(posedge clk) begin\n        if (rst) begin\n");
        for (unsigned i = 0; i < ifc->n_regs; i++)
            if (is_reset(ifc, i))
                fprintf(f, "            %s <= %u'd0;\n", ifc->regs[i].name, ifc->regs[i].width);
        fprintf(f, "        end else begin\n");
        for (unsigned i = 0; i < ifc->n_regs; i++) {
            if (!is_reset(ifc, i)) continue;
            char *prefix = xasprintf("%s <= ", ifc->regs[i].name);
            assign_val(f, 12, &t->nl, prefix, t->reg_next[i]);
            free(prefix);
        }
        fprintf(f, "        end\n    end\n");
    }
    if (n_reset == ifc->n_regs) return;
    /* no reset and no enable: the value taken in a reset cycle does not matter either */
    fprintf(f, "\n    // Registers without reset: until their guard is set nothing reads them.\n");
    fprintf(f, "    always @(posedge clk) begin\n");
    for (unsigned i = 0; i < ifc->n_regs; i++) {
        if (is_reset(ifc, i)) continue;
        char *prefix = xasprintf("%s <= ", ifc->regs[i].name);
        assign_val(f, 8, &t->nl, prefix, t->reg_next[i]);
        free(prefix);
    }
    fprintf(f, "    end\n");
}

static void memories(FILE *f, const tr_t *t) {
    const iface_t *ifc = t->ifc;
    for (unsigned i = 0; i < ifc->n_mems; i++) {
        const mem_t *m = &ifc->mems[i];
        const mem_ports_t *p = &t->mem[i];
        const char *nm = m->name;
        fprintf(f, "\n    // %s ports: one read, one write per cycle.\n", nm);
        const char *port[] = {"re", "ra", "we", "wa", "wd"};
        val_t val[] = {p->re, p->ra, p->we, p->wa, p->wd};
        for (unsigned k = 0; k < 5; k++) {
            char *r = range_text(k == 4 ? m->width : val[k].width);
            char *prefix = xasprintf("wire %s%s_%s = ", r, nm, port[k]);
            assign_val(f, 4, &t->nl, prefix, val[k]);
            free(prefix);
            free(r);
        }
        fprintf(f, "    always @(posedge clk) begin\n");
        /* no memory operation in a reset cycle: the C model runs no cycle then */
        fprintf(f, "        if (!rst && %s_we) %s_cells[%s_wa] <= %s_wd;\n", nm, nm, nm, nm);
        fprintf(f, "        if (!rst && %s_re) %s_rdata <= %s_cells[%s_ra];\n", nm, nm, nm, nm);
        fprintf(f, "    end\n");
        fprintf(f, "    // Power-up contents: all zero (the C model's state starts zeroed).\n");
        fprintf(f, "    integer %s_init;\n    initial begin\n", nm);
        fprintf(f, "        for (%s_init = 0; %s_init < %u; %s_init = %s_init + 1)\n", nm, nm,
                m->depth, nm, nm);
        fprintf(f, "            %s_cells[%s_init] = %u'd0;\n", nm, nm, m->width);
        fprintf(f, "        %s_rdata = %u'd0;\n    end\n", nm, m->width);
    }
}

/* Verilator's recommended idiom: one sink for bits the block leaves unread
 * (unused input bits, bits of wide loads), so -Wall stays clean without
 * switching the warning off for the whole module. */
static void unused_sink(FILE *f, const tr_t *t, const bool *live, const bool *whole) {
    const netlist_t *nl = &t->nl;
    fprintf(f, "\n    // Bits nothing reads (unused input bits, parts of wide loads), one name\n"
               "    // a line so that a renamed wire changes one line of the list.\n");
    fprintf(f, "    /* verilator lint_off UNUSEDSIGNAL */\n    wire unused_bits = &{1'b0");
    /* a signal read as a whole somewhere has no unused bit: only the others are listed */
    for (unsigned i = 0; i < nl->n; i++)
        if (!whole[i] && (live[i] || nl->sigs[i].kind == SIG_INPUT ||
                          nl->sigs[i].kind == SIG_REG || nl->sigs[i].kind == SIG_RDATA))
            fprintf(f, ",\n        %s", nl->sigs[i].name);
    fprintf(f, ",\n        1'b0};\n    /* verilator lint_on UNUSEDSIGNAL */\n");
}

void verilog_write(FILE *out, const tr_t *t, srcmap_t *map) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) diag_internal("open_memstream failed");
    line_count_t lc = {.f = f, .buf = &buf, .len = &len, .line = 1};
    fprintf(f, "// Generated by rtl-gen from %s (top %s). Do not edit: change the C.\n",
            t->ifc->source, t->ifc->top);
    if (t->ifc->n_renames)
        fprintf(f, "// Names changed from the C field paths (Verilog, SystemVerilog and C++ reserve\n"
                   "// some words, and each name must be distinct):\n");
    for (unsigned i = 0; i < t->ifc->n_renames; i++) fprintf(f, "//   %s\n", t->ifc->renames[i]);
    fprintf(f, "`default_nettype none\n");
    sig_index_t x;
    sig_index_init(&x, &t->nl);
    bool *whole;
    bool *live = liveness(t, &x, &whole);
    ports(f, t);
    declare_state(f, t);
    logic(f, &lc, map, t, &x, live);
    sig_index_free(&x);
    outputs(f, t);
    registers(f, t);
    memories(f, t);
    unused_sink(f, t, live, whole);
    free(live);
    free(whole);
    fprintf(f, "endmodule\n`default_nettype wire\n");
    fclose(f);
    fwrite(buf, 1, len, out);
    free(buf);
}
