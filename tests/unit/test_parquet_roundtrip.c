/*
 * stk's Parquet writer then its reader: every value of generated rows comes
 * back (nulls, empty and long strings, extremes, whole row groups of nulls,
 * a column that is always NULL, many row groups and pages, no rows at all),
 * and the writer's errors are reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "parquet_files.h"
#include "core/parquet/parquet_reader.h"

enum { C_T, C_A, C_B, C_S, C_N, C_E, N_COLS };
static const struct stk_pq_column cols[N_COLS] = {
	{ "t", STK_PQ_TIMESTAMP_NS, false, false }, { "a", STK_PQ_INT32, false, false }, { "b", STK_PQ_INT64, true, false },
	{ "s", STK_PQ_STRING, false, false },      { "n", STK_PQ_STRING, true, false }, { "e", STK_PQ_INT32, true, false },
};

#define T0 1767225600000000000LL
#define LONG_LEN 100000

struct row {
	int64_t t, b;
	int32_t a;
	bool b_null, n_null;
	char s[2048], n[32];
	size_t s_len, n_len;
	const char *n_ptr;
};

static char long_text[LONG_LEN];

/* Row i of the table, the same for the writer and the checks. */
static void expect_row(size_t i, struct row *r)
{
	size_t k = i % 37;

	r->t = T0 + (int64_t)i * 1000 + (int64_t)(i % 3);
	r->a = i == 5 ? INT32_MIN : i == 6 ? INT32_MAX : (int32_t)(i % 40) - 20;
	r->b_null = i % 4 == 0;
	r->b = i == 7 ? INT64_MIN : i == 9 ? INT64_MAX : (int64_t)i * (int64_t)i * 1000003 - 7;
	/* stack-like strings keyed by k, the first one empty */
	r->s_len = k * 50;
	for (size_t j = 0; j < r->s_len; j++)
		r->s[j] = (char)('a' + (j * 7 + k) % 26);
	/* rows 2000-2999 (two row groups of 500) have no n at all */
	r->n_null = i % 5 == 0 || (i >= 2000 && i < 3000);
	r->n_len = (size_t)snprintf(r->n, sizeof(r->n), "name-%zu", i % 11);
	r->n_ptr = r->n;
	if (i == 3) {
		r->n_ptr = long_text;
		r->n_len = LONG_LEN;
	}
}

static void write_row(struct stk_pq_writer *w, size_t i)
{
	struct row r;

	expect_row(i, &r);
	stk_pq_set_int64(w, C_T, r.t);
	stk_pq_set_int32(w, C_A, 12345); /* replaced below: the last value set wins */
	stk_pq_set_int32(w, C_A, r.a);
	if (!r.b_null)
		stk_pq_set_int64(w, C_B, r.b);
	stk_pq_set_string_keyed(w, C_S, i % 37, r.s, r.s_len);
	if (!r.n_null)
		stk_pq_set_string(w, C_N, r.n_ptr, r.n_len);
}

/* Reads everything back and compares; the number of mismatches. */
static int check_rows(struct test_ctx *t, const struct pq_bytes *file, size_t n, size_t group_rows)
{
	char err[256];
	int fd = pq_memfd(file->data, file->len), bad = 0, rc;
	struct stk_pq_reader *r = fd >= 0 ? stk_pq_reader_open(fd, cols, N_COLS, err, sizeof(err)) : NULL;
	size_t i = 0, groups = 0;

	CHECK(t, r != NULL);
	if (!r) {
		printf("  open: %s\n", err);
		close(fd);
		return 1;
	}
	CHECK(t, stk_pq_reader_rows(r) == (int64_t)n);
	CHECK_STR(t, stk_pq_reader_metadata(r, "stk.schema"), "1");
	CHECK_STR(t, stk_pq_reader_metadata(r, "stk.command"), "unit test");
	CHECK(t, stk_pq_reader_metadata(r, "nothing") == NULL);
	while ((rc = stk_pq_reader_next_group(r)) > 0) {
		int64_t lo, hi, first = T0 + (int64_t)i * 1000;

		groups++;
		CHECK(t, stk_pq_reader_group_range(r, C_T, &lo, &hi) && lo >= first && lo <= first + 2 &&
			 hi >= lo && hi < first + stk_pq_reader_group_rows(r) * 1000);
		CHECK(t, !stk_pq_reader_group_range(r, C_S, &lo, &hi));
		while ((rc = stk_pq_reader_next_row(r)) > 0) {
			struct row e;
			size_t len;
			const char *s;

			expect_row(i++, &e);
			bad += stk_pq_reader_int64(r, C_T) != e.t || stk_pq_reader_int32(r, C_A) != e.a;
			bad += stk_pq_reader_is_null(r, C_B) != e.b_null || (!e.b_null && stk_pq_reader_int64(r, C_B) != e.b);
			s = stk_pq_reader_string(r, C_S, &len);
			bad += !s || len != e.s_len || memcmp(s, e.s, len) != 0 || s[len] != '\0';
			s = stk_pq_reader_string(r, C_N, &len);
			bad += e.n_null ? s != NULL || stk_pq_reader_string_id(r, C_N) != UINT32_MAX :
					  !s || len != e.n_len || memcmp(s, e.n_ptr, len) != 0;
			bad += !stk_pq_reader_is_null(r, C_E) || stk_pq_reader_int32(r, C_E) != 0;
		}
		if (rc < 0)
			break;
	}
	if (rc < 0)
		printf("  read: %s\n", stk_pq_reader_error(r));
	CHECK(t, rc == 0 && i == n);
	CHECK(t, groups == (n + group_rows - 1) / group_rows);
	CHECK(t, bad == 0);
	stk_pq_reader_close(r);
	close(fd);
	return bad;
}

