/* top_two_params — a top function without the state parameter. Rejected: a cycle
 * function is exactly void f(const IN *in, OUT *out, STATE *state), so rtl-gen knows
 * which struct is ports and which is registers (use a dummy field for no state). */
#include "hls.h"

typedef struct { uint32_t x; } top_two_params_in;
typedef struct { uint32_t y; } top_two_params_out;

HLS_TOP void top_two_params(const top_two_params_in *in, top_two_params_out *out) { /* expect-error: top-signature */
    out->y = in->x + 1;
}
