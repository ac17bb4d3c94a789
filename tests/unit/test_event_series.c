/*
 * stk record's series of files without a kernel: Parquet checkpoints and
 * what a crash leaves (the file completed to its last good row group, a
 * torn or corrupted tail dropped, refusals of what is no such file); an
 * event log made whole and read back; a series rotated by time on a clock
 * the test drives (names, spans that tile, rows that add up), retention,
 * a second series refused, an unfinished file recovered by the next
 * series, names parsed back, times and sizes parsed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "event_files.h"
#include "core/base/options.h"
#include "core/eventlog/event_reader.h"
#include "core/eventlog/event_recover.h"
#include "core/eventlog/event_schema.h"
#include "core/eventlog/event_series.h"
#include "core/eventlog/series_names.h"
#include "core/eventlog/event_writer.h"
#include "core/parquet/parquet_reader.h"
#include "core/parquet/parquet_salvage.h"
#include "core/parquet/parquet_writer.h"

#define T0 1700000000000000000LL
#define MS 1000000LL
#define SEC 1000000000LL

static const struct stk_pq_column cols[] = {
	{ "time", STK_PQ_TIMESTAMP_NS, false, false },
	{ "v", STK_PQ_INT64, false, false },
	{ "s", STK_PQ_STRING, true, false },
};
#define N_COLS (sizeof(cols) / sizeof(cols[0]))

/* A writer of cols[0..n) with checkpoints (row groups of 10 rows) to a memfd; f and fd the caller's. */
static struct stk_pq_writer *ckpt_writer_of(int *fd, FILE **f, size_t n)
{
	const struct stk_pq_writer_opts o = { .row_group_rows = 10, .checkpoints = true };
	char err[256];

	*fd = memfd_create("salvage", MFD_CLOEXEC);
	*f = *fd >= 0 ? fdopen(dup(*fd), "w") : NULL;
	if (!*f)
		return NULL;
	setvbuf(*f, NULL, _IONBF, 0);
	return stk_pq_writer_new(*f, cols, n, &o, err, sizeof(err));
}

static struct stk_pq_writer *ckpt_writer(int *fd, FILE **f)
{
	return ckpt_writer_of(fd, f, N_COLS);
}

static void put_row(struct stk_pq_writer *w, int64_t i)
{
	char s[32];

	stk_pq_set_int64(w, 0, T0 + i * MS);
	stk_pq_set_int64(w, 1, i);
	if (i % 3) {
		snprintf(s, sizeof(s), "row %" PRId64, i);
		stk_pq_set_string(w, 2, s, strlen(s));
	}
	stk_pq_end_row(w);
}

/* The rows a reader finds in fd: their v in order into got (at most cap); how many, -1 when it cannot read. */
static int64_t read_values(int fd, int64_t *got, size_t cap)
{
	char err[256];
	struct stk_pq_reader *r = stk_pq_reader_open(fd, cols, N_COLS, err, sizeof(err));
	int64_t n = 0;
	int rc;

	if (!r) {
		printf("  reader: %s\n", err);
		return -1;
	}
	while ((rc = stk_pq_reader_next_group(r)) > 0)
		while ((rc = stk_pq_reader_next_row(r)) > 0) {
			if ((size_t)n < cap)
				got[n] = stk_pq_reader_int64(r, 1);
			n++;
		}
	stk_pq_reader_close(r);
	return rc < 0 ? -1 : n;
}

