/* dev_mmio.c — BAR0 of each function (hls/include/nic_bar.h; docs/device.md, "BAR0").
 *
 * Every access takes the device lock, so it lands between two batches of the clock thread,
 * as an MMIO TLP lands between two device clock edges. The function is the BAR that was
 * accessed: the device writes it into every command and doorbell, whatever software wrote.
 * An access that is not a register (outside the BAR, misaligned, a write to a read-only
 * register, the wrong width) does what PCIe does with it — a read answers all ones, a write
 * is dropped — and is counted, the first one kept as text (hlsnic_dev_mmio_error). */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BAD_READ 0xffffffffffffffffull

void dev_mmio_error(hlsnic_dev_t *d, const char *fmt, ...) {
    d->mmio_errors++;
    if (d->has_mmio_err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->mmio_err, sizeof d->mmio_err, fmt, ap);
    va_end(ap);
    d->has_mmio_err = true;
}

static bool in_window(uint32_t off, size_t len, uint32_t base, uint32_t size) {
    return off >= base && off - base <= size && len <= size - (off - base);
}

static void wake(hlsnic_dev_t *d) {
    uint64_t one = 1;
    ssize_t r = write(d->wake_fd, &one, sizeof one);
    (void)r; /* a saturated counter still wakes the thread */
}

static void raise_irq(hlsnic_dev_t *d, unsigned fn) {
    uint64_t one = 1;
    ssize_t r = write(d->fn[fn].irq_fd, &one, sizeof one);
    (void)r;
}

static uint64_t caps(void) {
    return (uint64_t)NIC_FNS | (uint64_t)NIC_QP_PER_FN << 8 | (uint64_t)NIC_CQ_PER_FN << 16 |
           (uint64_t)NIC_MR_PER_FN << 24 | (uint64_t)NIC_OUTSTANDING << 32 |
           (uint64_t)15 << 40 /* ctrl: sq_log, rq_log, cq log <= 15 (16-bit indices) */ |
           (uint64_t)5 << 48 /* IBV_MTU_4096 */;
}

/* ---- the command mailbox ---- */
static void go(hlsnic_dev_t *d, unsigned fn) {
    dev_fn_t *f = &d->fn[fn];
    if (f->busy) {
        dev_mmio_error(d, "fn %u: NIC_BAR_CMD_GO while the previous command is still busy: ignored", fn);
        return;
    }
    nic_cmd_t c;
    memcpy(&c, f->cmd, sizeof c);
    c.fn = (nic_fn_t)fn; /* a function names only its own objects */
    if (d->cmd_n == NIC_FNS || nic_tb_push(d->tb, 0, "ctrl_cmd", &c, sizeof c) < 0) {
        dev_mmio_error(d, "fn %u: the NIC's command queue did not take the command", fn);
        return;
    }
    d->cmd_owner[d->cmd_n++] = (uint8_t)fn;
    f->busy = true;
    f->done = false;
    wake(d);
}

/* ---- doorbells: bits 0..23 number, 32..47 index, CQ: 56..57 arm ---- */
static void doorbell(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint64_t v) {
    static const char *const stream[3] = {"req_sq_db", "resp_rq_db", "cqw_cq_db"};
    unsigned k = (off - NIC_BAR_SQ_DB) / 8;
    nic_db_t db = {.fn = (nic_fn_t)fn, .num = (hls_u24)(v & 0xffffff), .index = (uint16_t)(v >> 32)};
    uint8_t item[64] = {0};
    memcpy(item, &db, sizeof db);
    unsigned arm = (unsigned)(v >> 56) & 3;
    if (off == NIC_BAR_CQ_DB && arm) {
        /* the arm field exists in the model's cq_db stream only once hostif has added it: find
         * it in the interface, not in the header this file was compiled with */
        if (d->cq_db_arm_off < 0) {
            dev_mmio_error(d, "fn %u: CQ doorbell 0x%llx asks for arm %u, but this NIC model has no arm field", fn,
                           (unsigned long long)v, arm);
        } else {
            item[d->cq_db_arm_off] = (uint8_t)((item[d->cq_db_arm_off] & ~3u) | arm);
        }
    }
    if (nic_tb_push(d->tb, 0, stream[k], item, sizeof item) < 0) {
        dev_mmio_error(d, "fn %u: %s doorbell 0x%llx dropped: the NIC's doorbell queue is full", fn,
                       k == 0 ? "SQ" : k == 1 ? "RQ" : "CQ", (unsigned long long)v);
        return;
    }
    wake(d);
}

/* ---- events ---- */
static uint64_t pop_event(dev_fn_t *f) {
    if (!f->ev_n) return 0;
    uint64_t e = f->ev[f->ev_head];
    f->ev_head = (f->ev_head + 1) % NIC_BAR_EVENT_DEPTH;
    f->ev_n--;
    return e;
}

