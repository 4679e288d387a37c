/* clock_jump.h — the simulator's idle jump (docs/device.md, "Idle: the clock jumps").
 *
 * When every NIC of a harness has nothing to do but wait for a timer, its clock moves to just
 * before the earliest deadline in one cycle instead of ticking there, and the run stays
 * exactly the run that ticked: the same frames at the same cycles, the same completions.
 *
 * How it stays exact: the only register of the NIC that counts time is the completer's `now`;
 * everything else an idle NIC changes (the timer scan's row, the row it read) repeats with the
 * scan's period P (2 cycles per context row). clock_jump_try ticks one period through the
 * caller, checks that the whole state came back to where it was (every register and memory
 * bit but `now`) with no transfer on any stream, then spends k*P cycles in one step with the
 * completer's time_skip input (nic_tb_step_skip): `now` moves by k*P more, every other
 * register ends as after k*P + 1 ticks. k is the largest with every skipped cycle's `now`
 * before the earliest deadline that could fire (and before the wire's next delivery), so no
 * comparison in the skipped cycles could have come out differently. The deadline look-up
 * reads the model's state (C or the RTL's read_state), as an event-driven simulator would;
 * it is not hardware. */
#ifndef CLOCK_JUMP_H
#define CLOCK_JUMP_H

#include <stdbool.h>
#include <stdint.h>

#include "nic_tb.h"

typedef struct clock_jump clock_jump_t;

typedef struct {
    uint64_t tries;      /* periods ticked to check (every NIC quiet, a jump of 3 periods or more in view) */
    uint64_t aperiodic;  /* ... whose period check failed (state or a transfer moved) */
    uint64_t jumps;      /* ... that jumped */
    uint64_t skipped;    /* cycles jumped over in all (not ticked) */
} clock_jump_stats_t;

/* NULL, with the reason in err, when the model cannot jump (no comp_time_skip input, no
 * completer clock or context table in its interface) or the harness draws back-pressure. */
clock_jump_t *clock_jump_new(nic_tb_t *tb, char *err, size_t errlen);
void clock_jump_free(clock_jump_t *j);

/* Called when the caller saw every NIC idle. If every attached NIC is quiet
 * (nic_tb_quiet) and no frame is due on the wire sooner, ticks one period through tick(ctx)
 * (which steps the harness once and does what the caller does after a step; false stops the
 * attempt, e.g. an MMIO caller waits) and, if the period repeated, jumps. Never moves the clock
 * more than `limit` cycles in all (ticks included) and never jumps without a finite bound (a
 * deadline, a frame on the wire or a limit). Returns the cycles jumped over (0: none). */
uint64_t clock_jump_try(clock_jump_t *j, uint64_t limit, bool (*tick)(void *ctx), void *ctx);
/* Cycles of one period (the completer's scan). */
unsigned clock_jump_period(const clock_jump_t *j);
clock_jump_stats_t clock_jump_stats(const clock_jump_t *j);

#endif
