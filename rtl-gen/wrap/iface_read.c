#include "iface_read.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8

typedef struct {
    const char *path;
    unsigned line;
    bool failed;
} reader;

static void problem(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(reader *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%u: ", r->path, r->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    r->failed = true;
}

static void *grow(void *p, unsigned n, size_t elem) {
    /* capacity doubles at powers of two, so growing one element at a time is cheap */
    if (n & (n - 1)) return p;
    p = realloc(p, elem * (n ? 2 * (size_t)n : 1));
    if (!p) {
        perror("iface");
        exit(2);
    }
    return p;
}
#define PUSH(arr, n) (*((arr) = grow((arr), (n), sizeof *(arr)), &(arr)[(n)++]))

static char *dup(const char *s) {
    size_t n = strlen(s) + 1; /* strdup is POSIX, not C11 */
    char *d = malloc(n);
    if (!d) {
        perror("iface");
        exit(2);
    }
    return memcpy(d, s, n);
}

/* A Verilog identifier, or dot-joined identifiers for the registers of a composite. */
static bool good_name(const char *s) {
    for (;;) {
        if (!isalpha((unsigned char)*s) && *s != '_') return false;
        while (isalnum((unsigned char)*s) || *s == '_') s++;
        if (*s == '\0') return true;
        if (*s++ != '.') return false;
    }
}

static unsigned number(reader *r, const char *tok, const char *what) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(tok, &end, 10);
    if (!isdigit((unsigned char)*tok) || *end || errno || v > 0x7fffffffUL) {
        problem(r, "%s '%s' is not a number", what, tok);
        return 0;
    }
    return (unsigned)v;
}

static void leaf_line(reader *r, ifc_t *ifc, char **tok, unsigned n) {
    if (n != 6) {
        problem(r, "'%s' needs NAME WIDTH OFFSET SIZE SIGNED", tok[0]);
        return;
    }
    ifc_leaf l = {.name = dup(tok[1]),
                  .width = number(r, tok[2], "width"),
                  .offset = number(r, tok[3], "offset"),
                  .size = number(r, tok[4], "size"),
                  .is_signed = !strcmp(tok[5], "1"),
                  .guard = -1};
    if (!good_name(l.name)) problem(r, "bad name '%s'", l.name);
    if (strcmp(tok[5], "0") && strcmp(tok[5], "1")) problem(r, "SIGNED must be 0 or 1");
    if (l.width == 0 || l.size < (l.width + 7) / 8)
        problem(r, "%s: %u bits do not fit %u bytes", l.name, l.width, l.size);
    if (!strcmp(tok[0], "input"))
        PUSH(ifc->in, ifc->n_in) = l;
    else if (!strcmp(tok[0], "output"))
        PUSH(ifc->out, ifc->n_out) = l;
    else
        PUSH(ifc->regs, ifc->n_regs) = l;
}

static void mem_line(reader *r, ifc_t *ifc, char **tok, unsigned n) {
    if (n != 6) {
        problem(r, "'mem' needs NAME WIDTH DEPTH OFFSET ELEMSIZE");
        return;
    }
    ifc_mem m = {.name = dup(tok[1]),
                 .width = number(r, tok[2], "width"),
                 .depth = number(r, tok[3], "depth"),
                 .offset = number(r, tok[4], "offset"),
                 .elem_size = number(r, tok[5], "element size")};
    if (!good_name(m.name)) problem(r, "bad name '%s'", m.name);
    if (m.width == 0 || m.elem_size < (m.width + 7) / 8)
        problem(r, "%s: %u bits do not fit %u bytes", m.name, m.width, m.elem_size);
    if (m.depth == 0 || (m.depth & (m.depth - 1)))
        problem(r, "%s: depth %u is not a power of two", m.name, m.depth);
    PUSH(ifc->mems, ifc->n_mems) = m;
}

