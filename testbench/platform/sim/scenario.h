// scenario.h — a random platform from a seed: 2-4 devices under a tree of 1-3 switches on
// one or two root ports, random link widths, latencies and credits, ACS redirect on or off,
// and per device a script mixing peer-to-peer writes with host DMA writes, reads and atomics;
// the hypervisor's suspend at a random time, the one-phase order a random permutation.
#pragma once
#include "platform.h"

platform_config random_platform(uint64_t seed, suspend_order order);
// The same platform with no suspend and each device's script cut after the ops it started
// in `run`: what the devices did, with nothing stopped (the checker's reference).
platform_config reference_of(const platform_config &cfg, const run_result &run);
