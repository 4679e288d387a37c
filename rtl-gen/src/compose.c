/* compose.c — blocks joined by FIFOs become one generated Verilog top and one
 * generated C model. The FIFO sits between every producer and consumer, so
 * no combinational path crosses a block boundary and the blocks can be
 * evaluated in any order: both models are one-way by construction.
 *
 * FIFO timing (both models): in_ready = count != DEPTH and out_valid =
 * count != 0 come from registers; a beat pushed at an edge is visible to
 * the consumer in the next cycle. */
#include "compose.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "block.h"
#include "diag.h"
#include "line_wrap.h"
#include "names.h"
#include "reset_proof.h"
#include "netlist.h"
#include "util.h"

#define MAX_INST 64
#define MAX_LINKS 128
#define MAX_FIFO_DEPTH 256

typedef struct {
    char *name, *func, *file;
    unsigned line;     /* of its "block" line in the .net */
    compiled_t c;
    unsigned in_off, out_off, st_off;
} inst_t;

typedef struct {
    int src, dst;
    char *src_stream, *dst_stream, *name;
    unsigned depth, abits, width, entry_bytes, st_off, line;
    int src_valid, src_ready, dst_valid, dst_ready; /* leaf indices */
    int *src_data, *dst_data;                       /* matching data leaves */
    unsigned n_data;
    bool empty_zero; /* the FIFO zeroes its output while empty: its consumer may read the
                      * data while valid is 0 (reset_proof_ignores_unless) */
} link_t;

typedef struct {
    const char *net;
    char *top;
    inst_t inst[MAX_INST];
    unsigned n_inst;
    link_t link[MAX_LINKS];
    unsigned n_link;
    unsigned in_size, out_size, state_size;
} net_t;

static void net_error(const net_t *n, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void net_error(const net_t *n, unsigned line, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag_error(n->net, line, 1, "compose", "%s", msg);
}

static int find_inst(const net_t *n, const char *name) {
    for (unsigned i = 0; i < n->n_inst; i++)
        if (!strcmp(n->inst[i].name, name)) return (int)i;
    return -1;
}

static int find_leaf(const leaf_t *l, unsigned nl, const char *name) {
    for (unsigned i = 0; i < nl; i++)
        if (!strcmp(l[i].name, name)) return (int)i;
    return -1;
}

static char *dir_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? xasprintf("%.*s", (int)(s - path), path) : xstrdup(".");
}

/* ---- parsing -------------------------------------------------------- */
static void parse(net_t *n, FILE *f) {
    char line[1024];
    unsigned ln = 0;
    char *dir = dir_of(n->net);
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *w[6];
        int nw = 0;
        for (char *tok = strtok(line, " \t\r\n"); tok && nw < 6; tok = strtok(NULL, " \t\r\n"))
            w[nw++] = tok;
        if (!nw) continue;
        if (!strcmp(w[0], "top") && nw == 2) {
            if (name_is_reserved(w[1]))
                net_error(n, ln, "top name '%s' is a reserved word of Verilog, SystemVerilog or "
                          "C++ (Verilator): it names the top module; choose another", w[1]);
            n->top = xstrdup(w[1]);
        } else if (!strcmp(w[0], "block") && nw == 4) {
            if (n->n_inst == MAX_INST) { net_error(n, ln, "more than %d blocks", MAX_INST); continue; }
            if (find_inst(n, w[1]) >= 0) { net_error(n, ln, "block '%s' declared twice", w[1]); continue; }
            if (name_is_reserved(w[1]))
                net_error(n, ln, "block name '%s' is a reserved word of Verilog, SystemVerilog or "
                          "C++ (Verilator): it names a Verilog instance; choose another", w[1]);
            inst_t *in = &n->inst[n->n_inst++];
            in->line = ln;
            in->name = xstrdup(w[1]);
            in->func = xstrdup(w[2]);
            in->file = w[3][0] == '/' ? xstrdup(w[3]) : xasprintf("%s/%s", dir, w[3]);
        } else if (!strcmp(w[0], "fifo") && nw == 4) {
            if (n->n_link == MAX_LINKS) { net_error(n, ln, "more than %d fifos", MAX_LINKS); continue; }
            link_t *l = &n->link[n->n_link];
            char *sd = strchr(w[1], '.'), *dd = strchr(w[2], '.');
            if (!sd || !dd) {
                net_error(n, ln, "fifo endpoints are INSTANCE.STREAM, got '%s' and '%s'", w[1], w[2]);
                continue;
            }
            *sd = *dd = 0;
            l->src = find_inst(n, w[1]);
            l->dst = find_inst(n, w[2]);
            if (l->src < 0 || l->dst < 0) {
                net_error(n, ln, "fifo names unknown block '%s' (declare blocks first)",
                          l->src < 0 ? w[1] : w[2]);
                continue;
            }
            char *end;
            unsigned long d = strtoul(w[3], &end, 10);
            if (*end || d < 2 || d > MAX_FIFO_DEPTH || (d & (d - 1))) {
                net_error(n, ln, "fifo depth '%s' must be a power of two from 2 to %d", w[3],
                          MAX_FIFO_DEPTH);
                continue;
            }
            l->src_stream = xstrdup(sd + 1);
            l->dst_stream = xstrdup(dd + 1);
            l->depth = (unsigned)d;
            while ((1u << l->abits) < l->depth) l->abits++;
            l->name = xasprintf("fifo_%s_%s", w[2], dd + 1);
            l->line = ln;
            n->n_link++;
        } else {
            net_error(n, ln, "expected 'top NAME', 'block INSTANCE FUNCTION FILE' or "
                      "'fifo SRC.STREAM DST.STREAM DEPTH'");
        }
    }
    if (!n->top) net_error(n, ln ? ln : 1, "no 'top NAME' line");
    if (!n->n_inst) net_error(n, ln ? ln : 1, "no blocks");
    free(dir);
}

