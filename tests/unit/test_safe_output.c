/*
 * Output files: a planted symlink is replaced, never followed; no directory
 * on the way is reached through another user's link; modes never widen;
 * foreign files are not appended to.
 */
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
	struct stk_output_file *o;
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
	o = stk_safe_output_open(out, err, sizeof(err));
	CHECK(t, o != NULL);
	if (!o)
		return;
	fputs("report", stk_safe_output_stream(o));
	/* Nothing in place before the commit. */
	CHECK(t, lstat(out, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(t, stk_safe_output_commit(o, err, sizeof(err)) == 0);
	fputs(" more", stk_safe_output_stream(o)); /* interval output: later reports go to the same, now named, file */
	CHECK(t, stk_safe_output_commit(o, err, sizeof(err)) == 0);
	stk_safe_output_close(o);
	CHECK(t, lstat(out, &st) == 0 && S_ISREG(st.st_mode));
	mode_t mask = umask(0);
	umask(mask);
	CHECK(t, (st.st_mode & 07777) == (0600 & ~mask));
	CHECK(t, read_small(out, buf, sizeof(buf)) == 0);
	CHECK_STR(t, buf, "report more");
	CHECK(t, read_small(target, buf, sizeof(buf)) == 0);
	CHECK_STR(t, buf, "KEEP");
	remove_tree(dir);
}

static void uncommitted_leaves_nothing(struct test_ctx *t)
{
	char dir[PATH_MAX], out[PATH_MAX + 16], err[PATH_MAX + 128];
	struct stk_output_file *o;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	o = stk_safe_output_open(out, err, sizeof(err));
	CHECK(t, o != NULL);
	stk_safe_output_close(o);
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
	struct stk_output_file *o;
	struct stat st;
	FILE *f;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(target, sizeof(target), "%s/real.txt", dir);
	snprintf(link_path, sizeof(link_path), "%s/link.txt", dir);
	f = fopen(target, "w");
	CHECK(t, f && fclose(f) == 0);
	CHECK(t, symlink("real.txt", link_path) == 0);
	o = stk_safe_output_open(link_path, err, sizeof(err));
	CHECK(t, o != NULL);
	if (o) {
		fputs("through", stk_safe_output_stream(o));
		CHECK(t, stk_safe_output_commit(o, err, sizeof(err)) == 0);
		stk_safe_output_close(o);
	}
	CHECK(t, lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(t, read_small(target, buf, sizeof(buf)) == 0);
	CHECK_STR(t, buf, "through");
	o = stk_safe_output_open("/dev/null", err, sizeof(err));
	CHECK(t, o != NULL);
	if (o) {
		fputs("nothing", stk_safe_output_stream(o));
		CHECK(t, stk_safe_output_commit(o, err, sizeof(err)) == 0);
		stk_safe_output_close(o);
	}
	CHECK(t, stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	remove_tree(dir);
}

/* Writes "x" to path through the safe output and commits it; the new file's mode, or -1. */
static int write_out(const char *path)
{
	char err[PATH_MAX + 128];
	struct stk_output_file *o = stk_safe_output_open(path, err, sizeof(err));
	struct stat st;
	int ok;

	if (!o)
		return -1;
	fputs("x", stk_safe_output_stream(o));
	ok = stk_safe_output_commit(o, err, sizeof(err)) == 0;
	stk_safe_output_close(o);
	return ok && stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* New files are 0600; a replaced file's mode is kept, never wider (no write or execute for others). */
static void modes_never_widen(struct test_ctx *t)
{
	char dir[PATH_MAX], p[PATH_MAX + 16];
	mode_t mask = umask(022);
	static const struct {
		int before, after;
	} kept[] = { { 0600, 0600 }, { 0640, 0640 }, { 0644, 0644 }, { 0666, 0644 }, { 0755, 0644 }, { 04700, 0600 },
		     { 0400, 0400 } };

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(p, sizeof(p), "%s/new.txt", dir);
	CHECK(t, write_out(p) == 0600);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		CHECK(t, chmod(p, (mode_t)kept[i].before) == 0);
		int got = write_out(p);
		if (got != kept[i].after)
			printf("  %04o became %04o, want %04o\n", (unsigned)kept[i].before, (unsigned)got,
			       (unsigned)kept[i].after);
		CHECK(t, got == kept[i].after);
	}
	/* another user's file: its mode is theirs to choose, not for root's results */
	if (geteuid() == 0) {
		CHECK(t, chmod(p, 0644) == 0 && chown(p, 65534, 65534) == 0);
		CHECK(t, write_out(p) == 0600);
	}
	umask(mask);
	remove_tree(dir);
}

/* The directory is reached one component at a time: our own links are followed, another user's are not. */
static void directory_links(struct test_ctx *t)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], err[PATH_MAX + 128];
	struct stk_output_file *o;

	CHECK(t, make_scratch_dir(dir, sizeof(dir)) == 0);
	snprintf(p, sizeof(p), "%s/real", dir);
	CHECK(t, mkdir(p, 0755) == 0);
	snprintf(p, sizeof(p), "%s/x", dir);
	CHECK(t, symlink("real", p) == 0);
	snprintf(p, sizeof(p), "%s/x/out.svg", dir);
	CHECK(t, write_out(p) == 0600);
	snprintf(p, sizeof(p), "%s/real/out.svg", dir);
	CHECK(t, access(p, F_OK) == 0);
	snprintf(p, sizeof(p), "%s/x", dir);
	if (geteuid() != 0 || lchown(p, 65534, 65534)) {
		printf("  not root: no link of another user can be made here (test_hardening covers it)\n");
		remove_tree(dir);
		return;
	}
	snprintf(p, sizeof(p), "%s/x/new.svg", dir);
	o = stk_safe_output_open(p, err, sizeof(err));
	CHECK(t, o == NULL);
	stk_safe_output_close(o);
	CHECK(t, strstr(err, "/x: a symbolic link of uid 65534: refusing to follow it") != NULL);
	snprintf(p, sizeof(p), "%s/real/new.svg", dir);
	CHECK(t, access(p, F_OK) != 0);
	remove_tree(dir);
}

const struct test_case safe_output_tests[] = {
	{ "safe_output_own_links_and_devices", own_links_and_devices },
	{ "safe_output_replaces_symlink", replaces_a_symlink_and_leaves_its_target },
	{ "safe_output_uncommitted_leaves_nothing", uncommitted_leaves_nothing },
	{ "safe_output_append_own", append_only_to_our_own_single_link_file },
	{ "safe_output_modes_never_widen", modes_never_widen },
	{ "safe_output_directory_links", directory_links },
	{ NULL, NULL },
};
