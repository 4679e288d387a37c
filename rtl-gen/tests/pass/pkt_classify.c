/* pkt_classify — a packet parser over the first 64 bytes of a frame, for the header
 * layouts a NIC meets: Ethernet II, one 802.1Q tag or two (QinQ, 0x88A8 outer), then IPv4
 * (with options: IHL from the header), IPv6 (fixed 40 bytes, no extension headers), ARP,
 * and over IP, UDP or TCP; UDP port 4791 is RoCEv2. It reports the layer offsets, the VLAN
 * ID, the L4 ports and a class code, all in one cycle.
 *
 * In the corpus for byte extraction at data-dependent offsets (a dynamic index into an
 * input array), several header layouts, and a chain of decisions. */
#include "hls.h"

enum { CLS_OTHER = 0, CLS_ARP = 1, CLS_IPV4 = 2, CLS_IPV6 = 3, CLS_UDP = 4, CLS_TCP = 5,
       CLS_ROCEV2 = 6 };

typedef struct {
    bool valid;
    uint8_t hdr[64];          /* the frame from its first byte (destination MAC) */
} pkt_classify_in;

typedef struct {
    bool valid;
    uint8_t cls;
    uint8_t l3_off, l4_off;   /* byte offsets; 0 when there is no such layer */
    hls_uint(12) vlan;        /* inner VLAN ID, 0 when untagged */
    uint16_t sport, dport;
    bool bad_ihl;
} pkt_classify_out;

typedef struct {
    bool unused;
} pkt_classify_state;

HLS_INLINE uint16_t be16(const uint8_t *p, unsigned off) {
    return (uint16_t)((unsigned)p[off & 63] << 8 | p[(off + 1) & 63]);
}

HLS_TOP void pkt_classify(const pkt_classify_in *in, pkt_classify_out *out,
                          pkt_classify_state *st) {
    (void)st;
    if (!in->valid) return;
    out->valid = true;
    const uint8_t *h = in->hdr;
    unsigned off = 12;
    uint16_t type = be16(h, off);
    if (type == 0x88A8) { /* QinQ: skip the outer tag */
        off += 4;
        type = be16(h, off);
    }
    if (type == 0x8100) {
        out->vlan = (hls_uint(12))(be16(h, off + 2) & 0x0FFF);
        off += 4;
        type = be16(h, off);
    }
    unsigned l3 = off + 2;
    unsigned proto = 0, l4 = 0;
    if (type == 0x0806) {
        out->cls = CLS_ARP;
        out->l3_off = (uint8_t)l3;
        return;
    }
    if (type == 0x0800) {
        unsigned ihl = h[l3 & 63] & 0x0F;
        if (ihl < 5) {
            out->bad_ihl = true;
            return;
        }
        out->cls = CLS_IPV4;
        proto = h[(l3 + 9) & 63];
        l4 = l3 + 4 * ihl;
    } else if (type == 0x86DD) {
        out->cls = CLS_IPV6;
        proto = h[(l3 + 6) & 63];
        l4 = l3 + 40;
    } else {
        return;
    }
    out->l3_off = (uint8_t)l3;
    if ((proto != 17 && proto != 6) || l4 + 4 > 64) return;
    out->l4_off = (uint8_t)l4;
    out->sport = be16(h, l4);
    out->dport = be16(h, l4 + 2);
    out->cls = proto == 6 ? CLS_TCP : out->dport == 4791 ? CLS_ROCEV2 : CLS_UDP;
}
