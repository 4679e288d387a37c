// nic_pf_driver.cc — the PF driver's firmware commands; nic_pf_driver.h says what.
#include "nic_pf_driver.h"
#include "cpu_host_ops.h"
#include "nic_fw.h"
#include "nic_bar.h"
#include <cstring>

void fw_post(root_complex &rc, uint16_t dev, const mig_cmd &c, const std::string &note) {
    std::vector<uint64_t> words((sizeof c + 7) / 8, 0);
    memcpy(words.data(), &c, sizeof c);
    rc.mmio_write_words(dev, NIC_BAR_FW_CMD, words, note + " command bytes");
    rc.mmio_write(dev, NIC_BAR_FW_GO, 1, "FW_GO (" + note + ")");
}

std::string fw_answer(root_complex &rc, uint16_t dev, mig_resp *r) {
    for (int poll = 0; poll < 100000; poll++) {
        uint64_t st = rc.mmio_read(dev, NIC_BAR_FW_STATUS, "FW_STATUS");
        if ((st & NIC_FW_STATUS_BUSY) || !(st & NIC_FW_STATUS_DONE)) continue;
        std::vector<uint64_t> w = rc.mmio_read_words(dev, NIC_BAR_FW_RESP, (sizeof *r + 7) / 8, "FW_RESP");
        memcpy(r, w.data(), sizeof *r);
        return "";
    }
    return "the firmware did not answer after 100000 polls of FW_STATUS";
}

static std::string refusal(const char *what, const mig_resp &r) {
    return std::string(what) + " answered status " + std::to_string(r.status) + " reason " + std::to_string(r.reason) +
           " state " + std::to_string(r.state) + " value " + std::to_string(r.value[0]) + ", " + std::to_string(r.value[1]);
}

suspend_driver fw_suspend(root_complex &rc, uint16_t dev, unsigned fn) {
    suspend_driver d;
    d.request = [&rc, dev, fn](uint64_t level) {
        mig_cmd c{};
        c.opcode = level == level_sa ? MIG_CMD_SUSPEND_ACTIVE : MIG_CMD_SUSPEND_PASSIVE;
        c.fn = uint8_t(fn);
        fw_post(rc, dev, c, level == level_sa ? "SUSPEND_ACTIVE" : "SUSPEND_PASSIVE");
    };
    d.confirm = [&rc, dev](uint64_t level) -> std::string {
        mig_resp r{};
        std::string why = fw_answer(rc, dev, &r);
        uint8_t want = level == level_sa ? MIG_ST_SUSPENDED_ACTIVE : MIG_ST_SUSPENDED_PASSIVE;
        if (why.empty() && (r.status != 0 || r.state != want)) why = refusal("the firmware's suspend", r);
        return why;
    };
    return d;
}

std::vector<uint8_t> fw_save_image(root_complex &rc, uint16_t dev, unsigned fn, uint64_t buf, unsigned max_blocks,
                                   std::string &why) {
    std::vector<uint8_t> image;
    for (unsigned i = 0; i < max_blocks; i++) {
        mig_cmd c{};
        c.opcode = MIG_CMD_IMAGE_SAVE;
        c.fn = uint8_t(fn);
        c.host_addr = buf;
        fw_post(rc, dev, c, "IMAGE_SAVE");
        mig_resp r{};
        why = fw_answer(rc, dev, &r);
        if (why.empty() && (r.status != 0 || (r.answer != MIG_SAVE_BLOCK && r.answer != MIG_SAVE_PASS_END)))
            why = refusal(("IMAGE_SAVE of block " + std::to_string(i)).c_str(), r);
        if (!why.empty()) return {};
        image.resize(image.size() + NIC_FW_BLOCK_SIZE);
        word_memory_read(rc.host_memory, buf, image.data() + image.size() - NIC_FW_BLOCK_SIZE, NIC_FW_BLOCK_SIZE);
        if (r.answer == MIG_SAVE_PASS_END && (r.value[2] & NIC_FW_IMG_FINAL)) return image;
    }
    why = "no FINAL pass end within " + std::to_string(max_blocks) + " blocks";
    return {};
}
