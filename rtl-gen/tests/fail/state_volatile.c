/* state_volatile — a volatile register. Rejected: a cycle function has no side channel
 * for volatile to describe; registers change only at the clock edge. */
#include "hls.h"

typedef struct { uint8_t x; } state_volatile_in;
typedef struct { uint8_t y; } state_volatile_out;
typedef struct {
    volatile uint8_t last; /* expect-error: unsupported */
} state_volatile_state;

HLS_TOP void state_volatile(const state_volatile_in *in, state_volatile_out *out,
                            state_volatile_state *st) {
    out->y = st->last;
    st->last = in->x;
}