static void round_trip(struct test_ctx *t, size_t n, const struct stk_pq_writer_opts *o)
{
	struct pq_bytes file;
	char err[256];

	memset(long_text, 'x', sizeof(long_text));
	CHECK(t, pq_write(cols, N_COLS, o, write_row, n, &file, err, sizeof(err)) == 0);
	if (!file.data) {
		printf("  write: %s\n", err);
		return;
	}
	check_rows(t, &file, n, o && o->row_group_rows ? o->row_group_rows : STK_PQ_DEFAULT_GROUP_ROWS);
	free(file.data);
}

static void many_groups_and_pages(struct test_ctx *t)
{
	struct stk_pq_writer_opts o = { .row_group_rows = 500, .page_rows = 64, .gzip_level = 1 };

	round_trip(t, 7000, &o);
}

static void one_group(struct test_ctx *t)
{
	round_trip(t, 7000, NULL);
}

static void stored_pages(struct test_ctx *t)
{
	struct stk_pq_writer_opts o = { .row_group_rows = 1000, .gzip_level = -1 };

	round_trip(t, 3000, &o);
}

static void few_rows(struct test_ctx *t)
{
	struct stk_pq_writer_opts o = { .row_group_rows = 3 };

	round_trip(t, 0, NULL);
	round_trip(t, 1, NULL);
	round_trip(t, 10, &o);
}

static void groups_end_at_the_byte_bound(struct test_ctx *t)
{
	/* a 100 KB string in row 3 and 64 KB row groups: the bound, not the row count, ends them */
	struct stk_pq_writer_opts o = { .row_group_bytes = 64 << 10 };
	struct pq_bytes file;
	char err[256];
	int fd;
	struct stk_pq_reader *r;

	memset(long_text, 'y', sizeof(long_text));
	CHECK(t, pq_write(cols, N_COLS, &o, write_row, 60000, &file, err, sizeof(err)) == 0);
	fd = file.data ? pq_memfd(file.data, file.len) : -1;
	r = fd >= 0 ? stk_pq_reader_open(fd, cols, N_COLS, err, sizeof(err)) : NULL;
	CHECK(t, r && stk_pq_reader_groups(r) > 2 && stk_pq_reader_rows(r) == 60000);
	/* the first ends right after the long string's row */
	CHECK(t, r && stk_pq_reader_next_group(r) == 1 && stk_pq_reader_group_rows(r) == 4);
	stk_pq_reader_close(r);
	if (fd >= 0)
		close(fd);
	free(file.data);
}

