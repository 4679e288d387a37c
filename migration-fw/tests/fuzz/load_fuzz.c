/* load_fuzz.c — libFuzzer target on the image loader (issue 25: loads are all or nothing).
 *
 * The input is a shape and a list of edits, not an image: the shape (PRNG seed, objects in
 * the source function, options) builds a valid function over the stub HAL with values ctrl
 * accepts and saves its final image; the edits then change record fields (any value, or
 * one at a boundary ctrl checks), raw bytes, or drop, repeat and swap blocks; every edited
 * block's CRC is resealed (unless an edit asks for it not to be) so the loader's own checks
 * are what is tested. The image is loaded into a fresh destination (with a neighbour
 * function), and either
 *   - it commits, and the function's rows are ones ctrl could have made (ctrl_oracle.c), its
 *     neighbour untouched, the function PASSIVE; with no edit, its rows equal the source's; or
 *   - it is refused, and the destination is bit for bit as before (nic_unchanged).
 * Anything else aborts with a message (a finding). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl_oracle.h"
#include "fixture.h"
#include "mig_libc.h"
#include "mig_record.h"
#include "mig_send_pos.h"

enum { IMG = 0x4000, SQ = 0x1000, SQ_LOG = 2, BLOCKS_MAX = 24, EDITS_MAX = 24 };
enum { OPT_OUTSTANDING = 1, OPT_NEIGHBOUR = 2, OPT_LAST_FLAG = 4 };
enum { EDIT_FIELD, EDIT_BOUNDARY, EDIT_BYTE, EDIT_BLOCKS };

/* values at the edges ctrl and the loader check */
static const uint64_t boundary[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 31, 32, 63, 64, 255, 0xFFFFFF,
                                     0x1000000, 0xFFFFFFFF, 0x010000000000ull, 0xFFFFFFFFFFFFull };

static struct stub_nic before;

void t_out(const char *s, unsigned len) { (void)!write(2, s, len); }

static void finding(const char *what, uint64_t a, uint64_t b)
{
    fprintf(stderr, "load_fuzz finding: %s (%llu, %llu)\n", what, (unsigned long long)a, (unsigned long long)b);
    abort();
}

static const uint8_t kinds[4] = { MIG_BLK_FN, MIG_BLK_CQ, MIG_BLK_MR, MIG_BLK_QP };
static unsigned table_of(uint8_t kind)
{
    return kind == MIG_BLK_QP ? MIG_TABLE_QP : kind == MIG_BLK_CQ ? MIG_TABLE_CQ : kind == MIG_BLK_MR ? MIG_TABLE_MR : MIG_TABLE_FN;
}

/* QPs with WQEs outstanding in the source's send queues (host memory the VM takes along):
 * 0..4 WQEs of random opcode and length, the next PSN anywhere on their PSNs */
static void outstanding(struct stub_nic *n, unsigned fn, unsigned nqp)
{
    struct mig_hal hal = stub_hal(n);
    struct mig_resp resp;
    static const uint8_t ops[] = { 0, 2, 4, 5, 6 };  /* SEND, WRITE, READ, CAS, FAA */
    for (unsigned q = 0; q < nqp; q++) {
        mig_row_t row;
        stub_row_get(n, MIG_TABLE_QP, fn, q, row);
        uint64_t base = SQ + q * (64u << SQ_LOG);
        uint16_t una = (uint16_t)t_rand(), m = (uint16_t)(t_rand() % 5);
        uint32_t psns = 0, mtu = 1u << mig_mtu_shift(row);
        for (unsigned i = 0; i < m; i++) {
            uint8_t *w = n->host + base + ((una + i) & ((1u << SQ_LOG) - 1)) * 64;
            uint32_t len = t_rand() % (3 * mtu + 1);
            mig_memset(w, 0, 64);
            w[8] = ops[t_rand() % sizeof ops];
            mig_put_le(w + 24, len, 4);
            psns += w[8] >= 5 ? 1 : len ? (len + mtu - 1) / mtu : 1;
        }
        uint32_t una_psn = t_rand() & 0xFFFFFF;
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_BASE, base);
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_LOG, SQ_LOG);
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_UNA, una);
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_SQ_HI, (uint16_t)(una + m));
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_UNA_PSN, una_psn);
        mig_row_set_field(MIG_TABLE_QP, row, MIG_QPF_NEXT_PSN, (una_psn + t_rand() % (psns + 1)) & 0xFFFFFF);
        mig_record_derive(MIG_TABLE_QP, row);
        if (mig_send_position(&hal, row, &resp) != MIG_OK) finding("harness: a source send position", q, resp.reason);
        stub_row_put(n, MIG_TABLE_QP, fn, q, row);
    }
}

