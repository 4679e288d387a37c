/* reset_proof.c — registers that need no reset (reset_proof.h says what is proved).
 *
 * The netlist keeps each wire as Verilog text of one operator; this file parses those into
 * small trees once and evaluates them in three values, per bit: known 0, known 1, unknown.
 * Text it cannot parse is a wire of unknown value that depends on every name in it. */
#include "reset_proof.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- three-valued bit vectors ------------------------------------------------------------ */
typedef struct {
    unsigned w;
    uint64_t *k, *v; /* bit i known when k has it; then its value is in v */
} tv_t;

static unsigned words(unsigned w) { return w ? (w + 63) / 64 : 1; }

static tv_t tv_new(unsigned w) {
    tv_t t = {w, xcalloc(words(w), 8), xcalloc(words(w), 8)};
    return t;
}
static void tv_free(tv_t *t) { free(t->k); free(t->v); }
static unsigned tv_known(const tv_t *t, unsigned i) { return i < t->w ? (t->k[i / 64] >> (i % 64)) & 1 : 1; }
static unsigned tv_val(const tv_t *t, unsigned i) { return i < t->w ? (t->v[i / 64] >> (i % 64)) & 1 : 0; }
static void tv_set(tv_t *t, unsigned i, int b) { /* b: 0, 1, or -1 unknown */
    uint64_t m = 1ull << (i % 64);
    t->k[i / 64] &= ~m;
    t->v[i / 64] &= ~m;
    if (b >= 0) t->k[i / 64] |= m;
    if (b > 0) t->v[i / 64] |= m;
}
static int tv_bit(const tv_t *t, unsigned i) { return tv_known(t, i) ? (int)tv_val(t, i) : -1; }

/* ---- expression trees ---------------------------------------------------------------------- */
typedef enum { N_CONST, N_SIG, N_CAT, N_REPL, N_LNOT, N_BNOT, N_RED, N_BIN, N_MUX } nk_t;

typedef struct node {
    nk_t kind;
    unsigned width;
    int sig;            /* N_SIG */
    unsigned lo;        /* N_SIG: bits [lo, lo + width) of sig */
    char op[4];         /* N_BIN, N_RED */
    bool is_signed;     /* N_BIN: operands were $signed */
    struct node **a;
    unsigned n;         /* children; N_REPL: a[0] repeated `repl` times */
    unsigned repl;
    tv_t c;             /* N_CONST */
    unsigned id;        /* index of its value in an evaluation (number_nodes) */
} node_t;

typedef struct {
    const char *s;
    const netlist_t *nl;
    int (*lookup)(void *, const char *, size_t);
    void *ctx;
    bool bad;
} parser_t;

static void skip_ws(parser_t *p) { while (*p->s == ' ' || *p->s == '\n') p->s++; }
static bool eat(parser_t *p, const char *tok) {
    skip_ws(p);
    size_t n = strlen(tok);
    if (strncmp(p->s, tok, n)) return false;
    /* "<" must not eat "<<", "=" must not eat "==" ... */
    if (n == 1 && strchr("<>=&|", tok[0]) && p->s[1] == tok[0]) return false;
    p->s += n;
    return true;
}
static node_t *mk(nk_t kind, unsigned width) {
    node_t *n = xcalloc(1, sizeof *n);
    n->kind = kind;
    n->width = width;
    return n;
}
static node_t *fail(parser_t *p) { p->bad = true; return NULL; }

/* W'[s]hXX / 'd / 'b literal, or a plain decimal (replication counts, slice bounds) */
static node_t *literal(parser_t *p) {
    char *end;
    unsigned long w = strtoul(p->s, &end, 10);
    if (*end != '\'') return fail(p);
    const char *q = end + 1;
    if (*q == 's' || *q == 'S') q++;
    char base = (char)tolower((unsigned char)*q++);
    unsigned bits_per = base == 'h' ? 4 : base == 'b' ? 1 : base == 'o' ? 3 : 0;
    if (!w || w > BITS_MAX || (!bits_per && base != 'd')) return fail(p);
    node_t *n = mk(N_CONST, (unsigned)w);
    n->c = tv_new((unsigned)w);
    const char *start = q;
    while (isxdigit((unsigned char)*q) || *q == '_') q++;
    if (base == 'd') {
        char buf[32];
        size_t len = (size_t)(q - start);
        if (len == 0 || len > 19) return fail(p);
        memcpy(buf, start, len);
        buf[len] = 0;
        unsigned long long v = strtoull(buf, NULL, 10);
        for (unsigned i = 0; i < w; i++) tv_set(&n->c, i, i < 64 ? (int)((v >> i) & 1) : 0);
    } else {
        for (unsigned i = 0; i < w; i++) tv_set(&n->c, i, 0);
        unsigned bit = 0;
        for (const char *d = q; d-- > start;) {
            if (*d == '_') continue;
            unsigned x = (unsigned)(isdigit((unsigned char)*d) ? *d - '0' : tolower((unsigned char)*d) - 'a' + 10);
            for (unsigned b = 0; b < bits_per; b++, bit++)
                if (bit < w) tv_set(&n->c, bit, (int)((x >> b) & 1));
        }
    }
    p->s = q;
    return n;
}

