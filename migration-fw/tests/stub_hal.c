/* stub_hal.c — the fake NIC (stub_hal.h). */
#include "stub_hal.h"

#include "mig_libc.h"

static struct stub_nic *nic(void *hw) { return hw; }

static bool row_ok(struct stub_nic *n, unsigned t, unsigned s, unsigned fn, unsigned row, unsigned words)
{
    return t < MIG_TABLES && s < MIG_SECTIONS_MAX && fn < n->caps.fns && row < n->caps.rows[t] &&
           words == n->caps.words[t][s] && words > 0;
}

static int caps(void *hw, struct mig_caps *out) { *out = nic(hw)->caps; return MIG_OK; }

static int ctx_read(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, uint32_t *w, unsigned words)
{
    struct stub_nic *n = nic(hw);
    if (!row_ok(n, t, s, fn, row, words)) return MIG_E_ARG;
    mig_memcpy(w, n->rows[t][s][fn][row], words * 4);
    n->port_cycles += STUB_CTX_LATENCY + STUB_CTX_WORD * words;
    return MIG_OK;
}

static int ctx_write(void *hw, unsigned t, unsigned s, unsigned fn, unsigned row, const uint32_t *w, unsigned words)
{
    struct stub_nic *n = nic(hw);
    if (!row_ok(n, t, s, fn, row, words)) return MIG_E_ARG;
    if (++n->ctx_writes == n->fail_write) return MIG_E_HW;
    mig_memcpy(n->rows[t][s][fn][row], w, words * 4);
    n->port_cycles += STUB_CTX_LATENCY + STUB_CTX_WORD * words;
    n->mutations++;
    return MIG_OK;
}

static int suspend_request(void *hw, unsigned fn, enum mig_level level)
{
    struct stub_nic *n = nic(hw);
    /* ctrl takes one step at a time: RUN <-> ACTIVE <-> PASSIVE (NIC_CMD_ESTATE otherwise) */
    if ((unsigned)level > n->target[fn] + 1u || n->target[fn] > (unsigned)level + 1u) return MIG_E_HW;
    n->target[fn] = (uint8_t)level;
    n->polls[fn] = 0;
    n->port_cycles += STUB_CTX_LATENCY;
    n->mutations++;
    return MIG_OK;
}

static int suspend_status(void *hw, unsigned fn, enum mig_level *reached)
{
    struct stub_nic *n = nic(hw);
    if (!n->never_settle && ++n->polls[fn] >= n->polls_to_settle) n->level[fn] = n->target[fn];
    *reached = (enum mig_level)n->level[fn];
    n->port_cycles += STUB_CTX_LATENCY;
    return MIG_OK;
}

static int dirty_track(void *hw, unsigned fn, bool on)
{
    struct stub_nic *n = nic(hw);
    n->tracking[fn] = on;
    mig_memset(n->dirty[fn], 0, sizeof n->dirty[fn]);
    return MIG_OK;
}

static int dirty_read_clear(void *hw, unsigned fn, unsigned t, uint32_t *bitmap, unsigned words)
{
    struct stub_nic *n = nic(hw);
    if (t >= MIG_OBJ_TABLES || words != MIG_BITMAP_WORDS) return MIG_E_ARG;
    mig_memcpy(bitmap, n->dirty[fn][t], sizeof(mig_bitmap_t));
    mig_memset(n->dirty[fn][t], 0, sizeof(mig_bitmap_t));
    n->port_cycles += STUB_CTX_LATENCY + words;
    return MIG_OK;
}

static int throttle_set(void *hw, unsigned fn, uint32_t rate)
{
    nic(hw)->throttle[fn] = rate;
    nic(hw)->mutations++;
    return MIG_OK;
}

static int counter_read(void *hw, unsigned fn, enum mig_counter c, uint64_t *v)
{
    if (c >= MIG_COUNTERS) return MIG_E_ARG;
    *v = nic(hw)->counter[fn][c];
    return MIG_OK;
}

static int host_read(void *hw, uint64_t a, uint8_t *b, uint32_t len)
{
    struct stub_nic *n = nic(hw);
    if (a > STUB_HOST_BYTES || len > STUB_HOST_BYTES - a) return MIG_E_ARG;
    mig_memcpy(b, n->host + a, len);
    n->port_cycles += STUB_DMA_LATENCY + len / STUB_DMA_BYTES_PER_CYCLE;
    return MIG_OK;
}

static int host_write(void *hw, uint64_t a, const uint8_t *b, uint32_t len)
{
    struct stub_nic *n = nic(hw);
    if (a > STUB_HOST_BYTES || len > STUB_HOST_BYTES - a) return MIG_E_ARG;
    mig_memcpy(n->host + a, b, len);
    n->port_cycles += len / STUB_DMA_BYTES_PER_CYCLE; /* posted */
    return MIG_OK;
}

static int announce(void *hw, unsigned fn) { nic(hw)->announces[fn]++; return MIG_OK; }
static void spend(void *hw, uint32_t cycles) { nic(hw)->fw_cycles += cycles; }
/* no fabric: nothing posted can be in flight; the flush is counted so tests see it asked */
static int flush_writes(void *hw, unsigned fn) { nic(hw)->flushes[fn]++; return MIG_OK; }

static const struct mig_hal_ops stub_ops = {
    caps, ctx_read, ctx_write, suspend_request, suspend_status, dirty_track, dirty_read_clear,
    throttle_set, counter_read, host_read, host_write, announce, spend, flush_writes,
};

void stub_init(struct stub_nic *n)
{
    __builtin_memset(n, 0, sizeof *n); /* libc natively (the fuzz target runs it per input), mig_memset on rv32 */
    n->caps.fns = 4;
    n->caps.rows[MIG_TABLE_QP] = 16;
    n->caps.rows[MIG_TABLE_CQ] = 16;
    n->caps.rows[MIG_TABLE_MR] = 64;
    n->caps.rows[MIG_TABLE_FN] = 1;
    for (unsigned t = 0; t < MIG_TABLES; t++)
        for (unsigned s = 0; s < mig_layouts[t].sections; s++)
            n->caps.words[t][s] = (uint8_t)mig_section_words(t, s);
    n->polls_to_settle = 3;
}

struct mig_hal stub_hal(struct stub_nic *n)
{
    struct mig_hal h = { &stub_ops, n };
    return h;
}

void stub_row_get(const struct stub_nic *n, unsigned t, unsigned fn, unsigned row, mig_row_t out)
{
    mig_memset(out, 0, sizeof(mig_row_t));
    for (unsigned s = 0; s < mig_layouts[t].sections; s++)
        mig_memcpy(out[s], n->rows[t][s][fn][row], n->caps.words[t][s] * 4);
}

void stub_row_put(struct stub_nic *n, unsigned t, unsigned fn, unsigned row, const mig_row_t in)
{
    for (unsigned s = 0; s < mig_layouts[t].sections; s++)
        mig_memcpy(n->rows[t][s][fn][row], in[s], n->caps.words[t][s] * 4);
    if (t < MIG_OBJ_TABLES && n->tracking[fn]) mig_bit_set(n->dirty[fn][t], row);
}
