/* Folded and pmp output, and pmp's C++ name stripping. */
#include <stdlib.h>

#include "harness.h"
#include "test_output_fixture.h"
#include "core/output/output_internal.h"

static void expect_render(struct test_ctx *t, const struct stk_output_opts *o, const char *want)
{
	struct stk_report r;
	int ret;
	char *got;

	output_fixture(&r);
	got = output_render(&r, o, NULL, &ret);
	CHECK(t, ret == 0);
	CHECK_STR(t, got ? got : "", want);
	free(got);
}

static void folded_default(struct test_ctx *t)
{
	struct stk_output_opts o = { .format = STK_FORMAT_FOLDED };

	/* ascending; the two compute stacks (2 + 4) merged; ';' in a name became ':' */
	expect_render(t, &o,
		      "app;odd:name;[Missed Kernel Stack] 1\n"
		      "kworker/0:1;worker_thread;schedule 1\n"
		      "worker;main;[unknown];ns::Widget<int>::run(int, char const*) const;"
		      "vfs_write;ext4_file_write_iter;native_write_msr 5\n"
		      "worker;main;compute(double) 6\n");
}

static void folded_delimiter_annotate_tid(struct test_ctx *t)
{
	struct stk_output_opts o = { .format = STK_FORMAT_FOLDED, .delimiter = true, .annotate = true };

	expect_render(t, &o,
		      "app;odd:name;[Missed Kernel Stack] 1\n"
		      "kworker/0:1;worker_thread_[k];schedule_[k] 1\n"
		      "worker;main;[unknown];ns::Widget<int>::run(int, char const*) const;-;"
		      "vfs_write_[k];ext4_file_write_iter_[k];native_write_msr_[k] 5\n"
		      "worker;main;compute(double) 6\n");
	o = (struct stk_output_opts){ .format = STK_FORMAT_FOLDED, .show_tid = true };
	/* per-thread tasks no longer merge */
	expect_render(t, &o,
		      "app (300/301);odd:name;[Missed Kernel Stack] 1\n"
		      "kworker/0:1 (7/7);worker_thread;schedule 1\n"
		      "worker (100/102);main;compute(double) 2\n"
		      "worker (200/200);main;compute(double) 4\n"
		      "worker (100/101);main;[unknown];ns::Widget<int>::run(int, char const*) const;"
		      "vfs_write;ext4_file_write_iter;native_write_msr 5\n");
}

static void folded_sanitizes_comm(struct test_ctx *t)
{
	static const struct stk_frame f[] = { { .symbol = "a\nb" } };
	struct stk_stack s = { .comm = "x;y\tz", .value = 2, .user = f, .n_user = 1, .user_missing = false };
	struct stk_report r = { .stacks = &s, .n_stacks = 1 };
	struct stk_output_opts o = { .format = STK_FORMAT_FOLDED };
	int ret;
	char *got = output_render(&r, &o, NULL, &ret);

	CHECK(t, ret == 0);
	CHECK_STR(t, got ? got : "", "x:y?z;a?b 2\n");
	free(got);
}

static void pmp_default(struct test_ctx *t)
{
	struct stk_output_opts o = { .format = STK_FORMAT_PMP };

	/* most frequent first, leaf first, no parameter lists */
	expect_render(t, &o,
		      "6 compute,main\n"
		      "5 native_write_msr,ext4_file_write_iter,vfs_write,ns::Widget<int>::run,[unknown],main\n"
		      "1 [Missed Kernel Stack],odd;name\n"
		      "1 schedule,worker_thread\n");
}

static void check_strip(struct test_ctx *t, const char *in, const char *want)
{
	struct stk_buf b = { 0 };

	stk_pmp_strip(&b, in);
	CHECK_STR(t, stk_buf_str(&b), want);
	stk_buf_free(&b);
}

static void pmp_strips_cxx_arguments(struct test_ctx *t)
{
	check_strip(t, "ns::Widget<int>::run(int, char const*) const", "ns::Widget<int>::run");
	check_strip(t, "(anonymous namespace)::helper(std::vector<int, std::allocator<int> > const&)",
		    "(anonymous namespace)::helper");
	check_strip(t, "Foo::operator()(int) const", "Foo::operator()");
	check_strip(t, "std::function<void (int)>::operator()(int) const", "std::function<void (int)>::operator()");
	check_strip(t, "foo(int) [clone .isra.0]", "foo");
	check_strip(t, "Bar::get() const &&", "Bar::get");
	check_strip(t, "plain_c_function", "plain_c_function");
	check_strip(t, "(anonymous namespace)", "(anonymous namespace)");
	check_strip(t, "", "");
}

const struct test_case output_folded_tests[] = {
	{ "output_folded_default", folded_default },
	{ "output_folded_delimiter_annotate_tid", folded_delimiter_annotate_tid },
	{ "output_folded_sanitizes", folded_sanitizes_comm },
	{ "output_pmp_default", pmp_default },
	{ "output_pmp_strip", pmp_strips_cxx_arguments },
	{ NULL, NULL },
};
