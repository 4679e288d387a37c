/* rv32_io.c — the rv32 test build's output under qemu-riscv32 (Linux user mode): the Linux
 * system calls write (64) and exit (93) by ecall; no C library. */
#include "test_util.h"

static long sys3(long nr, long a0, long a1, long a2)
{
    register long x10 __asm__("a0") = a0;
    register long x11 __asm__("a1") = a1;
    register long x12 __asm__("a2") = a2;
    register long x17 __asm__("a7") = nr;
    __asm__ volatile("ecall" : "+r"(x10) : "r"(x11), "r"(x12), "r"(x17) : "memory");
    return x10;
}

void t_out(const char *s, unsigned len) { sys3(64, 1, (long)s, (long)len); }

/* the lowest stack words (link.ld): a test that overflows the 64 KiB stack would silently
 * overwrite .bss on this build, so a canary there is checked at the end */
extern uint32_t __stack_bottom[];
#define CANARY 0x5AFEC0DEu

void rv32_main(void); /* called by crt0.S */
void rv32_main(void)
{
    for (unsigned i = 0; i < 16; i++) __stack_bottom[i] = CANARY;
    int rc = mig_test_main("rv32");
    for (unsigned i = 0; i < 16; i++)
        if (__stack_bottom[i] != CANARY) {
            t_puts("FAIL migration-fw/rv32: the test overflowed its 64 KiB stack\n");
            rc = 1;
            break;
        }
    sys3(93, rc, 0, 0);
    for (;;) {}
}