/* ---- checking links against the compiled blocks -------------------- */
static bool has_stream(const iface_t *f, const char *name, bool is_input) {
    for (unsigned i = 0; i < f->n_streams; i++)
        if (!strcmp(f->streams[i].name, name) && f->streams[i].is_input == is_input) return true;
    return false;
}

/* data leaves of stream s: "s_data" or "s_data_*", in port order */
static unsigned data_leaves(const leaf_t *l, unsigned nl, const char *s, int *out) {
    char *p = xasprintf("%s_data", s);
    size_t pl = strlen(p);
    unsigned k = 0;
    for (unsigned i = 0; i < nl; i++)
        if (!strncmp(l[i].name, p, pl) && (l[i].name[pl] == 0 || l[i].name[pl] == '_'))
            out[k++] = (int)i;
    free(p);
    return k;
}

static void check_link(net_t *n, link_t *l) {
    const iface_t *s = &n->inst[l->src].c.ifc, *d = &n->inst[l->dst].c.ifc;
    if (!has_stream(s, l->src_stream, false)) {
        net_error(n, l->line, "block '%s' has no output stream '%s' (out->%s of HLS_STREAM type "
                  "and in->%s_ready)", n->inst[l->src].name, l->src_stream, l->src_stream,
                  l->src_stream);
        return;
    }
    if (!has_stream(d, l->dst_stream, true)) {
        net_error(n, l->line, "block '%s' has no input stream '%s' (in->%s of HLS_STREAM type "
                  "and out->%s_ready)", n->inst[l->dst].name, l->dst_stream, l->dst_stream,
                  l->dst_stream);
        return;
    }
    char *nm;
    l->src_valid = find_leaf(s->out, s->n_out, nm = xasprintf("%s_valid", l->src_stream)); free(nm);
    l->src_ready = find_leaf(s->in, s->n_in, nm = xasprintf("%s_ready", l->src_stream)); free(nm);
    l->dst_valid = find_leaf(d->in, d->n_in, nm = xasprintf("%s_valid", l->dst_stream)); free(nm);
    l->dst_ready = find_leaf(d->out, d->n_out, nm = xasprintf("%s_ready", l->dst_stream)); free(nm);
    l->src_data = xcalloc(s->n_out + 1, sizeof(int));
    l->dst_data = xcalloc(d->n_in + 1, sizeof(int));
    unsigned ns = data_leaves(s->out, s->n_out, l->src_stream, l->src_data);
    unsigned nd = data_leaves(d->in, d->n_in, l->dst_stream, l->dst_data);
    bool same = ns == nd;
    for (unsigned i = 0; same && i < ns; i++) {
        const leaf_t *a = &s->out[l->src_data[i]], *b = &d->in[l->dst_data[i]];
        same = a->width == b->width &&
               !strcmp(a->name + strlen(l->src_stream), b->name + strlen(l->dst_stream));
    }
    if (!same) {
        net_error(n, l->line, "stream %s.%s and %s.%s carry different data (field names or "
                  "widths differ)", n->inst[l->src].name, l->src_stream, n->inst[l->dst].name,
                  l->dst_stream);
        return;
    }
    l->n_data = ns;
    l->empty_zero = !reset_proof_ignores_unless(&n->inst[l->dst].c.tr, (unsigned)l->dst_valid,
                                                l->dst_data, nd);
    for (unsigned i = 0; i < ns; i++) l->width += s->out[l->src_data[i]].width;
    l->entry_bytes = (l->width + 63) / 64 * 8;
    for (unsigned k = 0; k < n->n_link; k++) /* a stream end joins one fifo */
        if (&n->link[k] != l && ((n->link[k].dst == l->dst && !strcmp(n->link[k].dst_stream, l->dst_stream)) ||
                                 (n->link[k].src == l->src && !strcmp(n->link[k].src_stream, l->src_stream))))
            net_error(n, l->line, "a stream end is joined to two fifos");
}

