/* The event log as a series of files in one directory: see event_series.h. */
#include "core/eventlog/event_series.h"

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
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/base/safe_dir.h"
#include "core/eventlog/event_recover.h"
#include "core/eventlog/event_writer.h"
#include "core/eventlog/series_names.h"

#define LOCK_NAME ".stk-record.lock"
#define PARTIAL_PREFIX ".stk-"
#define PARTIAL_SUFFIX ".parquet.partial"
#define BROKEN_SUFFIX ".parquet.broken"
#define DONE_SUFFIX ".parquet"
/* Names tried when one is taken (two files in one millisecond; a clock set back). */
#define NAME_TRIES 100
/* A paused series looks for free space this often. */
#define SPACE_CHECK_NS 1000000000LL

struct stk_ev_series {
	struct stk_ev_series_opts o;
	struct stk_ev_series_hooks h;
	char *path;             /* as given, for messages */
	int dir_fd, lock_fd;
	/* the file being written: out NULL while there is none (paused, closed) */
	FILE *out;
	struct stk_ev_writer *w;
	char partial[NAME_MAX + 1];
	int64_t last_flush;
	struct stk_ev_series_file file;
	uint64_t file_lost_of[STK_EV_SERIES_KINDS]; /* file.lost_full_of */
	/* rows since the last checkpoint, by kind: lost too when a full disk cuts the file back to it */
	uint64_t since_ckpt_of[STK_EV_SERIES_KINDS];
	uint64_t ckpt_bytes, ckpt_rows;
	/* a full disk */
	bool paused;
	int64_t paused_at, space_checked;
	uint64_t pending_lost, pending_lost_of[STK_EV_SERIES_KINDS]; /* not yet in a file's footer */
	/* totals: rows of files closed or cut back (the current file's are its writer's) */
	uint64_t rows_done, lost, lost_of[STK_EV_SERIES_KINDS], files;
	char err[PATH_MAX + 256]; /* why the series failed for good; "" while it works */
};

