// nic_pf_driver.h — the PF driver's migration commands to a NIC's firmware, over MMIO through
// the fabric (NIC_BAR_FW_* in nic_bar.h): the command bytes as one MWr (write-combined), FW_GO as a
// second (both posted), then MRd polls of FW_STATUS until DONE and one MRd of the response.
// Thread context (root_complex's CPU side).
#pragma once
#include "endpoint.h"
#include "hypervisor.h"
#include "mig_cmd.h"

// Posts the command (the request half: nothing waited for).
void fw_post(root_complex &rc, uint16_t dev, const mig_cmd &c, const std::string &note);
// Waits for the posted command's answer: "" with *r filled, or what went wrong.
std::string fw_answer(root_complex &rc, uint16_t dev, mig_resp *r);
// The firmware's SUSPEND_ACTIVE / SUSPEND_PASSIVE of function fn, as the hypervisor's driver
// of that NIC: confirmed when the answer is OK and names the state asked for.
suspend_driver fw_suspend(root_complex &rc, uint16_t dev, unsigned fn);
// IMAGE_SAVE of function fn until the FINAL pass's end block, each block into the one buffer
// at buf and copied out by the CPU once the firmware answered (as a driver sends it on):
// the image, or nothing and *why.
std::vector<uint8_t> fw_save_image(root_complex &rc, uint16_t dev, unsigned fn, uint64_t buf, unsigned max_blocks,
                                   std::string &why);