static void flush_writes_a_group(struct test_ctx *t)
{
	FILE *f = tmpfile();
	char err[256];
	struct stk_pq_writer *w = f ? stk_pq_writer_new(f, cols, N_COLS, NULL, err, sizeof(err)) : NULL;
	struct stk_pq_reader *r;

	CHECK(t, w != NULL);
	if (!w)
		return;
	for (size_t i = 0; i < 30; i++) {
		write_row(w, i);
		CHECK(t, stk_pq_end_row(w) == 0);
		if (i == 9 || i == 10)
			CHECK(t, stk_pq_flush(w) == 0);
	}
	CHECK(t, stk_pq_flush(w) == 0 && stk_pq_flush(w) == 0);
	CHECK(t, stk_pq_writer_rows(w) == 30 && stk_pq_writer_bytes(w) > 4);
	CHECK(t, stk_pq_writer_close(w, err, sizeof(err)) == 0);
	r = stk_pq_reader_open(fileno(f), cols, N_COLS, err, sizeof(err));
	/* rows 0-9, 10, 11-29 */
	CHECK(t, r && stk_pq_reader_groups(r) == 3);
	stk_pq_reader_close(r);
	fclose(f);
}

static struct stk_pq_writer *writer_for_errors(FILE **f)
{
	char err[256];

	*f = tmpfile();
	return *f ? stk_pq_writer_new(*f, cols, N_COLS, NULL, err, sizeof(err)) : NULL;
}

/* Ends a row after set(), then checks that close reports `want`. */
static void expect_error(struct test_ctx *t, void (*set)(struct stk_pq_writer *), const char *want)
{
	FILE *f;
	struct stk_pq_writer *w = writer_for_errors(&f);
	char err[256] = "";

	CHECK(t, w != NULL);
	if (!w)
		return;
	set(w);
	CHECK(t, stk_pq_end_row(w) == -1);
	CHECK(t, stk_pq_writer_close(w, err, sizeof(err)) == -1);
	if (!strstr(err, want)) {
		printf("  got \"%s\", want \"%s\"\n", err, want);
		t->failures++;
	}
	fclose(f);
}

static void set_wrong_type(struct stk_pq_writer *w)
{
	write_row(w, 1);
	stk_pq_set_string(w, C_A, "x", 1);
}

static void leave_required_unset(struct stk_pq_writer *w)
{
	stk_pq_set_int64(w, C_T, 1);
}

static void key_two_lengths(struct stk_pq_writer *w)
{
	write_row(w, 1);
	stk_pq_end_row(w);
	write_row(w, 2);
	stk_pq_set_string_keyed(w, C_S, 1, "different", 9);
}

static void set_no_such_column(struct stk_pq_writer *w)
{
	write_row(w, 1);
	stk_pq_set_int64(w, N_COLS, 1);
}

static void writer_errors(struct test_ctx *t)
{
	const struct stk_pq_column twice[] = { { "x", STK_PQ_INT32, false, false }, { "x", STK_PQ_INT64, false, false } };
	struct stk_pq_writer_opts bad = { .gzip_level = 10 };
	char err[256];
	FILE *f = fopen("/dev/full", "w");
	struct stk_pq_writer *w;

	expect_error(t, set_wrong_type, "column a is INT32, not STRING");
	expect_error(t, leave_required_unset, "required column a has no value");
	expect_error(t, key_two_lengths, "key 1 names strings of different lengths");
	expect_error(t, set_no_such_column, "no column 6");
	CHECK(t, stk_pq_writer_new(stdout, twice, 2, NULL, err, sizeof(err)) == NULL && strstr(err, "given twice"));
	CHECK(t, stk_pq_writer_new(stdout, cols, 0, NULL, err, sizeof(err)) == NULL);
	CHECK(t, stk_pq_writer_new(stdout, cols, N_COLS, &bad, err, sizeof(err)) == NULL);
	CHECK(t, stk_pq_writer_close(NULL, err, sizeof(err)) == -1);
	/* a full disk: the error comes at the latest when close flushes */
	w = f ? stk_pq_writer_new(f, cols, N_COLS, NULL, err, sizeof(err)) : NULL;
	CHECK(t, w != NULL);
	if (w) {
		write_row(w, 1);
		stk_pq_end_row(w);
		CHECK(t, stk_pq_writer_close(w, err, sizeof(err)) == -1 && strstr(err, "No space left"));
	}
	if (f)
		fclose(f);
}

const struct test_case parquet_roundtrip_tests[] = {
	{ "parquet_round_trip_many_groups_and_pages", many_groups_and_pages },
	{ "parquet_round_trip_one_group", one_group },
	{ "parquet_round_trip_few_rows", few_rows },
	{ "parquet_round_trip_stored_pages", stored_pages },
	{ "parquet_groups_end_at_the_byte_bound", groups_end_at_the_byte_bound },
	{ "parquet_flush_writes_a_group", flush_writes_a_group },
	{ "parquet_writer_errors", writer_errors },
	{ NULL, NULL },
};
