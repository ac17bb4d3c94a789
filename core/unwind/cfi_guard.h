/*
 * A bound on CFI before libdw runs it. libdw executes a function's CFI
 * (CIE initial instructions, then the FDE's up to the pc) with no limit but
 * register numbers below 2^28: it sizes its register array by the largest
 * number named and copies the whole array at each DW_CFA_remember_state, so
 * one FDE of a user's program could cost minutes and gigabytes per lookup.
 * The guard reads every CIE and FDE of a file's .eh_frame and .debug_frame
 * (libdw's dwarf_next_cfi, the sections libdw itself would use), decodes
 * each instruction stream without running it, and refuses the FDEs that
 * exceed the bounds of cfi_bounds.h, or whose CIE does; what it refuses
 * libdw must not run (stk_cfi_guard_check before each lookup). The scan is
 * linear in the sections' size and allocates per entry, never per register.
 */
#ifndef STK_CFI_GUARD_H
#define STK_CFI_GUARD_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "core/unwind/cfi_bounds.h"

struct stk_cfi_guard_range {
	uint64_t start, end; /* ELF virtual addresses, [start, end) */
	const char *reason;  /* static */
};

/* An FDE's address range: [start, start + size) in ELF virtual addresses. */
struct stk_cfi_range {
	uint64_t start, size;
};

struct stk_cfi_guard {
	const char *all;                     /* set: every address refused, for this (static) reason */
	struct stk_cfi_guard_range *refused; /* sorted, disjoint */
	size_t n_refused;
	/* every FDE's range the walk saw, refused or not: sorted by start, one per start
	 * (.eh_frame's before .debug_frame's); what the table builder and CFI names use */
	struct stk_cfi_range *ranges;
	size_t n_ranges;
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
