#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "core/options/stack_opts.h"

/* Feeds (code, arg) pairs as getopt_long would; returns the last result. */
static int feed(struct stk_stack_opts *o, int c, const char *arg, char *msg, size_t len)
{
	return stk_stack_opt(o, c, arg, msg, len);
}

static void takes_shared_options_and_leaves_the_rest(struct test_ctx *t)
{
	struct stk_stack_opts o;
	char msg[256] = "";

	stk_stack_opts_init(&o, 't', 127);
	CHECK(t, o.format == STK_FORMAT_TEXT && o.max_depth == 127 && o.stack_storage_size == 16384);
	CHECK(t, feed(&o, 'p', "12,34", msg, sizeof(msg)) == 1 && o.n_pids == 2 && o.pids[1] == 34);
	CHECK(t, feed(&o, 'p', "7", msg, sizeof(msg)) == 1 && o.n_pids == 1 && o.pids[0] == 7);
	CHECK(t, feed(&o, 't', "9", msg, sizeof(msg)) == 1 && o.n_tids == 1);
	CHECK(t, feed(&o, 'L', "9", msg, sizeof(msg)) == 0); /* not this applet's thread option */
	CHECK(t, feed(&o, 'F', "99", msg, sizeof(msg)) == 0);
	CHECK(t, feed(&o, 'h', NULL, msg, sizeof(msg)) == 0);
	CHECK(t, feed(&o, 'f', NULL, msg, sizeof(msg)) == 1 && o.format == STK_FORMAT_FOLDED && o.format_given);
	CHECK(t, feed(&o, STK_OPT_FORMAT, "pprof", msg, sizeof(msg)) == 1 && o.format == STK_FORMAT_PPROF);
	CHECK(t, feed(&o, STK_OPT_MAX_DEPTH, "20", msg, sizeof(msg)) == 1 && o.max_depth == 20);
	CHECK(t, feed(&o, STK_OPT_BTF, "/x.btf", msg, sizeof(msg)) == 1 && strcmp(o.btf_file, "/x.btf") == 0);
	for (int i = 0; i < STK_MAX_OUTPUTS; i++)
		CHECK(t, feed(&o, 'o', "a.svg", msg, sizeof(msg)) == 1);
	CHECK(t, feed(&o, 'o', "b.svg", msg, sizeof(msg)) == -1 && strstr(msg, "at most 8"));
	stk_stack_opts_free(&o);
	CHECK(t, o.pids == NULL && o.n_pids == 0);
}

static void names_the_bad_value(struct test_ctx *t)
{
	struct stk_stack_opts o;
	char msg[256] = "";

	stk_stack_opts_init(&o, 'L', 127);
	CHECK(t, feed(&o, 'p', "0", msg, sizeof(msg)) == -1 && strcmp(msg, "-p 0: expected PID[,PID...] of positive numbers") == 0);
	CHECK(t, feed(&o, 'L', "x", msg, sizeof(msg)) == -1 && strcmp(msg, "-L x: expected TID[,TID...] of positive numbers") == 0);
	CHECK(t, feed(&o, STK_OPT_MAX_DEPTH, "128", msg, sizeof(msg)) == -1 &&
		 strstr(msg, "expected 1 to 127 (kernel.perf_event_max_stack)"));
	CHECK(t, feed(&o, STK_OPT_STACK_STORAGE, "0", msg, sizeof(msg)) == -1 && strstr(msg, "--stack-storage-size 0"));
	CHECK(t, feed(&o, STK_OPT_FORMAT, "png", msg, sizeof(msg)) == -1 && strstr(msg, "--format png"));
	stk_stack_opts_free(&o);
}

/* stk_stack_opts_finish over argv (argc of it), the trailing operand at 1. */
static int finish(struct stk_stack_opts *o, int argc, char **argv, char *msg, size_t len)
{
	o->argc = argc;
	o->argv = argv;
	return stk_stack_opts_finish(o, 1, msg, len);
}

static void finishes_with_duration_and_exclusions(struct test_ctx *t)
{
	struct stk_stack_opts o;
	char msg[256] = "";
	char prog[] = "stk", two[] = "2", half[] = "0.5", bad[] = "x", extra[] = "3";
	char *argv1[] = { prog, two, NULL }, *argv2[] = { prog, bad, NULL }, *argv3[] = { prog, half, extra, NULL };

	stk_stack_opts_init(&o, 't', 127);
	CHECK(t, finish(&o, 2, argv1, msg, sizeof(msg)) == 0 && o.duration_ms == 2000);
	CHECK(t, finish(&o, 2, argv2, msg, sizeof(msg)) == -1 && strstr(msg, "duration x"));
	CHECK(t, finish(&o, 3, argv3, msg, sizeof(msg)) == -1 &&
		 strcmp(msg, "unexpected argument '3'") == 0);
	feed(&o, 'U', NULL, msg, sizeof(msg));
	feed(&o, 'K', NULL, msg, sizeof(msg));
	CHECK(t, finish(&o, 1, argv1, msg, sizeof(msg)) == -1 &&
		 strcmp(msg, "-U and -K are mutually exclusive") == 0);
	o.kernel_only = false;
	feed(&o, 'o', "out.unknown", msg, sizeof(msg));
	CHECK(t, finish(&o, 1, argv1, msg, sizeof(msg)) == -1 && strstr(msg, "out.unknown"));
	stk_stack_opts_free(&o);
}

const struct test_case stack_opts_tests[] = {
	{ "stack_opts_shared_taken_rest_left", takes_shared_options_and_leaves_the_rest },
	{ "stack_opts_bad_values_named", names_the_bad_value },
	{ "stack_opts_finish_duration_exclusions", finishes_with_duration_and_exclusions },
	{ 0 },
};
