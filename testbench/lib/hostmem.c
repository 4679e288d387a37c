/* hostmem.c — sparse host memory with DMA request/response ports (see hostmem.h). */
#include "hostmem.h"

#include "prng.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sparse page map -------------------------------------------------------------- */
typedef struct {
    uint64_t *keys;   /* page number + 1; 0 = empty */
    uint8_t **pages;
    uint32_t cap, n, max;
} pagemap_t;

static int pm_init(pagemap_t *pm, uint32_t max) {
    uint32_t cap = 16;
    while (cap < 2ull * max) cap <<= 1;
    pm->keys = calloc(cap, sizeof *pm->keys);
    pm->pages = calloc(cap, sizeof *pm->pages);
    pm->cap = cap;
    pm->n = 0;
    pm->max = max;
    return pm->keys && pm->pages ? 0 : -1;
}
static void pm_free(pagemap_t *pm) {
    if (pm->pages)
        for (uint32_t i = 0; i < pm->cap; i++) free(pm->pages[i]);
    free(pm->pages);
    free(pm->keys);
}
static uint32_t pm_slot(const pagemap_t *pm, uint64_t pn) {
    uint64_t h = pn;
    uint32_t i = (uint32_t)(splitmix64(&h) & (pm->cap - 1));
    while (pm->keys[i] && pm->keys[i] != pn + 1) i = (i + 1) & (pm->cap - 1);
    return i;
}
static const uint8_t *pm_find(const pagemap_t *pm, uint64_t pn) {
    uint32_t i = pm_slot(pm, pn);
    return pm->keys[i] ? pm->pages[i] : NULL;
}
/* The page, allocated (zeroed) if new; NULL when max pages are in use or out of memory. */
static uint8_t *pm_get(pagemap_t *pm, uint64_t pn, bool *allocated) {
    uint32_t i = pm_slot(pm, pn);
    if (pm->keys[i]) return pm->pages[i];
    if (pm->n >= pm->max) return NULL;
    uint8_t *p = calloc(1, HOSTMEM_PAGE);
    if (!p) return NULL;
    pm->keys[i] = pn + 1;
    pm->pages[i] = p;
    pm->n++;
    if (allocated) *allocated = true;
    return p;
}
static void pm_read(const pagemap_t *pm, uint64_t addr, uint8_t *buf, size_t len) {
    while (len) {
        uint64_t off = addr & (HOSTMEM_PAGE - 1);
        size_t k = HOSTMEM_PAGE - off < len ? HOSTMEM_PAGE - off : len;
        const uint8_t *p = pm_find(pm, addr / HOSTMEM_PAGE);
        if (p) memcpy(buf, p + off, k);
        else memset(buf, 0, k);
        buf += k;
        addr += k;
        len -= k;
    }
}

/* ---- the model ---------------------------------------------------------------------- */
typedef struct {
    uint16_t tag;
    bool err, sampled;
    uint64_t addr;
    uint32_t len, beat;
    uint64_t due;
    uint8_t *data; /* max_read_bytes */
} rd_t;

typedef struct {
    uint64_t addr, apply;
    uint32_t len;
    unsigned port;
    uint8_t data[HOSTMEM_BEAT];
} wr_t;

typedef struct {
    rd_t *rd;          /* ring of max_outstanding */
    uint32_t rd_head, rd_n;
    uint32_t wq_n;     /* this port's writes in the global queue */
    bool have_in;
    hostmem_port_in_t in;
} port_t;

typedef struct {
    uint64_t addr, len;
} range_t;

struct hostmem {
    hostmem_config_t cfg;
    pagemap_t pm;
    port_t ports[HOSTMEM_MAX_PORTS];
    wr_t *wq;          /* global ring of posted writes in acceptance order */
    uint32_t wq_cap, wq_head, wq_n;
    uint64_t now;
    hostmem_stats_t st;
    range_t guards[HOSTMEM_MAX_GUARDS];
    uint64_t guard_seed[HOSTMEM_MAX_GUARDS];
    unsigned nguards;
    range_t targets[HOSTMEM_MAX_TARGETS];
    unsigned ntargets;
    char err[256];
    bool has_err;
    char guard_msg[256];
    bool has_guard_msg;
};

