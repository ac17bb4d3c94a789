/* Opening files other users control: FIFOs, devices, links out of a root, owners, sizes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/untrusted_file.h"

static int put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* The content of fd (a short file), "" when fd < 0. */
static const char *content(int fd, char *buf, size_t len)
{
	ssize_t n = fd >= 0 ? stk_read_bounded(fd, buf, len - 1, 0) : 0;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static void fifo_and_device_refused_without_blocking(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(t, mkfifo(path, 0600) == 0);
	/* A blocking open of a FIFO without a writer would never return. */
	CHECK(t, stk_untrusted_open(path, NULL) == -EINVAL);
	snprintf(path, sizeof(path), "%s/zero", dir);
	CHECK(t, symlink("/dev/zero", path) == 0);
	CHECK(t, stk_untrusted_open(path, NULL) == -EINVAL);
	const struct stk_untrusted_rules no_links = { .no_follow = true };
	CHECK(t, stk_untrusted_open(path, &no_links) == -ELOOP);
	CHECK(t, stk_untrusted_open(dir, NULL) == -EINVAL);
	remove_tree(dir);
}

static void owner_and_size_rules(struct test_ctx *t)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], second[PATH_MAX + 16], buf[64];
	int fd;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	CHECK(t, put(dir, "f", "0123456789") == 0);
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = stk_untrusted_open(path, &(struct stk_untrusted_rules){ .check_owner = true, .owner = getuid() });
	CHECK_STR(t, content(fd, buf, sizeof(buf)), "0123456789");
	/* A second link: even a root-owned file no longer passes for the owner's own. */
	snprintf(second, sizeof(second), "%s/hardlink", dir);
	CHECK(t, link(path, second) == 0);
	CHECK(t, stk_untrusted_open(path, &(struct stk_untrusted_rules){ .check_owner = true, .owner = getuid() + 1 }) ==
		 -EPERM);
	CHECK(t, stk_untrusted_open(path, &(struct stk_untrusted_rules){ .max_size = 9 }) == -EFBIG);
	/* With the owner's credentials: a file only root may read stays closed to nobody. */
	if (geteuid() == 0) {
		const struct stk_untrusted_rules as_nobody = { .as_owner = true, .owner = 65534, .group = 65534 };
		CHECK(t, chmod(path, 0600) == 0);
		CHECK(t, stk_untrusted_open(path, &as_nobody) == -EACCES);
		CHECK(t, chmod(path, 0644) == 0 && chmod(dir, 0755) == 0);
		fd = stk_untrusted_open(path, &as_nobody);
		CHECK(t, fd >= 0);
		if (fd >= 0)
			close(fd);
		/* Our own credentials are back afterwards. */
		CHECK(t, chmod(path, 0600) == 0);
		fd = stk_untrusted_open(path, NULL);
		CHECK(t, fd >= 0);
		if (fd >= 0)
			close(fd);
	}
	fd = stk_untrusted_open(path, &(struct stk_untrusted_rules){ .max_size = 10 });
	CHECK(t, fd >= 0);
	CHECK(t, fd >= 0 && stk_read_bounded(fd, buf, 4, 3) == 4 && memcmp(buf, "3456", 4) == 0);
	if (fd >= 0)
		close(fd);
	remove_tree(dir);
}

/*
 * A process root R with R/tmp/abs -> DIR/outside (absolute: the host's file
 * of that name, but R has none) and R/tmp/rel -> ../../../../../inside.
 */
static int make_root(const char *dir, char *root, size_t len)
{
	char p[PATH_MAX + 64], target[PATH_MAX + 64];

	snprintf(root, len, "%s/root", dir);
	snprintf(p, sizeof(p), "%s/tmp", root);
	if (mkdir(root, 0755) || mkdir(p, 01777) || put(dir, "outside", "HOST") || put(root, "inside", "IN"))
		return -1;
	snprintf(p, sizeof(p), "%s/tmp/abs", root);
	snprintf(target, sizeof(target), "%s/outside", dir);
	if (symlink(target, p))
		return -1;
	snprintf(p, sizeof(p), "%s/tmp/rel", root);
	if (symlink("../../../../../inside", p))
		return -1;
	snprintf(p, sizeof(p), "%s/tmp/loop", root);
	return symlink("/tmp/loop", p);
}

static void links_stay_inside_the_root(struct test_ctx *t)
{
	char dir[PATH_MAX], root[PATH_MAX + 16], buf[64];
	int root_fd;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	CHECK(t, make_root(dir, root, sizeof(root)) == 0);
	root_fd = open(root, O_PATH | O_DIRECTORY);
	CHECK(t, root_fd >= 0);
	/* Both ways: openat2 (this kernel) and the walk older kernels get. */
	for (int walk = 0; walk < 2 && root_fd >= 0; walk++) {
#define OPEN_IN(path, nofollow) \
	(walk ? stk_untrusted_walk_in_root(root_fd, path, nofollow) \
	      : stk_untrusted_open_at_root(root_fd, path, &(struct stk_untrusted_rules){ .no_follow = nofollow }))
		CHECK(t, OPEN_IN("/tmp/abs", false) == -ENOENT);
		CHECK_STR(t, content(OPEN_IN("/tmp/rel", false), buf, sizeof(buf)), "IN");
		CHECK_STR(t, content(OPEN_IN("/../../tmp/./rel", false), buf, sizeof(buf)), "IN");
		CHECK(t, OPEN_IN("/tmp/rel", true) == -ELOOP);
		CHECK(t, OPEN_IN("/tmp/loop", false) == -ELOOP);
		CHECK(t, OPEN_IN("/inside/x", false) == -ENOTDIR);
#undef OPEN_IN
	}
	if (root_fd >= 0)
		close(root_fd);
	remove_tree(dir);
}

static void proc_root_paths_resolve_in_that_root(struct test_ctx *t)
{
	char path[64], buf[64];
	int fd;

	/* Our own root is the host's: a plain path under it resolves as usual. */
	snprintf(path, sizeof(path), "/proc/%d/root/etc/hostname", (int)getpid());
	fd = stk_untrusted_open(path, NULL);
	CHECK(t, fd >= 0 || access("/etc/hostname", R_OK) != 0);
	content(fd, buf, sizeof(buf));
	CHECK(t, stk_untrusted_open("/proc/999999999/root/etc/hostname", NULL) == -ENOENT);
}

const struct test_case untrusted_file_tests[] = {
	{ "untrusted_fifo_device_dir", fifo_and_device_refused_without_blocking },
	{ "untrusted_owner_size", owner_and_size_rules },
	{ "untrusted_links_stay_in_root", links_stay_inside_the_root },
	{ "untrusted_proc_root", proc_root_paths_resolve_in_that_root },
	{ NULL, NULL },
};
