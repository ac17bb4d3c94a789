#include "core/parquet/parquet_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/grow.h"
#include "core/parquet/checkpoint.h"
#include "core/parquet/column_writer.h"
#include "core/parquet/footer.h"
#include "core/parquet/format.h"

struct stk_pq_writer {
	FILE *out;
	int64_t offset;               /* bytes written to out */
	struct stk_pq_column *cols;   /* names owned */
	struct stk_pq_colw *colw;
	size_t n_cols;
	struct stk_pq_writer_opts opts;
	char *created_by;
	uint64_t set_mask;            /* columns set in the current row */
	uint64_t required_mask;
	uint32_t page_row;            /* rows in the current page */
	int64_t group_rows;
	size_t group_bytes;           /* pages and dictionaries held for the row group */
	uint64_t rows;
	struct stk_pq_group_meta *groups;
	size_t n_groups, cap_groups;
	char **kv;                    /* pairs: key, value */
	size_t n_kv, cap_kv;
	struct stk_pq_page_scratch scratch;
	int64_t ckpt_end;             /* checkpoints: the offset past the last one (or the leading magic) */
	uint32_t crc;                 /* checkpoints: CRC-32 of the bytes since ckpt_end */
	int write_errno;              /* the errno of the write that failed (0: none failed) */
	char err[200];                /* the first error; empty while all is well */
};