struct hostmem_snap {
    pagemap_t pm;
};

static void set_err(hostmem_t *m, const char *fmt, ...) {
    if (m->has_err) return; /* keep the first */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, sizeof m->err, fmt, ap);
    va_end(ap);
    m->has_err = true;
}

void hostmem_config_default(hostmem_config_t *c) {
    memset(c, 0, sizeof *c);
    c->nports = 1;
    c->read_latency = 1;
    c->max_outstanding = 8;
    c->max_read_bytes = 4096;
    c->write_queue = 256;
    c->max_pages = 65536;
}

hostmem_t *hostmem_new(const hostmem_config_t *c) {
    hostmem_t *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->cfg = *c;
    hostmem_config_t *k = &m->cfg;
    if (!k->nports) k->nports = 1;
    if (!k->read_latency) k->read_latency = 1;
    if (!k->max_outstanding) k->max_outstanding = 8;
    if (!k->max_read_bytes) k->max_read_bytes = 4096;
    if (!k->write_queue) k->write_queue = 256;
    if (!k->max_pages) k->max_pages = 65536;
    if (k->nports > HOSTMEM_MAX_PORTS) {
        fprintf(stderr, "hostmem: nports %u > %u\n", k->nports, HOSTMEM_MAX_PORTS);
        free(m);
        return NULL;
    }
    bool ok = pm_init(&m->pm, k->max_pages) == 0;
    m->wq_cap = k->nports * k->write_queue;
    ok = ok && (m->wq = malloc((size_t)m->wq_cap * sizeof *m->wq)) != NULL;
    for (unsigned p = 0; ok && p < k->nports; p++) {
        port_t *pt = &m->ports[p];
        ok = (pt->rd = calloc(k->max_outstanding, sizeof *pt->rd)) != NULL;
        for (uint32_t i = 0; ok && i < k->max_outstanding; i++)
            ok = (pt->rd[i].data = malloc(k->max_read_bytes)) != NULL;
    }
    if (!ok) {
        fprintf(stderr, "hostmem: out of memory\n");
        hostmem_free(m);
        return NULL;
    }
    return m;
}

void hostmem_free(hostmem_t *m) {
    if (!m) return;
    for (unsigned p = 0; p < HOSTMEM_MAX_PORTS; p++) {
        port_t *pt = &m->ports[p];
        if (pt->rd)
            for (uint32_t i = 0; i < m->cfg.max_outstanding; i++) free(pt->rd[i].data);
        free(pt->rd);
    }
    free(m->wq);
    pm_free(&m->pm);
    free(m);
}

/* ---- memory access -------------------------------------------------------------------- */
static int mem_write(hostmem_t *m, uint64_t addr, const uint8_t *data, size_t len) {
    if (m->cfg.backend.write) return m->cfg.backend.write(m->cfg.backend.ctx, addr, data, len);
    while (len) {
        uint64_t off = addr & (HOSTMEM_PAGE - 1);
        size_t k = HOSTMEM_PAGE - off < len ? HOSTMEM_PAGE - off : len;
        bool alloc = false;
        uint8_t *p = pm_get(&m->pm, addr / HOSTMEM_PAGE, &alloc);
        if (!p) {
            m->st.out_of_pages++;
            set_err(m, "hostmem: out of pages writing 0x%llx (max_pages %u in use)", (unsigned long long)addr,
                    m->cfg.max_pages);
            return -1;
        }
        if (alloc) m->st.page_allocs++;
        memcpy(p + off, data, k);
        data += k;
        addr += k;
        len -= k;
    }
    return 0;
}

