/* The flame graph: well-formed XML (xmllint from libxml2-utils), escaped
 * names, titles with counts and percentages, deterministic output. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_output_fixture.h"

/* Renders r to a scratch file, checks it with xmllint, returns its text. */
static char *render_checked(struct test_ctx *t, const struct stk_report *r, const struct stk_output_opts *o)
{
	char dir[256], path[300], cmd[700];
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (output_have_tool("xmllint")) {
		printf("  xmllint not found: install libxml2-utils\n");
		t->failures++;
		return NULL;
	}
	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/flame.svg", dir);
	CHECK(t, output_render_file(r, o, path) == 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	ret = system(cmd);
	if (ret != 0)
		printf("  xmllint rejected %s\n", path);
	CHECK(t, ret == 0);
	text = output_slurp(path, &len);
	CHECK(t, text != NULL && len > 0);
	if (ret == 0)
		remove_tree(dir);
	return text;
}

static void svg_fixture(struct test_ctx *t)
{
	struct stk_report r;
	struct stk_output_opts o = { .format = STK_FORMAT_SVG };
	char *text;

	output_fixture(&r);
	text = render_checked(t, &r, &o);
	if (!text)
		return;
	CHECK(t, strncmp(text, "<?xml", 5) == 0);
	CHECK(t, strstr(text, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
	CHECK(t, strstr(text, ">stk profile &lt;test&gt; &amp; &apos;q&apos;</text>") != NULL);
	CHECK(t, strstr(text, "<title>all (13 samples, 100.00%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>worker (11 samples, 84.62%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>ns::Widget&lt;int&gt;::run(int, char const*) const "
			      "(5 samples, 38.46%)</title>") != NULL);
	/* the two compute stacks merged */
	CHECK(t, strstr(text, "<title>compute(double) (6 samples, 46.15%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>[unknown] (5 samples, 38.46%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>[Missed Kernel Stack] (1 samples, 7.69%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>odd;name (1 samples, 7.69%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>native_write_msr (5 samples, 38.46%)</title>") != NULL);
	CHECK(t, strstr(text, ">Reset Zoom</text>") != NULL);
	CHECK(t, strstr(text, ">Search</text>") != NULL);
	CHECK(t, strstr(text, "id=\"details\"") != NULL);
	CHECK(t, strstr(text, "<script type=\"text/ecmascript\"><![CDATA[") != NULL);
	CHECK(t, strstr(text, "function stkZoom(") != NULL && strstr(text, "new RegExp(") != NULL);
	/* self-contained: the namespace is the only URL */
	CHECK(t, strstr(text, "href") == NULL);
	const char *url = strstr(text, "http://");
	CHECK(t, url != NULL && strstr(url + 1, "http") == NULL);
	/* root spans the width; frames are in the same group as their title */
	CHECK(t, strstr(text, "<title>all (13 samples, 100.00%)</title><rect x=\"10.00\"") != NULL);
	CHECK(t, strstr(text, "width=\"1180.00\"") != NULL);
	free(text);
}

static void svg_is_deterministic_and_colors_by_kind(struct test_ctx *t)
{
	struct stk_report r;
	struct stk_output_opts o = { .format = STK_FORMAT_SVG, .annotate = true };
	int ret1, ret2;
	size_t n1, n2;
	char *a, *b;

	output_fixture(&r);
	a = output_render(&r, &o, &n1, &ret1);
	b = output_render(&r, &o, &n2, &ret2);
	CHECK(t, ret1 == 0 && ret2 == 0 && a && b);
	CHECK(t, n1 == n2 && a && b && memcmp(a, b, n1) == 0);
	CHECK(t, a && strstr(a, "<title>vfs_write_[k] (5 samples, 38.46%)</title>") != NULL);
	/* kernel frames are cool (blue > red), user frames warm (red > blue) */
	const char *k = a ? strstr(a, "<title>vfs_write_[k]") : NULL;
	const char *u = a ? strstr(a, "<title>main (11 samples") : NULL;
	unsigned r1, g1, b1, r2, g2, b2;
	CHECK(t, k && sscanf(strstr(k, "fill=\"rgb("), "fill=\"rgb(%u,%u,%u)", &r1, &g1, &b1) == 3 && b1 > r1);
	CHECK(t, u && sscanf(strstr(u, "fill=\"rgb("), "fill=\"rgb(%u,%u,%u)", &r2, &g2, &b2) == 3 && r2 > b2);
	free(a);
	free(b);
}

static void svg_escapes_hostile_names(struct test_ctx *t)
{
	static const struct stk_frame f[] = {
		{ .symbol = "bad\x01\xff<&>\"'name", .module = "/x" },
		{ .symbol = "caf\xc3\xa9", .module = "/x" },
	};
	struct stk_stack s = { .comm = "a<b", .value = 1000, .user = f, .n_user = 2 };
	struct stk_report r = { .stacks = &s, .n_stacks = 1, .value_unit = "microseconds", .title = NULL };
	struct stk_output_opts o = { .format = STK_FORMAT_SVG };
	char *text = render_checked(t, &r, &o);

	if (!text)
		return;
	CHECK(t, strstr(text, "<title>bad??&lt;&amp;&gt;&quot;&apos;name (1000 us, 100.00%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>caf\xc3\xa9 (1000 us, 100.00%)</title>") != NULL);
	CHECK(t, strstr(text, "<title>a&lt;b (1000 us, 100.00%)</title>") != NULL);
	CHECK(t, strstr(text, ">Flame Graph</text>") != NULL);
	free(text);
}

static void svg_omits_tiny_frames(struct test_ctx *t)
{
	static const struct stk_frame big[] = { { .symbol = "big" } };
	static const struct stk_frame tiny[] = { { .symbol = "tiny" } };
	struct stk_stack s[] = {
		{ .comm = "p", .value = 1000000, .user = big, .n_user = 1 },
		{ .comm = "q", .value = 1, .user = tiny, .n_user = 1 },
	};
	struct stk_report r = { .stacks = s, .n_stacks = 2 };
	struct stk_output_opts o = { .format = STK_FORMAT_SVG };
	char *text = render_checked(t, &r, &o);

	if (!text)
		return;
	CHECK(t, strstr(text, "<title>big ") != NULL);
	CHECK(t, strstr(text, "<title>tiny ") == NULL);
	CHECK(t, strstr(text, "<title>q ") == NULL);
	free(text);
}

static void svg_many_stacks(struct test_ctx *t)
{
	struct big_report b;
	struct stk_output_opts o = { .format = STK_FORMAT_SVG };
	char *text;

	CHECK(t, big_report_init(&b, 3000) == 0);
	text = render_checked(t, &b.report, &o);
	if (text) {
		CHECK(t, strstr(text, "<title>all (3000 samples, 100.00%)</title>") != NULL);
		CHECK(t, strstr(text, "<title>big (3000 samples, 100.00%)</title>") != NULL);
		CHECK(t, strstr(text, "<title>fn_3_3 (3000 samples, 100.00%)</title>") != NULL);
		/* 1180 px / 3000 samples: every 1-sample frame is wider than 0.1 px */
		CHECK(t, strstr(text, "<title>fn_2999_0 (1 samples, 0.03%)</title>") != NULL);
		CHECK(t, strstr(text, "</svg>\n") != NULL);
	}
	free(text);
	big_report_free(&b);
}

const struct test_case output_svg_tests[] = {
	{ "output_svg_fixture", svg_fixture },
	{ "output_svg_deterministic_colors", svg_is_deterministic_and_colors_by_kind },
	{ "output_svg_escapes", svg_escapes_hostile_names },
	{ "output_svg_omits_tiny", svg_omits_tiny_frames },
	{ "output_svg_many_stacks", svg_many_stacks },
	{ NULL, NULL },
};
