/*
 * A recording's files (core/eventlog/recording_files.h) in a scratch
 * directory: arguments expanded in order (a directory's files by path, its
 * partitions', a glob's), refusals said on one line; the first event found
 * by the series' names without opening the files named later (they are not
 * event logs here), or from every footer; the files a window keeps, as
 * often as asked; the bound on a window's files.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "event_files.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_writer.h"
#include "core/eventlog/recording_files.h"
#include "core/eventlog/series_names.h"

#define T0 1700000000000000000LL
#define MS 1000000LL
#define SEC 1000000000LL

/* An empty file at dir/name (made, with its directories, by the caller). */
static bool touch(const char *dir, const char *name)
{
	char path[1200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* An event log at path: a capture started at start, an event at each of times[0..n). */
static bool write_log(const char *path, int64_t start, const int64_t *times, size_t n)
{
	const struct stk_pq_writer_opts o = STK_EV_WRITER_OPTS;
	char err[256];
	FILE *f = fopen(path, "w");
	struct stk_ev_writer *w = f ? stk_ev_writer_new(f, &o, err, sizeof(err)) : NULL;
	bool ok = w != NULL;

	if (!w) {
		if (f)
			fclose(f);
		return false;
	}
	ev_required_meta(w, "test", start, 1000000000);
	for (size_t i = 0; i < n; i++) {
		const struct stk_ev_row row = { .time = times[i], .pid = 1, .tid = 1, .comm = "c", .event = "cpu",
						.weight = 1, .unit = "count" };

		ok &= stk_ev_writer_add(w, &row) == 0;
	}
	ok &= stk_ev_writer_close(w, err, sizeof(err)) == 0;
	return (fclose(f) == 0) & ok;
}

/* dir/stk-FIRST-END.parquet's path into buf, as stk record names it. */
static const char *series_path(const char *dir, int64_t first, int64_t end, char *buf, size_t len)
{
	char base[64];

	stk_ev_series_base_name(first, end, base, sizeof(base));
	snprintf(buf, len, "%s/%s.parquet", dir, base);
	return buf;
}

/* Whether path ends with tail. */
static bool ends_with(const char *path, const char *tail)
{
	size_t n = strlen(path), m = strlen(tail);

	return n >= m && strcmp(path + n - m, tail) == 0;
}

/* What fn's messages on stderr were (the first line, into buf), fn's return in *rc. */
static const char *stderr_of(const char *dir, int (*fn)(struct stk_recording *), struct stk_recording *r, int *rc,
			     char *buf, size_t len)
{
	char path[512];
	int saved = dup(STDERR_FILENO), fd;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stderr.txt", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	*rc = fn(r);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	buf[0] = '\0';
	if ((f = fopen(path, "r"))) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	unlink(path);
	return buf;
}

static int expand_and_open_all(struct stk_recording *r)
{
	struct stk_recording_window w;
	int rc = stk_recording_expand(r) ? -1 : stk_recording_window_open(r, INT64_MIN, INT64_MAX, &w);

	if (rc == 0)
		stk_recording_window_close(&w);
	return rc;
}

/* Arguments in the order given; a directory's *.parquet by path, its partitions' among them; a glob's sorted. */
static void expands_in_order(struct test_ctx *t)
{
	char dir[256], sub[512], msg[512], arg[3][512];
	struct stk_recording r;
	int rc;

	if (make_scratch_dir(dir, sizeof(dir))) {
		CHECK(t, !"scratch dir");
		return;
	}
	snprintf(sub, sizeof(sub), "%s/d", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/d/host=h", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/d/host=h/date=2030-01-01", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/d/other", dir); /* not a partition: not entered */
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/g", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/empty", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/d", dir);
	CHECK(t, touch(sub, "b.parquet") && touch(sub, "a.parquet") && touch(sub, "notes.txt") &&
		 touch(sub, ".hidden.parquet") && touch(sub, ".stk-x.parquet.partial") && touch(sub, "other/o.parquet") &&
		 touch(sub, "host=h/date=2030-01-01/c.parquet") && touch(sub, "host=h/z.parquet"));
	snprintf(sub, sizeof(sub), "%s/g", dir);
	CHECK(t, touch(sub, "y.parquet") && touch(sub, "x.parquet") && touch(sub, "x.txt"));

	stk_recording_init(&r, "unit");
	snprintf(arg[0], sizeof(arg[0]), "%s/g/*.parquet", dir);
	snprintf(arg[1], sizeof(arg[1]), "%s/d", dir);
	snprintf(arg[2], sizeof(arg[2]), "%s/g/x.txt", dir);
	for (size_t i = 0; i < 3; i++)
		CHECK(t, stk_recording_add_arg(&r, arg[i]) == 0);
	CHECK(t, stk_recording_expand(&r) == 0);
	const char *want[] = { "/g/x.parquet", "/g/y.parquet", "/d/a.parquet", "/d/b.parquet",
			       "/d/host=h/date=2030-01-01/c.parquet", "/d/host=h/z.parquet", "/g/x.txt" };
	CHECK(t, r.n == sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r.n && i < sizeof(want) / sizeof(want[0]); i++)
		if (!ends_with(r.paths[i], want[i]) || strncmp(r.paths[i], dir, strlen(dir)) != 0) {
			printf("  path %zu: %s, want ...%s\n", i, r.paths[i], want[i]);
			t->failures++;
		}
	/* every file the window of all: in that order, opened */
	struct stk_recording_window w;
	CHECK(t, stk_recording_window_open(&r, INT64_MIN, INT64_MAX, &w) == 0 && w.n == r.n);
	for (size_t i = 0; i < w.n; i++)
		CHECK(t, w.paths[i] == r.paths[i] && w.fds[i] >= 0);
	stk_recording_window_close(&w);
	CHECK(t, w.n == 0 && w.fds == NULL && w.paths == NULL);
	stk_recording_free(&r);

	/* refusals: one line each, with the caller's applet */
	stk_recording_init(&r, "unit");
	snprintf(arg[0], sizeof(arg[0]), "%s/empty", dir);
	stk_recording_add_arg(&r, arg[0]);
	stderr_of(dir, stk_recording_expand, &r, &rc, msg, sizeof(msg));
	CHECK(t, rc == -1 && strncmp(msg, "stk unit: ", 10) == 0 &&
		 ends_with(msg, "/empty: no *.parquet in this directory (nor in host=*/date=*/ below it)"));
	stk_recording_free(&r);
	stk_recording_init(&r, "unit");
	snprintf(arg[0], sizeof(arg[0]), "%s/g/*.none", dir);
	stk_recording_add_arg(&r, arg[0]);
	stderr_of(dir, stk_recording_expand, &r, &rc, msg, sizeof(msg));
	CHECK(t, rc == -1 && strncmp(msg, "stk unit: ", 10) == 0 && ends_with(msg, "/g/*.none: no file matches"));
	stk_recording_free(&r);
	/* a missing file is itself: said when the window opens it */
	stk_recording_init(&r, "unit");
	snprintf(arg[0], sizeof(arg[0]), "%s/missing.parquet", dir);
	stk_recording_add_arg(&r, arg[0]);
	stderr_of(dir, expand_and_open_all, &r, &rc, msg, sizeof(msg));
	CHECK(t, rc == -1 && r.n == 1 && strncmp(msg, "stk unit: ", 10) == 0 &&
		 ends_with(msg, "/missing.parquet: No such file or directory"));
	stk_recording_free(&r);
	/* at most STK_RECORDING_MAX_ARGS arguments */
	stk_recording_init(&r, "unit");
	for (size_t i = 0; i < STK_RECORDING_MAX_ARGS; i++)
		CHECK(t, stk_recording_add_arg(&r, arg[0]) == 0);
	CHECK(t, stk_recording_add_arg(&r, arg[0]) == -1 && r.n_args == STK_RECORDING_MAX_ARGS);
	stk_recording_free(&r);
	remove_tree(dir);
}

/*
 * A series of three files of a second each: the first event by the names
 * (the later two are not event logs: never opened), the end by the names,
 * the files each window keeps, asked again and again.
 */
static void windows_of_a_series(struct test_ctx *t)
{
	char dir[256], path[3][512];
	const int64_t times[] = { T0 + 250 * MS, T0 + 600 * MS };
	struct stk_recording r;
	struct stk_recording_window w;
	int64_t first = 0, end = 0;

	if (make_scratch_dir(dir, sizeof(dir))) {
		CHECK(t, !"scratch dir");
		return;
	}
	for (int i = 0; i < 3; i++)
		series_path(dir, T0 + i * SEC, T0 + (i + 1) * SEC, path[i], sizeof(path[i]));
	CHECK(t, write_log(path[0], T0, times, 2));
	CHECK(t, touch(dir, strrchr(path[1], '/') + 1) && touch(dir, strrchr(path[2], '/') + 1));
	stk_recording_init(&r, "unit");
	CHECK(t, stk_recording_add_arg(&r, dir) == 0 && stk_recording_expand(&r) == 0 && r.n == 3);
	CHECK(t, stk_recording_first_named(&r, &first) == 1 && first == T0 + 250 * MS);
	first = 0;
	CHECK(t, stk_recording_first(&r, &first) == 0 && first == T0 + 250 * MS);
	CHECK(t, stk_recording_end_named(&r, &end) && end == T0 + 3 * SEC);

	/* [from, to) and the files it keeps: each step opens only what it needs */
	const struct {
		int64_t from, to;
		size_t n, at;
	} steps[] = {
		{ T0 + 100 * MS, T0 + 900 * MS, 1, 0 },
		{ T0 + 1200 * MS, T0 + 1500 * MS, 1, 1 },
		{ T0 + 500 * MS, T0 + 1500 * MS, 2, 0 },
		{ T0 + SEC, T0 + 2 * SEC, 2, 0 },       /* the first file's end is the window's start: it may hold it */
		{ T0 + 2500 * MS, INT64_MAX, 1, 2 },
		{ T0 + 10 * SEC, T0 + 11 * SEC, 1, 2 }, /* past the end: the last stays */
		{ T0 - 5 * SEC, T0 - 4 * SEC, 1, 2 },   /* before the start: likewise */
		{ INT64_MIN, INT64_MAX, 3, 0 },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		CHECK(t, stk_recording_window_open(&r, steps[i].from, steps[i].to, &w) == 0);
		bool ok = w.n == steps[i].n;
		for (size_t k = 0; ok && k < w.n; k++)
			ok = strcmp(w.paths[k], path[steps[i].at + k]) == 0 && w.fds[k] >= 0;
		if (!ok) {
			printf("  step %zu: %zu files from %s\n", i, w.n, w.n ? w.paths[0] : "-");
			t->failures++;
		}
		stk_recording_window_close(&w);
	}
	/* the window's reader: the first file's events */
	CHECK(t, stk_recording_window_open(&r, T0, T0 + 500 * MS, &w) == 0 && w.n == 1);
	struct stk_ev_file *f = stk_recording_window_reader(&w);
	CHECK(t, f && stk_ev_meta(f)->events == 2 && stk_ev_meta(f)->first == T0 + 250 * MS);
	stk_ev_close(f);
	stk_recording_window_close(&w);
	stk_recording_free(&r);

	/* a file not so named: no first by the names, none opened; the footers say it, and no end */
	CHECK(t, write_log(path[1], T0 + SEC, (const int64_t[]){ T0 + 1100 * MS }, 1));
	CHECK(t, write_log(path[2], T0 + 2 * SEC, NULL, 0));
	char other[512];
	snprintf(other, sizeof(other), "%s/other.parquet", dir);
	CHECK(t, write_log(other, T0 - SEC, NULL, 0));
	stk_recording_init(&r, "unit");
	CHECK(t, stk_recording_add_arg(&r, dir) == 0 && stk_recording_expand(&r) == 0 && r.n == 4);
	first = 0;
	CHECK(t, stk_recording_first_named(&r, &first) == 0 && first == 0);
	CHECK(t, stk_recording_first(&r, &first) == 0 && first == T0 + 250 * MS);
	CHECK(t, !stk_recording_end_named(&r, &end));
	/* a window keeps it: its name does not say what it holds */
	CHECK(t, stk_recording_window_open(&r, T0 + 1200 * MS, T0 + 1300 * MS, &w) == 0 && w.n == 2);
	CHECK(t, w.n == 2 && ends_with(w.paths[0], "/other.parquet") && strcmp(w.paths[1], path[1]) == 0);
	stk_recording_window_close(&w);
	stk_recording_free(&r);
	/* a recording of one file with no events: its first is its start */
	stk_recording_init(&r, "unit");
	CHECK(t, stk_recording_add_arg(&r, path[2]) == 0 && stk_recording_expand(&r) == 0);
	CHECK(t, stk_recording_first_named(&r, &first) == 1 && first == T0 + 2 * SEC);
	stk_recording_free(&r);
	remove_tree(dir);
}

/* More files than a window opens: refused on one line naming the window's first, a narrower window opens. */
static void window_bound(struct test_ctx *t)
{
	char dir[256], path[512], msg[512];
	struct stk_recording r;
	struct stk_recording_window w;
	int rc;

	if (make_scratch_dir(dir, sizeof(dir))) {
		CHECK(t, !"scratch dir");
		return;
	}
	for (int64_t i = 0; i <= STK_RECORDING_MAX_FILES; i++)
		CHECK(t, touch(dir, strrchr(series_path(dir, T0 + i * SEC, T0 + (i + 1) * SEC, path, sizeof(path)), '/') + 1));
	stk_recording_init(&r, "unit");
	CHECK(t, stk_recording_add_arg(&r, dir) == 0);
	stderr_of(dir, expand_and_open_all, &r, &rc, msg, sizeof(msg));
	series_path(dir, T0, T0 + SEC, path, sizeof(path));
	CHECK(t, rc == -1 && strncmp(msg, "stk unit: ", 10) == 0 && strstr(msg, path) &&
		 strstr(msg, " and the others: 4097 files in one recording, at most 4096 (with a series'"));
	CHECK(t, stk_recording_window_open(&r, T0 + 10 * SEC + 1, T0 + 10 * SEC + 2, &w) == 0 && w.n == 1);
	series_path(dir, T0 + 10 * SEC, T0 + 11 * SEC, path, sizeof(path));
	CHECK(t, w.n == 1 && strcmp(w.paths[0], path) == 0);
	stk_recording_window_close(&w);
	stk_recording_free(&r);
	remove_tree(dir);
}

const struct test_case recording_files_tests[] = {
	{ "recording_files: arguments expanded in order, refusals on one line", expands_in_order },
	{ "recording_files: a series' first event and end by its names, the files each window keeps", windows_of_a_series },
	{ "recording_files: a window opens at most STK_RECORDING_MAX_FILES", window_bound },
	{ NULL, NULL },
};
