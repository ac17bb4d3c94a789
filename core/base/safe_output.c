/* Output files that no planted symlink or foreign file can redirect or widen (safe_output.h). */
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

#include "core/base/safe_dir.h"

#define NEW_MODE 0600
/* What a replaced file's mode may keep: no write or execute for group and others, no execute, no special bits. */
#define KEPT_BITS 0644
#define NAME_TRIES 100

struct stk_output_file {
	FILE *f;
	char *path;             /* as given, for messages */
	int dir_fd;             /* the directory the file goes into; -1: written directly (a device or FIFO) */
	char name[NAME_MAX + 1];
	char tmp[NAME_MAX + 1]; /* its temporary name there; "": none yet */
	bool placed;            /* renamed over name: later commits only flush */
};

/* Directory components: our own links and root's are followed, no one else's. */
static const struct stk_dir_rules follow_own = { .follow_own_links = true };

static bool ours(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* path's directory ("." when it has none) into dir and its last component into name. -errno. */
static int split(const char *path, char *dir, size_t dlen, char *name)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EISDIR;
	if (strlen(base) > NAME_MAX || strlen(path) >= dlen)
		return -ENAMETOOLONG;
	strcpy(name, base);
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
	return 0;
}

static int failed(int err, int fd, char *why, size_t len)
{
	if (fd >= 0)
		close(fd);
	snprintf(why, len, "%s", strerror(err));
	return -1;
}

/*
 * A device or FIFO of root's or ours, written directly: the kernel follows
 * what is at name (a trusted link such as /dev/stdout too); checked again
 * on the fd, in case it changed in between.
 */
static int open_direct(int dir_fd, const char *name, char *why, size_t len)
{
	struct stat st;
	int fd = openat(dir_fd, name, O_WRONLY | O_NOCTTY | O_CLOEXEC); /* never O_NONBLOCK: a FIFO waits for its reader */

	if (fd < 0)
		return failed(errno, -1, why, len);
	if (fstat(fd, &st) || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) || !ours(st.st_uid)) {
		close(fd);
		snprintf(why, len, "not a regular file");
		return -1;
	}
	return fd;
}

/*
 * Where the output goes: *dir_fd and name in it (what a trusted link at the
 * name leads to, reached by the same rules), with *old the file replaced
 * (st_mode 0: none); or *direct, a device or FIFO to write to. -1 with why.
 */
static int resolve(const char *path, int *dir_fd, char *name, int *direct, struct stat *old, char *why, size_t len)
{
	char dir[PATH_MAX], target[PATH_MAX];
	int fd, links = 0, e;

	*direct = -1;
	memset(old, 0, sizeof(*old));
	if ((e = split(path, dir, sizeof(dir), name)))
		return failed(-e, -1, why, len);
	if ((fd = stk_dir_open(dir, &follow_own, why, len)) < 0)
		return -1;
	for (;;) {
		struct stat lst, st;
		ssize_t n;
		int lfd = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), next;

		if (lfd < 0 && errno == ENOENT)
			break; /* a new file */
		if (lfd < 0 || fstat(lfd, &lst)) {
			e = errno;
			if (lfd >= 0)
				close(lfd);
			return failed(e, fd, why, len);
		}
		if (S_ISLNK(lst.st_mode) && !ours(lst.st_uid)) {
			close(lfd);
			break; /* another user's link: replaced, never followed */
		}
		if (S_ISLNK(lst.st_mode) && fstatat(fd, name, &st, 0)) {
			close(lfd);
			if (errno == ENOENT)
				break; /* our own link to nothing: replaced */
			return failed(errno, fd, why, len);
		}
		if (!S_ISLNK(lst.st_mode))
			st = lst;
		if (S_ISDIR(st.st_mode)) {
			close(lfd);
			return failed(EISDIR, fd, why, len);
		}
		if ((S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) && ours(st.st_uid)) {
			close(lfd);
			*direct = open_direct(fd, name, why, len);
			close(fd);
			return *direct >= 0 ? 0 : -1;
		}
		if (!S_ISREG(st.st_mode)) {
			close(lfd);
			close(fd);
			snprintf(why, len, "not a regular file");
			return -1;
		}
		if (!S_ISLNK(lst.st_mode)) {
			close(lfd);
			*old = lst;
			break;
		}
		/* Our own link to a file: its target is replaced, found by the same rules. */
		n = ++links > STK_SAFE_DIR_MAX_LINKS ? -1 : readlinkat(lfd, "", target, sizeof(target) - 1);
		e = n < 0 && links <= STK_SAFE_DIR_MAX_LINKS ? errno : ELOOP;
		close(lfd);
		if (n <= 0)
			return failed(e, fd, why, len);
		target[n] = '\0';
		if ((e = split(target, dir, sizeof(dir), name)))
			return failed(-e, fd, why, len);
		next = stk_dir_open_at(fd, dir, &follow_own, why, len);
		close(fd);
		if ((fd = next) < 0)
			return -1;
	}
	*dir_fd = fd;
	return 0;
}

