/* Directories reached one component at a time under rules: see safe_dir.h. */
#include "core/base/safe_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPEN_PATH (O_PATH | O_NOFOLLOW | O_CLOEXEC)

/* why = "DIR/NAME: WHAT", DIR being where dir_fd really is. */
static int fail(int err, int dir_fd, const char *name, const char *what, char *why, size_t len)
{
	char self[64], dir[PATH_MAX];
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", dir_fd);
	n = dir_fd >= 0 ? readlink(self, dir, sizeof(dir) - 1) : -1;
	dir[n > 0 ? n : 0] = '\0';
	snprintf(why, len, "%s%s%s: %s", dir, *name && strcmp(dir, "/") != 0 ? "/" : "", name,
		 what ? what : strerror(err));
	if (dir_fd >= 0)
		close(dir_fd);
	return -err;
}

/* Why the directory st may not be passed through, or NULL. */
static const char *refused_dir(const struct stat *st, const struct stk_dir_rules *r, char *buf, size_t len)
{
	if (!r->root_only)
		return NULL;
	if (st->st_uid != 0) {
		snprintf(buf, len, "a directory of uid %u, not root's", (unsigned)st->st_uid);
		return buf;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "a directory others may write to (and it is not sticky)";
	return NULL;
}

/* The next non-empty component of *rest into comp; *rest moves past it. 0 at the end. */
static int next_component(const char **rest, char *comp, size_t len)
{
	const char *p = *rest, *end;

	while (*p == '/')
		p++;
	if (!*p)
		return 0;
	end = strchrnul(p, '/');
	if ((size_t)(end - p) >= len)
		return -ENAMETOOLONG;
	memcpy(comp, p, (size_t)(end - p));
	comp[end - p] = '\0';
	*rest = end;
	return 1;
}

/* The directory to start from: "/", or at (the working directory for AT_FDCWD), checked like the rest. */
static int start_at(int at, const char *path, const struct stk_dir_rules *r, char *why, size_t len)
{
	char buf[96];
	const char *bad;
	struct stat st;
	int fd = path[0] == '/' ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
				: openat(at, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return fail(errno, -1, path[0] == '/' ? "/" : ".", NULL, why, len);
	if (fstat(fd, &st))
		return fail(errno, fd, "", NULL, why, len);
	if ((bad = refused_dir(&st, r, buf, sizeof(buf))))
		return fail(EPERM, fd, "", bad, why, len);
	return fd;
}

int stk_dir_open(const char *path, const struct stk_dir_rules *r, char *why, size_t len)
{
	return stk_dir_open_at(AT_FDCWD, path, r, why, len);
}

int stk_dir_open_at(int at, const char *path, const struct stk_dir_rules *r, char *why, size_t len)
{
	char buf[2][PATH_MAX], comp[NAME_MAX + 1], what[96];
	const char *rest, *bad;
	int fd, links = 0, which = 0, got;

	if (strlen(path) >= sizeof(buf[0]))
		return fail(ENAMETOOLONG, -1, path, NULL, why, len);
	strcpy(buf[0], path);
	rest = buf[0];
	if ((fd = start_at(at, path, r, why, len)) < 0)
		return fd;
	while ((got = next_component(&rest, comp, sizeof(comp))) > 0) {
		struct stat st;
		int next;

		if (strcmp(comp, ".") == 0)
			continue;
		next = openat(fd, comp, OPEN_PATH);
		if (next < 0 && errno == ENOENT && r->create) {
			if (mkdirat(fd, comp, 0700) && errno != EEXIST)
				return fail(errno, fd, comp, NULL, why, len);
			next = openat(fd, comp, OPEN_PATH);
		}
		if (next < 0 || fstat(next, &st)) {
			int e = errno;

			if (next >= 0)
				close(next);
			return fail(e, fd, comp, NULL, why, len);
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n;

			if (!r->follow_own_links || (st.st_uid != 0 && st.st_uid != geteuid())) {
				close(next);
				snprintf(what, sizeof(what), "a symbolic link of uid %u: refusing to follow it",
					 (unsigned)st.st_uid);
				return fail(ELOOP, fd, comp, what, why, len);
			}
			/* read from the link we checked, not from whatever the name holds by now */
			n = ++links > STK_SAFE_DIR_MAX_LINKS ? -1 : readlinkat(next, "", target, sizeof(target) - 1);
			close(next);
			if (n <= 0 || (size_t)n + 1 + strlen(rest) >= sizeof(buf[0]))
				return fail(n < 0 && links <= STK_SAFE_DIR_MAX_LINKS ? errno : ELOOP, fd, comp, NULL, why, len);
			target[n] = '\0';
			if (target[0] == '/') {
				close(fd);
				if ((fd = start_at(AT_FDCWD, target, r, why, len)) < 0)
					return fd;
			}
			/* the target, then what was left of the path (the length was checked above) */
			which ^= 1;
			memcpy(buf[which], target, (size_t)n);
			buf[which][n] = '/';
			strcpy(buf[which] + n + 1, rest);
			rest = buf[which];
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(next);
			return fail(ENOTDIR, fd, comp, NULL, why, len);
		}
		if ((bad = refused_dir(&st, r, what, sizeof(what)))) {
			close(next);
			return fail(EPERM, fd, comp, bad, why, len);
		}
		close(fd);
		fd = next;
	}
	if (got < 0)
		return fail(-got, fd, comp, NULL, why, len);
	return fd;
}
