/* Output files that no planted symlink or foreign file can redirect (safe_output.h). */
#include "core/base/safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static mode_t output_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0644 & ~mask;
}

/* path's directory ("." when it has none) into dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* DIR/.BASE.stk-XXXXXX, created exclusively (O_EXCL never follows a symlink). */
static int named_temp(const char *path, char *tmp, size_t len)
{
	const char *base = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	dir_of(path, dir, sizeof(dir));
	base = base ? base + 1 : path;
	if ((size_t)snprintf(tmp, len, "%s/.%s.stk-XXXXXX", dir, base) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0 && fchmod(fd, output_mode())) {
		int e = errno;
		unlink(tmp);
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * A symlink at path that stk follows: root's or the caller's own (/dev/stdout,
 * a link root made), never one another user planted.
 */
static bool trusted_link(const char *path)
{
	struct stat lst;

	return lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && (lst.st_uid == 0 || lst.st_uid == geteuid());
}

/* Where the new file goes: path, or what a trusted link at path names. */
static const char *destination(const char *path, char *real)
{
	return trusted_link(path) && realpath(path, real) ? real : path;
}

FILE *stk_safe_output_open(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64], real[PATH_MAX];
	struct stat lst, st;
	const char *dest;
	FILE *f;
	int fd = -1;

	if (lstat(path, &lst) == 0 && (!S_ISLNK(lst.st_mode) || trusted_link(path)) && stat(path, &st) == 0) {
		/* A directory would only fail at the rename, after all the work. */
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
			return NULL;
		}
		/* /dev/null, a terminal, a FIFO of ours: written directly (O_NONBLOCK never: a FIFO waits for its reader). */
		if ((S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) && (st.st_uid == 0 || st.st_uid == geteuid())) {
			fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			goto opened;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s: not a regular file", path);
			return NULL;
		}
	}
	dest = destination(path, real);
	dir_of(dest, dir, sizeof(dir));
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, output_mode());
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		fd = named_temp(dest, tmp, sizeof(tmp));
opened:
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return f;
}

int stk_safe_output_commit(FILE *f, const char *path, char *err, size_t errlen)
{
	char self[64], tmp[PATH_MAX + 64], dir[PATH_MAX], real[PATH_MAX];
	const char *dest;
	struct stat st;
	ssize_t n;
	int fd = fileno(f);

	if (fflush(f) || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Written directly (a device or FIFO): nothing to put in place. */
	if (!S_ISREG(st.st_mode))
		return 0;
	if (fsync(fd)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	dest = destination(path, real);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	n = readlink(self, tmp, sizeof(tmp) - 1);
	tmp[n > 0 ? n : 0] = '\0';
	/* An O_TMPFILE file has no name yet ("/dir/#123 (deleted)"): give it one first. */
	if (n <= 0 || strstr(tmp, " (deleted)")) {
		int tries;

		dir_of(dest, dir, sizeof(dir));
		for (tries = 0; tries < 100; tries++) {
			snprintf(tmp, sizeof(tmp), "%s/.stk-out.%d.%d", dir, (int)getpid(), tries);
			if (linkat(AT_FDCWD, self, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
				break;
			if (errno != EEXIST) {
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				return -1;
			}
		}
		if (tries == 100) {
			snprintf(err, errlen, "%s: no free temporary name in its directory", path);
			return -1;
		}
	}
	if (rename(tmp, dest)) {
		int e = errno;
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

int stk_open_append_own(const char *path, int mode, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);

	if (fd < 0) {
		int e = errno;
		/* ELOOP, or EACCES from the kernel's own guard for links in sticky directories. */
		bool link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);

		snprintf(err, errlen, "%s: %s", path, link ? "a symbolic link: refusing to write through it" : strerror(e));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		snprintf(err, errlen, "%s: not a regular file of ours (owner %d, %d links): refusing to write into it",
			 path, (int)st.st_uid, (int)st.st_nlink);
		close(fd);
		return -1;
	}
	return fd;
}
