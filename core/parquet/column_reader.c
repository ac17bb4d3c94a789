#include "core/parquet/column_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/grow.h"
#include "core/parquet/delta_binary.h"
#include "core/parquet/format.h"
#include "core/parquet/hybrid_rle.h"
#include "core/parquet/numbers.h"

static int fail(const struct stk_pq_colr *c, char *err, size_t err_len, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, err_len, "column %s: ", c->name);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < err_len)
		vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

void stk_pq_colr_start(struct stk_pq_colr *c, const struct stk_pq_chunk_meta *meta, int64_t rows)
{
	c->codec = meta->codec;
	c->pos = meta->dict_page_offset >= 0 ? meta->dict_page_offset : meta->data_page_offset;
	c->end = c->pos + meta->total_compressed;
	c->rows_left = rows;
	c->has_dict = c->seen_data = false;
	c->dict_n = 0;
	c->page_rows = c->page_row = 0;
}

void stk_pq_colr_free(struct stk_pq_colr *c)
{
	free(c->dict_num);
	free(c->dict_off);
	free(c->dict_len);
	free(c->dict_bytes);
	free(c->def);
	free(c->num);
	free(c->ids);
	stk_buf_free(&c->raw);
	stk_buf_free(&c->plain);
}

/* Exactly n bytes at offset into buf (which has room), or -1. */
static int read_at(int fd, void *buf, size_t n, int64_t offset)
{
	size_t done = 0;

	while (done < n) {
		ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)offset + (off_t)done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		done += (size_t)got;
	}
	return 0;
}

/* A buffer of at least n bytes in b (contents not kept). */
static uint8_t *room(struct stk_buf *b, size_t n)
{
	b->len = 0;
	return stk_buf_reserve(b, n ? n : 1);
}

static int read_dictionary(struct stk_pq_colr *c, const struct stk_pq_page_header *h, const uint8_t *p,
			   size_t n, char *err, size_t err_len)
{
	const uint8_t *end = p + n;
	size_t width = c->physical == STK_PQ_PHYS_INT32 ? 4 : 8, used = 0;
	uint32_t count = (uint32_t)h->num_values;

	if (c->has_dict || c->seen_data)
		return fail(c, err, err_len, "a second dictionary, or one after data pages");
	if (h->encoding != STK_PQ_ENC_PLAIN && h->encoding != STK_PQ_ENC_PLAIN_DICTIONARY)
		return fail(c, err, err_len, "a dictionary in encoding %d", (int)h->encoding);
	/* every entry takes at least 4 bytes: the count cannot exceed what the page holds */
	if (h->num_values < 0 || (size_t)h->num_values > n / 4)
		return fail(c, err, err_len, "a dictionary of %d values in %zu bytes", (int)h->num_values, n);
	if (c->type != STK_PQ_STRING) {
		if ((size_t)count * width > n)
			return fail(c, err, err_len, "a dictionary shorter than its values");
		free(c->dict_num);
		if (!(c->dict_num = malloc((count ? count : 1) * sizeof(*c->dict_num))))
			return fail(c, err, err_len, "out of memory");
		for (uint32_t i = 0; i < count; i++, p += width)
			c->dict_num[i] = width == 4 ? (int32_t)stk_pq_get_le32(p) : (int64_t)stk_pq_get_le64(p);
	} else {
		free(c->dict_off);
		free(c->dict_len);
		free(c->dict_bytes);
		c->dict_off = malloc((count ? count : 1) * sizeof(*c->dict_off));
		c->dict_len = malloc((count ? count : 1) * sizeof(*c->dict_len));
		/* each value loses its 4-byte length and gains a NUL: n bytes are room enough */
		c->dict_bytes = malloc(n ? n : 1);
		if (!c->dict_off || !c->dict_len || !c->dict_bytes)
			return fail(c, err, err_len, "out of memory");
		for (uint32_t i = 0; i < count; i++) {
			uint32_t len;

			if (end - p < 4 || (len = stk_pq_get_le32(p), (size_t)(end - p - 4) < len))
				return fail(c, err, err_len, "dictionary value %u runs past its page", i);
			memcpy(c->dict_bytes + used, p + 4, len);
			c->dict_bytes[used + len] = '\0';
			c->dict_off[i] = (uint32_t)used;
			c->dict_len[i] = len;
			used += len + 1;
			p += 4 + len;
		}
	}
	c->dict_n = count;
	c->has_dict = true;
	return 0;
}

