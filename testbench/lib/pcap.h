/* pcap.h — minimal pcap writer and reader for the testbench (docs/nic-architecture.md).
 * Classic pcap, nanosecond-resolution magic 0xa1b23c4d, link type 1 (Ethernet),
 * written in the host's byte order (little-endian here) as libpcap does.
 * Frames are whole Ethernet frames from the destination MAC on, without FCS.
 * Timestamps are nanoseconds (the simulator's cycle count x 4 ns). */
#ifndef TB_PCAP_H
#define TB_PCAP_H

#include <stddef.h>
#include <stdint.h>

#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINKTYPE_ETHERNET 1u
#define PCAP_SNAPLEN 65535u

typedef struct pcap_writer pcap_writer_t;
typedef struct pcap_reader pcap_reader_t;

/* Create/truncate `path` and write the file header. NULL on error (errno set). */
pcap_writer_t *pcap_open(const char *path);
/* Append one frame. 0 on success, -1 on error (len > snaplen, I/O error). */
int pcap_write(pcap_writer_t *w, const uint8_t *frame, size_t len, uint64_t time_ns);
/* Flush and close; 0 on success, -1 on error. Frees w. */
int pcap_close(pcap_writer_t *w);

/* Open a pcap for reading: accepts the nanosecond (0xa1b23c4d) and microsecond
 * (0xa1b2c3d4) magics in either byte order, link type 1 only. NULL on error. */
pcap_reader_t *pcap_open_read(const char *path);
/* Next frame into buf (at most cap bytes are stored; *len is the captured length, which
 * may exceed cap: then the frame was cut). Returns 1 for a frame, 0 at end of file,
 * -1 on a malformed file. time_ns may be NULL. */
int pcap_next(pcap_reader_t *r, uint8_t *buf, size_t cap, size_t *len, uint64_t *time_ns);
void pcap_close_read(pcap_reader_t *r);

#endif /* TB_PCAP_H */
