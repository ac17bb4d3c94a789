/*
 * The bounds the CFI guard (cfi_guard.h) holds a file's CFI to: what libdw
 * may run of it. They sit far above what compilers emit: the 2,599 x86_64
 * binaries and libraries of a Debian 12 host (3.2 million FDEs) name
 * registers up to 32, nest remember_state 1 deep, and have at most 15,597
 * instructions, 1,067 remember_states and 14-byte expressions in one FDE
 * (qemu, gcc's lto1, valgrind). Within them one lookup costs libdw a few
 * milliseconds and tens of KiB at most (4,096 copies of 146 registers: 4 ms
 * and 22 KiB under ASan, tests/fuzz/fuzz_cfi_guard.c); the unwinder bounds
 * each sample's total on top.
 */
#ifndef STK_CFI_BOUNDS_H
#define STK_CFI_BOUNDS_H

/* The largest DWARF register number of each architecture's psABI:
 * x86_64: rax..r15 0-15, return address 16, xmm0-15 17-32, st0-7, mm0-7, rflags,
 *         segment and base registers, mxcsr, xmm16-31 67-82, k0-7 118-125,
 *         and r16-r31 (APX) 130-145;
 * aarch64: x0-x30, sp, pc, ELR_mode, RA_SIGN_STATE, TPIDR*, VG 46, FFR 47,
 *          p0-p15 48-63, v0-v31 64-95, z0-z31 96-127. */
#define STK_CFI_MAX_REGISTER_X86_64 145
#define STK_CFI_MAX_REGISTER_AARCH64 127
/* Per CIE or FDE instruction stream. */
#define STK_CFI_MAX_INSNS 65536
#define STK_CFI_MAX_REMEMBERS 4096 /* DW_CFA_remember_state: one register-array copy each */
#define STK_CFI_MAX_DEPTH 16       /* their nesting: copies kept at once */
#define STK_CFI_MAX_EXPR_BYTES 512 /* one DWARF expression */
/* Per file: bigger CFI is refused whole (it would not be read, nor run). */
#define STK_CFI_MAX_SECTION_BYTES (64u << 20)
#define STK_CFI_MAX_ENTRIES (1u << 20) /* CIEs and FDEs of one section */

#endif
