#include "sig_index.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static unsigned hash_name(const char *s, size_t n) {
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

void sig_index_init(sig_index_t *x, const netlist_t *nl) {
    x->nl = nl;
    for (x->cap = 16; x->cap < nl->n * 2 + 2; x->cap *= 2) {}
    x->slot = xcalloc(x->cap, sizeof(int));
    memset(x->slot, 0xff, x->cap * sizeof(int));
    for (unsigned i = 0; i < nl->n; i++) {
        const char *nm = nl->sigs[i].name;
        unsigned h = hash_name(nm, strlen(nm)) & (x->cap - 1);
        while (x->slot[h] >= 0) h = (h + 1) & (x->cap - 1);
        x->slot[h] = (int)i;
    }
}

void sig_index_free(sig_index_t *x) {
    free(x->slot);
    x->slot = NULL;
}

static int find_name(const sig_index_t *x, const char *s, size_t n) {
    for (unsigned i = hash_name(s, n) & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
        int k = x->slot[i];
        if (k < 0) return -1;
        const char *nm = x->nl->sigs[k].name;
        if (strlen(nm) == n && memcmp(nm, s, n) == 0) return k;
    }
}

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void sig_index_scan(const sig_index_t *x, const char *text, void (*fn)(void *, int, bool),
                    void *arg) {
    for (const char *p = text; *p;) {
        if (!ident_char(*p)) { p++; continue; }
        const char *q = p;
        while (ident_char(*q)) q++;
        if (*q != '\'' && !(p > text && p[-1] == '\'')) {
            int k = find_name(x, p, (size_t)(q - p));
            if (k >= 0) fn(arg, k, *q != '[');
        }
        p = q;
    }
}

void sig_index_scan_sig(const sig_index_t *x, const sig_t *s, void (*fn)(void *, int, bool),
                        void *arg) {
    if (s->kind == SIG_WIRE) sig_index_scan(x, s->expr, fn, arg);
    if (s->kind == SIG_CASE) {
        sig_index_scan(x, s->case_sel, fn, arg);
        for (unsigned k = 0; k < s->n_case; k++) sig_index_scan(x, s->case_value[k], fn, arg);
    }
}
