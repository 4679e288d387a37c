/* ir_build.h — clang-19 lowers the HLS-C file to optimised LLVM IR. */
#ifndef RTLGEN_IR_BUILD_H
#define RTLGEN_IR_BUILD_H

#include <llvm-c/Core.h>

/* Runs clang-19 -O2 (no vectorizer, loops fully unrolled, helpers inlined),
 * returns the module, or exits with a message if clang fails. */
LLVMModuleRef ir_build(LLVMContextRef ctx, const char *file, const char **args, int n_args);

#endif
