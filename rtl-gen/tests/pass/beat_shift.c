/* beat_shift — 512-bit byte datapath of the receive path:
 *  - byte-enable masking: bytes whose keep bit is 0 are forced to zero;
 *  - realignment: drop `shift` leading bytes from a stream of 64-byte beats (strip a
 *    header that does not end on a beat boundary): output beat = bytes shift..63 of the
 *    previous beat followed by bytes 0..shift-1 of the current one;
 *  - merge: the bytes the current beat enables, the previous beat's bytes elsewhere.
 * Byte i is bits [8i+7:8i]. The previous beat is held in a 512-bit register.
 *
 * In the corpus for variable shifts of 512-bit values and the guard a shift needs:
 * x << 512 is undefined in C, so shift == 0 takes a separate path. */
#include "hls.h"

typedef struct {
    bool valid;
    hls_u512 data;
    uint64_t keep;        /* byte enables: bit i covers byte i */
    hls_uint(6) shift;    /* leading bytes to drop, 0..63 */
    bool flush;           /* end of stream: emit the tail of the held beat */
} beat_shift_in;

typedef struct {
    bool aligned_valid;
    hls_u512 aligned;     /* realigned beat (valid from the second beat on, or on flush) */
    hls_u512 merged;      /* current beat where enabled, held beat elsewhere */
    hls_u512 masked;      /* current beat with disabled bytes zeroed */
} beat_shift_out;

typedef struct {
    bool have_prev;
    hls_u512 prev;        /* last masked beat */
} beat_shift_state;

/* 64 byte enables -> 512-bit mask, one 0xFF per enabled byte. */
HLS_INLINE hls_u512 byte_mask(uint64_t keep) {
    hls_u512 m = 0;
    for (int i = 0; i < 64; i++)
        if ((keep >> i) & 1) m |= (hls_u512)0xFF << (8 * i);
    return m;
}

/* Bytes shift..63 of `lo` followed by bytes 0..shift-1 of `hi`. */
HLS_INLINE hls_u512 realign(hls_u512 lo, hls_u512 hi, hls_uint(6) shift) {
    if (shift == 0) return lo;  /* hi << 512 would be undefined */
    unsigned bits = 8u * shift; /* 8..504 */
    return (lo >> bits) | (hi << (512 - bits));
}

HLS_TOP void beat_shift(const beat_shift_in *in, beat_shift_out *out, beat_shift_state *st) {
    hls_u512 mask = byte_mask(in->keep);
    hls_u512 cur = in->data & mask;
    out->masked = cur;
    out->merged = cur | (st->prev & ~mask);
    if (in->valid) {
        if (st->have_prev) {
            out->aligned_valid = true;
            out->aligned = realign(st->prev, cur, in->shift);
        }
        st->prev = cur;
        st->have_prev = true;
    } else if (in->flush && st->have_prev) {
        out->aligned_valid = true;
        out->aligned = realign(st->prev, 0, in->shift);
        st->have_prev = false;
    }
}
