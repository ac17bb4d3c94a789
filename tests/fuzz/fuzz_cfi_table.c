/*
 * libFuzzer target for the kernel unwinder's table builder
 * (core/unwind/cfi_table.c): the input is an ELF image whose CFI is turned
 * into rows. Beyond not crashing, each build must keep to its bounds: the
 * rows it was allowed, the time it was given (plus slack), and rows sorted
 * with a page index that names a row covering each page.
 */
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz.h"
#include "core/unwind/cfi_guard.h"
#include "core/unwind/cfi_table.h"

#define MAX_ROWS 200000
#define MAX_CPU_NS 200000000LL /* 0.2 s; a build may overrun by one batch of FDEs */

static int64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void check(const struct stk_cfi_table *t)
{
	if (t->n_rows > MAX_ROWS || !t->n_rows || t->rows[0].pc != 0)
		abort();
	for (size_t i = 1; i < t->n_rows; i++)
		if (t->rows[i].pc <= t->rows[i - 1].pc)
			abort();
	for (size_t p = 0; p <= t->n_pages; p++)
		if (t->pages[p] >= t->n_rows || t->rows[t->pages[p]].pc > ((uint64_t)p << STK_UNWIND_PAGE_SHIFT))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct stk_cfi_table_limits lim = { .max_rows = MAX_ROWS, .max_span = 1ULL << 28, .max_cpu_ns = MAX_CPU_NS };
	struct stk_cfi_table t;
	char why[160];
	char *image;
	Elf *e;
	int64_t t0;

	if (size < 64 || !(image = malloc(size)))
		return 0;
	memcpy(image, data, size);
	elf_version(EV_CURRENT);
	e = elf_memory(image, size);
	if (e) {
		struct stk_cfi_guard guard;

		/* as stk builds it: what the guard refuses libdw never runs */
		stk_cfi_guard_scan(e, &guard);
		t0 = cpu_ns();
		if (stk_cfi_table_build(e, &guard, &lim, &t, why, sizeof(why)) == 0) {
			check(&t);
			stk_cfi_table_free(&t);
		}
		if (cpu_ns() - t0 > 4 * MAX_CPU_NS)
			abort(); /* over its time bound */
		stk_cfi_guard_free(&guard);
		elf_end(e);
	}
	free(image);
	return 0;
}