static node_t *expr(parser_t *p);

static node_t *primary(parser_t *p) {
    skip_ws(p);
    if (isdigit((unsigned char)*p->s)) return literal(p);
    if (eat(p, "(")) {
        node_t *e = expr(p);
        return eat(p, ")") ? e : fail(p);
    }
    if (eat(p, "$signed(")) {
        node_t *e = expr(p);
        if (!eat(p, ")") || !e) return fail(p);
        e->is_signed = true; /* seen by the operator above (only N_BIN reads it) */
        return e;
    }
    if (eat(p, "{")) {
        skip_ws(p);
        char *end;
        unsigned long r = strtoul(p->s, &end, 10);
        if (end != p->s && *end == '{') { /* {N{x}} */
            p->s = end + 1;
            node_t *x = expr(p);
            if (!x || !eat(p, "}") || !eat(p, "}") || !r) return fail(p);
            node_t *n = mk(N_REPL, x->width * (unsigned)r);
            n->a = xcalloc(1, sizeof(node_t *));
            n->a[0] = x;
            n->n = 1;
            n->repl = (unsigned)r;
            return n;
        }
        node_t *n = mk(N_CAT, 0);
        do {
            node_t *x = expr(p);
            if (!x) return fail(p);
            n->a = xrealloc(n->a, (n->n + 1) * sizeof(node_t *));
            n->a[n->n++] = x;
            n->width += x->width;
        } while (eat(p, ","));
        return eat(p, "}") ? n : fail(p);
    }
    if (isalpha((unsigned char)*p->s) || *p->s == '_') {
        const char *q = p->s;
        while (isalnum((unsigned char)*q) || *q == '_') q++;
        int s = p->lookup(p->ctx, p->s, (size_t)(q - p->s));
        p->s = q;
        if (s < 0) return fail(p); /* a localparam (FSM state) or anything else: opaque */
        unsigned sw = p->nl->sigs[s].width;
        node_t *n = mk(N_SIG, sw);
        n->sig = s;
        if (*p->s == '[') {
            char *end;
            unsigned long hi = strtoul(p->s + 1, &end, 10), lo = hi;
            if (*end == ':') lo = strtoul(end + 1, &end, 10);
            if (*end != ']' || lo > hi || hi >= sw) return fail(p);
            p->s = end + 1;
            n->lo = (unsigned)lo;
            n->width = (unsigned)(hi - lo + 1);
        }
        return n;
    }
    return fail(p);
}

static node_t *unary(parser_t *p) {
    skip_ws(p);
    static const char *const red[] = {"&", "|", "^"};
    if (eat(p, "!")) {
        node_t *n = mk(N_LNOT, 1);
        n->a = xcalloc(1, sizeof(node_t *));
        n->a[0] = unary(p);
        n->n = 1;
        return n->a[0] ? n : fail(p);
    }
    if (eat(p, "~")) {
        node_t *x = unary(p);
        if (!x) return fail(p);
        node_t *n = mk(N_BNOT, x->width);
        n->a = xcalloc(1, sizeof(node_t *));
        n->a[0] = x;
        n->n = 1;
        return n;
    }
    for (unsigned i = 0; i < 3; i++)
        if (eat(p, red[i])) {
            node_t *x = unary(p);
            if (!x) return fail(p);
            node_t *n = mk(N_RED, 1);
            strcpy(n->op, red[i]);
            n->a = xcalloc(1, sizeof(node_t *));
            n->a[0] = x;
            n->n = 1;
            return n;
        }
    return primary(p);
}

static const char *const binops[] = {">>>", "<<", ">>", "==", "!=", "<=", ">=", "&", "|", "^",
                                     "+", "-", "*", "<", ">", NULL};

static bool is_compare(const char *op) {
    return !strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, ">") ||
           !strcmp(op, "<=") || !strcmp(op, ">=");
}

/* a chain of one operator, left to right (rtl-gen writes one operator per wire; a population
 * count's sum is a chain of +); two different operators make the wire opaque */
