#include "core/parquet/column_writer.h"

#include <stdlib.h>
#include <string.h>

#include "core/parquet/bitpack.h"
#include "core/parquet/checkpoint.h"
#include "core/parquet/delta_binary.h"
#include "core/parquet/format.h"
#include "core/parquet/hybrid_rle.h"

int stk_pq_colw_init(struct stk_pq_colw *c, const struct stk_pq_column *col, uint32_t page_rows)
{
	*c = (struct stk_pq_colw){ .type = col->type, .nullable = col->nullable,
				   .dict_encoded = col->type == STK_PQ_STRING || col->type == STK_PQ_INT32 };
	stk_pq_dict_init(&c->dict, col->type == STK_PQ_STRING);
	if (c->nullable && !(c->def = malloc(page_rows * sizeof(*c->def))))
		return -1;
	if (c->dict_encoded)
		c->idx = malloc(page_rows * sizeof(*c->idx));
	else
		c->i64 = malloc(page_rows * sizeof(*c->i64));
	return c->idx || c->i64 ? 0 : -1;
}

void stk_pq_colw_free(struct stk_pq_colw *c)
{
	free(c->def);
	free(c->idx);
	free(c->i64);
	stk_pq_dict_free(&c->dict);
	stk_buf_free(&c->pages);
	*c = (struct stk_pq_colw){ 0 };
}

/*
 * Whether c's pages are gzipped: DELTA_BINARY_PACKED pages are bit-packed
 * already (times, durations, ids): deflate took a third of the writer's
 * time on them and saved under 4% of their bytes (docs/parquet.md).
 */
static bool gzipped(const struct stk_pq_colw *c, const struct stk_pq_page_scratch *s)
{
	return !s->stored && c->dict_encoded;
}

/* Appends a page (header, then [p, p + n) gzipped or stored) to out; adds its uncompressed size to *raw. */
static int put_page(struct stk_buf *out, struct stk_pq_page_header *h, const uint8_t *p, size_t n, bool gzip,
		    struct stk_pq_page_scratch *s, int64_t *raw)
{
	if (n > STK_PQ_MAX_PAGE_BYTES)
		return -1;
	s->zbody.len = 0;
	s->header.len = 0;
	if (!gzip)
		stk_buf_put(&s->zbody, p, n);
	else if (stk_gzip(&s->deflater, &s->zbody, p, n) < 0)
		return -1;
	h->uncompressed_size = (int32_t)n;
	h->compressed_size = (int32_t)s->zbody.len;
	stk_pq_page_header_encode(&s->header, h);
	stk_buf_put(out, s->header.data, s->header.len);
	stk_buf_put(out, s->zbody.data, s->zbody.len);
	*raw += (int64_t)(s->header.len + n);
	return s->header.oom || out->oom ? -1 : 0;
}

static void put_levels(struct stk_buf *body, const uint32_t *def, uint32_t rows)
{
	size_t at = body->len;
	uint32_t len;

	/* v1 pages put the levels' byte length before them */
	stk_buf_le32(body, 0);
	stk_pq_rle_encode(body, def, rows, 1);
	if (body->oom)
		return;
	len = (uint32_t)(body->len - at - 4);
	for (int i = 0; i < 4; i++)
		body->data[at + i] = (uint8_t)(len >> (8 * i));
}

int stk_pq_colw_end_page(struct stk_pq_colw *c, uint32_t rows, struct stk_pq_page_scratch *s)
{
	struct stk_pq_page_header h = { .type = STK_PQ_PAGE_DATA, .num_values = (int32_t)rows };
	int rc;

	s->body.len = 0;
	if (c->nullable)
		put_levels(&s->body, c->def, rows);
	if (c->dict_encoded) {
		/* indices take the bits of the largest one so far */
		unsigned width = c->dict.n > 1 ? stk_pq_bit_width(c->dict.n - 1) : 0;

		h.encoding = STK_PQ_ENC_RLE_DICTIONARY;
		stk_buf_byte(&s->body, (uint8_t)width);
		stk_pq_rle_encode(&s->body, c->idx, c->n_vals, width);
	} else {
		h.encoding = STK_PQ_ENC_DELTA_BINARY_PACKED;
		stk_pq_delta_encode(&s->body, c->i64, c->n_vals, STK_PQ_DELTA_BLOCK, STK_PQ_DELTA_MINIBLOCKS);
	}
	rc = s->body.oom ? -1 : put_page(&c->pages, &h, s->body.data, s->body.len, gzipped(c, s), s,
					      &c->pages_uncompressed);
	c->n_vals = 0;
	return rc;
}

static int write_all(FILE *out, int64_t *offset, uint32_t *crc, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, out) != n)
		return -2;
	*offset += (int64_t)n;
	if (crc && n)
		*crc = stk_crc32(*crc, p, n);
	return 0;
}

int stk_pq_colw_end_chunk(struct stk_pq_colw *c, FILE *out, int64_t *offset, uint32_t *crc, int64_t rows,
			  struct stk_pq_chunk_meta *meta, struct stk_pq_page_scratch *s)
{
	int64_t start = *offset, raw = 0;
	int rc = 0;

	*meta = (struct stk_pq_chunk_meta){
		.physical = c->type == STK_PQ_INT32	 ? STK_PQ_PHYS_INT32 :
			    c->type == STK_PQ_STRING ? STK_PQ_PHYS_BYTE_ARRAY :
						       STK_PQ_PHYS_INT64,
		.codec = gzipped(c, s) ? STK_PQ_CODEC_GZIP : STK_PQ_CODEC_UNCOMPRESSED,
		.num_values = rows,
		.dict_page_offset = -1,
		.null_count = c->nulls,
		.has_min_max = c->type != STK_PQ_STRING && c->has_min_max,
		.min = c->min,
		.max = c->max,
		.encodings = 1u << STK_PQ_ENC_RLE,
	};
	if (c->dict_encoded) {
		struct stk_pq_page_header h = { .type = STK_PQ_PAGE_DICTIONARY, .num_values = (int32_t)c->dict.n,
						.encoding = STK_PQ_ENC_PLAIN };

		meta->encodings |= 1u << STK_PQ_ENC_PLAIN | 1u << STK_PQ_ENC_RLE_DICTIONARY;
		meta->dict_page_offset = start;
		s->body.len = 0;
		if (put_page(&s->body, &h, c->dict.page.data, c->dict.page.len, gzipped(c, s), s, &raw) < 0)
			return -1;
		rc = write_all(out, offset, crc, s->body.data, s->body.len);
	} else {
		meta->encodings |= 1u << STK_PQ_ENC_DELTA_BINARY_PACKED;
	}
	meta->data_page_offset = *offset;
	if (rc == 0)
		rc = write_all(out, offset, crc, c->pages.data, c->pages.len);
	meta->total_compressed = *offset - start;
	meta->total_uncompressed = raw + c->pages_uncompressed;
	c->pages.len = 0;
	c->pages_uncompressed = 0;
	c->nulls = 0;
	c->has_min_max = false;
	stk_pq_dict_reset(&c->dict);
	return rc;
}
