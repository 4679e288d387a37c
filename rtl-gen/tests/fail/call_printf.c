/* call_printf — debug printing from the cycle function. Rejected: printf has no body
 * rtl-gen can inline, and I/O has no hardware meaning. Print from the testbench. */
#include <stdio.h>

#include "hls.h"

typedef struct { uint32_t x; } call_printf_in;
typedef struct { uint32_t y; } call_printf_out;
typedef struct { bool unused; } call_printf_state;

HLS_TOP void call_printf(const call_printf_in *in, call_printf_out *out, call_printf_state *st) {
    (void)st;
    printf("x = %u\n", in->x); /* expect-error: unsupported-call */
    out->y = in->x;
}
