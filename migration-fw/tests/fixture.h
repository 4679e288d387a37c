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
/* random objects in fn with values ctrl accepts (mig_rules.h): nqp QPs (each naming CQ
 * slots 0 and 1, whose REFS count them), ncq CQs, nmr MRs, the function's address; numbers
 * are slot + rows * k, so they differ from the slots */
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
/* everything of a NIC a load may not touch when it refuses: every table row, quiesce
 * levels and requests, dirty tracking and bits, throttles, counters, announces, flushes,
 * host memory, and no mutation counted */
bool nic_unchanged(const struct stub_nic *now, const struct stub_nic *before);
bool fn_equal(const struct stub_nic *a, unsigned fa, const struct stub_nic *b, unsigned fb);
/* source fn: Suspend-Active, Suspend-Passive, one full final pass at base; blocks saved */
unsigned save_final(struct rig *r, unsigned fn, uint64_t base);
uint8_t *block_at(struct rig *r, uint64_t base, unsigned i);
void reseal(uint8_t *block);
/* the i-th record of a block kind (MIG_BLK_*) among the n blocks at base, and its block
 * (*block, for reseal); 0 if there is none */
uint8_t *record_at(struct rig *r, uint64_t base, unsigned n, uint8_t kind, unsigned i, uint8_t **block);

#endif /* FIXTURE_H */
