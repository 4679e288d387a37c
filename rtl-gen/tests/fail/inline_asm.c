/* inline_asm — an inline assembly statement. Rejected under `unsupported`: it has no
 * hardware meaning (the rule id for constructs outside HLS-C that have no rule of
 * their own: vectors, volatile, asm, ...). */
#include "hls.h"

typedef struct { uint32_t x; } inline_asm_in;
typedef struct { uint32_t y; } inline_asm_out;
typedef struct { bool unused; } inline_asm_state;

HLS_TOP void inline_asm(const inline_asm_in *in, inline_asm_out *out, inline_asm_state *st) {
    (void)st;
    __asm__ volatile("nop"); /* expect-error: unsupported */
    out->y = in->x;
}
