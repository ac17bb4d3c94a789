/* Output files: a planted symlink is replaced, never followed; foreign files are not appended to. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "core/base/safe_output.h"

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

static void replaces_a_symlink_and_leaves_its_target(struct test_ctx *t)
{
	char dir[PATH_MAX], target[PATH_MAX + 16], out[PATH_MAX + 16], buf[64], err[PATH_MAX + 128];
	struct stat st;
	FILE *f;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	f = fopen(target, "w");
	CHECK(t, f && fputs("KEEP", f) >= 0 && fclose(f) == 0);
	CHECK(t, symlink(target, out) == 0);
	/* Planted by another user (root's and our own links are followed, see below). */
	if (geteuid() != 0) {
		printf("  not root: no link of another user can be made here (test_hardening covers it)\n");
		remove_tree(dir);
		return;
	}
	CHECK(t, lchown(out, 65534, 65534) == 0);
	f = stk_safe_output_open(out, err, sizeof(err));
	CHECK(t, f != NULL);
	if (!f)
		return;
	fputs("report", f);
	/* Nothing in place before the commit. */
	CHECK(t, lstat(out, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(t, stk_safe_output_commit(f, out, err, sizeof(err)) == 0);
	fputs(" more", f); /* interval output: later reports go to the same, now named, file */
	CHECK(t, stk_safe_output_commit(f, out, err, sizeof(err)) == 0);
	fclose(f);
	CHECK(t, lstat(out, &st) == 0 && S_ISREG(st.st_mode));
	mode_t mask = umask(0);
	umask(mask);
	CHECK(t, (st.st_mode & 07777) == (0644 & ~mask));
	CHECK(t, read_small(out, buf, sizeof(buf)) == 0);
	CHECK_STR(t, buf, "report more");
	CHECK(t, read_small(target, buf, sizeof(buf)) == 0);
	CHECK_STR(t, buf, "KEEP");
	remove_tree(dir);
}

static void uncommitted_leaves_nothing(struct test_ctx *t)
{
	char dir[PATH_MAX], out[PATH_MAX + 16], err[PATH_MAX + 128];
	FILE *f;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	f = stk_safe_output_open(out, err, sizeof(err));
	CHECK(t, f != NULL);
	if (f)
		fclose(f);
	CHECK(t, access(out, F_OK) != 0);
	CHECK(t, stk_safe_output_open(dir, err, sizeof(err)) == NULL && strstr(err, "directory"));
	snprintf(out, sizeof(out), "%s/no/such/dir/x", dir);
	CHECK(t, stk_safe_output_open(out, err, sizeof(err)) == NULL);
	remove_tree(dir);
}

static void append_only_to_our_own_single_link_file(struct test_ctx *t)
{
	char dir[PATH_MAX], a[PATH_MAX + 16], b[PATH_MAX + 16], err[PATH_MAX + 256];
	int fd;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(a, sizeof(a), "%s/a.csv", dir);
	snprintf(b, sizeof(b), "%s/b.csv", dir);
	fd = stk_open_append_own(a, 0640, err, sizeof(err));
	CHECK(t, fd >= 0 && write(fd, "x\n", 2) == 2);
	if (fd >= 0)
		close(fd);
	fd = stk_open_append_own(a, 0640, err, sizeof(err));
	CHECK(t, fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(t, symlink(a, b) == 0);
	CHECK(t, stk_open_append_own(b, 0640, err, sizeof(err)) == -1 && strstr(err, "symbolic link"));
	CHECK(t, unlink(b) == 0 && link(a, b) == 0);
	CHECK(t, stk_open_append_own(b, 0640, err, sizeof(err)) == -1 && strstr(err, "refusing"));
	snprintf(b, sizeof(b), "%s/fifo.csv", dir);
	CHECK(t, mkfifo(b, 0600) == 0);
	CHECK(t, stk_open_append_own(b, 0640, err, sizeof(err)) == -1); /* ENXIO: no reader; never blocks */
	remove_tree(dir);
}

/* Our own link (as /dev/stdout is root's) is followed; devices are written directly. */
static void own_links_and_devices(struct test_ctx *t)
{
	char dir[PATH_MAX], target[PATH_MAX + 16], link_path[PATH_MAX + 16], buf[64], err[PATH_MAX + 128];
	struct stat st;
	FILE *f;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(target, sizeof(target), "%s/real.txt", dir);
	snprintf(link_path, sizeof(link_path), "%s/link.txt", dir);
	f = fopen(target, "w");
	CHECK(t, f && fclose(f) == 0);
	CHECK(t, symlink("real.txt", link_path) == 0);
	f = stk_safe_output_open(link_path, err, sizeof(err));
	CHECK(t, f != NULL);
	if (f) {
		fputs("through", f);
		CHECK(t, stk_safe_output_commit(f, link_path, err, sizeof(err)) == 0);
		fclose(f);
	}
	CHECK(t, lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(t, read_small(target, buf, sizeof(buf)) == 0);
	CHECK_STR(t, buf, "through");
	f = stk_safe_output_open("/dev/null", err, sizeof(err));
	CHECK(t, f != NULL);
	if (f) {
		fputs("nothing", f);
		CHECK(t, stk_safe_output_commit(f, "/dev/null", err, sizeof(err)) == 0);
		fclose(f);
	}
	CHECK(t, stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	remove_tree(dir);
}

const struct test_case safe_output_tests[] = {
	{ "safe_output_own_links_and_devices", own_links_and_devices },
	{ "safe_output_replaces_symlink", replaces_a_symlink_and_leaves_its_target },
	{ "safe_output_uncommitted_leaves_nothing", uncommitted_leaves_nothing },
	{ "safe_output_append_own", append_only_to_our_own_single_link_file },
	{ NULL, NULL },
};
