/*
 * One CIE's or FDE's DW_CFA instruction stream, decoded (not run) to find
 * what makes libdw's run of it slow or huge: a register number beyond the
 * architecture's (libdw sizes its register array by it and copies it whole
 * at each remember_state), deep remember_state nesting, long streams, long
 * DWARF expressions. Linear in the stream's length; allocates nothing.
 */
#ifndef STK_CFI_PROGRAM_H
#define STK_CFI_PROGRAM_H

#include <stdint.h>

#include "core/unwind/cfi_encoded.h"

struct stk_cfi_program {
	const struct stk_cfi_section *section; /* the stream lies in it */
	uint8_t fde_encoding;                  /* the CIE's, for DW_CFA_set_loc */
	uint64_t max_register;                 /* the architecture's largest DWARF register */
	const char *register_reason;           /* said when a register is above it */
};

/* What one stream holds, up to where it was refused. */
struct stk_cfi_program_stats {
	unsigned insns, remembers, max_depth, max_expr; /* instructions, remember_states, their nesting, longest expression */
	uint64_t max_register;
};

/* The refusal of a stream whose last instruction is cut short. */
extern const char stk_cfi_past_end[];

/*
 * NULL when libdw may run [p, end): its run is then bounded by the limits in
 * cfi_guard.h. Else why not (a static string). st is filled either way.
 */
const char *stk_cfi_program_check(const struct stk_cfi_program *prog, const uint8_t *p, const uint8_t *end,
				  struct stk_cfi_program_stats *st);

#endif