void dev_collect(hlsnic_dev_t *d) {
    nic_cmd_resp_t r;
    while (d->cmd_n && nic_tb_pop(d->tb, 0, "ctrl_cmd_resp", &r, sizeof r)) {
        dev_fn_t *f = &d->fn[d->cmd_owner[0]];
        memmove(d->cmd_owner, d->cmd_owner + 1, --d->cmd_n);
        memset(f->resp, 0, sizeof f->resp);
        memcpy(f->resp, &r, sizeof r);
        f->status = r.status;
        f->bad_field = r.bad_field;
        f->busy = false;
        f->done = true;
    }
    nic_event_t e;
    while (nic_tb_pop(d->tb, 0, "ctrl_async", &e, sizeof e)) {
        /* QP events name their QP row, the others (CQ overrun, completion events) a CQ row;
         * the row's function is the function the event belongs to */
        bool qp_event = e.kind == NIC_EV_QP_ERR || e.kind == NIC_EV_SQ_ERR || e.kind == NIC_EV_SQ_DRAINED;
        unsigned fn = qp_event ? (unsigned)e.qp / NIC_QP_PER_FN : (unsigned)e.cq / NIC_CQ_PER_FN;
        dev_fn_t *f = &d->fn[fn % NIC_FNS];
        if (f->ev_n == NIC_BAR_EVENT_DEPTH) {
            f->ev_lost++; /* the oldest are kept */
            continue;
        }
        f->ev[(f->ev_head + f->ev_n++) % NIC_BAR_EVENT_DEPTH] =
            1ull << 63 | (uint64_t)e.kind | (uint64_t)(unsigned)e.qp << 8 | (uint64_t)(unsigned)e.cq << 16 |
            (uint64_t)e.detail << 24 | (uint64_t)e.in_cqe << 32;
        if (!f->irq_masked) raise_irq(d, fn % NIC_FNS);
    }
}

bool dev_mmio_pending(const hlsnic_dev_t *d) {
    return d->cmd_n || nic_tb_pending(d->tb, 0, "ctrl_cmd") || nic_tb_pending(d->tb, 0, "req_sq_db") ||
           nic_tb_pending(d->tb, 0, "resp_rq_db") || nic_tb_pending(d->tb, 0, "cqw_cq_db");
}

/* ---- register decode ---- */
static uint64_t bytes_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/* A 64-bit register without side effects; false if there is none at off. */
static bool reg64(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint64_t *v) {
    const dev_fn_t *f = &d->fn[fn];
    switch (off) {
    case NIC_BAR_ID: *v = NIC_BAR_MAGIC | (uint64_t)NIC_BAR_VERSION << 32; return true;
    case NIC_BAR_CAPS: *v = caps(); return true;
    case NIC_BAR_FN: *v = fn; return true;
    case NIC_BAR_CYCLES: *v = nic_tb_now(d->tb); return true;
    case NIC_BAR_CMD_STATUS:
        *v = (f->busy ? NIC_CMD_STATUS_BUSY : 0) | (f->done ? NIC_CMD_STATUS_DONE : 0) | (uint64_t)f->status << 8 |
             (uint64_t)f->bad_field << 16;
        return true;
    case NIC_BAR_EVENT_LOST: *v = f->ev_lost; return true;
    case NIC_BAR_IRQ_MASK: *v = f->irq_masked; return true;
    case NIC_BAR_STAT_TX_FRAMES: *v = d->st.tx_frames; return true;
    case NIC_BAR_STAT_RX_FRAMES: *v = d->st.rx_frames; return true;
    case NIC_BAR_STAT_RX_DROPPED: *v = d->st.rx_dropped; return true;
    }
    if (in_window(off, 8, NIC_BAR_CMD, NIC_BAR_CMD_MAX)) { *v = bytes_le(f->cmd + off - NIC_BAR_CMD, 8); return true; }
    if (in_window(off, 8, NIC_BAR_RESP, NIC_BAR_RESP_MAX)) { *v = bytes_le(f->resp + off - NIC_BAR_RESP, 8); return true; }
    return false;
}

static bool bad_access(hlsnic_dev_t *d, unsigned fn, uint32_t off, unsigned width, const char *op) {
    if (fn >= NIC_FNS) {
        dev_mmio_error(d, "%s%u of fn %u offset 0x%x: the device has functions 0..%u", op, width, fn, off, NIC_FNS - 1);
        return true;
    }
    if (off >= NIC_BAR_SIZE || off % (width / 8)) {
        dev_mmio_error(d, "fn %u: %s%u at BAR offset 0x%x: %s", fn, op, width, off,
                       off >= NIC_BAR_SIZE ? "outside the 64 KiB BAR" : "misaligned");
        return true;
    }
    return false;
}

uint64_t hlsnic_mmio_read64(hlsnic_dev_t *d, unsigned fn, uint32_t off) {
    dev_lock(d);
    uint64_t v = BAD_READ;
    if (!bad_access(d, fn, off, 64, "read")) {
        if (off == NIC_BAR_EVENT) v = pop_event(&d->fn[fn]);
        else if (!reg64(d, fn, off, &v)) {
            dev_mmio_error(d, "fn %u: read64 at BAR offset 0x%x: no readable register there", fn, off);
            v = BAD_READ;
        }
    }
    pthread_mutex_unlock(&d->mu);
    return v;
}