/* one 8-byte edit: op, a, b, c, v (u32); returns false if it did nothing. *edited gets the
 * blocks whose content changed (to reseal), *noseal those whose CRC must stay stale. */
static bool edit(const uint8_t *e, unsigned *n, uint32_t *edited, uint32_t *noseal)
{
    uint8_t op = e[0], a = e[1], b = e[2], c = e[3];
    uint32_t v = (uint32_t)mig_get_le(e + 4, 4);
    switch (op % 4) {
    case EDIT_FIELD:
    case EDIT_BOUNDARY: {
        uint8_t kind = kinds[a % 4], *blk;
        unsigned table = table_of(kind);
        uint8_t *rec = 0;
        unsigned count = 0;
        while (count < 64 && record_at(&t_dst, IMG, *n, kind, count, &blk)) count++;
        if (!count) return false;
        rec = record_at(&t_dst, IMG, *n, kind, b % count, &blk);
        unsigned field = c % mig_layouts[table].field_count;
        uint64_t value = op % 4 == EDIT_FIELD ? (uint64_t)v << ((op >> 2) % 64)
                                              : boundary[v % (sizeof boundary / sizeof boundary[0])];
        mig_record_set_field(table, rec, field, value);
        *edited |= 1u << (unsigned)((blk - block_at(&t_dst, IMG, 0)) / MIG_BLOCK_SIZE);
        return true;
    }
    case EDIT_BYTE: {
        unsigned k = a % *n, pos = (unsigned)(b | c << 8) % MIG_BLOCK_SIZE;
        block_at(&t_dst, IMG, k)[pos] ^= (uint8_t)(v ? v : 1);
        *edited |= 1u << k;
        if (op & 4) *noseal |= 1u << k;  /* the CRC too stays as it was */
        return true;
    }
    default: {
        unsigned i = b % *n, j = c % *n;
        uint8_t tmp[MIG_BLOCK_SIZE];
        if (a % 3 == 0 && *n > 1) {                 /* drop block i */
            for (unsigned k = i; k + 1 < *n; k++) mig_memcpy(block_at(&t_dst, IMG, k), block_at(&t_dst, IMG, k + 1), MIG_BLOCK_SIZE);
            (*n)--;
        } else if (a % 3 == 1 && *n < BLOCKS_MAX) { /* block i again after the last */
            mig_memcpy(block_at(&t_dst, IMG, *n), block_at(&t_dst, IMG, i), MIG_BLOCK_SIZE);
            (*n)++;
        } else {                                    /* swap i and j */
            mig_memcpy(tmp, block_at(&t_dst, IMG, i), MIG_BLOCK_SIZE);
            mig_memcpy(block_at(&t_dst, IMG, i), block_at(&t_dst, IMG, j), MIG_BLOCK_SIZE);
            mig_memcpy(block_at(&t_dst, IMG, j), tmp, MIG_BLOCK_SIZE);
        }
        return true;
    }
    }
}