/* Which leaves does a link drive or consume? (they are not top-level ports) */
static bool linked_in(const net_t *n, int inst, int leaf) {
    for (unsigned k = 0; k < n->n_link; k++) {
        const link_t *l = &n->link[k];
        if (l->src == inst && l->src_ready == leaf) return true;
        if (l->dst == inst) {
            if (l->dst_valid == leaf) return true;
            for (unsigned i = 0; i < l->n_data; i++)
                if (l->dst_data[i] == leaf) return true;
        }
    }
    return false;
}

static bool linked_out(const net_t *n, int inst, int leaf) {
    for (unsigned k = 0; k < n->n_link; k++) {
        const link_t *l = &n->link[k];
        if (l->dst == inst && l->dst_ready == leaf) return true;
        if (l->src == inst) {
            if (l->src_valid == leaf) return true;
            for (unsigned i = 0; i < l->n_data; i++)
                if (l->src_data[i] == leaf) return true;
        }
    }
    return false;
}

/* The FIFO module of the top (write_fifo_module). */
static char *fifo_module(const net_t *n) { return xasprintf("%s_fifo", n->top); }

/* Every signal of the top module is named INSTANCE_PORT (a port, or a wire a FIFO joins),
 * besides clk, rst and each FIFO's instance and data wires. Two blocks can still flatten to
 * one name (block a's port b_c, block a_b's port c): reject that at the second block's line,
 * as the composite's ports, C model and interface all use these names. */
static void check_top_names(net_t *n) {
    netlist_t names = {0};
    nl_reserve(&names, "clk");
    nl_reserve(&names, "rst");
    for (unsigned k = 0; k < n->n_link; k++) {
        const char *suffix[] = {"", "_in_data", "_out_data"};
        for (unsigned j = 0; j < 3; j++) {
            char *w = xasprintf("%s%s", n->link[k].name, suffix[j]);
            nl_reserve(&names, w);
            free(w);
        }
    }
    for (unsigned i = 0; i < n->n_inst; i++) {
        const iface_t *c = &n->inst[i].c.ifc;
        for (unsigned k = 0; k < c->n_in + c->n_out; k++) {
            const leaf_t *lf = k < c->n_in ? &c->in[k] : &c->out[k - c->n_in];
            char *w = xasprintf("%s_%s", n->inst[i].name, lf->name);
            if (!nl_reserve(&names, w))
                net_error(n, n->inst[i].line, "block '%s' port '%s' becomes '%s' in the top "
                          "module, a name an earlier block's port or a FIFO already has; rename "
                          "the block", n->inst[i].name, lf->name, w);
            free(w);
        }
    }
    char *fifo = fifo_module(n);
    for (unsigned i = 0; n->n_link && i < n->n_inst; i++)
        if (!strcmp(n->inst[i].func, fifo))
            net_error(n, n->inst[i].line, "block function '%s' has the name of the FIFO module "
                      "of top '%s'; rename the function or the top", fifo, n->top);
    free(fifo);
    for (unsigned i = 0; i < names.cap_used; i++) free((char *)names.used[i]);
    free(names.used);
}

static unsigned align64(unsigned x) { return (x + 63) / 64 * 64; }

static void layout(net_t *n) {
    for (unsigned i = 0; i < n->n_inst; i++) {
        const iface_t *f = &n->inst[i].c.ifc;
        n->inst[i].in_off = n->in_size;
        n->in_size = align64(n->in_size + f->in_size);
        n->inst[i].out_off = n->out_size;
        n->out_size = align64(n->out_size + f->out_size);
        n->inst[i].st_off = n->state_size;
        n->state_size = align64(n->state_size + f->state_size);
    }
    for (unsigned k = 0; k < n->n_link; k++) { /* count, head, tail (u32 each), entries */
        n->link[k].st_off = n->state_size;
        n->state_size = align64(n->state_size + 16 + n->link[k].depth * n->link[k].entry_bytes);
    }
    if (!n->in_size) n->in_size = 64;
    if (!n->out_size) n->out_size = 64;
}

/* ---- Verilog ----------------------------------------------------------- */
static void range(FILE *f, unsigned w) {
    if (w > 1) fprintf(f, "[%u:0] ", w - 1);
}

static FILE *open_out(const char *dir, const char *name, const char *ext) {
    char *p = xasprintf("%s/%s%s", dir, name, ext);
    FILE *f = fopen(p, "w");
    if (!f) {
        fprintf(stderr, "rtl-gen: cannot write '%s'\n", p);
        exit(2);
    }
    free(p);
    return f;
}

