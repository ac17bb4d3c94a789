/* Inlined frames and source lines in every text-like format. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_output_fixture.h"

static const struct stk_inline_frame chain[] = {
	{ .symbol = "inlined_hot", .file = "chain.c", .line = 14 },
	{ .symbol = "inlined_middle", .file = "chain.c", .line = 23 },
};

static const struct stk_frame user[] = {
	{ .symbol = "outer", .module = "/w", .address = 0x1270, .map_start = 0x1000, .map_end = 0x2000,
	  .inlined = chain, .n_inlined = 2, .file = "chain.c", .line = 31 },
	{ .symbol = "main", .module = "/w", .address = 0x1300, .map_start = 0x1000, .map_end = 0x2000,
	  .file = "chain.c", .line = 40 },
};

static const struct stk_stack stacks[] = {
	{ .pid = 5, .tid = 5, .comm = "w", .value = 7, .user = user, .n_user = 2 },
};

static char *render(struct test_ctx *t, enum stk_format format, bool lines)
{
	struct stk_report r = { .stacks = stacks, .n_stacks = 1 };
	struct stk_output_opts o = { .format = format, .lines = lines };
	int ret = -1;
	char *got = output_render(&r, &o, NULL, &ret);

	CHECK(t, ret == 0 && got);
	return got;
}

static void inline_frames(struct test_ctx *t)
{
	char *s;

	s = render(t, STK_FORMAT_TEXT, false);
	CHECK_STR(t, s ? s : "", "    inlined_hot (inlined)\n    inlined_middle (inlined)\n    outer\n    main\n"
				 "    -                w (5)\n        7\n\n");
	free(s);
	s = render(t, STK_FORMAT_TEXT, true);
	CHECK(t, s && strstr(s, "    inlined_hot (inlined) at chain.c:14\n    inlined_middle (inlined) at chain.c:23\n"
				"    outer at chain.c:31\n    main at chain.c:40\n"));
	free(s);
	s = render(t, STK_FORMAT_FOLDED, false);
	CHECK_STR(t, s ? s : "", "w;main;outer;inlined_middle;inlined_hot 7\n");
	free(s);
	s = render(t, STK_FORMAT_PMP, false);
	CHECK_STR(t, s ? s : "", "7 inlined_hot,inlined_middle,outer,main\n");
	free(s);
	s = render(t, STK_FORMAT_SVG, false);
	CHECK(t, s && strstr(s, "inlined_middle") && strstr(s, "inlined_hot"));
	free(s);
}

const struct test_case output_inline_tests[] = {
	{ "output_inline_frames", inline_frames },
	{ NULL, NULL },
};
