/*
 * A bound on CFI before libdw runs it. libdw executes a function's CFI
 * (CIE initial instructions, then the FDE's up to the pc) with no limit but
 * register numbers below 2^28: it sizes its register array by the largest
 * number named and copies the whole array at each DW_CFA_remember_state, so
 * one FDE of a user's program could cost minutes and gigabytes per lookup.
 * The guard reads every CIE and FDE of a file's .eh_frame and .debug_frame
 * (libdw's dwarf_next_cfi, the sections libdw itself would use), decodes
 * each instruction stream without running it, and refuses the FDEs that
 * exceed the bounds below, or whose CIE does; what it refuses libdw must not
 * run (stk_cfi_guard_check before each lookup). The scan is linear in the
 * sections' size and allocates per entry, never per register.
 *
 * The bounds below sit far above what compilers emit: the 2,599 x86_64
 * binaries and libraries of a Debian 12 host (3.2 million FDEs) name
 * registers up to 32, nest remember_state 1 deep, and have at most 15,597
 * instructions, 1,067 remember_states and 14-byte expressions in one FDE
 * (qemu, gcc's lto1, valgrind). Within them one lookup costs libdw a few
 * milliseconds and tens of KiB at most (4,096 copies of 146 registers: 4 ms
 * and 22 KiB under ASan, tests/fuzz/fuzz_cfi_guard.c); the unwinder bounds
 * each sample's total on top.
 */
#ifndef STK_CFI_GUARD_H
#define STK_CFI_GUARD_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

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

struct stk_cfi_guard_range {
	uint64_t start, end; /* ELF virtual addresses, [start, end) */
	const char *reason;  /* static */
};

struct stk_cfi_guard {
	const char *all;                     /* set: every address refused, for this (static) reason */
	struct stk_cfi_guard_range *refused; /* sorted, disjoint */
	size_t n_refused;
	/* What the scan saw (for -v and tests). */
	size_t cies, fdes, fdes_refused;
	unsigned max_insns, max_remembers, max_depth, max_expr;
	uint64_t max_register;
};

/*
 * Scans e's CFI into out (zeroed first). The architecture's bound comes from
 * e_machine: x86_64 and aarch64 are known, any other machine is refused
 * whole. A compressed .debug_frame is decompressed in place, as libdw does
 * on its first use. 0; -1 when out of memory (out->all then refuses all).
 * Release with stk_cfi_guard_free.
 */
int stk_cfi_guard_scan(Elf *e, struct stk_cfi_guard *out);
/*
 * NULL when libdw may run the CFI covering vaddr (an ELF virtual address:
 * the lookup address, so pc - 1 for a return address), else why not.
 */
const char *stk_cfi_guard_check(const struct stk_cfi_guard *g, uint64_t vaddr);
void stk_cfi_guard_free(struct stk_cfi_guard *g);

#endif