static node_t *chain(parser_t *p) {
    node_t *l = unary(p);
    const char *op = NULL;
    while (l) {
        skip_ws(p);
        if (!strncmp(p->s, "&&", 2) || !strncmp(p->s, "||", 2)) return fail(p); /* not written */
        const char *found = NULL;
        for (unsigned i = 0; binops[i] && !found; i++)
            if (!strncmp(p->s, binops[i], strlen(binops[i]))) found = binops[i];
        if (!found) break;
        if (op && strcmp(op, found)) return fail(p);
        op = found;
        p->s += strlen(found);
        node_t *r = unary(p);
        if (!r) return fail(p);
        node_t *n = mk(N_BIN, is_compare(found) ? 1 : (l->width > r->width ? l->width : r->width));
        strcpy(n->op, found);
        n->is_signed = l->is_signed || r->is_signed;
        if (!strcmp(found, "<<") || !strcmp(found, ">>") || !strcmp(found, ">>>")) n->width = l->width;
        n->a = xcalloc(2, sizeof(node_t *));
        n->a[0] = l;
        n->a[1] = r;
        n->n = 2;
        l = n;
    }
    return l;
}

static node_t *expr(parser_t *p) {
    node_t *c = chain(p);
    if (!c || !eat(p, "?")) return c;
    node_t *a = expr(p);
    if (!a || !eat(p, ":")) return fail(p);
    node_t *b = expr(p);
    if (!b) return fail(p);
    node_t *n = mk(N_MUX, a->width > b->width ? a->width : b->width);
    n->a = xcalloc(3, sizeof(node_t *));
    n->a[0] = c;
    n->a[1] = a;
    n->a[2] = b;
    n->n = 3;
    return n;
}

static void node_free(node_t *n) {
    if (!n) return;
    for (unsigned i = 0; i < n->n; i++) node_free(n->a[i]);
    free(n->a);
    if (n->kind == N_CONST) tv_free(&n->c);
    free(n);
}

/* A node's value in one evaluation, kept so that each node is evaluated once per evaluation
 * however many times the walks ask: v is the node's own width; the bits above it read as
 * `above`, 0 or, for an operator this file does not evaluate, unknown like the rest. */
typedef struct {
    tv_t v;
    int above;
    unsigned stamp;     /* valid when equal to the evaluation's now (and v allocated) */
} node_val_t;

/* ---- the proof's state ---------------------------------------------------------------------- */
typedef struct {
    const tr_t *t;
    const netlist_t *nl;
    int *slot;          /* name hash -> signal */
    unsigned cap;
    node_t **tree;      /* per signal: parsed wire, NULL for inputs, registers, opaque wires */
    int **deps;         /* opaque wires and case tables: every signal named in their text */
    unsigned *n_deps;
    /* two evaluations: the base one (guard 0) the walks read, and one with more pins that a
     * condition (2) obligation needs; each keeps its values while the other runs */
    struct evaluation {
        tv_t *val;          /* per signal, valid when stamp == now */
        unsigned *stamp, now;
        int *pin;           /* per signal: 0/1 pinned (pin_stamp == now) */
        unsigned *pin_stamp;
        node_val_t *node;   /* per tree node (node_t.id) */
    } e[2], *cur;
    unsigned n_nodes;
    int *label;         /* condition (1): read by a root outside the group */
    bool *memo;         /* condition (2): does a signal read the register (memo_stamp match) */
    unsigned *memo_stamp, memo_now;
    int *queue;
    unsigned n_queue;
    unsigned budget;    /* steps left for condition (2) on one register */
    unsigned discharges; /* obligations left for it (each evaluates V's next value) */
} rp_t;