/* The one FIFO module every link of the top instantiates, #(WIDTH, DEPTH). Storage is a
 * memory (LUT RAM up to FIFO_LUT_RAM_MAX_DEPTH entries, read asynchronously at head; block RAM
 * above, read one cycle ahead into head_q), written at tail, never reset: a RAM cannot be, and
 * an entry is read only through out_data, and while count != 0 the entry at head was pushed
 * after the last reset (count, head and tail reset to 0, and every entry from head to tail
 * was written by a push since). While count is 0, out_data is zero (EMPTY_ZERO = 1), or, when
 * the consumer provably ignores its data while valid is 0 (reset_proof_ignores_unless),
 * whatever the entry at head holds (EMPTY_ZERO = 0: no gate). Timing is the same for both kinds:
 * the data pushed at an edge is out_data in the next cycle, and ready/valid come from count. */
#define FIFO_LUT_RAM_MAX_DEPTH 64

static void write_fifo_module(const net_t *n, const char *dir) {
    char *mod = fifo_module(n);
    FILE *f = open_out(dir, mod, ".v");
    fprintf(f,
        "// Generated by rtl-gen --compose from %s: the FIFO of every link of %s.\n"
        "`default_nettype none\n"
        "module %s #(\n"
        "    parameter integer WIDTH = 1,\n"
        "    parameter integer DEPTH = 2,  // a power of two, 2 to %d\n"
        "    // 1: out_data is zero while the FIFO is empty. 0: it shows the entry at head, which\n"
        "    // is not reset, for a consumer rtl-gen found to ignore the data while out_valid is 0\n"
        "    parameter integer EMPTY_ZERO = 1\n"
        ") (\n"
        "    input wire clk,\n"
        "    input wire rst,\n"
        "    input wire in_valid,\n"
        "    input wire [WIDTH-1:0] in_data,\n"
        "    output wire in_ready,\n"
        "    output wire out_valid,\n"
        "    output wire [WIDTH-1:0] out_data,\n"
        "    input wire out_ready\n"
        ");\n"
        "    localparam integer ABITS = $clog2(DEPTH);\n"
        "    // Control registers, reset: entries held, where the next pop reads and push writes.\n"
        "    reg [ABITS:0] count;\n"
        "    reg [ABITS-1:0] head;\n"
        "    reg [ABITS-1:0] tail;\n"
        "    // ready and valid come from registers: no path crosses the FIFO. count is at most\n"
        "    // DEPTH = 2**ABITS, so its top bit alone says full.\n"
        "    assign in_ready = !count[ABITS];\n"
        "    assign out_valid = |count;\n"
        "    wire push = in_valid & in_ready;\n"
        "    wire pop = out_valid & out_ready;\n"
        "    wire [ABITS-1:0] head_next = pop ? head + 1'b1 : head;\n"
        "    always @(posedge clk) begin\n"
        "        if (rst) begin\n"
        "            count <= 0;\n"
        "            head <= 0;\n"
        "            tail <= 0;\n"
        "        end else begin\n"
        "            if (push) tail <= tail + 1'b1;\n"
        "            head <= head_next;\n"
        "            count <= count + {{ABITS{1'b0}}, push} - {{ABITS{1'b0}}, pop};\n"
        "        end\n"
        "    end\n"
        "\n"
        "    // Storage, not reset (a RAM cannot be): the entry at head is pushed after the last\n"
        "    // reset whenever count != 0; while count is 0 out_data is zero (EMPTY_ZERO) or its\n"
        "    // consumer does not look at it.\n"
        "    reg [WIDTH-1:0] entry [0:DEPTH-1];\n"
        "    always @(posedge clk)\n"
        "        if (push) entry[tail] <= in_data;\n"
        "    wire [WIDTH-1:0] head_data;\n"
        "    generate\n"
        "        if (DEPTH <= %d) begin : lut_ram\n"
        "            // LUT RAM: read asynchronously at head\n"
        "            assign head_data = entry[head];\n"
        "        end else begin : block_ram\n"
        "            // block RAM: synchronous read of the entry at the next head; a push into\n"
        "            // that very entry passes its data through (head_q == entry[head] whenever\n"
        "            // count != 0)\n"
        "            reg [WIDTH-1:0] head_q;\n"
        "            always @(posedge clk)\n"
        "                head_q <= push && tail == head_next ? in_data : entry[head_next];\n"
        "            assign head_data = head_q;\n"
        "        end\n"
        "    endgenerate\n"
        "    generate\n"
        "        if (EMPTY_ZERO != 0) begin : zero_when_empty\n"
        "            assign out_data = out_valid ? head_data : {WIDTH{1'b0}};\n"
        "        end else begin : as_stored\n"
        "            assign out_data = head_data;\n"
        "        end\n"
        "    endgenerate\n"
        "endmodule\n"
        "`default_nettype wire\n",
        n->net, n->top, mod, MAX_FIFO_DEPTH, FIFO_LUT_RAM_MAX_DEPTH);
    fclose(f);
    free(mod);
}

