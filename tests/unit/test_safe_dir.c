/* Directories reached one component at a time: whose links are followed, whose directories pass. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/safe_dir.h"

/* Whether fd is the directory at path. */
static bool same_dir(int fd, const char *path)
{
	struct stat a, b;

	return fd >= 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

static void follows_only_own_links(struct test_ctx *t)
{
	static const struct stk_dir_rules follow = { .follow_own_links = true }, strict = { 0 };
	char dir[PATH_MAX], p[PATH_MAX + 64], q[PATH_MAX + 64], why[PATH_MAX + 128];
	int fd;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(q, sizeof(q), "%s/real", dir);
	snprintf(p, sizeof(p), "%s/real/sub", dir);
	CHECK(t, mkdir(q, 0700) == 0 && mkdir(p, 0700) == 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	CHECK(t, symlink("real", p) == 0);
	/* our own link: followed, also in the middle of a path, with .. and an absolute target */
	snprintf(q, sizeof(q), "%s/real/sub", dir);
	snprintf(p, sizeof(p), "%s/link/sub", dir);
	fd = stk_dir_open(p, &follow, why, sizeof(why));
	CHECK(t, same_dir(fd, q));
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/link/../link/./sub/", dir);
	fd = stk_dir_open(p, &follow, why, sizeof(why));
	CHECK(t, same_dir(fd, q));
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/abs", dir);
	CHECK(t, symlink(q, p) == 0);
	fd = stk_dir_open(p, &follow, why, sizeof(why));
	CHECK(t, same_dir(fd, q));
	if (fd >= 0)
		close(fd);
	/* no links at all */
	snprintf(p, sizeof(p), "%s/link/sub", dir);
	CHECK(t, stk_dir_open(p, &strict, why, sizeof(why)) == -ELOOP);
	CHECK(t, strstr(why, "/link: a symbolic link of uid") != NULL);
	/* a loop, a file on the way */
	snprintf(p, sizeof(p), "%s/a", dir);
	snprintf(q, sizeof(q), "%s/b", dir);
	CHECK(t, symlink("b", p) == 0 && symlink("a", q) == 0);
	CHECK(t, stk_dir_open(p, &follow, why, sizeof(why)) == -ELOOP);
	snprintf(p, sizeof(p), "%s/file", dir);
	CHECK(t, close(open(p, O_CREAT | O_WRONLY, 0600)) == 0);
	snprintf(p, sizeof(p), "%s/file/x", dir);
	CHECK(t, stk_dir_open(p, &follow, why, sizeof(why)) == -ENOTDIR);
	/* another user's link (root only can make one): refused, and named */
	snprintf(p, sizeof(p), "%s/link", dir);
	if (geteuid() == 0 && lchown(p, 65534, 65534) == 0) {
		snprintf(p, sizeof(p), "%s/link/sub", dir);
		CHECK(t, stk_dir_open(p, &follow, why, sizeof(why)) == -ELOOP);
		CHECK(t, strstr(why, "/link: a symbolic link of uid 65534: refusing to follow it") != NULL);
	} else {
		printf("  not root: no link of another user can be made here (test_hardening covers it)\n");
	}
	remove_tree(dir);
}

static void root_only_directories(struct test_ctx *t)
{
	static const struct stk_dir_rules root_only = { .root_only = true };
	static const struct stk_dir_rules create = { .root_only = true, .create = true };
	char dir[PATH_MAX], p[PATH_MAX + 64], why[PATH_MAX + 128];
	struct stat st;
	int fd;

	if (geteuid() != 0) {
		printf("  not root: the scratch directories are not root's (test_hardening covers it)\n");
		return;
	}
	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	fd = stk_dir_open(dir, &root_only, why, sizeof(why));
	CHECK(t, same_dir(fd, dir));
	if (fd >= 0)
		close(fd);
	/* writable by others: refused unless sticky (as /tmp: others cannot replace root's entries) */
	snprintf(p, sizeof(p), "%s/open", dir);
	CHECK(t, mkdir(p, 0700) == 0 && chmod(p, 0777) == 0);
	CHECK(t, stk_dir_open(p, &root_only, why, sizeof(why)) == -EPERM && strstr(why, "/open: a directory others may write to"));
	CHECK(t, chmod(p, 01777) == 0);
	fd = stk_dir_open(p, &root_only, why, sizeof(why));
	CHECK(t, fd >= 0);
	if (fd >= 0)
		close(fd);
	/* another user's: refused, and nothing created under it */
	snprintf(p, sizeof(p), "%s/users", dir);
	CHECK(t, mkdir(p, 0755) == 0 && chown(p, 65534, 65534) == 0);
	snprintf(p, sizeof(p), "%s/users/made", dir);
	CHECK(t, stk_dir_open(p, &create, why, sizeof(why)) == -EPERM && strstr(why, "/users: a directory of uid 65534"));
	CHECK(t, access(p, F_OK) != 0);
	/* missing directories are made, root's and 0700 */
	snprintf(p, sizeof(p), "%s/new/a/b", dir);
	fd = stk_dir_open(p, &create, why, sizeof(why));
	CHECK(t, same_dir(fd, p));
	if (fd >= 0)
		close(fd);
	CHECK(t, stat(p, &st) == 0 && st.st_uid == 0 && (st.st_mode & 077) == 0);
	remove_tree(dir);
}

const struct test_case safe_dir_tests[] = {
	{ "safe_dir_follows_only_own_links", follows_only_own_links },
	{ "safe_dir_root_only", root_only_directories },
	{ NULL, NULL },
};
