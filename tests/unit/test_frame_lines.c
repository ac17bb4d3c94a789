/* core/eventlog/frame_lines.c: frame lines stored once per row group, expanded back exactly. */
#include "harness.h"
#include "core/eventlog/frame_lines.h"

#define HEAD "stk-frames 1\t0\t0\t\\N"
#define K1 "k\tK\tffffffff81000100\t10\t0\t0\t0\t__schedule\t\\N\t\\N\t\\N\t\\N\t0"
#define K2 "k\tK\tffffffff81000200\t20\t0\t0\t0\tschedule\t\\N\t\\N\t\\N\t\\N\t0"
#define U1 "u\t-\t7f0000001000\t4f\t7f0000000000\t7f0000100000\t0\t__poll\t/lib/libc.so.6\tab\tregs\t\\N\t0"
#define U2 "u\tm\t5600000010\t3a\t5600000000\t5600100000\t0\tmain\t/bin/app\tcd\tcfi\tapp.c\t12"
#define U3 "u\t-\t7f1000000010\t0\t7f1000000000\t7f1000010000\t0\t\\N\t[anon]\t\\N\tcfi\t\\N\t0"
#define I1 "i\tinlined_helper\tapp.c\t7"

static const char *compact(struct test_ctx *t, struct stk_frame_lines *w, const char *full, struct stk_buf *b)
{
	b->len = 0;
	CHECK(t, stk_frame_lines_compact(w, full, strlen(full), b) == 0);
	stk_buf_byte(b, '\0');
	return (const char *)b->data;
}

/* Takes value into the reader's table and checks it expands to want. */
static void expands(struct test_ctx *t, struct stk_frame_lines_table *r, const char *value, const char *want)
{
	struct stk_buf out = { 0 };
	char err[256] = "";

	CHECK(t, stk_frame_lines_take(r, value, strlen(value), &out, err, sizeof(err)) == 0);
	stk_buf_byte(&out, '\0');
	CHECK_STR(t, (const char *)out.data, want);
	stk_buf_free(&out);
}

static void shared_lines_referenced_and_expanded(struct test_ctx *t)
{
	const char *a = HEAD "\n" K1 "\n" K2 "\n" U1 "\n" U2 "\n" I1;
	const char *b = HEAD "\n" K1 "\n" K2 "\n" U1 "\n" U2 "\n" I1 "\n" U3;
	const char *c = "stk-frames 1\t1\t0\tno CFI\n" K2 "\n" U3 "\n" K2; /* a line twice in one stack */
	struct stk_frame_lines w;
	struct stk_frame_lines_table r;
	struct stk_buf buf = { 0 };

	stk_frame_lines_init(&w);
	stk_frame_lines_table_init(&r, 1 << 20);
	CHECK_STR(t, compact(t, &w, a, &buf), "stk-frames 2\t0\t0\t\\N\n" K1 "\n" K2 "\n" U1 "\n" U2 "\n" I1);
	expands(t, &r, (const char *)buf.data, a);
	CHECK_STR(t, compact(t, &w, b, &buf), "stk-frames 2\t0\t0\t\\N\n=0+5\n" U3);
	expands(t, &r, (const char *)buf.data, b);
	CHECK_STR(t, compact(t, &w, c, &buf), "stk-frames 2\t1\t0\tno CFI\n=1\n=5\n=1");
	expands(t, &r, (const char *)buf.data, c);
	/* a new group: the lines are stored again, and the reader forgets its own */
	stk_frame_lines_reset(&w);
	stk_frame_lines_table_reset(&r);
	CHECK_STR(t, compact(t, &w, c, &buf), "stk-frames 2\t1\t0\tno CFI\n" K2 "\n" U3 "\n=0");
	expands(t, &r, (const char *)buf.data, c);
	stk_frame_lines_free(&w);
	stk_frame_lines_table_free(&r);
	stk_buf_free(&buf);
}

static void known_stack_still_feeds_the_table(struct test_ctx *t)
{
	struct stk_frame_lines_table r;
	char err[256] = "";
	const char *first = "stk-frames 2\t0\t0\t\\N\n" K1;

	stk_frame_lines_table_init(&r, 1 << 20);
	/* a stack the reader decoded in an earlier group: its lines are taken, not expanded */
	CHECK(t, stk_frame_lines_take(&r, first, strlen(first), NULL, err, sizeof(err)) == 0);
	CHECK(t, r.n == 1);
	expands(t, &r, "stk-frames 2\t0\t0\t\\N\n=0\n" K2, HEAD "\n" K1 "\n" K2);
	CHECK(t, r.n == 2);
	stk_frame_lines_table_free(&r);
}

