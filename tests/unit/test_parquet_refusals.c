/*
 * What the Parquet reader refuses, with a reason and without crashing: a
 * small file cut at every length, each of its bytes changed, bad magic, an
 * empty file, something not a file, schemas that are not the expected one,
 * and footers rewritten to claim another codec, sizes beyond the file or
 * rows that do not add up.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "parquet_files.h"
#include "core/parquet/footer.h"
#include "core/parquet/parquet_reader.h"

enum { C_T, C_PID, C_STACK, C_SPAN, N_COLS };
static const struct stk_pq_column cols[N_COLS] = {
	{ "time", STK_PQ_TIMESTAMP_NS, false, false }, { "pid", STK_PQ_INT32, false, false },
	{ "stack", STK_PQ_STRING, false, false },      { "span", STK_PQ_STRING, true, false },
};

static void small_row(struct stk_pq_writer *w, size_t i)
{
	char stack[64];
	int n = snprintf(stack, sizeof(stack), "main;work;fn%zu", i % 4);

	stk_pq_set_int64(w, C_T, 1000 + (int64_t)i);
	stk_pq_set_int32(w, C_PID, (int32_t)(100 + i % 3));
	stk_pq_set_string(w, C_STACK, stack, (size_t)n);
	if (i % 2)
		stk_pq_set_string(w, C_SPAN, "s", 1);
}

/* A file of 20 rows in 3 row groups. */
static int small_file(struct pq_bytes *file)
{
	struct stk_pq_writer_opts o = { .row_group_rows = 8, .page_rows = 5 };
	char err[256];

	return pq_write(cols, N_COLS, &o, small_row, 20, file, err, sizeof(err));
}

/*
 * Opens [data, data + len) and reads every row: 1 when all of it reads,
 * 0 when refused (the reason in err, one line, not empty).
 */
static int read_all(const uint8_t *data, size_t len, const struct stk_pq_column *c, size_t n, char *err,
		    size_t err_len)
{
	int fd = pq_memfd(data, len), rc = -1;
	struct stk_pq_reader *r = fd >= 0 ? stk_pq_reader_open(fd, c, n, err, err_len) : NULL;

	if (r) {
		while ((rc = stk_pq_reader_next_group(r)) > 0) {
			while ((rc = stk_pq_reader_next_row(r)) > 0) {
				size_t l;

				stk_pq_reader_string(r, C_STACK, &l);
			}
			if (rc < 0)
				break;
		}
		if (rc < 0)
			snprintf(err, err_len, "%s", stk_pq_reader_error(r));
		stk_pq_reader_close(r);
	}
	if (fd >= 0)
		close(fd);
	return rc == 0 ? 1 : 0;
}

static int one_line(const char *err)
{
	return err[0] && !strchr(err, '\n');
}

/* The small file cut at every length (all refused), then each byte changed two ways (no crash). */
static void cut_or_changed(struct test_ctx *t)
{
	struct pq_bytes file;
	char err[256];
	int cut_refused = 0, changed_refused = 0;

	CHECK(t, small_file(&file) == 0);
	if (!file.data)
		return;
	CHECK(t, read_all(file.data, file.len, cols, N_COLS, err, sizeof(err)) == 1);
	for (size_t len = 0; len < file.len; len++) {
		err[0] = '\0';
		cut_refused += read_all(file.data, len, cols, N_COLS, err, sizeof(err)) == 0 && one_line(err);
	}
	CHECK(t, cut_refused == (int)file.len);
	CHECK(t, read_all(file.data, 0, cols, N_COLS, err, sizeof(err)) == 0 && strcmp(err, "an empty file") == 0);
	CHECK(t, read_all(file.data, file.len - 1, cols, N_COLS, err, sizeof(err)) == 0 && strstr(err, "truncated"));
	for (size_t i = 0; i < file.len; i++)
		for (int flip = 0; flip < 2; flip++) {
			uint8_t keep = file.data[i];

			file.data[i] = flip ? (uint8_t)~keep : (uint8_t)(keep + 1);
			err[0] = '\0';
			if (read_all(file.data, file.len, cols, N_COLS, err, sizeof(err)) == 0) {
				changed_refused++;
				CHECK(t, one_line(err));
			}
			file.data[i] = keep;
		}
	CHECK(t, changed_refused > 0);
	free(file.data);
}

static void not_parquet(struct test_ctx *t)
{
	static const uint8_t text[] = "time,pid,stack\n1,2,main\n";
	char err[256];
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	CHECK(t, read_all(text, sizeof(text) - 1, cols, N_COLS, err, sizeof(err)) == 0 && strstr(err, "no PAR1"));
	CHECK(t, read_all((const uint8_t *)"PAR1", 4, cols, N_COLS, err, sizeof(err)) == 0 && strstr(err, "no PAR1"));
	CHECK(t, stk_pq_reader_open(fd, cols, N_COLS, err, sizeof(err)) == NULL && strstr(err, "not a regular file"));
	if (fd >= 0)
		close(fd);
}