static void checkpoint_salvage(struct test_ctx *t)
{
	int fd;
	FILE *f;
	struct stk_pq_writer *w = ckpt_writer(&fd, &f);
	struct stk_pq_salvage s;
	int64_t got[64];
	char err[256];
	struct stat st;

	CHECK(t, w != NULL);
	if (!w)
		return;
	stk_pq_set_metadata(w, "k", "v1");
	for (int64_t i = 0; i < 35; i++)
		put_row(w, i); /* three groups of 10 went out with their checkpoints */
	CHECK(t, stk_pq_checkpoint(w) == 0); /* the fourth, of 5 */
	stk_pq_set_metadata(w, "k", "v2");
	CHECK(t, stk_pq_checkpoint(w) == 0); /* the metadata alone */
	uint64_t good = stk_pq_writer_checkpointed(w);
	for (int64_t i = 35; i < 38; i++)
		put_row(w, i); /* never checkpointed: lost with the crash */
	stk_pq_writer_free(w);
	fclose(f);
	/* a row group cut short, and bytes that look like a checkpoint's magic */
	CHECK(t, pwrite(fd, "junk STKC junk STKC", 19, (off_t)good) == 19);
	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) == 0);
	CHECK(t, s.n_groups == 4 && s.rows == 35 && s.checkpoints == 5 && s.end == (int64_t)good);
	CHECK(t, stk_pq_salvage_metadata(&s, "k") && strcmp(stk_pq_salvage_metadata(&s, "k"), "v2") == 0);
	CHECK(t, s.has_range[0] && s.min[0] == T0 && s.max[0] == T0 + 34 * MS && !s.has_range[2]);
	CHECK(t, stk_pq_salvage_write(fd, &s, cols, N_COLS, NULL, 0, err, sizeof(err)) == 0);
	stk_pq_salvage_free(&s);
	CHECK(t, read_values(fd, got, 64) == 35);
	for (int64_t i = 0; i < 35; i++)
		CHECK(t, got[i] == i);
	CHECK(t, fstat(fd, &st) == 0 && st.st_size > (off_t)good);
	close(fd);
}

/* A byte of the last row group flipped, as power lost before its sync leaves it: the group before is the end. */
static void salvage_power_loss(struct test_ctx *t)
{
	int fd;
	FILE *f;
	struct stk_pq_writer *w = ckpt_writer(&fd, &f);
	struct stk_pq_salvage s;
	uint8_t b;
	char err[256];

	CHECK(t, w != NULL);
	if (!w)
		return;
	for (int64_t i = 0; i < 20; i++)
		put_row(w, i);
	uint64_t before = stk_pq_writer_checkpointed(w);
	for (int64_t i = 20; i < 30; i++)
		put_row(w, i);
	stk_pq_writer_free(w);
	fclose(f);
	CHECK(t, pread(fd, &b, 1, (off_t)before + 10) == 1);
	b ^= 0x40;
	CHECK(t, pwrite(fd, &b, 1, (off_t)before + 10) == 1);
	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) == 0);
	CHECK(t, s.n_groups == 2 && s.rows == 20 && s.end == (int64_t)before);
	stk_pq_salvage_free(&s);
	close(fd);
}

static void salvage_refusals(struct test_ctx *t)
{
	const struct stk_pq_writer_opts plain = { .row_group_rows = 10 };
	struct stk_pq_salvage s;
	char err[256];
	uint8_t junk[4096];
	int fd = memfd_create("refuse", MFD_CLOEXEC);

	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) < 0 && strstr(err, "not a Parquet file"));
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	memcpy(junk, "PAR1", 4);
	memcpy(junk + 2000, "STKC", 4);
	CHECK(t, pwrite(fd, junk, sizeof(junk), 0) == (ssize_t)sizeof(junk));
	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) < 0 && strstr(err, "no checkpoint"));
	close(fd);
	/* a file written without checkpoints, cut before its footer: nothing to recover from */
	fd = memfd_create("plain", MFD_CLOEXEC);
	FILE *f = fdopen(dup(fd), "w");
	struct stk_pq_writer *w = f ? stk_pq_writer_new(f, cols, N_COLS, &plain, err, sizeof(err)) : NULL;
	CHECK(t, w != NULL);
	for (int64_t i = 0; w && i < 25; i++)
		put_row(w, i);
	stk_pq_writer_free(w);
	if (f)
		fclose(f);
	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) < 0 && strstr(err, "no checkpoint"));
	/* the schema of another file: its checkpoints are not this one's */
	close(fd);
	fd = -1;
	f = NULL;
	w = ckpt_writer(&fd, &f);
	for (int64_t i = 0; w && i < 10; i++)
		put_row(w, i);
	stk_pq_writer_free(w);
	if (f)
		fclose(f);
	CHECK(t, stk_pq_salvage_read(fd, cols, 2, &s, err, sizeof(err)) < 0);
	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) == 0 && s.rows == 10);
	stk_pq_salvage_free(&s);
	close(fd);
}

static const char cpu[] = "cpu", count[] = "count";

static struct stk_ev_row row_at(int64_t time)
{
	return (struct stk_ev_row){ .time = time, .pid = 7, .tid = 7, .cpu = 1, .comm = "worker", .event = cpu,
				    .weight = 1, .unit = count };
}