static void write_top(const net_t *n, const char *dir) {
    FILE *f = open_out(dir, n->top, ".v");
    fprintf(f, "// Generated by rtl-gen --compose from %s. Do not edit: change the .net file.\n",
            n->net);
    fprintf(f, "`default_nettype none\nmodule %s (\n    input wire clk,\n    input wire rst", n->top);
    for (unsigned i = 0; i < n->n_inst; i++) {
        const iface_t *c = &n->inst[i].c.ifc;
        for (unsigned k = 0; k < c->n_in; k++)
            if (!linked_in(n, (int)i, (int)k)) {
                fprintf(f, ",\n    input wire ");
                range(f, c->in[k].width);
                fprintf(f, "%s_%s", n->inst[i].name, c->in[k].name);
            }
        for (unsigned k = 0; k < c->n_out; k++)
            if (!linked_out(n, (int)i, (int)k)) {
                fprintf(f, ",\n    output wire ");
                range(f, c->out[k].width);
                fprintf(f, "%s_%s", n->inst[i].name, c->out[k].name);
            }
    }
    fprintf(f, "\n);\n");
    /* wires for the ports that fifos join */
    for (unsigned i = 0; i < n->n_inst; i++) {
        const iface_t *c = &n->inst[i].c.ifc;
        for (unsigned k = 0; k < c->n_in + c->n_out; k++) {
            bool in = k < c->n_in;
            const leaf_t *lf = in ? &c->in[k] : &c->out[k - c->n_in];
            if (in ? linked_in(n, (int)i, (int)k) : linked_out(n, (int)i, (int)(k - c->n_in))) {
                fprintf(f, "    wire ");
                range(f, lf->width);
                fprintf(f, "%s_%s;\n", n->inst[i].name, lf->name);
            }
        }
    }
    for (unsigned k = 0; k < n->n_link; k++) {
        const link_t *l = &n->link[k];
        const inst_t *s = &n->inst[l->src], *d = &n->inst[l->dst];
        fprintf(f, "\n    // %s.%s -> %s.%s through %u entries\n", s->name, l->src_stream, d->name,
                l->dst_stream, l->depth);
        /* the data fields, MSB first: one statement over every field, wrapped (line_wrap.h) */
        char *cat = l->width > 1 ? xasprintf("wire [%u:0] %s_in_data = {", l->width - 1, l->name)
                                 : xasprintf("wire %s_in_data = {", l->name);
        for (unsigned i = l->n_data; i-- > 0;) {
            char *more = xasprintf("%s%s_%s%s", cat, s->name, s->c.ifc.out[l->src_data[i]].name,
                                   i ? ", " : "};");
            free(cat);
            cat = more;
        }
        fprintf(f, "    ");
        line_wrap(f, 4, 8, cat);
        free(cat);
        fprintf(f, "\n    wire ");
        range(f, l->width);
        fprintf(f, "%s_out_data;\n", l->name);
        unsigned lo = 0;
        for (unsigned i = 0; i < l->n_data; i++) {
            const leaf_t *lf = &d->c.ifc.in[l->dst_data[i]];
            if (l->width == 1)
                fprintf(f, "    assign %s_%s = %s_out_data;\n", d->name, lf->name, l->name);
            else if (lf->width == 1)
                fprintf(f, "    assign %s_%s = %s_out_data[%u];\n", d->name, lf->name, l->name, lo);
            else
                fprintf(f, "    assign %s_%s = %s_out_data[%u:%u];\n", d->name, lf->name, l->name,
                        lo + lf->width - 1, lo);
            lo += lf->width;
        }
        char *mod = fifo_module(n);
        fprintf(f, "    %s #(.WIDTH(%u), .DEPTH(%u), .EMPTY_ZERO(%d)) %s (\n        .clk(clk),\n"
                   "        .rst(rst),\n", mod, l->width, l->depth, l->empty_zero, l->name);
        free(mod);
        fprintf(f, "        .in_valid(%s_%s),\n        .in_data(%s_in_data),\n", s->name,
                s->c.ifc.out[l->src_valid].name, l->name);
        fprintf(f, "        .in_ready(%s_%s),\n        .out_valid(%s_%s),\n", s->name,
                s->c.ifc.in[l->src_ready].name, d->name, d->c.ifc.in[l->dst_valid].name);
        fprintf(f, "        .out_data(%s_out_data),\n        .out_ready(%s_%s)\n    );\n", l->name,
                d->name, d->c.ifc.out[l->dst_ready].name);
    }
    for (unsigned i = 0; i < n->n_inst; i++) {
        const inst_t *in = &n->inst[i];
        fprintf(f, "\n    %s %s (\n        .clk(clk),\n        .rst(rst)", in->func, in->name);
        for (unsigned k = 0; k < in->c.ifc.n_in; k++)
            fprintf(f, ",\n        .%s(%s_%s)", in->c.ifc.in[k].name, in->name, in->c.ifc.in[k].name);
        for (unsigned k = 0; k < in->c.ifc.n_out; k++)
            fprintf(f, ",\n        .%s(%s_%s)", in->c.ifc.out[k].name, in->name,
                    in->c.ifc.out[k].name);
        fprintf(f, "\n    );\n");
    }
    fprintf(f, "endmodule\n`default_nettype wire\n");
    fclose(f);
}

