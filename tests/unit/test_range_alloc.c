/* core/unwind/range_alloc.c: first fit, merging on give, fragmentation, exhaustion. */
#include "harness.h"
#include "core/unwind/range_alloc.h"

static void first_fit_and_merge(struct test_ctx *t)
{
	struct stk_range_alloc a;

	CHECK(t, stk_range_alloc_init(&a, 100) == 0);
	CHECK(t, stk_range_alloc_take(&a, 10) == 0);
	CHECK(t, stk_range_alloc_take(&a, 20) == 10);
	CHECK(t, stk_range_alloc_take(&a, 30) == 30);
	CHECK(t, a.used == 60);
	/* a hole of 20 at 10: a request of 25 goes past it, one of 15 fits in it */
	CHECK(t, stk_range_alloc_give(&a, 10, 20) == 0);
	CHECK(t, stk_range_alloc_take(&a, 25) == 60);
	CHECK(t, stk_range_alloc_take(&a, 15) == 10);
	CHECK(t, stk_range_alloc_take(&a, 16) == -1); /* 5 + 15 left, in two pieces */
	/* giving everything back merges it into one run again */
	CHECK(t, stk_range_alloc_give(&a, 0, 10) == 0);
	CHECK(t, stk_range_alloc_give(&a, 30, 30) == 0);
	CHECK(t, stk_range_alloc_give(&a, 10, 15) == 0);
	CHECK(t, stk_range_alloc_give(&a, 60, 25) == 0);
	CHECK(t, a.used == 0);
	CHECK(t, a.n_free == 1 && a.free[0].start == 0 && a.free[0].len == 100);
	CHECK(t, a.peak == 80);
	CHECK(t, stk_range_alloc_take(&a, 100) == 0);
	CHECK(t, stk_range_alloc_take(&a, 1) == -1);
	stk_range_alloc_release(&a);
}

static void zero_and_empty(struct test_ctx *t)
{
	struct stk_range_alloc a;

	CHECK(t, stk_range_alloc_init(&a, 0) == 0);
	CHECK(t, stk_range_alloc_take(&a, 1) == -1);
	CHECK(t, stk_range_alloc_take(&a, 0) == 0);
	CHECK(t, stk_range_alloc_give(&a, 0, 0) == 0);
	stk_range_alloc_release(&a);
}

const struct test_case range_alloc_tests[] = {
	{ "first_fit_and_merge", first_fit_and_merge },
	{ "zero_and_empty", zero_and_empty },
	{ NULL, NULL },
};