static unsigned hash_name(const char *s, size_t n) {
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int lookup(void *ctx, const char *s, size_t n) {
    const rp_t *r = ctx;
    for (unsigned i = hash_name(s, n) & (r->cap - 1);; i = (i + 1) & (r->cap - 1)) {
        int k = r->slot[i];
        if (k < 0) return -1;
        const char *nm = r->nl->sigs[k].name;
        if (strlen(nm) == n && !memcmp(nm, s, n)) return k;
    }
}

/* every signal named in text, for wires the parser does not take */
static void scan_deps(rp_t *r, unsigned s, const char *text) {
    for (const char *p = text; *p;) {
        if (!(isalnum((unsigned char)*p) || *p == '_')) { p++; continue; }
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_') q++;
        bool literal_part = *q == '\'' || (p > text && p[-1] == '\'');
        int k = literal_part ? -1 : lookup(r, p, (size_t)(q - p));
        if (k >= 0) {
            r->deps[s] = xrealloc(r->deps[s], (r->n_deps[s] + 1) * sizeof(int));
            r->deps[s][r->n_deps[s]++] = k;
        }
        p = q;
    }
}

static void number_nodes(rp_t *r, node_t *n) {
    n->id = r->n_nodes++;
    for (unsigned i = 0; i < n->n; i++) number_nodes(r, n->a[i]);
}

static void rp_init(rp_t *r, const tr_t *t) {
    const netlist_t *nl = &t->nl;
    r->t = t;
    r->nl = nl;
    for (r->cap = 16; r->cap < nl->n * 2 + 2; r->cap *= 2) {}
    r->slot = xcalloc(r->cap, sizeof(int));
    memset(r->slot, 0xff, r->cap * sizeof(int));
    for (unsigned i = 0; i < nl->n; i++) {
        unsigned h = hash_name(nl->sigs[i].name, strlen(nl->sigs[i].name)) & (r->cap - 1);
        while (r->slot[h] >= 0) h = (h + 1) & (r->cap - 1);
        r->slot[h] = (int)i;
    }
    unsigned n = nl->n + 1;
    r->tree = xcalloc(n, sizeof(node_t *));
    r->deps = xcalloc(n, sizeof(int *));
    r->n_deps = xcalloc(n, sizeof(unsigned));
    for (unsigned k = 0; k < 2; k++) {
        r->e[k].val = xcalloc(n, sizeof(tv_t));
        r->e[k].stamp = xcalloc(n, sizeof(unsigned));
        r->e[k].pin = xcalloc(n, sizeof(int));
        r->e[k].pin_stamp = xcalloc(n, sizeof(unsigned));
    }
    r->cur = &r->e[0];
    r->label = xcalloc(n, sizeof(int));
    r->memo = xcalloc(n, sizeof(bool));
    r->memo_stamp = xcalloc(n, sizeof(unsigned));
    r->queue = xcalloc(2 * n, sizeof(int));
    for (unsigned i = 0; i < nl->n; i++) {
        const sig_t *s = &nl->sigs[i];
        r->e[0].val[i] = tv_new(s->width);
        r->e[1].val[i] = tv_new(s->width);
        if (s->kind == SIG_WIRE) {
            parser_t p = {.s = s->expr, .nl = nl, .lookup = lookup, .ctx = r};
            node_t *e = expr(&p);
            skip_ws(&p);
            if (!p.bad && e && !*p.s) { r->tree[i] = e; number_nodes(r, e); }
            else { node_free(e); scan_deps(r, i, s->expr); }
        } else if (s->kind == SIG_CASE) {
            scan_deps(r, i, s->case_sel);
            for (unsigned k = 0; k < s->n_case; k++) scan_deps(r, i, s->case_value[k]);
        }
    }
    for (unsigned k = 0; k < 2; k++) r->e[k].node = xcalloc(r->n_nodes + 1, sizeof(node_val_t));
}

static void rp_free(rp_t *r) {
    for (unsigned i = 0; i < r->nl->n; i++) {
        node_free(r->tree[i]);
        free(r->deps[i]);
        tv_free(&r->e[0].val[i]);
        tv_free(&r->e[1].val[i]);
    }
    free(r->slot); free(r->tree); free(r->deps); free(r->n_deps);
    for (unsigned k = 0; k < 2; k++) {
        for (unsigned i = 0; i < r->n_nodes; i++) tv_free(&r->e[k].node[i].v);
        free(r->e[k].val); free(r->e[k].stamp); free(r->e[k].pin); free(r->e[k].pin_stamp);
        free(r->e[k].node);
    }
    free(r->label); free(r->queue);
    free(r->memo); free(r->memo_stamp);
}

/* ---- evaluation ------------------------------------------------------------------------------- */
/* Each node is evaluated once per evaluation: its value is kept in the evaluation (node_val_t)
 * and every later read, by an operator above it or by a walk, takes the kept one. The cost of
 * an evaluation is then one step per node, whatever the shape; evaluating an operand at each
 * read cost 2^depth on a chain such as a population count's sum. */
static const tv_t *sig_value(rp_t *r, int s);
static const node_val_t *value(rp_t *r, const node_t *n);

/* bit i of a kept value, zero-extended (or unknown above, see node_val_t) */
static int vbit(const node_val_t *x, unsigned i) { return i < x->v.w ? tv_bit(&x->v, i) : x->above; }

/* the low w bits of a kept value as an integer, when all known and under 64 bits */
static bool vu64(const node_val_t *x, unsigned w, uint64_t *out) {
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++) {
        int b = vbit(x, i);
        if (b < 0 || (b && i >= 64)) return false;
        if (b) v |= 1ull << i;
    }
    *out = v;
    return true;
}

/* the select of a mux: 0 or 1 when known (every bit above bit 0 known 0), else -1 */
static int select_value(const node_val_t *a, unsigned w) {
    int sel = vbit(a, 0);
    for (unsigned i = 1; i < w && sel >= 0; i++) if (vbit(a, i) != 0) sel = -1;
    return sel;
}