/* ---- C model -------------------------------------------------------- */
static void write_model(const net_t *n, const char *dir) {
    FILE *f = open_out(dir, n->top, "_model.c");
    fprintf(f, "/* Generated by rtl-gen --compose from %s: the C model of %s.\n"
               " * Same cycle semantics as the generated Verilog: FIFO ready/valid come from\n"
               " * FIFO registers, blocks run in any order, FIFOs update at the end. */\n",
            n->net, n->top);
    fprintf(f, "#include <stdint.h>\n#include <string.h>\n\n");
    for (unsigned i = 0; i < n->n_inst; i++) {
        bool dup = false;
        for (unsigned j = 0; j < i; j++) dup |= !strcmp(n->inst[j].func, n->inst[i].func);
        if (!dup) fprintf(f, "void %s(const void *in, void *out, void *state);\n", n->inst[i].func);
    }
    fprintf(f, "\nstatic unsigned get_bit(const uint8_t *p, unsigned i) { return (p[i / 8] >> (i %% 8)) & 1u; }\n"
               "static void put_bit(uint8_t *p, unsigned i, unsigned v) {\n"
               "    p[i / 8] = (uint8_t)((p[i / 8] & ~(1u << (i %% 8))) | (v << (i %% 8)));\n}\n"
               "/* copy an n-bit field; bits above n in the destination storage are zero-filled\n"
               " * (or sign-filled) up to size bytes */\n"
               "static void copy_field(uint8_t *dst, unsigned dbit, const uint8_t *src, unsigned sbit,\n"
               "                       unsigned n) {\n"
               "    /* 8 bits per step (the simulator spends most of its time here), then the rest; a\n"
               "     * step touches only the bytes the field's bits lie in */\n"
               "    for (; n >= 8; n -= 8, sbit += 8, dbit += 8) {\n"
               "        unsigned so = sbit %% 8, o = dbit %% 8, d = dbit / 8;\n"
               "        unsigned v = (unsigned)src[sbit / 8] >> so;\n"
               "        if (so) v |= (unsigned)src[sbit / 8 + 1] << (8 - so);\n"
               "        v &= 0xffu;\n"
               "        if (!o) { dst[d] = (uint8_t)v; continue; }\n"
               "        dst[d] = (uint8_t)((dst[d] & ((1u << o) - 1)) | (v << o));\n"
               "        dst[d + 1] = (uint8_t)((dst[d + 1] & ~((1u << o) - 1)) | (v >> (8 - o)));\n"
               "    }\n"
               "    for (unsigned i = 0; i < n; i++) put_bit(dst, dbit + i, get_bit(src, sbit + i));\n}\n"
               "static void store_leaf(uint8_t *leaf, unsigned size, unsigned width, int is_signed,\n"
               "                       const uint8_t *src, unsigned sbit) {\n"
               "    memset(leaf, 0, size);\n    copy_field(leaf, 0, src, sbit, width);\n"
               "    if (is_signed && get_bit(leaf, width - 1))\n"
               "        for (unsigned i = width; i < size * 8; i++) put_bit(leaf, i, 1);\n}\n\n");
    fprintf(f, "void %s(const void *in_, void *out_, void *state_) {\n", n->top);
    fprintf(f, "    const uint8_t *in = in_;\n    uint8_t *out = out_, *st = state_;\n");
    for (unsigned i = 0; i < n->n_inst; i++) {
        const inst_t *in = &n->inst[i];
        fprintf(f, "    _Alignas(64) uint8_t in_%s[%u];\n    memcpy(in_%s, in + %u, %u);\n", in->name,
                in->c.ifc.in_size ? in->c.ifc.in_size : 1, in->name, in->in_off, in->c.ifc.in_size);
    }
    unsigned max_entry = 8;
    for (unsigned k = 0; k < n->n_link; k++)
        if (n->link[k].entry_bytes > max_entry) max_entry = n->link[k].entry_bytes;
    fprintf(f, "    /* FIFO outputs, from the FIFO registers; the data is zero while a FIFO is\n"
               "     * empty (the Verilog's entries are not reset) */\n"
               "    static const uint8_t no_entry[%u];\n", max_entry);
    for (unsigned k = 0; k < n->n_link; k++) {
        const link_t *l = &n->link[k];
        const inst_t *s = &n->inst[l->src], *d = &n->inst[l->dst];
        fprintf(f, "    uint32_t %s_count, %s_head, %s_tail;\n", l->name, l->name, l->name);
        fprintf(f, "    memcpy(&%s_count, st + %u, 4);\n    memcpy(&%s_head, st + %u, 4);\n"
                   "    memcpy(&%s_tail, st + %u, 4);\n",
                l->name, l->st_off, l->name, l->st_off + 4, l->name, l->st_off + 8);
        fprintf(f, "    in_%s[%u] = %s_count != %u;\n", s->name, s->c.ifc.in[l->src_ready].offset,
                l->name, l->depth);
        fprintf(f, "    in_%s[%u] = %s_count != 0;\n", d->name, d->c.ifc.in[l->dst_valid].offset,
                l->name);
        fprintf(f, "    const uint8_t *%s_out = %s_count ? st + %u + %s_head * %u : no_entry;\n",
                l->name, l->name, l->st_off + 16, l->name, l->entry_bytes);
        unsigned lo = 0;
        for (unsigned i = 0; i < l->n_data; i++) {
            const leaf_t *lf = &d->c.ifc.in[l->dst_data[i]];
            fprintf(f, "    store_leaf(in_%s + %u, %u, %u, %d, %s_out, %u);\n", d->name,
                    lf->offset, lf->size, lf->width, lf->is_signed ? 1 : 0, l->name, lo);
            lo += lf->width;
        }
    }
    fprintf(f, "    /* the blocks */\n");
    for (unsigned i = 0; i < n->n_inst; i++) {
        const inst_t *in = &n->inst[i];
        fprintf(f, "    %s(in_%s, out + %u, st + %u);\n", in->func, in->name, in->out_off,
                in->st_off);
    }
    fprintf(f, "    /* FIFO updates at the clock edge */\n");
    for (unsigned k = 0; k < n->n_link; k++) {
        const link_t *l = &n->link[k];
        const inst_t *s = &n->inst[l->src], *d = &n->inst[l->dst];
        fprintf(f, "    {\n        unsigned push = (out[%u] & 1u) && %s_count != %u;\n",
                s->out_off + s->c.ifc.out[l->src_valid].offset, l->name, l->depth);
        fprintf(f, "        unsigned pop = (out[%u] & 1u) && %s_count != 0;\n",
                d->out_off + d->c.ifc.out[l->dst_ready].offset, l->name);
        fprintf(f, "        if (push) {\n            uint8_t *e = st + %u + %s_tail * %u;\n"
                   "            memset(e, 0, %u);\n",
                l->st_off + 16, l->name, l->entry_bytes, l->entry_bytes);
        unsigned lo = 0;
        for (unsigned i = 0; i < l->n_data; i++) {
            const leaf_t *lf = &s->c.ifc.out[l->src_data[i]];
            fprintf(f, "            copy_field(e, %u, out + %u, 0, %u);\n", lo,
                    s->out_off + lf->offset, lf->width);
            lo += lf->width;
        }
        fprintf(f, "            %s_tail = (%s_tail + 1) & %u;\n        }\n", l->name, l->name,
                l->depth - 1);
        fprintf(f, "        if (pop) %s_head = (%s_head + 1) & %u;\n", l->name, l->name, l->depth - 1);
        fprintf(f, "        %s_count = %s_count + push - pop;\n", l->name, l->name);
        fprintf(f, "        memcpy(st + %u, &%s_count, 4);\n        memcpy(st + %u, &%s_head, 4);\n"
                   "        memcpy(st + %u, &%s_tail, 4);\n    }\n",
                l->st_off, l->name, l->st_off + 4, l->name, l->st_off + 8, l->name);
    }
    fprintf(f, "}\n");
    fclose(f);
}

