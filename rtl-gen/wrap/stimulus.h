/* stimulus.h — seeded random inputs for equiv that obey the stream handshakes.
 *
 * Every input leaf gets a new value each cycle, biased towards the values that break
 * datapaths (~25% small 0..3, ~15% all ones / only the top bit / all but the top bit,
 * each with random low bits, ~60% uniform; 1-bit leaves 0/1; signed leaves sign-extended
 * in their storage), except:
 *   stream_in X   X_valid rises with probability ~60%; once a beat is offered, X_valid and
 *                 every X_data* leaf are held until the block answers X_ready = 1
 *                 (the beat moves at that edge), as hls.h requires of a producer.
 *   stream_out X  X_ready is 1 with probability ~70%.
 * The sequence depends only on the seed and on the block's ready answers. */
#ifndef WRAP_STIMULUS_H
#define WRAP_STIMULUS_H

#include <stdint.h>

#include "iface_read.h"

typedef struct stimulus stimulus;

stimulus *stim_new(const ifc_t *ifc, uint64_t seed);
/* Write this cycle's inputs into IN (the in-struct image, kept by the caller from one
 * cycle to the next: held leaves are left as they are). */
void stim_inputs(stimulus *s, uint8_t *in);
/* The block's outputs for the same cycle: input streams whose beat did not move hold. */
void stim_outputs(stimulus *s, const uint8_t *out);
void stim_free(stimulus *s);

#endif
