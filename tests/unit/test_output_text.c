/* Format lookup, the text format, and write errors for every format. */
#include <stdlib.h>

#include "harness.h"
#include "test_output_fixture.h"

static void format_names(struct test_ctx *t)
{
	enum stk_format f;

	CHECK(t, stk_format_from_name("folded", &f) == 0 && f == STK_FORMAT_FOLDED);
	CHECK(t, stk_format_from_name("pprof", &f) == 0 && f == STK_FORMAT_PPROF);
	CHECK(t, stk_format_from_name("text", &f) == 0 && f == STK_FORMAT_TEXT);
	CHECK(t, stk_format_from_name("flame", &f) == -1);
	CHECK(t, stk_format_from_path("out/p.pb.gz", &f) == 0 && f == STK_FORMAT_PPROF);
	CHECK(t, stk_format_from_path("p.pprof", &f) == 0 && f == STK_FORMAT_PPROF);
	CHECK(t, stk_format_from_path("p.folded", &f) == 0 && f == STK_FORMAT_FOLDED);
	CHECK(t, stk_format_from_path("p.txt", &f) == 0 && f == STK_FORMAT_TEXT);
	CHECK(t, stk_format_from_path("p.pmp", &f) == 0 && f == STK_FORMAT_PMP);
	CHECK(t, stk_format_from_path("/tmp/flame.SVG", &f) == 0 && f == STK_FORMAT_SVG);
	CHECK(t, stk_format_from_path("p.gz", &f) == -1);
	CHECK(t, stk_format_from_path("dir/.svg", &f) == -1);
	CHECK(t, stk_format_from_path("noext", &f) == -1);
	CHECK_STR(t, stk_format_name(STK_FORMAT_PMP), "pmp");
	CHECK_STR(t, stk_format_name(STK_FORMAT_SVG), "svg");
}

static void expect_render(struct test_ctx *t, const struct stk_output_opts *o, const char *want)
{
	struct stk_report r;
	int ret;
	char *got;

	output_fixture(&r);
	got = output_render(&r, o, NULL, &ret);
	CHECK(t, ret == 0);
	CHECK(t, got != NULL);
	if (got)
		CHECK_STR(t, got, want);
	free(got);
}

static void text_default(struct test_ctx *t)
{
	struct stk_output_opts o = { .format = STK_FORMAT_TEXT };

	expect_render(t, &o,
		      "    [Missed Kernel Stack]\n"
		      "    odd;name\n"
		      "    -                app (300)\n"
		      "        1\n\n"
		      "    schedule\n"
		      "    worker_thread\n"
		      "    -                kworker/0:1 (7)\n"
		      "        1\n\n"
		      "    compute(double)\n"
		      "    main\n"
		      "    -                worker (100)\n"
		      "        2\n\n"
		      "    compute(double)\n"
		      "    main\n"
		      "    -                worker (200)\n"
		      "        4\n\n"
		      "    native_write_msr\n"
		      "    ext4_file_write_iter [ext4]\n"
		      "    vfs_write\n"
		      "    ns::Widget<int>::run(int, char const*) const\n"
		      "    [unknown]\n"
		      "    main\n"
		      "    -                worker (100)\n"
		      "        5\n\n");
}

static void text_delimiter_offsets_tid(struct test_ctx *t)
{
	struct stk_output_opts o = { .format = STK_FORMAT_TEXT, .delimiter = true, .symbol_offsets = true,
				     .show_tid = true };
	struct stk_report r;
	int ret;
	char *got;

	output_fixture(&r);
	r.n_stacks = 1; /* the kernel + user stack only */
	got = output_render(&r, &o, NULL, &ret);
	CHECK(t, ret == 0);
	CHECK_STR(t, got ? got : "",
		  "    native_write_msr+0x14\n"
		  "    ext4_file_write_iter+0x30 [ext4]\n"
		  "    vfs_write+0x10\n"
		  "    --\n"
		  "    ns::Widget<int>::run(int, char const*) const+0x12\n"
		  "    [unknown]\n"
		  "    main+0x20\n"
		  "    -                worker (100/101)\n"
		  "        5\n\n");
	free(got);

	/* no "--" when one side is missing or empty */
	r.stacks += 4;
	got = output_render(&r, &o, NULL, &ret);
	CHECK(t, ret == 0);
	CHECK_STR(t, got ? got : "",
		  "    [Missed Kernel Stack]\n"
		  "    odd;name+0x0\n"
		  "    -                app (300/301)\n"
		  "        1\n\n");
	free(got);
}

