/*
 * Writes Parquet files with known rows for tests/integration/test_parquet.sh,
 * which reads them back with DuckDB, and prints what it wrote as
 * "key value" lines for the test to compare.
 *   pq_sample events FILE N [GROUP_ROWS]  N off-CPU-like events (tests/parquet/event_stream.h)
 *   pq_sample edge FILE                   nulls, extremes, empty and long strings, 26 row groups
 *   pq_sample empty FILE                  no rows
 *   pq_sample until-term FILE             events until SIGTERM, then closes the file
 *   pq_sample read FILE                   reads an events file back with stk's reader and
 *                                         prints what "events" prints (but stack0)
 *   pq_sample seeds DIR                   the small files of tests/fuzz/corpus/parquet/
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/parquet/parquet_reader.h"
#include "core/parquet/parquet_writer.h"
#include "tests/parquet/event_stream.h"
#include "tests/parquet/fuzz_schema.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int finish(struct stk_pq_writer *w, FILE *f)
{
	char err[256];

	stk_pq_set_metadata(w, "stk.schema", "1");
	stk_pq_set_metadata(w, "stk.command", "pq_sample");
	if (stk_pq_writer_close(w, err, sizeof(err)) < 0) {
		fprintf(stderr, "pq_sample: %s\n", err);
		fclose(f);
		return 1;
	}
	return fclose(f) == 0 ? 0 : 1;
}

static int events(FILE *f, unsigned long long n, unsigned group_rows)
{
	struct stk_pq_writer_opts o = { .row_group_rows = group_rows };
	static unsigned long long per_stack[EV_STACKS];
	struct event_stream s;
	struct event e;
	char err[256];
	long long sum = 0, min = 0, max = 0, spans = 0, distinct = 0, distinct_len = 0;
	struct stk_pq_writer *w = stk_pq_writer_new(f, stk_event_columns, EV_COLUMNS, &o, err, sizeof(err));

	if (!w || event_stream_init(&s, 1) < 0) {
		fprintf(stderr, "pq_sample: %s\n", w ? "out of memory" : err);
		return 1;
	}
	for (unsigned long long i = 0; i < n; i++) {
		event_stream_next(&s, &e);
		if (event_write(w, &s, &e, false) < 0)
			break;
		sum += e.weight;
		min = i ? min : e.time;
		max = e.time;
		spans += e.span >= 0;
		per_stack[e.stack]++;
	}
	for (size_t i = 0; i < EV_STACKS; i++)
		if (per_stack[i]) {
			distinct++;
			distinct_len += (long long)s.stack_len[i];
		}
	printf("count %llu\nsum_weight %lld\nmin_time %lld\nmax_time %lld\nspans %lld\n", n, sum, min, max, spans);
	printf("distinct_stacks %lld\ndistinct_stack_bytes %lld\nstack0_rows %llu\nstack0 %s\n", distinct,
	       distinct_len, per_stack[0], s.stack_text[0]);
	event_stream_free(&s);
	return finish(w, f);
}

enum { E_ID, E_I32, E_I64, E_TS, E_S, E_R, E_COLUMNS };
static const struct stk_pq_column edge_columns[E_COLUMNS] = {
	{ "id", STK_PQ_INT64, false, false },  { "i32", STK_PQ_INT32, true, false }, { "i64", STK_PQ_INT64, true, false },
	{ "ts", STK_PQ_TIMESTAMP_NS, true, false }, { "s", STK_PQ_STRING, true, false }, { "r", STK_PQ_STRING, false, false },
};

#define EDGE_ROWS 2500
#define LONG_STRING 100000

/* Three hand-made rows, then rows by a rule: row groups of 100 rows, pages of 32. */
static int edge(FILE *f)
{
	struct stk_pq_writer_opts o = { .row_group_rows = 100, .page_rows = 32 };
	static const char text[] = "tab\tnewline\n'quote' h\xc3\xa9llo \xe2\x98\x83";
	char err[256], *big = malloc(LONG_STRING), r[32];
	long long sum = 0, n_i64 = 0, n_s = 0;
	struct stk_pq_writer *w = stk_pq_writer_new(f, edge_columns, E_COLUMNS, &o, err, sizeof(err));

	if (!w || !big) {
		fprintf(stderr, "pq_sample: %s\n", w ? "out of memory" : err);
		return 1;
	}
	memset(big, 'a', LONG_STRING);
	for (int64_t id = 0; id < EDGE_ROWS; id++) {
		stk_pq_set_int64(w, E_ID, id);
		if (id == 0) {
			stk_pq_set_int32(w, E_I32, INT32_MIN);
			stk_pq_set_int64(w, E_I64, INT64_MIN);
			stk_pq_set_int64(w, E_TS, 0);
			stk_pq_set_string(w, E_S, "", 0);
			stk_pq_set_string(w, E_R, text, strlen(text));
		} else if (id == 1) {
			stk_pq_set_int32(w, E_I32, INT32_MAX);
			stk_pq_set_int64(w, E_I64, INT64_MAX);
			stk_pq_set_int64(w, E_TS, 1700000000123456789LL);
			stk_pq_set_string(w, E_R, big, LONG_STRING);
		} else if (id == 2) {
			stk_pq_set_string(w, E_R, "", 0);
		} else {
			/* rows 100-299 (two whole row groups) have no s at all */
			if (id % 3) {
				stk_pq_set_int64(w, E_I64, id * id - 5000);
				sum += id * id - 5000;
				n_i64++;
			}
			if (id % 7 && (id < 100 || id >= 300)) {
				snprintf(r, sizeof(r), "s%lld", (long long)(id % 50));
				stk_pq_set_string(w, E_S, r, strlen(r));
				n_s++;
			}
			stk_pq_set_int32(w, E_I32, (int32_t)(id % 5) - 2);
			stk_pq_set_int64(w, E_TS, 1700000000000000000LL + id * 1000);
			snprintf(r, sizeof(r), "r%lld", (long long)id);
			stk_pq_set_string(w, E_R, r, strlen(r));
		}
		if (stk_pq_end_row(w) < 0)
			break;
	}
	printf("count %d\nrest_sum_i64 %lld\nrest_i64 %lld\nrest_s %lld\nrow_groups %d\n", EDGE_ROWS, sum, n_i64, n_s,
	       EDGE_ROWS / 100);
	free(big);
	return finish(w, f);
}

