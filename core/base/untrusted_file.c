/*
 * Opens of files other users control: never blocking, regular files only,
 * resolution that stays inside a process's root (see untrusted_file.h).
 */
#include "core/base/untrusted_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

/* musl has no openat2() wrapper; the number comes from the kernel's headers. */
#ifndef SYS_openat2
#include <asm/unistd.h>
#define SYS_openat2 __NR_openat2
#endif

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
/* Directories held open at once by the walk (each ".." closes one). */
#define MAX_WALK_DEPTH 128

int stk_untrusted_check_fd(int fd, const struct stk_untrusted_rules *r)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (r && r->check_owner && st.st_uid != r->owner && !(st.st_uid == 0 && st.st_nlink == 1))
		return -EPERM;
	if (r && r->max_size && (uint64_t)st.st_size > r->max_size)
		return -EFBIG;
	return 0;
}

const char *stk_untrusted_strerror(int neg_errno)
{
	switch (-neg_errno) {
	case EINVAL: return "not a regular file";
	case EPERM: return "owned by another user";
	case EFBIG: return "too big";
	case ELOOP: return "a symbolic link where none is allowed (or too many)";
	default: return strerror(-neg_errno);
	}
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

static bool only_slashes(const char *p)
{
	return p[strspn(p, "/")] == '\0';
}

int stk_untrusted_walk_in_root(int root_fd, const char *path, bool no_follow)
{
	int dirs[MAX_WALK_DEPTH]; /* dirs[0] is root_fd (not ours) */
	char buf[2][PATH_MAX], comp[NAME_MAX + 1];
	const char *rest;
	int depth = 0, links = 0, which = 0, ret = -EINVAL, got;

	dirs[0] = root_fd;
	if (strlen(path) >= sizeof(buf[0]))
		return -ENAMETOOLONG;
	strcpy(buf[0], path);
	rest = buf[0];
	while ((got = next_component(&rest, comp, sizeof(comp))) > 0) {
		bool last = only_slashes(rest);
		struct stat st;
		int fd;

		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			/* Never above the root: ".." of the root is the root, as for chroot. */
			if (depth > 0)
				close(dirs[depth--]);
			continue;
		}
		fd = openat(dirs[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);

			close(fd);
			if ((last && no_follow) || ++links > STK_UNTRUSTED_MAX_LINKS) {
				ret = -ELOOP;
				goto out;
			}
			if (n <= 0) {
				ret = n < 0 ? -errno : -ENOENT;
				goto out;
			}
			target[n] = '\0';
			/* An absolute target starts again at this root, not the host's. */
			if (target[0] == '/')
				while (depth > 0)
					close(dirs[depth--]);
			if ((size_t)n + 1 + strlen(rest) >= sizeof(buf[0])) {
				ret = -ENAMETOOLONG;
				goto out;
			}
			which ^= 1;
			memcpy(buf[which], target, (size_t)n);
			buf[which][n] = '/';
			strcpy(buf[which] + n + 1, rest);
			rest = buf[which];
			continue;
		}
		if (last) {
			close(fd);
			/* O_NOFOLLOW: swapped for a link since the look above, it fails. */
			ret = openat(dirs[depth], comp, OPEN_FLAGS | O_NOFOLLOW);
			if (ret < 0)
				ret = -errno;
			goto out;
		}
		if (!S_ISDIR(st.st_mode) || depth + 1 >= MAX_WALK_DEPTH) {
			close(fd);
			ret = S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
			goto out;
		}
		dirs[++depth] = fd;
	}
	if (got < 0)
		ret = got;
out:
	while (depth > 0)
		close(dirs[depth--]);
	return ret;
}

static int open_in_root(int root_fd, const char *path, bool no_follow)
{
	struct open_how how = {
		.flags = OPEN_FLAGS | (no_follow ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	/* Kernels before 5.6 (or a seccomp filter that hides openat2): the walk. */
	if (errno == ENOSYS || errno == E2BIG || errno == EPERM)
		return stk_untrusted_walk_in_root(root_fd, path, no_follow);
	return -errno;
}

/* Runs the open with the owner's filesystem credentials when the rules ask. */
static int open_as(int root_fd, const char *path, const struct stk_untrusted_rules *r)
{
	bool no_follow = r && r->no_follow, switch_creds = r && r->as_owner;
	int old_gid = 0, old_uid = 0, fd;

	if (switch_creds) {
		old_gid = setfsgid(r->group);
		old_uid = setfsuid(r->owner);
	}
	if (root_fd >= 0) {
		fd = open_in_root(root_fd, path, no_follow);
	} else {
		fd = open(path, OPEN_FLAGS | (no_follow ? O_NOFOLLOW : 0));
		if (fd < 0)
			fd = -errno;
	}
	if (switch_creds) {
		setfsuid((uid_t)old_uid);
		setfsgid((gid_t)old_gid);
	}
	return fd;
}

static int checked(int fd, const struct stk_untrusted_rules *r)
{
	int err;

	if (fd < 0)
		return fd;
	if ((err = stk_untrusted_check_fd(fd, r))) {
		close(fd);
		return err;
	}
	return fd;
}

int stk_untrusted_open_at_root(int root_fd, const char *path, const struct stk_untrusted_rules *r)
{
	return checked(open_as(root_fd, path, r), r);
}

/* Length of a "/proc/PID/root" prefix of path (followed by '/' or the end), else 0. */
static size_t proc_root_prefix(const char *path)
{
	const char *p = path + 6;
	size_t digits;

	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	digits = strspn(p, "0123456789");
	if (!digits || strncmp(p + digits, "/root", 5) != 0 || (p[digits + 5] && p[digits + 5] != '/'))
		return 0;
	return (size_t)(p + digits + 5 - path);
}

int stk_untrusted_open(const char *path, const struct stk_untrusted_rules *r)
{
	size_t n = proc_root_prefix(path);
	char root[64];
	int root_fd, fd;

	if (!n)
		return checked(open_as(-1, path, r), r);
	snprintf(root, sizeof(root), "%.*s", (int)n, path);
	/* The root itself is opened with our own credentials; only what is under it as the owner. */
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	fd = stk_untrusted_open_at_root(root_fd, path[n] ? path + n : "/", r);
	close(root_fd);
	return fd;
}

ssize_t stk_read_bounded(int fd, void *buf, size_t max, off_t offset)
{
	size_t got = 0;

	while (got < max) {
		ssize_t n = pread(fd, (char *)buf + got, max - got, offset + (off_t)got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}
