/* hlsnic_dev.h — the simulated NIC as a PCIe device inside a process (docs/device.md).
 *
 * One device = one composed NIC model (the C model or the verilated RTL, hls/nic/nic.net)
 * clocked by its own thread, with:
 *   - BAR0 per function (hls/include/nic_bar.h), reached only through hlsnic_mmio_*;
 *   - DMA into this process's memory: IOVA = virtual address, but only inside ranges the
 *     driver mapped with hlsnic_dev_dma_map (what pinning + the IOMMU do on a real host); a
 *     DMA outside every mapped range is refused (read: error beat, write: dropped), counted,
 *     and never touches memory;
 *   - an Ethernet port on a datagram socket, one frame per datagram (destination MAC onward,
 *     no FCS), QEMU's -netdev dgram format;
 *   - one interrupt per function, delivered by making an eventfd readable.
 * Not HLS-C: plain C with threads. The driver (host-driver/) uses nothing else. */
#ifndef HLSNIC_DEV_H
#define HLSNIC_DEV_H

#include <stddef.h>
#include <stdint.h>

typedef struct hlsnic_dev hlsnic_dev_t;

typedef struct {
    const char *model;  /* "c" (default when NULL) or "rtl" */
    /* The Ethernet port: "unix:LOCAL_PATH,REMOTE_PATH" or "udp:HOST:PORT,HOST:PORT" (local
     * address to bind, remote address to send to), or NULL for no port (frames dropped). */
    const char *wire;
    const char *pcap;   /* optional: write every frame sent and received here */
    /* Cycles the clock thread runs per batch before it releases the device lock (a waiting
     * MMIO call ends a batch after a multiple of 16 cycles). When the NIC is idle (no frame,
     * no doorbell, no command, no DMA pending) it runs 16-cycle batches and sleeps between
     * them at least idle_sleep_us and at least 4x the batch's time, waking at once on MMIO
     * work or a received frame (docs/device.md, "Threads and timing"). */
    unsigned batch_cycles;  /* 0 -> 256 */
    unsigned idle_sleep_us; /* 0 -> 50 */
    /* The idle jump (docs/device.md, "Idle: the clock jumps"): a device with nothing to do but
     * wait for a timer moves its clock to just before the deadline in one step, once the wire
     * has been silent for clock_jump_grace_us of wall time (0 -> 50000) and for as long as
     * this device needs to run 2^18 cycles. no_clock_jump != 0 ticks instead (comparisons). */
    unsigned clock_jump_grace_us;
    int no_clock_jump;
    /* Test hook: drop the received datagrams numbered here ("1,3": the first and the third,
     * counted from 1), as a lossy link would; NULL -> the HLSNIC_DROP_RX environment variable
     * (so a program under hlsnic-run can be given a lost frame). Counted in rx_dropped. */
    const char *drop_rx;
} hlsnic_dev_config_t;

/* Start a device. NULL on failure, with the reason in err (e.g. "wire unix:/x,/y: bind
 * /x: Permission denied", "model rtl: this build has no RTL model"). */
hlsnic_dev_t *hlsnic_dev_open(const hlsnic_dev_config_t *cfg, char *err, size_t errlen);
/* Stop the clock thread, close the port, free everything. */
void hlsnic_dev_close(hlsnic_dev_t *d);

/* ---- the Ethernet port handed over (live migration; docs/device.md, "Moving the port") ----
 * A migration's destination is opened with no wire (cfg.wire NULL), loaded while the source
 * still owns the port, and takes the port only once the load succeeded; until then the source
 * can go back to running on it. */
/* Move from's port to `to`, which has none: the bound socket itself, so frames the peer sent
 * that from had not taken yet are received by `to`; its remote address; the unix path, now
 * removed when `to` closes. `from` is left without a port (its frames are counted and
 * dropped). 0, or -1 with the reason in err. */
int hlsnic_dev_wire_move(hlsnic_dev_t *from, hlsnic_dev_t *to, char *err, size_t errlen);
/* Give a device that has no port one (wire as in hlsnic_dev_config_t). 0, or -1 with the
 * reason in err (the open errors of hlsnic_dev_open, or "it has a port already"). */
int hlsnic_dev_wire_attach(hlsnic_dev_t *d, const char *wire, char *err, size_t errlen);

/* ---- MMIO: BAR0 of function fn (offsets from nic_bar.h) ---- */
uint64_t hlsnic_mmio_read64(hlsnic_dev_t *d, unsigned fn, uint32_t off);
void hlsnic_mmio_write64(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint64_t v);
uint32_t hlsnic_mmio_read32(hlsnic_dev_t *d, unsigned fn, uint32_t off);
void hlsnic_mmio_write32(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint32_t v);
/* Byte bursts into / out of the mailbox (NIC_BAR_CMD / NIC_BAR_RESP windows only). */
void hlsnic_mmio_write_burst(hlsnic_dev_t *d, unsigned fn, uint32_t off, const void *buf, size_t len);
void hlsnic_mmio_read_burst(hlsnic_dev_t *d, unsigned fn, uint32_t off, void *buf, size_t len);

/* ---- interrupts ---- */
/* An eventfd that becomes readable (counter incremented) when function fn raises its
 * interrupt; the driver reads it to clear, then pops events from NIC_BAR_EVENT. */
int hlsnic_dev_irq_fd(hlsnic_dev_t *d, unsigned fn);

/* ---- DMA mapping (the kernel's job on a real host: pin + IOMMU map) ---- */
/* Allow device DMA to [va, va+len). 0, or -1 with errno (EINVAL, ENOMEM). */
int hlsnic_dev_dma_map(hlsnic_dev_t *d, const void *va, size_t len);
/* Remove a mapping made with exactly these arguments. 0, or -1 with errno ENOENT. */
int hlsnic_dev_dma_unmap(hlsnic_dev_t *d, const void *va, size_t len);

/* ---- diagnostics ---- */
typedef struct {
    uint64_t cycles;
    uint64_t tx_frames, rx_frames, rx_dropped;
    uint64_t dma_reads, dma_writes, dma_faults; /* faults: outside every mapped range */
    /* additions (docs/device.md) */
    uint64_t tx_dropped;   /* frames the NIC sent that the socket did not take (peer absent, full) */
    uint64_t mmio_errors;  /* MMIO accesses that were not a register (hlsnic_dev_mmio_error) */
    uint64_t jumps, cycles_jumped; /* idle jumps, and the cycles they skipped (in `cycles`) */
} hlsnic_dev_stats_t;
void hlsnic_dev_stats(hlsnic_dev_t *d, hlsnic_dev_stats_t *s);
/* The first DMA fault as text ("cycle 123: write 0x7f..+64 outside every mapping"), or NULL. */
const char *hlsnic_dev_first_fault(hlsnic_dev_t *d);
/* The first MMIO access that was not a register, as text ("fn 0: read64 at BAR offset 0x5:
 * misaligned"), or NULL. Such a read answers all ones and such a write is dropped, as on PCIe. */
const char *hlsnic_dev_mmio_error(hlsnic_dev_t *d);

#endif /* HLSNIC_DEV_H */
