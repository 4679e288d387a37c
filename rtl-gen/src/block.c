#include "block.h"

#include <llvm-c/Core.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "frontend.h"
#include "ir_build.h"
#include "reset_proof.h"
#include "srcmap.h"
#include "util.h"
#include "verilog_write.h"

void block_compile(const char *file, const char *top, const char **cargs, int ncargs,
                   compiled_t *out) {
    FILE *probe = fopen(file, "r");
    if (!probe) {
        fprintf(stderr, "rtl-gen: cannot open '%s'\n", file);
        exit(2);
    }
    fclose(probe);
    /* libclang sees what clang-19 sees: same options plus the synthesis switch */
    const char **fargs = xcalloc((size_t)ncargs + 4, sizeof(char *));
    int nf = 0;
    fargs[nf++] = "-std=gnu11";
    fargs[nf++] = "-D__HLS_SYNTH__";
    for (int i = 0; i < ncargs; i++) fargs[nf++] = cargs[i];
    memset(out, 0, sizeof *out);
    frontend_opts_t fo = {.file = file, .top = top, .clang_args = fargs, .n_clang_args = nf};
    if (!frontend_run(&fo, &out->ifc)) exit(1);
    diag_exit_if_errors();

    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = ir_build(ctx, file, cargs, ncargs);
    LLVMValueRef fn = LLVMGetNamedFunction(mod, top);
    if (!fn || !LLVMCountBasicBlocks(fn))
        diag_internal("top function '%s' missing from the IR", top);
    out->tr.ifc = &out->ifc;
    out->tr.mod = mod;
    out->tr.td = LLVMCreateTargetData(LLVMGetDataLayoutStr(mod));
    translate(&out->tr, fn);
    diag_exit_if_errors();
    reset_proof(&out->tr, &out->ifc);
}

void block_write_verilog(const compiled_t *b, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "rtl-gen: cannot write '%s'\n", path);
        exit(2);
    }
    srcmap_t map = {0};
    verilog_write(f, &b->tr, &map);
    if (fclose(f) != 0) {
        fprintf(stderr, "rtl-gen: write error on '%s'\n", path);
        exit(2);
    }
    char *mpath = srcmap_path(path);
    const char *slash = strrchr(path, '/');
    if (!srcmap_write(&map, slash ? slash + 1 : path, mpath)) {
        fprintf(stderr, "rtl-gen: cannot write '%s'\n", mpath);
        exit(2);
    }
    free(mpath);
    free(map.e);
}
