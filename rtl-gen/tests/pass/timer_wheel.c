/* timer_wheel — a 64-slot timer wheel: the hand moves one slot a cycle; a timer armed with
 * a delay d (2..63) goes into slot hand + d and fires when the hand reaches it. Each slot
 * holds one timer (an id and a valid bit) in a RAM, and a busy bit per slot in a register
 * says which are taken. Arming takes two stages: the first computes the slot, the second
 * looks up its busy bit and writes the RAM (the add and the 64-way bit select would not fit
 * one clock together). An arm into a taken slot is refused (the caller retries with
 * another delay), and so is one in a cycle that clears a fired slot (one write a cycle).
 * The hand's slot is read a cycle ahead (the RAM answers on the next cycle), fired and
 * cleared; a timer armed into the slot being read that cycle is forwarded to the firing
 * stage, as the read misses the write.
 *
 * In the corpus as a pipeline block the logic-level goal (<= 8) is measured on. */
#include "hls.h"

typedef struct {
    bool arm;
    hls_uint(6) delay;        /* 2..63; 0 and 1 are refused */
    uint8_t id;
} timer_wheel_in;

typedef struct {
    bool arm_done;            /* the arm of the cycle before was decided: */
    bool arm_ok;              /* taken, or refused */
    bool fire;                /* timer fire_id expired this cycle */
    uint8_t fire_id;
} timer_wheel_out;

typedef struct {
    HLS_MEM(uint16_t, 64) slot;   /* bit 8: a timer is here; bits 7..0: its id */
    uint64_t busy;                /* bit s: slot s holds a timer */
    hls_uint(6) hand;             /* the slot read last cycle, firing now */
    bool fwd;                     /* a timer was armed into that slot as it was read */
    uint8_t fwd_id;
    bool a_valid;                 /* arm stage 2: the request of last cycle, its slot */
    hls_uint(6) a_slot;
    uint8_t a_id;
} timer_wheel_state;

HLS_TOP void timer_wheel(const timer_wheel_in *in, timer_wheel_out *out,
                         timer_wheel_state *st) {
    /* fire: the slot read last cycle */
    uint16_t here = st->slot.hls_mem_rdata;
    bool fire = st->fwd || (here & 0x100) != 0;
    out->fire = fire;
    out->fire_id = st->fwd ? st->fwd_id : (uint8_t)here;
    if (fire) hls_mem_write(&st->slot, st->hand, 0);

    /* arm stage 2: into a free slot, not in a cycle that clears one */
    bool free_slot = ((st->busy >> st->a_slot) & 1) == 0;
    bool ok = st->a_valid && free_slot && !fire;
    out->arm_done = st->a_valid;
    out->arm_ok = ok;
    if (ok) hls_mem_write(&st->slot, st->a_slot, (uint16_t)(0x100 | st->a_id));

    /* read the next slot; an arm into it lands after the read, so forward it */
    hls_uint(6) next = (hls_uint(6))(st->hand + 1);
    hls_mem_read(&st->slot, next);
    st->fwd = ok && st->a_slot == next;
    st->fwd_id = st->a_id;
    uint64_t cleared = fire ? (uint64_t)1 << st->hand : 0;
    uint64_t taken = ok ? (uint64_t)1 << st->a_slot : 0;
    st->busy = (st->busy & ~cleared) | taken;

    /* arm stage 1: the slot, counted from the hand (which moves on as the request waits) */
    st->a_valid = in->arm && in->delay >= 2;
    st->a_slot = (hls_uint(6))(st->hand + in->delay);
    st->a_id = in->id;
    st->hand = next;
}
