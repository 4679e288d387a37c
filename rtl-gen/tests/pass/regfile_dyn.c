/* regfile_dyn — a 16-entry register file of small QP contexts (expected PSN, state,
 * valid) with two read ports and two write ports at dynamic indexes: a host write
 * (whole entry) and a PSN bump (epsn + 1 of one entry, as the receive path does per
 * accepted packet). Reads see the values from before this cycle's writes (the reads
 * come first in the C). When both writes hit one entry, the bump applies to the
 * freshly written entry — C statement order is the write priority.
 *
 * In the corpus for dynamic-index reads (case over the entries) and predicated
 * dynamic-index writes (one enable per entry) of a struct array in the state. */
#include "hls.h"

typedef struct {
    hls_u24 epsn;
    uint8_t qp_state;     /* RESET/INIT/RTR/RTS/... encoding, opaque here */
    bool valid;
} qp_entry;

typedef struct {
    hls_uint(4) raddr_a;
    hls_uint(4) raddr_b;
    bool we;
    hls_uint(4) waddr;
    qp_entry wdata;
    bool bump;
    hls_uint(4) bump_addr;
} regfile_dyn_in;

typedef struct {
    qp_entry rdata_a;
    qp_entry rdata_b;
    hls_u24 bumped_epsn;  /* the value the bump wrote */
} regfile_dyn_out;

typedef struct {
    qp_entry qp[16];
} regfile_dyn_state;

HLS_TOP void regfile_dyn(const regfile_dyn_in *in, regfile_dyn_out *out, regfile_dyn_state *st) {
    /* 4-bit indexes cannot leave 0..15: no guard needed */
    out->rdata_a = st->qp[in->raddr_a];
    out->rdata_b = st->qp[in->raddr_b];
    if (in->we) st->qp[in->waddr] = in->wdata;
    if (in->bump) {
        hls_u24 next = st->qp[in->bump_addr].epsn + 1; /* sees this cycle's write */
        st->qp[in->bump_addr].epsn = next;
        out->bumped_epsn = next;
    }
}