static int empty(FILE *f)
{
	char err[256];
	struct stk_pq_writer *w = stk_pq_writer_new(f, stk_event_columns, EV_COLUMNS, NULL, err, sizeof(err));

	if (!w) {
		fprintf(stderr, "pq_sample: %s\n", err);
		return 1;
	}
	printf("count 0\n");
	return finish(w, f);
}

/* Events at about 20,000 a second, a row group each 5,000, until SIGTERM. */
static int until_term(FILE *f)
{
	struct stk_pq_writer_opts o = { .row_group_rows = 5000 };
	struct sigaction sa = { .sa_handler = on_term };
	struct timespec nap = { 0, 1000000 };
	struct event_stream s;
	struct event e;
	char err[256];
	unsigned long long n = 0;
	struct stk_pq_writer *w = stk_pq_writer_new(f, stk_event_columns, EV_COLUMNS, &o, err, sizeof(err));

	if (!w || event_stream_init(&s, 2) < 0) {
		fprintf(stderr, "pq_sample: %s\n", w ? "out of memory" : err);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		for (int i = 0; i < 20; i++, n++) {
			event_stream_next(&s, &e);
			event_write(w, &s, &e, false);
		}
		if (n == 20) {
			printf("ready %d\n", (int)getpid());
			fflush(stdout);
		}
		nanosleep(&nap, NULL);
	}
	printf("count %llu\n", n);
	event_stream_free(&s);
	return finish(w, f);
}

static void seed_row(struct stk_pq_writer *w, int i, bool nulls)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "main;run;f%d", i % 5);

	stk_pq_set_int64(w, FZ_TIME, 1767225600000000000LL + i * 1500);
	stk_pq_set_int32(w, FZ_PID, 100 + i % 3);
	stk_pq_set_string(w, FZ_STACK, text, (size_t)n);
	if (nulls)
		return;
	if (i % 3)
		stk_pq_set_int64(w, FZ_WEIGHT, (int64_t)i * 977 - 5000);
	if (i % 4 == 1)
		stk_pq_set_string(w, FZ_SPAN, text + 5, (size_t)n - 5);
	stk_pq_set_int32(w, FZ_CPU, i % 2);
}

