/* dev_model.c — which composed NIC model a device runs, and its interface.
 *
 * The library carries the composite's .iface text inside itself (.incbin of the file the
 * build generated, DEV_IFACE_FILE), so a shared object loaded from anywhere needs no file at
 * run time. nic_tb reads an interface from a path, so the text goes into a memfd and nic_tb
 * reads /proc/self/fd/N: no temporary file, nothing left behind. */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef DEV_IFACE_FILE
#error "DEV_IFACE_FILE (the composite's .iface) must be given by the build"
#endif

__asm__(".section .rodata\n"
        ".global hlsnic_dev_iface_text\n"
        ".type hlsnic_dev_iface_text, @object\n"
        "hlsnic_dev_iface_text:\n"
        ".incbin \"" DEV_IFACE_FILE "\"\n"
        ".byte 0\n"
        ".previous\n");
extern const char hlsnic_dev_iface_text[];

/* The C model's cycle function (rtl-gen --compose names it after the .net's top). */
void nic(const void *in, void *out, void *state);

#ifdef DEV_HAVE_RTL
#include "nic_rtl.h"
#endif

int dev_model_open(dev_model_t *m, const char *name, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    m->iface_fd = -1;
    if (!name || !strcmp(name, "c")) {
        m->mode = NIC_TB_C;
    } else if (!strcmp(name, "rtl")) {
#ifdef DEV_HAVE_RTL
        m->mode = NIC_TB_RTL;
        m->m = (nic_tb_model_t){NIC_TB_RTL_FNS(nic)};
#else
        snprintf(err, errlen, "model rtl: this build has no RTL model (build testbench/device with RTL=1)");
        return -1;
#endif
    } else {
        snprintf(err, errlen, "model '%s': unknown (\"c\" or \"rtl\")", name);
        return -1;
    }
    m->m.c_step = nic;
    m->iface_fd = memfd_create("nic.iface", MFD_CLOEXEC);
    if (m->iface_fd < 0) {
        snprintf(err, errlen, "model %s: memfd_create for the interface: %s", name ? name : "c", strerror(errno));
        return -1;
    }
    size_t len = strlen(hlsnic_dev_iface_text), done = 0;
    while (done < len) {
        ssize_t k = write(m->iface_fd, hlsnic_dev_iface_text + done, len - done);
        if (k <= 0) {
            snprintf(err, errlen, "model: writing the interface to its memfd: %s", strerror(errno));
            dev_model_close(m);
            return -1;
        }
        done += (size_t)k;
    }
    snprintf(m->iface_path, sizeof m->iface_path, "/proc/self/fd/%d", m->iface_fd);
    if (access(m->iface_path, R_OK)) /* no /proc (a minimal VM): the same through /dev/fd */
        snprintf(m->iface_path, sizeof m->iface_path, "/dev/fd/%d", m->iface_fd);
    m->m.iface = m->iface_path;
    return 0;
}

void dev_model_close(dev_model_t *m) {
    if (m->iface_fd >= 0) close(m->iface_fd);
    m->iface_fd = -1;
}
