/*
 * Function ranges from .eh_frame / .debug_frame FDEs (libdw's
 * dwarf_next_cfi): where a stripped file has no symbol, the FDE holding an
 * address still says where its function starts.
 */
#ifndef STK_CFI_RANGES_H
#define STK_CFI_RANGES_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

struct stk_cfi_range {
	uint64_t start, size; /* ELF virtual addresses */
};

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