/* Small files for the reader's fuzz target: gzip, stored pages, NULL columns, no rows. */
static int seeds(const char *dir)
{
	static const struct {
		const char *name;
		struct stk_pq_writer_opts o;
		int rows;
		bool nulls;
	} files[] = {
		{ "gzip.parquet", { .row_group_rows = 10, .page_rows = 4 }, 24, false },
		{ "stored.parquet", { .row_group_rows = 10, .page_rows = 4, .gzip_level = -1 }, 24, false },
		{ "nulls.parquet", { .gzip_level = -1 }, 9, true },
		{ "empty.parquet", { 0 }, 0, false },
	};
	char path[4096], err[256];

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		FILE *f;
		struct stk_pq_writer *w;

		snprintf(path, sizeof(path), "%s/%s", dir, files[k].name);
		if (!(f = fopen(path, "wb")) ||
		    !(w = stk_pq_writer_new(f, fuzz_columns, FZ_COLUMNS, &files[k].o, err, sizeof(err)))) {
			fprintf(stderr, "pq_sample: %s\n", f ? err : path);
			return 1;
		}
		for (int i = 0; i < files[k].rows; i++) {
			seed_row(w, i, files[k].nulls);
			stk_pq_end_row(w);
		}
		if (finish(w, f))
			return 1;
	}
	return 0;
}

/* The distinct stacks of a file: each group's dictionary ids mapped to texts seen before. */
struct stack_set {
	const char *text[EV_STACKS + 1];
	char *owned[EV_STACKS + 1];
	size_t len[EV_STACKS + 1], n;
};

static int stack_index(struct stack_set *set, const char *s, size_t len)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->len[i] == len && memcmp(set->text[i], s, len) == 0)
			return (int)i;
	if (set->n > EV_STACKS || !(set->owned[set->n] = malloc(len + 1)))
		return -1;
	memcpy(set->owned[set->n], s, len + 1);
	set->text[set->n] = set->owned[set->n];
	set->len[set->n] = len;
	return (int)set->n++;
}

static int read_back(const char *path)
{
	static struct stack_set set;
	static int group_map[1 << 16];
	char err[256];
	long long n = 0, sum = 0, min = INT64_MAX, max = INT64_MIN, spans = 0, bytes = 0;
	FILE *f = fopen(path, "rb");
	struct stk_pq_reader *r = f ? stk_pq_reader_open(fileno(f), stk_event_columns, EV_COLUMNS, err, sizeof(err)) : NULL;
	int rc;

	if (!r) {
		fprintf(stderr, "pq_sample: %s: %s\n", path, f ? err : "cannot open");
		return 2;
	}
	while ((rc = stk_pq_reader_next_group(r)) > 0) {
		memset(group_map, -1, sizeof(group_map));
		while ((rc = stk_pq_reader_next_row(r)) > 0) {
			int64_t t = stk_pq_reader_int64(r, EV_TIME);
			uint32_t id = stk_pq_reader_string_id(r, EV_STACK);
			size_t len;
			const char *s = stk_pq_reader_string(r, EV_STACK, &len);

			n++;
			sum += stk_pq_reader_int64(r, EV_WEIGHT);
			min = t < min ? t : min;
			max = t > max ? t : max;
			spans += !stk_pq_reader_is_null(r, EV_SPAN);
			if (id < (1u << 16) && group_map[id] < 0)
				group_map[id] = stack_index(&set, s, len);
		}
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		fprintf(stderr, "pq_sample: %s: %s\n", path, stk_pq_reader_error(r));
		return 2;
	}
	for (size_t i = 0; i < set.n; i++) {
		bytes += (long long)set.len[i];
		free(set.owned[i]);
	}
	printf("count %lld\nsum_weight %lld\nmin_time %lld\nmax_time %lld\nspans %lld\n", n, sum, n ? min : 0,
	       n ? max : 0, spans);
	printf("distinct_stacks %zu\ndistinct_stack_bytes %lld\nmetadata %s\n", set.n, bytes,
	       stk_pq_reader_metadata(r, "stk.schema") ? stk_pq_reader_metadata(r, "stk.schema") : "(none)");
	stk_pq_reader_close(r);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: pq_sample events|edge|empty|until-term|read|seeds FILE|DIR [N [GROUP_ROWS]]\n");
		return 2;
	}
	if (strcmp(argv[1], "read") == 0)
		return read_back(argv[2]);
	if (strcmp(argv[1], "seeds") == 0)
		return seeds(argv[2]);
	f = fopen(argv[2], "wb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	if (strcmp(argv[1], "events") == 0)
		return events(f, argc > 3 ? strtoull(argv[3], NULL, 10) : 1000,
			      argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 0);
	if (strcmp(argv[1], "edge") == 0)
		return edge(f);
	if (strcmp(argv[1], "empty") == 0)
		return empty(f);
	if (strcmp(argv[1], "until-term") == 0)
		return until_term(f);
	fprintf(stderr, "pq_sample: unknown mode %s\n", argv[1]);
	return 2;
}