static void fifo_line(reader *r, ifc_t *ifc, char **tok, unsigned n) {
    if (n != 6) {
        problem(r, "'fifo' needs NAME WIDTH DEPTH OFFSET ENTRYSIZE");
        return;
    }
    ifc_fifo q = {.name = dup(tok[1]),
                  .width = number(r, tok[2], "width"),
                  .depth = number(r, tok[3], "depth"),
                  .offset = number(r, tok[4], "offset"),
                  .entry_size = number(r, tok[5], "entry size"),
                  .count = -1,
                  .head = -1};
    if (!good_name(q.name)) problem(r, "bad name '%s'", q.name);
    if (q.width == 0 || q.entry_size < (q.width + 7) / 8)
        problem(r, "%s: %u bits do not fit %u bytes", q.name, q.width, q.entry_size);
    if (q.depth < 2 || (q.depth & (q.depth - 1)))
        problem(r, "%s: depth %u is not a power of two from 2 up", q.name, q.depth);
    PUSH(ifc->fifos, ifc->n_fifos) = q;
}

/* "noreset NAME GUARD": register NAME is not reset and is defined while GUARD is 1; both
 * registers are declared by earlier lines */
static void noreset_line(reader *r, ifc_t *ifc, char **tok, unsigned n) {
    if (n != 3) {
        problem(r, "'noreset' needs NAME GUARD");
        return;
    }
    int i = -1;
    for (unsigned k = 0; k < ifc->n_regs && i < 0; k++)
        if (!strcmp(ifc->regs[k].name, tok[1])) i = (int)k;
    int g = -1;
    for (unsigned k = 0; k < ifc->n_regs && g < 0; k++)
        if (!strcmp(ifc->regs[k].name, tok[2])) g = (int)k;
    if (i < 0 || g < 0) {
        problem(r, "noreset %s %s: needs both registers declared before it", tok[1], tok[2]);
        return;
    }
    if (ifc->regs[g].width != 1 || g == i)
        problem(r, "noreset %s: guard %s must be another 1-bit register that is reset", tok[1], tok[2]);
    ifc->regs[i].guard = g;
}

static void struct_line(reader *r, ifc_t *ifc, char **tok, unsigned n, bool *have_struct) {
    static const char *const which[3] = {"in", "out", "state"};
    unsigned *size[3] = {&ifc->in_size, &ifc->out_size, &ifc->state_size};
    unsigned i = 0;
    while (i < 3 && (n != 3 || strcmp(tok[1], which[i]))) i++;
    if (i == 3) {
        problem(r, "'struct' needs in|out|state SIZE");
        return;
    }
    *size[i] = number(r, tok[2], "struct size");
    have_struct[i] = true;
}

/* The lines that take one argument: top, source, stream_in, stream_out, native, module. */
static bool one_arg_line(reader *r, ifc_t *ifc, char **tok, unsigned n) {
    const char *k = tok[0];
    bool top = !strcmp(k, "top"), source = !strcmp(k, "source");
    bool stream = !strcmp(k, "stream_in") || !strcmp(k, "stream_out");
    bool native = !strcmp(k, "native"), module = !strcmp(k, "module");
    if (!top && !source && !stream && !native && !module) return false;
    if (n != 2) {
        problem(r, "'%s' takes one argument", k);
    } else if (top || source) {
        char **dst = top ? &ifc->top : &ifc->source;
        if (*dst) problem(r, "second '%s' line", k);
        if (top && !good_name(tok[1])) problem(r, "bad top name '%s'", tok[1]);
        free(*dst);
        *dst = dup(tok[1]);
    } else if (stream) {
        ifc_stream s = {.name = dup(tok[1]), .is_input = k[7] == 'i', .valid = -1, .ready = -1};
        if (!good_name(s.name)) problem(r, "bad name '%s'", s.name);
        PUSH(ifc->streams, ifc->n_streams) = s;
    } else if (native) {
        PUSH(ifc->natives, ifc->n_natives) = dup(tok[1]);
    } else {
        PUSH(ifc->modules, ifc->n_modules) = dup(tok[1]);
    }
    return true;
}

