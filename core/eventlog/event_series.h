/*
 * stk record -o DIR/: the event log as a series of files in one directory,
 * for a recorder that runs for weeks. The file being written is
 * .stk-START.parquet.partial (hidden, and not named .parquet: a reader
 * of the directory's .parquet files never sees half a file); it is closed and renamed
 * stk-FIRST-END.parquet every opts.rotate_ns, on stk_ev_series_rotate
 * (SIGHUP) and at the end, FIRST being the earliest time any of its events
 * covers and END its close, UTC to the millisecond, so names sort by time
 * and say which files a window needs (series_names.h). The oldest
 * complete files are removed past opts.max_files or opts.max_bytes.
 *
 * Crash safety: rows go out as row groups, each followed by a checkpoint
 * (core/parquet/checkpoint.h), at least every opts.flush_ns, and the file is
 * synced then; a series opened over a directory first makes whole what a
 * writer left unfinished there (event_recover.h), or, where it cannot,
 * says so and keeps the file aside as .stk-START.parquet.broken.
 *
 * A full disk (ENOSPC, EDQUOT) pauses the series: said once, the file cut
 * back to its last checkpoint, events counted as lost (by kind) until
 * opts.resume_bytes are free again; then the unfinished file is made whole,
 * a new file opens and carries the losses in its footer
 * (STK_EV_META_LOST_FULL and the kinds' losses).
 *
 * The directory: reached with core/base/safe_dir.h (no other user's
 * symlink followed; missing components made 0700), and it must be ours and
 * writable by no one else; files are made 0600 with O_EXCL|O_NOFOLLOW and
 * only regular files of ours with one link are recovered or removed. One
 * series per directory: a second is refused (flock on DIR/.stk-record.lock).
 *
 * Times are the caller's clock (ns since the epoch, the events' clock): it
 * passes `now` to every call, so a test drives the series without waiting.
 * Messages go to stderr, one line each. Not thread-safe.
 */
#ifndef STK_EVENT_SERIES_H
#define STK_EVENT_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_ev_writer;
struct stk_ev_row;

/* Kinds (a row's type) whose losses a series counts apart. */
#define STK_EV_SERIES_KINDS 64
/* Defaults: a row group and checkpoint every minute; 1 MiB free to resume after a full disk. */
#define STK_EV_SERIES_FLUSH_NS (60LL * 1000000000)
#define STK_EV_SERIES_RESUME_BYTES (1u << 20)

struct stk_ev_series_opts {
	int64_t rotate_ns;     /* a new file this long after the current one opened (0: not by time) */
	int64_t flush_ns;      /* rows on disk, synced, at least this often (0: STK_EV_SERIES_FLUSH_NS) */
	uint64_t max_files;    /* complete files kept at most (0: no limit) */
	uint64_t max_bytes;    /* bytes of the series' files, the one being written too (0: no limit) */
	uint64_t resume_bytes; /* free bytes a paused series waits for (0: STK_EV_SERIES_RESUME_BYTES) */
	bool verbose;          /* say each file closed and removed */
	bool hive;             /* files in DIR/date=YYYY-MM-DD/ by their start (UTC), a new one at each midnight */
	const char *applet;    /* messages start with it */
};

/* A file as its owner describes it. */
struct stk_ev_series_file {
	int64_t start;              /* opened */
	int64_t now;                /* the time of this description */
	uint64_t lost_full;         /* events lost while the disk was full, before this file opened */
	const uint64_t *lost_full_of; /* the same by kind (STK_EV_SERIES_KINDS) */
};

struct stk_ev_series_hooks {
	/* A file opened: its own losses count from here. May be NULL. */
	void (*opened)(void *ctx, const struct stk_ev_series_file *f);
	/* The file's footer keys (core/eventlog/event_schema.h) into w: before each checkpoint and its close. */
	void (*describe)(void *ctx, struct stk_ev_writer *w, const struct stk_ev_series_file *f);
	void *ctx;
};

struct stk_ev_series;

/*
 * The series in dir (made when missing): locked, leftovers made whole,
 * retention applied. hooks and opts are copied (opts->applet must outlive
 * the series). NULL with a one-line err: the directory refused, another
 * series there.
 */
struct stk_ev_series *stk_ev_series_open(const char *dir, const struct stk_ev_series_opts *opts,
					 const struct stk_ev_series_hooks *hooks, char *err, size_t err_len);
/*
 * The first file, opened at now (or the series paused: the disk is full).
 * Rows before it are lost (counted). 0, or -1 with err (a file it cannot make).
 */
int stk_ev_series_start(struct stk_ev_series *s, int64_t now, char *err, size_t err_len);
/*
 * One row of kind (its losses counted apart; < STK_EV_SERIES_KINDS). 0,
 * also when paused (the row counted as lost); -1 once the series failed
 * for good (a write error other than a full disk: stk_ev_series_error).
 */
int stk_ev_series_add(struct stk_ev_series *s, uint16_t kind, const struct stk_ev_row *row);
/* Whether the current file's row group has stack id (event_writer.h); true while no file is open (paused). */
bool stk_ev_series_has_stack(const struct stk_ev_series *s, int64_t id);
/* Called often (every 100 ms): rotates, flushes, and while paused looks for free space, as due at now. */
void stk_ev_series_tick(struct stk_ev_series *s, int64_t now);
/* A new file now (SIGHUP); nothing while paused. */
void stk_ev_series_rotate(struct stk_ev_series *s, int64_t now);
/*
 * The current file closed and named (the end of the capture). 0, or -1
 * with err (the series failed, or this close did).
 */
int stk_ev_series_close(struct stk_ev_series *s, int64_t now, char *err, size_t err_len);
/* Frees s; a file still open stays unfinished (the next series there makes it whole). NULL: nothing. */
void stk_ev_series_free(struct stk_ev_series *s);

/* Rows written; events lost to a full disk (all, or of kind); files closed. */
uint64_t stk_ev_series_rows(const struct stk_ev_series *s);
uint64_t stk_ev_series_lost(const struct stk_ev_series *s);
uint64_t stk_ev_series_lost_of(const struct stk_ev_series *s, uint16_t kind);
uint64_t stk_ev_series_files(const struct stk_ev_series *s);
/* Checkpoints written (a row group out, a footer after it; timed, or a full group): the rows before need nothing kept. */
uint64_t stk_ev_series_checkpoints(const struct stk_ev_series *s);
/* Why the series failed, or NULL. */
const char *stk_ev_series_error(const struct stk_ev_series *s);

#endif