static void eval_reduce(const node_t *n, const node_val_t *a, tv_t *out) {
    int any0 = 0, any1 = 0, any_x = 0, all1 = 1, par = 0;
    unsigned w = n->a[0]->width ? n->a[0]->width : 1;
    for (unsigned i = 0; i < w; i++) {
        int b = vbit(a, i);
        if (b < 0) { any_x = 1; all1 = 0; } else if (b) { any1 = 1; par ^= 1; } else { any0 = 1; all1 = 0; }
    }
    int res;
    if (n->kind == N_LNOT) res = any1 ? 0 : any_x ? -1 : 1;
    else if (!strcmp(n->op, "|")) res = any1 ? 1 : any_x ? -1 : 0;
    else if (!strcmp(n->op, "&")) res = any0 ? 0 : all1 ? 1 : -1;
    else res = any_x ? -1 : par;
    tv_set(out, 0, res);
}

/* a binary operator; returns false when it leaves the value unknown (out untouched) */
static bool eval_binary(const node_t *n, const node_val_t *x, const node_val_t *y, tv_t *out) {
    unsigned w = n->a[0]->width > n->a[1]->width ? n->a[0]->width : n->a[1]->width;
    const char *op = n->op;
    uint64_t ux, uy;
    if (n->is_signed) return false; /* signed comparisons and arithmetic shifts are not needed */
    if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^")) {
        for (unsigned i = 0; i < out->w; i++) {
            int bx = vbit(x, i), by = vbit(y, i), res;
            if (op[0] == '&') res = (!bx || !by) ? 0 : (bx < 0 || by < 0) ? -1 : 1;
            else if (op[0] == '|') res = (bx == 1 || by == 1) ? 1 : (bx < 0 || by < 0) ? -1 : 0;
            else res = (bx < 0 || by < 0) ? -1 : bx ^ by;
            tv_set(out, i, res);
        }
        return true;
    }
    if (!strcmp(op, "==") || !strcmp(op, "!=")) {
        int res = 1;
        for (unsigned i = 0; i < w; i++) {
            int bx = vbit(x, i), by = vbit(y, i);
            if (bx >= 0 && by >= 0 && bx != by) { res = 0; break; }
            if (bx < 0 || by < 0) res = -1;
        }
        if (op[0] == '!' && res >= 0) res = !res;
        tv_set(out, 0, res);
        return true;
    }
    if ((!strcmp(op, "<<") || !strcmp(op, ">>")) && vu64(y, n->a[1]->width, &uy)) {
        for (unsigned i = 0; i < out->w; i++) {
            long src = op[0] == '<' ? (long)i - (long)uy : (long)i + (long)uy;
            tv_set(out, i, src < 0 || src >= (long)n->a[0]->width ? 0 : vbit(x, (unsigned)src));
        }
        return true;
    }
    if (w <= 64 && vu64(x, w, &ux) && vu64(y, w, &uy) && strcmp(op, ">>>")) {
        uint64_t v = !strcmp(op, "+") ? ux + uy : !strcmp(op, "-") ? ux - uy
                   : !strcmp(op, "*") ? ux * uy : !strcmp(op, "<") ? ux < uy
                   : !strcmp(op, ">") ? ux > uy : !strcmp(op, "<=") ? ux <= uy
                   : !strcmp(op, ">=") ? ux >= uy : 0;
        for (unsigned i = 0; i < out->w; i++) tv_set(out, i, i < 64 ? (int)((v >> i) & 1) : 0);
        return true;
    }
    return false;
}

/* into c->v (n->width bits, all unknown on entry): the node's value; each operand is read
 * through value(), so evaluated at most once in this evaluation */
