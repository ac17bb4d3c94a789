/* The event log as a series of files in one directory: see event_series.h. */
#include "core/eventlog/event_series.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/eventlog/event_writer.h"
#include "core/eventlog/series_dir.h"
#include "core/eventlog/series_names.h"

/* A paused series looks for free space this often. */
#define DAY_NS (86400LL * 1000000000)
#define SPACE_CHECK_NS 1000000000LL

struct stk_ev_series {
	struct stk_ev_series_opts o;
	struct stk_ev_series_hooks h;
	struct stk_series_dir dir; /* locked while the series lives */
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
	uint64_t checkpoints; /* timed ones, quiet or not, and row groups that went out full */
	char err[PATH_MAX + 256]; /* why the series failed for good; "" while it works */
};

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

/* The series' bounds applied, the file being written counted in the bytes. */
static void retain(struct stk_ev_series *s)
{
	struct stat st;

	stk_series_dir_retain(&s->dir, s->o.max_files, s->o.max_bytes,
			      s->out && fstat(fileno(s->out), &st) == 0 ? (uint64_t)st.st_size : 0);
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
		unlinkat(s->dir.fd, s->partial, 0);
	fclose(s->out);
	s->out = NULL;
}

/* The disk is full: said once, the file cut back, the rows since its last checkpoint lost. */
static void pause_series(struct stk_ev_series *s, int64_t now, int e)
{
	if (!s->paused) {
		stk_series_dir_say(&s->dir, "%s: the disk is full (%s): recording paused; events are counted as lost "
				   "until %" PRIu64 " KiB are free", s->dir.path, strerror(e), s->o.resume_bytes >> 10);
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
	failed(s, "%s/%s: %s: %s", s->dir.path, s->partial, what, e ? strerror(e) : "the writer failed");
	if (s->w)
		abandon(s);
}

/* The rows so far on disk with a checkpoint, and synced. */
static void checkpoint(struct stk_ev_series *s, int64_t now)
{
	int e;

	s->last_flush = now;
	s->checkpoints++; /* a quiet one too: what the rows before needed still goes */
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

/* A new file that could not start, removed: a full disk pauses, anything else ends the series. -1. */
static int not_started(struct stk_ev_series *s, int64_t now, int e, const char *why)
{
	if (s->partial[0])
		unlinkat(s->dir.fd, s->partial, 0);
	s->partial[0] = '\0';
	if (disk_full(e))
		pause_series(s, now, e);
	else
		failed(s, "%s: cannot start a file there: %s", s->dir.path, why ? why : strerror(e));
	return -1;
}

/* A new file at now: a free partial name, 0600, its first checkpoint. 0, or -1 (paused, or failed). */
static int open_file(struct stk_ev_series *s, int64_t now)
{
	const struct stk_pq_writer_opts opts = { .gzip_level = 1, .checkpoints = true };
	char why[256];
	int fd = stk_series_dir_create(&s->dir, now, s->partial, sizeof(s->partial)), e;

	if (fd < 0 || !(s->out = fdopen(fd, "w"))) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return not_started(s, now, e, NULL);
	}
	/* unbuffered: the writer hands over whole pages, and a cut after a full disk leaves nothing behind */
	setvbuf(s->out, NULL, _IONBF, 0);
	if (!(s->w = stk_ev_writer_new(s->out, &opts, why, sizeof(why)))) {
		e = errno;
		fclose(s->out);
		s->out = NULL;
		return not_started(s, now, e, why);
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
			failed(s, "%s/%s: %s", s->dir.path, s->partial, why);
		s->partial[0] = '\0';
		return -1;
	}
	s->w = NULL;
	s->rows_done += rows;
	if (fsync(fileno(s->out)) && errno != EINVAL)
		stk_series_dir_say(&s->dir, "%s/%s: syncing: %s", s->dir.path, s->partial, strerror(errno));
	fclose(s->out);
	s->out = NULL;
	stk_ev_series_base_name(first < s->file.start ? first : s->file.start, now, base, sizeof(base));
	if (stk_series_dir_place(&s->dir, s->partial, base, placed, sizeof(placed))) {
		failed(s, "%s/%s: naming it %s.parquet: %s", s->dir.path, s->partial, base, strerror(errno));
		return -1;
	}
	s->partial[0] = '\0';
	s->files++;
	if (s->o.verbose)
		stk_series_dir_say(&s->dir, "%s/%s: %" PRIu64 " events", s->dir.path, placed, rows);
	return 0;
}

struct stk_ev_series *stk_ev_series_open(const char *dir, const struct stk_ev_series_opts *opts,
					 const struct stk_ev_series_hooks *hooks, char *err, size_t err_len)
{
	struct stk_ev_series *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	s->o = *opts;
	s->o.flush_ns = s->o.flush_ns > 0 ? s->o.flush_ns : STK_EV_SERIES_FLUSH_NS;
	s->o.resume_bytes = s->o.resume_bytes ? s->o.resume_bytes : STK_EV_SERIES_RESUME_BYTES;
	s->h = *hooks;
	if (stk_series_dir_open(&s->dir, dir, s->o.applet, s->o.verbose, s->o.hive, err, err_len)) {
		free(s);
		return NULL;
	}
	stk_series_dir_recover(&s->dir, NULL);
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
	uint64_t before;

	if (s->err[0])
		return -1;
	if (!s->w) {
		lose(s, kind, 1);
		return 0;
	}
	before = stk_ev_writer_checkpointed(s->w);
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
	if (stk_ev_writer_checkpointed(s->w) != before)
		s->checkpoints++; /* a full row group went out with the row */
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

	return fstatvfs(s->dir.fd, &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize >= s->o.resume_bytes;
}

/* Room again: the file the pause left made whole, a new one opened with the losses. */
static void resume(struct stk_ev_series *s, int64_t now)
{
	uint64_t lost = s->pending_lost;

	stk_series_dir_recover(&s->dir, NULL);
	retain(s);
	if (open_file(s, now))
		return; /* still full (paused again, quietly), or failed */
	s->paused = false;
	stk_series_dir_say(&s->dir, "%s: room again: recording resumed after %.1f s; %" PRIu64
			   " events lost while the disk was full", s->dir.path, (double)(now - s->paused_at) / 1e9,
			   lost);
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
	if ((s->o.rotate_ns > 0 && now - s->file.start >= s->o.rotate_ns) ||
	    (s->o.hive && now / DAY_NS != s->file.start / DAY_NS)) { /* a file's rows lie in its date's directory */
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
	stk_series_dir_close(&s->dir);
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

uint64_t stk_ev_series_checkpoints(const struct stk_ev_series *s)
{
	return s->checkpoints;
}

const char *stk_ev_series_error(const struct stk_ev_series *s)
{
	return s->err[0] ? s->err : NULL;
}
