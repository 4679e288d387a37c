/* hostmem_backend_test — testbench/lib/hostmem with a memory backend (what testbench/device
 * plugs in): DMA and the backdoor go through the callbacks, a refused read answers one err
 * beat, a refused write is dropped, and the ordering rule (a read never passes an earlier
 * write, on any port) still holds with the writes pending in hostmem's queue. */
#include "../../lib/hostmem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int failures;
static void check(bool ok, const char *name, const char *fmt, ...) {
    if (ok) {
        printf("PASS %s\n", name);
        return;
    }
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", name, why);
    failures++;
}

/* The backend: a flat 64 KiB array at address 0x10000; everything else refused. */
#define BASE 0x10000u
#define SIZE 0x10000u
static uint8_t flat[SIZE];
static unsigned reads, writes, refused_reads, refused_writes;
static bool inside(uint64_t a, size_t n) { return a >= BASE && n <= SIZE && a - BASE <= SIZE - n; }
static int be_read(void *ctx, uint64_t a, void *buf, size_t n) {
    (void)ctx;
    if (!inside(a, n)) return refused_reads++, -1;
    memcpy(buf, flat + (a - BASE), n);
    reads++;
    return 0;
}
static int be_write(void *ctx, uint64_t a, const void *d, size_t n) {
    (void)ctx;
    if (!inside(a, n)) return refused_writes++, -1;
    memcpy(flat + (a - BASE), d, n);
    writes++;
    return 0;
}

/* One cycle: port p offers req (if any); returns the response beat of this cycle in *o. */
static bool cycle(hostmem_t *m, unsigned nports, int p, const hostmem_req_t *req, hostmem_port_out_t o[]) {
    bool took = false;
    for (unsigned k = 0; k < nports; k++) {
        hostmem_eval(m, k, &o[k]);
        hostmem_port_in_t in = {.resp_ready = true};
        if ((int)k == p && req) {
            in.req_valid = true;
            in.req = *req;
            took = o[k].req_ready;
        }
        hostmem_edge(m, k, &in);
    }
    hostmem_tick(m);
    return took;
}

int main(void) {
    hostmem_config_t c;
    hostmem_config_default(&c);
    c.nports = 2;
    c.write_latency = 5; /* writes wait in the queue: reads must still see them */
    c.backend = (hostmem_backend_t){.read = be_read, .write = be_write};
    hostmem_t *m = hostmem_new(&c);
    hostmem_port_out_t o[2];

    /* backdoor through the backend */
    uint8_t pat[100];
    for (int i = 0; i < 100; i++) pat[i] = (uint8_t)(i * 3 + 1);
    int r = hostmem_write(m, BASE + 10, pat, sizeof pat);
    check(r == 0 && !memcmp(flat + 10, pat, sizeof pat), "backend: backdoor write lands in the backend", "r %d", r);
    uint8_t back[100];
    hostmem_read(m, BASE + 10, back, sizeof back);
    check(!memcmp(back, pat, sizeof pat), "backend: backdoor read comes from the backend", "differs");
    r = hostmem_write(m, 0x100, pat, 8);
    check(r == -1, "backend: backdoor write outside refused", "r %d", r);

    /* a DMA write on port 0, then a read of the same bytes on port 1 while it is still queued */
    hostmem_req_t w = {.op = HOSTMEM_OP_WRITE, .addr = BASE + 0x100, .len = 64};
    for (int i = 0; i < 64; i++) w.data[i] = (uint8_t)(0xa0 + i);
    hostmem_req_t rd = {.op = HOSTMEM_OP_READ, .addr = BASE + 0x100, .len = 64, .tag = 7};
    cycle(m, 2, 0, &w, o);
    check(flat[0x100] == 0, "backend: posted write not applied before write_latency", "applied at once");
    cycle(m, 2, 1, &rd, o);
    hostmem_port_out_t got = {0};
    for (int i = 0; i < 10 && !got.resp_valid; i++) {
        cycle(m, 2, -1, NULL, o);
        if (o[1].resp_valid) got = o[1];
    }
    check(got.resp_valid && !got.resp.err && got.resp.tag == 7 && !memcmp(got.resp.data, w.data, 64),
          "backend: a read never passes an earlier write (other port, write still queued)",
          "valid %d err %d tag %u data[0] 0x%02x", got.resp_valid, got.resp.err, got.resp.tag, got.resp.data[0]);
    for (int i = 0; i < 10; i++) cycle(m, 2, -1, NULL, o);
    check(!memcmp(flat + 0x100, w.data, 64) && writes >= 2, "backend: posted write applied through the backend",
          "writes %u", writes);

    /* refused read: one err beat, last */
    hostmem_req_t bad = {.op = HOSTMEM_OP_READ, .addr = BASE + SIZE - 32, .len = 256, .tag = 9};
    cycle(m, 2, 0, &bad, o);
    int beats = 0;
    hostmem_port_out_t e = {0};
    for (int i = 0; i < 10; i++) {
        cycle(m, 2, -1, NULL, o);
        if (o[0].resp_valid) beats++, e = o[0];
    }
    check(beats == 1 && e.resp.err && e.resp.last && e.resp.tag == 9 && refused_reads == 1,
          "backend: a refused read answers one err beat", "beats %d err %d last %d tag %u refused %u", beats, e.resp.err,
          e.resp.last, e.resp.tag, refused_reads);

    /* refused write: dropped, nothing else changes */
    uint8_t before[SIZE];
    memcpy(before, flat, SIZE);
    hostmem_req_t bw = {.op = HOSTMEM_OP_WRITE, .addr = BASE - 8, .len = 16};
    memset(bw.data, 0x77, 16);
    cycle(m, 2, 0, &bw, o);
    for (int i = 0; i < 10; i++) cycle(m, 2, -1, NULL, o);
    check(refused_writes == 2 && !memcmp(before, flat, SIZE) && hostmem_idle(m),
          "backend: a refused write is dropped whole", "refused %u, memory %s", refused_writes,
          memcmp(before, flat, SIZE) ? "changed" : "same");
    hostmem_free(m);
    return failures ? 1 : 0;
}
