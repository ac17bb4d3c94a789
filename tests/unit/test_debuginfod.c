/* The debuginfod client's configuration: elfutils' cache path rules, server lists. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/sym/debuginfod.h"

static void default_cache(struct test_ctx *t)
{
	char out[512], dir[256], legacy[300];

	CHECK(t, stk_debuginfod_default_cache("/var/cache/dbg", "/x", "/home/u", out, sizeof(out)) == 0);
	CHECK_STR(t, out, "/var/cache/dbg");
	CHECK(t, stk_debuginfod_default_cache("", "/x/cache", "/home/u", out, sizeof(out)) == 0);
	CHECK_STR(t, out, "/x/cache/debuginfod_client");
	CHECK(t, stk_debuginfod_default_cache(NULL, NULL, "/home/nobody-stk", out, sizeof(out)) == 0);
	CHECK_STR(t, out, "/home/nobody-stk/.cache/debuginfod_client");
	/* an existing legacy ~/.debuginfod_client_cache is used, as elfutils does */
	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(legacy, sizeof(legacy), "%s/.debuginfod_client_cache", dir);
	CHECK(t, mkdir(legacy, 0700) == 0);
	CHECK(t, stk_debuginfod_default_cache(NULL, "/x/cache", dir, out, sizeof(out)) == 0);
	CHECK_STR(t, out, legacy);
	rmdir(legacy);
	CHECK(t, stk_debuginfod_default_cache("/a/very/long/path", NULL, NULL, out, 8) == -1);
}

static void server_lists(struct test_ctx *t)
{
	struct stk_debuginfod_opts o = { .cache_dir = "/nonexistent" };
	struct stk_debuginfod *d;

	o.urls = "";
	CHECK(t, stk_debuginfod_new(&o) == NULL);
	o.urls = "   ";
	CHECK(t, stk_debuginfod_new(&o) == NULL);
	/* only http and https are fetched */
	o.urls = "file:///srv/debug ftp://x";
	CHECK(t, stk_debuginfod_new(&o) == NULL);
	o.urls = " https://debuginfod.example/  http://127.0.0.1:8002 ";
	d = stk_debuginfod_new(&o);
	CHECK(t, d != NULL);
	/* bad build IDs are never asked for (and never become cache paths) */
	CHECK(t, stk_debuginfod_debuginfo(d, "../../etc/passwd", "x") == -1);
	CHECK(t, stk_debuginfod_debuginfo(d, "ABCDEF", "x") == -1);
	CHECK(t, stk_debuginfod_debuginfo(d, "abc", "x") == -1);
	stk_debuginfod_free(d);
}

const struct test_case debuginfod_tests[] = {
	{ "debuginfod_default_cache", default_cache },
	{ "debuginfod_server_lists", server_lists },
	{ NULL, NULL },
};