/* The page's definition levels; the number of values (not nulls) in *values. */
static int read_levels(struct stk_pq_colr *c, const struct stk_pq_page_header *h, const uint8_t **p,
		       const uint8_t *end, uint32_t *values, char *err, size_t err_len)
{
	uint32_t len, n = (uint32_t)h->num_values;

	*values = n;
	if (!c->optional)
		return 0;
	if (h->def_encoding != STK_PQ_ENC_RLE)
		return fail(c, err, err_len, "definition levels in encoding %d", (int)h->def_encoding);
	if (stk_grow((void **)&c->def, &c->cap_def, n, sizeof(*c->def)) < 0)
		return fail(c, err, err_len, "out of memory");
	if (end - *p < 4 || (len = stk_pq_get_le32(*p), (size_t)(end - *p - 4) < len) ||
	    stk_pq_rle_decode(c->def, n, *p + 4, len, 1) < 0)
		return fail(c, err, err_len, "malformed definition levels");
	*p += 4 + len;
	*values = 0;
	for (uint32_t i = 0; i < n; i++)
		*values += c->def[i];
	return 0;
}

static int read_indices(struct stk_pq_colr *c, uint32_t n, const uint8_t *p, const uint8_t *end, char *err,
			size_t err_len)
{
	if (n == 0)
		return 0;
	if (!c->has_dict)
		return fail(c, err, err_len, "dictionary indices without a dictionary");
	if (stk_grow((void **)&c->ids, &c->cap_ids, n, sizeof(*c->ids)) < 0)
		return fail(c, err, err_len, "out of memory");
	if (p >= end || stk_pq_rle_decode(c->ids, n, p + 1, (size_t)(end - p - 1), *p) < 0)
		return fail(c, err, err_len, "malformed dictionary indices");
	for (uint32_t i = 0; i < n; i++)
		if (c->ids[i] >= c->dict_n)
			return fail(c, err, err_len, "dictionary index %u of %u values", c->ids[i], c->dict_n);
	return 0;
}

static int read_values(struct stk_pq_colr *c, int32_t encoding, uint32_t n, const uint8_t *p, const uint8_t *end,
		       char *err, size_t err_len)
{
	bool dict = encoding == STK_PQ_ENC_RLE_DICTIONARY || encoding == STK_PQ_ENC_PLAIN_DICTIONARY;
	size_t width = c->physical == STK_PQ_PHYS_INT32 ? 4 : 8;

	if (dict && read_indices(c, n, p, end, err, err_len) < 0)
		return -1;
	if (c->type == STK_PQ_STRING)
		return dict ? 0 : fail(c, err, err_len, "strings in encoding %d (stk reads dictionaries)", (int)encoding);
	if (stk_grow((void **)&c->num, &c->cap_num, n, sizeof(*c->num)) < 0)
		return fail(c, err, err_len, "out of memory");
	if (dict) {
		for (uint32_t i = 0; i < n; i++)
			c->num[i] = c->dict_num[c->ids[i]];
	} else if (encoding == STK_PQ_ENC_PLAIN) {
		if ((size_t)(end - p) / width < n)
			return fail(c, err, err_len, "a page shorter than its values");
		for (uint32_t i = 0; i < n; i++, p += width)
			c->num[i] = width == 4 ? (int32_t)stk_pq_get_le32(p) : (int64_t)stk_pq_get_le64(p);
	} else if (encoding == STK_PQ_ENC_DELTA_BINARY_PACKED) {
		if (stk_pq_delta_decode(c->num, n, &p, end) < 0)
			return fail(c, err, err_len, "malformed DELTA_BINARY_PACKED values");
		/* INT32 differences wrap in 32 bits */
		for (uint32_t i = 0; width == 4 && i < n; i++)
			c->num[i] = (int32_t)(uint32_t)c->num[i];
	} else {
		return fail(c, err, err_len, "values in encoding %d", (int)encoding);
	}
	return 0;
}

static int read_data_page(struct stk_pq_colr *c, const struct stk_pq_page_header *h, const uint8_t *p, size_t n,
			  char *err, size_t err_len)
{
	const uint8_t *end = p + n;
	uint32_t values;

	if (h->num_values < 0 || (uint32_t)h->num_values > STK_PQ_MAX_PAGE_VALUES || h->num_values > c->rows_left)
		return fail(c, err, err_len, "a page of %d values (%lld rows left, at most %u a page)",
			    (int)h->num_values, (long long)c->rows_left, STK_PQ_MAX_PAGE_VALUES);
	if (read_levels(c, h, &p, end, &values, err, err_len) < 0 ||
	    read_values(c, h->encoding, values, p, end, err, err_len) < 0)
		return -1;
	c->seen_data = true;
	c->page_rows = (uint32_t)h->num_values;
	c->page_row = c->value = 0;
	c->rows_left -= h->num_values;
	return 0;
}