/* DIR/.NAME.stk-PID-N, created exclusively (O_EXCL never follows a symlink). */
static int named_temp(struct stk_output_file *o)
{
	for (int i = 0; i < NAME_TRIES; i++) {
		int fd;

		snprintf(o->tmp, sizeof(o->tmp), ".%.200s.stk-%d-%d", o->name, (int)getpid(), i);
		fd = openat(o->dir_fd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, NEW_MODE);
		if (fd >= 0 || errno != EEXIST) {
			if (fd < 0)
				o->tmp[0] = '\0';
			return fd;
		}
	}
	o->tmp[0] = '\0';
	errno = EEXIST;
	return -1;
}

/* The replaced file's group and permission bits, less what KEPT_BITS drops; only a file of root's or ours. */
static int keep_mode(int fd, const struct stat *old)
{
	mode_t mode = old->st_mode & KEPT_BITS;

	if (!S_ISREG(old->st_mode) || !ours(old->st_uid))
		return 0;
	/* the group's bits go with the group: without it, none */
	if (fchown(fd, (uid_t)-1, old->st_gid))
		mode &= ~(mode_t)S_IRWXG;
	return fchmod(fd, mode);
}

struct stk_output_file *stk_safe_output_open(const char *path, char *err, size_t errlen)
{
	struct stk_output_file *o = calloc(1, sizeof(*o));
	char why[PATH_MAX + 128];
	struct stat old;
	int fd = -1;

	if (!o || !(o->path = strdup(path))) {
		snprintf(err, errlen, "%s: out of memory", path);
		free(o);
		return NULL;
	}
	o->dir_fd = -1;
	if (resolve(path, &o->dir_fd, o->name, &fd, &old, why, sizeof(why)))
		goto fail;
	if (fd < 0) {
		fd = openat(o->dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, NEW_MODE);
		if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
			fd = named_temp(o);
		if (fd < 0 || keep_mode(fd, &old)) {
			failed(errno, -1, why, sizeof(why));
			goto fail;
		}
	}
	if (!(o->f = fdopen(fd, "w"))) {
		failed(errno, -1, why, sizeof(why));
		goto fail;
	}
	return o;
fail:
	snprintf(err, errlen, "%s: %s", path, why);
	if (fd >= 0 && !o->f)
		close(fd);
	stk_safe_output_close(o);
	return NULL;
}

FILE *stk_safe_output_stream(const struct stk_output_file *o)
{
	return o->f;
}

/* An O_TMPFILE file has no name yet: a temporary one in its directory, for the rename. */
static int name_it(struct stk_output_file *o, int fd)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	for (int i = 0; i < NAME_TRIES; i++) {
		snprintf(o->tmp, sizeof(o->tmp), ".stk-out.%d.%d", (int)getpid(), i);
		if (linkat(AT_FDCWD, self, o->dir_fd, o->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	return -1;
}

int stk_safe_output_commit(struct stk_output_file *o, char *err, size_t errlen)
{
	int fd = fileno(o->f), e;
	struct stat st;

	if (fflush(o->f) || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(errno));
		return -1;
	}
	/* Written directly (a device or FIFO), or already in place: nothing to do. */
	if (o->dir_fd < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (fsync(fd)) {
		snprintf(err, errlen, "%s: %s", o->path, strerror(errno));
		return -1;
	}
	if (o->placed)
		return 0;
	if (!o->tmp[0] && name_it(o, fd)) {
		snprintf(err, errlen, "%s: %s", o->path,
			 errno == EEXIST ? "no free temporary name in its directory" : strerror(errno));
		return -1;
	}
	if (renameat(o->dir_fd, o->tmp, o->dir_fd, o->name)) {
		e = errno;
		unlinkat(o->dir_fd, o->tmp, 0);
		o->tmp[0] = '\0';
		snprintf(err, errlen, "%s: %s", o->path, strerror(e));
		return -1;
	}
	o->placed = true;
	return 0;
}

void stk_safe_output_close(struct stk_output_file *o)
{
	if (!o)
		return;
	if (o->f)
		fclose(o->f);
	if (o->dir_fd >= 0) {
		if (o->tmp[0] && !o->placed)
			unlinkat(o->dir_fd, o->tmp, 0);
		close(o->dir_fd);
	}
	free(o->path);
	free(o);
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
