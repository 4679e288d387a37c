#include "srcmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void srcmap_add(srcmap_t *m, const char *file, unsigned line, unsigned vfirst, unsigned vlast) {
    srcmap_entry_t e = {intern(file), line, vfirst, vlast};
    ARR_PUSH(m->e, m->n, m->cap, e);
}

static int by_source(const void *a, const void *b) {
    const srcmap_entry_t *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->vfirst < y->vfirst ? -1 : x->vfirst > y->vfirst;
}

bool srcmap_write(const srcmap_t *m, const char *verilog_name, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    srcmap_entry_t *e = xmalloc((m->n + 1) * sizeof *e);
    if (m->n) memcpy(e, m->e, m->n * sizeof *e);
    qsort(e, m->n, sizeof *e, by_source);
    fprintf(f, "# rtl-gen source map (docs/rtl-gen.md): C FILE:LINE, then the lines of the\n"
               "# Verilog that compute it (ranges FIRST-LAST, comma-separated).\n"
               "hlsnic-srcmap 1\nverilog %s\n", verilog_name);
    for (unsigned i = 0; i < m->n;) {
        fprintf(f, "%s:%u ", e[i].file, e[i].line);
        unsigned j = i, lo = e[i].vfirst, hi = e[i].vlast;
        bool first = true;
        /* entries of one C line, ranges that touch merged */
        for (j = i + 1; j <= m->n; j++) {
            if (j < m->n && e[j].file == e[i].file && e[j].line == e[i].line &&
                e[j].vfirst <= hi + 1) {
                if (e[j].vlast > hi) hi = e[j].vlast;
                continue;
            }
            fprintf(f, first ? "" : ",");
            if (lo == hi) fprintf(f, "%u", lo);
            else fprintf(f, "%u-%u", lo, hi);
            first = false;
            if (j == m->n || e[j].file != e[i].file || e[j].line != e[i].line) break;
            lo = e[j].vfirst;
            hi = e[j].vlast;
        }
        fputc('\n', f);
        i = j;
    }
    free(e);
    return fclose(f) == 0;
}

char *srcmap_path(const char *verilog_path) {
    size_t n = strlen(verilog_path);
    if (n > 2 && !strcmp(verilog_path + n - 2, ".v"))
        return xasprintf("%.*s.srcmap", (int)(n - 2), verilog_path);
    return xasprintf("%s.srcmap", verilog_path);
}
