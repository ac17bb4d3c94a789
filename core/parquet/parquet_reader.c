#include "core/parquet/parquet_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/parquet/column_reader.h"
#include "core/parquet/footer.h"
#include "core/parquet/format.h"
#include "core/parquet/numbers.h"
#include "core/parquet/schema_match.h"

struct stk_pq_reader {
	int fd;
	int64_t data_end;           /* where the footer starts: pages lie before it */
	uint8_t *footer_bytes;      /* what the decoded footer points into */
	struct stk_pq_footer f;
	char **kv;                  /* NUL-terminated copies: key, value (NULL when absent) */
	size_t n_cols;
	size_t *leaf;               /* the file's column of each expected one */
	struct stk_pq_colr *cols;
	struct stk_inflater z;
	size_t next_group;          /* the group next_group moves to */
	const struct stk_pq_group_meta *group;
	int64_t row;                /* rows of the group read */
	char err[256];
};

static int fail(struct stk_pq_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int read_exact(int fd, void *buf, size_t n, off_t offset)
{
	return pread(fd, buf, n, offset) == (ssize_t)n ? 0 : -1;
}

/* The magic at both ends and the footer's bytes. */
static int read_footer(struct stk_pq_reader *r)
{
	uint8_t head[STK_PQ_MAGIC_LEN], tail[8];
	struct stat st;
	uint32_t len;
	const char *why;

	if (fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return fail(r, "not a regular file");
	if (st.st_size == 0)
		return fail(r, "an empty file");
	if (st.st_size < 2 * STK_PQ_MAGIC_LEN + 4 || read_exact(r->fd, head, sizeof(head), 0) < 0 ||
	    memcmp(head, STK_PQ_MAGIC, STK_PQ_MAGIC_LEN) != 0)
		return fail(r, "not a Parquet file (no PAR1 at its start)");
	if (read_exact(r->fd, tail, sizeof(tail), st.st_size - 8) < 0 ||
	    memcmp(tail + 4, STK_PQ_MAGIC, STK_PQ_MAGIC_LEN) != 0)
		return fail(r, "a truncated Parquet file (no footer: was its writer killed?)");
	len = stk_pq_get_le32(tail);
	if (len > STK_PQ_MAX_FOOTER_BYTES || (int64_t)len > st.st_size - 12 || len == 0)
		return fail(r, "a footer of %u bytes in a file of %lld", len, (long long)st.st_size);
	r->data_end = st.st_size - 8 - len;
	if (!(r->footer_bytes = malloc(len)))
		return fail(r, "out of memory");
	if (read_exact(r->fd, r->footer_bytes, len, (off_t)r->data_end) < 0)
		return fail(r, "reading the footer failed");
	if (stk_pq_footer_decode(r->footer_bytes, len, &r->f, &why) < 0)
		return fail(r, "a malformed footer: %s", why);
	return 0;
}

/* Each group's rows add up, and each chunk stk reads lies within the data and is of the right kind. */
static int check_groups(struct stk_pq_reader *r)
{
	size_t leaves = r->f.n_schema - 1;
	int64_t total = 0;

	for (size_t g = 0; g < r->f.n_groups; g++) {
		const struct stk_pq_group_meta *gm = &r->f.groups[g];

		if (gm->n_chunks != leaves || gm->num_rows < 0 || gm->num_rows > INT64_MAX - total)
			return fail(r, "row group %zu: %zu columns and %lld rows", g, gm->n_chunks, (long long)gm->num_rows);
		total += gm->num_rows;
		for (size_t c = 0; c < r->n_cols; c++) {
			if (r->leaf[c] == STK_PQ_NO_LEAF)
				continue;
			const struct stk_pq_chunk_meta *m = &gm->chunks[r->leaf[c]];
			const struct stk_pq_schema_elem *e = &r->f.schema[r->leaf[c] + 1];
			int64_t start = m->dict_page_offset >= 0 ? m->dict_page_offset : m->data_page_offset;

			if (m->path_len != e->name_len || memcmp(m->path, e->name, e->name_len) != 0 ||
			    m->physical != e->physical || m->num_values != gm->num_rows)
				return fail(r, "row group %zu: column %s's chunk does not match the schema", g, r->cols[c].name);
			if (m->codec != STK_PQ_CODEC_GZIP && m->codec != STK_PQ_CODEC_UNCOMPRESSED)
				return fail(r, "column %s: compression codec %d (stk reads GZIP and uncompressed)",
					    r->cols[c].name, (int)m->codec);
			if (start < STK_PQ_MAGIC_LEN || m->total_compressed < 0 || start > r->data_end ||
			    m->total_compressed > r->data_end - start || m->data_page_offset < start ||
			    m->data_page_offset > start + m->total_compressed)
				return fail(r, "row group %zu: column %s's pages lie outside the file's data", g, r->cols[c].name);
		}
	}
	if (total != r->f.num_rows)
		return fail(r, "the row groups hold %lld rows, the footer says %lld", (long long)total,
			    (long long)r->f.num_rows);
	return 0;
}

static int copy_metadata(struct stk_pq_reader *r)
{
	if (!(r->kv = calloc(2 * r->f.n_kv + 1, sizeof(*r->kv))))
		return fail(r, "out of memory");
	for (size_t i = 0; i < r->f.n_kv; i++) {
		const struct stk_pq_kv *kv = &r->f.kv[i];

		if (!(r->kv[2 * i] = strndup((const char *)kv->key, kv->key_len)) ||
		    (kv->value && !(r->kv[2 * i + 1] = strndup((const char *)kv->value, kv->value_len))))
			return fail(r, "out of memory");
	}
	return 0;
}

static int setup(struct stk_pq_reader *r, const struct stk_pq_column *cols, size_t n)
{
	bool optional[STK_PQ_MAX_COLUMNS];

	if (n == 0 || n > STK_PQ_MAX_COLUMNS)
		return fail(r, "a reader takes 1 to %d columns", STK_PQ_MAX_COLUMNS);
	r->leaf = calloc(n, sizeof(*r->leaf));
	r->cols = calloc(n, sizeof(*r->cols));
	if (!r->leaf || !r->cols)
		return fail(r, "out of memory");
	r->n_cols = n;
	if (read_footer(r) < 0)
		return -1;
	if (stk_pq_schema_match(&r->f, cols, n, r->leaf, optional, r->err, sizeof(r->err)) < 0)
		return -1;
	for (size_t c = 0; c < n; c++) {
		bool absent = r->leaf[c] == STK_PQ_NO_LEAF;

		r->cols[c] = (struct stk_pq_colr){ .name = cols[c].name, .type = cols[c].type, .fd = r->fd,
						   .optional = optional[c], .absent = absent, .null = absent,
						   .physical = absent ? -1 : r->f.schema[r->leaf[c] + 1].physical };
	}
	if (check_groups(r) < 0 || copy_metadata(r) < 0)
		return -1;
	if (stk_inflater_init(&r->z) < 0)
		return fail(r, "zlib cannot start");
	return 0;
}

struct stk_pq_reader *stk_pq_reader_open(int fd, const struct stk_pq_column *cols, size_t n, char *err,
					 size_t err_len)
{
	struct stk_pq_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	r->fd = fd;
	if (setup(r, cols, n) < 0) {
		snprintf(err, err_len, "%s", r->err);
		stk_pq_reader_close(r);
		return NULL;
	}
	return r;
}

void stk_pq_reader_close(struct stk_pq_reader *r)
{
	if (!r)
		return;
	for (size_t c = 0; r->cols && c < r->n_cols; c++)
		stk_pq_colr_free(&r->cols[c]);
	for (size_t i = 0; r->kv && i < 2 * r->f.n_kv; i++)
		free(r->kv[i]);
	stk_pq_footer_free(&r->f);
	stk_inflater_end(&r->z);
	free(r->kv);
	free(r->cols);
	free(r->leaf);
	free(r->footer_bytes);
	free(r);
}

int64_t stk_pq_reader_rows(const struct stk_pq_reader *r)
{
	return r->f.num_rows;
}

size_t stk_pq_reader_groups(const struct stk_pq_reader *r)
{
	return r->f.n_groups;
}

const char *stk_pq_reader_metadata(const struct stk_pq_reader *r, const char *key)
{
	for (size_t i = 0; i < r->f.n_kv; i++)
		if (strcmp(r->kv[2 * i], key) == 0)
			return r->kv[2 * i + 1];
	return NULL;
}

int stk_pq_reader_next_group(struct stk_pq_reader *r)
{
	if (r->next_group >= r->f.n_groups) {
		r->group = NULL;
		return 0;
	}
	r->group = &r->f.groups[r->next_group++];
	r->row = 0;
	for (size_t c = 0; c < r->n_cols; c++)
		if (!r->cols[c].absent)
			stk_pq_colr_start(&r->cols[c], &r->group->chunks[r->leaf[c]], r->group->num_rows);
	return 1;
}

int64_t stk_pq_reader_group_rows(const struct stk_pq_reader *r)
{
	return r->group ? r->group->num_rows : 0;
}

bool stk_pq_reader_group_range(const struct stk_pq_reader *r, size_t col, int64_t *min, int64_t *max)
{
	const struct stk_pq_chunk_meta *m;

	if (!r->group || col >= r->n_cols || r->cols[col].absent)
		return false;
	m = &r->group->chunks[r->leaf[col]];
	if (!m->has_min_max)
		return false;
	*min = m->min;
	*max = m->max;
	return true;
}

int stk_pq_reader_next_row(struct stk_pq_reader *r)
{
	if (!r->group || r->row >= r->group->num_rows)
		return 0;
	for (size_t c = 0; c < r->n_cols; c++)
		if (!r->cols[c].absent && stk_pq_colr_next(&r->cols[c], &r->z, r->err, sizeof(r->err)) < 0) {
			r->group = NULL;
			return -1;
		}
	r->row++;
	return 1;
}

bool stk_pq_reader_is_null(const struct stk_pq_reader *r, size_t col)
{
	return col >= r->n_cols || r->cols[col].null;
}

int32_t stk_pq_reader_int32(const struct stk_pq_reader *r, size_t col)
{
	return (int32_t)stk_pq_reader_int64(r, col);
}

int64_t stk_pq_reader_int64(const struct stk_pq_reader *r, size_t col)
{
	if (stk_pq_reader_is_null(r, col) || r->cols[col].type == STK_PQ_STRING)
		return 0;
	return r->cols[col].v;
}

uint32_t stk_pq_reader_string_id(const struct stk_pq_reader *r, size_t col)
{
	if (stk_pq_reader_is_null(r, col) || r->cols[col].type != STK_PQ_STRING)
		return UINT32_MAX;
	return r->cols[col].id;
}

const char *stk_pq_reader_string(const struct stk_pq_reader *r, size_t col, size_t *len)
{
	uint32_t id = stk_pq_reader_string_id(r, col);

	if (id == UINT32_MAX) {
		*len = 0;
		return NULL;
	}
	*len = r->cols[col].dict_len[id];
	return r->cols[col].dict_bytes + r->cols[col].dict_off[id];
}

const char *stk_pq_reader_error(const struct stk_pq_reader *r)
{
	return r->err;
}