int hostmem_write(hostmem_t *m, uint64_t addr, const void *data, size_t len) {
    return mem_write(m, addr, data, len);
}
/* Backdoor reads: the page store, or the backend (what it refuses reads as zeros). */
static void mem_read(const hostmem_t *m, uint64_t addr, void *buf, size_t len) {
    if (!m->cfg.backend.read) pm_read(&m->pm, addr, buf, len);
    else if (m->cfg.backend.read(m->cfg.backend.ctx, addr, buf, len)) memset(buf, 0, len);
}
void hostmem_read(const hostmem_t *m, uint64_t addr, void *buf, size_t len) { mem_read(m, addr, buf, len); }
int hostmem_fill(hostmem_t *m, uint64_t addr, uint8_t byte, size_t len) {
    uint8_t b[HOSTMEM_PAGE];
    memset(b, byte, sizeof b);
    while (len) {
        size_t k = len < sizeof b ? len : sizeof b;
        if (mem_write(m, addr, b, k)) return -1;
        addr += k;
        len -= k;
    }
    return 0;
}
uint64_t hostmem_read_u64(const hostmem_t *m, uint64_t addr) {
    uint8_t b[8];
    mem_read(m, addr, b, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}
int hostmem_write_u64(hostmem_t *m, uint64_t addr, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    return mem_write(m, addr, b, 8);
}

/* Memory as a read sees it: applied memory overlaid with every pending posted write. */
static void sample_read(hostmem_t *m, rd_t *r) {
    if (m->cfg.backend.read && m->cfg.backend.read(m->cfg.backend.ctx, r->addr, r->data, r->len)) {
        r->err = true; /* the backend refused it: one err beat, no data */
        return;
    }
    if (!m->cfg.backend.read) pm_read(&m->pm, r->addr, r->data, r->len);
    for (uint32_t i = 0; i < m->wq_n; i++) {
        const wr_t *w = &m->wq[(m->wq_head + i) % m->wq_cap];
        uint64_t lo = w->addr > r->addr ? w->addr : r->addr;
        uint64_t we = w->addr + w->len, re = r->addr + r->len;
        uint64_t hi = we < re ? we : re;
        if (lo < hi) memcpy(r->data + (lo - r->addr), w->data + (lo - w->addr), hi - lo);
    }
    r->sampled = true;
}

static void apply_writes(hostmem_t *m, bool all) {
    while (m->wq_n && (all || m->wq[m->wq_head].apply <= m->now)) {
        wr_t *w = &m->wq[m->wq_head];
        mem_write(m, w->addr, w->data, w->len);
        m->st.writes_applied++;
        m->ports[w->port].wq_n--;
        m->wq_head = (m->wq_head + 1) % m->wq_cap;
        m->wq_n--;
    }
}
void hostmem_flush(hostmem_t *m) { apply_writes(m, true); }

int hostmem_copy_all(hostmem_t *dst, hostmem_t *src) {
    hostmem_flush(src);
    for (uint32_t i = 0; i < src->pm.cap; i++)
        if (src->pm.keys[i] && mem_write(dst, (src->pm.keys[i] - 1) * HOSTMEM_PAGE, src->pm.pages[i], HOSTMEM_PAGE))
            return -1;
    for (unsigned g = 0; g < src->nguards; g++) {
        if (dst->nguards >= HOSTMEM_MAX_GUARDS) return -1;
        dst->guards[dst->nguards] = src->guards[g];
        dst->guard_seed[dst->nguards++] = src->guard_seed[g];
    }
    for (unsigned t = 0; t < src->ntargets; t++) {
        if (dst->ntargets >= HOSTMEM_MAX_TARGETS) return -1;
        dst->targets[dst->ntargets++] = src->targets[t];
    }
    return 0;
}

/* ---- cycle interface ------------------------------------------------------------------ */
static void outputs(hostmem_t *m, unsigned p, hostmem_port_out_t *o) {
    port_t *pt = &m->ports[p];
    memset(o, 0, sizeof *o);
    o->req_ready = pt->rd_n < m->cfg.max_outstanding && pt->wq_n < m->cfg.write_queue;
    if (!pt->rd_n) return;
    rd_t *r = &pt->rd[pt->rd_head];
    if (r->due > m->now) return;
    if (!r->sampled && !r->err) sample_read(m, r); /* writes_pass_reads: sampled at the first beat */
    o->resp_valid = true;
    o->resp.tag = r->tag;
    o->resp.beat = r->beat;
    if (r->err) {
        o->resp.err = true;
        o->resp.last = true;
        o->resp.bytes = 0;
        return;
    }
    uint32_t off = r->beat * HOSTMEM_BEAT;
    uint32_t k = r->len - off < HOSTMEM_BEAT ? r->len - off : HOSTMEM_BEAT;
    memcpy(o->resp.data, r->data + off, k);
    o->resp.bytes = (uint8_t)k;
    o->resp.last = off + k == r->len;
}

void hostmem_eval(hostmem_t *m, unsigned port, hostmem_port_out_t *out) {
    if (port >= m->cfg.nports) {
        set_err(m, "hostmem_eval: port %u out of range (%u ports)", port, m->cfg.nports);
        memset(out, 0, sizeof *out);
        return;
    }
    outputs(m, port, out);
}

void hostmem_edge(hostmem_t *m, unsigned port, const hostmem_port_in_t *in) {
    if (port >= m->cfg.nports) {
        set_err(m, "hostmem_edge: port %u out of range (%u ports)", port, m->cfg.nports);
        return;
    }
    m->ports[port].in = *in;
    m->ports[port].have_in = true;
}

static bool in_ranges(const range_t *r, unsigned n, uint64_t a) {
    for (unsigned i = 0; i < n; i++)
        if (a >= r[i].addr && a - r[i].addr < r[i].len) return true;
    return false;
}

static void guard_check_write(hostmem_t *m, unsigned p, const hostmem_req_t *q) {
    if (!m->nguards) return;
    uint64_t first = 0, n = 0;
    for (uint32_t i = 0; i < q->len; i++) {
        uint64_t a = q->addr + i;
        if (in_ranges(m->guards, m->nguards, a) && !in_ranges(m->targets, m->ntargets, a)) {
            if (!n) first = a;
            n++;
        }
    }
    if (!n) return;
    m->st.guard_violations++;
    if (!m->has_guard_msg) {
        snprintf(m->guard_msg, sizeof m->guard_msg,
                 "cycle %llu port %u: DMA write of %u bytes at 0x%llx touches %llu guard byte(s) outside "
                 "every target, first 0x%llx",
                 (unsigned long long)m->now, p, q->len, (unsigned long long)q->addr, (unsigned long long)n,
                 (unsigned long long)first);
        m->has_guard_msg = true;
    }
}

static void accept(hostmem_t *m, unsigned p, const hostmem_req_t *q) {
    port_t *pt = &m->ports[p];
    if (q->op == HOSTMEM_OP_WRITE) {
        if (q->len == 0 || q->len > HOSTMEM_BEAT) {
            m->st.bad_requests++;
            set_err(m, "hostmem: cycle %llu port %u: write of %u bytes at 0x%llx (allowed 1..64); dropped",
                    (unsigned long long)m->now, p, q->len, (unsigned long long)q->addr);
            return;
        }
        guard_check_write(m, p, q);
        wr_t *w = &m->wq[(m->wq_head + m->wq_n) % m->wq_cap];
        w->addr = q->addr;
        w->len = q->len;
        w->port = p;
        w->apply = m->now + m->cfg.write_latency;
        memcpy(w->data, q->data, q->len);
        m->wq_n++;
        pt->wq_n++;
        m->st.writes++;
        m->st.write_bytes += q->len;
        return;
    }
    rd_t *r = &pt->rd[(pt->rd_head + pt->rd_n) % m->cfg.max_outstanding];
    pt->rd_n++;
    if (pt->rd_n > m->st.outstanding_max) m->st.outstanding_max = pt->rd_n;
    r->tag = q->tag;
    r->addr = q->addr;
    r->len = q->len;
    r->beat = 0;
    r->due = m->now + m->cfg.read_latency;
    r->sampled = false;
    r->err = q->op != HOSTMEM_OP_READ || q->len == 0 || q->len > m->cfg.max_read_bytes;
    if (r->err) {
        m->st.bad_requests++;
        set_err(m, "hostmem: cycle %llu port %u: bad request op %u len %u at 0x%llx (reads are 1..%u bytes)",
                (unsigned long long)m->now, p, q->op, q->len, (unsigned long long)q->addr, m->cfg.max_read_bytes);
        return;
    }
    m->st.reads++;
    m->st.read_bytes += q->len;
    if (!m->cfg.writes_pass_reads) sample_read(m, r); /* sees every earlier write, no later one */
}

void hostmem_tick(hostmem_t *m) {
    /* this cycle's outputs of every port first (they depend on registers only), then the edge */
    hostmem_port_out_t o[HOSTMEM_MAX_PORTS];
    hostmem_port_in_t in[HOSTMEM_MAX_PORTS];
    for (unsigned p = 0; p < m->cfg.nports; p++) {
        port_t *pt = &m->ports[p];
        if (pt->have_in) in[p] = pt->in;
        else memset(&in[p], 0, sizeof in[p]);
        pt->have_in = false;
        outputs(m, p, &o[p]);
    }
    for (unsigned p = 0; p < m->cfg.nports; p++) {
        port_t *pt = &m->ports[p];
        if (in[p].req_valid && !o[p].req_ready) m->st.req_stall++;
        if (o[p].resp_valid && !in[p].resp_ready) m->st.resp_stall++;
        if (o[p].resp_valid && in[p].resp_ready) {
            m->st.read_beats++;
            pt->rd[pt->rd_head].beat++;
            if (o[p].resp.last) { /* the next read streams from the next cycle on */
                pt->rd_head = (pt->rd_head + 1) % m->cfg.max_outstanding;
                pt->rd_n--;
            }
        }
        if (in[p].req_valid && o[p].req_ready) accept(m, p, &in[p].req);
    }
    apply_writes(m, false);
    m->now++;
    m->st.cycles++;
}

uint64_t hostmem_now(const hostmem_t *m) { return m->now; }
unsigned hostmem_outstanding(const hostmem_t *m, unsigned port) {
    return port < m->cfg.nports ? m->ports[port].rd_n : 0;
}
void hostmem_advance(hostmem_t *m, uint64_t n) {
    m->now += n;
    m->st.cycles += n;
}

bool hostmem_idle(const hostmem_t *m) {
    if (m->wq_n) return false;
    for (unsigned p = 0; p < m->cfg.nports; p++)
        if (m->ports[p].rd_n) return false;
    return true;
}

/* ---- snapshots and diffs -------------------------------------------------------------- */
hostmem_snap_t *hostmem_snapshot(const hostmem_t *m) {
    hostmem_snap_t *s = calloc(1, sizeof *s);
    if (!s || pm_init(&s->pm, m->pm.max)) {
        if (s) pm_free(&s->pm);
        free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < m->pm.cap; i++) {
        if (!m->pm.keys[i]) continue;
        uint8_t *p = pm_get(&s->pm, m->pm.keys[i] - 1, NULL);
        if (!p) {
            hostmem_snap_free(s);
            return NULL;
        }
        memcpy(p, m->pm.pages[i], HOSTMEM_PAGE);
    }
    return s;
}
void hostmem_snap_free(hostmem_snap_t *s) {
    if (!s) return;
    pm_free(&s->pm);
    free(s);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t pm_diff(const pagemap_t *a, const pagemap_t *b, hostmem_diff_t *d, size_t max) {
    size_t n = (size_t)a->n + b->n, k = 0;
    uint64_t *pn = malloc((n ? n : 1) * sizeof *pn);
    if (!pn) return (size_t)-1;
    for (uint32_t i = 0; i < a->cap; i++)
        if (a->keys[i]) pn[k++] = a->keys[i] - 1;
    for (uint32_t i = 0; i < b->cap; i++)
        if (b->keys[i]) pn[k++] = b->keys[i] - 1;
    qsort(pn, k, sizeof *pn, cmp_u64);
    static const uint8_t zero[HOSTMEM_PAGE];
    size_t diffs = 0;
    for (size_t i = 0; i < k; i++) {
        if (i && pn[i] == pn[i - 1]) continue;
        const uint8_t *pa = pm_find(a, pn[i]), *pb = pm_find(b, pn[i]);
        if (!pa) pa = zero;
        if (!pb) pb = zero;
        if (!memcmp(pa, pb, HOSTMEM_PAGE)) continue;
        for (uint32_t j = 0; j < HOSTMEM_PAGE; j++)
            if (pa[j] != pb[j]) {
                if (d && diffs < max) d[diffs] = (hostmem_diff_t){pn[i] * HOSTMEM_PAGE + j, pa[j], pb[j]};
                diffs++;
            }
    }
    free(pn);
    return diffs;
}

size_t hostmem_compare(const hostmem_snap_t *s, const hostmem_t *m, hostmem_diff_t *d, size_t max) {
    return pm_diff(&s->pm, &m->pm, d, max);
}
size_t hostmem_diff(const hostmem_t *a, const hostmem_t *b, hostmem_diff_t *d, size_t max) {
    return pm_diff(&a->pm, &b->pm, d, max);
}

/* ---- guards --------------------------------------------------------------------------- */
uint8_t hostmem_guard_byte(uint64_t seed, uint64_t addr) {
    uint64_t x = seed ^ ((addr >> 3) * 0xd1342543de82ef95ull);
    return (uint8_t)(splitmix64(&x) >> (8 * (addr & 7)));
}

int hostmem_guard_fill(hostmem_t *m, uint64_t addr, size_t len, uint64_t seed) {
    if (m->nguards >= HOSTMEM_MAX_GUARDS) {
        set_err(m, "hostmem_guard_fill: more than %u guard regions", HOSTMEM_MAX_GUARDS);
        return -1;
    }
    uint8_t b[256];
    for (size_t done = 0; done < len;) {
        size_t k = len - done < sizeof b ? len - done : sizeof b;
        for (size_t i = 0; i < k; i++) b[i] = hostmem_guard_byte(seed, addr + done + i);
        if (mem_write(m, addr + done, b, k)) return -1;
        done += k;
    }
    m->guards[m->nguards] = (range_t){addr, len};
    m->guard_seed[m->nguards++] = seed;
    return 0;
}

int hostmem_guard_target(hostmem_t *m, uint64_t addr, size_t len) {
    if (m->ntargets >= HOSTMEM_MAX_TARGETS) {
        set_err(m, "hostmem_guard_target: more than %u targets", HOSTMEM_MAX_TARGETS);
        return -1;
    }
    m->targets[m->ntargets++] = (range_t){addr, len};
    return 0;
}

size_t hostmem_guard_check(const hostmem_t *m, hostmem_diff_t *d, size_t max) {
    size_t diffs = 0;
    for (unsigned g = 0; g < m->nguards; g++) {
        for (uint64_t a = m->guards[g].addr; a - m->guards[g].addr < m->guards[g].len; a++) {
            if (in_ranges(m->targets, m->ntargets, a)) continue;
            /* a byte in overlapping guards holds the pattern of the last fill: check it there */
            bool later = false;
            for (unsigned e = g + 1; e < m->nguards && !later; e++)
                later = a >= m->guards[e].addr && a - m->guards[e].addr < m->guards[e].len;
            if (later) continue;
            uint8_t now;
            pm_read(&m->pm, a, &now, 1);
            uint8_t want = hostmem_guard_byte(m->guard_seed[g], a);
            if (now != want) {
                if (d && diffs < max) d[diffs] = (hostmem_diff_t){a, want, now};
                diffs++;
            }
        }
    }
    return diffs;
}

const char *hostmem_guard_first(const hostmem_t *m) { return m->has_guard_msg ? m->guard_msg : NULL; }
const hostmem_stats_t *hostmem_stats(const hostmem_t *m) { return &m->st; }
const char *hostmem_error(const hostmem_t *m) { return m->has_err ? m->err : NULL; }
