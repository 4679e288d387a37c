#include "line_wrap.h"

#include <string.h>

unsigned line_wrap(FILE *f, unsigned col, unsigned indent, const char *text) {
    bool first = true;
    for (const char *p = text; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t word = strcspn(p, " ");
        if (!first) {
            /* a word that would cross the column starts a new line; a word longer than
             * the whole line (a wide constant) gets a line of its own */
            if (col + 1 + word > LINE_WRAP_COLUMN && col > indent) {
                fprintf(f, "\n%*s", (int)indent, "");
                col = indent;
            } else {
                fputc(' ', f);
                col++;
            }
        }
        fwrite(p, 1, word, f);
        col += (unsigned)word;
        p += word;
        first = false;
    }
    return col;
}