/* every function but fn exactly as before */
static bool others_unchanged(unsigned fn)
{
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < MIG_SECTIONS_MAX; s++)
            for (unsigned f = 0; f < MIG_MAX_FNS; f++)
                if (f != fn && memcmp(t_dst.nic.rows[t][s][f], before.rows[t][s][f], sizeof before.rows[t][s][f]))
                    return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { SHAPE = 8 };
    if (size < SHAPE) return -1;    /* not kept in the corpus */
    uint8_t opts = data[7];
    unsigned nqp = data[4] % 17, ncq = data[5] % 17, nmr = data[6] % 65;
    unsigned sfn = opts >> 4 & 3, dfn = opts >> 6 & 3;
    if (nqp && ncq < 2) ncq = 2;    /* the fixture's QPs name CQ slots 0 and 1 */
    rig_init(&t_src);
    rig_init(&t_dst);
    t_seed((uint32_t)mig_get_le(data, 4));
    fill_fn(&t_src.nic, sfn, nqp, ncq, nmr);
    if (opts & OPT_OUTSTANDING) outstanding(&t_src.nic, sfn, nqp);
    unsigned n = save_final(&t_src, sfn, IMG);
    if (t_fails) finding("harness: the source did not save", n, t_fails);
    copy_blocks(&t_src, &t_dst, IMG, n);
    mig_memcpy(t_dst.nic.host + SQ, t_src.nic.host + SQ, IMG - SQ);   /* the VM's memory moved */
    if (opts & OPT_NEIGHBOUR) fill_fn(&t_dst.nic, (dfn + 1) % 4, 2, 2, 2);

    /* a block moved by a later edit is resealed where it lands: the seal covers its bytes only */
    uint32_t edited = 0, noseal = 0;
    unsigned edits = 0;
    for (size_t off = SHAPE; off + 8 <= size && edits < EDITS_MAX; off += 8) {
        edits += edit(data + off, &n, &edited, &noseal);
        for (unsigned k = 0; k < n; k++)
            if ((edited & ~noseal) >> k & 1) reseal(block_at(&t_dst, IMG, k));
        edited = 0;
    }

    before = t_dst.nic;
    struct mig_resp resp = { 0 };
    int st = MIG_OK;
    for (unsigned k = 0; k < n && st == MIG_OK && resp.answer != MIG_LOAD_COMMITTED; k++)
        st = run(&t_dst, MIG_CMD_IMAGE_LOAD, dfn, IMG + k * MIG_BLOCK_SIZE,
                 (opts & OPT_LAST_FLAG) && k == n - 1 ? MIG_LOAD_LAST : 0, &resp);
    if (st != MIG_OK) {
        if (!nic_unchanged(&t_dst.nic, &before)) finding("refused, but the destination changed", st, resp.reason);
        if (t_dst.fw.state[dfn] != MIG_ST_RUNNING || t_dst.fw.active_fn != -1)
            finding("refused, but the function is not RUNNING", t_dst.fw.state[dfn], resp.reason);
        if (!edits) finding("a valid image was refused", st, resp.reason);
        return 0;
    }
    if (resp.answer != MIG_LOAD_COMMITTED) {
        /* the PF did not say it was done (no LAST flag): a load still under way, nothing written */
        if ((opts & OPT_LAST_FLAG) || t_dst.nic.mutations) finding("neither committed nor refused", resp.answer, st);
        return 0;
    }
    unsigned row = 0;
    const char *why = ctrl_oracle_fn(&t_dst.nic, dfn, &row);
    if (why) { fprintf(stderr, "load_fuzz: %s\n", why); finding("committed a function ctrl could not hold (row)", row, 0); }
    if (!others_unchanged(dfn)) finding("committed into other functions too", dfn, 0);
    if (t_dst.nic.level[dfn] != MIG_LEVEL_PASSIVE || t_dst.fw.state[dfn] != MIG_ST_SUSPENDED_PASSIVE)
        finding("committed, but not PASSIVE", t_dst.nic.level[dfn], t_dst.fw.state[dfn]);
    if (!edits && !fn_equal(&t_src.nic, sfn, &t_dst.nic, dfn)) finding("a valid image committed other rows", sfn, dfn);
    return 0;
}
