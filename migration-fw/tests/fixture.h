/* fixture.h — two fake NICs with their firmware (a source and a destination) and the steps
 * every image test repeats: fill a function, run commands, save a pass, move its blocks,
 * load them, compare functions row by row. */
#ifndef FIXTURE_H
#define FIXTURE_H

#include "mig_fw.h"
#include "stub_hal.h"
#include "test_util.h"

struct rig {
    struct stub_nic nic;
    struct mig_fw fw;
};
extern struct rig t_src, t_dst;
/* the MIG_IMG_* flags IMAGE_SAVE reported for the last block save_pass saved */
extern uint16_t t_last_pass_flags;

void rig_init(struct rig *r);
int run(struct rig *r, uint8_t op, unsigned fn, uint64_t host_addr, uint8_t flags, struct mig_resp *resp);
/* random but valid objects in fn: nqp QPs (using the CQs), ncq CQs, nmr MRs; numbers are
 * slot + rows * k, so they differ from the slots */
void fill_fn(struct stub_nic *n, unsigned fn, unsigned nqp, unsigned ncq, unsigned nmr);
/* one random field value the image can carry */
uint64_t random_field(unsigned table, unsigned field);
/* save blocks at host address base, base+512, ... until the pass ends; returns the blocks,
 * *answer = the last answer (MIG_SAVE_PASS_END, MIG_SAVE_NOTHING_NOW) or 0 on error */
unsigned save_pass(struct rig *r, unsigned fn, uint64_t base, uint8_t *answer);
void copy_blocks(const struct rig *from, struct rig *to, uint64_t base, unsigned n);
/* load blocks [first, first+n) at base; stops at the first failure; returns its status */
int load_blocks(struct rig *r, unsigned fn, uint64_t base, unsigned first, unsigned n,
                struct mig_resp *resp);
bool fn_equal(const struct stub_nic *a, unsigned fa, const struct stub_nic *b, unsigned fb);
/* source fn: Suspend-Active, Suspend-Passive, one full final pass at base; blocks saved */
unsigned save_final(struct rig *r, unsigned fn, uint64_t base);
uint8_t *block_at(struct rig *r, uint64_t base, unsigned i);
void reseal(uint8_t *block);

#endif /* FIXTURE_H */