/* ---- interface --------------------------------------------------------- */
static void write_iface(const net_t *n, const char *dir) {
    FILE *f = open_out(dir, n->top, ".iface");
    fprintf(f, "hlsnic-iface 1\n# generated by rtl-gen --compose from %s\n", n->net);
    fprintf(f, "top %s\nsource %s/%s_model.c\n", n->top, dir, n->top);
    for (unsigned i = 0; i < n->n_inst; i++) {
        bool dup = false;
        for (unsigned j = 0; j < i; j++) dup |= !strcmp(n->inst[j].file, n->inst[i].file);
        if (!dup) fprintf(f, "native %s\n", n->inst[i].file);
    }
    for (unsigned i = 0; i < n->n_inst; i++) {
        bool dup = false;
        for (unsigned j = 0; j < i; j++) dup |= !strcmp(n->inst[j].func, n->inst[i].func);
        if (!dup) fprintf(f, "module %s/%s.v\n", dir, n->inst[i].func);
    }
    if (n->n_link) {
        char *mod = fifo_module(n);
        fprintf(f, "module %s/%s.v\n", dir, mod);
        free(mod);
    }
    fprintf(f, "struct in %u\nstruct out %u\nstruct state %u\n", n->in_size, n->out_size,
            n->state_size);
    for (unsigned i = 0; i < n->n_inst; i++) {
        const inst_t *in = &n->inst[i];
        const iface_t *c = &in->c.ifc;
        for (unsigned k = 0; k < c->n_in; k++)
            if (!linked_in(n, (int)i, (int)k))
                fprintf(f, "input %s_%s %u %u %u %d\n", in->name, c->in[k].name, c->in[k].width,
                        in->in_off + c->in[k].offset, c->in[k].size, c->in[k].is_signed);
        for (unsigned k = 0; k < c->n_out; k++)
            if (!linked_out(n, (int)i, (int)k))
                fprintf(f, "output %s_%s %u %u %u %d\n", in->name, c->out[k].name,
                        c->out[k].width, in->out_off + c->out[k].offset, c->out[k].size,
                        c->out[k].is_signed);
    }
    for (unsigned i = 0; i < n->n_inst; i++) {
        const inst_t *in = &n->inst[i];
        const iface_t *c = &in->c.ifc;
        for (unsigned k = 0; k < c->n_regs; k++)
            fprintf(f, "reg %s.%s %u %u %u %d\n", in->name, c->regs[k].name, c->regs[k].width,
                    in->st_off + c->regs[k].offset, c->regs[k].size, c->regs[k].is_signed);
        for (unsigned k = 0; c->reg_guard && k < c->n_regs; k++)
            if (c->reg_guard[k] >= 0)
                fprintf(f, "noreset %s.%s %s.%s\n", in->name, c->regs[k].name, in->name,
                        c->regs[c->reg_guard[k]].name);
        for (unsigned k = 0; k < c->n_mems; k++)
            fprintf(f, "mem %s.%s %u %u %u %u\n", in->name, c->mems[k].name, c->mems[k].width,
                    c->mems[k].depth, in->st_off + c->mems[k].offset, c->mems[k].elem_size);
    }
    for (unsigned k = 0; k < n->n_link; k++) {
        const link_t *l = &n->link[k];
        fprintf(f, "reg %s.count %u %u 4 0\nreg %s.head %u %u 4 0\nreg %s.tail %u %u 4 0\n",
                l->name, l->abits + 1, l->st_off, l->name, l->abits, l->st_off + 4, l->name,
                l->abits, l->st_off + 8);
        fprintf(f, "fifo %s %u %u %u %u\n", l->name, l->width, l->depth, l->st_off + 16,
                l->entry_bytes);
    }
    for (unsigned i = 0; i < n->n_inst; i++) { /* streams left open become top-level streams */
        const iface_t *c = &n->inst[i].c.ifc;
        for (unsigned s = 0; s < c->n_streams; s++) {
            bool linked = false;
            for (unsigned k = 0; k < n->n_link; k++) {
                const link_t *l = &n->link[k];
                linked |= c->streams[s].is_input ? (l->dst == (int)i && !strcmp(l->dst_stream, c->streams[s].name))
                                                 : (l->src == (int)i && !strcmp(l->src_stream, c->streams[s].name));
            }
            if (!linked)
                fprintf(f, "%s %s_%s\n", c->streams[s].is_input ? "stream_in" : "stream_out",
                        n->inst[i].name, c->streams[s].name);
        }
    }
    fclose(f);
}

