/* nested_ports — four receive lanes, each a struct with a nested header struct and an
 * array, summarised per cycle: how many lanes carry a packet, their total length, the
 * header of a chosen lane (the priority lane if it is valid, else the lowest valid
 * one), plus per-lane statistics registers that are themselves nested.
 *
 * In the corpus for port and state flattening: arrays of structs of structs become
 * ports named lane_2_bth_psn, registers st_last_3_qpn; and for a read of an input
 * array at a dynamic index (the priority lane). */
#include "hls.h"

typedef struct {
    hls_u24 qpn;
    hls_u24 psn;
} bth_ids;

typedef struct {
    bool valid;
    bth_ids bth;
    uint16_t len;
    uint8_t sge_count[2];  /* two scatter-gather list counters, summed */
} lane_desc;

typedef struct {
    lane_desc lane[4];
    hls_uint(2) prio_lane;
} nested_ports_in;

typedef struct {
    struct {
        hls_uint(3) lanes;  /* valid lanes, 0..4 */
        uint32_t bytes;
        uint16_t sges;
    } summary;
    bool pick_valid;
    hls_uint(2) pick_lane;
    bth_ids pick;
    bool lane_big[4];       /* valid and longer than 1024 bytes */
} nested_ports_out;

typedef struct {
    struct {
        uint32_t pkts;
        uint64_t bytes;
    } stats;
    bth_ids last[4];        /* last header seen on each lane */
} nested_ports_state;

HLS_TOP void nested_ports(const nested_ports_in *in, nested_ports_out *out,
                          nested_ports_state *st) {
    hls_uint(3) lanes = 0;
    uint32_t bytes = 0;
    uint16_t sges = 0;
    bool found = false;
    hls_uint(2) first = 0;
    for (int i = 0; i < 4; i++) {
        const lane_desc *l = &in->lane[i];
        out->lane_big[i] = l->valid && l->len > 1024;
        if (!l->valid) continue;
        lanes++;
        bytes += l->len;
        sges = (uint16_t)(sges + l->sge_count[0] + l->sge_count[1]);
        st->last[i] = l->bth;
        if (!found) first = (hls_uint(2))i;
        found = true;
    }
    out->summary.lanes = lanes;
    out->summary.bytes = bytes;
    out->summary.sges = sges;

    hls_uint(2) pick = in->lane[in->prio_lane].valid ? in->prio_lane : first;
    out->pick_valid = found;
    out->pick_lane = pick;
    if (found) out->pick = in->lane[pick].bth;

    st->stats.pkts += lanes;
    st->stats.bytes += bytes;
}
