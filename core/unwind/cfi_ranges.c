/* Function ranges from CFI, by the guard's walk: see cfi_ranges.h. */
#include "core/unwind/cfi_ranges.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/floor.h"

int stk_cfi_ranges_read(Elf *e, struct stk_cfi_ranges *out)
{
	struct stk_cfi_guard g;
	int ret = stk_cfi_guard_scan(e, &g);

	memset(out, 0, sizeof(*out));
	if (ret == 0) {
		/* the ranges outlive the scan: taken over, the rest freed */
		out->ranges = g.ranges;
		out->n = g.n_ranges;
		g.ranges = NULL;
		g.n_ranges = 0;
	}
	stk_cfi_guard_free(&g);
	return ret;
}

long stk_cfi_ranges_lookup(const struct stk_cfi_ranges *c, uint64_t vaddr)
{
	size_t at;

	STK_FLOOR(at, c->n, i, c->ranges[i].start <= vaddr);
	return at && vaddr - c->ranges[at - 1].start < c->ranges[at - 1].size ? (long)at - 1 : -1;
}

void stk_cfi_ranges_free(struct stk_cfi_ranges *c)
{
	free(c->ranges);
	memset(c, 0, sizeof(*c));
}