int compose_run(const char *net_file, const char *out_dir, const char **cargs, int ncargs) {
    net_t *n = xcalloc(1, sizeof *n);
    n->net = net_file;
    FILE *f = fopen(net_file, "r");
    if (!f) {
        fprintf(stderr, "rtl-gen: cannot open '%s'\n", net_file);
        return 2;
    }
    parse(n, f);
    fclose(f);
    diag_exit_if_errors();
    for (unsigned i = 0; i < n->n_inst; i++)
        block_compile(n->inst[i].file, n->inst[i].func, cargs, ncargs, &n->inst[i].c);
    for (unsigned k = 0; k < n->n_link; k++) check_link(n, &n->link[k]);
    diag_exit_if_errors();
    check_top_names(n);
    diag_exit_if_errors();
    layout(n);
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "rtl-gen: cannot create directory '%s'\n", out_dir);
        return 2;
    }
    for (unsigned i = 0; i < n->n_inst; i++) {
        bool dup = false;
        for (unsigned j = 0; j < i; j++) dup |= !strcmp(n->inst[j].func, n->inst[i].func);
        if (dup) continue;
        char *p = xasprintf("%s/%s.v", out_dir, n->inst[i].func);
        block_write_verilog(&n->inst[i].c, p);
        free(p);
    }
    if (n->n_link) write_fifo_module(n, out_dir);
    write_top(n, out_dir);
    write_model(n, out_dir);
    write_iface(n, out_dir);
    return 0;
}