static void text_verbose(struct test_ctx *t)
{
	struct stk_output_opts o = { .format = STK_FORMAT_TEXT, .verbose = true };
	struct stk_report r;
	int ret;
	char *got;

	output_fixture(&r);
	r.n_stacks = 1;
	got = output_render(&r, &o, NULL, &ret);
	CHECK(t, ret == 0);
	CHECK_STR(t, got ? got : "",
		  "    native_write_msr+0x14 (0xffffffff81001234 [kernel.kallsyms])\n"
		  "    ext4_file_write_iter+0x30 [ext4] (0xffffffffc0100030)\n"
		  "    vfs_write+0x10 (0xffffffff81200010 [kernel.kallsyms])\n"
		  "    ns::Widget<int>::run(int, char const*) const+0x12 (0x401136 /tmp/w)\n"
		  "    [unknown] (0x7f00deadbeef /usr/lib/x.so)\n"
		  "    main+0x20 (0x401200 /tmp/w)\n"
		  "    -                worker (100)\n"
		  "        5\n\n");
	free(got);
}

static void text_sorting_is_deterministic(struct test_ctx *t)
{
	/* same value: ties by comm, then pid, whatever the input order */
	static const struct stk_frame f[] = { { .symbol = "f" } };
	struct stk_stack s[] = {
		{ .pid = 9, .comm = "b", .value = 3, .user = f, .n_user = 1 },
		{ .pid = 2, .comm = "b", .value = 3, .user = f, .n_user = 1 },
		{ .pid = 5, .comm = "a", .value = 3, .user = f, .n_user = 1 },
	};
	struct stk_report r = { .stacks = s, .n_stacks = 3 };
	struct stk_output_opts o = { .format = STK_FORMAT_TEXT };
	int ret;
	char *got = output_render(&r, &o, NULL, &ret);

	CHECK(t, ret == 0);
	CHECK_STR(t, got ? got : "",
		  "    f\n    -                a (5)\n        3\n\n"
		  "    f\n    -                b (2)\n        3\n\n"
		  "    f\n    -                b (9)\n        3\n\n");
	free(got);
}

static void empty_report(struct test_ctx *t)
{
	struct stk_report r = { 0 };
	struct stk_output_opts o = { .format = STK_FORMAT_TEXT };
	size_t len = 1;
	int ret;
	char *got = output_render(&r, &o, &len, &ret);

	CHECK(t, ret == 0);
	CHECK(t, len == 0);
	free(got);
	o.format = STK_FORMAT_FOLDED;
	got = output_render(&r, &o, &len, &ret);
	CHECK(t, ret == 0 && len == 0);
	free(got);
	o.format = STK_FORMAT_SVG;
	got = output_render(&r, &o, &len, &ret);
	CHECK(t, ret == 0 && len > 0);
	free(got);
	o.format = STK_FORMAT_PPROF;
	got = output_render(&r, &o, &len, &ret);
	CHECK(t, ret == 0 && len > 10);
	free(got);
}

static void write_errors_are_reported(struct test_ctx *t)
{
	static const enum stk_format all[] = { STK_FORMAT_TEXT, STK_FORMAT_FOLDED, STK_FORMAT_PMP,
					       STK_FORMAT_PPROF, STK_FORMAT_SVG };
	struct stk_report r;

	output_fixture(&r);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct stk_output_opts o = { .format = all[i] };
		FILE *f = fopen("/dev/full", "w");

		CHECK(t, f != NULL);
		if (!f)
			return;
		int ret = stk_output_write(f, &r, &o);

		if (ret != -1)
			printf("  format %s: write to /dev/full not reported\n", stk_format_name(all[i]));
		CHECK(t, ret == -1);
		fclose(f);
	}
}

const struct test_case output_text_tests[] = {
	{ "output_format_names", format_names },
	{ "output_text_default", text_default },
	{ "output_text_delimiter_offsets_tid", text_delimiter_offsets_tid },
	{ "output_text_verbose", text_verbose },
	{ "output_text_sorting", text_sorting_is_deterministic },
	{ "output_empty_report", empty_report },
	{ "output_write_errors", write_errors_are_reported },
	{ NULL, NULL },
};
