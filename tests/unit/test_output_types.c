/* Reports of several value types (stk resources): every format keeps the
 * types apart and names each with its unit. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_output_fixture.h"

static char *render(struct test_ctx *t, const struct stk_report *r, enum stk_format f)
{
	struct stk_output_opts o = { .format = f };
	size_t len;
	int ret;
	char *text = output_render(r, &o, &len, &ret);

	CHECK(t, ret == 0 && text != NULL);
	return text;
}

static void types_text_sections(struct test_ctx *t)
{
	struct stk_report r;
	char *text;

	output_typed_fixture(&r);
	text = render(t, &r, STK_FORMAT_TEXT);
	if (!text)
		return;
	const char *rss = strstr(text, "rss (bytes):\n");
	const char *bt = strstr(text, "block_time (microseconds):\n");
	CHECK(t, rss == text && bt != NULL && bt > rss);
	/* the two touch_pages stacks merged, the larger rss stack last in its section */
	CHECK(t, strstr(text, "    touch_pages\n    main\n    -                app (10)\n        12288\n\n"
			      "    write_leaf\n    main\n    -                app (10)\n        12288\n\n"
			      "block_time (microseconds):\n") != NULL);
	CHECK(t, bt && strstr(bt, "    wb_writeback\n    worker_thread\n    -                kworker/u4:1 (5)\n        100\n") != NULL);
	CHECK(t, bt && strstr(bt, "    write_leaf\n    main\n    -                app (10)\n        300\n") != NULL);
	free(text);

	/* one type named by the applet: the header still says what the numbers are */
	r.n_types = 1;
	r.n_stacks = 3;
	text = render(t, &r, STK_FORMAT_TEXT);
	CHECK(t, text && strncmp(text, "rss (bytes):\n", 13) == 0 && !strstr(text, "block_time"));
	free(text);
}

static void types_folded_and_pmp(struct test_ctx *t)
{
	struct stk_report r;
	char *text;

	output_typed_fixture(&r);
	text = render(t, &r, STK_FORMAT_FOLDED);
	CHECK(t, text && strstr(text, "rss;app;main;touch_pages 12288\n") != NULL);
	CHECK(t, text && strstr(text, "rss;app;main;write_leaf 12288\n") != NULL);
	CHECK(t, text && strstr(text, "block_time;app;main;write_leaf 300\n") != NULL);
	CHECK(t, text && strstr(text, "block_time;kworker/u4:1;worker_thread;wb_writeback 100\n") != NULL);
	free(text);
	text = render(t, &r, STK_FORMAT_PMP);
	CHECK(t, text && strstr(text, "12288 touch_pages,main,rss\n") != NULL);
	CHECK(t, text && strstr(text, "300 write_leaf,main,block_time\n") != NULL);
	free(text);
	/* one type: plain folded lines flamegraph.pl takes as they are */
	r.n_types = 1;
	r.n_stacks = 3;
	text = render(t, &r, STK_FORMAT_FOLDED);
	CHECK(t, text && strstr(text, "app;main;touch_pages 12288\n") != NULL && !strstr(text, "rss;"));
	free(text);
}

static void types_svg_equal_shares(struct test_ctx *t)
{
	struct stk_report r;
	char *text;

	output_typed_fixture(&r);
	text = render(t, &r, STK_FORMAT_SVG);
	if (!text)
		return;
	CHECK(t, strstr(text, ">stk resources: rss (bytes), block_time (microseconds)</text>") != NULL);
	CHECK(t, strstr(text, "<title>all (2 kinds, an equal width each)</title>") != NULL);
	/* each type's frame takes half of the 1180 px, its frames in its own unit */
	CHECK(t, strstr(text, "<title>rss (24576 bytes, 100.00%)</title><rect x=\"10.00\" y=\"") != NULL);
	CHECK(t, strstr(text, "<title>block_time (400 us, 100.00%)</title><rect x=\"600.00\" y=\"") != NULL);
	CHECK(t, strstr(text, "width=\"590.00\"") != NULL);
	CHECK(t, strstr(text, "<title>write_leaf (300 us, 75.00%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>touch_pages (12288 bytes, 50.00%)</title>") != NULL);
	free(text);
	/* one type: its unit, as any flame graph */
	r.n_types = 1;
	r.n_stacks = 3;
	text = render(t, &r, STK_FORMAT_SVG);
	CHECK(t, text && strstr(text, "<title>all (24576 bytes, 100.00%)</title>") != NULL);
	free(text);
}

const struct test_case output_types_tests[] = {
	{ "output_types_text_sections", types_text_sections },
	{ "output_types_folded_and_pmp", types_folded_and_pmp },
	{ "output_types_svg_equal_shares", types_svg_equal_shares },
	{ NULL, NULL },
};
