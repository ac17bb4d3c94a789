/*
 * Source lines and inline chains from one ELF file's DWARF (libdw): for an
 * address, the functions inlined there (innermost first, each with its
 * line) and the line in the function they were inlined into. Files other
 * users could truncate are read with pread (a mapped one would fault),
 * root's own are mapped; answers are memoized per address; every string
 * lives until close.
 */
#ifndef STK_DWARF_LINES_H
#define STK_DWARF_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "core/stack/stack.h"

struct stk_dwarf_lines;

struct stk_src_info {
	const struct stk_inline_frame *inlined; /* innermost first */
	size_t n_inlined;
	const char *file; /* line in the outermost function; NULL when unknown */
	uint32_t line;
};

/* Takes fd (closed by stk_dwarf_lines_close, or here on failure). NULL with why. */
struct stk_dwarf_lines *stk_dwarf_lines_open(int fd, char *why, size_t len);
/* 0 with *out filled (possibly no line, no inlines), -1 when no DWARF covers vaddr. */
int stk_dwarf_lines_lookup(struct stk_dwarf_lines *d, uint64_t vaddr, struct stk_src_info *out);
/* The first error libdw reported during lookups (corrupt DWARF), or NULL. */
const char *stk_dwarf_lines_error(const struct stk_dwarf_lines *d);
void stk_dwarf_lines_close(struct stk_dwarf_lines *d);

#endif