uint32_t hlsnic_mmio_read32(hlsnic_dev_t *d, unsigned fn, uint32_t off) {
    dev_lock(d);
    uint64_t v = BAD_READ;
    if (!bad_access(d, fn, off, 32, "read")) {
        uint32_t base = off & ~7u;
        if (base == NIC_BAR_EVENT) {
            dev_mmio_error(d, "fn %u: read32 of NIC_BAR_EVENT (0x%x): events pop with 64-bit reads only", fn, off);
        } else if (reg64(d, fn, base, &v)) {
            v >>= (off & 4) * 8;
        } else {
            dev_mmio_error(d, "fn %u: read32 at BAR offset 0x%x: no readable register there", fn, off);
            v = BAD_READ;
        }
    }
    pthread_mutex_unlock(&d->mu);
    return (uint32_t)v;
}

static void write_reg(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint64_t v, unsigned width) {
    dev_fn_t *f = &d->fn[fn];
    if (in_window(off, width / 8, NIC_BAR_CMD, NIC_BAR_CMD_MAX)) {
        for (unsigned i = 0; i < width / 8; i++) f->cmd[off - NIC_BAR_CMD + i] = (uint8_t)(v >> (8 * i));
        return;
    }
    if (off == NIC_BAR_CMD_GO) {
        go(d, fn);
        return;
    }
    if (off == NIC_BAR_SQ_DB || off == NIC_BAR_RQ_DB || off == NIC_BAR_CQ_DB) {
        if (width != 64) dev_mmio_error(d, "fn %u: write32 to doorbell 0x%x: doorbells are 64-bit writes", fn, off);
        else doorbell(d, fn, off, v);
        return;
    }
    if (off == NIC_BAR_IRQ_MASK) {
        bool was = f->irq_masked;
        f->irq_masked = v & 1;
        if (was && !f->irq_masked && f->ev_n) raise_irq(d, fn); /* pending while masked: deliver now */
        return;
    }
    if (off == NIC_BAR_CMD_GO + 4 || off == NIC_BAR_IRQ_MASK + 4) return; /* upper halves: no bits */
    uint64_t dummy;
    dev_mmio_error(d, "fn %u: write%u of 0x%llx at BAR offset 0x%x: %s", fn, width, (unsigned long long)v, off,
                   reg64(d, fn, off & ~7u, &dummy) || (off & ~7u) == NIC_BAR_EVENT ? "read-only register"
                                                                                  : "no register there");
}

void hlsnic_mmio_write64(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint64_t v) {
    dev_lock(d);
    if (!bad_access(d, fn, off, 64, "write")) write_reg(d, fn, off, v, 64);
    pthread_mutex_unlock(&d->mu);
}

void hlsnic_mmio_write32(hlsnic_dev_t *d, unsigned fn, uint32_t off, uint32_t v) {
    dev_lock(d);
    if (!bad_access(d, fn, off, 32, "write")) write_reg(d, fn, off, v, 32);
    pthread_mutex_unlock(&d->mu);
}

void hlsnic_mmio_write_burst(hlsnic_dev_t *d, unsigned fn, uint32_t off, const void *buf, size_t len) {
    dev_lock(d);
    if (fn >= NIC_FNS)
        dev_mmio_error(d, "write burst to fn %u: the device has functions 0..%u", fn, NIC_FNS - 1);
    else if (!in_window(off, len, NIC_BAR_CMD, NIC_BAR_CMD_MAX))
        dev_mmio_error(d, "fn %u: write burst of %zu bytes at 0x%x: outside the command window 0x%x..0x%x", fn, len,
                       off, NIC_BAR_CMD, NIC_BAR_CMD + NIC_BAR_CMD_MAX);
    else
        memcpy(d->fn[fn].cmd + off - NIC_BAR_CMD, buf, len);
    pthread_mutex_unlock(&d->mu);
}

void hlsnic_mmio_read_burst(hlsnic_dev_t *d, unsigned fn, uint32_t off, void *buf, size_t len) {
    dev_lock(d);
    if (fn >= NIC_FNS) {
        dev_mmio_error(d, "read burst from fn %u: the device has functions 0..%u", fn, NIC_FNS - 1);
        memset(buf, 0xff, len);
    } else if (in_window(off, len, NIC_BAR_RESP, NIC_BAR_RESP_MAX)) {
        memcpy(buf, d->fn[fn].resp + off - NIC_BAR_RESP, len);
    } else if (in_window(off, len, NIC_BAR_CMD, NIC_BAR_CMD_MAX)) {
        memcpy(buf, d->fn[fn].cmd + off - NIC_BAR_CMD, len);
    } else {
        dev_mmio_error(d, "fn %u: read burst of %zu bytes at 0x%x: outside the command and response windows", fn, len,
                       off);
        memset(buf, 0xff, len);
    }
    pthread_mutex_unlock(&d->mu);
}

int hlsnic_dev_irq_fd(hlsnic_dev_t *d, unsigned fn) { return fn < NIC_FNS ? d->fn[fn].irq_fd : -1; }
