#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/threads/thread_group.h"

static struct stk_thread thread(enum stk_tstate state, const char *comm, int32_t syscall)
{
	struct stk_thread t = { .state = state, .syscall = syscall, .syscall_ns = -1, .username = "root" };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return t;
}

static void parses_column_lists(struct test_ctx *t)
{
	struct stk_group_spec spec = { 0 };
	char err[128];

	CHECK(t, stk_group_spec_add(&spec, "state,comm", err, sizeof(err)) == 0);
	CHECK(t, spec.n == 2 && spec.cols[0] == STK_TCOL_STATE && spec.cols[1] == STK_TCOL_COMM);
	CHECK(t, stk_group_spec_add(&spec, "comm,tid", err, sizeof(err)) == 0); /* -G: duplicates ignored */
	CHECK(t, spec.n == 3 && spec.cols[2] == STK_TCOL_TID);
	CHECK(t, stk_group_spec_add(&spec, "state,bogus", err, sizeof(err)) == -1);
	CHECK_STR(t, err, "unknown column 'bogus' (see --list-columns)");
	CHECK(t, stk_group_spec_add(&spec, "", err, sizeof(err)) == -1);
	CHECK(t, stk_group_spec_add(&spec, "state,,comm", err, sizeof(err)) == -1);
}

static void averages_over_samples(struct test_ctx *t)
{
	struct stk_group_spec spec = { 0 };
	char err[128];
	size_t n;

	stk_group_spec_add(&spec, "state,comm,syscall", err, sizeof(err));
	struct stk_group *g = stk_group_new(&spec);
	struct stk_thread spin = thread(STK_TSTATE_RUN, "spin", STK_TSYS_NONE);
	struct stk_thread reader = thread(STK_TSTATE_SLEEP, "reader", 0 /* read */);
	struct stk_thread queued = thread(STK_TSTATE_RUNQ, "spin", STK_TSYS_NONE);

	/* 4 samples: spin RUN in 3, RUNQ in 1; two readers in every one. */
	for (int s = 0; s < 4; s++) {
		CHECK(t, stk_group_add(g, s == 3 ? &queued : &spin) == 0);
		CHECK(t, stk_group_add(g, &reader) == 0);
		CHECK(t, stk_group_add(g, &reader) == 0);
		stk_group_end_sample(g);
	}
	const struct stk_group_row *rows = stk_group_sorted(g, &n);
	CHECK(t, stk_group_samples(g) == 4);
	CHECK(t, n == 3);
	if (n == 3) {
		CHECK(t, rows[0].count == 8);
		CHECK_STR(t, rows[0].values[1], "reader");
		CHECK_STR(t, rows[0].values[2], "read");
		CHECK(t, rows[1].count == 3);
		CHECK_STR(t, rows[1].values[0], "RUN");
		CHECK_STR(t, rows[1].values[2], "");
		CHECK(t, rows[2].count == 1);
		CHECK_STR(t, rows[2].values[0], "RUNQ");
	}
	/* Adding after sorting still finds the existing groups. */
	CHECK(t, stk_group_add(g, &spin) == 0);
	rows = stk_group_sorted(g, &n);
	CHECK(t, n == 3 && rows[1].count == 4);
	stk_group_reset(g);
	stk_group_sorted(g, &n);
	CHECK(t, n == 0 && stk_group_samples(g) == 0);
	stk_group_free(g);
}

static void many_groups(struct test_ctx *t)
{
	struct stk_group_spec spec = { 0 };
	char err[64];
	size_t n;

	stk_group_spec_add(&spec, "tid", err, sizeof(err));
	struct stk_group *g = stk_group_new(&spec);
	for (uint32_t i = 0; i < 5000; i++) {
		struct stk_thread th = thread(STK_TSTATE_RUN, "x", STK_TSYS_NONE);
		th.tid = i % 1000;
		CHECK(t, stk_group_add(g, &th) == 0);
	}
	const struct stk_group_row *rows = stk_group_sorted(g, &n);
	CHECK(t, n == 1000 && rows[0].count == 5 && rows[999].count == 5);
	stk_group_free(g);
}

const struct test_case thread_group_tests[] = {
	{ "thread_group_parses_columns", parses_column_lists },
	{ "thread_group_averages", averages_over_samples },
	{ "thread_group_many_groups", many_groups },
	{ NULL, NULL },
};
