/* crt0.S — entry of the rv32 firmware test image: our own stack and global pointer, then
 * rv32_main (which exits through the Linux exit ecall under qemu-riscv32). .bss is zero
 * already: the ELF loader maps it as anonymous zero pages. */
    .section .text.start, "ax"
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    call rv32_main
1:  j 1b
