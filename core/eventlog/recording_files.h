/*
 * A recording's files, as a reader of it names them: files, directories
 * (their *.parquet, and those of hive partitions DIR/host=H/date=D/ below),
 * globs; expanded in the order given (a directory's by path, a glob's as
 * glob sorts). Of stk record's series (series_names.h) the names say each
 * file's time range: the first event is found opening as few footers as
 * they allow, and a window [from, to) opens only the files reaching into
 * it, as often as the caller asks (stk report once, stk top for each step).
 * Files are opened so that no FIFO or device can make the reader wait.
 * Messages: one line each on stderr, "stk APPLET: ..." (stk_error), with
 * the caller's applet name.
 */
#ifndef STK_RECORDING_FILES_H
#define STK_RECORDING_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stk_ev_file;

/* Arguments one recording takes at most (a directory or a glob takes many files). */
#define STK_RECORDING_MAX_ARGS 64
/* Files one window opens at most (a series left running holds more: a window of it opens few). */
#define STK_RECORDING_MAX_FILES 4096

/* A recording as given (args), then as files (paths): the owner of the paths. */
struct stk_recording {
	const char *applet;                       /* messages start with it (the caller's; outlives r) */
	const char *args[STK_RECORDING_MAX_ARGS]; /* files, directories, globs (the caller's strings) */
	size_t n_args;
	char **paths; /* after stk_recording_expand: in reading order (owned) */
	size_t n, cap;
};

/*
 * The files of a recording one window needs, opened: fds[i] is paths[i]'s.
 * The window owns the fds (stk_recording_window_close closes them); the
 * paths are the recording's, valid while it lives. Readers over the fds
 * (stk_ev_open_many, stk_ev_render_many) are the caller's, closed before
 * the window.
 */
struct stk_recording_window {
	const char *applet;
	const char **paths;
	int *fds;
	size_t n; /* 0: not open */
};

/* An empty recording whose messages start with applet. */
void stk_recording_init(struct stk_recording *r, const char *applet);
/* arg (not copied) as one more argument: 0, or -1 when r has STK_RECORDING_MAX_ARGS already (no message). */
int stk_recording_add_arg(struct stk_recording *r, const char *arg);
/*
 * Each argument into its files: a directory its *.parquet and its
 * partitions' (at least one), a glob (a missing path with * ? or [) its
 * matches (at least one), anything else itself. 0, or -1 after the error.
 */
int stk_recording_expand(struct stk_recording *r);
/*
 * When every file is series-named: the first event (the capture's start
 * when there is none) into *first, opening as few footers as the names
 * allow (in order of the names' first times, until no file left can start
 * earlier). 1 with *first; 0 when some file is not so named (none opened);
 * -1 after the error.
 */
int stk_recording_first_named(const struct stk_recording *r, int64_t *first);
/* The first event (or the start) by the names when they allow, else from every file's footer. 0, or -1 after the error. */
int stk_recording_first(const struct stk_recording *r, int64_t *first);
/* When every file is series-named, the end of the last into *end (every event lies before or at it): true. */
bool stk_recording_end_named(const struct stk_recording *r, int64_t *end);
/*
 * The files that can hold an event in [from, to) opened into w: those whose
 * series names reach into it, and every file not so named; at least one
 * stays (the last, when none reaches). INT64_MIN, INT64_MAX: all of them.
 * 0, or -1 after the error (too many files for one window; one that does
 * not open), w then closed.
 */
int stk_recording_window_open(const struct stk_recording *r, int64_t from, int64_t to,
			      struct stk_recording_window *w);
/* The window's files as one reader (stk_ev_open_many), closed by the caller before w. NULL after the error. */
struct stk_ev_file *stk_recording_window_reader(const struct stk_recording_window *w);
/* Closes the window's fds: w is empty again, and may be opened anew. */
void stk_recording_window_close(struct stk_recording_window *w);
/* Frees r's paths (its windows closed before). */
void stk_recording_free(struct stk_recording *r);

#endif