/* The page body at c->pos, uncompressed, in *body. */
static int read_body(struct stk_pq_colr *c, const struct stk_pq_page_header *h, const uint8_t **body, char *err,
		     size_t err_len)
{
	size_t stored = (size_t)h->compressed_size, size = (size_t)h->uncompressed_size;
	uint8_t *raw = room(&c->raw, stored);

	if (!raw)
		return fail(c, err, err_len, "out of memory");
	if (read_at(c->fd, raw, stored, c->pos) < 0)
		return fail(c, err, err_len, "reading a page failed");
	c->pos += (int64_t)stored;
	if (c->codec == STK_PQ_CODEC_UNCOMPRESSED) {
		*body = raw;
		return 0;
	}
	*body = room(&c->plain, size);
	if (!*body)
		return fail(c, err, err_len, "out of memory");
	return 0;
}

static int check_sizes(struct stk_pq_colr *c, const struct stk_pq_page_header *h, char *err, size_t err_len)
{
	int64_t stored = h->compressed_size, size = h->uncompressed_size;

	if (stored < 0 || size < 0 || stored > c->end - c->pos || size > (int64_t)STK_PQ_MAX_PAGE_BYTES)
		return fail(c, err, err_len, "a page of %lld bytes (%lld stored) where %lld are left",
			    (long long)size, (long long)stored, (long long)(c->end - c->pos));
	if (c->codec == STK_PQ_CODEC_UNCOMPRESSED ? size != stored : size > stored * (int64_t)STK_PQ_GZIP_MAX_RATIO)
		return fail(c, err, err_len, "a page of %lld bytes stored in %lld", (long long)size, (long long)stored);
	return 0;
}

static int next_page(struct stk_pq_colr *c, struct stk_inflater *z, char *err, size_t err_len)
{
	uint8_t head[STK_PQ_MAX_PAGE_HEADER];
	struct stk_pq_page_header h;
	const uint8_t *body;
	const char *why;
	size_t used, want;

	if (c->pos >= c->end)
		return fail(c, err, err_len, "its pages end %lld rows before the row group does", (long long)c->rows_left);
	want = c->end - c->pos < (int64_t)sizeof(head) ? (size_t)(c->end - c->pos) : sizeof(head);
	if (read_at(c->fd, head, want, c->pos) < 0)
		return fail(c, err, err_len, "reading a page header failed");
	if (stk_pq_page_header_decode(head, want, &h, &used, &why) < 0)
		return fail(c, err, err_len, "page header: %s", why);
	c->pos += (int64_t)used;
	if (check_sizes(c, &h, err, err_len) < 0 || read_body(c, &h, &body, err, err_len) < 0)
		return -1;
	if (c->codec == STK_PQ_CODEC_GZIP &&
	    stk_gunzip(z, c->plain.data, (size_t)h.uncompressed_size, c->raw.data, (size_t)h.compressed_size) < 0)
		return fail(c, err, err_len, "a page that does not gunzip to its %d bytes", (int)h.uncompressed_size);
	switch (h.type) {
	case STK_PQ_PAGE_DICTIONARY:
		return read_dictionary(c, &h, body, (size_t)h.uncompressed_size, err, err_len);
	case STK_PQ_PAGE_DATA:
		return read_data_page(c, &h, body, (size_t)h.uncompressed_size, err, err_len);
	case STK_PQ_PAGE_INDEX:
		return 0;
	default:
		return fail(c, err, err_len, "a page of type %d (stk reads data pages v1)", (int)h.type);
	}
}

int stk_pq_colr_next(struct stk_pq_colr *c, struct stk_inflater *z, char *err, size_t err_len)
{
	/* a page may hold no rows: the chunk's bytes bound how many are read */
	while (c->page_row == c->page_rows) {
		c->page_rows = c->page_row = 0;
		if (c->rows_left <= 0)
			return fail(c, err, err_len, "more rows asked for than the row group has");
		if (next_page(c, z, err, err_len) < 0)
			return -1;
	}
	c->null = c->optional && !c->def[c->page_row];
	c->page_row++;
	if (c->null)
		return 0;
	if (c->type == STK_PQ_STRING)
		c->id = c->ids[c->value++];
	else
		c->v = c->num[c->value++];
	return 0;
}
