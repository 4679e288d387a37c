// checker.h — judge a run with a suspend against its reference run (the same devices
// doing the same operations, nothing suspended): every device image must equal the device's
// final BAR memory in the reference, the VM memory copy the reference's final host memory,
// and no TLP may have reached a device after its capture or host memory after the copy.
#pragma once
#include "platform.h"

// One line per difference, naming device, address, got and expected; empty if equal.
std::vector<std::string> compare_with_reference(const run_result &run, const run_result &ref);