static void line(reader *r, ifc_t *ifc, char **tok, unsigned n, bool *have_struct) {
    const char *k = tok[0];
    if (!strcmp(k, "input") || !strcmp(k, "output") || !strcmp(k, "reg"))
        leaf_line(r, ifc, tok, n);
    else if (!strcmp(k, "mem"))
        mem_line(r, ifc, tok, n);
    else if (!strcmp(k, "fifo"))
        fifo_line(r, ifc, tok, n);
    else if (!strcmp(k, "noreset"))
        noreset_line(r, ifc, tok, n);
    else if (!strcmp(k, "struct"))
        struct_line(r, ifc, tok, n, have_struct);
    else if (!one_arg_line(r, ifc, tok, n))
        problem(r, "unknown line '%s'", k);
}

static int find(const ifc_leaf *l, unsigned n, const char *name) {
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(l[i].name, name)) return (int)i;
    return -1;
}

static void check_fits(reader *r, const ifc_leaf *l, unsigned n, unsigned limit, const char *st) {
    for (unsigned i = 0; i < n; i++)
        if ((unsigned long)l[i].offset + l[i].size > limit)
            problem(r, "%s: bytes %u..%u are outside struct %s (%u bytes)", l[i].name,
                    l[i].offset, l[i].offset + l[i].size - 1, st, limit);
}

/* Whole-file checks: everything must lie inside its struct and every stream must have
 * its valid and ready leaves, or the driver would poke bytes the C model never reads. */
static void check(reader *r, ifc_t *ifc, const bool *have_struct) {
    r->line = 0;
    if (!ifc->top) problem(r, "no 'top' line");
    if (!have_struct[0] || !have_struct[1] || !have_struct[2])
        problem(r, "needs 'struct in', 'struct out' and 'struct state' lines");
    check_fits(r, ifc->in, ifc->n_in, ifc->in_size, "in");
    check_fits(r, ifc->out, ifc->n_out, ifc->out_size, "out");
    check_fits(r, ifc->regs, ifc->n_regs, ifc->state_size, "state");
    for (unsigned i = 0; i < ifc->n_mems; i++) {
        const ifc_mem *m = &ifc->mems[i];
        if ((unsigned long long)m->offset + (unsigned long long)m->elem_size * (m->depth + 1) >
            ifc->state_size)
            problem(r, "memory %s does not fit struct state (%u bytes)", m->name,
                    ifc->state_size);
    }
    for (unsigned i = 0; i < ifc->n_regs; i++) {
        int g = ifc->regs[i].guard;
        if (g >= 0 && ifc->regs[g].guard >= 0)
            problem(r, "noreset %s: its guard %s is not reset itself", ifc->regs[i].name,
                    ifc->regs[g].name);
    }
    for (unsigned i = 0; i < ifc->n_fifos; i++) {
        ifc_fifo *q = &ifc->fifos[i];
        char name[512];
        snprintf(name, sizeof name, "%s.count", q->name);
        q->count = find(ifc->regs, ifc->n_regs, name);
        snprintf(name, sizeof name, "%s.head", q->name);
        q->head = find(ifc->regs, ifc->n_regs, name);
        if (q->count < 0 || q->head < 0)
            problem(r, "fifo %s: needs registers %s.count and %s.head", q->name, q->name, q->name);
        if ((unsigned long long)q->offset + (unsigned long long)q->entry_size * q->depth >
            ifc->state_size)
            problem(r, "fifo %s does not fit struct state (%u bytes)", q->name, ifc->state_size);
    }
    for (unsigned i = 0; i < ifc->n_streams; i++) {
        ifc_stream *s = &ifc->streams[i];
        char valid[512], ready[512];
        snprintf(valid, sizeof valid, "%s_valid", s->name);
        snprintf(ready, sizeof ready, "%s_ready", s->name);
        const ifc_leaf *producer = s->is_input ? ifc->in : ifc->out;
        const ifc_leaf *consumer = s->is_input ? ifc->out : ifc->in;
        s->valid = find(producer, s->is_input ? ifc->n_in : ifc->n_out, valid);
        s->ready = find(consumer, s->is_input ? ifc->n_out : ifc->n_in, ready);
        if (s->valid < 0 || s->ready < 0)
            problem(r, "stream %s: needs %s %s and %s %s", s->name,
                    s->is_input ? "input" : "output", valid, s->is_input ? "output" : "input",
                    ready);
    }
}

