/* minmax_abs — minimum, maximum, absolute value and clamping, signed and unsigned,
 * plus the smallest of four signed values and its index. |INT32_MIN| does not fit an
 * int32_t, so magnitudes are returned as uint32_t computed without signed overflow.
 * Models the rate limiter / congestion-window clamps.
 *
 * In the corpus for select-based idioms clang turns into llvm.smin/smax/umin/umax/abs,
 * which rtl-gen maps to comparators and muxes. */
#include "hls.h"

typedef struct {
    int32_t a;
    int32_t b;
    uint32_t ua;
    uint32_t ub;
    int16_t v[4];
} minmax_abs_in;

typedef struct {
    int32_t smin;
    int32_t smax;
    uint32_t umin;
    uint32_t umax;
    uint32_t abs_a;       /* |a|, exact also for INT32_MIN */
    uint32_t absdiff;     /* |a - b|, exact for all inputs */
    int32_t clamp_a;      /* a limited to [-1000, 1000] */
    int16_t vmin;
    hls_uint(2) vmin_idx; /* first index holding vmin */
} minmax_abs_out;

typedef struct {
    bool unused;
} minmax_abs_state;

HLS_INLINE int32_t smin32(int32_t x, int32_t y) { return x < y ? x : y; }
HLS_INLINE int32_t smax32(int32_t x, int32_t y) { return x > y ? x : y; }
/* magnitude in unsigned arithmetic: 0u - x wraps, it does not overflow */
HLS_INLINE uint32_t mag32(int32_t x) { return x < 0 ? 0u - (uint32_t)x : (uint32_t)x; }

HLS_TOP void minmax_abs(const minmax_abs_in *in, minmax_abs_out *out, minmax_abs_state *st) {
    (void)st;
    int32_t a = in->a, b = in->b;
    out->smin = smin32(a, b);
    out->smax = smax32(a, b);
    out->umin = in->ua < in->ub ? in->ua : in->ub;
    out->umax = in->ua > in->ub ? in->ua : in->ub;
    out->abs_a = mag32(a);
    out->absdiff = a > b ? (uint32_t)a - (uint32_t)b : (uint32_t)b - (uint32_t)a;
    out->clamp_a = smax32(-1000, smin32(a, 1000));

    int16_t m = in->v[0];
    hls_uint(2) mi = 0;
    for (int i = 1; i < 4; i++) {
        if (in->v[i] < m) {  /* strict: the first of equal values wins */
            m = in->v[i];
            mi = (hls_uint(2))i;
        }
    }
    out->vmin = m;
    out->vmin_idx = mi;
}
