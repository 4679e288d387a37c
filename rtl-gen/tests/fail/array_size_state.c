/* array_size_state — a 8192-entry flow table declared as a plain array in the state
 * struct. Rejected: that is 8192 registers and a 8192-way mux; past 4096 entries a
 * table must be an HLS_MEM (a RAM with a synchronous read). */
#include "hls.h"

typedef struct { uint16_t idx; uint32_t x; } array_size_state_in;
typedef struct { uint32_t y; } array_size_state_out;
typedef struct {
    uint32_t flow[8192]; /* expect-error: array-size */
} array_size_state_state;

HLS_TOP void array_size_state(const array_size_state_in *in, array_size_state_out *out,
                              array_size_state_state *st) {
    out->y = st->flow[in->idx & 8191];
    st->flow[in->idx & 8191] = in->x;
}
