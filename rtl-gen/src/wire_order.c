#include "wire_order.h"

#include <stdlib.h>

#include "diag.h"
#include "util.h"

/* A wire's place in the source: the lines of the calls that inlined its statement, from the
 * top function inwards, then the statement's line in its own function (the code of a call
 * comes before the other wires of the statement that calls it). Wires gathered after
 * the last statement (outputs, next register values) come last, in the order they were
 * made (port and register order). */
typedef struct {
    int *line;        /* outermost call first, the statement's own line last */
    unsigned n;
    bool result;      /* made after the last statement */
} place_t;

static place_t place_of(const sig_t *s) {
    place_t p = {.result = s->scope < 0};
    if (p.result) return p;
    unsigned calls = 0;
    for (const char *c = s->call; c && *c; c++) calls += *c == 'c';
    p.line = xcalloc(calls + 1, sizeof(int));
    p.n = calls + 1;
    /* s->call is "cL1cL2...", innermost call first */
    unsigned k = calls;
    for (const char *c = s->call; c && *c;) {
        char *end;
        p.line[--k] = (int)strtol(c + 1, &end, 10);
        c = end;
    }
    p.line[calls] = s->scope;
    return p;
}

static place_t *sort_place; /* for qsort's comparison */

static bool before(unsigned a, unsigned b) {
    const place_t *p = &sort_place[a], *q = &sort_place[b];
    if (p->result != q->result) return q->result;
    for (unsigned i = 0; i < p->n && i < q->n; i++)
        if (p->line[i] != q->line[i]) return p->line[i] < q->line[i];
    /* one place inside the other: code inlined into a statement before the statement's own
     * wires, which mostly read the call's result */
    if (p->n != q->n) return p->n > q->n;
    return a < b; /* one statement: the order translate.c made its wires in */
}

static int cmp_place(const void *a, const void *b) {
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x == y ? 0 : before(x, y) ? -1 : 1;
}

/* edges of the data flow: from a read wire to the wire reading it */
typedef struct {
    const netlist_t *nl;
    const bool *live;
    unsigned reader;
    unsigned (*edge)[2];
    unsigned n_edges, cap_edges;
} edges_t;

static bool printed(const netlist_t *nl, const bool *live, unsigned i) {
    return live[i] && (nl->sigs[i].kind == SIG_WIRE || nl->sigs[i].kind == SIG_CASE);
}

static void add_edge(void *arg, int sig, bool whole) {
    (void)whole;
    edges_t *e = arg;
    if ((unsigned)sig == e->reader || !printed(e->nl, e->live, (unsigned)sig)) return;
    if (e->n_edges == e->cap_edges) {
        e->cap_edges = e->cap_edges ? 2 * e->cap_edges : 1024;
        e->edge = realloc(e->edge, e->cap_edges * sizeof *e->edge);
        if (!e->edge) diag_internal("out of memory");
    }
    e->edge[e->n_edges][0] = (unsigned)sig;
    e->edge[e->n_edges][1] = e->reader;
    e->n_edges++;
}

unsigned *wire_order(const netlist_t *nl, const sig_index_t *x, const bool *live, unsigned *n,
                     bool **forward) {
    place_t *place = xcalloc(nl->n + 1, sizeof(place_t));
    unsigned *out = xcalloc(nl->n + 1, sizeof(unsigned));
    *n = 0;
    for (unsigned i = 0; i < nl->n; i++)
        if (printed(nl, live, i)) {
            place[i] = place_of(&nl->sigs[i]);
            out[(*n)++] = i;
        }
    sort_place = place;
    qsort(out, *n, sizeof *out, cmp_place);
    sort_place = NULL;
    unsigned *pos = xcalloc(nl->n + 1, sizeof(unsigned));
    for (unsigned k = 0; k < *n; k++) pos[out[k]] = k;
    edges_t e = {.nl = nl, .live = live};
    for (unsigned i = 0; i < nl->n; i++)
        if (printed(nl, live, i)) {
            e.reader = i;
            sig_index_scan_sig(x, &nl->sigs[i], add_edge, &e);
        }
    *forward = xcalloc(nl->n + 1, sizeof(bool));
    for (unsigned k = 0; k < e.n_edges; k++)
        if (pos[e.edge[k][1]] < pos[e.edge[k][0]]) (*forward)[e.edge[k][0]] = true;
    free(e.edge);
    free(pos);
    for (unsigned i = 0; i < nl->n; i++) free(place[i].line);
    free(place);
    return out;
}