static void whole_text_passes_through(struct test_ctx *t)
{
	struct stk_frame_lines_table r;

	stk_frame_lines_table_init(&r, 1 << 20);
	expands(t, &r, HEAD "\n" K1, HEAD "\n" K1);
	CHECK(t, r.n == 0);
	stk_frame_lines_table_free(&r);
}

static void bad_references_refused(struct test_ctx *t)
{
	static const char *const bad[] = {
		"stk-frames 2\t0\t0\t\\N\n=2",          "stk-frames 2\t0\t0\t\\N\n=0+3",
		"stk-frames 2\t0\t0\t\\N\n=0+0",        "stk-frames 2\t0\t0\t\\N\n=",
		"stk-frames 2\t0\t0\t\\N\n=1+",         "stk-frames 2\t0\t0\t\\N\n=x",
		"stk-frames 2\t0\t0\t\\N\n=0 ",         "stk-frames 2\t0\t0\t\\N\n=99999999999",
		"stk-frames 2\t0\t0\t\\N\n=4294967295", "stk-frames 3\t0\t0\t\\N",
		"",
	};
	const char *two = "stk-frames 2\t0\t0\t\\N\n" K1 "\n" K2;
	struct stk_frame_lines_table r;
	char err[256];

	stk_frame_lines_table_init(&r, 1 << 20);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct stk_buf out = { 0 };

		stk_frame_lines_table_reset(&r);
		CHECK(t, stk_frame_lines_take(&r, two, strlen(two), NULL, err, sizeof(err)) == 0);
		err[0] = '\0';
		CHECK(t, stk_frame_lines_take(&r, bad[i], strlen(bad[i]), &out, err, sizeof(err)) == -1);
		CHECK(t, err[0] != '\0');
		stk_buf_free(&out);
	}
	stk_frame_lines_table_free(&r);
}

static void expansion_budget_bounds_a_hostile_file(struct test_ctx *t)
{
	const char *lines = "stk-frames 2\t0\t0\t\\N\n" K1 "\n" K2;
	const char *refs = "stk-frames 2\t0\t0\t\\N\n=0+2";
	struct stk_frame_lines_table r;
	struct stk_buf out = { 0 };
	char err[256] = "";
	int rc = 0, taken = 0;

	stk_frame_lines_table_init(&r, 1000);
	CHECK(t, stk_frame_lines_take(&r, lines, strlen(lines), NULL, err, sizeof(err)) == 0);
	while (taken < 100 && (rc = stk_frame_lines_take(&r, refs, strlen(refs), &out, err, sizeof(err))) == 0)
		taken++, out.len = 0;
	CHECK(t, rc == -1 && taken > 0 && taken < 10);
	CHECK(t, strstr(err, "more text") != NULL);
	stk_buf_free(&out);
	stk_frame_lines_table_free(&r);
}

static void compact_refuses_what_is_not_frames(struct test_ctx *t)
{
	struct stk_frame_lines w;
	struct stk_buf b = { 0 };
	const char *eq = HEAD "\n=0";

	stk_frame_lines_init(&w);
	CHECK(t, stk_frame_lines_compact(&w, "stk-frames 2\t0\t0\t\\N", 20, &b) == -1);
	CHECK(t, stk_frame_lines_compact(&w, eq, strlen(eq), &b) == -1);
	stk_frame_lines_free(&w);
	stk_buf_free(&b);
}

const struct test_case frame_lines_tests[] = {
	{ "shared_lines_referenced_and_expanded", shared_lines_referenced_and_expanded },
	{ "known_stack_still_feeds_the_table", known_stack_still_feeds_the_table },
	{ "whole_text_passes_through", whole_text_passes_through },
	{ "bad_references_refused", bad_references_refused },
	{ "expansion_budget_bounds_a_hostile_file", expansion_budget_bounds_a_hostile_file },
	{ "compact_refuses_what_is_not_frames", compact_refuses_what_is_not_frames },
	{ NULL, NULL },
};
