#include "harness.h"
#include "core/base/dispatch.h"

static int fake_main(const struct stk_invocation *inv)
{
	(void)inv;
	return 0;
}

static const struct stk_applet table[] = {
	{ .name = "profile", .summary = "p", .main = fake_main, .bare_link = true, .rank = 10 },
	{ .name = "stackcount", .summary = "s", .bare_link = true, .rank = 20 },
	{ .name = "info", .summary = "i", .main = fake_main, .bare_link = false, .rank = 90 },
};
#define N (sizeof(table) / sizeof(table[0]))

static void resolves_argv0(struct test_ctx *t)
{
	CHECK(t, stk_applet_from_argv0(table, N, "/usr/sbin/profile") == &table[0]);
	CHECK(t, stk_applet_from_argv0(table, N, "stk-profile") == &table[0]);
	CHECK(t, stk_applet_from_argv0(table, N, "./stk-stackcount") == &table[1]);
	CHECK(t, stk_applet_from_argv0(table, N, "/bin/stk-info") == &table[2]);
	/* "info" alone would clash with GNU info: only reachable with the prefix. */
	CHECK(t, stk_applet_from_argv0(table, N, "/usr/bin/info") == NULL);
	CHECK(t, stk_applet_from_argv0(table, N, "build/stk") == NULL);
	CHECK(t, stk_applet_from_argv0(table, N, "stk-unknown") == NULL);
	CHECK(t, stk_applet_from_argv0(table, N, "profiler") == NULL);
}

static void finds_by_exact_name(struct test_ctx *t)
{
	CHECK(t, stk_applet_find(table, N, "stackcount") == &table[1]);
	CHECK(t, stk_applet_find(table, N, "stack") == NULL);
	CHECK(t, stk_applet_find(table, N, "") == NULL);
}

const struct test_case dispatch_tests[] = {
	{ "dispatch_argv0", resolves_argv0 },
	{ "dispatch_find", finds_by_exact_name },
	{ NULL, NULL },
};