static void eval(rp_t *r, const node_t *n, node_val_t *c) {
    tv_t *out = &c->v;
    c->above = 0;
    switch (n->kind) {
    case N_CONST:
        for (unsigned i = 0; i < out->w; i++) tv_set(out, i, tv_bit(&n->c, i));
        return;
    case N_SIG: {
        const tv_t *v = sig_value(r, n->sig);
        for (unsigned i = 0; i < out->w; i++) tv_set(out, i, tv_bit(v, n->lo + i));
        return;
    }
    case N_CAT: {
        unsigned lo = n->width;
        for (unsigned k = 0; k < n->n; k++) {
            lo -= n->a[k]->width;
            const node_val_t *x = value(r, n->a[k]);
            for (unsigned i = 0; i < n->a[k]->width; i++) tv_set(out, lo + i, vbit(x, i));
        }
        return;
    }
    case N_REPL: {
        const node_val_t *x = value(r, n->a[0]);
        for (unsigned i = 0; i < out->w; i++) tv_set(out, i, vbit(x, i % n->a[0]->width));
        return;
    }
    case N_LNOT:
    case N_RED:
        eval_reduce(n, value(r, n->a[0]), out);
        return;
    case N_BNOT: {
        const node_val_t *a = value(r, n->a[0]);
        for (unsigned i = 0; i < out->w; i++) {
            int b = vbit(a, i);
            tv_set(out, i, b < 0 ? -1 : !b);
        }
        return;
    }
    case N_MUX: {
        int sel = select_value(value(r, n->a[0]), n->a[0]->width ? n->a[0]->width : 1);
        const node_val_t *x = sel != 0 ? value(r, n->a[1]) : NULL;
        const node_val_t *y = sel != 1 ? value(r, n->a[2]) : NULL;
        for (unsigned i = 0; i < out->w; i++) {
            int bx = x ? vbit(x, i) : -1, by = y ? vbit(y, i) : -1;
            tv_set(out, i, sel == 1 ? bx : sel == 0 ? by : bx == by ? bx : -1);
        }
        return;
    }
    case N_BIN:
        if (!eval_binary(n, value(r, n->a[0]), value(r, n->a[1]), out)) c->above = -1;
        return;
    }
}

static const node_val_t *value(rp_t *r, const node_t *n) {
    node_val_t *c = &r->cur->node[n->id];
    if (c->v.k && c->stamp == r->cur->now) return c;
    if (!c->v.k) c->v = tv_new(n->width);
    for (unsigned i = 0; i < c->v.w; i++) tv_set(&c->v, i, -1);
    eval(r, n, c);
    c->stamp = r->cur->now;
    return c;
}

static const tv_t *sig_value(rp_t *r, int s) {
    tv_t *v = &r->cur->val[s];
    if (r->cur->stamp[s] == r->cur->now) return v;
    r->cur->stamp[s] = r->cur->now;
    for (unsigned i = 0; i < v->w; i++) tv_set(v, i, -1);
    if (r->cur->pin_stamp[s] == r->cur->now) {
        tv_set(v, 0, r->cur->pin[s]);
        for (unsigned i = 1; i < v->w; i++) tv_set(v, i, 0);
    } else if (r->tree[s]) {
        const node_val_t *x = value(r, r->tree[s]);
        for (unsigned i = 0; i < v->w; i++) tv_set(v, i, vbit(x, i));
    }
    return v;
}

static void new_evaluation(rp_t *r) { r->cur->now++; }
static void pin(rp_t *r, int s, int value) {
    r->cur->pin[s] = value;
    r->cur->pin_stamp[s] = r->cur->now;
}

static bool node_known(rp_t *r, const node_t *n) {
    const node_val_t *x = value(r, n);
    for (unsigned i = 0; i < (n->width ? n->width : 1); i++) if (vbit(x, i) < 0) return false;
    return true;
}

/* For a mux whose select is known: the arm it takes (1: true, 2: false); else 0. */
static int taken_arm(rp_t *r, const node_t *n) {
    if (n->kind != N_MUX) return 0;
    uint64_t s;
    return vu64(value(r, n->a[0]), n->a[0]->width ? n->a[0]->width : 1, &s) ? (s ? 1 : 2) : 0;
}

/* ---- condition (1): what the roots outside the group read ----------------------------------- */
static void push(rp_t *r, int s) {
    if (r->label[s]) return;
    r->label[s] = 1;
    r->queue[r->n_queue++] = s;
}

/* the signals node n reads, given what is known: a known value reads nothing, a mux with a
 * known select reads one arm */
static void node_deps(rp_t *r, const node_t *n) {
    if (node_known(r, n)) return;
    if (n->kind == N_SIG) { push(r, n->sig); return; }
    int arm = taken_arm(r, n);
    if (arm) { node_deps(r, n->a[arm]); return; }
    for (unsigned i = 0; i < n->n; i++) node_deps(r, n->a[i]);
}

static void push_root(rp_t *r, val_t v) { if (v.sig >= 0) push(r, v.sig); }

/* label[s] = 1 for every signal an output, a memory port or the next value of a register
 * outside the group reads, with the evaluation as it stands */
static void reach(rp_t *r, const bool *in_group) {
    const tr_t *t = r->t;
    const iface_t *f = t->ifc;
    memset(r->label, 0, r->nl->n * sizeof(int));
    r->n_queue = 0;
    for (unsigned i = 0; i < f->n_out; i++) push_root(r, t->out_val[i]);
    for (unsigned i = 0; i < f->n_regs; i++) if (!in_group[i]) push_root(r, t->reg_next[i]);
    for (unsigned i = 0; i < f->n_mems; i++) {
        const mem_ports_t *p = &t->mem[i];
        val_t port[] = {p->re, p->ra, p->we, p->wa, p->wd};
        for (unsigned k = 0; k < 5; k++) push_root(r, port[k]);
    }
    while (r->n_queue) {
        int s = r->queue[--r->n_queue];
        if (r->tree[s]) node_deps(r, r->tree[s]);
        else if (r->cur->pin_stamp[s] != r->cur->now)
            for (unsigned k = 0; k < r->n_deps[s]; k++) push(r, r->deps[s][k]);
    }
}

