/* The directory of stk record's series: see series_dir.h. */
#include "core/eventlog/series_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/base/safe_dir.h"
#include "core/eventlog/event_recover.h"
#include "core/eventlog/series_names.h"

#define LOCK_NAME ".stk-record.lock"
#define PARTIAL_PREFIX ".stk-"
#define PARTIAL_SUFFIX ".parquet.partial"
#define BROKEN_SUFFIX ".parquet.broken"
#define DONE_SUFFIX ".parquet"
/* Names tried when one is taken (two files in one millisecond; a clock set back). */
#define NAME_TRIES 100
/* A hive layout's date directory: "date=YYYY-MM-DD". */
#define DATE_PREFIX "date="
#define DATE_DIR_LEN 15

void stk_series_dir_say(const struct stk_series_dir *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", d->applet ? d->applet : "stk");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}


/* Whether the entry name in the directory is a regular file of ours with one link (never followed). */
static bool own_file(const struct stk_series_dir *d, const char *name, struct stat *st)
{
	return fstatat(d->fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == geteuid() && st->st_nlink == 1;
}

/* The length of name's directory part, its '/' included (0: none). */
static size_t dir_part(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? (size_t)(slash - name) + 1 : 0;
}

/* The last component of name. */
static const char *base_part(const char *name)
{
	return name + dir_part(name);
}

/* The directory fd's entry name is in (d->fd, or a date directory opened: closed by the caller), or -1. */
static int dir_of(const struct stk_series_dir *d, const char *name)
{
	char sub[NAME_MAX + 1];
	size_t n = dir_part(name);

	if (!n)
		return dup(d->fd);
	if (n > sizeof(sub))
		return -1;
	memcpy(sub, name, n - 1);
	sub[n - 1] = '\0';
	return openat(d->fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int stk_series_dir_place(struct stk_series_dir *d, const char *from, const char *base, char *placed, size_t len)
{
	struct stat st;
	int dir = dir_of(d, from), sub = (int)dir_part(from);

	if (dir < 0)
		return -1;
	/* the directory is ours alone and locked: a name free now stays free until the rename */
	for (int i = 0; i < NAME_TRIES; i++) {
		if (i)
			snprintf(placed, len, "%.*s%s-%d%s", sub, from, base, i, DONE_SUFFIX);
		else
			snprintf(placed, len, "%.*s%s%s", sub, from, base, DONE_SUFFIX);
		if (fstatat(d->fd, placed, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT || renameat(d->fd, from, d->fd, placed)) {
			close(dir);
			return -1;
		}
		/* the name on disk too, with the file */
		fsync(dir);
		close(dir);
		return 0;
	}
	close(dir);
	errno = EEXIST;
	return -1;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Whether name is a hive layout's date directory's: date=YYYY-MM-DD. */
static bool is_date_dir(const char *name)
{
	static const char shape[] = "date=####-##-##";

	if (strlen(name) != DATE_DIR_LEN)
		return false;
	for (size_t i = 0; i < DATE_DIR_LEN; i++)
		if (shape[i] == '#' ? name[i] < '0' || name[i] > '9' : name[i] != shape[i])
			return false;
	return true;
}

/* Whether sub is a directory of ours in d (never followed). */
static bool own_dir(const struct stk_series_dir *d, const char *sub)
{
	struct stat st;

	return fstatat(d->fd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

/* Appends to names the entries of the directory sub ("" for d's own) that pass keep, as "sub/name". -1: no memory. */
static int list_one(struct stk_series_dir *d, const char *sub, bool (*keep)(const char *name), char ***names,
		    size_t *n, size_t *cap)
{
	int fd = openat(d->fd, sub[0] ? sub : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int ret = 0;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(dir))) {
		char *copy;
		size_t len = strlen(sub) + strlen(e->d_name) + 2;

		if (!keep(e->d_name))
			continue;
		if (stk_grow((void **)names, cap, *n + 1, sizeof(**names)) || !(copy = malloc(len))) {
			ret = -1;
			break;
		}
		snprintf(copy, len, "%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
		(*names)[(*n)++] = copy;
	}
	closedir(dir);
	return ret;
}

/*
 * The names in the directory (hive: in its date directories, as
 * "date=.../NAME") whose last component passes keep(name); *n of them
 * (owned: free each and the array).
 */
static char **list_dir(struct stk_series_dir *d, bool (*keep)(const char *name), size_t *n)
{
	char **names = NULL, **dates = NULL;
	size_t cap = 0, n_dates = 0, cap_dates = 0;

	*n = 0;
	if (!d->hive) {
		list_one(d, "", keep, &names, n, &cap);
		return names;
	}
	list_one(d, "", is_date_dir, &dates, &n_dates, &cap_dates);
	for (size_t i = 0; i < n_dates; i++)
		if (own_dir(d, dates[i]) && list_one(d, dates[i], keep, &names, n, &cap))
			break;
	free_names(dates, n_dates);
	return names;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Complete files by when they were closed (their names' end), the oldest first. */
static int by_end(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int64_t x0, x1, y0, y1;

	stk_ev_series_name_range(base_part(x), &x0, &x1);
	stk_ev_series_name_range(base_part(y), &y0, &y1);
	return x1 != y1 ? (x1 > y1) - (x1 < y1) : strcmp(x, y);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_partial(const char *name)
{
	return strncmp(name, PARTIAL_PREFIX, strlen(PARTIAL_PREFIX)) == 0 && ends_with(name, PARTIAL_SUFFIX);
}

static bool is_done(const char *name)
{
	int64_t a, b;

	return stk_ev_series_name_range(name, &a, &b);
}

/* One unfinished file made whole and named, or kept aside; a line either way. */
static void recover_one(struct stk_series_dir *d, const char *name)
{
	char why[512], base[NAME_MAX + 1], placed[NAME_MAX + 1], aside[NAME_MAX + 1];
	struct stk_ev_recovered r;
	struct stat st;
	int fd = -1;

	if (!own_file(d, name, &st)) {
		stk_series_dir_say(d, "%s/%s: not a file of ours (a regular file, one link, uid %u): left alone",
				   d->path, name, (unsigned)geteuid());
		return;
	}
	fd = openat(d->fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || stk_ev_recover(fd, &r, why, sizeof(why))) {
		if (fd < 0)
			snprintf(why, sizeof(why), "%s", strerror(errno));
		snprintf(aside, sizeof(aside), "%.*s%s", (int)(strlen(name) - strlen(PARTIAL_SUFFIX)), name,
			 BROKEN_SUFFIX);
		if (renameat(d->fd, name, d->fd, aside) == 0)
			stk_series_dir_say(d, "%s/%s: cannot be recovered (%s): kept aside as %s", d->path, name, why,
					   aside);
		else
			stk_series_dir_say(d, "%s/%s: cannot be recovered (%s), nor renamed: %s", d->path, name, why,
					   strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	stk_ev_series_base_name(r.first < r.start ? r.first : r.start, r.end, base, sizeof(base));
	if (stk_series_dir_place(d, name, base, placed, sizeof(placed)))
		stk_series_dir_say(d, "%s/%s: recovered but not renamed: %s", d->path, name, strerror(errno));
	else if (r.was_whole)
		stk_series_dir_say(d, "%s/%s: was complete, named %s", d->path, name, placed);
	else
		stk_series_dir_say(d, "%s/%s: recovered %" PRIu64 " events (%zu row groups; %" PRId64
				   " bytes of an unfinished one dropped) as %s", d->path, name, r.rows, r.groups,
				   r.dropped, placed);
}

void stk_series_dir_recover(struct stk_series_dir *d, const char *except)
{
	size_t n;
	char **names = list_dir(d, is_partial, &n);

	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++)
		if (!except || strcmp(names[i], except) != 0)
			recover_one(d, names[i]);
	free_names(names, n);
}

/* Hive: name's date directory removed once its last file went (it fails while anything is left there). */
static void remove_if_empty(struct stk_series_dir *d, const char *name)
{
	char sub[NAME_MAX + 1];
	size_t n = dir_part(name);

	if (!n || n > sizeof(sub))
		return;
	memcpy(sub, name, n - 1);
	sub[n - 1] = '\0';
	unlinkat(d->fd, sub, AT_REMOVEDIR);
}

void stk_series_dir_retain(struct stk_series_dir *d, uint64_t max_files, uint64_t max_bytes, uint64_t current)
{
	struct stat st;
	uint64_t total = 0;
	size_t n, first = 0;
	char **names;

	if (!max_files && !max_bytes)
		return;
	names = list_dir(d, is_done, &n);
	if (n)
		qsort(names, n, sizeof(*names), by_end);
	for (size_t i = 0; i < n; i++)
		if (own_file(d, names[i], &st))
			total += (uint64_t)st.st_size;
	total += current;
	for (; first + 1 < n && ((max_files && n - first > max_files) || (max_bytes && total > max_bytes));
	     first++) {
		if (!own_file(d, names[first], &st))
			continue;
		if (unlinkat(d->fd, names[first], 0)) {
			stk_series_dir_say(d, "%s/%s: cannot remove it: %s", d->path, names[first], strerror(errno));
			continue;
		}
		total -= (uint64_t)st.st_size;
		if (d->verbose)
			stk_series_dir_say(d, "%s/%s: removed (--max-files %" PRIu64 ", --max-size %" PRIu64 ")",
					   d->path, names[first], max_files, max_bytes);
		remove_if_empty(d, names[first]);
	}
	free_names(names, n);
}

/* The directory as the rules allow, reopened for reading; ours and writable by no one else. -1 with err. */
static int open_dir(const char *path, char *err, size_t err_len)
{
	static const struct stk_dir_rules rules = { .follow_own_links = true, .create = true };
	char why[PATH_MAX + 128];
	struct stat st;
	int at = stk_dir_open(path, &rules, why, sizeof(why)), fd;

	if (at < 0) {
		snprintf(err, err_len, "%s", why);
		return -1;
	}
	fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(at);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, err_len, "%s: a directory %s: refusing to record into it (make it %u's, mode 0700)", path,
			 st.st_uid != geteuid() ? "of another user" : "others may write to", (unsigned)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

/* The series' lock, held while it lives. -1 with err (another series holds it). */
static int take_lock(const struct stk_series_dir *d, char *err, size_t err_len)
{
	struct stat st;
	char pid[32] = "";
	ssize_t n;
	int fd = openat(d->fd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, err_len, "%s/%s: %s", d->path, LOCK_NAME,
			 fd < 0 ? strerror(errno) : "not a regular file of ours: refusing to use it");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if ((n = pread(fd, pid, sizeof(pid) - 1, 0)) > 0)
			pid[strcspn(pid, "\n")] = '\0';
		snprintf(err, err_len, "%s: another stk record writes there (pid %s)", d->path,
			 n > 0 && pid[0] ? pid : "unknown");
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* the pid is for the message of a second series only */
	}
	return fd;
}

int stk_series_dir_open(struct stk_series_dir *d, const char *path, const char *applet, bool verbose, bool hive,
			char *err, size_t err_len)
{
	*d = (struct stk_series_dir){ .fd = -1, .lock_fd = -1, .applet = applet, .verbose = verbose, .hive = hive };
	if (!(d->path = strdup(path))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	/* messages name the directory without its trailing slashes */
	for (size_t n = strlen(d->path); n > 1 && d->path[n - 1] == '/'; n--)
		d->path[n - 1] = '\0';
	if ((d->fd = open_dir(path, err, err_len)) < 0 || (d->lock_fd = take_lock(d, err, err_len)) < 0) {
		stk_series_dir_close(d);
		return -1;
	}
	return 0;
}

void stk_series_dir_close(struct stk_series_dir *d)
{
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	*d = (struct stk_series_dir){ .fd = -1, .lock_fd = -1 };
}

/* Hive: now's date directory, made (0700) when missing, into sub ("date=YYYY-MM-DD/"). 0, or -1 (errno). */
static int date_dir(struct stk_series_dir *d, int64_t now, char *sub, size_t len)
{
	time_t secs = (time_t)(now / 1000000000);
	struct tm tm;

	if (!gmtime_r(&secs, &tm))
		return -1;
	snprintf(sub, len, DATE_PREFIX "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	if (mkdirat(d->fd, sub, 0700) && errno != EEXIST)
		return -1;
	if (!own_dir(d, sub)) {
		errno = ENOTDIR;
		return -1;
	}
	strncat(sub, "/", len - strlen(sub) - 1);
	return 0;
}

int stk_series_dir_create(struct stk_series_dir *d, int64_t now, char *name, size_t len)
{
	char st[STK_EV_STAMP_LEN + 1], sub[48] = "";
	int fd = -1;

	stk_ev_series_stamp(now, st);
	if (d->hive && date_dir(d, now, sub, sizeof(sub))) {
		name[0] = '\0';
		return -1;
	}
	for (int i = 0; i < NAME_TRIES && fd < 0; i++) {
		if (i)
			snprintf(name, len, "%s%s%s-%d%s", sub, PARTIAL_PREFIX, st, i, PARTIAL_SUFFIX);
		else
			snprintf(name, len, "%s%s%s%s", sub, PARTIAL_PREFIX, st, PARTIAL_SUFFIX);
		fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	/* 0600 whatever the umask */
	if (fd >= 0 && fchmod(fd, 0600)) {
		int e = errno;

		close(fd);
		unlinkat(d->fd, name, 0);
		errno = e;
		fd = -1;
	}
	if (fd < 0)
		name[0] = '\0';
	return fd;
}
