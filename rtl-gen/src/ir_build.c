#include "ir_build.h"

#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

/* Why these options:
 * -O2 gives clean SSA; the vectorizers would introduce vector types.
 * The unroll threshold is raised so every bounded loop unrolls fully (rtl-gen
 * rejects any loop left), the inline threshold so every helper inlines. The full-unroll
 * count is capped at the documented bound, 4096 iterations: a longer loop stays a loop
 * and is rejected as unbounded-loop, as docs/hls-c.md promises, instead of becoming a
 * netlist of tens of thousands of stages.
 * -replexitval=never keeps a data-dependent loop a loop (instead of a closed
 * form), so the unbounded-loop rule does not depend on what SCEV can solve.
 * -gline-tables-only gives each instruction its source line for errors and
 * comments; -fno-discard-value-names keeps clang's value names for wires. */
static const char *const fixed_args[] = {
    "-std=gnu11", "-O2", "-fno-vectorize", "-fno-slp-vectorize", "-gline-tables-only",
    "-fno-discard-value-names", "-D__HLS_SYNTH__",
    "-mllvm", "-unroll-threshold=200000", "-mllvm", "-unroll-max-upperbound=4096",
    "-mllvm", "-unroll-full-max-count=4096",
    "-mllvm", "-inline-threshold=100000", "-mllvm", "-replexitval=never",
    "-emit-llvm", "-c", NULL};

LLVMModuleRef ir_build(LLVMContextRef ctx, const char *file, const char **args, int n_args) {
    char tmpl[] = "/tmp/rtl-gen-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) diag_internal("cannot create a temporary file");
    close(fd);
    const char **argv = xcalloc((size_t)n_args + 32, sizeof *argv);
    int n = 0;
    argv[n++] = "clang-19";
    for (const char *const *a = fixed_args; *a; a++) argv[n++] = *a;
    for (int i = 0; i < n_args; i++) argv[n++] = args[i];
    argv[n++] = file;
    argv[n++] = "-o";
    argv[n++] = tmpl;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "rtl-gen: cannot run clang-19 (is the clang-19 package installed?)\n");
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) diag_internal("cannot start clang-19");
    free(argv);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        unlink(tmpl);
        fprintf(stderr, "rtl-gen: clang-19 failed on %s\n", file);
        exit(1);
    }
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(tmpl, &buf, &msg))
        diag_internal("cannot read clang output: %s", msg);
    unlink(tmpl);
    LLVMModuleRef mod;
    if (LLVMParseIRInContext(ctx, buf, &mod, &msg)) diag_internal("bad IR from clang: %s", msg);
    return mod;
}
