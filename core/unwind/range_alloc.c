/* First-fit ranges over a sorted free list: see range_alloc.h. */
#include "core/unwind/range_alloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"

int stk_range_alloc_init(struct stk_range_alloc *a, uint32_t capacity)
{
	memset(a, 0, sizeof(*a));
	a->capacity = capacity;
	if (!capacity)
		return 0;
	if (stk_grow((void **)&a->free, &a->cap_free, 1, sizeof(*a->free)))
		return -1;
	a->free[0] = (struct stk_range){ 0, capacity };
	a->n_free = 1;
	return 0;
}

int64_t stk_range_alloc_take(struct stk_range_alloc *a, uint32_t len)
{
	if (!len)
		return 0;
	for (size_t i = 0; i < a->n_free; i++) {
		struct stk_range *r = &a->free[i];
		uint32_t start = r->start;

		if (r->len < len)
			continue;
		r->start += len;
		r->len -= len;
		if (!r->len) {
			memmove(r, r + 1, (a->n_free - i - 1) * sizeof(*r));
			a->n_free--;
		}
		a->used += len;
		if (a->used > a->peak)
			a->peak = a->used;
		return start;
	}
	return -1;
}

int stk_range_alloc_give(struct stk_range_alloc *a, uint32_t start, uint32_t len)
{
	size_t at = 0;

	if (!len)
		return 0;
	while (at < a->n_free && a->free[at].start < start)
		at++;
	struct stk_range *prev = at ? &a->free[at - 1] : NULL, *next = at < a->n_free ? &a->free[at] : NULL;
	bool joins_prev = prev && prev->start + prev->len == start;
	bool joins_next = next && start + len == next->start;

	a->used -= len;
	if (joins_prev && joins_next) {
		prev->len += len + next->len;
		memmove(next, next + 1, (a->n_free - at - 1) * sizeof(*next));
		a->n_free--;
	} else if (joins_prev) {
		prev->len += len;
	} else if (joins_next) {
		next->start = start;
		next->len += len;
	} else {
		if (stk_grow((void **)&a->free, &a->cap_free, a->n_free + 1, sizeof(*a->free)))
			return -1;
		memmove(&a->free[at + 1], &a->free[at], (a->n_free - at) * sizeof(*a->free));
		a->free[at] = (struct stk_range){ start, len };
		a->n_free++;
	}
	return 0;
}

void stk_range_alloc_release(struct stk_range_alloc *a)
{
	free(a->free);
	memset(a, 0, sizeof(*a));
}
