/* Function ranges from CFI, by the guard's walk: see cfi_ranges.h. */
#include "core/unwind/cfi_ranges.h"

#include <stdlib.h>
#include <string.h>

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
	size_t lo = 0, hi = c->n;

	if (!c->n || vaddr < c->ranges[0].start)
		return -1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ranges[mid].start <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return vaddr - c->ranges[lo].start < c->ranges[lo].size ? (long)lo : -1;
}

void stk_cfi_ranges_free(struct stk_cfi_ranges *c)
{
	free(c->ranges);
	memset(c, 0, sizeof(*c));
}