static void say(const struct stk_ev_series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct stk_ev_series *s, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", s->o.applet ? s->o.applet : "stk");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void failed(struct stk_ev_series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failed(struct stk_ev_series *s, const char *fmt, ...)
{
	va_list ap;

	if (s->err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

/* Whether the entry name in the directory is a regular file of ours with one link (never followed). */
static bool own_file(const struct stk_ev_series *s, const char *name, struct stat *st)
{
	return fstatat(s->dir_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode) &&
	       st->st_uid == geteuid() && st->st_nlink == 1;
}

/* from renamed to a free name made of base ("stk-A-B") and DONE_SUFFIX, into placed. 0, or -1 (errno). */
static int place(struct stk_ev_series *s, const char *from, const char *base, char *placed, size_t len)
{
	struct stat st;

	/* the directory is ours alone and locked: a name free now stays free until the rename */
	for (int i = 0; i < NAME_TRIES; i++) {
		if (i)
			snprintf(placed, len, "%s-%d%s", base, i, DONE_SUFFIX);
		else
			snprintf(placed, len, "%s%s", base, DONE_SUFFIX);
		if (fstatat(s->dir_fd, placed, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT || renameat(s->dir_fd, from, s->dir_fd, placed))
			return -1;
		/* the name on disk too, with the file */
		fsync(s->dir_fd);
		return 0;
	}
	errno = EEXIST;
	return -1;
}

/* The names in the directory that pass keep(name), sorted; *n of them (owned: free each and the array). */
static char **list_dir(struct stk_ev_series *s, bool (*keep)(const char *name), size_t *n)
{
	int fd = openat(s->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char **names = NULL;
	size_t cap = 0;
	struct dirent *e;

	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((e = readdir(d))) {
		char *copy;

		if (!keep(e->d_name))
			continue;
		if (stk_grow((void **)&names, &cap, *n + 1, sizeof(*names)) || !(copy = strdup(e->d_name)))
			break;
		names[(*n)++] = copy;
	}
	closedir(d);
	return names;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
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

	stk_ev_series_name_range(x, &x0, &x1);
	stk_ev_series_name_range(y, &y0, &y1);
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
static void recover_one(struct stk_ev_series *s, const char *name)
{
	char why[512], base[NAME_MAX + 1], placed[NAME_MAX + 1], aside[NAME_MAX + 1];
	struct stk_ev_recovered r;
	struct stat st;
	int fd = -1;

	if (!own_file(s, name, &st)) {
		say(s, "%s/%s: not a file of ours (a regular file, one link, uid %u): left alone", s->path, name,
		    (unsigned)geteuid());
		return;
	}
	fd = openat(s->dir_fd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || stk_ev_recover(fd, &r, why, sizeof(why))) {
		if (fd < 0)
			snprintf(why, sizeof(why), "%s", strerror(errno));
		snprintf(aside, sizeof(aside), "%.*s%s", (int)(strlen(name) - strlen(PARTIAL_SUFFIX)), name,
			 BROKEN_SUFFIX);
		if (renameat(s->dir_fd, name, s->dir_fd, aside) == 0)
			say(s, "%s/%s: cannot be recovered (%s): kept aside as %s", s->path, name, why, aside);
		else
			say(s, "%s/%s: cannot be recovered (%s), nor renamed: %s", s->path, name, why, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	stk_ev_series_base_name(r.first < r.start ? r.first : r.start, r.end, base, sizeof(base));
	if (place(s, name, base, placed, sizeof(placed)))
		say(s, "%s/%s: recovered but not renamed: %s", s->path, name, strerror(errno));
	else if (r.was_whole)
		say(s, "%s/%s: was complete, named %s", s->path, name, placed);
	else
		say(s, "%s/%s: recovered %" PRIu64 " events (%zu row groups; %" PRId64 " bytes of an unfinished one "
		    "dropped) as %s", s->path, name, r.rows, r.groups, r.dropped, placed);
}

/* Every unfinished file in the directory, oldest first. */
static void recover_leftovers(struct stk_ev_series *s)
{
	size_t n;
	char **names = list_dir(s, is_partial, &n);

	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s->partial) != 0)
			recover_one(s, names[i]);
	free_names(names, n);
}

/*
 * The oldest complete files (by their close) removed past max_files and
 * max_bytes (the file being written counted in the bytes); the newest is
 * kept even when it alone is larger.
 */
static void retain(struct stk_ev_series *s)
{
	struct stat st;
	uint64_t total = 0;
	size_t n, first = 0;
	char **names;

	if (!s->o.max_files && !s->o.max_bytes)
		return;
	names = list_dir(s, is_done, &n);
	if (n)
		qsort(names, n, sizeof(*names), by_end);
	for (size_t i = 0; i < n; i++)
		if (own_file(s, names[i], &st))
			total += (uint64_t)st.st_size;
	if (s->out && fstat(fileno(s->out), &st) == 0)
		total += (uint64_t)st.st_size;
	for (; first + 1 < n && ((s->o.max_files && n - first > s->o.max_files) ||
				 (s->o.max_bytes && total > s->o.max_bytes));
	     first++) {
		if (!own_file(s, names[first], &st))
			continue;
		if (unlinkat(s->dir_fd, names[first], 0)) {
			say(s, "%s/%s: cannot remove it: %s", s->path, names[first], strerror(errno));
			continue;
		}
		total -= (uint64_t)st.st_size;
		if (s->o.verbose)
			say(s, "%s/%s: removed (--max-files %" PRIu64 ", --max-size %" PRIu64 ")", s->path, names[first],
			    s->o.max_files, s->o.max_bytes);
	}
	free_names(names, n);
}

static bool disk_full(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

static void describe(struct stk_ev_series *s, int64_t now)
{
	s->file.now = now;
	s->h.describe(s->h.ctx, s->w, &s->file);
}

/* What the writer has on disk since the last look: rows since a checkpoint start again from there. */
static void note_checkpoint(struct stk_ev_series *s)
{
	uint64_t at = stk_ev_writer_checkpointed(s->w);

	if (at != s->ckpt_bytes) {
		s->ckpt_bytes = at;
		s->ckpt_rows = stk_ev_writer_rows(s->w);
		memset(s->since_ckpt_of, 0, sizeof(s->since_ckpt_of));
	}
}

/* Counts events lost to a full disk. */
static void lose(struct stk_ev_series *s, uint16_t kind, uint64_t n)
{
	s->pending_lost += n;
	s->lost += n;
	if (kind < STK_EV_SERIES_KINDS) {
		s->pending_lost_of[kind] += n;
		s->lost_of[kind] += n;
	}
}

/* The file given up without closing: cut back to its last checkpoint (nothing on disk at all: removed). */
static void abandon(struct stk_ev_series *s)
{
	uint64_t good = stk_ev_writer_checkpointed(s->w);
	bool any = s->ckpt_rows > 0;

	s->rows_done += s->ckpt_rows;
	stk_ev_writer_free(s->w);
	s->w = NULL;
	/* the stream is unbuffered: nothing of it is left to go out after the cut */
	if (ftruncate(fileno(s->out), (off_t)good) == 0 && !any && good <= 4)
		unlinkat(s->dir_fd, s->partial, 0);
	fclose(s->out);
	s->out = NULL;
}

/* The disk is full: said once, the file cut back, the rows since its last checkpoint lost. */
static void pause_series(struct stk_ev_series *s, int64_t now, int e)
{
	if (!s->paused) {
		say(s, "%s: the disk is full (%s): recording paused; events are counted as lost until %" PRIu64
		    " KiB are free", s->path, strerror(e), s->o.resume_bytes >> 10);
		s->paused_at = now;
	}
	s->paused = true;
	s->space_checked = now;
	if (!s->w)
		return;
	for (uint16_t k = 0; k < STK_EV_SERIES_KINDS; k++)
		if (s->since_ckpt_of[k])
			lose(s, k, s->since_ckpt_of[k]);
	abandon(s);
	s->partial[0] = '\0';
}

/* A write failed: a full disk pauses, anything else ends the series. */
static void write_failed(struct stk_ev_series *s, int64_t now, int e, const char *what)
{
	if (disk_full(e)) {
		pause_series(s, now, e);
		return;
	}
	failed(s, "%s/%s: %s: %s", s->path, s->partial, what, e ? strerror(e) : "the writer failed");
	if (s->w)
		abandon(s);
}

/* The rows so far on disk with a checkpoint, and synced. */
static void checkpoint(struct stk_ev_series *s, int64_t now)
{
	int e;

	s->last_flush = now;
	describe(s, now);
	if (stk_ev_writer_checkpoint(s->w)) {
		write_failed(s, now, stk_ev_writer_errno(s->w), "writing a checkpoint");
		return;
	}
	if (fdatasync(fileno(s->out)) && errno != EINVAL) {
		e = errno;
		write_failed(s, now, e, "syncing");
		return;
	}
	note_checkpoint(s);
}

/* A new file at now: a free partial name, 0600, its first checkpoint. 0, or -1 (paused, or failed). */
static int open_file(struct stk_ev_series *s, int64_t now)
{
	const struct stk_pq_writer_opts opts = { .gzip_level = 1, .checkpoints = true };
	char st[STK_EV_STAMP_LEN + 1], why[256];
	int fd = -1, e;

	stk_ev_series_stamp(now, st);
	for (int i = 0; i < NAME_TRIES && fd < 0; i++) {
		if (i)
			snprintf(s->partial, sizeof(s->partial), "%s%s-%d%s", PARTIAL_PREFIX, st, i, PARTIAL_SUFFIX);
		else
			snprintf(s->partial, sizeof(s->partial), "%s%s%s", PARTIAL_PREFIX, st, PARTIAL_SUFFIX);
		fd = openat(s->dir_fd, s->partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || fchmod(fd, 0600) || !(s->out = fdopen(fd, "w"))) {
		e = errno;
		if (fd >= 0) {
			close(fd);
			unlinkat(s->dir_fd, s->partial, 0);
		}
		s->partial[0] = '\0';
		if (disk_full(e))
			pause_series(s, now, e);
		else
			failed(s, "%s: cannot make a file there: %s", s->path, strerror(e));
		return -1;
	}
	/* unbuffered: the writer hands over whole pages, and a cut after a full disk leaves nothing behind */
	setvbuf(s->out, NULL, _IONBF, 0);
	if (!(s->w = stk_ev_writer_new(s->out, &opts, why, sizeof(why)))) {
		e = errno;
		fclose(s->out);
		s->out = NULL;
		unlinkat(s->dir_fd, s->partial, 0);
		s->partial[0] = '\0';
		if (disk_full(e))
			pause_series(s, now, e);
		else
			failed(s, "%s: %s", s->path, why);
		return -1;
	}
	memcpy(s->file_lost_of, s->pending_lost_of, sizeof(s->file_lost_of));
	s->file = (struct stk_ev_series_file){ .start = now, .now = now, .lost_full = s->pending_lost,
					       .lost_full_of = s->file_lost_of };
	s->ckpt_bytes = s->ckpt_rows = 0;
	memset(s->since_ckpt_of, 0, sizeof(s->since_ckpt_of));
	if (s->h.opened)
		s->h.opened(s->h.ctx, &s->file);
	checkpoint(s, now);
	if (!s->w)
		return -1;
	/* the losses are in this file's footer now */
	s->pending_lost = 0;
	memset(s->pending_lost_of, 0, sizeof(s->pending_lost_of));
	return 0;
}

/* The current file closed (footer, synced) and named. 0, or -1 (paused, or failed). */
static int close_file(struct stk_ev_series *s, int64_t now)
{
	char why[256], base[NAME_MAX + 1], placed[NAME_MAX + 1];
	int64_t first = stk_ev_writer_first_time(s->w);
	uint64_t rows = stk_ev_writer_rows(s->w);
	int e;

	/* the rest as a row group with its checkpoint first: a failed footer then loses nothing */
	checkpoint(s, now);
	if (!s->w)
		return -1;
	describe(s, now);
	if (stk_ev_writer_close(s->w, why, sizeof(why))) {
		e = errno;
		s->w = NULL;
		s->rows_done += s->ckpt_rows;
		fclose(s->out);
		s->out = NULL;
		/* the file stays unfinished with its checkpoints: made whole on resuming or by the next series */
		if (disk_full(e))
			pause_series(s, now, e);
		else
			failed(s, "%s/%s: %s", s->path, s->partial, why);
		s->partial[0] = '\0';
		return -1;
	}
	s->w = NULL;
	s->rows_done += rows;
	if (fsync(fileno(s->out)) && errno != EINVAL)
		say(s, "%s/%s: syncing: %s", s->path, s->partial, strerror(errno));
	fclose(s->out);
	s->out = NULL;
	stk_ev_series_base_name(first < s->file.start ? first : s->file.start, now, base, sizeof(base));
	if (place(s, s->partial, base, placed, sizeof(placed))) {
		failed(s, "%s/%s: naming it %s.parquet: %s", s->path, s->partial, base, strerror(errno));
		return -1;
	}
	s->partial[0] = '\0';
	s->files++;
	if (s->o.verbose)
		say(s, "%s/%s: %" PRIu64 " events", s->path, placed, rows);
	return 0;
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
static int take_lock(const struct stk_ev_series *s, char *err, size_t err_len)
{
	struct stat st;
	char pid[32] = "";
	ssize_t n;
	int fd = openat(s->dir_fd, LOCK_NAME, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, err_len, "%s/%s: %s", s->path, LOCK_NAME,
			 fd < 0 ? strerror(errno) : "not a regular file of ours: refusing to use it");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if ((n = pread(fd, pid, sizeof(pid) - 1, 0)) > 0)
			pid[strcspn(pid, "\n")] = '\0';
		snprintf(err, err_len, "%s: another stk record writes there (pid %s)", s->path,
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

struct stk_ev_series *stk_ev_series_open(const char *dir, const struct stk_ev_series_opts *opts,
					 const struct stk_ev_series_hooks *hooks, char *err, size_t err_len)
{
	struct stk_ev_series *s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(dir))) {
		snprintf(err, err_len, "out of memory");
		free(s);
		return NULL;
	}
	s->o = *opts;
	s->o.flush_ns = s->o.flush_ns > 0 ? s->o.flush_ns : STK_EV_SERIES_FLUSH_NS;
	s->o.resume_bytes = s->o.resume_bytes ? s->o.resume_bytes : STK_EV_SERIES_RESUME_BYTES;
	s->h = *hooks;
	s->lock_fd = -1;
	/* messages name the directory without its trailing slashes */
	for (size_t n = strlen(s->path); n > 1 && s->path[n - 1] == '/'; n--)
		s->path[n - 1] = '\0';
	if ((s->dir_fd = open_dir(dir, err, err_len)) < 0 || (s->lock_fd = take_lock(s, err, err_len)) < 0) {
		stk_ev_series_free(s);
		return NULL;
	}
	recover_leftovers(s);
	retain(s);
	return s;
}

int stk_ev_series_start(struct stk_ev_series *s, int64_t now, char *err, size_t err_len)
{
	if (open_file(s, now) && s->err[0]) {
		snprintf(err, err_len, "%s", s->err);
		return -1;
	}
	return 0;
}

int stk_ev_series_add(struct stk_ev_series *s, uint16_t kind, const struct stk_ev_row *row)
{
	if (s->err[0])
		return -1;
	if (!s->w) {
		lose(s, kind, 1);
		return 0;
	}
	if (stk_ev_writer_add(s->w, row)) {
		/* a row group with its checkpoint went out with the row, or failed to */
		int e = stk_ev_writer_errno(s->w);

		write_failed(s, s->file.now, e, "writing");
		if (s->err[0])
			return -1;
		lose(s, kind, 1);
		return 0;
	}
	if (kind < STK_EV_SERIES_KINDS)
		s->since_ckpt_of[kind]++;
	note_checkpoint(s);
	return 0;
}

bool stk_ev_series_has_stack(const struct stk_ev_series *s, int64_t id)
{
	/* no file open: none needs the stack's text */
	return !s->w || stk_ev_writer_has_stack(s->w, id);
}

/* Whether the directory's file system has room again. */
static bool room_again(const struct stk_ev_series *s)
{
	struct statvfs fs;

	return fstatvfs(s->dir_fd, &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize >= s->o.resume_bytes;
}

/* Room again: the file the pause left made whole, a new one opened with the losses. */
static void resume(struct stk_ev_series *s, int64_t now)
{
	uint64_t lost = s->pending_lost;

	recover_leftovers(s);
	retain(s);
	if (open_file(s, now))
		return; /* still full (paused again, quietly), or failed */
	s->paused = false;
	say(s, "%s: room again: recording resumed after %.1f s; %" PRIu64 " events lost while the disk was full",
	    s->path, (double)(now - s->paused_at) / 1e9, lost);
}

void stk_ev_series_tick(struct stk_ev_series *s, int64_t now)
{
	if (s->err[0])
		return;
	if (s->paused && !s->w) {
		if (now - s->space_checked >= SPACE_CHECK_NS) {
			s->space_checked = now;
			if (room_again(s))
				resume(s, now);
		}
		return;
	}
	if (!s->w)
		return;
	s->file.now = now;
	if (s->o.rotate_ns > 0 && now - s->file.start >= s->o.rotate_ns) {
		stk_ev_series_rotate(s, now);
	} else if (now - s->last_flush >= s->o.flush_ns) {
		checkpoint(s, now);
		if (s->w && s->o.max_bytes)
			retain(s);
	}
}

void stk_ev_series_rotate(struct stk_ev_series *s, int64_t now)
{
	if (s->err[0] || !s->w)
		return;
	if (close_file(s, now) == 0) {
		retain(s);
		open_file(s, now);
	}
}

int stk_ev_series_close(struct stk_ev_series *s, int64_t now, char *err, size_t err_len)
{
	if (s->w && close_file(s, now) == 0)
		retain(s);
	if (s->err[0]) {
		snprintf(err, err_len, "%s", s->err);
		return -1;
	}
	return 0;
}

void stk_ev_series_free(struct stk_ev_series *s)
{
	if (!s)
		return;
	stk_ev_writer_free(s->w);
	if (s->out)
		fclose(s->out);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	free(s->path);
	free(s);
}

uint64_t stk_ev_series_rows(const struct stk_ev_series *s)
{
	return s->rows_done + (s->w ? stk_ev_writer_rows(s->w) : 0);
}

uint64_t stk_ev_series_lost(const struct stk_ev_series *s)
{
	return s->lost;
}

uint64_t stk_ev_series_lost_of(const struct stk_ev_series *s, uint16_t kind)
{
	return kind < STK_EV_SERIES_KINDS ? s->lost_of[kind] : 0;
}

uint64_t stk_ev_series_files(const struct stk_ev_series *s)
{
	return s->files;
}

const char *stk_ev_series_error(const struct stk_ev_series *s)
{
	return s->err[0] ? s->err : NULL;
}