/* ---- condition (2): a group register's next value, walked down to its reads of the group ---- */
#define MAX_PINS 24
typedef struct {
    int sig[MAX_PINS], val[MAX_PINS];
    unsigned n;
} pins_t;

typedef struct {
    rp_t *r;
    const bool *member;  /* per signal: a register of the group */
    int guard_sig;
    val_t guard_next;
    bool ok;
} obligation_t;

/* With V = 0 and the pins, V's next value must be 0 (in the second evaluation, so the base
 * one the walk reads is kept). */
static void discharge(obligation_t *o, const pins_t *p) {
    rp_t *r = o->r;
    if (!r->discharges) { o->ok = false; return; }
    r->discharges--;
    r->cur = &r->e[1];
    new_evaluation(r);
    pin(r, o->guard_sig, 0);
    for (unsigned i = 0; i < p->n; i++) pin(r, p->sig[i], p->val[i]);
    bool zero = o->guard_next.sig < 0 ? v_is_const_value(o->guard_next, 0)
                                      : (tv_bit(sig_value(r, o->guard_next.sig), 0) == 0);
    if (!zero) o->ok = false;
    r->cur = &r->e[0];
}

static bool reads_group(rp_t *r, const node_t *n, const bool *member);

static bool sig_reads_group(rp_t *r, int s, const bool *member) {
    if (member[s]) return true;
    if (r->memo_stamp[s] == r->memo_now) return r->memo[s];
    r->memo_stamp[s] = r->memo_now;
    bool yes = false;
    if (r->tree[s]) yes = reads_group(r, r->tree[s], member);
    else if (r->cur->pin_stamp[s] != r->cur->now)
        for (unsigned k = 0; k < r->n_deps[s] && !yes; k++) yes = sig_reads_group(r, r->deps[s][k], member);
    r->memo[s] = yes;
    return yes;
}

/* does n depend on the group, given what is known (known values and selects cut it off)? */
static bool reads_group(rp_t *r, const node_t *n, const bool *member) {
    if (node_known(r, n)) return false;
    if (n->kind == N_SIG) return sig_reads_group(r, n->sig, member);
    int arm = taken_arm(r, n);
    if (arm) return reads_group(r, n->a[arm], member);
    for (unsigned i = 0; i < n->n; i++) if (reads_group(r, n->a[i], member)) return true;
    return false;
}

static void walk_next(obligation_t *o, const node_t *n, pins_t *p);

static void walk_sig(obligation_t *o, int s, pins_t *p) {
    rp_t *r = o->r;
    if (!o->ok) return;
    if (!r->budget) { o->ok = false; return; }
    r->budget--;
    if (o->member[s]) { discharge(o, p); return; }
    if (r->tree[s]) { walk_next(o, r->tree[s], p); return; }
    if (sig_reads_group(r, s, o->member)) discharge(o, p); /* opaque: the group passes somehow */
}

static void walk_next(obligation_t *o, const node_t *n, pins_t *p) {
    rp_t *r = o->r;
    if (!o->ok) return;
    /* the base evaluation (V = 0, no pins) decides what can depend on the group */
    if (!reads_group(r, n, o->member)) return;
    switch (n->kind) {
    case N_SIG: walk_sig(o, n->sig, p); return;
    case N_CAT:
    case N_REPL:
        for (unsigned i = 0; i < n->n; i++) walk_next(o, n->a[i], p);
        return;
    case N_MUX: {
        const node_t *sel = n->a[0];
        if (sel->kind != N_SIG || sel->width != 1 || r->nl->sigs[sel->sig].width != 1 || p->n == MAX_PINS) {
            discharge(o, p);
            return;
        }
        for (int v = 1; v >= 0; v--) {
            bool clash = false, dup = false;
            for (unsigned i = 0; i < p->n; i++)
                if (p->sig[i] == sel->sig) { if (p->val[i] != v) clash = true; else dup = true; }
            if (clash) continue; /* this arm cannot be taken on this path */
            if (!dup) { p->sig[p->n] = sel->sig; p->val[p->n++] = v; }
            walk_next(o, n->a[v ? 1 : 2], p);
            if (!dup) p->n--;
        }
        return;
    }
    default:
        discharge(o, p); /* the group passes through an operator: V must stay 0 whatever it is */
    }
}

