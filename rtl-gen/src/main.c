/* rtl-gen: HLS-C -> Verilog.
 *   rtl-gen FILE.c --top F -o OUT.v [--iface OUT.iface]   one cycle function
 *   rtl-gen --compose FILE.net -o DIR                     blocks joined by FIFOs
 * Passes (docs/rtl-gen.md): frontend (libclang rules + layout), ir_build
 * (clang-19 -O2), translate (if-conversion, byte-level memory model),
 * verilog_write / iface_write; compose wires compiled blocks together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "compose.h"
#include "util.h"

static void usage(void) {
    fprintf(stderr,
            "usage: rtl-gen FILE.c --top FUNCTION -o OUT.v [--iface OUT.iface] [-I DIR]... "
            "[-D NAME[=VALUE]]...\n"
            "       rtl-gen --compose FILE.net -o OUTDIR [-I DIR]... [-D NAME[=VALUE]]...\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *file = NULL, *top = NULL, *out = NULL, *out_iface = NULL;
    int compose = 0;
    const char **cargs = xcalloc((size_t)argc + 8, sizeof(char *));
    int ncargs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--top") && i + 1 < argc) top = argv[++i];
        else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--iface") && i + 1 < argc) out_iface = argv[++i];
        else if (!strcmp(a, "--compose")) compose = 1;
        else if ((!strcmp(a, "-I") || !strcmp(a, "-D")) && i + 1 < argc) {
            cargs[ncargs++] = xasprintf("%s%s", a, argv[i + 1]);
            i++;
        } else if (!strncmp(a, "-I", 2) || !strncmp(a, "-D", 2)) cargs[ncargs++] = a;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) usage();
        else if (a[0] == '-') {
            fprintf(stderr, "rtl-gen: unknown option '%s'\n", a);
            usage();
        } else if (!file) file = a;
        else {
            fprintf(stderr, "rtl-gen: more than one input file ('%s' and '%s')\n", file, a);
            usage();
        }
    }
    if (!file || !out || (!compose && !top)) {
        fprintf(stderr, "rtl-gen: missing %s\n",
                !file ? "the input file" : !out ? "-o OUTPUT" : "--top FUNCTION");
        usage();
    }
    if (compose) return compose_run(file, out, cargs, ncargs);
    compiled_t b;
    block_compile(file, top, cargs, ncargs, &b);
    block_write_verilog(&b, out);
    if (out_iface && !iface_write(&b.ifc, out_iface)) {
        fprintf(stderr, "rtl-gen: cannot write '%s'\n", out_iface);
        return 2;
    }
    return 0;
}
