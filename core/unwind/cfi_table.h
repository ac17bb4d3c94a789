/*
 * One executable file's CFI as the kernel unwinder's rows
 * (bpf/unwind_types.h): for every address range of its executable segments,
 * how to find the caller's stack pointer (the CFA), return address and frame
 * pointer. Built through libdw (dwarf_cfi_addrframe on .eh_frame, else
 * .debug_frame): the rule of each FDE row is reduced to "register plus
 * offset" or one of the known shapes (x86_64 PLT entries, stack
 * realignment); anything else becomes a row that stops the walk with a
 * reason. Between functions with CFI, rows say "no CFI" (a frame-pointer
 * step). Rows are relative to base_vaddr; a page index (one entry per
 * 4 KiB) narrows each lookup to a few rows.
 */
#ifndef STK_CFI_TABLE_H
#define STK_CFI_TABLE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_types.h"

/* Bounds on one build: a file other users control must not take stk's memory or time. */
struct stk_cfi_table_limits {
	size_t max_rows;      /* more: the build fails ("too large") */
	uint64_t max_span;    /* bytes of executable address space a table may cover */
	int64_t max_cpu_ns;   /* CPU time one build may take */
	/* polled as the build goes: true ends it (SIGINT/SIGTERM); NULL: never */
	bool (*stop)(void *ctx);
	void *stop_ctx;
};
#define STK_CFI_TABLE_LIMITS_DEFAULT { .max_rows = 4u << 20, .max_span = 1ULL << 31, .max_cpu_ns = 10000000000LL }

struct stk_cfi_table_stats {
	size_t fdes;           /* FDEs turned into rows */
	size_t fdes_refused;   /* FDEs whose CFI was refused or unreadable */
	size_t stop_rows;      /* rows of shapes the walk does not take */
	int64_t build_ns;      /* user CPU time */
};

struct stk_cfi_table {
	uint64_t base_vaddr;         /* ELF virtual address of row pc 0 */
	struct stk_cfi_row *rows;    /* sorted by pc, the first at pc 0 */
	size_t n_rows;
	uint32_t *pages;             /* n_pages + 1 row indexes */
	size_t n_pages;
	struct stk_cfi_table_stats stats;
};

struct stk_cfi_guard;
/*
 * Builds e's table. guard (core/unwind/cfi_guard.h, stk_cfi_guard_scan of
 * e) says what of its CFI libdw may run: a refused FDE becomes a row that
 * ends the walk (STK_STOP_HOSTILE); its walk's FDE ranges are the ones the
 * rows cover (NULL: no table). 0, or -1 with why
 * (no executable segment, no CFI at all, too large, out of memory, over its
 * time): the file's frames then take frame-pointer steps. *t is zeroed
 * first and freed by stk_cfi_table_free.
 */
int stk_cfi_table_build(Elf *e, const struct stk_cfi_guard *guard, const struct stk_cfi_table_limits *lim,
			struct stk_cfi_table *t, char *why, size_t len);
void stk_cfi_table_free(struct stk_cfi_table *t);

/*
 * The runtime address of row pc 0 (base_vaddr in e) for a mapping of e at start with file
 * offset offset (as /proc/PID/maps shows it). 0, or -1 when offset is in no
 * loadable segment.
 */
int stk_cfi_table_mapping_base(Elf *e, uint64_t base_vaddr, uint64_t start, uint64_t offset, uint64_t *base);

/* The text of a stop reason (enum stk_walk_stop), for -v. */
const char *stk_walk_stop_text(unsigned stop);

#endif