/* ---- the proof ------------------------------------------------------------------------------ */
#define WALK_BUDGET 4096
#define DISCHARGES 64

/* Condition (2) for register i with the group given by member[] (per signal), guard g. */
static bool fresh_when_set(rp_t *r, unsigned g, unsigned i, const bool *member) {
    const tr_t *t = r->t;
    if (t->reg_next[i].sig < 0) return true; /* a constant: written whenever */
    obligation_t o = {.r = r, .member = member, .guard_sig = t->reg_sig[g],
                      .guard_next = t->reg_next[g], .ok = true};
    r->memo_now++;
    r->budget = WALK_BUDGET;
    r->discharges = DISCHARGES;
    pins_t p = {.n = 0};
    walk_sig(&o, t->reg_next[i].sig, &p);
    return o.ok;
}

/* The group guard g hides, in in_group: start from every free register; drop those read by an
 * output, a memory port or a register outside the group (1), those not written afresh when g
 * is set even counting only their own reads (2, alone), then those not written afresh from
 * outside the group (2); repeat until nothing is dropped. Returns the group's size. */
static unsigned group_of(rp_t *r, unsigned g, const bool *free_reg, bool *in_group, bool *member,
                         bool *alone_checked) {
    const tr_t *t = r->t;
    const iface_t *f = t->ifc;
    unsigned nr = f->n_regs, n = 0;
    for (unsigned i = 0; i < nr; i++) {
        in_group[i] = free_reg[i] && i != g && t->reg_sig[i] >= 0;
        n += in_group[i];
        alone_checked[i] = false;
    }
    new_evaluation(r);
    pin(r, t->reg_sig[g], 0);
    for (bool dropped = true; dropped && n;) {
        dropped = false;
        reach(r, in_group); /* (1) */
        for (unsigned i = 0; i < nr; i++)
            if (in_group[i] && r->label[t->reg_sig[i]]) { in_group[i] = false; n--; dropped = true; }
        if (dropped) continue;
        for (unsigned pass = 0; pass < 2 && !dropped; pass++) {
            memset(member, 0, r->nl->n * sizeof(bool));
            for (unsigned i = 0; pass && i < nr; i++) if (in_group[i]) member[t->reg_sig[i]] = true;
            for (unsigned i = 0; i < nr; i++) {
                if (!in_group[i] || (!pass && alone_checked[i])) continue;
                if (!pass) { member[t->reg_sig[i]] = true; alone_checked[i] = true; }
                bool ok = fresh_when_set(r, g, i, member);
                if (!pass) member[t->reg_sig[i]] = false;
                if (!ok) { in_group[i] = false; n--; dropped = true; }
            }
        }
    }
    return n;
}

void reset_proof(const tr_t *t, iface_t *ifc) {
    unsigned nr = ifc->n_regs;
    ifc->reg_guard = xcalloc(nr + 1, sizeof(int));
    for (unsigned i = 0; i < nr; i++) ifc->reg_guard[i] = -1;
    rp_t r = {0};
    rp_init(&r, t);
    bool *free_reg = xcalloc(nr + 1, sizeof(bool)), *in_group = xcalloc(nr + 1, sizeof(bool));
    bool *alone = xcalloc(nr + 1, sizeof(bool)), *member = xcalloc(r.nl->n + 1, sizeof(bool));
    for (unsigned i = 0; i < nr; i++) free_reg[i] = true;
    /* guards in register order; a guard keeps its reset; a register hidden by one guard is
     * neither a guard nor in another group */
    for (unsigned g = 0; g < nr; g++) {
        if (ifc->regs[g].width != 1 || t->reg_sig[g] < 0 || !free_reg[g]) continue;
        if (!group_of(&r, g, free_reg, in_group, member, alone)) continue;
        free_reg[g] = false;
        for (unsigned i = 0; i < nr; i++)
            if (in_group[i]) { ifc->reg_guard[i] = (int)g; free_reg[i] = false; }
    }
    free(free_reg); free(in_group); free(alone); free(member);
    rp_free(&r);
}

bool reset_proof_ignores_unless(const tr_t *t, unsigned valid, const int *data, unsigned n) {
    rp_t r = {0};
    rp_init(&r, t);
    unsigned nr = t->ifc->n_regs;
    bool *none = xcalloc(nr + 1, sizeof(bool)); /* no group: every register's next is a root */
    new_evaluation(&r);
    pin(&r, t->in_sig[valid], 0);
    reach(&r, none);
    bool ignored = true;
    for (unsigned i = 0; i < n && ignored; i++) ignored = !r.label[t->in_sig[data[i]]];
    free(none);
    rp_free(&r);
    return ignored;
}
