/*
 * The directory of stk record's series (event_series.h): reached without
 * following another user's links (core/base/safe_dir.h; missing components
 * made 0700), ours and writable by no one else, locked for one series
 * (flock on DIR/.stk-record.lock, which holds the pid for the message of a
 * second); its files made (0600, O_EXCL|O_NOFOLLOW), named
 * (series_names.h), made whole after a crash (event_recover.h) or kept
 * aside, and removed past a bound. Only regular files of ours with one link
 * are recovered or removed. Messages: one line each on stderr, "APPLET:
 * DIR/NAME: ...". In the hive layout the files lie one level down, in
 * date=YYYY-MM-DD/ directories of ours that the series makes (DIR is ours
 * alone: no one else can put a link there); one emptied is removed.
 * Internal to core/eventlog/.
 */
#ifndef STK_SERIES_DIR_H
#define STK_SERIES_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_series_dir {
	int fd;              /* the directory (O_RDONLY): every file is reached from it */
	int lock_fd;
	char *path;          /* as given, without trailing slashes: for messages (owned) */
	const char *applet;  /* messages start with it (the caller's; outlives the directory) */
	bool verbose;        /* say each file removed */
	bool hive;           /* files in date=YYYY-MM-DD/ subdirectories (UTC): names below are "date=.../NAME" */
};

/* The directory at path, checked and locked, into d. 0, or -1 with a one-line err (d closed). */
int stk_series_dir_open(struct stk_series_dir *d, const char *path, const char *applet, bool verbose, bool hive,
			char *err, size_t err_len);
/* Releases the lock and the descriptors. */
void stk_series_dir_close(struct stk_series_dir *d);
/* A line on stderr: "APPLET: " and the message. */
void stk_series_dir_say(const struct stk_series_dir *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A new unfinished file (.stk-STAMP.parquet.partial, now's stamp, a free
 * name; hive: in now's date=YYYY-MM-DD/, made 0700 when missing), mode
 * 0600: its fd, its name in name; -1 (errno) and name empty.
 */
int stk_series_dir_create(struct stk_series_dir *d, int64_t now, char *name, size_t len);
/*
 * from renamed to the first free of base + ".parquet", base + "-N.parquet"
 * in from's directory (into placed, with from's date=.../ in hive), and the
 * directory synced. 0, or -1 (errno).
 */
int stk_series_dir_place(struct stk_series_dir *d, const char *from, const char *base, char *placed, size_t len);
/* Every unfinished file but except (NULL: none) made whole and named, or kept aside; oldest first, a line each. */
void stk_series_dir_recover(struct stk_series_dir *d, const char *except);
/*
 * The oldest complete files (by their close) removed while more than
 * max_files of them, or more than max_bytes with current (the file being
 * written) counted too, are there (0: no bound); the newest stays even when
 * it alone is larger.
 */
void stk_series_dir_retain(struct stk_series_dir *d, uint64_t max_files, uint64_t max_bytes, uint64_t current);

#endif
