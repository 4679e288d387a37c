/* tx_arb — packet-atomic round-robin arbiter between the requester (source a) and the
 * responder (source b) in front of roce_tx (docs/tx_arb.md).
 *
 * in:  a_desc, a_pay   requester: roce_hdr_t per packet + ceil(payload_len/64) beats, the
 *                      final one marked `last`
 *      b_desc, b_pay   responder: the same
 * out: tx_desc, tx_pay one merged packet stream for roce_tx
 *      sent_a, sent_b  packets forwarded per source (a packet counts one cycle after its
 *                      descriptor passed)
 *
 * A source is granted when its descriptor is valid and keeps the grant until both its
 * descriptor and all of its payload beats have passed, so the descriptor stream and the
 * payload stream out of the arbiter hold the packets in the same order (roce_tx takes a
 * descriptor ahead of its frame's beats, and a FIFO may sit between us). The grant
 * alternates when both sources wait. A migration marker descriptor (mig_mark != 0) passes
 * like a packet with no payload beats, in its source's order. Streams pass through combinationally; the FIFOs of
 * the composition cut the paths. */
#include "hls.h"
#include "nic_if.h"

typedef struct {
    HLS_STREAM(roce_hdr_t) a_desc;
    HLS_STREAM(nic_beat_t) a_pay;
    HLS_STREAM(roce_hdr_t) b_desc;
    HLS_STREAM(nic_beat_t) b_pay;
    bool tx_desc_ready;
    bool tx_pay_ready;
} tx_arb_in;

typedef struct {
    bool a_desc_ready;
    bool a_pay_ready;
    bool b_desc_ready;
    bool b_pay_ready;
    HLS_STREAM(roce_hdr_t) tx_desc;
    HLS_STREAM(nic_beat_t) tx_pay;
    uint32_t sent_a;
    uint32_t sent_b;
} tx_arb_out;

typedef struct {
    bool busy;           /* a packet holds the grant */
    bool grant_b;        /* which source holds it (or held it last: round robin) */
    bool desc_done;      /* its descriptor has passed */
    bool pay_done;       /* its payload has passed: no beats, or the beat marked `last` */
    uint32_t sent_a, sent_b;
    bool fired_a, fired_b; /* a descriptor passed in the last cycle: counted in this one, so the
                              grant logic does not feed the counters' carry chains */
} tx_arb_state;

HLS_TOP void tx_arb(const tx_arb_in *in, tx_arb_out *out, tx_arb_state *st) {
    out->sent_a = st->sent_a;
    out->sent_b = st->sent_b;

    if (st->fired_a) st->sent_a++;
    if (st->fired_b) st->sent_b++;
    st->fired_a = st->fired_b = false;

    bool busy = st->busy, gb = st->grant_b, desc_done = st->desc_done, pay_done = st->pay_done;
    if (!busy) { /* a new packet: prefer the source that did not go last */
        bool va = in->a_desc.valid, vb = in->b_desc.valid;
        if (!va && !vb) return;
        gb = vb && (!va || !st->grant_b);
        const roce_hdr_t *d = gb ? &in->b_desc.data : &in->a_desc.data;
        busy = true;
        desc_done = false;
        /* a migration marker (docs/migration.md) is a packet without payload beats. The end
         * of the payload is the beat marked `last`, so no beat count (an adder and a 16-bit
         * down-counter in series) sits in the grant's path */
        pay_done = d->mig_mark || d->payload_len == 0;
    }

    /* forward the granted source */
    bool dv = !desc_done && (gb ? in->b_desc.valid : in->a_desc.valid);
    bool pv = !pay_done && (gb ? in->b_pay.valid : in->a_pay.valid);
    out->tx_desc.valid = dv;
    out->tx_desc.data = gb ? in->b_desc.data : in->a_desc.data;
    out->tx_pay.valid = pv;
    out->tx_pay.data = gb ? in->b_pay.data : in->a_pay.data;
    bool dr = !desc_done && in->tx_desc_ready;
    bool pr = !pay_done && in->tx_pay_ready;
    out->a_desc_ready = !gb && dr;
    out->b_desc_ready = gb && dr;
    out->a_pay_ready = !gb && pr;
    out->b_pay_ready = gb && pr;

    if (hls_fire(dv, in->tx_desc_ready)) {
        desc_done = true;
        st->fired_b = gb;
        st->fired_a = !gb;
    }
    if (hls_fire(pv, in->tx_pay_ready) && (gb ? in->b_pay.data.last : in->a_pay.data.last)) pay_done = true;
    st->busy = !(desc_done && pay_done);
    st->grant_b = gb;
    st->desc_done = desc_done;
    st->pay_done = pay_done;
}
