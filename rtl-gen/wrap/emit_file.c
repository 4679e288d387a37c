#include <errno.h>
#include <string.h>

#include "emit.h"

FILE *emit_open(const char *dir, const char *top, const char *suffix) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, top, suffix);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "wrap-gen: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

bool emit_close(FILE *f, const char *dir, const char *top, const char *suffix) {
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "wrap-gen: error writing %s/%s%s\n", dir, top, suffix);
    return ok;
}
