/* dev_side.h — the helpers the device tests share (dev_side.c). */
#ifndef DEV_SIDE_H
#define DEV_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlsnic_dev.h"
#include "nic_bar.h"
#include "nic_if.h"

#define DEADLINE_S 60.0 /* per wait: generous for the RTL model on a loaded machine */
/* ---- one side: a device, its function, its memory ---------------------------------------- */
enum { SCQ = 1, RCQ = 2, CQ_LOG = 6, SQ_LOG = 6, RQ_LOG = 6, MR_LEN = 0x10000, PMTU = 3 /* 1024 */ };
#define ACC (NIC_ACC_LOCAL_WRITE | NIC_ACC_REMOTE_WRITE | NIC_ACC_REMOTE_READ | NIC_ACC_REMOTE_ATOMIC)

typedef struct {
    const char *name;
    hlsnic_dev_t *d;
    unsigned fn;
    uint64_t mac;
    uint32_t ip, qpn, key, psn;
    nic_cqe_t *cq[3];           /* [SCQ], [RCQ] rings */
    uint32_t ci[3];
    nic_sq_wqe_t *sq;
    nic_rq_wqe_t *rq;
    uint16_t sq_pi, rq_pi;
    uint8_t *mr;                /* MR_LEN bytes, DMA-mapped except the last 4 KiB page */
    unsigned timeout;           /* the QP's ACK timeout exponent (4.096 us x 2^t); 0 -> 14 */
} side_t;

/* PASS/FAIL lines; failures counts the FAILs, why holds the last reason */
extern int failures;
extern char why[1024];
void check(bool ok, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double now_s(void);
void pause_us(unsigned us);
/* page-aligned zeroed memory (never freed: the tests' host memory) */
void *mem(size_t len);
/* A command through the mailbox: bytes, GO, poll STATUS, response bytes. Status or -1. */
int command(side_t *s, nic_cmd_t c, nic_cmd_resp_t *resp);
unsigned cq_row(const side_t *s, uint32_t cqn);
/* rings, MR and one RC QP in RTS towards peer (every step checked) */
bool setup(side_t *s, const side_t *peer);
/* s's rings and MR mapped on device d too (a migration's destination: the memory stays) */
bool map_side(hlsnic_dev_t *d, side_t *s);
void post_send(side_t *s, nic_sq_wqe_t w);
void post_recv(side_t *s, nic_rq_wqe_t w);
/* the next CQE of CQ q by its owner bit; false after DEADLINE_S */
bool poll_cq(side_t *s, int q, nic_cqe_t *out);
void fill(uint8_t *p, size_t n, unsigned seed);
/* the next CQE of q is (wr_id, opcode, status, byte_len unless len < 0): one check line */
bool cqe_ok(const char *name, side_t *s, int q, uint64_t wr_id, unsigned opc, unsigned status, long len);
void bytes_equal(const char *name, const uint8_t *got, const uint8_t *want, size_t n);
/* SEND 100 bytes a -> b into a posted receive: both CQEs and the bytes checked */
void send_recv(side_t *a, side_t *b, const char *tag);

#endif /* DEV_SIDE_H */