static void recover_event_log(struct test_ctx *t)
{
	const struct stk_pq_writer_opts o = { .gzip_level = 1, .row_group_rows = 16, .checkpoints = true };
	int fd = memfd_create("events", MFD_CLOEXEC);
	FILE *f = fdopen(dup(fd), "w");
	struct stk_ev_writer *w;
	struct stk_ev_recovered r;
	char err[256];

	CHECK(t, f != NULL);
	if (!f)
		return;
	setvbuf(f, NULL, _IONBF, 0);
	w = stk_ev_writer_new(f, &o, err, sizeof(err));
	CHECK(t, w != NULL);
	if (!w)
		return;
	ev_required_meta(w, "record", T0, 0);
	for (int i = 0; i < 40; i++) { /* two groups of 16 with their checkpoints */
		struct stk_ev_row row = row_at(T0 + 5 * MS + i * MS);
		stk_ev_writer_add(w, &row);
	}
	ev_required_meta(w, "record", T0, 2 * SEC);
	CHECK(t, stk_ev_writer_checkpoint(w) == 0); /* and the 8 after them */
	for (int i = 40; i < 45; i++) {
		struct stk_ev_row row = row_at(T0 + i * MS);
		stk_ev_writer_add(w, &row);
	}
	stk_ev_writer_free(w);
	fclose(f);
	CHECK(t, stk_ev_recover(fd, &r, err, sizeof(err)) == 0);
	CHECK(t, !r.was_whole && r.rows == 40 && r.groups == 3 && r.first == T0 + 5 * MS);
	CHECK(t, r.start == T0 && r.end == T0 + 2 * SEC);
	struct stk_ev_file *ev = stk_ev_open(fd, err, sizeof(err));
	CHECK(t, ev != NULL);
	if (ev) {
		const struct stk_ev_meta *m = stk_ev_meta(ev);
		CHECK(t, m->events == 40 && m->first == T0 + 5 * MS && m->duration == 2 * SEC);
		stk_ev_close(ev);
	}
	struct stk_pq_reader *pr = stk_pq_reader_open(fd, stk_ev_columns, STK_EV_COLS, err, sizeof(err));
	CHECK(t, pr && stk_pq_reader_metadata(pr, STK_EV_META_RECOVERED) &&
		 strstr(stk_pq_reader_metadata(pr, STK_EV_META_RECOVERED), "3 row groups kept"));
	stk_pq_reader_close(pr);
	/* whole now: a second recovery changes nothing */
	CHECK(t, stk_ev_recover(fd, &r, err, sizeof(err)) == 0 && r.was_whole && r.rows == 40);
	close(fd);
}

/* The hooks of a test series: every file described with its own span. */
static void describe(void *ctx, struct stk_ev_writer *w, const struct stk_ev_series_file *f)
{
	char num[32];

	(void)ctx;
	ev_required_meta(w, "record", f->start, f->now - f->start);
	/* as the session's sink says them: the losses to a full disk before the file */
	snprintf(num, sizeof(num), "%" PRIu64, f->lost_full);
	stk_ev_writer_meta(w, STK_EV_META_LOST_FULL, num);
}

static const struct stk_ev_series_hooks hooks = { .describe = describe };

/* The names in dir that start with prefix, sorted, into names (cap); how many. */
static size_t names_in(const char *dir, const char *prefix, char names[][96], size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n < cap)
			snprintf(names[n++], 96, "%.95s", e->d_name);
	if (d)
		closedir(d);
	qsort(names, n, 96, (int (*)(const void *, const void *))strcmp);
	return n;
}

/* A series over n rows from t0, one every 100 ms, on the test's clock; closed 100 ms after the last. */
static void series_rows(struct test_ctx *t, const char *dir, const struct stk_ev_series_opts *o, int64_t t0, int n)
{
	char err[512];
	struct stk_ev_series *s = stk_ev_series_open(dir, o, &hooks, err, sizeof(err));

	CHECK(t, s != NULL);
	if (!s) {
		printf("  %s\n", err);
		return;
	}
	CHECK(t, stk_ev_series_start(s, t0, err, sizeof(err)) == 0);
	for (int i = 0; i < n; i++) {
		struct stk_ev_row row = row_at(t0 + i * 100 * MS);

		stk_ev_series_tick(s, row.time);
		CHECK(t, stk_ev_series_add(s, 0, &row) == 0);
	}
	CHECK(t, stk_ev_series_close(s, t0 + n * 100 * MS, err, sizeof(err)) == 0);
	CHECK(t, stk_ev_series_rows(s) == (uint64_t)n && stk_ev_series_lost(s) == 0);
	stk_ev_series_free(s);
}

