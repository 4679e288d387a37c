/* wrap-gen — files generated from a block's .iface for the Verilator flow
 * (docs/verilator-flow.md):
 *
 *   wrap-gen --api IFACE DIR      DIR/TOP_rtl.h + DIR/TOP_rtl.cpp: C API of the verilated model,
 *                                 DIR/TOP_public.vlt: the signals it reads made public
 *   wrap-gen --equiv IFACE DIR    DIR/TOP_native_step.c + DIR/TOP_equiv_bind.c: equiv's hooks
 *   wrap-gen --print KEY IFACE    KEY = top | natives | modules: one value per line, so the
 *                                 shell scripts never parse an .iface themselves
 *
 * Exit 0 on success, 1 if the .iface is malformed or a file cannot be written, 2 on usage. */
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "iface_read.h"

static int usage(void) {
    fprintf(stderr, "usage: wrap-gen --api IFACE DIR | --equiv IFACE DIR | "
                    "--print top|natives|modules IFACE\n");
    return 2;
}

static int print(const char *key, const ifc_t *ifc) {
    if (!strcmp(key, "top")) {
        printf("%s\n", ifc->top);
    } else if (!strcmp(key, "natives")) {
        for (unsigned i = 0; i < ifc->n_natives; i++) printf("%s\n", ifc->natives[i]);
    } else if (!strcmp(key, "modules")) {
        for (unsigned i = 0; i < ifc->n_modules; i++) printf("%s\n", ifc->modules[i]);
    } else {
        return usage();
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) return usage();
    const char *mode = argv[1];
    bool is_print = !strcmp(mode, "--print");
    if (!is_print && strcmp(mode, "--api") && strcmp(mode, "--equiv")) return usage();
    const char *iface_path = is_print ? argv[3] : argv[2];
    ifc_t *ifc = ifc_read(iface_path);
    if (!ifc) return 1;
    int rc;
    if (is_print)
        rc = print(argv[2], ifc);
    else if (!strcmp(mode, "--api"))
        rc = emit_api(ifc, iface_path, argv[3]) ? 0 : 1;
    else
        rc = emit_equiv(ifc, iface_path, argv[3]) ? 0 : 1;
    ifc_free(ifc);
    return rc;
}