static void foreign_schemas(struct test_ctx *t)
{
	const struct stk_pq_column missing[] = { { "weight", STK_PQ_INT64, false, false } };
	const struct stk_pq_column retyped[] = { { "pid", STK_PQ_INT64, false, false } };
	const struct stk_pq_column required[] = { { "span", STK_PQ_STRING, false, false } };
	const struct stk_pq_column subset[] = { { "stack", STK_PQ_STRING, true, false }, { "time", STK_PQ_TIMESTAMP_NS, true, false } };
	const struct stk_pq_column plain_int[] = { { "time", STK_PQ_INT64, false, false } };
	struct pq_bytes file;
	char err[256];

	CHECK(t, small_file(&file) == 0);
	if (!file.data)
		return;
	CHECK(t, read_all(file.data, file.len, missing, 1, err, sizeof(err)) == 0 && strstr(err, "no column weight"));
	CHECK(t, read_all(file.data, file.len, retyped, 1, err, sizeof(err)) == 0 && strstr(err, "pid is not INT64"));
	CHECK(t, read_all(file.data, file.len, required, 1, err, sizeof(err)) == 0 && strstr(err, "may be NULL"));
	CHECK(t, read_all(file.data, file.len, plain_int, 1, err, sizeof(err)) == 0 && strstr(err, "time is not INT64"));
	/* fewer columns, in another order, nullable where the file has values: fine */
	CHECK(t, read_all(file.data, file.len, subset, 2, err, sizeof(err)) == 1);
	free(file.data);
}

/* The file with its footer replaced by one re-encoded after mutate() changed it. */
static int rewrite_footer(const struct pq_bytes *in, struct pq_bytes *out, void (*mutate)(struct stk_pq_footer *))
{
	uint32_t len = (uint32_t)in->data[in->len - 8] | (uint32_t)in->data[in->len - 7] << 8 |
		       (uint32_t)in->data[in->len - 6] << 16 | (uint32_t)in->data[in->len - 5] << 24;
	size_t data_len = in->len - 8 - len;
	struct stk_pq_footer f;
	struct stk_buf b = { 0 };
	const char *why;
	int rc = -1;

	if (stk_pq_footer_decode(in->data + data_len, len, &f, &why) == 0) {
		struct stk_pq_footer_in enc = { .cols = cols, .n_cols = N_COLS, .groups = f.groups,
						.n_groups = f.n_groups, .num_rows = f.num_rows };

		mutate(&f);
		enc.num_rows = f.num_rows;
		stk_buf_put(&b, in->data, data_len);
		if (stk_pq_footer_encode(&b, &enc) == 0) {
			stk_buf_le32(&b, (uint32_t)(b.len - data_len));
			stk_buf_put(&b, "PAR1", 4);
			rc = b.oom ? -1 : 0;
		}
	}
	stk_pq_footer_free(&f);
	out->data = b.data;
	out->len = b.len;
	return rc;
}

static void snappy(struct stk_pq_footer *f)
{
	f->groups[1].chunks[C_STACK].codec = 1;
}

static void beyond_the_file(struct stk_pq_footer *f)
{
	f->groups[0].chunks[C_PID].total_compressed = (int64_t)1 << 40;
}

static void into_the_footer(struct stk_pq_footer *f)
{
	f->groups[2].chunks[C_SPAN].total_compressed += 9;
}

static void rows_do_not_add_up(struct stk_pq_footer *f)
{
	f->num_rows++;
}

static void group_claims_more_rows(struct stk_pq_footer *f)
{
	/* pages hold 8 rows; the chunk and the group say 9 */
	f->groups[0].num_rows++;
	f->num_rows++;
	for (size_t c = 0; c < f->groups[0].n_chunks; c++)
		f->groups[0].chunks[c].num_values++;
}

static void magic_offset(struct stk_pq_footer *f)
{
	f->groups[0].chunks[C_SPAN].dict_page_offset = 0;
}

static void rewritten_footers(struct test_ctx *t)
{
	static const struct {
		void (*mutate)(struct stk_pq_footer *);
		const char *want;
	} cases[] = {
		{ snappy, "compression codec 1" },
		{ beyond_the_file, "outside the file's data" },
		{ into_the_footer, "outside the file's data" },
		{ rows_do_not_add_up, "the footer says 21" },
		{ group_claims_more_rows, "pages end 1 rows before" },
		{ magic_offset, "outside the file's data" },
	};
	struct pq_bytes file, bad;
	char err[256];

	CHECK(t, small_file(&file) == 0);
	if (!file.data)
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(t, rewrite_footer(&file, &bad, cases[i].mutate) == 0);
		err[0] = '\0';
		CHECK(t, bad.data && read_all(bad.data, bad.len, cols, N_COLS, err, sizeof(err)) == 0);
		if (!strstr(err, cases[i].want)) {
			printf("  case %zu: got \"%s\", want \"%s\"\n", i, err, cases[i].want);
			t->failures++;
		}
		free(bad.data);
	}
	free(file.data);
}

const struct test_case parquet_refusals_tests[] = {
	{ "parquet_refuses_cut_files_survives_changed_ones", cut_or_changed },
	{ "parquet_refuses_not_parquet", not_parquet },
	{ "parquet_refuses_foreign_schemas", foreign_schemas },
	{ "parquet_refuses_rewritten_footers", rewritten_footers },
	{ NULL, NULL },
};
