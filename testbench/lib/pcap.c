/* pcap.c — see pcap.h. */
#include "pcap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pcap_writer {
    FILE *f;
};

struct pcap_reader {
    FILE *f;
    int swap;  /* file byte order differs from ours */
    int nsec;  /* timestamps in ns (else us) */
};

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

pcap_writer_t *pcap_open(const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    uint8_t h[24];
    put32(h, PCAP_MAGIC_NS);
    put16(h + 4, 2);  /* version 2.4 */
    put16(h + 6, 4);
    put32(h + 8, 0);  /* thiszone */
    put32(h + 12, 0); /* sigfigs */
    put32(h + 16, PCAP_SNAPLEN);
    put32(h + 20, PCAP_LINKTYPE_ETHERNET);
    if (fwrite(h, sizeof h, 1, f) != 1) {
        fclose(f);
        return NULL;
    }
    pcap_writer_t *w = calloc(1, sizeof *w);
    if (!w) {
        fclose(f);
        return NULL;
    }
    w->f = f;
    return w;
}

int pcap_write(pcap_writer_t *w, const uint8_t *frame, size_t len, uint64_t time_ns) {
    if (!w || len > PCAP_SNAPLEN) {
        errno = EINVAL;
        return -1;
    }
    uint8_t h[16];
    put32(h, (uint32_t)(time_ns / 1000000000u));
    put32(h + 4, (uint32_t)(time_ns % 1000000000u));
    put32(h + 8, (uint32_t)len);
    put32(h + 12, (uint32_t)len);
    if (fwrite(h, sizeof h, 1, w->f) != 1) return -1;
    if (len && fwrite(frame, len, 1, w->f) != 1) return -1;
    return 0;
}

int pcap_close(pcap_writer_t *w) {
    if (!w) return -1;
    int rc = fclose(w->f) == 0 ? 0 : -1;
    free(w);
    return rc;
}

static uint32_t get32(const uint8_t *p, int swap) {
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

pcap_reader_t *pcap_open_read(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t h[24];
    int swap = 0, nsec = 0;
    if (fread(h, sizeof h, 1, f) != 1) goto bad;
    uint32_t magic = get32(h, 0);
    if (magic == 0xa1b23c4du) nsec = 1;
    else if (magic == 0xa1b2c3d4u) nsec = 0;
    else if (magic == 0x4d3cb2a1u) nsec = 1, swap = 1;
    else if (magic == 0xd4c3b2a1u) nsec = 0, swap = 1;
    else goto bad;
    if (get32(h + 20, swap) != PCAP_LINKTYPE_ETHERNET) goto bad;
    pcap_reader_t *r = calloc(1, sizeof *r);
    if (!r) goto bad;
    r->f = f;
    r->swap = swap;
    r->nsec = nsec;
    return r;
bad:
    fclose(f);
    errno = EINVAL;
    return NULL;
}

int pcap_next(pcap_reader_t *r, uint8_t *buf, size_t cap, size_t *len, uint64_t *time_ns) {
    uint8_t h[16];
    size_t got = fread(h, 1, sizeof h, r->f);
    if (got == 0) return 0;
    if (got != sizeof h) return -1;
    uint32_t sec = get32(h, r->swap), frac = get32(h + 4, r->swap);
    uint32_t incl = get32(h + 8, r->swap);
    if (incl > 262144u) return -1;
    size_t keep = incl < cap ? incl : cap;
    if (keep && fread(buf, keep, 1, r->f) != 1) return -1;
    if (incl > keep && fseek(r->f, (long)(incl - keep), SEEK_CUR) != 0) return -1;
    if (len) *len = incl;
    if (time_ns) *time_ns = (uint64_t)sec * 1000000000u + (uint64_t)frac * (r->nsec ? 1u : 1000u);
    return 1;
}

void pcap_close_read(pcap_reader_t *r) {
    if (!r) return;
    fclose(r->f);
    free(r);
}
