#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/install.h"

static const struct stk_applet table[] = {
	{ .name = "profile", .summary = "p", .bare_link = true, .rank = 10 },
	{ .name = "info", .summary = "i", .bare_link = false, .rank = 90 },
};
#define N (sizeof(table) / sizeof(table[0]))

static void make_file(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs("x", f);
		fclose(f);
	}
}

static void creates_links_and_refuses_foreign_files(struct test_ctx *t)
{
	char root[256], self[512], bin[512], path[PATH_MAX], target[PATH_MAX], err[PATH_MAX + 128];
	FILE *devnull = fopen("/dev/null", "w");

	CHECK(t, make_scratch_dir(root, sizeof(root)) == 0);
	snprintf(self, sizeof(self), "%s/stk", root);
	snprintf(bin, sizeof(bin), "%s/bin", root);
	make_file(self);
	mkdir(bin, 0755);

	CHECK(t, stk_install_links(self, bin, true, table, N, devnull, err, sizeof(err)) == 0);
	snprintf(path, sizeof(path), "%s/profile", bin);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	CHECK(t, n > 0);
	target[n > 0 ? n : 0] = '\0';
	CHECK_STR(t, target, self);
	snprintf(path, sizeof(path), "%s/stk-info", bin);
	CHECK(t, access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/info", bin);
	CHECK(t, access(path, F_OK) != 0);

	/* Again: our own links are replaced without complaint (idempotent). */
	CHECK(t, stk_install_links(self, bin, true, table, N, devnull, err, sizeof(err)) == 0);
	/* Hard links over existing symlinks to stk work too. */
	CHECK(t, stk_install_links(self, bin, false, table, N, devnull, err, sizeof(err)) == 0);
	struct stat a, b;
	snprintf(path, sizeof(path), "%s/stk-profile", bin);
	CHECK(t, lstat(path, &a) == 0 && stat(self, &b) == 0 && a.st_ino == b.st_ino);

	/* A foreign file blocks the whole install, and nothing is changed. */
	snprintf(path, sizeof(path), "%s/profile", bin);
	unlink(path);
	make_file(path);
	snprintf(target, sizeof(target), "%s/stk-profile", bin);
	unlink(target);
	CHECK(t, stk_install_links(self, bin, true, table, N, devnull, err, sizeof(err)) == -1);
	CHECK(t, strstr(err, "not a link to stk") != NULL);
	CHECK(t, access(target, F_OK) != 0);

	CHECK(t, stk_install_links(self, "/nonexistent-dir", true, table, N, devnull, err,
				   sizeof(err)) == -1);
	CHECK(t, strstr(err, "not a directory") != NULL);
	fclose(devnull);
	remove_tree(root);
}

const struct test_case install_tests[] = {
	{ "install_links", creates_links_and_refuses_foreign_files },
	{ NULL, NULL },
};
