/*
 * Function ranges from call-frame information: where a stripped file has no
 * symbol, the FDE holding an address still says where its function starts
 * (the symbolizer names it "module+0xSTART"). The ranges are the CFI guard's
 * walk of .eh_frame and .debug_frame (core/unwind/cfi_guard.c), read as libdw
 * reads them.
 */
#ifndef STK_CFI_RANGES_H
#define STK_CFI_RANGES_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "core/unwind/cfi_guard.h"

struct stk_cfi_ranges {
	struct stk_cfi_range *ranges; /* sorted by start, one per start */
	size_t n;
};

/* Every FDE of e's .eh_frame and .debug_frame. 0 (possibly none), -1 out of memory. */
int stk_cfi_ranges_read(Elf *e, struct stk_cfi_ranges *out);
/* Index of the range holding vaddr, or -1. */
long stk_cfi_ranges_lookup(const struct stk_cfi_ranges *c, uint64_t vaddr);
void stk_cfi_ranges_free(struct stk_cfi_ranges *c);

#endif
