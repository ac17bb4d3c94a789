#include "harness.h"
#include "core/threads/sched_state.h"

static void parses_bcc_masks(struct test_ctx *t)
{
	struct stk_state_filter f;

	CHECK(t, stk_state_filter_parse("0", &f) == 0 && f.running == 1 && f.include == 0);
	CHECK(t, stk_state_filter_parse("2", &f) == 0 && !f.running && f.include == 2 && f.exclude == 0);
	CHECK(t, stk_state_filter_parse("3", &f) == 0 && f.include == 3);
	CHECK(t, stk_state_filter_parse("4294967296", &f) == -1);
	CHECK(t, stk_state_filter_parse("2x", &f) == -1);
	CHECK(t, stk_state_filter_parse("-1", &f) == -1);
}

static void parses_letters(struct test_ctx *t)
{
	struct stk_state_filter f;

	/* D is uninterruptible but not the idle (NOLOAD) kind */
	CHECK(t, stk_state_filter_parse("D", &f) == 0 && f.include == 0x2 && f.exclude == 0x400 && !f.idle);
	CHECK(t, stk_state_filter_parse("S", &f) == 0 && f.include == 0x1 && f.exclude == 0);
	CHECK(t, stk_state_filter_parse("S,D", &f) == 0 && f.include == 0x3 && f.exclude == 0x400);
	CHECK(t, stk_state_filter_parse("SD", &f) == 0 && f.include == 0x3);
	CHECK(t, stk_state_filter_parse("R", &f) == 0 && f.running && !f.include);
	CHECK(t, stk_state_filter_parse("I", &f) == 0 && f.idle && !f.include);
	CHECK(t, stk_state_filter_parse("T,t,P", &f) == 0 && f.include == (0x4 | 0x8 | 0x40));
	CHECK(t, stk_state_filter_parse("", &f) == -1);
	CHECK(t, stk_state_filter_parse(",", &f) == -1);
	CHECK(t, stk_state_filter_parse("X", &f) == -1);
	CHECK(t, stk_state_filter_parse("d", &f) == -1);
}

const struct test_case sched_state_tests[] = {
	{ "sched_state_bcc_masks", parses_bcc_masks },
	{ "sched_state_letters", parses_letters },
	{ NULL, NULL },
};