ifc_t *ifc_read(const char *path) {
    reader r = {.path = path};
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    ifc_t *ifc = calloc(1, sizeof *ifc);
    if (!ifc) {
        perror("iface");
        exit(2);
    }
    bool have_struct[3] = {false, false, false}, have_magic = false;
    char buf[4096];
    while (fgets(buf, sizeof buf, f)) {
        r.line++;
        char *hash = strchr(buf, '#');
        if (hash) *hash = '\0';
        char *tok[MAX_TOKENS];
        unsigned n = 0;
        for (char *t = strtok(buf, " \t\r\n"); t; t = strtok(NULL, " \t\r\n"))
            if (n < MAX_TOKENS) tok[n++] = t;
        if (n == 0) continue;
        if (!have_magic) {
            if (n != 2 || strcmp(tok[0], "hlsnic-iface") || strcmp(tok[1], "1"))
                problem(&r, "not an interface file: expected 'hlsnic-iface 1' first");
            have_magic = true;
            continue;
        }
        line(&r, ifc, tok, n, have_struct);
    }
    fclose(f);
    if (!have_magic) problem(&r, "empty interface file");
    if (!r.failed) check(&r, ifc, have_struct);
    if (r.failed) {
        ifc_free(ifc);
        return NULL;
    }
    return ifc;
}

static void free_leaves(ifc_leaf *l, unsigned n) {
    for (unsigned i = 0; i < n; i++) free(l[i].name);
    free(l);
}

void ifc_free(ifc_t *ifc) {
    if (!ifc) return;
    free(ifc->top);
    free(ifc->source);
    free_leaves(ifc->in, ifc->n_in);
    free_leaves(ifc->out, ifc->n_out);
    free_leaves(ifc->regs, ifc->n_regs);
    for (unsigned i = 0; i < ifc->n_mems; i++) free(ifc->mems[i].name);
    free(ifc->mems);
    for (unsigned i = 0; i < ifc->n_streams; i++) free(ifc->streams[i].name);
    free(ifc->streams);
    for (unsigned i = 0; i < ifc->n_fifos; i++) free(ifc->fifos[i].name);
    free(ifc->fifos);
    for (unsigned i = 0; i < ifc->n_natives; i++) free(ifc->natives[i]);
    free(ifc->natives);
    for (unsigned i = 0; i < ifc->n_modules; i++) free(ifc->modules[i]);
    free(ifc->modules);
    free(ifc);
}

bool ifc_is_stream_data(const ifc_stream *s, const char *name) {
    size_t n = strlen(s->name);
    return !strncmp(name, s->name, n) && !strncmp(name + n, "_data", 5) &&
           (name[n + 5] == '\0' || name[n + 5] == '_');
}

static unsigned reg_value(const ifc_leaf *l, const uint8_t *st) {
    unsigned v = 0;
    memcpy(&v, st + l->offset, l->size < sizeof v ? l->size : sizeof v);
    return l->width < 32 ? v & ((1u << l->width) - 1) : v;
}

bool ifc_reg_defined(const ifc_t *ifc, unsigned i, const void *st) {
    int g = ifc->regs[i].guard;
    return g < 0 || reg_value(&ifc->regs[g], st) != 0;
}

bool ifc_fifo_entry_live(const ifc_t *ifc, const ifc_fifo *f, const void *st, unsigned e) {
    unsigned count = reg_value(&ifc->regs[f->count], st);
    unsigned head = reg_value(&ifc->regs[f->head], st);
    return ((e - head) & (f->depth - 1)) < count;
}
