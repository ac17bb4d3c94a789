/* The debuginfod client's configuration: elfutils' cache path rules, server lists, root's cache. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/sym/debuginfod.h"
#include "core/sym/elf_symbols.h"

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

/* A file with a build ID (a fixture: build/tests/unit -> build/tests/fixtures/sym_pie), copied to dst as uid. */
static int plant(const char *dst, uid_t uid, char *build_id, size_t len)
{
	char exe[PATH_MAX], src[PATH_MAX + 32], buf[65536];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1), got;
	char *slash;
	int in, out, ret = -1;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return -1;
	*slash = '\0';
	snprintf(src, sizeof(src), "%s/fixtures/sym_pie", exe);
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (stk_elf_build_id_fd(in, build_id, len) == 0 && (out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
		ret = 0;
		while ((got = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)got) != got)
				ret = -1;
		if (close(out) || chown(dst, uid, uid))
			ret = -1;
	}
	close(in);
	return ret;
}

static int count_entries(const char *dir)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "find '%s' | wc -l", dir);
	if ((p = popen(cmd, "r"))) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/*
 * As root, a cache under a user's HOME (su without -, sudo -E) is not used:
 * nothing is read or created through it; stk's own cache is, and only
 * root's files in it count.
 */
static void root_cache_is_roots(struct test_ctx *t)
{
	char dir[PATH_MAX], p[PATH_MAX + 96], user_cache[PATH_MAX + 64], own[PATH_MAX + 64], id[129] = "";
	struct stk_debuginfod_opts o = { .urls = "http://127.0.0.1:1", .request_timeout = 1, .total_timeout = 2 };
	struct stk_debuginfod_stats st;
	struct stk_debuginfod *d;
	int fd, before;

	if (geteuid() != 0) {
		printf("  not root: root's cache rule does not apply (test_hardening covers it)\n");
		return;
	}
	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	/* the user's home: ~/.cache a link of theirs, a debug file of theirs behind it */
	snprintf(p, sizeof(p), "%s/home", dir);
	CHECK(t, mkdir(p, 0755) == 0 && chown(p, 65534, 65534) == 0);
	snprintf(p, sizeof(p), "%s/home/elsewhere", dir);
	CHECK(t, mkdir(p, 0755) == 0 && chown(p, 65534, 65534) == 0);
	snprintf(p, sizeof(p), "%s/home/.cache", dir);
	CHECK(t, symlink("elsewhere", p) == 0 && lchown(p, 65534, 65534) == 0);
	snprintf(user_cache, sizeof(user_cache), "%s/home/.cache/debuginfod_client", dir);
	CHECK(t, mkdir(user_cache, 0755) == 0 && chown(user_cache, 65534, 65534) == 0);
	snprintf(p, sizeof(p), "%s/home/elsewhere/debuginfod_client/x", dir);
	CHECK(t, plant(p, 65534, id, sizeof(id)) == 0 && id[0]);
	snprintf(p, sizeof(p), "%s/home/elsewhere/debuginfod_client/%s", dir, id);
	CHECK(t, mkdir(p, 0755) == 0 && chown(p, 65534, 65534) == 0);
	snprintf(p, sizeof(p), "%s/home/elsewhere/debuginfod_client/x", dir);
	char planted[PATH_MAX + 256];
	snprintf(planted, sizeof(planted), "%s/home/elsewhere/debuginfod_client/%s/debuginfo", dir, id);
	CHECK(t, rename(p, planted) == 0);
	snprintf(p, sizeof(p), "%s/home", dir);
	before = count_entries(p);
	snprintf(own, sizeof(own), "%s/own/debuginfod", dir);
	o.cache_dir = user_cache;
	o.root_cache = own;
	d = stk_debuginfod_new(&o);
	CHECK(t, d && strcmp(stk_debuginfod_cache(d), own) == 0);
	CHECK(t, stk_debuginfod_debuginfo(d, id, "fixture") == -1); /* not the planted file; no server */
	stk_debuginfod_get_stats(d, &st);
	CHECK(t, st.cache_hits == 0);
	stk_debuginfod_free(d);
	CHECK(t, count_entries(p) == before);
	snprintf(p, sizeof(p), "%s/%s", own, id);
	CHECK(t, access(p, F_OK) == 0); /* its own cache was made instead */
	/* root's own cache: a file of root's is used, a user's is not */
	snprintf(p, sizeof(p), "%s/%s/debuginfo", own, id);
	CHECK(t, plant(p, 0, id, sizeof(id)) == 0);
	d = stk_debuginfod_new(&o);
	fd = d ? stk_debuginfod_debuginfo(d, id, "fixture") : -1;
	CHECK(t, fd >= 0);
	if (fd >= 0)
		close(fd);
	stk_debuginfod_free(d);
	CHECK(t, chown(p, 65534, 65534) == 0);
	d = stk_debuginfod_new(&o);
	CHECK(t, d && stk_debuginfod_debuginfo(d, id, "fixture") == -1);
	stk_debuginfod_free(d);
	/* the usual cache, when it is root's, stays the one used */
	snprintf(p, sizeof(p), "%s/roots/debuginfod_client", dir);
	o.cache_dir = p;
	d = stk_debuginfod_new(&o);
	CHECK(t, d && strcmp(stk_debuginfod_cache(d), p) == 0);
	stk_debuginfod_free(d);
	remove_tree(dir);
}

const struct test_case debuginfod_tests[] = {
	{ "debuginfod_root_cache_is_roots", root_cache_is_roots },
	{ "debuginfod_default_cache", default_cache },
	{ "debuginfod_server_lists", server_lists },
	{ NULL, NULL },
};
