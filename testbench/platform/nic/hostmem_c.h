// hostmem_c.h — testbench/lib/hostmem.h (C) for the C++ side: the DMA port structures.
#pragma once
extern "C" {
#include "../../lib/hostmem.h"
}