static int fail(struct stk_pq_writer *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->err[0]) {
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A write that failed: its errno kept for stk_pq_writer_errno. -1. */
static int write_failed(struct stk_pq_writer *w)
{
	int e = errno;

	if (!w->err[0])
		w->write_errno = e;
	return fail(w, "writing the Parquet file: %s", strerror(e));
}

static int write_bytes(struct stk_pq_writer *w, const void *p, size_t n)
{
	if (fwrite(p, 1, n, w->out) != n)
		return write_failed(w);
	w->offset += (int64_t)n;
	return 0;
}

static int check_schema(const struct stk_pq_column *cols, size_t n, const struct stk_pq_writer_opts *o,
			char *err, size_t err_len)
{
	if (n == 0 || n > STK_PQ_MAX_COLUMNS) {
		snprintf(err, err_len, "a Parquet schema takes 1 to %d columns, not %zu", STK_PQ_MAX_COLUMNS, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!cols[i].name || !cols[i].name[0] || (unsigned)cols[i].type > STK_PQ_STRING) {
			snprintf(err, err_len, "column %zu: no name or an unknown type", i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(cols[i].name, cols[j].name) == 0) {
				snprintf(err, err_len, "column name %s given twice", cols[i].name);
				return -1;
			}
	}
	if (o->page_rows > STK_PQ_MAX_PAGE_VALUES || o->row_group_bytes > STK_PQ_MAX_GROUP_BYTES ||
	    o->gzip_level < -1 || o->gzip_level > 9) {
		snprintf(err, err_len, "Parquet writer options out of range");
		return -1;
	}
	return 0;
}

static int setup(struct stk_pq_writer *w, const struct stk_pq_column *cols, size_t n)
{
	w->cols = calloc(n, sizeof(*w->cols));
	w->colw = calloc(n, sizeof(*w->colw));
	w->created_by = strdup(w->opts.created_by ? w->opts.created_by : "stk");
	if (!w->cols || !w->colw || !w->created_by)
		return -1;
	w->n_cols = n;
	for (size_t i = 0; i < n; i++) {
		w->cols[i] = cols[i];
		if (!(w->cols[i].name = strdup(cols[i].name)) ||
		    stk_pq_colw_init(&w->colw[i], &cols[i], w->opts.page_rows) < 0)
			return -1;
		if (!cols[i].nullable)
			w->required_mask |= 1ULL << i;
	}
	w->opts.created_by = NULL;
	w->scratch.stored = w->opts.gzip_level < 0;
	return w->scratch.stored ? 0 : stk_deflater_init(&w->scratch.deflater, w->opts.gzip_level);
}

struct stk_pq_writer *stk_pq_writer_new(FILE *out, const struct stk_pq_column *cols, size_t n,
					const struct stk_pq_writer_opts *opts, char *err, size_t err_len)
{
	struct stk_pq_writer_opts o = opts ? *opts : (struct stk_pq_writer_opts){ 0 };
	struct stk_pq_writer *w;

	if (check_schema(cols, n, &o, err, err_len) < 0)
		return NULL;
	o.row_group_rows = o.row_group_rows ? o.row_group_rows : STK_PQ_DEFAULT_GROUP_ROWS;
	o.row_group_bytes = o.row_group_bytes ? o.row_group_bytes : STK_PQ_DEFAULT_GROUP_BYTES;
	o.page_rows = o.page_rows ? o.page_rows : STK_PQ_DEFAULT_PAGE_ROWS;
	o.gzip_level = o.gzip_level ? o.gzip_level : STK_PQ_DEFAULT_GZIP_LEVEL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	w->out = out;
	w->opts = o;
	if (setup(w, cols, n) < 0) {
		snprintf(err, err_len, "out of memory");
		stk_pq_writer_free(w);
		return NULL;
	}
	if (write_bytes(w, STK_PQ_MAGIC, STK_PQ_MAGIC_LEN) < 0) {
		snprintf(err, err_len, "%s", w->err);
		stk_pq_writer_free(w);
		return NULL;
	}
	w->ckpt_end = w->offset;
	return w;
}

void stk_pq_writer_free(struct stk_pq_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_cols; i++) {
		free((char *)w->cols[i].name);
		stk_pq_colw_free(&w->colw[i]);
	}
	for (size_t g = 0; g < w->n_groups; g++)
		free(w->groups[g].chunks);
	for (size_t i = 0; i < 2 * w->n_kv; i++)
		free(w->kv[i]);
	stk_buf_free(&w->scratch.body);
	stk_buf_free(&w->scratch.zbody);
	stk_buf_free(&w->scratch.header);
	stk_deflater_end(&w->scratch.deflater);
	free(w->kv);
	free(w->groups);
	free(w->cols);
	free(w->colw);
	free(w->created_by);
	free(w);
}

/* The column's state for a value of type `type`, or NULL (error recorded). */
static struct stk_pq_colw *column(struct stk_pq_writer *w, size_t col, enum stk_pq_type type)
{
	struct stk_pq_colw *c;

	if (w->err[0])
		return NULL;
	if (col >= w->n_cols) {
		fail(w, "no column %zu", col);
		return NULL;
	}
	c = &w->colw[col];
	if (c->type != type && !(type == STK_PQ_INT64 && c->type == STK_PQ_TIMESTAMP_NS)) {
		fail(w, "column %s is %s, not %s", w->cols[col].name, stk_pq_type_name(c->type),
		     stk_pq_type_name(type));
		return NULL;
	}
	return c;
}

/* Where the value goes: a new slot, or the one set earlier in this row. */
static uint32_t slot(struct stk_pq_writer *w, struct stk_pq_colw *c, size_t col)
{
	uint64_t bit = 1ULL << col;

	if (w->set_mask & bit)
		return c->n_vals - 1;
	w->set_mask |= bit;
	return c->n_vals++;
}

void stk_pq_set_int32(struct stk_pq_writer *w, size_t col, int32_t v)
{
	struct stk_pq_colw *c = column(w, col, STK_PQ_INT32);
	size_t before;
	uint32_t index;

	if (!c)
		return;
	before = stk_pq_dict_bytes(&c->dict);
	if (stk_pq_dict_int32(&c->dict, v, &index) < 0) {
		fail(w, "out of memory");
		return;
	}
	w->group_bytes += stk_pq_dict_bytes(&c->dict) - before;
	c->idx[slot(w, c, col)] = index;
	stk_pq_colw_stat(c, v);
}

void stk_pq_set_int64(struct stk_pq_writer *w, size_t col, int64_t v)
{
	struct stk_pq_colw *c = column(w, col, STK_PQ_INT64);

	if (!c)
		return;
	c->i64[slot(w, c, col)] = v;
	stk_pq_colw_stat(c, v);
}

/* The string's dictionary entry, or -1 (recorded). */
static int64_t set_string(struct stk_pq_writer *w, size_t col, bool keyed, uint64_t key, const char *s, size_t len)
{
	struct stk_pq_colw *c = column(w, col, STK_PQ_STRING);
	size_t before;
	uint32_t index;
	int rc;

	if (!c)
		return -1;
	if (len > STK_PQ_MAX_STRING) {
		fail(w, "column %s: a string of %zu bytes (at most %u)", w->cols[col].name, len, STK_PQ_MAX_STRING);
		return -1;
	}
	before = stk_pq_dict_bytes(&c->dict);
	rc = keyed ? stk_pq_dict_keyed(&c->dict, key, s, len, &index) : stk_pq_dict_hashed(&c->dict, s, len, &index);
	if (rc == -2) {
		fail(w, "column %s: key %llu names strings of different lengths", w->cols[col].name,
		     (unsigned long long)key);
		return -1;
	}
	if (rc < 0) {
		fail(w, "out of memory");
		return -1;
	}
	w->group_bytes += stk_pq_dict_bytes(&c->dict) - before;
	c->idx[slot(w, c, col)] = index;
	return index;
}

int64_t stk_pq_set_string_entry(struct stk_pq_writer *w, size_t col, const char *s, size_t len)
{
	return set_string(w, col, false, 0, s, len);
}

void stk_pq_set_string_index(struct stk_pq_writer *w, size_t col, uint32_t index)
{
	struct stk_pq_colw *c = column(w, col, STK_PQ_STRING);

	if (!c)
		return;
	if (index >= c->dict.n) {
		fail(w, "column %s: dictionary entry %u of %zu", w->cols[col].name, index, c->dict.n);
		return;
	}
	c->idx[slot(w, c, col)] = index;
}

void stk_pq_set_string(struct stk_pq_writer *w, size_t col, const char *s, size_t len)
{
	set_string(w, col, false, 0, s, len);
}

void stk_pq_set_string_keyed(struct stk_pq_writer *w, size_t col, uint64_t key, const char *s, size_t len)
{
	set_string(w, col, true, key, s, len);
}

static int end_page(struct stk_pq_writer *w)
{
	for (size_t i = 0; i < w->n_cols; i++) {
		size_t before = w->colw[i].pages.len;

		if (stk_pq_colw_end_page(&w->colw[i], w->page_row, &w->scratch) < 0)
			return fail(w, "compressing a page of column %s failed (out of memory?)", w->cols[i].name);
		w->group_bytes += w->colw[i].pages.len - before;
	}
	w->page_row = 0;
	return 0;
}

/*
 * The checkpoint (checkpoint.h) of the last n_groups row groups (0 or 1),
 * then everything flushed to the file: a process killed after this leaves
 * them recoverable.
 */
static int write_checkpoint(struct stk_pq_writer *w, size_t n_groups)
{
	struct stk_buf b = { 0 };
	const struct stk_pq_group_meta *g = n_groups ? &w->groups[w->n_groups - 1] : NULL;
	struct stk_pq_footer_in in = {
		.cols = w->cols, .n_cols = w->n_cols, .groups = g, .n_groups = n_groups,
		.num_rows = g ? g->num_rows : 0, .kv = (const char *const *)w->kv, .n_kv = w->n_kv,
		.created_by = w->created_by,
	};
	int rc = -1;

	if (stk_pq_footer_encode(&b, &in) < 0 || b.len > STK_PQ_MAX_FOOTER_BYTES)
		fail(w, "a checkpoint is too large or memory ran out");
	else if ((stk_pq_ckpt_trailer(&b, b.len, w->ckpt_end, w->crc), b.oom))
		fail(w, "out of memory");
	else if (write_bytes(w, b.data, b.len) == 0)
		rc = fflush(w->out) ? write_failed(w) : 0;
	stk_buf_free(&b);
	/* only a checkpoint written whole moves the mark: a recovery cuts there */
	if (rc == 0) {
		w->ckpt_end = w->offset;
		w->crc = 0;
	}
	return rc;
}

static int end_group(struct stk_pq_writer *w)
{
	struct stk_pq_group_meta *g;

	if (w->err[0])
		return -1;
	if (w->group_rows == 0)
		return 0;
	if (w->page_row && end_page(w) < 0)
		return -1;
	if (stk_grow((void **)&w->groups, &w->cap_groups, w->n_groups + 1, sizeof(*w->groups)) < 0)
		return fail(w, "out of memory");
	g = &w->groups[w->n_groups];
	*g = (struct stk_pq_group_meta){ .num_rows = w->group_rows, .file_offset = w->offset };
	if (!(g->chunks = calloc(w->n_cols, sizeof(*g->chunks))))
		return fail(w, "out of memory");
	g->n_chunks = w->n_cols;
	w->n_groups++;
	for (size_t i = 0; i < w->n_cols; i++) {
		int rc = stk_pq_colw_end_chunk(&w->colw[i], w->out, &w->offset, w->opts.checkpoints ? &w->crc : NULL,
					       w->group_rows, &g->chunks[i], &w->scratch);

		if (rc == -2)
			return write_failed(w);
		if (rc < 0)
			return fail(w, "compressing the dictionary of column %s failed", w->cols[i].name);
		g->total_byte_size += g->chunks[i].total_uncompressed;
		g->total_compressed += g->chunks[i].total_compressed;
	}
	w->group_rows = 0;
	w->group_bytes = 0;
	return w->opts.checkpoints ? write_checkpoint(w, 1) : 0;
}

int stk_pq_end_row(struct stk_pq_writer *w)
{
	uint64_t unset = ~w->set_mask;

	if (w->err[0])
		return -1;
	if (unset & w->required_mask) {
		size_t col = (size_t)__builtin_ctzll(unset & w->required_mask);

		return fail(w, "row %llu: required column %s has no value", (unsigned long long)w->rows,
			    w->cols[col].name);
	}
	for (size_t i = 0; i < w->n_cols; i++) {
		struct stk_pq_colw *c = &w->colw[i];

		if (c->nullable) {
			uint32_t set = (uint32_t)(w->set_mask >> i & 1);

			c->def[w->page_row] = set;
			c->nulls += !set;
		}
	}
	w->set_mask = 0;
	w->rows++;
	w->group_rows++;
	if (++w->page_row == w->opts.page_rows && end_page(w) < 0)
		return -1;
	if (w->group_rows >= w->opts.row_group_rows || w->group_bytes >= w->opts.row_group_bytes)
		return end_group(w);
	return 0;
}

int stk_pq_flush(struct stk_pq_writer *w)
{
	if (w->set_mask)
		return fail(w, "flush in the middle of a row");
	return end_group(w);
}

int stk_pq_checkpoint(struct stk_pq_writer *w)
{
	int64_t before = w->offset;

	if (!w->opts.checkpoints)
		return fail(w, "a checkpoint asked of a writer without them");
	if (stk_pq_flush(w) < 0)
		return -1;
	/* a row group went out with its checkpoint; else one for the metadata alone */
	return w->offset != before ? 0 : write_checkpoint(w, 0);
}

int stk_pq_writer_errno(const struct stk_pq_writer *w)
{
	return w->write_errno;
}

uint64_t stk_pq_writer_checkpointed(const struct stk_pq_writer *w)
{
	return (uint64_t)w->ckpt_end;
}

int stk_pq_set_metadata(struct stk_pq_writer *w, const char *key, const char *value)
{
	char *v = strdup(value), *k;

	if (!v)
		return fail(w, "out of memory");
	for (size_t i = 0; i < w->n_kv; i++)
		if (strcmp(w->kv[2 * i], key) == 0) {
			free(w->kv[2 * i + 1]);
			w->kv[2 * i + 1] = v;
			return 0;
		}
	k = strdup(key);
	if (!k || stk_grow((void **)&w->kv, &w->cap_kv, 2 * (w->n_kv + 1), sizeof(*w->kv)) < 0) {
		free(k);
		free(v);
		return fail(w, "out of memory");
	}
	w->kv[2 * w->n_kv] = k;
	w->kv[2 * w->n_kv + 1] = v;
	w->n_kv++;
	return 0;
}

uint64_t stk_pq_writer_rows(const struct stk_pq_writer *w)
{
	return w->rows;
}

uint64_t stk_pq_writer_bytes(const struct stk_pq_writer *w)
{
	return (uint64_t)w->offset;
}

static int write_footer(struct stk_pq_writer *w)
{
	struct stk_buf footer = { 0 };
	struct stk_pq_footer_in in = {
		.cols = w->cols, .n_cols = w->n_cols, .groups = w->groups, .n_groups = w->n_groups,
		.num_rows = (int64_t)w->rows, .kv = (const char *const *)w->kv, .n_kv = w->n_kv,
		.created_by = w->created_by,
	};
	int rc = -1;

	if (stk_pq_footer_encode(&footer, &in) < 0 || footer.len > STK_PQ_MAX_FOOTER_BYTES)
		fail(w, "the Parquet footer is too large or memory ran out");
	else if (write_bytes(w, footer.data, footer.len) == 0)
		rc = 0;
	stk_buf_le32(&footer, (uint32_t)footer.len);
	if (rc == 0 && (footer.oom || write_bytes(w, footer.data + footer.len - 4, 4) < 0 ||
			write_bytes(w, STK_PQ_MAGIC, STK_PQ_MAGIC_LEN) < 0))
		rc = fail(w, "writing the Parquet footer failed");
	stk_buf_free(&footer);
	return rc;
}

int stk_pq_writer_close(struct stk_pq_writer *w, char *err, size_t err_len)
{
	int rc;

	if (!w) {
		snprintf(err, err_len, "no Parquet writer");
		return -1;
	}
	if (w->set_mask)
		fail(w, "closed in the middle of a row");
	if (end_group(w) == 0 && write_footer(w) == 0 && fflush(w->out) != 0)
		write_failed(w);
	rc = w->err[0] ? -1 : 0;
	if (rc < 0)
		snprintf(err, err_len, "%s", w->err);
	int e = w->write_errno;
	stk_pq_writer_free(w);
	errno = e;
	return rc;
}