/* 7 s of rows from T0. */
static void run_series(struct test_ctx *t, const char *dir, const struct stk_ev_series_opts *o)
{
	series_rows(t, dir, o, T0, 70);
}

static void series_rotation(struct test_ctx *t)
{
	const struct stk_ev_series_opts o = { .rotate_ns = 2 * SEC, .flush_ns = SEC, .applet = "test" };
	char scratch[256], dir[300], path[512], names[8][96];
	int64_t end = T0, rows = 0;
	int w;
	struct stat st;

	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/rec/", scratch);
	run_series(t, dir, &o);
	size_t n = names_in(dir, "stk-", names, 8);
	CHECK(t, n == 4);
	CHECK(t, names_in(dir, ".stk-2", names + 4, 4) == 0);
	CHECK_STR(t, names[0], "stk-20231114T221320.000Z-20231114T221322.000Z.parquet");
	CHECK(t, stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
	for (size_t i = 0; i < n; i++) {
		int64_t lo, hi;
		char err[256];

		w = snprintf(path, sizeof(path), "%.300s%.95s", dir, names[i]);
		CHECK(t, w > 0 && stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
		CHECK(t, stk_ev_series_name_range(names[i], &lo, &hi));
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stk_ev_file *f = fd >= 0 ? stk_ev_open(fd, err, sizeof(err)) : NULL;
		CHECK(t, f != NULL);
		if (f) {
			const struct stk_ev_meta *m = stk_ev_meta(f);

			/* each span starts where the last ended; its rows inside the name's range */
			CHECK(t, m->start == end && m->duration == (i < 3 ? 2 * SEC : SEC));
			CHECK(t, m->events == (i < 3 ? 20u : 10u) && m->first >= lo && m->first + 100 * MS <= hi + MS);
			end = m->start + m->duration;
			rows += (int64_t)m->events;
			stk_ev_close(f);
		}
		if (fd >= 0)
			close(fd);
	}
	CHECK(t, rows == 70 && end == T0 + 7 * SEC);
	remove_tree(scratch);
}

static void series_retention(struct test_ctx *t)
{
	struct stk_ev_series_opts o = { .rotate_ns = SEC, .max_files = 2, .applet = "test" };
	char scratch[256], dir[300], names[8][96];

	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/files", scratch);
	run_series(t, dir, &o);
	CHECK(t, names_in(dir, "stk-", names, 8) == 2);
	CHECK_STR(t, names[1], "stk-20231114T221326.000Z-20231114T221327.000Z.parquet");
	CHECK_STR(t, names[0], "stk-20231114T221325.000Z-20231114T221326.000Z.parquet");
	/* a size only the newest file fits: it stays, the others go */
	remove_tree(scratch);
	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/bytes", scratch);
	o = (struct stk_ev_series_opts){ .rotate_ns = SEC, .max_bytes = 100, .applet = "test" };
	run_series(t, dir, &o);
	CHECK(t, names_in(dir, "stk-", names, 8) == 1);
	CHECK_STR(t, names[0], "stk-20231114T221326.000Z-20231114T221327.000Z.parquet");
	remove_tree(scratch);
}

/* Hive: 4 s of rows from two seconds before a UTC midnight, one file in each date's directory. */
static void hive_series(struct test_ctx *t, const char *dir, uint64_t max_files)
{
	const struct stk_ev_series_opts o = { .hive = true, .max_files = max_files, .applet = "test" };

	series_rows(t, dir, &o, 1700006398LL * SEC /* 2023-11-14T23:59:58Z */, 40);
}

static void series_hive_layout(struct test_ctx *t)
{
	char scratch[256], dir[300], day[400], names[4][96];
	struct stat st;

	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/fleet/host=h1", scratch);
	hive_series(t, dir, 0);
	/* a file a day, rotated at midnight, each in its date's directory (0700) */
	snprintf(day, sizeof(day), "%s/date=2023-11-14", dir);
	CHECK(t, names_in(day, "stk-", names, 4) == 1);
	CHECK_STR(t, names[0], "stk-20231114T235958.000Z-20231115T000000.000Z.parquet");
	CHECK(t, stat(day, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	snprintf(day, sizeof(day), "%s/date=2023-11-15", dir);
	CHECK(t, names_in(day, "stk-", names, 4) == 1);
	CHECK_STR(t, names[0], "stk-20231115T000000.000Z-20231115T000002.000Z.parquet");
	CHECK(t, names_in(dir, "stk-", names, 4) == 0);
	/* retention over every date: only the newest file stays, the emptied date's directory goes */
	hive_series(t, dir, 1);
	CHECK(t, names_in(dir, "date=", names, 4) == 1);
	CHECK_STR(t, names[0], "date=2023-11-15");
	/* a leftover unfinished file below a date is made whole by the next series there */
	snprintf(day, sizeof(day), "%s/date=2023-11-15/.stk-20231115T000003.000Z.parquet.partial", dir);
	int fd = open(day, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(t, fd >= 0);
	if (fd >= 0)
		close(fd);
	hive_series(t, dir, 0);
	CHECK(t, stat(day, &st) != 0);
	remove_tree(scratch);
}

static void series_refusals(struct test_ctx *t)
{
	const struct stk_ev_series_opts o = { .applet = "test" };
	char scratch[256], dir[300], err[512];
	struct stk_ev_series *a, *b;

	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/one", scratch);
	a = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, a != NULL);
	b = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, b == NULL && strstr(err, "another stk record writes there (pid "));
	stk_ev_series_free(a);
	/* the lock goes with the series */
	b = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, b != NULL);
	stk_ev_series_free(b);
	CHECK(t, chmod(dir, 0777) == 0);
	CHECK(t, stk_ev_series_open(dir, &o, &hooks, err, sizeof(err)) == NULL && strstr(err, "others may write to"));
	remove_tree(scratch);
}

static void series_recovers_leftovers(struct test_ctx *t)
{
	const struct stk_ev_series_opts o = { .flush_ns = SEC, .applet = "test" };
	char scratch[256], dir[300], err[512], names[8][96], path[512];
	struct stk_ev_series *s;

	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/crash", scratch);
	s = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, s && stk_ev_series_start(s, T0, err, sizeof(err)) == 0);
	if (!s)
		return;
	for (int i = 0; i < 25; i++) {
		struct stk_ev_row row = row_at(T0 + i * 100 * MS);

		stk_ev_series_tick(s, row.time);
		stk_ev_series_add(s, 0, &row);
	}
	/* killed: 20 rows flushed at 1 s and 2 s, 5 not */
	stk_ev_series_free(s);
	CHECK(t, names_in(dir, ".stk-2", names, 8) == 1 && names_in(dir, "stk-", names + 1, 7) == 0);
	snprintf(path, sizeof(path), "%.300s/.stk-20200101T000000.000Z.parquet.partial", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(t, fd >= 0 && write(fd, "PAR1 not much more", 18) == 18);
	if (fd >= 0)
		close(fd);
	fflush(stdout);
	s = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, s != NULL);
	stk_ev_series_free(s);
	CHECK(t, names_in(dir, "stk-", names, 8) == 1);
	CHECK_STR(t, names[0], "stk-20231114T221320.000Z-20231114T221322.000Z.parquet");
	CHECK(t, names_in(dir, ".stk-20200101T000000.000Z.parquet.broken", names + 1, 7) == 1);
	CHECK(t, names_in(dir, ".stk-2", names + 2, 6) == 1); /* the broken one alone: no partial left */
	snprintf(path, sizeof(path), "%.300s/%.95s", dir, names[0]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stk_ev_file *f = fd >= 0 ? stk_ev_open(fd, err, sizeof(err)) : NULL;
	CHECK(t, f && stk_ev_meta(f)->events == 20);
	stk_ev_close(f);
	if (fd >= 0)
		close(fd);
	remove_tree(scratch);
}

/* Fills the file system of dir: a file of zeros until no block is left. */
static void fill(const char *path)
{
	static const char zeros[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	while (fd >= 0 && write(fd, zeros, sizeof(zeros)) > 0)
		;
	while (fd >= 0 && write(fd, zeros, 1) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/*
 * In a child, in a mount namespace of its own over a 256 KiB tmpfs: a
 * series whose disk fills, that pauses, counts losses and resumes. The
 * number of failed checks is its exit status.
 */
static int full_disk_child(const char *mnt)
{
	const struct stk_ev_series_opts o = { .flush_ns = SEC, .resume_bytes = 64 << 10, .applet = "test" };
	struct test_ctx c = { .name = "full_disk" }, *t = &c;
	char dir[300], filler[300], err[512], names[8][96], path[512];
	struct stk_ev_series *s;
	int64_t now = T0;

	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("stk-unit", mnt, "tmpfs", 0, "size=256k"))
		return 100;
	snprintf(dir, sizeof(dir), "%s/rec", mnt);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	s = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, s && stk_ev_series_start(s, now, err, sizeof(err)) == 0);
	if (!s)
		return 1;
	for (int i = 0; i < 10; i++, now += 100 * MS) { /* 10 rows flushed at 1 s */
		struct stk_ev_row row = row_at(now);
		stk_ev_series_add(s, 0, &row);
	}
	stk_ev_series_tick(s, now);
	fill(filler);
	for (int i = 0; i < 5; i++, now += 100 * MS) { /* 5 rows more: the flush at 2 s finds the disk full */
		struct stk_ev_row row = row_at(now);
		stk_ev_series_add(s, 1, &row);
	}
	now = T0 + 2 * SEC;
	stk_ev_series_tick(s, now);
	CHECK(t, stk_ev_series_lost(s) == 5 && stk_ev_series_lost_of(s, 1) == 5);
	for (int i = 0; i < 7; i++, now += 100 * MS) { /* paused: lost as they come */
		struct stk_ev_row row = row_at(now);
		CHECK(t, stk_ev_series_add(s, 0, &row) == 0);
		stk_ev_series_tick(s, now); /* still full: no resuming */
	}
	CHECK(t, stk_ev_series_lost(s) == 12 && stk_ev_series_lost_of(s, 0) == 7 && stk_ev_series_rows(s) == 10);
	unlink(filler);
	now = T0 + 4 * SEC;
	stk_ev_series_tick(s, now); /* room again: the cut file made whole, a new one */
	for (int i = 0; i < 3; i++, now += 100 * MS) {
		struct stk_ev_row row = row_at(now);
		stk_ev_series_add(s, 0, &row);
	}
	CHECK(t, stk_ev_series_close(s, now, err, sizeof(err)) == 0);
	CHECK(t, stk_ev_series_rows(s) == 13 && stk_ev_series_lost(s) == 12);
	stk_ev_series_free(s);
	/* the file the pause cut (its 10 rows), and the one after it carrying the 12 losses */
	CHECK(t, names_in(dir, "stk-", names, 8) == 2 && names_in(dir, ".stk-2", names + 2, 6) == 0);
	const uint64_t rows[2] = { 10, 3 }, lost[2] = { 0, 12 };
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%.300s/%.95s", dir, names[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		struct stk_pq_reader *r =
			fd >= 0 ? stk_pq_reader_open(fd, stk_ev_columns, STK_EV_COLS, err, sizeof(err)) : NULL;
		const char *full = r ? stk_pq_reader_metadata(r, STK_EV_META_LOST_FULL) : NULL;

		CHECK(t, r && stk_pq_reader_rows(r) == (int64_t)rows[i]);
		CHECK(t, full && strtoull(full, NULL, 10) == lost[i]);
		stk_pq_reader_close(r);
		if (fd >= 0)
			close(fd);
	}
	umount(mnt);
	return c.failures;
}

static void series_full_disk(struct test_ctx *t)
{
	char scratch[256];
	int status = -1;
	pid_t child;

	if (geteuid() != 0) {
		printf("  not root: no tmpfs of its own to fill (tests/integration/test_rotate.sh covers it)\n");
		return;
	}
	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	fflush(stdout);
	fflush(stderr);
	child = fork();
	if (child == 0) {
		int failures = full_disk_child(scratch);

		fflush(stdout);
		_exit(failures);
	}
	CHECK(t, child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status));
	if (WIFEXITED(status) && WEXITSTATUS(status))
		printf("  the child found %d failures%s\n", WEXITSTATUS(status),
		       WEXITSTATUS(status) == 100 ? " (no mount namespace or tmpfs)" : "");
	CHECK(t, WIFEXITED(status) && WEXITSTATUS(status) == 0);
	remove_tree(scratch);
}

static void series_names(struct test_ctx *t)
{
	int64_t a, b;

	CHECK(t, stk_ev_series_name_range("stk-20231114T221320.000Z-20231114T221322.500Z.parquet", &a, &b) &&
		 a == T0 && b == T0 + 2500 * MS);
	CHECK(t, stk_ev_series_name_range("stk-20231114T221320.000Z-20231114T221322.500Z-3.parquet", &a, &b));
	const char *bad[] = {
		"stk-20231114T221320.000Z-20231114T221322.500Z.parquet.partial",
		".stk-20231114T221320.000Z.parquet.partial",
		"stk-20231114T221322.000Z-20231114T221320.000Z.parquet", /* ends before it starts */
		"stk-20231114T221320.000Z-20231114T221322.500Z-0.parquet",
		"stk-20231114T221320.000Z-20231114X221322.500Z.parquet",
		"stk-20231114T221320.000Z.parquet",
		"run.parquet",
		"stk-20231114T221360.000Z-20231114T221322.500Z.parquet!",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(t, !stk_ev_series_name_range(bad[i], &a, &b));
	/* a name made is the name read: its first rounded down, its end up, to the millisecond */
	char base[96], name[128], st[STK_EV_STAMP_LEN + 1];
	stk_ev_series_base_name(T0 + 1234567, T0 + 5 * SEC + 1, base, sizeof(base));
	snprintf(name, sizeof(name), "%s.parquet", base);
	CHECK_STR(t, name, "stk-20231114T221320.001Z-20231114T221325.001Z.parquet");
	CHECK(t, stk_ev_series_name_range(name, &a, &b) && a <= T0 + 1234567 && b >= T0 + 5 * SEC + 1);
	stk_ev_series_stamp(T0 + 999 * MS, st);
	CHECK_STR(t, st, "20231114T221320.999Z");
	/* a window: the files whose range meets it, and every file whose name does not say */
	const char *f = "stk-20231114T221320.000Z-20231114T221322.000Z.parquet";
	CHECK(t, stk_ev_series_reaches(f, T0 + SEC, T0 + SEC + 1));
	CHECK(t, stk_ev_series_reaches(f, T0 - SEC, T0 + 1)); /* the window ends inside it */
	CHECK(t, stk_ev_series_reaches(f, T0 + 2 * SEC, T0 + 3 * SEC)); /* its end is inside the window */
	CHECK(t, !stk_ev_series_reaches(f, T0 + 2 * SEC + 1, T0 + 3 * SEC));
	CHECK(t, !stk_ev_series_reaches(f, T0 - SEC, T0));
	CHECK(t, stk_ev_series_reaches("run.parquet", T0, T0 + 1));
}

static void durations_and_sizes(struct test_ctx *t)
{
	int64_t ns;
	uint64_t bytes;

	CHECK(t, stk_parse_duration("10m", &ns) == 0 && ns == 600 * SEC);
	CHECK(t, stk_parse_duration("1h", &ns) == 0 && ns == 3600 * SEC);
	CHECK(t, stk_parse_duration("2", &ns) == 0 && ns == 2 * SEC);
	CHECK(t, stk_parse_duration("500ms", &ns) == 0 && ns == 500 * MS);
	CHECK(t, stk_parse_duration("1.5d", &ns) == 0 && ns == 36 * 3600 * SEC);
	CHECK(t, stk_parse_duration("0s", &ns) < 0 && stk_parse_duration("-1m", &ns) < 0 &&
		 stk_parse_duration("1 m", &ns) < 0 && stk_parse_duration("1y", &ns) < 0 &&
		 stk_parse_duration("", &ns) < 0);
	CHECK(t, stk_parse_size("512", &bytes) == 0 && bytes == 512);
	CHECK(t, stk_parse_size("100M", &bytes) == 0 && bytes == 100u << 20);
	CHECK(t, stk_parse_size("2GiB", &bytes) == 0 && bytes == 2ull << 30);
	CHECK(t, stk_parse_size("1.5k", &bytes) == 0 && bytes == 1536);
	CHECK(t, stk_parse_size("lots", &bytes) < 0 && stk_parse_size("0", &bytes) < 0 &&
		 stk_parse_size("5P", &bytes) < 0);
}

/* A file of an older writer, without a column added since: recovered with its own columns, read with NULLs there. */
static void salvage_older_schema(struct test_ctx *t)
{
	const struct stk_pq_column added[] = { cols[0], cols[1], { "s", STK_PQ_STRING, true, true } };
	int fd;
	FILE *f;
	struct stk_pq_writer *w = ckpt_writer_of(&fd, &f, 2);
	struct stk_pq_salvage s;
	char err[256];

	CHECK(t, w != NULL);
	if (!w)
		return;
	for (int64_t i = 0; i < 25; i++) {
		stk_pq_set_int64(w, 0, T0 + i * MS);
		stk_pq_set_int64(w, 1, i);
		stk_pq_end_row(w);
	}
	stk_pq_writer_free(w);
	fclose(f);
	/* "s" not added: the file is not one of these columns */
	CHECK(t, stk_pq_salvage_read(fd, cols, N_COLS, &s, err, sizeof(err)) < 0);
	CHECK(t, stk_pq_salvage_read(fd, added, 3, &s, err, sizeof(err)) == 0);
	CHECK(t, s.rows == 20 && s.n_present == 2 && s.present[0] && s.present[1] && !s.present[2]);
	CHECK(t, s.has_range[1] && s.min[1] == 0 && s.max[1] == 19 && !s.has_range[2]);
	CHECK(t, stk_pq_salvage_write(fd, &s, added, 3, NULL, 0, err, sizeof(err)) == 0);
	stk_pq_salvage_free(&s);
	struct stk_pq_reader *r = stk_pq_reader_open(fd, added, 3, err, sizeof(err));
	int64_t n = 0, sum = 0;
	CHECK(t, r != NULL);
	while (r && stk_pq_reader_next_group(r) > 0)
		while (stk_pq_reader_next_row(r) > 0) {
			sum += stk_pq_reader_int64(r, 1);
			n += stk_pq_reader_is_null(r, 2);
		}
	CHECK(t, n == 20 && sum == 190);
	stk_pq_reader_close(r);
	close(fd);
}

/* Each flush interval is a checkpoint counted, a quiet one too (a sink forgets at each), a row not. */
static void series_checkpoints_counted(struct test_ctx *t)
{
	const struct stk_ev_series_opts o = { .rotate_ns = 10 * SEC, .flush_ns = SEC, .applet = "test" };
	char scratch[256], dir[300], err[512];
	struct stk_ev_row row = row_at(T0 + 100 * MS);
	struct stk_ev_series *s;
	uint64_t base;

	CHECK(t, make_scratch_dir(scratch, sizeof(scratch)) == 0);
	snprintf(dir, sizeof(dir), "%s/rec/", scratch);
	s = stk_ev_series_open(dir, &o, &hooks, err, sizeof(err));
	CHECK(t, s != NULL);
	if (!s)
		return;
	CHECK(t, stk_ev_series_start(s, T0, err, sizeof(err)) == 0);
	stk_ev_series_tick(s, T0 + 100 * MS); /* a new file's first tick checkpoints it at once */
	base = stk_ev_series_checkpoints(s);
	CHECK(t, stk_ev_series_add(s, 0, &row) == 0);
	CHECK(t, stk_ev_series_checkpoints(s) == base);
	stk_ev_series_tick(s, T0 + 1100 * MS);
	CHECK(t, stk_ev_series_checkpoints(s) == base + 1);
	stk_ev_series_tick(s, T0 + 1500 * MS); /* not due yet */
	CHECK(t, stk_ev_series_checkpoints(s) == base + 1);
	stk_ev_series_tick(s, T0 + 2200 * MS); /* no rows since: counted all the same */
	CHECK(t, stk_ev_series_checkpoints(s) == base + 2);
	stk_ev_series_tick(s, T0 + 10100 * MS); /* the new file */
	CHECK(t, stk_ev_series_files(s) == 1 && stk_ev_series_checkpoints(s) >= base + 2);
	CHECK(t, stk_ev_series_close(s, T0 + 10200 * MS, err, sizeof(err)) == 0);
	stk_ev_series_free(s);
	remove_tree(scratch);
}

const struct test_case event_series_tests[] = {
	{ "salvage_older_schema", salvage_older_schema },
	{ "checkpoint_salvage", checkpoint_salvage },
	{ "salvage_power_loss", salvage_power_loss },
	{ "salvage_refusals", salvage_refusals },
	{ "recover_event_log", recover_event_log },
	{ "series_rotation", series_rotation },
	{ "series_checkpoints_counted", series_checkpoints_counted },
	{ "series_retention", series_retention },
	{ "series_hive_layout", series_hive_layout },
	{ "series_refusals", series_refusals },
	{ "series_recovers_leftovers", series_recovers_leftovers },
	{ "series_full_disk", series_full_disk },
	{ "series_names", series_names },
	{ "durations_and_sizes", durations_and_sizes },
	{ NULL, NULL },
};
